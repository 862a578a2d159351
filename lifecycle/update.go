package lifecycle

import (
	"errors"
	"fmt"
	"strconv"
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
	d, a := decideUpdate(in)
	if a.Type != "" {
		d.Actions = []model.Action{a}
	}
	return d
}

// AppendDecideUpdate is DecideUpdate(in) with the decision's action (there is
// at most one) appended to dst instead of put in a slice of its own: it
// returns the extended dst and the decision. A caller collecting the actions
// of many decisions, as the planner does, saves an allocation and a copy per
// decision. The decision is DecideUpdate(in)'s, except that its Actions, when
// there is an action, is the last element of the returned slice, with no room
// to grow (appending to it cannot overwrite dst).
func AppendDecideUpdate(dst []model.Action, in UpdateInput) ([]model.Action, UpdateDecision) {
	d, a := decideUpdate(in)
	if a.Type != "" {
		dst = append(dst, a)
		d.Actions = dst[len(dst)-1 : len(dst) : len(dst)]
	}
	return dst, d
}

// decideUpdate is DecideUpdate with the action of the decision apart (no
// action when its Type is empty) and the decision's Actions unset.
func decideUpdate(in UpdateInput) (UpdateDecision, model.Action) {
	cs, p := in.CloneSet, in.Pod
	if cs == nil || p == nil {
		return UpdateDecision{Err: errors.New("update decision without a CloneSet or a pod"), Note: "nothing to decide"}, model.Action{}
	}
	state := p.LifecycleState()
	if state == model.StatePreparingDelete {
		return UpdateDecision{
			Rule: RuleNotCandidate,
			Err:  fmt.Errorf("not allowed to update pod %s in state %s", p.Name, state),
			Note: "pod " + p.Name + " is in PreparingDelete, which is never updated (update-and-ordering 2.5)",
		}, model.Action{}
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
			spec.Reason = "old revision " + quoteRevision(p.RevisionLabel()) + " not found"
		} else if target == nil {
			spec.Reason = "target revision " + quoteRevision(in.Target) + " not found"
		}
		if spec.Feasible {
			var summary string
			if in.Index != nil {
				summary = in.Index.Summary(old, target, opts)
			} else {
				summary = spec.Summary()
			}
			d, a := inPlaceLifecycle(in, state, old, summary)
			d.InPlace = spec
			return d, a
		}
		if policy == model.PolicyInPlaceOnly {
			return UpdateDecision{
				Rule:    RuleInPlaceOnly,
				Err:     fmt.Errorf(errInPlaceOnlyFormat, p.Name),
				Note:    "InPlaceOnly: pod " + p.Name + " cannot be updated in place: " + spec.Reason,
				InPlace: spec,
			}, model.Action{}
		}
		recreateWhy = "not possible in place: " + spec.Reason
	}
	d := UpdateDecision{InPlace: spec}
	if p.HasSpecifiedDeleteLabel() {
		d.Rule = RuleRecreateMarked
		d.Note = "pod " + p.Name + " is recreated (" + recreateWhy + ") but already carries " + model.LabelSpecifiedDelete + ": no action, still admitted"
		return d, model.Action{}
	}
	d.Rule = RuleRecreate
	d.Note = "pod " + p.Name + " is marked " + model.LabelSpecifiedDelete + " to be recreated at " + in.Target + " (" + recreateWhy + ")"
	return d, model.Action{
		Type: model.ActionRecreatePod, Pod: p.Name, ToRevision: in.Target,
		Reason: "rolling update: recreate (" + recreateWhy + ")",
	}
}

func quoteRevision(s string) string {
	if s == "" {
		return "(no controller-revision-hash label)"
	}
	return s
}

