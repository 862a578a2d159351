// Package serverconformance holds no code for users: its tests send the
// library's requests to a real kube-apiserver and compare what the server
// then holds with what the real OpenKruise controller wrote.
//
// For every world of testdata/conformance-writes and
// testdata/conformance-revisions, a test
//
//  1. loads the world's objects into a namespace of its own on the server
//     (the CloneSet and its status through the status subresource, pods and
//     their status, PVCs, revisions, nodes), mapping the world's uids to the
//     ones the server hands out;
//  2. runs `clonesetplan plan -o requests` on the world (the CLI, built from
//     this repository) and sends its requests with the reference
//     controller's Sender and its RESTWriter (the request's bytes as they
//     are, as the controller sends them), the world's uids in preconditions
//     and owner references replaced by the server's;
//  3. reads every object back, maps the uids back, and compares with the
//     record by internal/apiserver.Compare, the comparison the in-memory
//     replay uses. Objects the record says the controller creates are first
//     created on the server in dry-run mode, so that both sides carry the
//     server's defaults.
//
// The golden scenarios' requests are sent the same way, through a
// controller-runtime client instead of the RESTWriter (the Sender's other
// path); each must be accepted, or refused only for its precondition.
//
// kube-apiserver runs with the CloneSet CRD of config/, whose versions
// convert through a webhook: the test serves the conversion webhook itself
// (installtest.ServeInProcess, the binary's handler and rules), and
// installs neither the mutating nor the validating webhook (the worlds are
// stored as the records hold them). OpenKruise's ImagePullJob definition,
// read from its module at test time (internal/kruisecrd), is installed too:
// the worlds of the image pre-download hold ImagePullJobs, and their
// requests create and delete them.
//
// What a real server does that the records' fake server did not, and how
// the comparison reads it: a deleted pod bound to a node stays until its
// kubelet confirms (there is none here), and a deleted PVC keeps the
// kubernetes.io/pvc-protection finalizer until kube-controller-manager
// removes it (it does not run here): an object whose deletion waits only for
// those counts as deleted.
package serverconformance
