package pvc

import (
	"maps"

	"github.com/clonecore/cloneset/model"
)

// ReasonCleanup is the common prefix of the reason texts of clean-up actions
// (docs/spec/scale-and-budgets.md 4.2).
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
// (docs/spec/scale-and-budgets.md section 0, upstream getOwnedPVCs). Nil entries are
// skipped; of several PVCs with one name only the first in input order is kept.
func Owned(cs *model.CloneSet, pvcs []*model.PVC) []*model.PVC {
	claims := ownedClaims(cs, pvcs)
	out := make([]*model.PVC, len(claims))
	for i, c := range claims {
		out[i] = c.pvc
	}
	return out
}

// claim is a PVC with its name and instance id, read once: the steps that
// walk many PVCs in name order read these records instead of the PVCs.
type claim struct {
	pvc      *model.PVC
	name, id string
	index    int32 // position in the caller's list (ownedClaims)
	num      int32 // the number of a generated-form id (decodeID), else -1
}

// newClaim is the record of PVC c, whose instance id is id, at position
// index of the caller's list.
func newClaim(c *model.PVC, id string, index int) claim {
	num := int32(-1)
	if v, ok := decodeID(id); ok {
		num = int32(v)
	}
	return claim{pvc: c, name: c.Name, id: id, index: int32(index), num: num}
}

// ownedClaims is Owned, with the PVCs read in the order given (sequential
// memory) and the records sorted by name. Of several PVCs with one name, the
// first in the order given is kept: its records are adjacent once sorted.
func ownedClaims(cs *model.CloneSet, pvcs []*model.PVC) []claim {
	all := make([]claim, 0, len(pvcs))
	for i, c := range pvcs {
		if IsOwnedBy(c, cs) && c.DeletionTimestamp.IsZero() {
			all = append(all, newClaim(c, InstanceIDOf(c), i))
		}
	}
	return dedupeClaims(all)
}

// dedupeClaims sorts claims by name and keeps, of several claims with one
// name, the one given first (lowest index). It reuses the slice.
func dedupeClaims(all []claim) []claim {
	sortClaims(all)
	out := all[:0]
	for _, c := range all {
		switch last := len(out) - 1; {
		case last < 0 || out[last].name != c.name:
			out = append(out, c)
		case c.index < out[last].index:
			out[last] = c
		}
	}
	return out
}

// sortClaims sorts by name in the order slices.SortFunc by name gives (PVCs
// sharing a name keep the relative order they always had).
func sortClaims(claims []claim) {
	model.SortByName(claims, func(c claim) string { return c.name })
}

// Usable returns V, the PVCs the scale phase sees (docs/spec/scale-and-budgets.md 5.4),
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
// (docs/spec/scale-and-budgets.md 5.4): the owner references designating the CloneSet
// removed and a controller reference to the pod appended (apiVersion v1, kind
// Pod). Labels and annotations are copied, not shared. It is meant for
// simulators that apply plans; a nil PVC or pod yields nil.
func Reown(c *model.PVC, cs *model.CloneSet, pod *model.Pod) *model.PVC {
	if c == nil || pod == nil {
		return nil
	}
	out := *c
	out.Labels = maps.Clone(c.Labels)
	out.Annotations = maps.Clone(c.Annotations)
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

// Cleanup is the PVC clean-up of a round with reuse disabled
// (docs/spec/scale-and-budgets.md 5.4, upstream cleanupPVCs). Its inputs are
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
	x := NewInventory(cs, RoundPods{Observed: activePods, Inactive: inactive}, owned)
	return x.Usable(), x.Cleanup()
}

// CleanupIndexed is Cleanup that also returns NewIndex(usable), built from
// what Cleanup has read: the PVCs' instance ids are read once and the PVCs
// sorted once for both. It returns the PVCs of V in the order of owned, not
// in canonical order: a caller that reads every PVC of V again (AllocateIDs)
// then reads memory in the order the PVCs were given. NewInventory serves a
// whole round (clean-up, index and allocation) with fewer reads.
func CleanupIndexed(cs *model.CloneSet, activePods, inactive []*model.Pod, owned []*model.PVC) (usable []*model.PVC, actions []model.Action, index *Index) {
	x := NewInventory(cs, RoundPods{Observed: activePods, Inactive: inactive}, owned)
	x.cleanup()
	in := make([]bool, len(owned))
	for _, c := range x.kept {
		in[c.index] = true
	}
	usable = make([]*model.PVC, 0, len(x.kept))
	for i, c := range owned {
		if in[i] {
			usable = append(usable, c)
		}
	}
	return usable, x.actions, x.Index()
}
