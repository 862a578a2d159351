// Package admission is what OpenKruise's CloneSet webhooks do to a CloneSet,
// without them: the mutating webhook's defaults (Default), the validating
// webhook's verdict on a create, an update or a delete (Validate), and the
// conversion webhook between apps.kruise.io/v1alpha1 and the v1beta1 hub
// (Convert), as kruise v1.9.0 does them (the commit of the project's
// records, 07169cfac), its feature gates at their defaults unless Gates says
// otherwise. docs/spec/admission-and-conversion.md states every rule.
//
// An Object is a CloneSet as kruise's Go types of its version hold it:
// Parse (JSON) and FromTree (a JSON-like tree, such as a client library's
// unstructured object) read it with the types' rules (an unknown member is
// dropped, and UnknownFields lists it as the API server warns about it; a
// value of the wrong type is a *DecodeError naming the field); MarshalJSON
// writes it as encoding/json writes the typed object, members in Go field
// order. The pod template and the claim templates (PersistentVolumeClaims)
// are package podtemplate's typed encodings.
//
// A webhook server hands each admission request to a Request, whose Default
// and Validate read the raw objects once; ConvertJSON serves a conversion
// review's objects one by one:
//
//	obj, changed, err := admission.Request{Operation: admission.Create, Version: "v1beta1", Object: raw}.Default()
//	patched, _ := obj.MarshalJSON()           // the mutated object: a JSON patch from raw to it
//	errs, err := admission.Request{Operation: admission.Create, Object: patched}.Validate()
//	converted, err := admission.ConvertJSON(raw, admission.V1alpha1)
//
// Where the rules live. The CloneSet's defaults are here and in package model
// (model.SetDefaults, the model-level subset the planner's loader applies;
// a property test holds the two to agreeing). The verdict's rules are package
// model's (model.ValidateAdmission, model.ValidateUpdate: rules A0-A21 and
// B0-B20 of docs/spec/lifecycle-status-validation.md 4.4-4.5, the ones the
// planner's loader applies too); this package feeds them the object as the
// webhook reads it (the pod template with its defaults, as kruise checks it)
// and adds deletion protection (rules D1, D2). The pod template's defaults
// are package podtemplate's (docs/spec/pod-template-defaults.md). The pod
// template's own validation is Kubernetes' core validation, which kruise
// calls: the library checks the part of it that needs no Kubernetes code
// (names, images, duplicate volumes with the claim templates among them,
// volume mounts, requests within limits, a resizePolicy on an init container,
// labels, annotations, readiness gates, spread constraint keys); a webhook
// built on k8s.io/kubernetes (examples/kubecontroller) may add the rest.
//
// The package is pure: no clock, no I/O, deterministic output; it depends
// on the standard library and the project's packages only.
package admission
