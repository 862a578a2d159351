// Package podtemplate writes a pod template as the Kubernetes API types
// write it, without depending on them: what upstream's controller stores in
// a ControllerRevision, byte for byte (RevisionData), the checks the typed
// form makes when it reads a template (Check), and the template and volume
// claim templates as kruise's CloneSet mutating webhook leaves them, with
// the Kubernetes core defaults it injects (Default, DefaultClaimTemplate;
// docs/spec/pod-template-defaults.md lists the rules).
//
// Upstream builds a revision from its typed CloneSet: the template goes
// through v1.PodTemplateSpec and encoding/json, so a member the types do not
// know is gone, a member they always write is there ("resources":{} in every
// container, "creationTimestamp":null in the metadata), a quantity is in its
// canonical form and an int-or-string is a number or a string; that JSON is
// decoded into generic values and encoded again (members sorted, numbers as
// float64, &, < and > escaped). This package does the same from its own
// description of the core/v1 types: corev1_table.go, generated from
// k8s.io/api by reflection in the example module
// (examples/kubecontroller/cmd/gencorev1table), whose tests fail when the
// table and k8s.io/api disagree, compare RevisionData with the typed
// round trip through k8s.io/api on generated templates, and compare Default
// and DefaultClaimTemplate with Kubernetes' own defaulting functions
// (k8s.io/kubernetes) composed as kruise composes them.
//
// Integers are held exactly (int64) and a managed fields entry's fieldsV1 as
// its text, as the typed form holds them; only RevisionData and
// RevisionTemplate turn numbers into float64, as upstream's generic round
// trip does. DecodeJSON reads JSON keeping what the typed decoder reads
// from the text itself, and DecodedKey tells two templates apart exactly
// where reflect.DeepEqual tells their Go values apart (how kruise's webhook
// decides that an update changed the template).
//
// The one difference from k8s.io/api v0.37 is upstream's own: its
// ObjectMeta.creationTimestamp has no omitzero option, so a zero time is
// written as null (the table says so where it differs).
//
// The package is pure and depends on the standard library only.
package podtemplate
