package manifest

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/clonecore/cloneset/model"
	"gopkg.in/yaml.v3"
)

// SimulationKind is the kind of the optional clonesetcore/v1alpha1 document
// that configures `clonesetplan simulate`; Load ignores it, LoadSimulation
// reads it.
const SimulationKind = "Simulation"

// Simulation is the clonesetcore/v1alpha1 Simulation document: the settings of
// a simulated rollout (package sim turns it into a sim.Config). Durations are
// written in seconds (integers or decimals). Absent settings are nil or zero
// and keep the simulator's defaults.
//
//	apiVersion: clonesetcore/v1alpha1
//	kind: Simulation
//	seed: 7                       # world seed
//	steps: 300                    # most reconciles
//	nodes: [node-a, node-b]       # or a count: nodes: 4
//	hookController: true          # the user's lifecycle hook controller acts
//	kruisePodReadyGate: true      # new pods get the KruisePodReady readiness gate
//	delays:                       # seconds: a number, or {min: 1, max: 3}
//	  schedule: {min: 1, max: 2}
//	  start: 2
//	  ready: {min: 2, max: 6}
//	  inPlace: {min: 2, max: 5}   # image pull and restart of an in-place update
//	  terminate: 3
//	  hook: {min: 3, max: 8}
//	  reconcile: 1                # write -> next reconcile
//	  requeue: 0.01               # work-queue latency added to requeues
//	faults:
//	  neverReady: {images: [web:broken], probability: 0.1}
//	  crash: {images: [web:flaky], probability: 0, up: 30, down: 10}
//	  nodeLoss:
//	  - {node: node-b, at: 120, mode: evict, after: 30}   # mode evict or fail
//	events:                       # user changes, at seconds since the start
//	- {at: 30, image: web:v2}     # optional container: NAME
//	- {at: 60, replicas: 6}
//	- {at: 90, paused: true}
//	- {at: 150, paused: false, partition: "50%"}
//	- {at: 200, env: {MODE: fast}, templateLabels: {tier: b}}
//	- {at: 240, podsToDelete: [web-abcde], pickPodsToDelete: 1, deletePods: [web-fghij]}
//	- {at: 260, maxSurge: 1, maxUnavailable: "20%"}
//
// Unlike the objects of a scenario, this document is read strictly: an
// unknown field is an error, because a misspelled setting would silently
// change the simulation.
type Simulation struct {
	// Source locates the document ("file.yaml:12").
	Source string
	// Seed is the world's random seed.
	Seed *uint64
	// Steps is the step limit.
	Steps *int
	// Nodes are node names.
	Nodes []string
	// NodeCount asks for that many generated node names (nodes: 4).
	NodeCount int
	// HookController is false to switch the user's hook controller off.
	HookController *bool
	// KruisePodReadyGate is false to create pods without the KruisePodReady gate.
	KruisePodReadyGate *bool
	// Delays are the world's reaction times.
	Delays SimulationDelays
	// Faults are the injected failures.
	Faults SimulationFaults
	// Events are the scripted changes, in document order.
	Events []SimulationEvent
}

// SimulationRange is a delay drawn between Min and Max.
type SimulationRange struct {
	// Min and Max bound the delay (equal for a single number).
	Min, Max time.Duration
}

// SimulationDelays are the delays of a Simulation document; nil means the default.
type SimulationDelays struct {
	// Schedule, Start, Ready, InPlace, Terminate and Hook are the delays of
	// the scheduler, the kubelet and the hook controller (see sim.Delays).
	Schedule, Start, Ready, InPlace, Terminate, Hook *SimulationRange
	// Reconcile and Requeue are the controller's latencies (see sim.Delays).
	Reconcile, Requeue *time.Duration
}

// SimulationSelection picks pods for a fault: by image, or at random.
type SimulationSelection struct {
	// Images are the container images that suffer the fault.
	Images []string
	// Probability is the chance that any other new pod suffers it.
	Probability float64
}

