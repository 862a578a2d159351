// Package faults holds tests and a benchmark, no API: the reference controller
// (cmd/clonesetcontroller, run as a real process) rolls CloneSets out on a
// real control plane (package controlplane) while a fault happens, and the
// tests prove, from witnesses outside the controller, that nothing was lost
// and nothing was done twice.
//
// The faults, one test each, in the middle of a rollout of 20 pods:
//
//  1. kube-apiserver stopped and started again (TestFaultAPIServerRestart);
//  2. etcd killed and started again (TestFaultEtcdRestart);
//  3. the controller killed (SIGKILL) in the middle of a slow-start batch
//     (the batch's pods created, a proxy keeping the answer to its last
//     create) and started again with no memory
//     (TestFaultControllerKilled), and the
//     case a restarted controller cannot know about: a create of the dead
//     process still in flight, landing after the new process planned
//     (TestFaultControllerKilledWriteInFlight: the binary sends the creates
//     of a batch concurrently, its default, so the held create is the
//     second of the batch of 4 to reach the proxy, a pod the test names in
//     its log, and the other three land while it is held);
//  4. two controller processes with leader election, the leader killed
//     (TestFaultLeaderKilled);
//  5. another writer changing the pods' labels, annotations and status
//     (TestFaultOtherWriter);
//  6. the API server throttling writes (--max-mutating-requests-inflight=1)
//     and a proxy answering some of the controller's requests with errors
//     (TestFaultThrottledWithErrors);
//  7. a CloneSet the library refuses next to a valid one: refused by the
//     validating webhook, then stored as before the webhooks
//     (TestFaultRefusedNeighbour);
//  8. the webhooks down, served by a process of their own
//     (TestFaultWebhookDown);
//  9. the one process, controller and webhooks, restarted
//     (TestFaultControllerRestarted);
//  10. the certificates rotated, a serving certificate of 20 s and a CA of
//     60 s (TestFaultCertificateRotated).
//
// Each controller process is the binary with its webhooks, installed from
// config/ (package installtest) and run as a service account bound to the
// shipped roles only; a request of it refused with 403 Forbidden fails the
// test. Faults 8 to 10 write CloneSets throughout (valid and invalid, both
// versions) and check that nothing invalid is accepted, that every
// CloneSet accepted is stored defaulted, and that none is lost.
// TestLeastPrivilege shows that the shipped roles hold exactly what the
// binary does.
//
// The witnesses: the API server's audit log
// (controlplane.AuditPolicyWritesAndServiceAccounts: every create, delete and
// patch of pods, claims, revisions and CloneSets, and every request of a
// service account, with the user who made it), from which no object may be
// created or deleted twice by the controller; and a watch of the test's own on the
// pods, checked at every event: never more active pods than replicas +
// maxSurge, never fewer ready ones than replicas - maxUnavailable. Each
// rollout must converge (the CloneSet's status and the pods themselves),
// and each test prints
//
//	fault <name>: converged in Ns, 0 written twice, 0 budget violations
//
// where N is the time from the start of the rollout. docs/reliability.md
// ("On a real control plane") has the table of what the controller did.
//
// The same harness measures the controller at size, beside OpenKruise
// v1.9.0's CloneSet controller (cmd/kruise-cloneset-controller of the peer
// module ../kruisepeer, built by the tests; kruise's CloneSet definitions
// from its module): BenchmarkRollout rolls 1,000 pods out on 50 kwok nodes
// (scale out, an in-place image update with maxUnavailable 10 %, a recreate
// update with maxSurge 10 %, a scale-in) with each controller in turn on one
// control plane, at two client settings (no client-side rate limit; kruise's
// QPS 30, burst 50), and prints per step and controller the wall time,
// reconciles, audited writes, and the CPU time and peak memory of the
// controller process and of kube-apiserver, then the ratios
// (scripts/bench-controlplane.sh runs it); TestRollout100Pods runs the same
// comparison at 100 pods without a client-side limit with the tests,
// checking the same witnesses for the project's controller, and prints
//
//	rollout 100 pods <controller> <step> <wall>s wall, <n> reconciles, <n> writes (...), CPU ..., peak memory ...
//	rollout 100 pods ratio clonesetcontroller/kruise <step> wall ..., CPU controller ..., peak memory controller ...
//
// The tests need the control plane's binaries (go run ./cmd/controlplane
// build) and build the controller once per run of the package (and kruise's
// when a rollout runs: GONOSUMDB=github.com/openkruise GOFLAGS=-mod=mod in
// ../kruisepeer).
package faults
