package lifecycle

// The worked examples of lifecycle-status-validation 7.7–7.11 and
// update-and-ordering Examples 3, 7 (InPlaceOnly) and 8.

import (
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
	"github.com/google/go-cmp/cmp"
)

// LSV 7.7: preDelete with markPodNotReady, scale in then back.
func TestLSV77PreDeleteWithMarkPodNotReady(t *testing.T) {
	cs := cloneSet("", 0, &model.Lifecycle{PreDelete: hook(true, map[string]string{"example.io/drain": "true"})})
	p3 := pod("web-p3", model.StateNormal, withLabel("example.io/drain", "true"), withKruisePodReady())
	// R1: scale in chooses p3: T11 with the key added.
	acts, changed := RemovePod(cs, p3, nil, "scale in")
	if diff := cmp.Diff([]lifecycleAction{{"web-p3", model.StateNormal, model.StatePreparingDelete, true}}, lifecycleActions(t, acts)); diff != "" || !changed {
		t.Fatalf("R1 (-want +got):\n%s", diff)
	}
	// The adapter writes the state and the key.
	p3 = pod("web-p3", model.StatePreparingDelete, withLabel("example.io/drain", "true"), withKruisePodReady(KeyPreDeleteHook))
	// R2: replicas back to 3: cancel skipped (markPodNotReady); T11r writes nothing.
	if got := CancelPreDelete(cs, []*model.Pod{p3}, nil, 3, 3, 1); len(got) != 0 {
		t.Errorf("R2 cancelled: %v", got)
	}
	if acts, changed := RemovePod(cs, p3, nil, "pre-delete"); len(acts) != 0 || changed {
		t.Errorf("R2 T11r: %v %v", acts, changed)
	}
	// R3: the hook controller deletes the label: T12.
	delete(p3.Labels, "example.io/drain")
	if acts, changed := RemovePod(cs, p3, []string{"data-web-p3"}, "pre-delete"); len(acts) != 1 || acts[0].Type != model.ActionDeletePod || !changed {
		t.Errorf("R3: %v", acts)
	}
	// R4: a new pod starts in PreparingNormal (T1).
	if l, _ := CreateLifecycle(now); l[model.LabelLifecycleState] != model.StatePreparingNormal {
		t.Errorf("R4: %v", l)
	}
}

// LSV 7.8, next round: refresh moves the cancelled p4 to Normal; p5 keeps waiting.
func TestLSV78NextRound(t *testing.T) {
	cs := cloneSet("", 0, &model.Lifecycle{PreDelete: hook(false, nil, "example.io/unregister")})
	p4 := pod("web-p4", model.StatePreparingNormal, withFinalizers("example.io/unregister"))
	p5 := pod("web-p5", model.StatePreparingDelete, withFinalizers("example.io/unregister"), withLabel(model.LabelSpecifiedDelete, "true"))
	if got := lifecycleActions(t, Refresh(cs, p4, "web-1", false)); len(got) != 1 || got[0].To != model.StateNormal {
		t.Errorf("p4: %v", got)
	}
	if got := Refresh(cs, p5, "web-1", false); len(got) != 0 {
		t.Errorf("p5: %v", got)
	}
	if acts, _ := RemovePod(cs, p5, nil, "pre-delete"); len(acts) != 0 {
		t.Errorf("p5 deleted while hooked: %v", acts)
	}
	p5.Finalizers = nil
	if acts, _ := RemovePod(cs, p5, nil, "pre-delete"); len(acts) != 1 || acts[0].Type != model.ActionDeletePod {
		t.Errorf("p5 released: %v", acts)
	}
}

