package lifecycle

// The update decision and the hook descriptions as written before the
// allocation work (fmt.Sprintf, the lifecycle state read at each use, a slice
// per decision): the references of the fast-path property tests. Copied
// verbatim but for the names. (The refresh only gained the state as an
// argument; its transitions are pinned by transitions_test.go.)

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/clonecore/cloneset/inplace"
	"github.com/clonecore/cloneset/model"
)

func decideUpdateRef(in UpdateInput) UpdateDecision {
	cs, p := in.CloneSet, in.Pod
	if cs == nil || p == nil {
		return UpdateDecision{Err: errors.New("update decision without a CloneSet or a pod"), Note: "nothing to decide"}
	}
	state := p.LifecycleState()
	if state == model.StatePreparingDelete {
		return UpdateDecision{
			Rule: RuleNotCandidate,
			Err:  fmt.Errorf("not allowed to update pod %s in state %s", p.Name, state),
			Note: fmt.Sprintf("pod %s is in PreparingDelete, which is never updated (update-and-ordering 2.5)", p.Name),
		}
	}
	policy := Policy(cs)
	recreateWhy := "policy " + model.PolicyReCreate
	var spec inplace.Spec
	if policy == model.PolicyInPlaceIfPossible || policy == model.PolicyInPlaceOnly {
		opts := inplace.Options{Policy: policy, Gates: in.Gates}
		var old, target *model.Revision
		if x := in.Index; x != nil {
			old, target = x.OldRevision(p), x.FindRevision(in.Target)
			spec = x.Calculate(old, target, opts)
		} else {
			old, target = inplace.OldRevision(p, in.Revisions), inplace.FindRevision(in.Target, in.Revisions)
			spec = inplace.Calculate(old, target, opts)
		}
		if old == nil {
			spec.Reason = fmt.Sprintf("old revision %s not found", quoteRevision(p.RevisionLabel()))
		} else if target == nil {
			spec.Reason = fmt.Sprintf("target revision %s not found", quoteRevision(in.Target))
		}
		if spec.Feasible {
			var summary string
			if in.Index != nil {
				summary = in.Index.Summary(old, target, opts)
			} else {
				summary = spec.Summary()
			}
			d := inPlaceLifecycleRef(in, old, summary)
			d.InPlace = spec
			return d
		}
		if policy == model.PolicyInPlaceOnly {
			return UpdateDecision{
				Rule:    RuleInPlaceOnly,
				Err:     fmt.Errorf(errInPlaceOnlyFormat, p.Name),
				Note:    fmt.Sprintf("InPlaceOnly: pod %s cannot be updated in place: %s", p.Name, spec.Reason),
				InPlace: spec,
			}
		}
		recreateWhy = "not possible in place: " + spec.Reason
	}
	d := UpdateDecision{InPlace: spec}
	if p.HasSpecifiedDeleteLabel() {
		d.Rule = RuleRecreateMarked
		d.Note = fmt.Sprintf("pod %s is recreated (%s) but already carries %s: no action, still admitted", p.Name, recreateWhy, model.LabelSpecifiedDelete)
		return d
	}
	d.Rule = RuleRecreate
	d.Actions = []model.Action{{
		Type: model.ActionRecreatePod, Pod: p.Name, ToRevision: in.Target,
		Reason: "rolling update: recreate (" + recreateWhy + ")",
	}}
	d.Note = fmt.Sprintf("pod %s is marked %s to be recreated at %s (%s)", p.Name, model.LabelSpecifiedDelete, in.Target, recreateWhy)
	return d
}

