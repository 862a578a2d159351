package manifest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/clonecore/cloneset/model"
)

const simCloneSet = `apiVersion: apps.kruise.io/v1beta1
kind: CloneSet
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: main, image: web:1}]}
`

func TestLoadSimulation(t *testing.T) {
	doc := simCloneSet + `---
apiVersion: clonesetcore/v1alpha1
kind: Simulation
seed: 7
steps: 300
nodes: [a, b]
hookController: false
kruisePodReadyGate: true
delays:
  schedule: {min: 1, max: 2.5}
  start: 2
  requeue: 0.01
faults:
  neverReady: {images: [web:broken], probability: 0.25}
  crash: {probability: 1, up: 30, down: 10}
  nodeLoss:
  - {node: b, at: 120, mode: fail, after: 30}
events:
- {at: 30, image: "web:2", container: main}
- at: 60
  replicas: 4
  partition: "50%"
  paused: false
- {at: 90, env: {MODE: fast}, templateLabels: {tier: b}, maxSurge: 1, maxUnavailable: "20%"}
- {at: 95.5, podsToDelete: [web-a], pickPodsToDelete: 1, deletePods: [web-b]}
`
	got, err := LoadSimulation([]byte(doc), "sim.yaml")
	if err != nil {
		t.Fatal(err)
	}
	seed, steps, hooks, gate := uint64(7), 300, false, true
	r := func(a, b float64) *SimulationRange {
		return &SimulationRange{Min: time.Duration(a * float64(time.Second)), Max: time.Duration(b * float64(time.Second))}
	}
	requeue := 10 * time.Millisecond
	four := int32(4)
	pf := false
	half, one, twenty := model.FromString("50%"), model.FromInt(1), model.FromString("20%")
	want := &Simulation{
		Source: "sim.yaml:11", Seed: &seed, Steps: &steps, Nodes: []string{"a", "b"}, HookController: &hooks, KruisePodReadyGate: &gate,
		Delays: SimulationDelays{Schedule: r(1, 2.5), Start: r(2, 2), Requeue: &requeue},
		Faults: SimulationFaults{
			NeverReady: SimulationSelection{Images: []string{"web:broken"}, Probability: 0.25},
			Crash:      SimulationCrash{SimulationSelection: SimulationSelection{Probability: 1}, Up: 30 * time.Second, Down: 10 * time.Second},
			NodeLoss:   []SimulationNodeLoss{{Node: "b", At: 120 * time.Second, Mode: "fail", After: 30 * time.Second}},
		},
		Events: []SimulationEvent{
			{At: 30 * time.Second, Image: "web:2", Container: "main"},
			{At: 60 * time.Second, Replicas: &four, Partition: &half, Paused: &pf},
			{At: 90 * time.Second, Env: map[string]string{"MODE": "fast"}, TemplateLabels: map[string]string{"tier": "b"}, MaxSurge: &one, MaxUnavailable: &twenty},
			{At: 95500 * time.Millisecond, PodsToDelete: []string{"web-a"}, PickPodsToDelete: 1, DeletePods: []string{"web-b"}},
		},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(SimulationEvent{}, "Line")); diff != "" {
		t.Errorf("LoadSimulation (-want +got):\n%s", diff)
	}
	if got.Events[1].Line != 29 {
		t.Errorf("event line %d, want 29", got.Events[1].Line)
	}
	// The scenario loader ignores the document.
	if _, err := LoadBytes([]byte(doc), "sim.yaml"); err != nil {
		t.Errorf("Load: %v", err)
	}
}

func TestLoadSimulationAbsentAndCount(t *testing.T) {
	got, err := LoadSimulation([]byte(simCloneSet), "x.yaml")
	if err != nil || got != nil {
		t.Errorf("no Simulation document: %v, %v", got, err)
	}
	got, err = LoadSimulation([]byte(`{"apiVersion": "clonesetcore/v1alpha1", "kind": "Simulation", "nodes": 4}`), "x.json")
	if err != nil || got == nil || got.NodeCount != 4 {
		t.Errorf("JSON with a node count: %+v, %v", got, err)
	}
}

func TestLoadSimulationErrors(t *testing.T) {
	head := "apiVersion: clonesetcore/v1alpha1\nkind: Simulation\n"
	cases := []struct{ name, doc, want string }{
		{"unknown field", "sed: 3\n", `sim.yaml:3: Simulation (document 1): sed: unknown field (known: `},
		{"unknown event field", "events:\n- {at: 1, replicaz: 3}\n", "events[0].replicaz: unknown field"},
		{"empty event", "events:\n- {at: 1}\n", "events[0]: the event changes nothing"},
		{"bad seconds", "events:\n- {at: soon, replicas: 1}\n", `events[0].at: expected a number of seconds (0 or more), got "soon"`},
		{"negative seconds", "delays: {start: -1}\n", "delays.start: expected a number of seconds"},
		{"max below min", "delays: {ready: {min: 5, max: 2}}\n", "delays.ready: max (2s) is below min (5s)"},
		{"bad probability", "faults: {neverReady: {probability: 2}}\n", "faults.neverReady.probability: expected a probability between 0 and 1"},
		{"bad mode", "faults: {nodeLoss: [{node: a, mode: melt}]}\n", `faults.nodeLoss[0].mode: want evict or fail, got "melt"`},
		{"node required", "faults: {nodeLoss: [{at: 3}]}\n", "faults.nodeLoss[0].node: required"},
		{"type error", "steps: many\n", `steps: expected an integer, got "many"`},
		{"negative replicas", "events:\n- {at: 1, replicas: -2}\n", "events[0].replicas: must not be negative"},
		{"container alone", "events:\n- {at: 1, container: main}\n", "events[0].container: names the container of image or env"},
		{"two documents", "seed: 1\n---\n" + head + "seed: 2\n", "two Simulation documents, at most one is allowed: sim.yaml:1 and sim.yaml:5"},
		{"bad yaml", "events: [\n", "sim.yaml: invalid YAML"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadSimulation([]byte(head+c.doc), "sim.yaml")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}

// LoadSimulation reads the Simulation document of a scenario stream; Load
// ignores it.
func ExampleLoadSimulation() {
	stream := simCloneSet + `---
apiVersion: clonesetcore/v1alpha1
kind: Simulation
seed: 42
delays: {ready: {min: 2, max: 5}}
events:
- {at: 30, image: "web:2"}
- {at: 90, replicas: 5}
`
	sim, err := LoadSimulation([]byte(stream), "rollout.yaml")
	if err != nil {
		panic(err)
	}
	fmt.Println(*sim.Seed, sim.Delays.Ready.Min, sim.Delays.Ready.Max)
	for _, e := range sim.Events {
		fmt.Println(e.At, e.Image, e.Replicas != nil)
	}
	// Output:
	// 42 2s 5s
	// 30s web:2 false
	// 1m30s  true
}
