package sim

import (
	"fmt"
	"time"

	"github.com/clonecore/cloneset/model"
)

// DefaultMaxSteps is the step limit of a run whose Config.MaxSteps is 0.
const DefaultMaxSteps = 500

// Range is a closed interval of delays; the world draws a delay uniformly
// from [Min, Max], to the millisecond, each time it needs one (so that, as in
// a real cluster, things rarely happen on the exact second a controller
// timestamp names). A zero Range means "at once".
type Range struct {
	// Min is the shortest delay.
	Min time.Duration
	// Max is the longest delay; a Max below Min counts as Min.
	Max time.Duration
}

// Seconds returns the range [min, max] in whole seconds.
func Seconds(min, max int) Range {
	return Range{Min: time.Duration(min) * time.Second, Max: time.Duration(max) * time.Second}
}

// String renders the range as "2s-5s" (or "3s" when Max is not above Min).
func (r Range) String() string {
	if r.Max <= r.Min {
		return r.Min.String()
	}
	return r.Min.String() + "-" + r.Max.String()
}

// Delays are the reaction times of the simulated cluster.
type Delays struct {
	// Schedule is the time from the creation of a pod to its binding to a node.
	Schedule Range
	// Start is the time from binding to phase Running (image pull, container start).
	Start Range
	// Ready is the time from a container start to its readiness.
	Ready Range
	// InPlace is the time from a changed container image (in-place update) to the
	// container running the new image (pull and restart); readiness then takes Ready.
	InPlace Range
	// Terminate is the time from a pod's deletion to its disappearance (graceful
	// termination), once it has no finalizers left.
	Terminate Range
	// Hook is the reaction time of the user's hook controller (LSV 1.9).
	Hook Range
	// Reconcile is the time from a round that changed something (an action
	// applied, a status written, a spec changed) to the next round, which the
	// watch events of those writes trigger.
	Reconcile time.Duration
	// Requeue is the work-queue latency added to a plan's requeueAfterSeconds:
	// a round asked for after d starts at d + Requeue. A real controller is
	// always a little late; upstream's progress deadline relies on it (a
	// requeue below one second lands on the deadline itself, which is not yet
	// "exceeded", and asks for no further requeue, LSV 2.4).
	Requeue time.Duration
}

// DefaultDelays are the delays of DefaultConfig: a quick, slightly jittery
// cluster.
func DefaultDelays() Delays {
	return Delays{
		Schedule:  Seconds(1, 2),
		Start:     Seconds(1, 3),
		Ready:     Seconds(2, 6),
		InPlace:   Seconds(2, 5),
		Terminate: Seconds(1, 5),
		Hook:      Seconds(3, 8),
		Reconcile: time.Second,
		Requeue:   10 * time.Millisecond,
	}
}

// Selection picks the pods or containers a fault applies to: those running one
// of Images (a container image as written in the template), and each other pod
// with probability Probability, drawn once when the pod is created.
type Selection struct {
	// Images are container images that suffer the fault.
	Images []string
	// Probability is the chance that any other new pod suffers it (0 to 1).
	Probability float64
}

// Empty reports whether the selection can never pick anything.
func (s Selection) Empty() bool { return len(s.Images) == 0 && s.Probability <= 0 }

func (s Selection) hasImage(img string) bool {
	for _, x := range s.Images {
		if x == img {
			return true
		}
	}
	return false
}

// CrashFault makes containers crash in a loop: ready for Up, then crashed
// (restart count up, not ready) for Down, again and again.
type CrashFault struct {
	Selection
	// Up is how long a crashing container stays ready (at least 1 s).
	Up time.Duration
	// Down is how long it stays down after each crash (at least 1 s).
	Down time.Duration
}

// NodeLossMode says what happens to the pods of a lost node.
type NodeLossMode string

// Node loss modes.
const (
	// NodeLossEvict: the pods turn not ready at once, are evicted (deletion
	// timestamp) After later, and are removed by the pod garbage collector After
	// after that (the kubelet that would confirm their termination is gone).
	NodeLossEvict NodeLossMode = "evict"
	// NodeLossFail: the pods turn Failed at once and are removed After later.
	NodeLossFail NodeLossMode = "fail"
)

// NodeLoss takes a node out of the cluster at a given time.
type NodeLoss struct {
	// Node is the node's name.
	Node string
	// At is the time of the loss, counted from the start of the run.
	At time.Duration
	// Mode is NodeLossEvict (the default when empty) or NodeLossFail.
	Mode NodeLossMode
	// After is the delay of the eviction and of the removal (default 30 s).
	After time.Duration
}

// Faults are the failures injected into the world.
type Faults struct {
	// NeverReady containers start but never become ready.
	NeverReady Selection
	// Crash containers crash in a loop.
	Crash CrashFault
	// NodeLoss lists nodes that disappear during the run.
	NodeLoss []NodeLoss
}

// Any reports whether some fault is configured.
func (f Faults) Any() bool {
	return !f.NeverReady.Empty() || !f.Crash.Empty() || len(f.NodeLoss) > 0
}