// SimulationCrash is a crash-loop fault.
type SimulationCrash struct {
	SimulationSelection
	// Up is how long a crashing container stays ready; Down how long it stays
	// down after each crash.
	Up, Down time.Duration
}

// SimulationNodeLoss is a node lost at a time.
type SimulationNodeLoss struct {
	// Node is the lost node's name.
	Node string
	// At is the time of the loss since the start.
	At time.Duration
	// Mode is "evict" (default) or "fail".
	Mode string
	// After is the delay of eviction and removal.
	After time.Duration
}

// SimulationFaults are the faults of a Simulation document.
type SimulationFaults struct {
	// NeverReady selects containers that never become ready.
	NeverReady SimulationSelection
	// Crash selects containers that crash in a loop.
	Crash SimulationCrash
	// NodeLoss lists lost nodes.
	NodeLoss []SimulationNodeLoss
}

// SimulationEvent is one scripted change.
type SimulationEvent struct {
	// Line is the line of the event in its file (0 when unknown).
	Line int
	// At is the time of the change since the start.
	At time.Duration
	// Replicas sets spec.replicas.
	Replicas *int32
	// Image sets the image of Container (the first container when empty).
	Image string
	// Container names the container of Image and Env.
	Container string
	// Env maps variable names to literal values, applied in name order.
	Env map[string]string
	// TemplateLabels sets (or, with an empty value, removes) template labels.
	TemplateLabels map[string]string
	// Partition, MaxSurge and MaxUnavailable set the rollingUpdate fields.
	Partition, MaxSurge, MaxUnavailable *model.IntOrPercent
	// Paused pauses or resumes the rollout.
	Paused *bool
	// PodsToDelete appends names to spec.scaleStrategy.podsToDelete.
	PodsToDelete []string
	// PickPodsToDelete appends that many pods drawn at random.
	PickPodsToDelete int
	// DeletePods deletes pods directly.
	DeletePods []string
}

// LoadSimulation returns the clonesetcore/v1alpha1 Simulation document of a
// scenario stream (YAML or JSON), or nil when the stream has none. source
// names the stream in error messages. Every other document is skipped
// unread (Load reads them); two Simulation documents, a value of the wrong
// type, an unknown field or an event that changes nothing are errors naming
// the file, line and field.
func LoadSimulation(data []byte, source string) (*Simulation, error) {
	docs, err := parseStream(input{source, data})
	if err != nil {
		return nil, err
	}
	var found *Simulation
	budget := baseValues + valuesPerByte*len(data)
	for i, doc := range docs {
		n := resolve(doc)
		if n == nil || n.Kind != yaml.MappingNode {
			continue
		}
		if peekString(n, "kind") != SimulationKind || peekString(n, "apiVersion") != apiScenario {
			continue
		}
		d := &decoder{source: source, budget: &budget, object: fmt.Sprintf("Simulation (document %d)", i+1)}
		s := decodeSimulation(value{d: d, n: n})
		s.Source = where(source, n)
		if len(d.errs) > 0 {
			return nil, errors.Join(d.errs...)
		}
		if found != nil {
			return nil, fmt.Errorf("two Simulation documents, at most one is allowed: %s and %s", found.Source, s.Source)
		}
		found = s
	}
	return found, nil
}

// strictFields reports members of an object that are not among known.
func strictFields(v value, known ...string) {
	if !v.object() {
		return
	}
	for _, pr := range pairsOf(v.n) {
		k := resolve(pr.k)
		if k == nil || k.Kind != yaml.ScalarNode {
			continue
		}
		ok := false
		for _, x := range known {
			if k.Value == x {
				ok = true
			}
		}
		if !ok {
			sorted := append([]string(nil), known...)
			sort.Strings(sorted)
			v.d.errorf(k, joinPath(v.path, k.Value), "unknown field (known: %s)", strings.Join(sorted, ", "))
		}
	}
}

