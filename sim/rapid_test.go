package sim

import (
	"flag"
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	"pgregory.net/rapid"
)

// defaultChecks is the number of random cases each rapid property runs when
// -rapid.checks is not given: enough rollouts to matter, and the whole
// package's tests stay well under 30 s. Raise it for a soak run:
//
//	go test ./sim -run Property -rapid.checks=20000
const defaultChecks = "800"

func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "rapid.checks" {
			given = true
		}
	})
	if !given {
		if err := flag.Set("rapid.checks", defaultChecks); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}

// TestPropertyRandomRollouts generates random CloneSets (replicas, update
// policy, partition, surge and unavailability budgets, grace periods,
// minReadySeconds, progress deadlines, lifecycle hooks with label and
// finalizer markers, PVC templates and reuse, excludePreparingDelete, feature
// gates), random worlds (delays, seeds, sometimes a start from an existing
// fleet of pods, sometimes faults: never-ready or crashing pods, a lost node)
// and up to six random spec changes (scale, new images, changes that force a
// recreate, partition, pause and resume, budgets, podsToDelete), runs each
// twice and checks every invariant of the package.
func TestPropertyRandomRollouts(t *testing.T) {
	var runs, converged, faulty atomic.Int64
	rapid.Check(t, func(rt *rapid.T) {
		d := func(label string, lo, hi int) int { return rapid.IntRange(lo, hi).Draw(rt, label) }
		scn, cfg := genRun(d, true)
		res, err := Verify(scn, cfg)
		if err != nil {
			rt.Fatal(err)
		}
		runs.Add(1)
		if res.Outcome == Converged {
			converged.Add(1)
		}
		if cfg.Faults.Any() {
			faulty.Add(1)
		}
		for _, v := range res.Violations() {
			rt.Errorf("%v", v)
		}
		if !res.OK() {
			rt.Logf("scenario: %s", describeConfig(scn.CloneSet.Spec.Replicas, cfg))
			for _, s := range res.Steps {
				if len(s.Violations) > 0 {
					rt.Logf("step %d at %.3fs: pods %v, actions %v, notes %v", s.Index, s.Elapsed, s.Pods.Revisions, s.Actions, s.Notes)
				}
			}
		}
	})
	t.Logf("%d random rollouts simulated twice each (%d converged, %d with injected faults)", runs.Load(), converged.Load(), faulty.Load())
}

func describeConfig(replicas *int32, cfg Config) string {
	s := fmt.Sprintf("replicas %d, seed %d", *replicas, cfg.Seed)
	for _, e := range cfg.Events {
		s += "; at " + e.At.String() + ": " + e.Change.Describe()
	}
	return s
}
