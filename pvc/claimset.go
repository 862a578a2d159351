package pvc

import "github.com/clonecore/cloneset/model"

// ClaimSet is the PVCs of a scenario read once, for a caller that keeps them
// across rounds while they do not change (clonesetcore.Tracker):
// NewInventoryFrom builds a round's Inventory from it without reading any
// PVC. A ClaimSet is not modified by the Inventories built from it.
type ClaimSet struct {
	ids   *idTable // the instance ids of every PVC (idClaim)
	owned []claim  // owned, non-terminating, one per name, canonical order
}

// NewClaimSet reads the PVCs of a scenario as NewInventory does: the ids of
// all PVCs, and those owned by cs without a deletionTimestamp. Nil entries
// are skipped; of several PVCs with one name the first in the order given
// is owned.
func NewClaimSet(cs *model.CloneSet, pvcs []*model.PVC) *ClaimSet {
	s := &ClaimSet{ids: newIDTable(len(pvcs))}
	s.owned = readClaims(cs, pvcs, s.ids)
	return s
}

// readClaims reads pvcs, every PVC of a scenario: it adds the instance id of
// each to ids (idClaim) and returns the PVCs owned by cs without a
// deletionTimestamp, deduplicated by name in canonical order (nil entries
// are skipped).
func readClaims(cs *model.CloneSet, pvcs []*model.PVC, ids *idTable) []claim {
	all := make([]claim, 0, len(pvcs))
	for i, c := range pvcs {
		if c == nil {
			continue
		}
		k := newClaim(c, InstanceIDOf(c), i)
		ids.addClaim(&k, idClaim)
		if IsOwnedBy(c, cs) && c.DeletionTimestamp.IsZero() {
			all = append(all, k)
		}
	}
	return dedupeClaims(all)
}

// NewInventoryFrom returns the Inventory NewInventory(cs, pods, pvcs) returns
// when set is NewClaimSet(cs, pvcs), reading only the pods.
func NewInventoryFrom(cs *model.CloneSet, pods RoundPods, set *ClaimSet) *Inventory {
	x := &Inventory{cs: cs, ids: set.ids.cloneFor(len(pods.Observed) + len(pods.Released) + len(pods.Inactive))}
	x.addPods(pods)
	x.owned = append([]claim(nil), set.owned...) // cleanup writes over it
	return x
}

// cloneFor returns an independent copy with room for extra more ids.
func (t *idTable) cloneFor(extra int) *idTable {
	if 4*(t.count+extra) <= 3*len(t.slots) {
		return t.clone()
	}
	c := &idTable{}
	c.init(t.count + extra)
	for _, s := range t.slots {
		if s != 0 {
			c.addNum(s&slotNumMask-1, uint8(s>>slotNumBits))
		}
	}
	for id, f := range t.other {
		if c.other == nil {
			c.other = make(map[string]uint8, len(t.other))
		}
		c.other[id] = f
	}
	return c
}
