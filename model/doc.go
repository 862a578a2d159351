// Package model holds the minimal in-memory model of the objects one CloneSet
// reconcile looks at: the CloneSet itself (in the internal apps.kruise.io/v1beta1
// shape), its Pods, PersistentVolumeClaims, ControllerRevisions and Nodes, plus the
// scenario settings (clock, feature gates, controller flags) and the actions a plan
// is made of.
//
// The package has no dependency on Kubernetes libraries and no YAML: reading
// manifests is the job of package manifest. Besides the types it provides the small
// predicates every other package shares (pod readiness and availability, revision
// matching, specified-delete), the two IntOrString parsers the controller uses, the
// label-selector and resource-quantity arithmetic, defaults and validation.
package model
