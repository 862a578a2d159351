// Package requests turns a plan into the exact API requests a CloneSet
// controller sends, and carries requests out on an in-memory world.
//
// A plan (clonesetcore.Result) says what to do: "create pod web-x at revision
// web-7c9d with instance id x", "update pod web-a in place to web-7c9d". This
// package says how: the pod object to create, built from the revision's
// template the way upstream builds it (labels, owner reference, readiness
// gate, PVC volumes, lifecycle label and timestamp); the status patch that
// sets InPlaceUpdateReady False, the patch of the pod's resize subresource
// that changes container resources (API servers 1.32 and later; Options), and
// the strategic merge patch that changes the images, the revision labels and
// the in-place-update state annotation; the ControllerRevision to create;
// the CloneSet status write; the deletes with their UID preconditions; the
// ImagePullJobs of the image pre-download, byte for byte as upstream's
// client sends them, and the revision's mark. Build
// returns them as plain data, in the order a controller sends them, each
// naming the plan action it carries out — the way etcd's raft hands its
// caller exactly the entries to persist and the messages to send.
// BuildWithOptions does the same for a given API server version (Options):
// the requests differ only in where resource changes go.
//
// A controller that imports the library sends the requests with its client
// (see examples/kubecontroller) as the caller's contract of package
// clonesetcore says (written once, in its package doc): the creates of one
// Batch may go concurrently and after a batch with a failure no later batch
// starts; a Tolerated request's failure (the image pre-download's) ends
// nothing but the later ImagePullJob deletes; any other failed request ends
// the action requests; the status write
// (Action -1, Request.IsStatusWrite) is sent all the same, and the requests
// after it only when it succeeded; the next reconcile plans again from what
// the server then holds. Requests add one rule of their own: a pod's claims
// are created before the pod, in its batch, and the pod is not created when
// one of them failed (upstream's createOnePod, scale-and-budgets 4.4).
// Progress applies these rules one request at a time; World.ApplyAll and the
// example controller's sender follow it.
//
// World is the in-memory side: it holds model objects and applies requests
// to them as the API server would (Apply), so the simulator and tests carry
// out plans through the same requests a real controller sends.
//
// The rules implemented here are those of docs/spec: the pod object
// (scale-and-budgets 4.4), the PVC object (scale-and-budgets 5.2), the
// lifecycle writes W1/W2/W3 and the NotReady policy
// (lifecycle-status-validation 1.4, 1.5), the in-place update steps and grace
// period (update-and-ordering 4.5, 4.6), specified-delete before a recreate
// (update-and-ordering 4.1), the status subresource and the podsToDelete
// rewrite (lifecycle-status-validation 2.6, 2.7), and revision bookkeeping
// (lifecycle-status-validation 2.3, 2.7), and the image pre-download
// (image-predownload P7, P8).
package requests
