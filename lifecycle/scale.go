package lifecycle

import (
	"fmt"

	"github.com/clonecore/cloneset/model"
)

// RemovePod is what the scale phase does to a pod it decided to remove
// (scale-and-budgets 4.5; lifecycle-status-validation 1.7a DeleteOrPreDelete).
// reason is the caller's reason ("scale in", "specified delete", ...).
//
//   - spec.lifecycle present and AnyHooked(preDelete): the pod goes to PreparingDelete
//     instead of being deleted (T11): one SetLifecycleState whose MarkPodNotReady is
//     the effective flag of preDelete.markPodNotReady; changed. For a pod already in
//     PreparingDelete (T11r) there is no label change and nothing is emitted, unless
//     the flag would add a missing preDeleteHook key: then a SetLifecycleState with
//     from == to and MarkPodNotReady true is emitted; not changed either way
//     (scale-and-budgets 4.7).
//   - otherwise the pod is deleted with the given PVCs (T12): one DeletePod; changed.
//     deletePVCs is copied as given (the caller orders it).
func RemovePod(cs *model.CloneSet, p *model.Pod, deletePVCs []string, reason string) (actions []model.Action, changed bool) {
	acts, changed := AppendRemovePod(nil, cs, p, nil, deletePVCs, reason)
	if len(acts) == 0 {
		return nil, changed
	}
	return acts, changed
}

// RemovalFacts are what RemovePod reads of a pod besides its name, for a
// caller that knows them already (clonesetcore.Tracker keeps them per pod):
// AppendRemovePod then reads the pod only when it goes to PreparingDelete
// (for the not-ready key and the reason).
type RemovalFacts struct {
	// State is the pod's lifecycle state label (model.Pod.LifecycleState).
	State string
	// PreDeleteHooked is AnyHooked(spec.lifecycle.preDelete, pod) for the
	// CloneSet given.
	PreDeleteHooked bool
}

// AppendRemovePod is RemovePod appending its action to dst (which it
// returns, grown), for a caller collecting the actions of many pods without
// a slice per pod. facts, when not nil, are the pod's RemovalFacts, which
// are then not read from the pod.
func AppendRemovePod(dst []model.Action, cs *model.CloneSet, p *model.Pod, facts *RemovalFacts, deletePVCs []string, reason string) ([]model.Action, bool) {
	if cs == nil || p == nil {
		return dst, false
	}
	var f RemovalFacts
	if facts != nil {
		f = *facts
	} else {
		f.State = p.LifecycleState()
		if l := cs.Spec.Lifecycle; l != nil {
			f.PreDeleteHooked = AnyHooked(l.PreDelete, p)
		}
	}
	if l := cs.Spec.Lifecycle; l != nil && f.PreDeleteHooked {
		from := f.State
		eff, key := NotReadyEffect(p, model.StatePreparingDelete, l.PreDelete.MarkPodNotReady)
		if from == model.StatePreparingDelete {
			if !eff {
				return dst, false
			}
			return append(dst, model.Action{
				Type: model.ActionSetLifecycleState, Pod: p.Name,
				From: from, To: from, MarkPodNotReady: true,
				Reason: withKey(withMarkers(reason+": still hooked by preDelete (markers ", l.PreDelete, "), stays in PreparingDelete; not-ready key missing"), eff, key, from),
			}), false
		}
		return append(dst, model.Action{
			Type: model.ActionSetLifecycleState, Pod: p.Name,
			From: from, To: model.StatePreparingDelete, MarkPodNotReady: eff,
			Reason: withIgnored(withKey(withMarkers(reason+": preDelete hook (markers ", l.PreDelete, "), wait in PreparingDelete instead of deleting"), eff, key, model.StatePreparingDelete), p, l.PreDelete.MarkPodNotReady),
		}), true
	}
	why := reason
	if f.State == model.StatePreparingDelete {
		why += ": preDelete hook released"
	}
	return append(dst, model.Action{
		Type:       model.ActionDeletePod,
		Pod:        p.Name,
		DeletePVCs: append([]string{}, deletePVCs...),
		Reason:     why,
	}), true
}

// CancelPreDelete is the first step of the scale phase (scale-and-budgets S1b;
// lifecycle-status-validation 1.7a CancelPreDelete, T13). preparingDelete lists the
// observed pods in PreparingDelete in canonical order; specifiedDelete tells whether
// a pod is specified-delete (label or podsToDelete; nil means the label only);
// replicas is spec.replicas, observed the number of observed pods and numToDelete
// the number of distinct observed pods that are specified-delete or in
// PreparingDelete.
//
// Nothing happens when preDelete or inPlaceUpdate has markPodNotReady. Otherwise,
// with d = replicas − observed + numToDelete, the pods are walked in order: stop when
// d ≤ 0; skip specified-delete pods; move the others back to PreparingNormal
// (markPodNotReady false) and decrement d. Every action returned counts as changed.
func CancelPreDelete(cs *model.CloneSet, preparingDelete []*model.Pod, specifiedDelete func(*model.Pod) bool, replicas, observed, numToDelete int) []model.Action {
	if cs == nil {
		return nil
	}
	if l := cs.Spec.Lifecycle; l != nil && (markPodNotReady(l.PreDelete) || markPodNotReady(l.InPlaceUpdate)) {
		return nil
	}
	if specifiedDelete == nil {
		specifiedDelete = (*model.Pod).HasSpecifiedDeleteLabel
	}
	var out []model.Action
	d := replicas - observed + numToDelete
	for _, p := range preparingDelete {
		if d <= 0 {
			break
		}
		if p == nil || p.LifecycleState() != model.StatePreparingDelete || specifiedDelete(p) {
			continue
		}
		out = append(out, model.Action{
			Type: model.ActionSetLifecycleState, Pod: p.Name,
			From: model.StatePreparingDelete, To: model.StatePreparingNormal,
			Reason: fmt.Sprintf("cancel pre-delete: %d pod(s) missing if planned deletions are ignored (replicas %d − observed %d + to delete %d)",
				d, replicas, observed, numToDelete),
		})
		d--
	}
	return out
}
