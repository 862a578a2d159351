package requests_test

import (
	"fmt"
	"strings"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/requests"
)

const exampleWorld = `apiVersion: clonesetcore/v1alpha1
kind: Scenario
now: "2026-01-01T00:00:00Z"
---
apiVersion: apps.kruise.io/v1beta1
kind: CloneSet
metadata: {name: web, namespace: default, uid: uid-web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: main, image: "nginx:1.27"}]}
`

// ExampleBuild turns the plan of a new CloneSet into the requests a
// controller sends: the ControllerRevision, the pods in slow-start batches,
// and the status write.
func ExampleBuild() {
	scn, err := manifest.LoadBytes([]byte(exampleWorld), "example.yaml")
	if err != nil {
		panic(err)
	}
	plan, err := clonesetcore.Plan(scn)
	if err != nil {
		panic(err)
	}
	reqs, err := requests.Build(scn, plan)
	if err != nil {
		panic(err)
	}
	for _, r := range reqs {
		what := string(r.Resource)
		if r.Subresource != "" {
			what += "/" + r.Subresource
		}
		name := r.Name
		if strings.HasPrefix(name, "web-") {
			name = "web-…" // generated names
		}
		fmt.Printf("%s %s %s (batch %d, action %d)\n", r.Verb, what, name, r.Batch, r.Action)
	}
	// Output:
	// create controllerrevisions web-… (batch -1, action 0)
	// create pods web-… (batch 0, action 1)
	// create pods web-… (batch 1, action 2)
	// patch clonesets/status web (batch -1, action -1)
}

// ExampleWorld carries a plan's requests out on in-memory objects and plans
// again from what they left: the new pods get their InPlaceUpdateReady
// condition, as upstream's next round does.
func ExampleWorld() {
	scn, err := manifest.LoadBytes([]byte(exampleWorld), "example.yaml")
	if err != nil {
		panic(err)
	}
	plan, _ := clonesetcore.Plan(scn)
	reqs, _ := requests.Build(scn, plan)
	w := requests.NewWorld(scn)
	if _, complete := w.ApplyAll(reqs); !complete {
		panic("a request failed")
	}
	next := w.Scenario(scn)
	fmt.Println(len(next.Pods), "pods,", len(next.Revisions), "revision, status replicas", next.CloneSet.Status.Replicas)
	again, _ := clonesetcore.Plan(next)
	for _, a := range again.Actions {
		fmt.Println("next round:", a.Type, a.Reason)
	}
	// Output:
	// 2 pods, 1 revision, status replicas 0
	// next round: PatchPod in-place update ready: set InPlaceUpdateReady to True
	// next round: PatchPod in-place update ready: set InPlaceUpdateReady to True
}
