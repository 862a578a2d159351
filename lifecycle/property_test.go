package lifecycle

import (
	"fmt"
	"testing"

	"github.com/clonecore/cloneset/model"
	"pgregory.net/rapid"
)

var allStates = []string{"", model.StatePreparingNormal, model.StateNormal, model.StatePreparingUpdate,
	model.StateUpdating, model.StateUpdated, model.StatePreparingDelete, "Weird"}

func drawHook(t *rapid.T, name string) *model.LifecycleHook {
	if !rapid.Bool().Draw(t, name+"Present") {
		return nil
	}
	h := &model.LifecycleHook{MarkPodNotReady: rapid.Bool().Draw(t, name+"NotReady")}
	if rapid.Bool().Draw(t, name+"Label") {
		h.LabelsHandler = map[string]string{"a": rapid.SampledFrom([]string{"", "1"}).Draw(t, name+"LabelValue")}
	}
	if rapid.Bool().Draw(t, name+"Finalizer") {
		h.FinalizersHandler = []string{"f"}
	}
	return h
}

func drawCloneSet(t *rapid.T) *model.CloneSet {
	var l *model.Lifecycle
	if rapid.Bool().Draw(t, "lifecycle") {
		l = &model.Lifecycle{PreDelete: drawHook(t, "preDelete"), InPlaceUpdate: drawHook(t, "inPlaceUpdate"), PreNormal: drawHook(t, "preNormal")}
	}
	policy := rapid.SampledFrom([]string{"", model.PolicyReCreate, model.PolicyInPlaceIfPossible, model.PolicyInPlaceOnly}).Draw(t, "policy")
	return cloneSet(policy, int32(rapid.IntRange(0, 3).Draw(t, "grace")), l)
}

func drawPod(t *rapid.T, name string) *model.Pod {
	var opts []podOpt
	switch rapid.IntRange(0, 2).Draw(t, name+"Label") {
	case 1:
		opts = append(opts, withLabel("a", "1"))
	case 2:
		opts = append(opts, withLabel("a", "2"))
	}
	if rapid.Bool().Draw(t, name+"Finalizer") {
		opts = append(opts, withFinalizers("f"))
	}
	opts = append(opts, withRevision(rapid.SampledFrom([]string{"web-1", "web-2", "web-3", "web-9", "2"}).Draw(t, name+"Revision")))
	switch rapid.IntRange(0, 3).Draw(t, name+"KruisePodReady") {
	case 1:
		opts = append(opts, withKruisePodReady())
	case 2:
		opts = append(opts, withKruisePodReady(KeyPreDeleteHook))
	case 3:
		opts = append(opts, withKruisePodReady(KeyPreUpdateHook))
	}
	if rapid.Bool().Draw(t, name+"SpecifiedDelete") {
		opts = append(opts, withLabel(model.LabelSpecifiedDelete, "true"))
	}
	if rapid.Bool().Draw(t, name+"Unscheduled") {
		opts = append(opts, unscheduled())
	}
	return pod(name, rapid.SampledFrom(allStates).Draw(t, name+"State"), opts...)
}

func drawGates(t *rapid.T) model.FeatureGates {
	return model.FeatureGates{
		InPlaceWorkloadVerticalScaling:         rapid.Bool().Draw(t, "vertical"),
		InPlaceUpdateEnvFromMetadata:           rapid.Bool().Draw(t, "envFromMetadata"),
		RecreatePodWhenChangeVCTInCloneSetGate: rapid.Bool().Draw(t, "vct"),
	}
}

