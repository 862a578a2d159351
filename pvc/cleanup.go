package pvc

import (
	"slices"
	"strings"

	"github.com/clonecore/cloneset/model"
)

// ReasonCleanup is the common prefix of the reason texts of clean-up actions
// (scale-and-budgets.md 4.2).
const ReasonCleanup = "PVC clean-up"

// ReuseEnabled reports whether the CloneSet reuses the PVCs of pods that
// disappeared without the CloneSet deleting them: spec.scaleStrategy.enablePVCReuse
// of the internal (v1beta1) shape. For objects read as v1alpha1 the loader has
// already set it to NOT disablePVCReuse (LSV 5.2), so a v1alpha1 CloneSet reuses
// by default and a v1beta1 one does not. A nil CloneSet does not reuse.
func ReuseEnabled(cs *model.CloneSet) bool {
	return cs != nil && cs.Spec.ScaleStrategy.EnablePVCReuse
}

// IsOwnedBy reports whether the PVC has a controller owner reference to the
// CloneSet (model.OwnerReference.OwnedBy). Nil arguments are never owned.
func IsOwnedBy(pvc *model.PVC, cs *model.CloneSet) bool {
	if pvc == nil || cs == nil {
		return false
	}
	return model.ControllerRef(pvc.OwnerReferences).OwnedBy(cs)
}

// Owned returns the CloneSet's owned PVCs in canonical order (ascending name):
// those with a controller owner reference to it and no deletionTimestamp
// (scale-and-budgets.md section 0, upstream getOwnedPVCs). Nil entries are
// skipped; of several PVCs with one name only the first in input order is kept.
func Owned(cs *model.CloneSet, pvcs []*model.PVC) []*model.PVC {
	out := make([]*model.PVC, 0, len(pvcs))
	seen := make(map[string]struct{}, len(pvcs))
	for _, c := range pvcs {
		if !IsOwnedBy(c, cs) || !c.DeletionTimestamp.IsZero() {
			continue
		}
		if _, dup := seen[c.Name]; dup {
			continue
		}
		seen[c.Name] = struct{}{}
		out = append(out, c)
	}
	sortByName(out)
	return out
}

func sortByName(pvcs []*model.PVC) {
	slices.SortFunc(pvcs, func(a, b *model.PVC) int { return strings.Compare(a.Name, b.Name) })
}

// Usable returns V, the PVCs the scale phase sees (scale-and-budgets.md 5.4),
// and the clean-up actions of the round. With reuse enabled V is every owned,
// non-terminating PVC and there is no action; with reuse disabled it is the
// result of Cleanup. The arguments are those of Cleanup.
func Usable(cs *model.CloneSet, activePods, inactive []*model.Pod, owned []*model.PVC) ([]*model.PVC, []model.Action) {
	if ReuseEnabled(cs) {
		return Owned(cs, owned), nil
	}
	return Cleanup(cs, activePods, inactive, owned)
}

// Reown returns a copy of the PVC as a SetPVCOwner action leaves it
// (scale-and-budgets.md 5.4): the owner references designating the CloneSet
// removed and a controller reference to the pod appended (apiVersion v1, kind
// Pod). Labels and annotations are copied, not shared. It is meant for
// simulators that apply plans; a nil PVC or pod yields nil.
func Reown(c *model.PVC, cs *model.CloneSet, pod *model.Pod) *model.PVC {
	if c == nil || pod == nil {
		return nil
	}
	out := *c
	out.Labels = copyMap(c.Labels)
	out.Annotations = copyMap(c.Annotations)
	out.OwnerReferences = make([]model.OwnerReference, 0, len(c.OwnerReferences)+1)
	for _, r := range c.OwnerReferences {
		if designates(r, cs) {
			continue
		}
		out.OwnerReferences = append(out.OwnerReferences, r)
	}
	out.OwnerReferences = append(out.OwnerReferences, model.OwnerReference{
		APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: true,
	})
	return &out
}

// designates reports whether an owner reference (controller or not) points at
// the CloneSet: same UID, or, when either UID is empty, kind CloneSet and the
// CloneSet's name.
func designates(r model.OwnerReference, cs *model.CloneSet) bool {
	if cs == nil {
		return false
	}
	if r.UID != "" && cs.UID != "" {
		return r.UID == cs.UID
	}
	return r.Kind == "CloneSet" && r.Name == cs.Name
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Cleanup is the PVC clean-up of a round with reuse disabled
// (scale-and-budgets.md 5.4, upstream cleanupPVCs). Its inputs are
//
//   - activePods: the CloneSet's owned active pods, including those that no
//     longer match the selector (clean-up runs before they are released);
//   - inactive: the owned pods that are terminating or terminal;
//   - owned: the PVCs owned by the CloneSet. The list is filtered again with
//     Owned, so PVCs with a deletionTimestamp or owned by something else (a pod,
//     after an earlier re-owning) are never touched, whatever the caller passes.
//
// Walking the owned PVCs in canonical order, a PVC whose instance id is that of
// an active pod is kept (it goes to V); else, if its id is that of an inactive
// pod, a SetPVCOwner action hands it to that pod (the greatest pod name wins when
// several inactive pods share the id, rule N12) and garbage collection removes it
// with the pod; otherwise (no pod of that id, or no instance-id label) it gets a
// DeletePVC action. Empty ids never match. Actions come in canonical PVC order.
//
// With reuse enabled (ReuseEnabled) there is no clean-up: V is every owned PVC
// and actions is nil. Cleanup also runs for a CloneSet being deleted (4.1 step
// 3). A nil CloneSet owns nothing: both results are empty.
func Cleanup(cs *model.CloneSet, activePods, inactive []*model.Pod, owned []*model.PVC) (usable []*model.PVC, actions []model.Action) {
	all := Owned(cs, owned)
	if ReuseEnabled(cs) || len(all) == 0 {
		return all, nil
	}
	active := make(map[string]struct{}, len(activePods))
	for _, p := range activePods {
		if id := podID(p); id != "" {
			active[id] = struct{}{}
		}
	}
	byID := make(map[string]*model.Pod, len(inactive))
	for _, p := range inactive {
		id := podID(p)
		if id == "" {
			continue
		}
		if prev, ok := byID[id]; !ok || p.Name > prev.Name {
			byID[id] = p
		}
	}
	usable = make([]*model.PVC, 0, len(all))
	for _, c := range all {
		id := InstanceIDOf(c)
		if id == "" {
			actions = append(actions, model.Action{Type: model.ActionDeletePVC, PVC: c.Name,
				Reason: ReasonCleanup + ": no instance-id label"})
			continue
		}
		if _, ok := active[id]; ok {
			usable = append(usable, c)
			continue
		}
		if p, ok := byID[id]; ok {
			actions = append(actions, model.Action{Type: model.ActionSetPVCOwner, PVC: c.Name, Pod: p.Name,
				Reason: ReasonCleanup + ": instance id " + id + " belongs to inactive pod " + p.Name})
			continue
		}
		actions = append(actions, model.Action{Type: model.ActionDeletePVC, PVC: c.Name,
			Reason: ReasonCleanup + ": no pod with instance id " + id})
	}
	return usable, actions
}
