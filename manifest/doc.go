// Package manifest reads scenarios: streams of Kubernetes-shaped YAML or JSON
// documents (a CloneSet, its Pods, PersistentVolumeClaims, ControllerRevisions,
// ImagePullJobs, Nodes and an optional clonesetcore/v1alpha1 Scenario document, see
// docs/spec/scenario-format.md section 1) and turns them into a
// model.Scenario.
//
// Reading is strict about types and lenient about content: documents of
// unknown kinds are ignored, `v1` List documents contribute their items, but a
// value of the wrong type (`replicas: "abc"`) is an error naming the file,
// line, object and field. A field the object's API type does not have (in its
// API version: the fields of fields_table.go, generated from k8s.io/api and
// kruise's types) is ignored, as the API server drops it; Options.Warn
// reports each one with its place and what was probably meant, and
// Options.StrictFields refuses them, as kubectl warns and, with
// --validate=strict, refuses. The CloneSet gets the defaults of
// the mutating webhook of its API version, a v1alpha1 CloneSet is converted to
// the internal v1beta1 shape (model.SetDefaults, model.ConvertV1alpha1), and
// every rule of the upstream validating webhook for that version is enforced
// (model.Validate). Pods, PVCs and ImagePullJobs that belong to something else are kept apart
// in Scenario.SetAside.
//
// Load and its variants read the stream of one CloneSet (a second one is an
// error); LoadAll and its variants split a stream of many CloneSets (a
// namespace dump) into one scenario per CloneSet, each with the objects its
// controller would claim.
//
// EncodeJSON and EncodeYAML go the other way: they write a model.Scenario as
// a manifest stream that loads back into a scenario that plans identically
// (benchmarks and tests feed generated worlds through the loader this way).
//
// This is the only package of the library that depends on gopkg.in/yaml.v3.
// Nothing here panics on bad input: parser panics are turned into errors and
// nesting and alias expansion are bounded.
package manifest