// World configures the simulated cluster around the CloneSet controller: the
// scheduler and kubelet, the user's hook controller and the injected faults.
type World struct {
	// Seed seeds the world's random numbers (math/rand/v2 PCG): the same seed
	// gives the same run, byte for byte.
	Seed uint64
	// Delays are the reaction times.
	Delays Delays
	// Nodes are the nodes pods are scheduled to. Empty: the scenario's nodes
	// and the nodes its pods run on, or node-0, node-1, node-2 when there are none.
	Nodes []string
	// HooksDisabled turns the user's hook controller off: lifecycle hooks are
	// then never released or re-armed by anyone.
	HooksDisabled bool
	// NoKruisePodReadyGate stops the simulated Kruise pod webhook from adding
	// the KruisePodReady readiness gate to new pods (it adds it by default, as
	// upstream does for every pod owned by an apps.kruise.io object).
	NoKruisePodReadyGate bool
	// Faults are the injected failures.
	Faults Faults
}

// Change is a change of the CloneSet spec made by a user (or, for DeletePods,
// a user's direct action on pods). Several fields may be set together: they
// form one update of the object.
type Change struct {
	// Replicas sets spec.replicas through the scale subresource.
	Replicas *int32
	// Image sets the image of a template container: Container, or the first
	// container when Container is empty. A new template is a new revision.
	Image string
	// Container names the container Image and Env apply to.
	Container string
	// Env sets literal environment variables of that container (a change that
	// cannot be applied in place).
	Env []EnvVar
	// TemplateLabels sets labels of the pod template (an empty value removes
	// the label).
	TemplateLabels map[string]string
	// Partition sets rollingUpdate.partition.
	Partition *model.IntOrPercent
	// Paused sets rollingUpdate.paused.
	Paused *bool
	// MaxSurge sets rollingUpdate.maxSurge.
	MaxSurge *model.IntOrPercent
	// MaxUnavailable sets rollingUpdate.maxUnavailable.
	MaxUnavailable *model.IntOrPercent
	// PodsToDelete appends pod names to spec.scaleStrategy.podsToDelete.
	PodsToDelete []string
	// PickPodsToDelete appends that many active pods, drawn at random, to
	// spec.scaleStrategy.podsToDelete.
	PickPodsToDelete int
	// DeletePods deletes these pods directly (kubectl delete pod).
	DeletePods []string
}

// EnvVar is a literal environment variable.
type EnvVar struct {
	// Name is the variable's name.
	Name string
	// Value is its value.
	Value string
}

// Event is a Change at a time.
type Event struct {
	// At is the time of the change, counted from the start of the run.
	At time.Duration
	// Change is what changes.
	Change Change
}

// Config is a whole simulation: the world, the scripted spec changes and the
// step limit.
type Config struct {
	World
	// MaxSteps is the most rounds (reconciles) to run; 0 means DefaultMaxSteps.
	MaxSteps int
	// MaxPods bounds the simulated cluster (see limits.go): 0 means
	// DefaultMaxPods. A run whose spec.replicas, or a scripted change's,
	// exceeds it is refused by New, and every round is planned with
	// clonesetcore.Limits{MaxCreatePods: MaxPods}.
	MaxPods int
	// Events are the scripted changes, applied in order of At (ties in list order).
	Events []Event
}

// DefaultConfig returns a configuration with DefaultDelays, seed 1, no faults,
// no events and the default step limit.
func DefaultConfig() Config {
	return Config{World: World{Seed: 1, Delays: DefaultDelays()}}
}

func (c Config) maxSteps() int {
	if c.MaxSteps <= 0 {
		return DefaultMaxSteps
	}
	return c.MaxSteps
}

// Describe renders the change as a short phrase ("image nginx:v2, replicas 5").
func (c Change) Describe() string {
	var parts []string
	add := func(format string, args ...any) { parts = append(parts, fmt.Sprintf(format, args...)) }
	if c.Replicas != nil {
		add("replicas %d", *c.Replicas)
	}
	if c.Image != "" {
		if c.Container != "" {
			add("image %s=%s", c.Container, c.Image)
		} else {
			add("image %s", c.Image)
		}
	}
	for _, e := range c.Env {
		add("env %s=%s", e.Name, e.Value)
	}
	for _, k := range model.SortedKeys(c.TemplateLabels) {
		if v := c.TemplateLabels[k]; v == "" {
			add("template label -%s", k)
		} else {
			add("template label %s=%s", k, v)
		}
	}
	if c.Partition != nil {
		add("partition %s", c.Partition.String())
	}
	if c.Paused != nil {
		if *c.Paused {
			add("pause")
		} else {
			add("resume")
		}
	}
	if c.MaxSurge != nil {
		add("maxSurge %s", c.MaxSurge.String())
	}
	if c.MaxUnavailable != nil {
		add("maxUnavailable %s", c.MaxUnavailable.String())
	}
	if len(c.PodsToDelete) > 0 {
		add("podsToDelete +%v", c.PodsToDelete)
	}
	if c.PickPodsToDelete > 0 {
		add("podsToDelete +%d random pods", c.PickPodsToDelete)
	}
	if len(c.DeletePods) > 0 {
		add("delete pods %v", c.DeletePods)
	}
	if len(parts) == 0 {
		return "no change"
	}
	out := parts[0]
	for _, p := range parts[1:] {
		out += ", " + p
	}
	return out
}

// changesTemplate reports whether the change makes a new pod template.
func (c Change) changesTemplate() bool {
	return c.Image != "" || len(c.Env) > 0 || len(c.TemplateLabels) > 0
}
