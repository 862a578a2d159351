package lifecycle

// The "State circulation" bullets of the CloneSet user documentation
// (shared/seeds/cloneset-doc-en.md, "Lifecycle hook").

import (
	"testing"

	"github.com/clonecore/cloneset/model"
)

// apply plays the lifecycle part of actions on a pod, as an adapter would.
func apply(p *model.Pod, acts []model.Action) {
	for _, a := range acts {
		switch a.Type {
		case model.ActionSetLifecycleState:
			p.Labels[model.LabelLifecycleState] = a.To
		case model.ActionUpdatePodInPlace:
			p.Labels[model.LabelLifecycleState] = model.StateUpdating
			p.Labels[model.LabelRevisionHash] = a.ToRevision
		case model.ActionRecreatePod:
			p.Labels[model.LabelSpecifiedDelete] = "true"
		case model.ActionPatchPod:
			for k, v := range a.SetLabels {
				p.Labels[k] = v
			}
		}
	}
}

// "When CloneSet create a Pod: the Pod will be regarded as Available only after
// PreNormal hook is satisfied."
func TestCirculationCreateWaitsForPreNormal(t *testing.T) {
	cs := cloneSet("", 0, &model.Lifecycle{PreNormal: hook(false, nil, "example.io/unready-blocker")})
	p := pod("web-a", model.StatePreparingNormal)
	if p.IsAvailable(0, now) {
		t.Fatalf("a PreparingNormal pod is available")
	}
	if acts := Refresh(cs, p, "web-1", false); len(acts) != 0 {
		t.Fatalf("released before the preNormal hook was satisfied: %v", acts)
	}
	p.Finalizers = []string{"example.io/unready-blocker"}
	acts := Refresh(cs, p, "web-1", false)
	apply(p, acts)
	if p.LifecycleState() != model.StateNormal || !p.IsAvailable(0, now) {
		t.Errorf("after the hook: state %s, available %v", p.LifecycleState(), p.IsAvailable(0, now))
	}
}

// "When CloneSet delete a Pod: delete it directly if no lifecycle hook definition or
// Pod not matched preDelete hook; otherwise PreparingDelete first and wait for the
// user controller; Pods in PreparingDelete state will not be updated."
func TestCirculationDelete(t *testing.T) {
	if acts, _ := RemovePod(cloneSet("", 0, nil), pod("web-a", model.StateNormal), nil, "scale in"); acts[0].Type != model.ActionDeletePod {
		t.Errorf("no lifecycle: %v", acts)
	}
	cs := cloneSet(model.PolicyInPlaceIfPossible, 0, &model.Lifecycle{PreDelete: hook(false, nil, "example.io/unready-blocker")})
	if acts, _ := RemovePod(cs, pod("web-a", model.StateNormal), nil, "scale in"); acts[0].Type != model.ActionDeletePod {
		t.Errorf("not matched: %v", acts)
	}
	p := pod("web-a", model.StateNormal, withFinalizers("example.io/unready-blocker"))
	acts, _ := RemovePod(cs, p, nil, "scale in")
	apply(p, acts)
	if p.LifecycleState() != model.StatePreparingDelete {
		t.Fatalf("matched: %v", acts)
	}
	// Waiting: no deletion while hooked; refresh leaves it alone; it is not updated.
	if acts, _ := RemovePod(cs, p, nil, "pre-delete"); len(acts) != 0 {
		t.Errorf("deleted while hooked: %v", acts)
	}
	if acts := Refresh(cs, p, "web-2", true); len(acts) != 0 {
		t.Errorf("refresh moved a PreparingDelete pod: %v", acts)
	}
	if d := decide(t, cs, p, "web-2", gates); d.Err == nil || len(d.Actions) != 0 {
		t.Errorf("PreparingDelete pod updated: %+v", d)
	}
	// The user controller removes the finalizer: deleted.
	p.Finalizers = nil
	if acts, _ := RemovePod(cs, p, nil, "pre-delete"); len(acts) != 1 || acts[0].Type != model.ActionDeletePod {
		t.Errorf("released: %v", acts)
	}
}

// "When CloneSet update a Pod in-place: PreparingUpdate if matched; Updating once
// the user controller removed the marker; Updated after completion if not matched;
// Normal once the user controller adds the marker back."
func TestCirculationInPlaceUpdate(t *testing.T) {
	cs := cloneSet(model.PolicyInPlaceIfPossible, 0, &model.Lifecycle{InPlaceUpdate: hook(false, nil, "example.io/unready-blocker")})
	p := pod("web-a", model.StateNormal, withFinalizers("example.io/unready-blocker"))
	steps := []struct {
		do   func()
		want string
	}{
		{func() { apply(p, decide(t, cs, p, "web-2", gates).Actions) }, model.StatePreparingUpdate},
		{func() { apply(p, decide(t, cs, p, "web-2", gates).Actions) }, model.StatePreparingUpdate}, // still hooked
		{func() { p.Finalizers = nil; apply(p, decide(t, cs, p, "web-2", gates).Actions) }, model.StateUpdating},
		{func() { apply(p, Refresh(cs, p, "web-2", false)) }, model.StateUpdating}, // not completed
		{func() { apply(p, Refresh(cs, p, "web-2", true)) }, model.StateUpdated},
		{func() { apply(p, Refresh(cs, p, "web-2", true)) }, model.StateUpdated}, // marker still missing
		{func() { p.Finalizers = []string{"example.io/unready-blocker"}; apply(p, Refresh(cs, p, "web-2", true)) }, model.StateNormal},
	}
	for i, s := range steps {
		s.do()
		if got := p.LifecycleState(); got != s.want {
			t.Fatalf("step %d: state %s, want %s", i, got, s.want)
		}
	}
	if !p.InRevision("web-2") {
		t.Errorf("pod not at web-2")
	}
}

// "Although our design supports to change a Pod from PreparingDelete back to Normal
// (through cancel specified delete), it is not recommended": the way back is
// PreparingDelete → PreparingNormal (T13) → Normal (T2), and the pod is then updated
// at once if it waits for an update.
func TestCirculationBackFromPreparingDelete(t *testing.T) {
	cs := cloneSet(model.PolicyInPlaceIfPossible, 0, &model.Lifecycle{PreDelete: hook(false, nil, "example.io/unready-blocker")})
	p := pod("web-a", model.StatePreparingDelete, withFinalizers("example.io/unready-blocker"))
	apply(p, CancelPreDelete(cs, []*model.Pod{p}, nil, 3, 3, 1))
	if p.LifecycleState() != model.StatePreparingNormal {
		t.Fatalf("not cancelled: %s", p.LifecycleState())
	}
	apply(p, Refresh(cs, p, "web-2", false))
	if p.LifecycleState() != model.StateNormal {
		t.Fatalf("not Normal after refresh: %s", p.LifecycleState())
	}
	if d := decide(t, cs, p, "web-2", gates); d.Rule != RuleT4 {
		t.Errorf("back in Normal, the pod is updated right away: %+v", d)
	}
}
