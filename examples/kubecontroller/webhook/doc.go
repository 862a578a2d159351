// Package webhook serves the CloneSet's admission and conversion webhooks
// and the part of OpenKruise's pod webhook the CloneSet relies on, in a
// controller-runtime webhook server, and keeps the server's certificates
// when the binary manages them itself.
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
	// readiness gate).
	PathMutatePod = "/mutate-pod"
	// PathConvert is the CRD conversion webhook.
	PathConvert = "/convert"
)