// checkShape checks the plan-shape rules every action must follow.
func checkShape(t *rapid.T, where string, p *model.Pod, acts []model.Action) {
	for _, a := range acts {
		if a.Pod != p.Name {
			t.Fatalf("%s: action for pod %q, want %q", where, a.Pod, p.Name)
		}
		if a.Reason == "" {
			t.Fatalf("%s: %s without a reason", where, a.Type)
		}
		if a.Type != model.ActionSetLifecycleState {
			continue
		}
		if a.From != p.LifecycleState() {
			t.Fatalf("%s: from %q but the pod is %q", where, a.From, p.LifecycleState())
		}
		eff, _ := NotReadyEffect(p, a.To, true)
		if a.MarkPodNotReady && !eff {
			t.Fatalf("%s: markPodNotReady reported although nothing changes: %+v", where, a)
		}
		if a.From == a.To && !a.MarkPodNotReady {
			t.Fatalf("%s: from == to without a missing key: %+v", where, a)
		}
	}
}

// TestPropertyPreparingDeleteIsOneWay: no transition leaves PreparingDelete except
// the cancel rule (T13), and a PreparingDelete pod is never updated.
func TestPropertyPreparingDeleteIsOneWay(t *testing.T) {
	refreshPairs := map[[2]string]bool{
		{model.StatePreparingNormal, model.StateNormal}:  true,
		{model.StatePreparingUpdate, model.StateUpdated}: true, {model.StatePreparingUpdate, model.StateNormal}: true,
		{model.StateUpdating, model.StateUpdated}: true, {model.StateUpdating, model.StateNormal}: true,
		{model.StateUpdated, model.StateNormal}: true,
	}
	rapid.Check(t, func(t *rapid.T) {
		cs := drawCloneSet(t)
		p := drawPod(t, "web-p")
		state := p.LifecycleState()

		// Refresh never touches PreparingDelete and only takes the table's steps.
		acts := Refresh(cs, p, rapid.SampledFrom([]string{"web-1", "web-2"}).Draw(t, "updateRevision"), rapid.Bool().Draw(t, "completed"))
		checkShape(t, "Refresh", p, acts)
		for _, a := range acts {
			if a.Type == model.ActionSetLifecycleState && !refreshPairs[[2]string{a.From, a.To}] {
				t.Fatalf("Refresh took %s → %s", a.From, a.To)
			}
		}

		// RemovePod only ever enters (or stays in) PreparingDelete, or deletes.
		acts, changed := RemovePod(cs, p, nil, "scale in")
		checkShape(t, "RemovePod", p, acts)
		if len(acts) > 1 {
			t.Fatalf("RemovePod emitted %d actions", len(acts))
		}
		wantChanged := false
		for _, a := range acts {
			switch a.Type {
			case model.ActionSetLifecycleState:
				if a.To != model.StatePreparingDelete {
					t.Fatalf("RemovePod moved the pod to %s", a.To)
				}
				wantChanged = a.From != a.To
			case model.ActionDeletePod:
				wantChanged = true
			default:
				t.Fatalf("RemovePod emitted %s", a.Type)
			}
		}
		if changed != wantChanged {
			t.Fatalf("RemovePod changed = %v for %v", changed, acts)
		}

		// DecideUpdate never updates a PreparingDelete pod.
		d := DecideUpdate(UpdateInput{CloneSet: cs, Pod: p, Target: rapid.SampledFrom([]string{"web-1", "web-2", "web-3"}).Draw(t, "target"),
			Revisions: revisions(), Gates: drawGates(t), Now: now})
		checkShape(t, "DecideUpdate", p, d.Actions)
		if state == model.StatePreparingDelete && (d.Err == nil || len(d.Actions) != 0) {
			t.Fatalf("PreparingDelete pod updated: %+v", d)
		}
		if (d.Err != nil || d.Wait) && len(d.Actions) != 0 {
			t.Fatalf("error or wait with actions: %+v", d)
		}
		if len(d.Actions) > 1 {
			t.Fatalf("DecideUpdate emitted %d actions", len(d.Actions))
		}
		for _, a := range d.Actions {
			switch a.Type {
			case model.ActionSetLifecycleState:
				if a.To != model.StatePreparingUpdate || a.From == model.StatePreparingDelete {
					t.Fatalf("DecideUpdate took %s → %s", a.From, a.To)
				}
			case model.ActionUpdatePodInPlace, model.ActionRecreatePod:
			default:
				t.Fatalf("DecideUpdate emitted %s", a.Type)
			}
		}

		// CancelPreDelete is the only way out, to PreparingNormal, and only when allowed.
		l := cs.Spec.Lifecycle
		blocked := l != nil && (markPodNotReady(l.PreDelete) || markPodNotReady(l.InPlaceUpdate))
		others := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) *model.Pod { return drawPod(t, "web-o") }), 0, 3).Draw(t, "others")
		pd := []*model.Pod{p}
		for i, o := range others {
			o.Name = fmt.Sprintf("web-o%d", i)
			pd = append(pd, o)
		}
		replicas := rapid.IntRange(0, 6).Draw(t, "replicas")
		observed := rapid.IntRange(len(pd), len(pd)+3).Draw(t, "observed")
		toDelete := rapid.IntRange(0, observed).Draw(t, "numToDelete")
		cancels := CancelPreDelete(cs, pd, nil, replicas, observed, toDelete)
		if blocked && len(cancels) != 0 {
			t.Fatalf("cancelled with markPodNotReady set: %v", cancels)
		}
		if len(cancels) > max(replicas-observed+toDelete, 0) {
			t.Fatalf("%d cancels for d = %d", len(cancels), replicas-observed+toDelete)
		}
		byName := map[string]*model.Pod{}
		for _, x := range pd {
			byName[x.Name] = x
		}
		for _, a := range cancels {
			x := byName[a.Pod]
			if x == nil || a.From != model.StatePreparingDelete || a.To != model.StatePreparingNormal || a.MarkPodNotReady ||
				x.LifecycleState() != model.StatePreparingDelete || x.HasSpecifiedDeleteLabel() {
				t.Fatalf("bad cancel %+v of %+v", a, x)
			}
		}
	})
}

