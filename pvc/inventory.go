package pvc

import (
	"time"

	"github.com/clonecore/cloneset/model"
)

// Inventory is the PVC work of one round of a CloneSet in one value: it reads
// the instance id of every pod and PVC once, and answers the clean-up
// (Cleanup, docs/spec/scale-and-budgets.md 5.4), the set V with its Index, and the id
// allocation of a scale-out (AllocateIDs, 5.5 and 7.2) from what it read.
// The answers are those of the package's functions on the same inputs; a
// planner that needs several of them reads each pod and PVC once instead of
// once per function.
//
// Build it with NewInventory. Its methods do not modify the pods, the PVCs or
// the Inventory's answers: Cleanup, Usable and Index compute V once and
// return the same results on every call, and Allocate depends only on its
// arguments.
// An Inventory is not safe for concurrent use.
type Inventory struct {
	cs       *model.CloneSet
	ids      *idTable
	inactive map[string]*model.Pod // id -> the inactive pod of the greatest name
	owned    []claim               // owned, non-terminating PVCs, canonical order (until cleanup)

	done    bool
	kept    []claim // V, canonical order
	actions []model.Action
	index   *Index
}

// RoundPods are the pods of a round, as NewInventory takes them.
type RoundPods struct {
	// Observed are the active owned pods matching the selector.
	Observed []*model.Pod
	// ObservedIDs, when as long as Observed, holds the instance-id label of
	// each observed pod (same order), for a caller that has read the pods'
	// labels already: NewInventory then does not read them again. Otherwise
	// it is ignored.
	ObservedIDs []string
	// Released are the active owned pods that no longer match the selector:
	// clean-up keeps their PVCs, allocation does not count their ids
	// (docs/spec/scale-and-budgets.md 5.4, 5.5).
	Released []*model.Pod
	// Inactive are the owned pods that are terminating or terminal.
	Inactive []*model.Pod
}

// NewInventory reads the instance ids of a round: those of the pods, and
// those of pvcs, every PVC of the scenario. The ids of all PVCs are excluded
// from generated ids (7.2); the PVCs owned by the CloneSet without a
// deletionTimestamp are the owned PVCs of clean-up (Owned). Nil entries are
// skipped. The order of the slices does not matter.
func NewInventory(cs *model.CloneSet, pods RoundPods, pvcs []*model.PVC) *Inventory {
	x := &Inventory{cs: cs, ids: newIDTable(max(len(pods.Observed)+len(pods.Released)+len(pods.Inactive), len(pvcs)))}
	x.addPods(pods)
	x.owned = readClaims(cs, pvcs, x.ids)
	return x
}

// addPods reads the instance ids of the round's pods into the table.
func (x *Inventory) addPods(pods RoundPods) {
	given := len(pods.ObservedIDs) == len(pods.Observed)
	for i, p := range pods.Observed {
		switch {
		case p == nil:
		case given:
			x.ids.add(pods.ObservedIDs[i], idObserved)
		default:
			x.ids.add(p.InstanceID(), idObserved)
		}
	}
	for _, p := range pods.Released {
		x.ids.add(podID(p), idReleased)
	}
	x.inactive = make(map[string]*model.Pod, len(pods.Inactive))
	for _, p := range pods.Inactive {
		id := podID(p)
		if id == "" {
			continue
		}
		x.ids.add(id, idInactive)
		if prev, ok := x.inactive[id]; !ok || p.Name > prev.Name {
			x.inactive[id] = p
		}
	}
}

// Cleanup returns the clean-up actions of the round, those of Cleanup with
// the observed and released pods as activePods (nil with reuse enabled).
func (x *Inventory) Cleanup() []model.Action {
	x.cleanup()
	return x.actions
}

// Usable returns V, the PVCs the scale phase sees, in canonical order (a
// fresh slice): Cleanup's usable.
func (x *Inventory) Usable() []*model.PVC {
	x.cleanup()
	out := make([]*model.PVC, len(x.kept))
	for i, c := range x.kept {
		out[i] = c.pvc
	}
	return out
}

// Index returns the Index of V, built once.
func (x *Inventory) Index() *Index {
	x.cleanup()
	if x.index == nil {
		x.index = indexSorted(x.kept)
	}
	return x.index
}

// Allocate returns the n instance ids of a scale-out in the round at now:
// AllocateIDs with the observed and inactive pods, every PVC of the
// inventory and V. Released pods do not count, as with AllocateIDs.
func (x *Inventory) Allocate(now time.Time, n int) []Allocation {
	if n <= 0 {
		return nil
	}
	x.cleanup()
	var free []string
	for _, c := range x.kept {
		if c.id != "" && x.ids.getClaim(&c)&idObserved == 0 {
			free = append(free, c.id)
		}
	}
	free = sortedSet(free)
	t := x.ids
	if n > len(free) {
		t = t.clone() // generated ids are added to the table
	}
	return allocateFrom(SeedOf(x.cs, now), n, t, free, idSpace)
}

// cleanup computes V and the actions once (the loop of Cleanup).
func (x *Inventory) cleanup() {
	if x.done {
		return
	}
	x.done = true
	if ReuseEnabled(x.cs) {
		x.kept = x.owned
		return
	}
	x.kept = x.owned[:0] // written behind the loop's read position
	for _, c := range x.owned {
		id := c.id
		if id == "" {
			x.actions = append(x.actions, model.Action{Type: model.ActionDeletePVC, PVC: c.name,
				Reason: ReasonCleanup + ": no instance-id label"})
			continue
		}
		if x.ids.getClaim(&c)&idActive != 0 {
			x.kept = append(x.kept, c)
			continue
		}
		if p, ok := x.inactive[id]; ok {
			x.actions = append(x.actions, model.Action{Type: model.ActionSetPVCOwner, PVC: c.name, Pod: p.Name,
				Reason: ReasonCleanup + ": instance id " + id + " belongs to inactive pod " + p.Name})
			continue
		}
		x.actions = append(x.actions, model.Action{Type: model.ActionDeletePVC, PVC: c.name,
			Reason: ReasonCleanup + ": no pod with instance id " + id})
	}
}
