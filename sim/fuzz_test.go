package sim

import (
	"testing"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/model"
)

// byteDraw turns fuzz input into the choices of genRun: each choice reads as
// many bytes as its range needs; once the input is used up every choice takes
// its lowest value.
func byteDraw(data []byte) draw {
	return func(_ string, lo, hi int) int {
		n := uint64(hi - lo + 1)
		if n <= 1 {
			return lo
		}
		var v uint64
		for span := uint64(1); span < n; span <<= 8 {
			if len(data) == 0 {
				break
			}
			v = v<<8 | uint64(data[0])
			data = data[1:]
		}
		return lo + int(v%n)
	}
}

// FuzzSimStep drives the simulator with fuzzed worlds: the input chooses a
// CloneSet, a world, faults and scripted changes exactly as the property tests
// do (genRun); the run is simulated twice and every invariant must hold. The
// rest of the input then becomes a plan of arbitrary actions applied to the
// final cluster, which must be reported (as failures), never crash it, and
// must leave it consistent for the planner.
//
// Run it with: go test -run='^$' -fuzz='^FuzzSimStep$' -fuzztime=5m ./sim/
func FuzzSimStep(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x03\x01\x01\x01\x00\x01\x01\x01\x00\x01\x02\x02\x01\x05\x02\x01\x03"))
	f.Add([]byte("\x05\x00\x00\x01\x04\x01\x03\x00\x00\x02\x02\x02\x02\x09\x02\x01\x00\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := byteDraw(data)
		scn, cfg := genRun(d, true)
		cfg.MaxSteps = min(cfg.MaxSteps, 300)
		res, err := Verify(scn, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range res.Violations() {
			t.Errorf("%v (%s)", v, describeConfig(scn.CloneSet.Spec.Replicas, cfg))
		}
		// Garbage plans are failures, not crashes.
		s, err := New(scn, cfg)
		if err != nil {
			t.Fatal(err)
		}
		c := s.Cluster()
		pods := c.Pods()
		types := []model.ActionType{model.ActionCreatePod, model.ActionDeletePod, model.ActionSetLifecycleState,
			model.ActionUpdatePodInPlace, model.ActionRecreatePod, model.ActionDeletePVC, model.ActionSetPVCOwner,
			model.ActionUpdatePodsToDelete, model.ActionPatchPod, "Bogus"}
		states := []string{"", model.StateNormal, model.StatePreparingNormal, model.StatePreparingDelete, model.StateUpdating, "Weird"}
		plan := &clonesetcore.Result{Status: clonesetcore.Status{WriteSkipped: true}}
		for i := d("garbage", 0, 6); i > 0; i-- {
			a := model.Action{Type: types[d("garbage.type", 0, len(types)-1)], Batch: d("garbage.batch", 0, 2)}
			if len(pods) > 0 && d("garbage.known", 0, 1) == 1 {
				a.Pod = pods[d("garbage.pod", 0, len(pods)-1)].Name
			} else {
				a.Pod = "ghost"
			}
			a.From, a.To = states[d("garbage.from", 0, len(states)-1)], states[d("garbage.to", 0, len(states)-1)]
			a.InstanceID, a.Revision, a.FromRevision, a.ToRevision = "zzzzz", "nope", "nope", "nope"
			a.PVC = "data-" + a.Pod
			a.SetImages = map[string]string{"app": "img:x"}
			a.MarkPodNotReady = d("garbage.flag", 0, 1) == 1
			plan.Actions = append(plan.Actions, a)
		}
		c.Apply(plan)
		c.AdvanceTo(c.Now().Add(c.world.Delays.Terminate.Max))
		if _, err := clonesetcore.Plan(c.Snapshot()); err != nil {
			t.Fatalf("the planner cannot read the cluster after a garbage plan: %v", err)
		}
	})
}
