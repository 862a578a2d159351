package lifecycle

import (
	"errors"
	"fmt"
	"time"

	"github.com/clonecore/cloneset/inplace"
	"github.com/clonecore/cloneset/model"
)

// UpdateInput is one admitted update candidate and what the decision needs.
type UpdateInput struct {
	// CloneSet is the CloneSet (its update strategy and lifecycle are read).
	CloneSet *model.CloneSet
	// Pod is the admitted candidate.
	Pod *model.Pod
	// Target is the name of the target revision T (update-and-ordering 2.4).
	Target string
	// Revisions are the CloneSet's ControllerRevisions (the old revision of the pod
	// and the target are looked up here).
	Revisions []*model.Revision
	// Index, when not nil, is inplace.NewRevisionIndex(Revisions), shared by
	// the candidates of a round: the lookups and in-place comparisons are then
	// computed once per revision instead of once per pod. The decision is the
	// same with or without it.
	Index *inplace.RevisionIndex
	// Gates are the controller feature gates.
	Gates model.FeatureGates
	// Now is the planner clock. The decision itself does not depend on it today
	// (timestamps are written by the adapter applying the actions); it is part of
	// the input so that time-dependent rules need no API change.
	Now time.Time
}

// Rules an UpdateDecision can apply (UpdateDecision.Rule): the rows of the
// transition table of lifecycle-status-validation 1.7 plus the recreate outcomes.
const (
	// RuleT3 moves a hooked "", PreparingNormal or Normal pod to PreparingUpdate.
	RuleT3 = "T3"
	// RuleT4 updates a "", PreparingNormal or Normal pod in place.
	RuleT4 = "T4"
	// RuleT5 updates a released PreparingUpdate pod in place.
	RuleT5 = "T5"
	// RuleT5w leaves a still hooked PreparingUpdate pod waiting.
	RuleT5w = "T5w"
	// RuleT9 moves an Updated pod back to PreparingUpdate, re-adding the hook markers.
	RuleT9 = "T9"
	// RuleT9n does nothing to an Updated pod when there is no inPlaceUpdate hook.
	RuleT9n = "T9n"
	// RuleT10 updates an Updating pod in place again (newer revision).
	RuleT10 = "T10"
	// RuleTErr fails the update loop: the pod's state forbids an in-place update.
	RuleTErr = "T-ERR"
	// RuleRecreate marks the pod specified-delete (RecreatePod).
	RuleRecreate = "Recreate"
	// RuleRecreateMarked is a recreate of a pod already marked: no action.
	RuleRecreateMarked = "RecreateMarked"
	// RuleInPlaceOnly fails the update loop: InPlaceOnly and not possible in place.
	RuleInPlaceOnly = "InPlaceOnly"
	// RuleNotCandidate refuses a PreparingDelete pod, which is never updated.
	RuleNotCandidate = "NotCandidate"
)

const errInPlaceOnlyFormat = "find Pod %s update strategy is InPlaceOnly but can not update in-place"

// UpdateDecision is what happens to one admitted candidate.
type UpdateDecision struct {
	// Actions are the plan actions: a SetLifecycleState (T3, T9), an
	// UpdatePodInPlace (T4, T5, T10; it carries its own move to Updating) or a
	// RecreatePod (marks the pod specified-delete). Empty for a wait (T5w), for T9n,
	// for the recreate of an already marked pod and on error.
	Actions []model.Action
	// Wait is true for T5w: the pod stays in PreparingUpdate, still hooked.
	Wait bool
	// Err ends the update loop and becomes the FailedUpdate condition: the policy is
	// InPlaceOnly and the pod cannot be updated in place, or the pod's state forbids
	// an in-place update (T-ERR), or the pod is in PreparingDelete.
	Err error
	// Note is a sentence explaining the decision.
	Note string
	// RequeueAfter is R4: the grace period of an in-place update issued here with
	// gracePeriodSeconds > 0, else zero.
	RequeueAfter time.Duration
	// Rule names the rule applied (RuleT3, RuleT4, ...).
	Rule string
	// InPlace is the in-place feasibility result; zero when the policy is ReCreate.
	InPlace inplace.Spec
}

// Policy returns the effective pod update policy of the CloneSet:
// rollingUpdate.podUpdatePolicy, ReCreate when rollingUpdate is absent or the
// policy empty (update-and-ordering 4.1).
func Policy(cs *model.CloneSet) string {
	if cs == nil || cs.Spec.UpdateStrategy.RollingUpdate == nil || cs.Spec.UpdateStrategy.RollingUpdate.PodUpdatePolicy == "" {
		return model.PolicyReCreate
	}
	return cs.Spec.UpdateStrategy.RollingUpdate.PodUpdatePolicy
}