func decodeSimulation(v value) *Simulation {
	strictFields(v, "apiVersion", "kind", "metadata", "seed", "steps", "nodes", "hookController", "kruisePodReadyGate", "delays", "faults", "events")
	s := &Simulation{}
	if x := v.get("seed"); x.present() {
		if n, ok := x.integer(64); ok {
			if n < 0 {
				v.d.errorf(x.n, x.path, "must not be negative")
			}
			u := uint64(n)
			s.Seed = &u
		}
	}
	if x := v.get("steps"); x.present() {
		if n, ok := x.integer(32); ok {
			if n < 0 {
				v.d.errorf(x.n, x.path, "must not be negative")
			}
			if n > MaxSimulationSteps {
				v.d.errorf(x.n, x.path, "must be at most %d", MaxSimulationSteps)
			}
			k := int(n)
			s.Steps = &k
		}
	}
	if x := v.get("nodes"); x.present() {
		if x.n.Kind == yaml.ScalarNode {
			if n, ok := x.integer(32); ok {
				if n < 1 {
					v.d.errorf(x.n, x.path, "must be at least 1")
				}
				if n > MaxSimulationNodes {
					v.d.errorf(x.n, x.path, "must be at most %d (a Kubernetes cluster holds at most 5,000 nodes)", MaxSimulationNodes)
					n = 0
				}
				s.NodeCount = int(n)
			}
		} else {
			s.Nodes = x.stringList()
		}
	}
	if x := v.get("hookController"); x.present() {
		b := x.boolean()
		s.HookController = &b
	}
	if x := v.get("kruisePodReadyGate"); x.present() {
		b := x.boolean()
		s.KruisePodReadyGate = &b
	}

	dl := v.get("delays")
	strictFields(dl, "schedule", "start", "ready", "inPlace", "terminate", "hook", "reconcile", "requeue")
	s.Delays = SimulationDelays{
		Schedule: simRange(dl.get("schedule")), Start: simRange(dl.get("start")), Ready: simRange(dl.get("ready")),
		InPlace: simRange(dl.get("inPlace")), Terminate: simRange(dl.get("terminate")), Hook: simRange(dl.get("hook")),
		Reconcile: secondsPtr(dl.get("reconcile")), Requeue: secondsPtr(dl.get("requeue")),
	}

	fl := v.get("faults")
	strictFields(fl, "neverReady", "crash", "nodeLoss")
	strictFields(fl.get("neverReady"), "images", "probability")
	s.Faults.NeverReady = simSelection(fl.get("neverReady"))
	cr := fl.get("crash")
	strictFields(cr, "images", "probability", "up", "down")
	s.Faults.Crash = SimulationCrash{SimulationSelection: simSelection(cr), Up: seconds(cr.get("up")), Down: seconds(cr.get("down"))}
	for _, nl := range fl.get("nodeLoss").items() {
		strictFields(nl, "node", "at", "mode", "after")
		loss := SimulationNodeLoss{Node: nl.get("node").str(), At: seconds(nl.get("at")), Mode: nl.get("mode").str(), After: seconds(nl.get("after"))}
		if loss.Node == "" {
			v.d.errorf(nl.n, nl.path+".node", "required")
		}
		if loss.Mode != "" && loss.Mode != "evict" && loss.Mode != "fail" {
			v.d.errorf(nl.get("mode").n, nl.path+".mode", "want evict or fail, got %q", loss.Mode)
		}
		s.Faults.NodeLoss = append(s.Faults.NodeLoss, loss)
	}

	for _, ev := range v.get("events").items() {
		strictFields(ev, "at", "replicas", "image", "container", "env", "templateLabels", "partition", "paused",
			"maxSurge", "maxUnavailable", "podsToDelete", "pickPodsToDelete", "deletePods")
		e := SimulationEvent{
			At: seconds(ev.get("at")), Replicas: ev.get("replicas").int32Ptr(),
			Image: ev.get("image").str(), Container: ev.get("container").str(),
			Env: ev.get("env").stringMap(), TemplateLabels: ev.get("templateLabels").stringMap(),
			Partition: ev.get("partition").intOrPercent(), MaxSurge: ev.get("maxSurge").intOrPercent(),
			MaxUnavailable: ev.get("maxUnavailable").intOrPercent(),
			PodsToDelete:   ev.get("podsToDelete").stringList(), DeletePods: ev.get("deletePods").stringList(),
			PickPodsToDelete: int(ev.get("pickPodsToDelete").int32()),
		}
		if ev.n != nil {
			e.Line = ev.n.Line
		}
		if p := ev.get("paused"); p.present() {
			b := p.boolean()
			e.Paused = &b
		}
		if e.Replicas != nil && *e.Replicas < 0 {
			v.d.errorf(ev.get("replicas").n, ev.path+".replicas", "must not be negative")
		}
		if e.PickPodsToDelete < 0 {
			v.d.errorf(ev.get("pickPodsToDelete").n, ev.path+".pickPodsToDelete", "must not be negative")
		}
		if e.Container != "" && e.Image == "" && len(e.Env) == 0 {
			v.d.errorf(ev.get("container").n, ev.path+".container", "names the container of image or env, but the event has neither")
		}
		if e.Replicas == nil && e.Image == "" && len(e.Env) == 0 && len(e.TemplateLabels) == 0 && e.Partition == nil &&
			e.MaxSurge == nil && e.MaxUnavailable == nil && e.Paused == nil && len(e.PodsToDelete) == 0 &&
			e.PickPodsToDelete == 0 && len(e.DeletePods) == 0 && ev.object() {
			v.d.errorf(ev.n, ev.path, "the event changes nothing")
		}
		s.Events = append(s.Events, e)
	}
	return s
}

