// Package webhook serves the CloneSet's webhooks, as OpenKruise's do, in a
// controller-runtime webhook server, and keeps the server's certificates
// when the binary manages them itself.
//
// The webhooks (Handlers, their paths those of OpenKruise's manifests):
//
//   - PathMutateCloneSet, the CloneSet mutating webhook: OpenKruise's
//     defaults on a create or an update, answered as a JSON patch (none
//     when the defaults change nothing);
//   - PathValidateCloneSet, the CloneSet validating webhook: the verdict on
//     a create, an update or a delete (deletion protection), a refusal
//     answered as kube-apiserver's own Invalid (422) or Forbidden (403)
//     status with OpenKruise's message and one cause per field;
//   - PathConvert, the CRD conversion webhook (ConversionReview v1) between
//     apps.kruise.io/v1alpha1 and v1beta1;
//   - PathMutatePod, the part of OpenKruise's pod webhook the CloneSet
//     relies on, on create: the KruisePodReady readiness gate of a pod a
//     apps.kruise.io controller owns (kubecontroller.PodReadinessReconciler
//     gives it its first True), and the container launch barriers of a pod
//     whose containers start in order (launchpriority.go;
//     kubecontroller.LaunchPriorityReconciler writes their keys, the
//     in-place update splits its batches by them).
//
// The decisions are Rules; LibraryRules are the project's library
// (package admission: the defaults, the verdicts and the conversion of
// docs/spec/admission-and-conversion.md) with Kubernetes' own validation of
// the pod template added (k8s.io/kubernetes' ValidatePodTemplateSpec with
// OpenKruise's options), which the library does not hold.
//
// Certificates: NewServer serves those of a directory (Options.CertDir,
// reloaded when they change; the issuer publishes its CA), or manages its
// own (Certificates): a CA and a serving certificate in a Secret every
// replica shares, renewed in steps (Renew) so that no client meets a
// serving certificate whose CA it was not given, the CA bundle written into
// the webhook configurations and the CRD's conversion (Targets.Publish).
//
// The binary (cmd/clonesetcontroller) builds the server with NewServer,
// gives it to its manager (ctrl.Options.WebhookServer) and calls Setup;
// tests serve Handlers.Paths from a server of their own
// (installtest.ServeInProcess).
package webhook

// The paths the webhook server serves (OpenKruise's own paths, so that
// manifests written for it keep working).
const (
	// PathMutateCloneSet is the CloneSet mutating webhook (defaults).
	PathMutateCloneSet = "/mutate-apps-kruise-io-cloneset"
	// PathValidateCloneSet is the CloneSet validating webhook (create,
	// update, delete).
	PathValidateCloneSet = "/validate-apps-kruise-io-cloneset"
	// PathMutatePod is the pod mutating webhook (the KruisePodReady
	// readiness gate, the launch barriers).
	PathMutatePod = "/mutate-pod"
	// PathConvert is the CRD conversion webhook.
	PathConvert = "/convert"
)
