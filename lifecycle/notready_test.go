package lifecycle

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clonecore/cloneset/model"
)

// TestNotReadyPolicy covers AddNotReadyKey and RemoveNotReadyKey of
// lifecycle-status-validation 1.4, keyed by the target state.
func TestNotReadyPolicy(t *testing.T) {
	at := time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC)
	withContainersReady := func(p *model.Pod) {
		p.Status.Conditions = append(p.Status.Conditions, model.PodCondition{Type: model.ConditionContainersReady, Status: "True"})
	}
	noCondition := func(p *model.Pod) { // the gate, but no KruisePodReady condition yet
		p.Spec.ReadinessGates = append(p.Spec.ReadinessGates, model.ConditionKruisePodReady)
	}
	type cond struct{ Type, Status, Reason, Message string }
	for _, c := range []struct {
		name   string
		p      *model.Pod
		target string
		flag   bool
		want   []cond
	}{
		{"flag off", pod("web-a", model.StateNormal, withKruisePodReady()), model.StatePreparingDelete, false, nil},
		{"no gate: no effect", pod("web-a", model.StateNormal), model.StatePreparingDelete, true, nil},
		{"step 3: a new condition, status left empty", pod("web-a", model.StateNormal, noCondition), model.StatePreparingDelete, true,
			[]cond{{Type: model.ConditionKruisePodReady, Message: `[{"userAgent":"Lifecycle","key":"preDeleteHook"}]`}}},
		{"step 4: key added, sorted, status False", pod("web-a", model.StateNormal, withKruisePodReady(KeyPreUpdateHook)), model.StatePreparingDelete, true,
			[]cond{{Type: model.ConditionKruisePodReady, Status: "False", Message: `[{"userAgent":"Lifecycle","key":"preDeleteHook"},{"userAgent":"Lifecycle","key":"preUpdateHook"}]`}}},
		{"step 2: key already listed", pod("web-a", model.StateNormal, withKruisePodReady(KeyPreUpdateHook)), model.StatePreparingUpdate, true, nil},
		{"step 5: Ready recomputed when ContainersReady", pod("web-a", model.StateNormal, withKruisePodReady(), withContainersReady), model.StatePreparingUpdate, true,
			[]cond{{Type: model.ConditionKruisePodReady, Status: "False", Message: `[{"userAgent":"Lifecycle","key":"preUpdateHook"}]`},
				{Type: model.ConditionReady, Status: "False", Reason: "ReadinessGatesNotReady"}}},
		{"remove: last key, status True", pod("web-a", model.StateUpdating, withKruisePodReady(KeyPreUpdateHook)), model.StateUpdated, true,
			[]cond{{Type: model.ConditionKruisePodReady, Status: "True", Message: `[]`}}},
		{"remove: key not listed", pod("web-a", model.StateUpdating, withKruisePodReady()), model.StateUpdated, true, nil},
		{"no policy for Normal", pod("web-a", model.StatePreparingUpdate, withKruisePodReady(KeyPreUpdateHook)), model.StateNormal, true, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := c.p.DeepCopy()
			var got []cond
			for _, x := range NotReadyPolicy(c.p, c.target, c.flag, at) {
				if !x.LastTransitionTime.Equal(at) {
					t.Errorf("%s: lastTransitionTime %v, want now", x.Type, x.LastTransitionTime)
				}
				got = append(got, cond{x.Type, x.Status, x.Reason, x.Message})
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, c.p); diff != "" {
				t.Errorf("the pod was modified:\n%s", diff)
			}
		})
	}
}
