package sim_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/sim"
)

const exampleScenario = `
apiVersion: clonesetcore/v1alpha1
kind: Scenario
now: "2026-01-01T00:00:00Z"
---
apiVersion: apps.kruise.io/v1beta1
kind: CloneSet
metadata: {name: web, namespace: default, uid: uid-web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: main, image: "web:1"}]}
  updateStrategy:
    rollingUpdate: {podUpdatePolicy: InPlaceIfPossible, maxUnavailable: 1}
`

// Run simulates a CloneSet created from nothing, then rolled out to a new image.
func ExampleRun() {
	scn, err := manifest.LoadBytes([]byte(exampleScenario), "example")
	if err != nil {
		panic(err)
	}
	cfg := sim.DefaultConfig()
	cfg.Events = []sim.Event{{At: time.Minute, Change: sim.Change{Image: "web:2"}}}
	res, err := sim.Run(scn, cfg)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Outcome, res.OK())
	for _, p := range res.Final.Pods {
		fmt.Println(p.Revision, p.State, p.Available)
	}
	// Output:
	// converged true
	// r2 Normal true
	// r2 Normal true
	// r2 Normal true
}

// Verify runs twice and fills in the determinism invariant; WriteText prints
// the timeline, the final state and the invariants.
func ExampleVerify() {
	scn, _ := manifest.LoadBytes([]byte(exampleScenario), "example")
	cfg := sim.DefaultConfig()
	cfg.Events = []sim.Event{{At: time.Minute, Change: sim.Change{Replicas: int32p(1)}}}
	res, err := sim.Verify(scn, cfg)
	if err != nil {
		panic(err)
	}
	var b strings.Builder
	_ = res.WriteText(&b, false)
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.Contains(line, "delete ") || strings.HasPrefix(line, "  ok") {
			fmt.Println(strings.TrimSpace(line))
		}
	}
	// Output:
	// -> delete web-sszb8 (scale in)
	// -> delete web-fn74h (scale in)
	// ok      max-pods                       17 checks
	// ok      update-budget                  17 checks
	// ok      preparing-delete-not-updated   17 checks
	// ok      partition-at-convergence       1 check
	// ok      convergence-bound              1 check
	// ok      determinism                    1 check
	// ok      actions-apply                  17 checks
	// ok      status-counts                  17 checks
	// ok      image-pull-jobs                17 checks
}

func int32p(v int32) *int32 { return &v }

// A Cluster is what a controller loop drives: snapshot, plan, apply, wait.
func ExampleCluster() {
	scn, _ := manifest.LoadBytes([]byte(exampleScenario), "example")
	cluster, err := sim.NewCluster(scn, sim.DefaultConfig().World)
	if err != nil {
		panic(err)
	}
	for round := 0; round < 3; round++ {
		plan, _ := clonesetcore.Plan(cluster.Snapshot())
		report := cluster.Apply(plan)
		fmt.Printf("round %d: %d actions applied\n", round, report.Applied())
		next, ok := cluster.NextEvent()
		if !ok {
			break
		}
		cluster.AdvanceTo(next)
	}
	for _, p := range cluster.Pods() {
		fmt.Println(p.Name, p.LifecycleState(), p.Spec.NodeName != "")
	}
	// Output:
	// round 0: 3 actions applied
	// round 1: 4 actions applied
	// round 2: 1 actions applied
	// web-5847c Normal true
	// web-fn74h Normal true
	// web-sszb8 PreparingNormal true
}

// SVG draws a run; FromManifest reads a Simulation document.
func ExampleResult_SVG() {
	doc, err := manifest.LoadSimulation([]byte(exampleScenario+`---
apiVersion: clonesetcore/v1alpha1
kind: Simulation
seed: 3
events:
- {at: 30, image: "web:2"}
`), "example")
	if err != nil {
		panic(err)
	}
	cfg, _ := sim.FromManifest(doc)
	scn, _ := manifest.LoadBytes([]byte(exampleScenario), "example")
	res, _ := sim.Run(scn, cfg)
	svg := res.SVG() // os.WriteFile("rollout.svg", svg, 0o644) to keep it
	fmt.Println(strings.HasPrefix(string(svg), "<svg"), strings.Contains(string(svg), "image web:2"))
	// Output: true true
}
