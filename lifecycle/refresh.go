package lifecycle

import (
	"github.com/clonecore/cloneset/model"
)

// Refresh is the lifecycle part of the update phase's refresh step for one pod
// (update-and-ordering 2.2 (b) and (c); lifecycle-status-validation 1.7a Refresh,
// transitions T2, T6, T7, T8). completed is the full "update completed" check of
// the pod (inplace.Completed); updateRevision is the name of the update revision U.
//
// It returns at most one SetLifecycleState (the transition, if any) followed by at
// most one PatchPod (the pod-template-hash repair: a pod without that label key gets
// it set to the short hash of its controller-revision-hash label). Both count as
// "changed": if any pod gets an action here, the update phase ends after the
// refresh step. The in-place bookkeeping of 2.2 (a) is inplace.Refresh.
//
// Transitions, written with markPodNotReady = inPlaceUpdate.markPodNotReady (W1),
// whose only possible effect is removing preUpdateHook when the target is Updated:
//   - PreparingNormal → Normal: without a preNormal hook when the pod is scheduled;
//     with one when AllHooked(preNormal) (scheduling not required) (T2);
//   - PreparingUpdate whose revision is U (T6) and Updating whose update completed
//     (T7) → Updated when spec.lifecycle is present and not
//     AllHooked(inPlaceUpdate), else Normal;
//   - Updated → Normal when spec.lifecycle or its inPlaceUpdate hook is absent, or
//     AllHooked(inPlaceUpdate) (T8);
//   - any other state ("", Normal, PreparingDelete, unknown): nothing.
func Refresh(cs *model.CloneSet, p *model.Pod, updateRevision string, completed bool) []model.Action {
	if cs == nil || p == nil {
		return nil
	}
	return RefreshInState(cs, p, p.LifecycleState(), updateRevision, completed)
}

// RefreshInState is Refresh for a caller that has already read the pod's
// lifecycle state label: state must be p.LifecycleState() (the label value,
// "" when absent). It saves reading the label again; the actions are those of
// Refresh(cs, p, updateRevision, completed).
func RefreshInState(cs *model.CloneSet, p *model.Pod, state, updateRevision string, completed bool) []model.Action {
	if cs == nil || p == nil {
		return nil
	}
	var out []model.Action
	if a, ok := refreshTransition(cs, p, state, updateRevision, completed); ok {
		out = append(out, a)
	}
	if _, ok := p.Labels[model.LabelPodTemplateHash]; !ok {
		out = append(out, model.Action{
			Type:      model.ActionPatchPod,
			Pod:       p.Name,
			SetLabels: map[string]string{model.LabelPodTemplateHash: model.ShortHash(p.RevisionLabel())},
			Reason:    "refresh: repair missing " + model.LabelPodTemplateHash + " label",
		})
	}
	return out
}

// RefreshNeeded reports whether RefreshInState can return an action for a
// pod in lifecycle state state that carries (hasTemplateHash) or lacks the
// pod-template-hash label key. It is false only for a state without a
// transition ("", Normal, PreparingDelete or an unknown state) on a pod with
// the label: a caller that reads each pod once may decide there to skip the
// refresh later.
func RefreshNeeded(state string, hasTemplateHash bool) bool {
	switch state {
	case model.StatePreparingNormal, model.StatePreparingUpdate, model.StateUpdating, model.StateUpdated:
		return true
	}
	return !hasTemplateHash
}

// refreshTransition is the transition of a pod in lifecycle state from, if any.
func refreshTransition(cs *model.CloneSet, p *model.Pod, from, updateRevision string, completed bool) (model.Action, bool) {
	l := cs.Spec.Lifecycle
	var hip, hpn *model.LifecycleHook
	if l != nil {
		hip, hpn = l.InPlaceUpdate, l.PreNormal
	}
	var to, why string
	switch from {
	case model.StatePreparingNormal:
		switch {
		case hpn == nil && p.IsScheduled():
			to, why = model.StateNormal, "pod scheduled, no preNormal hook"
		case hpn != nil && AllHooked(hpn, p):
			to, why = model.StateNormal, withMarkers("preNormal hook satisfied (markers ", hpn, ")")
			if !p.IsScheduled() {
				why += ", scheduling not required"
			}
		default:
			return model.Action{}, false
		}
	case model.StatePreparingUpdate, model.StateUpdating:
		if from == model.StatePreparingUpdate {
			if !p.InRevision(updateRevision) {
				return model.Action{}, false
			}
			why = "pod already at update revision " + updateRevision + " while waiting in PreparingUpdate (rolled back)"
		} else {
			if !completed {
				return model.Action{}, false
			}
			why = "in-place update completed"
		}
		switch {
		case l != nil && hip == nil:
			to = model.StateUpdated
			why += "; lifecycle set without an inPlaceUpdate hook: Updated now, Normal next round [quirk]"
		case l != nil && !AllHooked(hip, p):
			to = model.StateUpdated
			why += withMarkers("; inPlaceUpdate hook not all hooked (markers ", hip, "), wait in Updated")
		case l == nil:
			to = model.StateNormal
			why += "; no lifecycle"
		default:
			to = model.StateNormal
			why += "; inPlaceUpdate hook all hooked"
		}
	case model.StateUpdated:
		switch {
		case l == nil:
			to, why = model.StateNormal, "no lifecycle"
		case hip == nil:
			to, why = model.StateNormal, "no inPlaceUpdate hook"
		case AllHooked(hip, p):
			to, why = model.StateNormal, "inPlaceUpdate hook all hooked again"
		default:
			return model.Action{}, false
		}
	default:
		return model.Action{}, false
	}
	flag := markPodNotReady(hip)
	eff, key := NotReadyEffect(p, to, flag)
	reason := withKey("refresh: "+why, eff, key, to)
	if to == model.StateNormal && flag && p.Spec.HasReadinessGate(model.ConditionKruisePodReady) &&
		notReadyKeyListed(p, KeyPreUpdateHook) {
		reason += "; not-ready key " + KeyPreUpdateHook + " stays on the pod [quirk: NotReady key leak, LSV 8.2]"
	}
	return model.Action{
		Type:            model.ActionSetLifecycleState,
		Pod:             p.Name,
		From:            from,
		To:              to,
		MarkPodNotReady: eff,
		Reason:          reason,
	}, true
}