func inPlaceLifecycleRef(in UpdateInput, old *model.Revision, summary string) UpdateDecision {
	cs, p := in.CloneSet, in.Pod
	l := cs.Spec.Lifecycle
	var hip *model.LifecycleHook
	if l != nil {
		hip = l.InPlaceUpdate
	}
	hooked := l != nil && AnyHooked(hip, p)
	state := p.LifecycleState()
	toPreparingUpdate := func(rule, why string) UpdateDecision {
		eff, key := NotReadyEffect(p, model.StatePreparingUpdate, markPodNotReady(hip))
		reason := withIgnored(withKey(why, eff, key, model.StatePreparingUpdate), p, markPodNotReady(hip))
		return UpdateDecision{
			Rule: rule,
			Actions: []model.Action{{
				Type: model.ActionSetLifecycleState, Pod: p.Name,
				From: state, To: model.StatePreparingUpdate, MarkPodNotReady: eff, Reason: reason,
			}},
			Note: fmt.Sprintf("pod %s (%s) enters PreparingUpdate before its in-place update to %s: %s", p.Name, stateName(state), in.Target, reason),
		}
	}
	switch state {
	case "", model.StatePreparingNormal, model.StateNormal:
		if hooked {
			return toPreparingUpdate(RuleT3, "in-place update: inPlaceUpdate hook present (markers "+hookMarkersRef(hip)+"), wait in PreparingUpdate")
		}
		d := updateInPlaceRef(in, old, summary, RuleT4)
		if state == model.StatePreparingNormal {
			d.Note += " [quirk: a PreparingNormal pod is updated without its preNormal hook being checked again]"
		}
		return d
	case model.StateUpdated:
		if hip == nil {
			return UpdateDecision{Rule: RuleT9n, Note: fmt.Sprintf("pod %s is Updated and there is no inPlaceUpdate hook: nothing this round (refresh moves it to Normal)", p.Name)}
		}
		d := toPreparingUpdate(RuleT9, "in-place update of an Updated pod: back to PreparingUpdate, re-adding the inPlaceUpdate hook markers ("+hookMarkersRef(hip)+")")
		// W2 re-applies the hook: its labels and finalizers travel with the action.
		if len(hip.LabelsHandler) > 0 {
			d.Actions[0].SetLabels = make(map[string]string, len(hip.LabelsHandler))
			for k, v := range hip.LabelsHandler {
				d.Actions[0].SetLabels[k] = v
			}
		}
		d.Actions[0].AddFinalizers = append([]string(nil), hip.FinalizersHandler...)
		return d
	case model.StatePreparingUpdate:
		if hooked {
			return UpdateDecision{Rule: RuleT5w, Wait: true,
				Note: fmt.Sprintf("pod %s waits in PreparingUpdate: still hooked by inPlaceUpdate (markers %s)", p.Name, hookMarkersRef(hip))}
		}
		return updateInPlaceRef(in, old, summary, RuleT5)
	case model.StateUpdating:
		return updateInPlaceRef(in, old, summary, RuleT10)
	}
	return UpdateDecision{
		Rule: RuleTErr,
		Err:  fmt.Errorf("not allowed to in-place update pod %s in state %s", p.Name, state),
		Note: fmt.Sprintf("pod %s is in lifecycle state %q, which forbids an in-place update", p.Name, state),
	}
}

func updateInPlaceRef(in UpdateInput, old *model.Revision, summary, rule string) UpdateDecision {
	p := in.Pod
	g := GracePeriodSeconds(in.CloneSet)
	reason := "rolling update in place: " + summary
	if g > 0 {
		reason += fmt.Sprintf("; grace period %ds", g)
	}
	d := UpdateDecision{
		Rule: rule,
		Actions: []model.Action{{
			Type: model.ActionUpdatePodInPlace, Pod: p.Name,
			FromRevision: old.Name, ToRevision: in.Target, GracePeriodSeconds: g, Reason: reason,
		}},
		Note: fmt.Sprintf("pod %s (%s) is updated in place from %s to %s: %s", p.Name, stateName(p.LifecycleState()), old.Name, in.Target, summary),
	}
	if l := model.RevisionLabelValue(in.Target, in.Gates); l != in.Target {
		d.Actions[0].RevisionLabel = l
	}
	if g > 0 {
		d.RequeueAfter = time.Duration(g) * time.Second
	}
	return d
}

func hookMarkersRef(h *model.LifecycleHook) string {
	if h == nil {
		return "none"
	}
	var parts []string
	if len(h.LabelsHandler) > 0 {
		keys := make([]string, 0, len(h.LabelsHandler))
		for k := range h.LabelsHandler {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		xs := make([]string, len(keys))
		for i, k := range keys {
			xs[i] = k + "=" + h.LabelsHandler[k]
		}
		parts = append(parts, "labels "+strings.Join(xs, ", "))
	}
	if len(h.FinalizersHandler) > 0 {
		parts = append(parts, "finalizers "+strings.Join(h.FinalizersHandler, ", "))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}