// GracePeriodSeconds returns rollingUpdate.inPlaceUpdateStrategy.gracePeriodSeconds
// (0 when absent).
func GracePeriodSeconds(cs *model.CloneSet) int32 {
	if cs == nil || cs.Spec.UpdateStrategy.RollingUpdate == nil || cs.Spec.UpdateStrategy.RollingUpdate.InPlaceUpdateStrategy == nil {
		return 0
	}
	return cs.Spec.UpdateStrategy.RollingUpdate.InPlaceUpdateStrategy.GracePeriodSeconds
}

// DecideUpdate is the per-pod update decision for an admitted candidate
// (update-and-ordering 4.1; lifecycle-status-validation 1.7a InPlaceLifecycle).
//
// With policy InPlaceIfPossible or InPlaceOnly, the old revision of the pod
// (inplace.OldRevision) and the target are compared (inplace.Calculate). If an
// in-place update is possible, the pod's state decides:
//   - "", PreparingNormal, Normal: spec.lifecycle present and
//     AnyHooked(inPlaceUpdate) → SetLifecycleState to PreparingUpdate (T3); else
//     UpdatePodInPlace (T4);
//   - Updated: SetLifecycleState to PreparingUpdate re-adding the hook markers (T9,
//     listed in the reason, labels sorted by key); nothing when the inPlaceUpdate hook
//     is absent (T9n);
//   - PreparingUpdate: still hooked → wait (T5w); else UpdatePodInPlace (T5);
//   - Updating: UpdatePodInPlace (T10);
//   - anything else: error (T-ERR).
//
// If it is impossible, InPlaceOnly is an error and InPlaceIfPossible recreates.
// Recreate (also the ReCreate policy) emits RecreatePod unless the pod already
// carries the specified-delete label (then nothing; the pod still counts as
// admitted). A pod in PreparingDelete is never an update candidate
// (update-and-ordering 2.5): DecideUpdate returns an error for it and no action.
// UpdatePodInPlace carries gracePeriodSeconds, and RequeueAfter is set to it (R4).
func DecideUpdate(in UpdateInput) UpdateDecision {
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
			d := inPlaceLifecycle(in, old, summary)
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

func quoteRevision(s string) string {
	if s == "" {
		return "(no controller-revision-hash label)"
	}
	return s
}

// inPlaceLifecycle acts on a pod that can be updated in place, by its state;
// summary is the summary of the in-place update spec.
func inPlaceLifecycle(in UpdateInput, old *model.Revision, summary string) UpdateDecision {
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
		reason := withKey(why, eff, key, model.StatePreparingUpdate)
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
			return toPreparingUpdate(RuleT3, "in-place update: inPlaceUpdate hook present (markers "+hookMarkers(hip)+"), wait in PreparingUpdate")
		}
		d := updateInPlace(in, old, summary, RuleT4)
		if state == model.StatePreparingNormal {
			d.Note += " [quirk: a PreparingNormal pod is updated without its preNormal hook being checked again]"
		}
		return d
	case model.StateUpdated:
		if hip == nil {
			return UpdateDecision{Rule: RuleT9n, Note: fmt.Sprintf("pod %s is Updated and there is no inPlaceUpdate hook: nothing this round (refresh moves it to Normal)", p.Name)}
		}
		d := toPreparingUpdate(RuleT9, "in-place update of an Updated pod: back to PreparingUpdate, re-adding the inPlaceUpdate hook markers ("+hookMarkers(hip)+")")
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
				Note: fmt.Sprintf("pod %s waits in PreparingUpdate: still hooked by inPlaceUpdate (markers %s)", p.Name, hookMarkers(hip))}
		}
		return updateInPlace(in, old, summary, RuleT5)
	case model.StateUpdating:
		return updateInPlace(in, old, summary, RuleT10)
	}
	return UpdateDecision{
		Rule: RuleTErr,
		Err:  fmt.Errorf("not allowed to in-place update pod %s in state %s", p.Name, state),
		Note: fmt.Sprintf("pod %s is in lifecycle state %q, which forbids an in-place update", p.Name, state),
	}
}

func stateName(s string) string {
	if s == "" {
		return "no lifecycle state"
	}
	return s
}

func updateInPlace(in UpdateInput, old *model.Revision, summary, rule string) UpdateDecision {
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