// LSV 7.9 (and update-and-ordering Example 8): in-place update through the
// inPlaceUpdate hook with markPodNotReady.
func TestLSV79InPlaceUpdateThroughHook(t *testing.T) {
	cs := cloneSet(model.PolicyInPlaceIfPossible, 0, &model.Lifecycle{InPlaceUpdate: hook(true, map[string]string{"example.io/serving": "true"})})
	q1 := pod("web-q1", model.StateNormal, withLabel("example.io/serving", "true"), withKruisePodReady())
	// R1: T3, key added.
	d := decide(t, cs, q1, "web-2", gates)
	if diff := cmp.Diff([]lifecycleAction{{"web-q1", model.StateNormal, model.StatePreparingUpdate, true}}, lifecycleActions(t, d.Actions)); diff != "" {
		t.Fatalf("R1 (-want +got):\n%s", diff)
	}
	q1 = pod("web-q1", model.StatePreparingUpdate, withLabel("example.io/serving", "true"), withKruisePodReady(KeyPreUpdateHook))
	// R2: refresh does nothing (r1 ≠ r2), update waits (T5w).
	if acts := Refresh(cs, q1, "web-2", false); len(acts) != 0 {
		t.Errorf("R2 refresh: %v", acts)
	}
	if d := decide(t, cs, q1, "web-2", gates); !d.Wait || len(d.Actions) != 0 {
		t.Errorf("R2 update: %+v", d)
	}
	// The hook controller removes the label. R3: T5, UpdatePodInPlace.
	delete(q1.Labels, "example.io/serving")
	d = decide(t, cs, q1, "web-2", gates)
	if len(d.Actions) != 1 || d.Actions[0].Type != model.ActionUpdatePodInPlace || d.Actions[0].ToRevision != "web-2" {
		t.Fatalf("R3: %+v", d)
	}
	apply(q1, d.Actions)
	// R4…: not completed: nothing.
	if acts := Refresh(cs, q1, "web-2", false); len(acts) != 0 {
		t.Errorf("R4: %v", acts)
	}
	// Rk: completed, not all hooked: Updated, key removed.
	if diff := cmp.Diff([]lifecycleAction{{"web-q1", model.StateUpdating, model.StateUpdated, true}}, lifecycleActions(t, Refresh(cs, q1, "web-2", true))); diff != "" {
		t.Errorf("Rk (-want +got):\n%s", diff)
	}
	q1 = pod("web-q1", model.StateUpdated, withRevision("web-2"), withKruisePodReady())
	// The hook controller re-adds the label. Rk+1: T8.
	q1.Labels["example.io/serving"] = "true"
	if diff := cmp.Diff([]lifecycleAction{{"web-q1", model.StateUpdated, model.StateNormal, false}}, lifecycleActions(t, Refresh(cs, q1, "web-2", true))); diff != "" {
		t.Errorf("Rk+1 (-want +got):\n%s", diff)
	}
}

// LSV 7.10: rollback while waiting in PreparingUpdate leaks the key [quirk]; had the
// label been removed already, T6 goes to Updated and removes the key.
func TestLSV710RollbackLeaksKey(t *testing.T) {
	cs := cloneSet(model.PolicyInPlaceIfPossible, 0, &model.Lifecycle{InPlaceUpdate: hook(true, map[string]string{"example.io/serving": "true"})})
	q1 := pod("web-q1", model.StatePreparingUpdate, withLabel("example.io/serving", "true"), withKruisePodReady(KeyPreUpdateHook))
	acts := Refresh(cs, q1, "web-1", false)
	if diff := cmp.Diff([]lifecycleAction{{"web-q1", model.StatePreparingUpdate, model.StateNormal, false}}, lifecycleActions(t, acts)); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if !strings.Contains(acts[0].Reason, "quirk") {
		t.Errorf("leak not named: %q", acts[0].Reason)
	}
	delete(q1.Labels, "example.io/serving")
	if diff := cmp.Diff([]lifecycleAction{{"web-q1", model.StatePreparingUpdate, model.StateUpdated, true}}, lifecycleActions(t, Refresh(cs, q1, "web-1", false))); diff != "" {
		t.Errorf("label removed (-want +got):\n%s", diff)
	}
}

