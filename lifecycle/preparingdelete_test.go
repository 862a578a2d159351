package lifecycle

// The six "Scaling with PreparingDelete" bullets of the CloneSet user documentation
// (shared/seeds/cloneset-doc-en.md). The lifecycle side is tested here (is the pod
// moved back or not); whether a new pod is created is scale arithmetic, given as a
// comment following scale-and-budgets 8.9 (C = pods counted, E = replicas).
//
// Setup: N = 3, preDelete hooked by a finalizer, no markPodNotReady; x3 is in
// PreparingDelete after replicas went 3 → 2.

import (
	"testing"

	"github.com/clonecore/cloneset/model"
)

const drain = "example.io/drain"

func preparingDeleteWorld(specified bool) (cs *model.CloneSet, x3 *model.Pod, all []*model.Pod) {
	cs = cloneSet("", 0, &model.Lifecycle{PreDelete: hook(false, nil, drain)})
	x1 := pod("web-x1", model.StateNormal, withFinalizers(drain))
	x2 := pod("web-x2", model.StateNormal, withFinalizers(drain))
	x3 = pod("web-x3", model.StatePreparingDelete, withFinalizers(drain))
	if specified {
		x3.Labels[model.LabelSpecifiedDelete] = "true"
	}
	return cs, x3, []*model.Pod{x1, x2, x3}
}

// numToDelete counts the observed pods that are specified-delete or in PreparingDelete.
func numToDelete(pods []*model.Pod, podsToDelete map[string]bool) int {
	n := 0
	for _, p := range pods {
		if p.HasSpecifiedDeleteLabel() || podsToDelete[p.Name] || p.LifecycleState() == model.StatePreparingDelete {
			n++
		}
	}
	return n
}

func cancelled(t *testing.T, cs *model.CloneSet, x3 *model.Pod, pods []*model.Pod, replicas int, podsToDelete map[string]bool) bool {
	t.Helper()
	specified := func(p *model.Pod) bool { return p.HasSpecifiedDeleteLabel() || podsToDelete[p.Name] }
	acts := CancelPreDelete(cs, []*model.Pod{x3}, specified, replicas, len(pods), numToDelete(pods, podsToDelete))
	if len(acts) > 1 {
		t.Fatalf("more than one pod cancelled: %v", acts)
	}
	return len(acts) == 1 && acts[0].Pod == x3.Name && acts[0].To == model.StatePreparingNormal
}

// Without excludePreparingDelete, bullet 1: scale N → N−1, then back to N while the
// pod is in PreparingDelete: the pod is moved back to Normal.
func TestScalingBullet1ScaleBackCancels(t *testing.T) {
	cs, x3, pods := preparingDeleteWorld(false)
	// d = 3 − 3 + 1 = 1 > 0: cancelled (then refresh takes it to Normal, T2).
	if !cancelled(t, cs, x3, pods, 3, nil) {
		t.Fatalf("not moved back")
	}
	// Next round: refresh takes it from PreparingNormal to Normal (scheduled, no preNormal).
	x3.Labels[model.LabelLifecycleState] = model.StatePreparingNormal
	acts := Refresh(cs, x3, "web-1", false)
	if len(acts) != 1 || acts[0].To != model.StateNormal {
		t.Errorf("not Normal after the cancel: %v", acts)
	}
}

// Bullet 2: scale N → N−1 with the pod in podsToDelete, then back to N: the pod is not
// moved back; no new pod until it terminates.
func TestScalingBullet2PodsToDeleteNotCancelled(t *testing.T) {
	cs, x3, pods := preparingDeleteWorld(false)
	if cancelled(t, cs, x3, pods, 3, map[string]bool{"web-x3": true}) {
		t.Errorf("a podsToDelete pod was moved back")
	}
	// Counting (scale-and-budgets 8.9): C = 3 (PreparingDelete counted) = E = 3 ⇒ no
	// scale-out; the replacement is created only once x3 is gone.
	// The pod keeps waiting: T11r, nothing written.
	if acts, changed := RemovePod(cs, x3, nil, "specified delete"); len(acts) != 0 || changed {
		t.Errorf("T11r wrote %v", acts)
	}
}

// Bullet 3: specified delete without a replicas change: not moved back, no new pod
// until it terminates.
func TestScalingBullet3SpecifiedDeleteNotCancelled(t *testing.T) {
	cs, x3, pods := preparingDeleteWorld(true)
	// d = 3 − 3 + 1 = 1, but x3 is specified-delete: skipped.
	if cancelled(t, cs, x3, pods, 3, nil) {
		t.Errorf("a specified-delete pod was moved back")
	}
	// Counting (8.9): C = 3 = E ⇒ no scale-out while x3 drains.
}

// With excludePreparingDelete, bullet 4: scale back to N: still moved back to Normal
// (the cancel step runs before any counting and excludePreparingDelete changes
// neither |Pods| nor numToDelete, scale-and-budgets 6.5).
func TestScalingBullet4ExcludeScaleBackCancels(t *testing.T) {
	cs, x3, pods := preparingDeleteWorld(false)
	cs.Spec.ScaleStrategy.ExcludePreparingDelete = true
	if !cancelled(t, cs, x3, pods, 3, nil) {
		t.Errorf("not moved back with excludePreparingDelete")
	}
}

// Bullet 5: podsToDelete and scale back to N with excludePreparingDelete: not moved
// back, and a new pod is created immediately.
func TestScalingBullet5ExcludePodsToDelete(t *testing.T) {
	cs, x3, pods := preparingDeleteWorld(false)
	cs.Spec.ScaleStrategy.ExcludePreparingDelete = true
	if cancelled(t, cs, x3, pods, 3, map[string]bool{"web-x3": true}) {
		t.Errorf("a podsToDelete pod was moved back")
	}
	// Counting (8.9): C = 2 (x3 excluded) < E = 3 ⇒ scaleUp = 1: CreatePod at once
	// while x3 drains.
}

// Bullet 6: specified delete without a replicas change, excludePreparingDelete: not
// moved back, a new pod is created immediately.
func TestScalingBullet6ExcludeSpecifiedDelete(t *testing.T) {
	cs, x3, pods := preparingDeleteWorld(true)
	cs.Spec.ScaleStrategy.ExcludePreparingDelete = true
	if cancelled(t, cs, x3, pods, 3, nil) {
		t.Errorf("a specified-delete pod was moved back")
	}
	// Counting (8.9): C = 2 < E = 3 ⇒ CreatePod at once.
}