// TestPropertyWalk drives one pod through random rounds (refresh, update, removal,
// cancel, and the hook controller toggling markers), applying every action: once in
// PreparingDelete the pod only leaves it through an applied cancel (T13) or deletion.
func TestPropertyWalk(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cs := drawCloneSet(t)
		p := drawPod(t, "web-w")
		gates := drawGates(t)
		for round := 0; round < 12; round++ {
			before := p.LifecycleState()
			var acts []model.Action
			cancel := false
			switch rapid.IntRange(0, 5).Draw(t, "step") {
			case 0:
				acts = Refresh(cs, p, rapid.SampledFrom([]string{"web-1", "web-2"}).Draw(t, "u"), rapid.Bool().Draw(t, "done"))
			case 1:
				d := DecideUpdate(UpdateInput{CloneSet: cs, Pod: p, Target: "web-2", Revisions: revisions(), Gates: gates, Now: now})
				acts = d.Actions
			case 2:
				var deleted bool
				acts, _ = RemovePod(cs, p, nil, "scale in")
				for _, a := range acts {
					deleted = deleted || a.Type == model.ActionDeletePod
				}
				if deleted {
					return
				}
			case 3:
				acts = CancelPreDelete(cs, []*model.Pod{p}, nil, rapid.IntRange(0, 3).Draw(t, "r"), 2, 1)
				cancel = true
			case 4:
				if p.Labels["a"] == "1" {
					delete(p.Labels, "a")
				} else {
					p.Labels["a"] = "1"
				}
			case 5:
				if len(p.Finalizers) == 0 {
					p.Finalizers = []string{"f"}
				} else {
					p.Finalizers = nil
				}
			}
			checkShape(t, "walk", p, acts)
			apply(p, acts)
			if before == model.StatePreparingDelete && p.LifecycleState() != model.StatePreparingDelete {
				if !cancel || p.LifecycleState() != model.StatePreparingNormal {
					t.Fatalf("round %d left PreparingDelete for %s through %v", round, p.LifecycleState(), acts)
				}
			}
		}
	})
}