// seconds reads a non-negative number of seconds (integer or decimal).
func seconds(v value) time.Duration {
	d, _ := secondsOK(v)
	return d
}

func secondsPtr(v value) *time.Duration {
	d, ok := secondsOK(v)
	if !ok {
		return nil
	}
	return &d
}

func secondsOK(v value) (time.Duration, bool) {
	if v.isNull() {
		return 0, false
	}
	if v.n.Kind == yaml.ScalarNode && (v.n.ShortTag() == "!!int" || v.n.ShortTag() == "!!float") {
		f, err := strconv.ParseFloat(strings.ReplaceAll(v.n.Value, "_", ""), 64)
		if err == nil && f >= 0 && f < 1e9 && !math.IsNaN(f) {
			return time.Duration(math.Round(f * float64(time.Second))), true
		}
	}
	v.d.errorf(v.n, v.path, "expected a number of seconds (0 or more), got %s", describe(v.n))
	return 0, false
}

// simRange reads a delay: a number of seconds or {min, max}.
func simRange(v value) *SimulationRange {
	if v.isNull() {
		return nil
	}
	if v.n.Kind == yaml.MappingNode {
		strictFields(v, "min", "max")
		r := &SimulationRange{Min: seconds(v.get("min")), Max: seconds(v.get("max"))}
		if !v.get("max").present() {
			r.Max = r.Min
		}
		if r.Max < r.Min {
			v.d.errorf(v.n, v.path, "max (%s) is below min (%s)", r.Max, r.Min)
		}
		return r
	}
	d, ok := secondsOK(v)
	if !ok {
		return nil
	}
	return &SimulationRange{Min: d, Max: d}
}

func simSelection(v value) SimulationSelection {
	s := SimulationSelection{Images: v.get("images").stringList()}
	if p := v.get("probability"); p.present() {
		f, err := strconv.ParseFloat(p.n.Value, 64)
		if p.n.Kind != yaml.ScalarNode || (p.n.ShortTag() != "!!int" && p.n.ShortTag() != "!!float") || err != nil || f < 0 || f > 1 {
			v.d.errorf(p.n, p.path, "expected a probability between 0 and 1, got %s", describe(p.n))
		} else {
			s.Probability = f
		}
	}
	return s
}