// LSV 7.11: handler edge cases.
func TestLSV711HandlerEdgeCases(t *testing.T) {
	// preDelete {protect: ""}: a pod without the label goes to PreparingDelete; it is
	// deleted only once the label is set to a non-empty value.
	cs := cloneSet("", 0, &model.Lifecycle{PreDelete: hook(false, map[string]string{"example.io/protect": ""})})
	p := pod("web-a", model.StateNormal)
	if acts, _ := RemovePod(cs, p, nil, "scale in"); acts[0].Type != model.ActionSetLifecycleState {
		t.Errorf("absent label: %v", acts)
	}
	p = pod("web-a", model.StatePreparingDelete, withLabel("example.io/protect", ""))
	if acts, _ := RemovePod(cs, p, nil, "pre-delete"); len(acts) != 0 {
		t.Errorf("empty label: %v", acts)
	}
	p.Labels["example.io/protect"] = "done"
	if acts, _ := RemovePod(cs, p, nil, "pre-delete"); acts[0].Type != model.ActionDeletePod {
		t.Errorf("non-empty label: %v", acts)
	}
	// inPlaceUpdate {}: never hooked, so no PreparingUpdate; Updating → Normal.
	cs = cloneSet(model.PolicyInPlaceIfPossible, 0, &model.Lifecycle{InPlaceUpdate: &model.LifecycleHook{}})
	if d := decide(t, cs, pod("web-a", model.StateNormal), "web-2", gates); d.Rule != RuleT4 {
		t.Errorf("inPlaceUpdate {}: %+v", d)
	}
	// lifecycle with preDelete only: Updating → Updated → (next round) Normal.
	cs = cloneSet(model.PolicyInPlaceIfPossible, 0, &model.Lifecycle{PreDelete: hook(false, nil, "f")})
	p = pod("web-a", model.StateUpdating, withRevision("web-2"))
	apply(p, Refresh(cs, p, "web-2", true))
	if p.LifecycleState() != model.StateUpdated {
		t.Fatalf("first round: %s", p.LifecycleState())
	}
	apply(p, Refresh(cs, p, "web-2", true))
	if p.LifecycleState() != model.StateNormal {
		t.Errorf("second round: %s", p.LifecycleState())
	}
}

