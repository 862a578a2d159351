package clonesetcore_test

import (
	"fmt"
	"log"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/manifest"
)

// exampleScenario is a CloneSet of three pods at revision sample-1 whose
// template was changed to nginx:2 (revision sample-2), updated in place with a
// budget of one unavailable pod. Pods sample-a and sample-b share node-1; pod
// sample-c, on node-2, is not ready.
const exampleScenario = `
apiVersion: clonesetcore/v1alpha1
kind: Scenario
now: "2026-01-01T12:00:00Z"
---
apiVersion: apps.kruise.io/v1beta1
kind: CloneSet
metadata: {name: sample, namespace: default, uid: uid-sample, generation: 2}
spec:
  replicas: 3
  selector: {matchLabels: {app: sample}}
  template:
    metadata: {labels: {app: sample}}
    spec: {containers: [{name: nginx, image: "nginx:2"}]}
  updateStrategy:
    rollingUpdate: {podUpdatePolicy: InPlaceIfPossible, maxUnavailable: 1}
status: {currentRevision: sample-1}
---
apiVersion: apps/v1
kind: ControllerRevision
metadata: {name: sample-1, namespace: default}
revision: 1
data: {spec: {template: {metadata: {labels: {app: sample}}, spec: {containers: [{name: nginx, image: "nginx:1"}]}}}}
---
apiVersion: apps/v1
kind: ControllerRevision
metadata: {name: sample-2, namespace: default}
revision: 2
data: {spec: {template: {metadata: {labels: {app: sample}}, spec: {containers: [{name: nginx, image: "nginx:2"}]}}}}
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata:
    name: sample-a
    namespace: default
    creationTimestamp: "2026-01-01T10:00:00Z"
    labels: {app: sample, controller-revision-hash: sample-1, pod-template-hash: "1", lifecycle.apps.kruise.io/state: Normal}
    ownerReferences: [{apiVersion: apps.kruise.io/v1beta1, kind: CloneSet, name: sample, uid: uid-sample, controller: true}]
  spec: {nodeName: node-1, containers: [{name: nginx, image: "nginx:1"}]}
  status:
    phase: Running
    conditions: [{type: Ready, status: "True", lastTransitionTime: "2026-01-01T10:01:00Z"}]
- apiVersion: v1
  kind: Pod
  metadata:
    name: sample-b
    namespace: default
    creationTimestamp: "2026-01-01T10:00:00Z"
    labels: {app: sample, controller-revision-hash: sample-1, pod-template-hash: "1", lifecycle.apps.kruise.io/state: Normal}
    ownerReferences: [{apiVersion: apps.kruise.io/v1beta1, kind: CloneSet, name: sample, uid: uid-sample, controller: true}]
  spec: {nodeName: node-1, containers: [{name: nginx, image: "nginx:1"}]}
  status:
    phase: Running
    conditions: [{type: Ready, status: "True", lastTransitionTime: "2026-01-01T10:01:00Z"}]
- apiVersion: v1
  kind: Pod
  metadata:
    name: sample-c
    namespace: default
    creationTimestamp: "2026-01-01T10:00:00Z"
    labels: {app: sample, controller-revision-hash: sample-1, pod-template-hash: "1", lifecycle.apps.kruise.io/state: Normal}
    ownerReferences: [{apiVersion: apps.kruise.io/v1beta1, kind: CloneSet, name: sample, uid: uid-sample, controller: true}]
  spec: {nodeName: node-2, containers: [{name: nginx, image: "nginx:1"}]}
  status:
    phase: Running
    conditions: [{type: Ready, status: "False", lastTransitionTime: "2026-01-01T11:59:00Z"}]
`

// ExamplePlan loads a scenario and prints the plan's actions: the unready pod
// is updated first (it costs no availability), and the budget of one
// unavailable pod lets no ready pod follow this round.
func ExamplePlan() {
	scn, err := manifest.LoadBytes([]byte(exampleScenario), "example.yaml")
	if err != nil {
		log.Fatal(err)
	}
	plan, err := clonesetcore.Plan(scn)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("revisions: current %s, update %s\n", plan.CurrentRevision, plan.UpdateRevision)
	fmt.Printf("budget: updateNum %d, updateMaxUnavailable %d\n", plan.Budget.UpdateNum, plan.Budget.UpdateMaxUnavailable)
	for _, a := range plan.Actions {
		fmt.Printf("%s %s %s -> %s\n", a.Type, a.Pod, a.FromRevision, a.ToRevision)
	}
	// Output:
	// revisions: current sample-1, update sample-2
	// budget: updateNum 3, updateMaxUnavailable 1
	// UpdatePodInPlace sample-c sample-1 -> sample-2
}

// ExampleRank prints the order in which the pods of the scenario would be
// deleted by a scale-in, and the key that placed each one before the next: the
// unavailable pod first, then one of the two pods stacked on node-1.
func ExampleRank() {
	scn, err := manifest.LoadBytes([]byte(exampleScenario), "example.yaml")
	if err != nil {
		log.Fatal(err)
	}
	ranking, err := clonesetcore.Rank(scn, clonesetcore.RankForDeletion)
	if err != nil {
		log.Fatal(err)
	}
	for i, p := range ranking.Pods {
		fmt.Printf("%d. %s (%s)\n", i+1, p.Name, p.Why)
	}
	// Output:
	// 1. sample-c (unavailable)
	// 2. sample-a (rank)
	// 3. sample-b (last)
}
