// Package kruisee2e runs OpenKruise's own CloneSet e2e specs (kruise
// v1.9.0's test/e2e, the 43 specs of the ginkgo label filter "CloneSet &&
// workload") against this module's controller, clonesetcontroller, on the
// project's control plane (package controlplane: etcd, kube-apiserver
// v1.37.2, kube-scheduler, kube-controller-manager and kwok nodes).
//
// The suite itself is built in the peer module (../kruisepeer), the only
// module that requires kruise; scripts/kruise-e2e.sh builds it and runs
// TestKruiseCloneSetSpecs with one command, which prints
//
//	kruise e2e CloneSet specs (v1.9.0): P passed, F failed, S skipped of 43
//
// and the name of each failed spec. docs/kruise-e2e.md says what the
// stand-ins for the kubelet, the storage provisioner and kruise's node
// agent do, and why each failing spec fails.
package kruisee2e
