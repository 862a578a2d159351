// Package clustertest runs CloneSet scenarios end to end on a real control
// plane (package controlplane: etcd, kube-apiserver, kube-scheduler,
// kube-controller-manager and kwok) and compares how they end with the
// library's simulator (package sim). It is test infrastructure other test
// packages reuse.
//
// A Cluster is a control plane with three kwok nodes in three zones, the
// CloneSet CRD installed and the API server's version read from discovery.
// A test package shares one: its TestMain calls Main, and each test asks
// Shared for it. Each Run (Cluster.Start) has a namespace of its own and a
// controller-runtime manager of its own whose cache holds that namespace:
// the Reconciler reads through a real informer cache, with its real lag,
// and writes to the API server.
//
// What plays what:
//
//   - the Reconciler (package kubecontroller) is the CloneSet controller;
//   - kube-scheduler binds pods to the kwok nodes; kwok's stages start them,
//     make them Ready, restart a container on a new image, show resized
//     resources and complete deletes (see package controlplane);
//   - kube-controller-manager's garbage collector removes what the CloneSet
//     no longer owns, and its volume controller binds claims;
//   - the Run plays the hook owners (after Scenario.HookDelay it removes a
//     terminating pod's finalizers, and a PreparingDelete pod's preDelete
//     hook finalizers) and a storage provisioner (a volume pre-bound to each
//     new claim: there is no storage driver), nothing else.
//
// A Run waits for rest (WaitRest) the way TestEndToEnd does on the fake
// client: the cluster has nothing left to do (every pod scheduled, running
// its spec as kwok reports it, Ready as a kubelet would say, none
// terminating, every claim bound, no hook waiting) and the last two
// reconciles sent nothing and were not blocked; the second one the Run asks
// for itself (Reconciler.Trigger) once no reconcile ran for a moment. A
// user change (Change) is made at rest (Apply). Every reconcile is counted
// (Reconciler.AfterReconcile): requests sent, conflicts (a write refused on
// a stale resourceVersion or a failed precondition, which the controller
// handles by planning again) and refusals (any other error from the API
// server).
//
// RunScenario does it all: start, rest, each change and rest, then the
// simulator on the same CloneSets (Simulate: the server's CloneSet after
// its creation and after each change, each part starting from the
// simulator's cluster at rest), and the comparison of the FinalState of
// both: pods by revision, lifecycle state, phase and readiness (names
// left out: generated instance ids differ between the worlds), claims by
// template and whether their pod exists, revision names, and the status.
// It fails the test on any refused request or failed reconcile, prints one
// line per scenario,
//
//	kubecontroller on kube-apiserver <scenario>: converged after N reconciles, M requests, 0 refused
//
// and on failure logs the CloneSet, its pods and claims, the latest
// rounds' plans and requests, and the controller's log lines (Dump).
package clustertest
