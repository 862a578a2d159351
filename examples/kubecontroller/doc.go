// Package kubecontroller is a reference CloneSet controller on
// controller-runtime: the library decides, this package reads and writes.
//
// It is its own Go module, so that the library keeps no Kubernetes
// dependency. The OpenKruise API module is not a dependency either: the
// CloneSet is read as an unstructured object, of apps.kruise.io/v1beta1 or
// v1alpha1.
//
// One reconcile (Reconciler.Reconcile):
//
//  1. reads the CloneSet and lists its pods, claims and revisions from the
//     client (the manager's cache), and its ImagePullJobs with the
//     PreDownloadImageForInPlaceUpdate gate on when the API server serves
//     them (Reconciler.ImagePullJobsServed); the nodes come from a NodeStore fed by
//     the cache's Node informer (only the changes since the CloneSet's
//     previous reconcile reach its Tracker), or are listed too until the
//     store has synced or when there is none;
//  2. checks the expectations (package expectations of the library): a pod,
//     claim or revision it created or deleted, or a pod or claim it patched,
//     that the cache does not show yet blocks the round, which is requeued;
//  3. converts the objects into the library's model (Scenario: pods, claims
//     and nodes directly from the client types; the unstructured CloneSet and
//     the revisions' templates through the library's own field rules,
//     manifest.DecodeCloneSetTree and DecodeTemplateTree, with no text in
//     between; only objects whose resourceVersion changed, with a
//     ConversionCache, the CloneSet included; nodes in the NodeStore) and plans
//     with the CloneSet's clonesetcore.Tracker;
//  4. turns the plan into API requests for the server's version
//     (requests.BuildWithOptions) and sends them in order (Sender, through
//     a RESTWriter: the requests' own bytes, metadata-only answers; with the
//     rules of requests.Progress): creates batch by batch, stopping after a
//     batch with a failure (the creates of one batch concurrently with
//     Reconciler.ConcurrentBatches, which the binary turns on); patches with their patch types and preconditions; deletes
//     with their UID preconditions; the status through the status
//     subresource;
//  5. returns the plan's requeue.
//
// A CloneSet the library refuses in step 3 (a field of the wrong type, or a
// spec OpenKruise's admission webhook would refuse: InvalidCloneSetError)
// gets a Warning event naming the field (ReasonInvalidSpec, once per
// generation) and nothing else: no write, no requeue. With DryRun, step 4
// logs the requests instead of sending them.
//
// The CloneSet CustomResourceDefinition is in package crd; the command
// cmd/clonesetcontroller runs the Reconciler in a manager.
package kubecontroller
