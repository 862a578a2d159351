package lifecycle

// One test per row of the transition table of lifecycle-status-validation 1.7.

import (
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
	"github.com/google/go-cmp/cmp"
)

var gates = model.DefaultFeatureGates()

func TestT1CreatedPodsStartInPreparingNormal(t *testing.T) {
	labels, annotations := CreateLifecycle(time.Date(2026, 1, 1, 12, 0, 0, 700_000_000, time.FixedZone("x", 3600)))
	if diff := cmp.Diff(map[string]string{model.LabelLifecycleState: model.StatePreparingNormal}, labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{model.AnnotationLifecycleTimestamp: "2026-01-01T11:00:00Z"}, annotations); diff != "" {
		t.Errorf("annotations (-want +got):\n%s", diff)
	}
}

func TestT2PreparingNormalToNormal(t *testing.T) {
	ipFlag := &model.Lifecycle{InPlaceUpdate: hook(true, map[string]string{"x": "y"})}
	preNormal := &model.Lifecycle{PreNormal: hook(false, nil, "example.io/ready")}
	cases := []struct {
		name string
		l    *model.Lifecycle
		p    *model.Pod
		want []lifecycleAction
	}{
		{"no lifecycle, scheduled", nil, pod("web-a", model.StatePreparingNormal),
			[]lifecycleAction{{"web-a", model.StatePreparingNormal, model.StateNormal, false}}},
		{"no lifecycle, unscheduled: waits", nil, pod("web-a", model.StatePreparingNormal, unscheduled()), nil},
		{"lifecycle without preNormal, scheduled; inPlaceUpdate flag has no effect on Normal", ipFlag,
			pod("web-a", model.StatePreparingNormal, withKruisePodReady(KeyPreUpdateHook)),
			[]lifecycleAction{{"web-a", model.StatePreparingNormal, model.StateNormal, false}}},
		{"preNormal all hooked, unscheduled", preNormal, pod("web-a", model.StatePreparingNormal, unscheduled(), withFinalizers("example.io/ready")),
			[]lifecycleAction{{"web-a", model.StatePreparingNormal, model.StateNormal, false}}},
		{"preNormal not hooked, scheduled: waits", preNormal, pod("web-a", model.StatePreparingNormal), nil},
		{"preNormal with no handlers is vacuously all hooked (LSV 7.11)", &model.Lifecycle{PreNormal: &model.LifecycleHook{}},
			pod("web-a", model.StatePreparingNormal, unscheduled()),
			[]lifecycleAction{{"web-a", model.StatePreparingNormal, model.StateNormal, false}}},
	}
	for _, c := range cases {
		got := lifecycleActions(t, Refresh(cloneSet("", 0, c.l), c.p, "web-2", false))
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

func TestT3HookedPodEntersPreparingUpdate(t *testing.T) {
	l := &model.Lifecycle{InPlaceUpdate: hook(true, map[string]string{"example.io/serving": "true"})}
	cs := cloneSet(model.PolicyInPlaceIfPossible, 0, l)
	for _, state := range []string{"", model.StatePreparingNormal, model.StateNormal} {
		p := pod("web-a", state, withLabel("example.io/serving", "true"), withKruisePodReady())
		d := decide(t, cs, p, "web-2", gates)
		want := []lifecycleAction{{"web-a", state, model.StatePreparingUpdate, true}}
		if diff := cmp.Diff(want, lifecycleActions(t, d.Actions)); diff != "" || len(d.Actions) != 1 || d.Rule != RuleT3 || d.Err != nil {
			t.Errorf("state %q: rule %s err %v (-want +got):\n%s", state, d.Rule, d.Err, diff)
		}
		if !strings.Contains(d.Actions[0].Reason, "adds not-ready key preUpdateHook") {
			t.Errorf("reason %q does not name the key", d.Actions[0].Reason)
		}
	}
	// Without the KruisePodReady gate, or with the key already listed, the flag has no effect.
	for _, p := range []*model.Pod{
		pod("web-a", model.StateNormal, withLabel("example.io/serving", "true")),
		pod("web-a", model.StateNormal, withLabel("example.io/serving", "true"), withKruisePodReady(KeyPreUpdateHook)),
	} {
		d := decide(t, cs, p, "web-2", gates)
		if got := lifecycleActions(t, d.Actions); len(got) != 1 || got[0].NotReady || got[0].To != model.StatePreparingUpdate {
			t.Errorf("ineffective flag: %+v", got)
		}
	}
}

func TestT4UpdateInPlace(t *testing.T) {
	// Not hooked (hook defined, marker absent), and lifecycle absent.
	for _, l := range []*model.Lifecycle{nil, {InPlaceUpdate: hook(true, map[string]string{"example.io/serving": "true"})}} {
		for _, state := range []string{"", model.StatePreparingNormal, model.StateNormal} {
			d := decide(t, cloneSet(model.PolicyInPlaceIfPossible, 15, l), pod("web-a", state), "web-2", gates)
			want := []model.Action{{Type: model.ActionUpdatePodInPlace, Pod: "web-a", FromRevision: "web-1", ToRevision: "web-2",
				GracePeriodSeconds: 15, Reason: "rolling update in place: images main=nginx:2; grace period 15s"}}
			if diff := cmp.Diff(want, d.Actions); diff != "" || d.Rule != RuleT4 || d.RequeueAfter != 15*time.Second || d.Wait || d.Err != nil {
				t.Errorf("state %q: rule %s requeue %v (-want +got):\n%s", state, d.Rule, d.RequeueAfter, diff)
			}
		}
	}
	// PreparingNormal is updated without its preNormal hook being checked [quirk].
	d := decide(t, cloneSet(model.PolicyInPlaceIfPossible, 0, &model.Lifecycle{PreNormal: hook(false, nil, "f")}), pod("web-a", model.StatePreparingNormal), "web-2", gates)
	if d.Rule != RuleT4 || !strings.Contains(d.Note, "quirk") || d.RequeueAfter != 0 {
		t.Errorf("PreparingNormal: %+v", d)
	}
}

func TestT5ReleasedPreparingUpdateIsUpdated(t *testing.T) {
	l := &model.Lifecycle{InPlaceUpdate: hook(true, map[string]string{"example.io/serving": "true"})}
	d := decide(t, cloneSet(model.PolicyInPlaceOnly, 0, l), pod("web-a", model.StatePreparingUpdate), "web-2", gates)
	if d.Rule != RuleT5 || len(d.Actions) != 1 || d.Actions[0].Type != model.ActionUpdatePodInPlace || d.Actions[0].GracePeriodSeconds != 0 {
		t.Errorf("T5: %+v", d)
	}
}

func TestT5wHookedPreparingUpdateWaits(t *testing.T) {
	l := &model.Lifecycle{InPlaceUpdate: hook(true, nil, "example.io/drain")}
	d := decide(t, cloneSet(model.PolicyInPlaceIfPossible, 0, l), pod("web-a", model.StatePreparingUpdate, withFinalizers("example.io/drain")), "web-2", gates)
	if d.Rule != RuleT5w || !d.Wait || len(d.Actions) != 0 || d.Err != nil {
		t.Errorf("T5w: %+v", d)
	}
}

func TestT6RolledBackWhileInPreparingUpdate(t *testing.T) {
	l := &model.Lifecycle{InPlaceUpdate: hook(true, map[string]string{"example.io/serving": "true"})}
	cs := cloneSet(model.PolicyInPlaceIfPossible, 0, l)
	// Marker removed: Updated, key removed.
	p := pod("web-a", model.StatePreparingUpdate, withKruisePodReady(KeyPreUpdateHook))
	acts := Refresh(cs, p, "web-1", false)
	if diff := cmp.Diff([]lifecycleAction{{"web-a", model.StatePreparingUpdate, model.StateUpdated, true}}, lifecycleActions(t, acts)); diff != "" {
		t.Errorf("to Updated (-want +got):\n%s", diff)
	}
	if !strings.Contains(acts[0].Reason, "removes not-ready key preUpdateHook") {
		t.Errorf("reason %q", acts[0].Reason)
	}
	// Marker present: Normal; the key leaks [quirk] (LSV 7.10).
	p = pod("web-a", model.StatePreparingUpdate, withLabel("example.io/serving", "true"), withKruisePodReady(KeyPreUpdateHook))
	acts = Refresh(cs, p, "web-1", false)
	if diff := cmp.Diff([]lifecycleAction{{"web-a", model.StatePreparingUpdate, model.StateNormal, false}}, lifecycleActions(t, acts)); diff != "" {
		t.Errorf("to Normal (-want +got):\n%s", diff)
	}
	if !strings.Contains(acts[0].Reason, "NotReady key leak") {
		t.Errorf("reason %q does not name the leak", acts[0].Reason)
	}
	// Short-form revision label matches the update revision too.
	if got := Refresh(cs, pod("web-a", model.StatePreparingUpdate, withRevision("1")), "web-1", false); len(got) != 1 {
		t.Errorf("short form: %v", got)
	}
	// Not yet at the update revision: nothing.
	if got := Refresh(cs, pod("web-a", model.StatePreparingUpdate), "web-2", true); len(got) != 0 {
		t.Errorf("waiting pod moved by refresh: %v", got)
	}
}

func TestT7UpdatingCompleted(t *testing.T) {
	hip := hook(true, map[string]string{"example.io/serving": "true"})
	cases := []struct {
		name      string
		l         *model.Lifecycle
		p         *model.Pod
		completed bool
		want      []lifecycleAction
	}{
		{"not completed", &model.Lifecycle{InPlaceUpdate: hip}, pod("web-a", model.StateUpdating), false, nil},
		{"not all hooked: Updated, key removed", &model.Lifecycle{InPlaceUpdate: hip},
			pod("web-a", model.StateUpdating, withKruisePodReady(KeyPreUpdateHook)), true,
			[]lifecycleAction{{"web-a", model.StateUpdating, model.StateUpdated, true}}},
		{"not all hooked, key not listed: flag ineffective", &model.Lifecycle{InPlaceUpdate: hip},
			pod("web-a", model.StateUpdating, withKruisePodReady(KeyPreDeleteHook)), true,
			[]lifecycleAction{{"web-a", model.StateUpdating, model.StateUpdated, false}}},
		{"all hooked: Normal", &model.Lifecycle{InPlaceUpdate: hip}, pod("web-a", model.StateUpdating, withLabel("example.io/serving", "true")), true,
			[]lifecycleAction{{"web-a", model.StateUpdating, model.StateNormal, false}}},
		{"no lifecycle: Normal", nil, pod("web-a", model.StateUpdating), true,
			[]lifecycleAction{{"web-a", model.StateUpdating, model.StateNormal, false}}},
		{"lifecycle without inPlaceUpdate: Updated first [quirk]", &model.Lifecycle{PreDelete: hook(false, nil, "f")}, pod("web-a", model.StateUpdating), true,
			[]lifecycleAction{{"web-a", model.StateUpdating, model.StateUpdated, false}}},
		{"empty inPlaceUpdate hook is all hooked: Normal (LSV 7.11)", &model.Lifecycle{InPlaceUpdate: &model.LifecycleHook{}}, pod("web-a", model.StateUpdating), true,
			[]lifecycleAction{{"web-a", model.StateUpdating, model.StateNormal, false}}},
	}
	for _, c := range cases {
		got := lifecycleActions(t, Refresh(cloneSet(model.PolicyInPlaceIfPossible, 0, c.l), c.p, "web-2", c.completed))
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

func TestT8UpdatedToNormal(t *testing.T) {
	hip := hook(true, map[string]string{"example.io/serving": "true"})
	cases := []struct {
		name string
		l    *model.Lifecycle
		p    *model.Pod
		want bool
	}{
		{"no lifecycle", nil, pod("web-a", model.StateUpdated), true},
		{"no inPlaceUpdate hook", &model.Lifecycle{PreDelete: hip}, pod("web-a", model.StateUpdated), true},
		{"all hooked", &model.Lifecycle{InPlaceUpdate: hip}, pod("web-a", model.StateUpdated, withLabel("example.io/serving", "true"), withKruisePodReady()), true},
		{"not all hooked: stays", &model.Lifecycle{InPlaceUpdate: hip}, pod("web-a", model.StateUpdated), false},
	}
	for _, c := range cases {
		got := lifecycleActions(t, Refresh(cloneSet("", 0, c.l), c.p, "web-2", true))
		var want []lifecycleAction
		if c.want {
			want = []lifecycleAction{{"web-a", model.StateUpdated, model.StateNormal, false}}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

func TestT9UpdatedBackToPreparingUpdate(t *testing.T) {
	hip := hook(true, map[string]string{"z.io/b": "2", "a.io/a": "1"}, "example.io/f")
	p := pod("web-a", model.StateUpdated, withRevision("web-2"), withKruisePodReady())
	d := decide(t, cloneSet(model.PolicyInPlaceIfPossible, 0, &model.Lifecycle{InPlaceUpdate: hip}), p, "web-1", gates)
	if diff := cmp.Diff([]lifecycleAction{{"web-a", model.StateUpdated, model.StatePreparingUpdate, true}}, lifecycleActions(t, d.Actions)); diff != "" || d.Rule != RuleT9 {
		t.Fatalf("rule %s (-want +got):\n%s", d.Rule, diff)
	}
	// The markers re-added are listed, labels sorted by key.
	if !strings.Contains(d.Actions[0].Reason, "labels a.io/a=1, z.io/b=2; finalizers example.io/f") {
		t.Errorf("reason %q", d.Actions[0].Reason)
	}
	// W2 re-applies the hook: the markers travel as structured fields too.
	if diff := cmp.Diff(map[string]string{"z.io/b": "2", "a.io/a": "1"}, d.Actions[0].SetLabels); diff != "" {
		t.Errorf("setLabels (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"example.io/f"}, d.Actions[0].AddFinalizers); diff != "" {
		t.Errorf("addFinalizers (-want +got):\n%s", diff)
	}
}

func TestT9nUpdatedWithoutHookDoesNothing(t *testing.T) {
	p := pod("web-a", model.StateUpdated)
	d := decide(t, cloneSet(model.PolicyInPlaceIfPossible, 0, &model.Lifecycle{PreDelete: hook(false, nil, "f")}), p, "web-2", gates)
	if d.Rule != RuleT9n || len(d.Actions) != 0 || d.Wait || d.Err != nil {
		t.Errorf("T9n: %+v", d)
	}
}

func TestT10UpdatingIsUpdatedAgain(t *testing.T) {
	p := pod("web-a", model.StateUpdating)
	d := decide(t, cloneSet(model.PolicyInPlaceIfPossible, 0, &model.Lifecycle{InPlaceUpdate: hook(false, nil, "f")}), p, "web-2", gates)
	if d.Rule != RuleT10 || len(d.Actions) != 1 || d.Actions[0].Type != model.ActionUpdatePodInPlace || d.Actions[0].FromRevision != "web-1" {
		t.Errorf("T10: %+v", d)
	}
}

func TestT11HookedPodEntersPreparingDelete(t *testing.T) {
	l := &model.Lifecycle{PreDelete: hook(true, map[string]string{"example.io/drain": "true"})}
	for _, state := range []string{"", model.StatePreparingNormal, model.StateNormal, model.StatePreparingUpdate, model.StateUpdating, model.StateUpdated} {
		p := pod("web-a", state, withLabel("example.io/drain", "true"), withKruisePodReady())
		acts, changed := RemovePod(cloneSet("", 0, l), p, []string{"data-web-a"}, "scale in")
		want := []lifecycleAction{{"web-a", state, model.StatePreparingDelete, true}}
		if diff := cmp.Diff(want, lifecycleActions(t, acts)); diff != "" || !changed || len(acts) != 1 {
			t.Errorf("state %q: changed %v (-want +got):\n%s", state, changed, diff)
		}
		if !strings.HasPrefix(acts[0].Reason, "scale in: ") || !strings.Contains(acts[0].Reason, "adds not-ready key preDeleteHook") {
			t.Errorf("reason %q", acts[0].Reason)
		}
	}
}

func TestT11rStillHookedInPreparingDelete(t *testing.T) {
	l := &model.Lifecycle{PreDelete: hook(true, nil, "example.io/drain")}
	cs := cloneSet("", 0, l)
	// Key present: no action, not changed.
	p := pod("web-a", model.StatePreparingDelete, withFinalizers("example.io/drain"), withKruisePodReady(KeyPreDeleteHook))
	if acts, changed := RemovePod(cs, p, nil, "pre-delete"); len(acts) != 0 || changed {
		t.Errorf("key present: %v %v", acts, changed)
	}
	// Without the gate the flag has no effect: no action.
	p = pod("web-a", model.StatePreparingDelete, withFinalizers("example.io/drain"))
	if acts, changed := RemovePod(cs, p, nil, "pre-delete"); len(acts) != 0 || changed {
		t.Errorf("no gate: %v %v", acts, changed)
	}
	// Key missing: from == to with the effective flag, still not changed.
	p = pod("web-a", model.StatePreparingDelete, withFinalizers("example.io/drain"), withKruisePodReady())
	acts, changed := RemovePod(cs, p, nil, "pre-delete")
	want := []lifecycleAction{{"web-a", model.StatePreparingDelete, model.StatePreparingDelete, true}}
	if diff := cmp.Diff(want, lifecycleActions(t, acts)); diff != "" || changed {
		t.Errorf("key missing: changed %v (-want +got):\n%s", changed, diff)
	}
}

func TestT12NotHookedPodIsDeleted(t *testing.T) {
	cases := []struct {
		name   string
		l      *model.Lifecycle
		p      *model.Pod
		reason string
	}{
		{"no lifecycle", nil, pod("web-a", model.StateNormal), "scale in"},
		{"preDelete not hooked", &model.Lifecycle{PreDelete: hook(true, map[string]string{"d": "x"})}, pod("web-a", model.StateNormal, withLabel("d", "y")), "scale in"},
		{"hook released in PreparingDelete", &model.Lifecycle{PreDelete: hook(false, nil, "f")}, pod("web-a", model.StatePreparingDelete), "pre-delete: preDelete hook released"},
		{"empty preDelete hook is never hooked", &model.Lifecycle{PreDelete: &model.LifecycleHook{}}, pod("web-a", model.StateNormal), "scale in"},
	}
	for _, c := range cases {
		in := strings.SplitN(c.reason, ":", 2)[0]
		acts, changed := RemovePod(cloneSet("", 0, c.l), c.p, []string{"data-web-a", "logs-web-a"}, in)
		want := []model.Action{{Type: model.ActionDeletePod, Pod: "web-a", DeletePVCs: []string{"data-web-a", "logs-web-a"}, Reason: c.reason}}
		if diff := cmp.Diff(want, acts); diff != "" || !changed {
			t.Errorf("%s: changed %v (-want +got):\n%s", c.name, changed, diff)
		}
	}
	// No PVCs: an empty, non-nil list (the plan writes []).
	acts, _ := RemovePod(cloneSet("", 0, nil), pod("web-a", ""), nil, "scale in")
	if acts[0].DeletePVCs == nil || len(acts[0].DeletePVCs) != 0 {
		t.Errorf("deletePVCs %#v", acts[0].DeletePVCs)
	}
}

// TestT13CancelPreDelete is the table of lifecycle-status-validation 7.8.
func TestT13CancelPreDelete(t *testing.T) {
	l := &model.Lifecycle{PreDelete: hook(false, nil, "example.io/unregister")}
	p4 := pod("web-p4", model.StatePreparingDelete, withFinalizers("example.io/unregister"))
	p5 := pod("web-p5", model.StatePreparingDelete, withFinalizers("example.io/unregister"), withLabel(model.LabelSpecifiedDelete, "true"))
	pd := []*model.Pod{p4, p5}
	cancelP4 := []lifecycleAction{{"web-p4", model.StatePreparingDelete, model.StatePreparingNormal, false}}
	for _, c := range []struct {
		replicas int
		want     []lifecycleAction
	}{{5, cancelP4}, {4, cancelP4}, {3, nil}} {
		got := lifecycleActions(t, CancelPreDelete(cloneSet("", 0, l), pd, nil, c.replicas, 5, 2))
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("replicas %d (-want +got):\n%s", c.replicas, diff)
		}
	}
	// Two cancellable pods, d = 1: only the first in the given (canonical) order.
	p6 := pod("web-p6", model.StatePreparingDelete)
	got := lifecycleActions(t, CancelPreDelete(cloneSet("", 0, l), []*model.Pod{p4, p6}, nil, 4, 5, 2))
	if diff := cmp.Diff(cancelP4, got); diff != "" {
		t.Errorf("d=1 (-want +got):\n%s", diff)
	}
	// podsToDelete (through the predicate) protects a pod like the label does.
	byName := func(p *model.Pod) bool { return p.Name == "web-p4" || p.HasSpecifiedDeleteLabel() }
	if got := CancelPreDelete(cloneSet("", 0, l), pd, byName, 5, 5, 2); len(got) != 0 {
		t.Errorf("podsToDelete pod cancelled: %v", got)
	}
	// Either hook's markPodNotReady disables the step.
	for _, ll := range []*model.Lifecycle{
		{PreDelete: hook(true, nil, "example.io/unregister")},
		{PreDelete: hook(false, nil, "example.io/unregister"), InPlaceUpdate: hook(true, nil)},
	} {
		if got := CancelPreDelete(cloneSet("", 0, ll), pd, nil, 5, 5, 2); len(got) != 0 {
			t.Errorf("markPodNotReady set, cancelled: %v", got)
		}
	}
}

func TestTErrStateForbidsInPlaceUpdate(t *testing.T) {
	p := pod("web-a", "Draining")
	d := decide(t, cloneSet(model.PolicyInPlaceIfPossible, 0, nil), p, "web-2", gates)
	if d.Rule != RuleTErr || d.Err == nil || d.Err.Error() != "not allowed to in-place update pod web-a in state Draining" || len(d.Actions) != 0 {
		t.Errorf("T-ERR: %+v", d)
	}
	// The error needs the in-place path: recreate is decided before the state is looked at.
	d = decide(t, cloneSet(model.PolicyInPlaceIfPossible, 0, nil), p, "web-3", gates)
	if d.Err != nil || d.Rule != RuleRecreate {
		t.Errorf("unknown state, recreate: %+v", d)
	}
	// PreparingDelete is never updated, whatever the policy.
	for _, policy := range []string{"", model.PolicyReCreate, model.PolicyInPlaceIfPossible, model.PolicyInPlaceOnly} {
		d := decide(t, cloneSet(policy, 0, nil), pod("web-a", model.StatePreparingDelete), "web-2", gates)
		if d.Err == nil || len(d.Actions) != 0 || d.Rule != RuleNotCandidate {
			t.Errorf("policy %q, PreparingDelete: %+v", policy, d)
		}
	}
}