// update-and-ordering Example 3: a state change and a label repair.
func TestExample3RefreshActions(t *testing.T) {
	cs := cloneSet(model.PolicyInPlaceIfPossible, 0, nil)
	a := pod("web-a", model.StatePreparingNormal)
	b := pod("web-b", model.StateNormal, withRevision("web-6d4c8b97f"), withoutLabel(model.LabelPodTemplateHash))
	got := append(Refresh(cs, a, "web-58f9c7bd4", false), Refresh(cs, b, "web-58f9c7bd4", false)...)
	want := []model.Action{
		{Type: model.ActionSetLifecycleState, Pod: "web-a", From: model.StatePreparingNormal, To: model.StateNormal,
			Reason: "refresh: pod scheduled, no preNormal hook"},
		{Type: model.ActionPatchPod, Pod: "web-b", SetLabels: map[string]string{model.LabelPodTemplateHash: "6d4c8b97f"},
			Reason: "refresh: repair missing pod-template-hash label"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// A pod without any revision label gets an empty pod-template-hash; a present but
	// empty pod-template-hash is left alone.
	c := pod("web-c", "", withoutLabel(model.LabelRevisionHash), withoutLabel(model.LabelPodTemplateHash))
	if got := Refresh(cs, c, "web-2", false); len(got) != 1 || got[0].SetLabels[model.LabelPodTemplateHash] != "" {
		t.Errorf("no revision label: %v", got)
	}
	if got := Refresh(cs, pod("web-d", "", withLabel(model.LabelPodTemplateHash, "")), "web-2", false); len(got) != 0 {
		t.Errorf("empty pod-template-hash repaired: %v", got)
	}
}

// update-and-ordering Example 7 with InPlaceOnly: every recreate line is an error
// that stops the update loop; with InPlaceIfPossible it is a RecreatePod.
func TestExample7PolicyOutcomes(t *testing.T) {
	p := pod("web-y", model.StateNormal)
	d := decide(t, cloneSet(model.PolicyInPlaceOnly, 0, nil), p, "web-3", gates)
	if d.Rule != RuleInPlaceOnly || d.Err == nil || d.Err.Error() != "find Pod web-y update strategy is InPlaceOnly but can not update in-place" || len(d.Actions) != 0 {
		t.Errorf("InPlaceOnly: %+v", d)
	}
	if d.Note != "InPlaceOnly: pod web-y cannot be updated in place: spec.containers[0].env added" {
		t.Errorf("note %q", d.Note)
	}
	d = decide(t, cloneSet(model.PolicyInPlaceIfPossible, 0, nil), p, "web-3", gates)
	want := []model.Action{{Type: model.ActionRecreatePod, Pod: "web-y", ToRevision: "web-3",
		Reason: "rolling update: recreate (not possible in place: spec.containers[0].env added)"}}
	if diff := cmp.Diff(want, d.Actions); diff != "" || d.Rule != RuleRecreate || d.Err != nil {
		t.Errorf("InPlaceIfPossible (-want +got):\n%s", diff)
	}
	// Same pod and templates, the vertical gate decides a cpu change.
	cpu := func(v string) *model.Revision {
		return &model.Revision{Name: "r-" + v, Template: model.PodTemplate{Raw: decodeTree(
			`{"metadata":{},"spec":{"containers":[{"name":"main","image":"nginx:1","resources":{"limits":{"cpu":"` + v + `"},"requests":{"cpu":"` + v + `"}}}]}}`)}}
	}
	revs := []*model.Revision{cpu("1"), cpu("2")}
	cp := pod("web-y", model.StateNormal, withRevision("r-1"))
	off := DecideUpdate(UpdateInput{CloneSet: cloneSet(model.PolicyInPlaceOnly, 0, nil), Pod: cp, Target: "r-2", Revisions: revs, Gates: gates})
	on := gates
	on.InPlaceWorkloadVerticalScaling = true
	onD := DecideUpdate(UpdateInput{CloneSet: cloneSet(model.PolicyInPlaceOnly, 0, nil), Pod: cp, Target: "r-2", Revisions: revs, Gates: on})
	if off.Err == nil || onD.Err != nil || onD.Rule != RuleT4 {
		t.Errorf("vertical gate off: %+v\non: %+v", off, onD)
	}
}

func TestDecideUpdateRecreate(t *testing.T) {
	// ReCreate policy, and no rollingUpdate block at all.
	for _, policy := range []string{model.PolicyReCreate, ""} {
		d := decide(t, cloneSet(policy, 0, nil), pod("web-a", model.StateNormal), "web-2", gates)
		want := []model.Action{{Type: model.ActionRecreatePod, Pod: "web-a", ToRevision: "web-2", Reason: "rolling update: recreate (policy ReCreate)"}}
		if diff := cmp.Diff(want, d.Actions); diff != "" || d.Rule != RuleRecreate || d.InPlace.Feasible {
			t.Errorf("policy %q (-want +got):\n%s", policy, diff)
		}
	}
	// Already marked: no action, still admitted.
	d := decide(t, cloneSet(model.PolicyReCreate, 0, nil), pod("web-a", model.StateNormal, withLabel(model.LabelSpecifiedDelete, "")), "web-2", gates)
	if len(d.Actions) != 0 || d.Rule != RuleRecreateMarked || d.Err != nil || d.Note == "" {
		t.Errorf("already marked: %+v", d)
	}
	// Old revision missing: recreate with InPlaceIfPossible, error with InPlaceOnly.
	lost := pod("web-a", model.StateNormal, withRevision("web-9"))
	d = decide(t, cloneSet(model.PolicyInPlaceIfPossible, 0, nil), lost, "web-2", gates)
	if d.Rule != RuleRecreate || !strings.Contains(d.Actions[0].Reason, "old revision web-9 not found") {
		t.Errorf("old revision missing: %+v", d)
	}
	d = decide(t, cloneSet(model.PolicyInPlaceOnly, 0, nil), lost, "web-2", gates)
	if d.Err == nil || !strings.Contains(d.Note, "old revision web-9 not found") {
		t.Errorf("old revision missing, InPlaceOnly: %+v", d)
	}
	noLabel := pod("web-a", model.StateNormal, withoutLabel(model.LabelRevisionHash))
	if d := decide(t, cloneSet(model.PolicyInPlaceIfPossible, 0, nil), noLabel, "web-2", gates); !strings.Contains(d.Actions[0].Reason, "no controller-revision-hash label") {
		t.Errorf("no label: %+v", d)
	}
	if d := decide(t, cloneSet(model.PolicyInPlaceIfPossible, 0, nil), pod("web-a", ""), "web-7", gates); !strings.Contains(d.Actions[0].Reason, "target revision web-7 not found") {
		t.Errorf("target missing: %+v", d)
	}
	// Bad input never panics.
	if d := DecideUpdate(UpdateInput{}); d.Err == nil {
		t.Errorf("empty input accepted")
	}
}

// update-and-ordering Example 9, first step: the in-place update with a grace
// period asks for a requeue after the grace (R4).
func TestExample9UpdateStartsGrace(t *testing.T) {
	d := decide(t, cloneSet(model.PolicyInPlaceIfPossible, 10, nil), pod("web-a", model.StateNormal), "web-2", gates)
	if d.RequeueAfter != 10*time.Second || d.Actions[0].GracePeriodSeconds != 10 {
		t.Errorf("%+v", d)
	}
}
