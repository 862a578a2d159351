package sim

import (
	"fmt"
	"math"
	"time"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
)

// DefaultMaxPods is the default of Config.MaxPods: the planner's
// clonesetcore.DefaultMaxCreatePods, the number of pods a Kubernetes cluster
// holds at most. The simulator keeps every pod in memory and plans every
// round, so a run of a CloneSet above it is refused rather than attempted.
const DefaultMaxPods = clonesetcore.DefaultMaxCreatePods

func (c Config) maxPods() int {
	if c.MaxPods <= 0 {
		return DefaultMaxPods
	}
	return c.MaxPods
}

// planner is the planner of the runs of c: clonesetcore.PlanWithOptions
// with MaxCreatePods set to the run's MaxPods.
func (c Config) planner() func(*model.Scenario) (*clonesetcore.Result, error) {
	opts := clonesetcore.Options{Limits: clonesetcore.Limits{MaxCreatePods: c.maxPods()}}
	return func(s *model.Scenario) (*clonesetcore.Result, error) { return clonesetcore.PlanWithOptions(s, opts) }
}

// checkSize refuses a run whose CloneSet, at the start or after a scripted
// change of replicas, asks for more pods than the simulated cluster holds
// (Config.MaxPods), naming the field and the limit, and a run of more rounds
// or nodes than a Simulation document may ask for.
func checkSize(scn *model.Scenario, cfg Config) error {
	if scn == nil || scn.CloneSet == nil {
		return nil // NewCluster reports it
	}
	if cfg.MaxSteps > manifest.MaxSimulationSteps {
		return fmt.Errorf("sim.Config.MaxSteps %d is above the limit of %d rounds (manifest.MaxSimulationSteps)", cfg.MaxSteps, manifest.MaxSimulationSteps)
	}
	if len(cfg.Nodes) > manifest.MaxSimulationNodes {
		return fmt.Errorf("sim.Config.Nodes: %d nodes, above the %d a cluster holds (manifest.MaxSimulationNodes)", len(cfg.Nodes), manifest.MaxSimulationNodes)
	}
	limit := cfg.maxPods()
	cs := scn.CloneSet
	if r := cs.Spec.DesiredReplicas(); r > limit {
		return fmt.Errorf("CloneSet %s/%s: spec.replicas %d is above the %d pods the simulated cluster holds (sim.Config.MaxPods; a Kubernetes cluster holds at most about 150,000 pods)",
			cs.Namespace, cs.Name, r, limit)
	}
	for i, e := range cfg.Events {
		if e.Change.Replicas != nil && int(*e.Change.Replicas) > limit {
			return fmt.Errorf("CloneSet %s/%s: event %d (at %v) sets spec.replicas %d, above the %d pods the simulated cluster holds (sim.Config.MaxPods)",
				cs.Namespace, cs.Name, i+1, e.At, *e.Change.Replicas, limit)
		}
	}
	return nil
}

// clampSurge bounds a resolved maxSurge for the convergence bound: the
// parser may give any int (a percentage of a huge number, or MinInt64 for a
// value it cannot represent), but the surge pods of a round never exceed the
// pods the CloneSet has or wants, hi.
func clampSurge(s, hi int) int { return max(0, min(s, hi)) }

// satAdd and satMul are + and * on durations that stop at the largest
// duration instead of wrapping (the convergence bound of a CloneSet with
// int32-sized seconds must not turn negative). Both expect non-negative
// operands; satMul counts a negative operand as 0.
func satAdd(a, b time.Duration) time.Duration {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// satSum adds durations with satAdd, negative ones counting as 0.
func satSum(ds ...time.Duration) time.Duration {
	var t time.Duration
	for _, d := range ds {
		t = satAdd(t, max(d, 0))
	}
	return t
}

func satMul(a, b time.Duration) time.Duration {
	if a <= 0 || b <= 0 {
		return 0
	}
	if b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}