// inPlaceLifecycle acts on a pod that can be updated in place, by its
// lifecycle state state; summary is the summary of the in-place update spec.
// It returns the decision and its action apart, as decideUpdate.
func inPlaceLifecycle(in UpdateInput, state string, old *model.Revision, summary string) (UpdateDecision, model.Action) {
	cs, p := in.CloneSet, in.Pod
	l := cs.Spec.Lifecycle
	var hip *model.LifecycleHook
	if l != nil {
		hip = l.InPlaceUpdate
	}
	switch state {
	case "", model.StatePreparingNormal, model.StateNormal:
		if l != nil && AnyHooked(hip, p) {
			return toPreparingUpdate(in, state, hip, RuleT3, withMarkers("in-place update: inPlaceUpdate hook present (markers ", hip, "), wait in PreparingUpdate"))
		}
		d, a := updateInPlace(in, state, old, summary, RuleT4)
		if state == model.StatePreparingNormal {
			d.Note += " [quirk: a PreparingNormal pod is updated without its preNormal hook being checked again]"
		}
		return d, a
	case model.StateUpdated:
		if hip == nil {
			return UpdateDecision{Rule: RuleT9n, Note: "pod " + p.Name + " is Updated and there is no inPlaceUpdate hook: nothing this round (refresh moves it to Normal)"}, model.Action{}
		}
		d, a := toPreparingUpdate(in, state, hip, RuleT9, withMarkers("in-place update of an Updated pod: back to PreparingUpdate, re-adding the inPlaceUpdate hook markers (", hip, ")"))
		// W2 re-applies the hook: its labels and finalizers travel with the action.
		if len(hip.LabelsHandler) > 0 {
			a.SetLabels = make(map[string]string, len(hip.LabelsHandler))
			for k, v := range hip.LabelsHandler {
				a.SetLabels[k] = v
			}
		}
		a.AddFinalizers = append([]string(nil), hip.FinalizersHandler...)
		return d, a
	case model.StatePreparingUpdate:
		if l != nil && AnyHooked(hip, p) {
			return UpdateDecision{Rule: RuleT5w, Wait: true,
				Note: withMarkers("pod "+p.Name+" waits in PreparingUpdate: still hooked by inPlaceUpdate (markers ", hip, ")")}, model.Action{}
		}
		return updateInPlace(in, state, old, summary, RuleT5)
	case model.StateUpdating:
		return updateInPlace(in, state, old, summary, RuleT10)
	}
	return UpdateDecision{
		Rule: RuleTErr,
		Err:  fmt.Errorf("not allowed to in-place update pod %s in state %s", p.Name, state),
		Note: fmt.Sprintf("pod %s is in lifecycle state %q, which forbids an in-place update", p.Name, state),
	}, model.Action{}
}

// toPreparingUpdate moves a pod in lifecycle state state to PreparingUpdate
// before its in-place update (T3, T9); why is the reason. It returns the
// decision and its action apart, as decideUpdate.
func toPreparingUpdate(in UpdateInput, state string, hip *model.LifecycleHook, rule, why string) (UpdateDecision, model.Action) {
	p := in.Pod
	eff, key := NotReadyEffect(p, model.StatePreparingUpdate, markPodNotReady(hip))
	reason := withIgnored(withKey(why, eff, key, model.StatePreparingUpdate), p, markPodNotReady(hip))
	d := UpdateDecision{
		Rule: rule,
		Note: "pod " + p.Name + " (" + stateName(state) + ") enters PreparingUpdate before its in-place update to " + in.Target + ": " + reason,
	}
	return d, model.Action{
		Type: model.ActionSetLifecycleState, Pod: p.Name,
		From: state, To: model.StatePreparingUpdate, MarkPodNotReady: eff, Reason: reason,
	}
}

func stateName(s string) string {
	if s == "" {
		return "no lifecycle state"
	}
	return s
}

// updateInPlace updates a pod in lifecycle state state in place from
// revision old (T4, T5, T10). It returns the decision and its action apart,
// as decideUpdate.
func updateInPlace(in UpdateInput, state string, old *model.Revision, summary, rule string) (UpdateDecision, model.Action) {
	p := in.Pod
	g := GracePeriodSeconds(in.CloneSet)
	var reason string
	if g > 0 {
		reason = "rolling update in place: " + summary + "; grace period " + strconv.FormatInt(int64(g), 10) + "s"
	} else {
		reason = "rolling update in place: " + summary
	}
	d := UpdateDecision{
		Rule: rule,
		Note: "pod " + p.Name + " (" + stateName(state) + ") is updated in place from " + old.Name + " to " + in.Target + ": " + summary,
	}
	a := model.Action{
		Type: model.ActionUpdatePodInPlace, Pod: p.Name,
		FromRevision: old.Name, ToRevision: in.Target, GracePeriodSeconds: g, Reason: reason,
	}
	if l := model.RevisionLabelValue(in.Target, in.Gates); l != in.Target {
		a.RevisionLabel = l
	}
	if g > 0 {
		d.RequeueAfter = time.Duration(g) * time.Second
	}
	return d, a
}
