package partition

import (
	"fmt"

	"github.com/clonecore/cloneset/model"
)

// world is one input of the invariant tests with what the checks need to know
// about it independently of the code under test.
type world struct {
	in Input
	// params is Resolve(in.CloneSet) when the caller computed it once for
	// many worlds; nil means "compute it".
	params *Params
	// rest reports whether, by construction, every pod is available, none is
	// PreparingDelete or specified-delete, and the old/new split is exactly
	// P / R-P with R pods in total (the "CloneSet at rest" of 3.8). Only the
	// exhaustive enumeration knows this; elsewhere it is false.
	rest bool
	// hasToDel reports whether, by construction, some pod is specified-delete
	// and not PreparingDelete (toDel > 0). -1 when unknown.
	hasToDel int
}

// results are the budgets computed for one world.
type results struct {
	scale    Budget // Compute(in, ScaleVariant)
	update   Budget // Compute(in, UpdateVariant)
	permuted Budget // Compute(in with the pods permuted, ScaleVariant)
}

// invariant is one named property every world must satisfy.
type invariant struct {
	name string
	// ok reports whether the property holds.
	ok func(w *world, r *results) bool
}

// budgetsOf returns both variant budgets of a result, for checks that must
// hold for either.
func budgetsOf(r *results) [2]Budget { return [2]Budget{r.scale, r.update} }

func rollbackEffective(w *world) bool {
	return w.in.Gates.CloneSetPartitionRollback && w.in.CurrentRevision != w.in.UpdateRevision
}

// invariants are the properties of section 3.8 and of the brief, each with a
// name printed with the counter-example on failure.
var invariants = []invariant{
	{"scaleUpLimit <= scaleUp", func(_ *world, r *results) bool {
		for _, b := range budgetsOf(r) {
			if b.ScaleUpLimit > b.ScaleUp || b.ScaleUpLimit < 0 {
				return false
			}
		}
		return true
	}},
	{"never both scaleUp and scaleDown", func(_ *world, r *results) bool {
		for _, b := range budgetsOf(r) {
			if b.ScaleUp > 0 && b.ScaleDown > 0 {
				return false
			}
		}
		return true
	}},
	{"0 <= useSurge <= max(maxSurge, 0)", func(_ *world, r *results) bool {
		for _, b := range budgetsOf(r) {
			if b.UseSurge < 0 || b.UseSurge > max(b.MaxSurge, 0) {
				return false
			}
		}
		return true
	}},
	{"0 <= useSurgeOldRevision <= useSurge", func(_ *world, r *results) bool {
		for _, b := range budgetsOf(r) {
			if b.UseSurgeOldRevision < 0 || b.UseSurgeOldRevision > b.UseSurge {
				return false
			}
		}
		return true
	}},
	{"scaleUpOldRevision and scaleDownOldRevision never negative", func(_ *world, r *results) bool {
		for _, b := range budgetsOf(r) {
			if b.ScaleUpOldRevision < 0 || b.ScaleDownOldRevision < 0 {
				return false
			}
		}
		return true
	}},
	{"scaleUp, scaleDown, deleteReadyLimit never negative", func(_ *world, r *results) bool {
		for _, b := range budgetsOf(r) {
			if b.ScaleUp < 0 || b.ScaleDown < 0 || b.DeleteReadyLimit < 0 {
				return false
			}
		}
		return true
	}},
	{"updateNum never negative without effective rollback", func(w *world, r *results) bool {
		if rollbackEffective(w) {
			return true
		}
		for _, b := range budgetsOf(r) {
			if b.UpdateNum < 0 {
				return false
			}
		}
		return true
	}},
	{"updateNum == 0 implies updateMaxUnavailable == 0", func(_ *world, r *results) bool {
		for _, b := range budgetsOf(r) {
			if b.UpdateNum == 0 && b.UpdateMaxUnavailable != 0 {
				return false
			}
		}
		return true
	}},
	{"updateMaxUnavailable == U + |Pods| - R when updateNum != 0", func(w *world, r *results) bool {
		n := 0
		for _, p := range w.in.Pods {
			if p != nil {
				n++
			}
		}
		for _, b := range budgetsOf(r) {
			if b.UpdateNum != 0 && b.UpdateMaxUnavailable != b.MaxUnavailable+n-b.Replicas {
				return false
			}
		}
		return true
	}},
	{"scaleUpLimit <= max(scaleMaxUnavailable, 0)", func(_ *world, r *results) bool {
		for _, b := range budgetsOf(r) {
			if b.ScaleUpLimit > max(b.ScaleMaxUnavailable, 0) {
				return false
			}
		}
		return true
	}},
	{"deleteReadyLimit only with toDel or scaleDown", func(w *world, r *results) bool {
		if w.hasToDel != 0 {
			return true
		}
		for _, b := range budgetsOf(r) {
			if b.DeleteReadyLimit > 0 && b.ScaleDown == 0 {
				return false
			}
		}
		return true
	}},
	{"resolved inputs equal Resolve", func(w *world, r *results) bool {
		var p Params
		if w.params != nil {
			p = *w.params
		} else {
			p = Resolve(w.in.CloneSet)
		}
		for _, b := range budgetsOf(r) {
			if b.Replicas != p.Replicas || b.Partition != p.Partition || b.MaxSurge != p.MaxSurge ||
				b.MaxUnavailable != p.MaxUnavailable || b.ScaleMaxUnavailable != p.ScaleMaxUnavailable {
				return false
			}
		}
		return true
	}},
	{"a CloneSet at rest has an empty record", func(w *world, r *results) bool {
		if !w.rest {
			return true
		}
		for _, b := range budgetsOf(r) {
			empty := Budget{Replicas: b.Replicas, Partition: b.Partition, MaxSurge: b.MaxSurge,
				MaxUnavailable: b.MaxUnavailable, ScaleMaxUnavailable: b.ScaleMaxUnavailable}
			if b != empty {
				return false
			}
		}
		return true
	}},
	{"variants agree without PreparingUpdateAsUpdate", func(w *world, r *results) bool {
		return w.in.Gates.PreparingUpdateAsUpdate || r.scale == r.update
	}},
	{"budget independent of pod order", func(_ *world, r *results) bool {
		return r.permuted == r.scale
	}},
}

// evaluate computes the results of a world, with permutedPods (the same pods
// in another order) for the permutation check, and returns the names of the
// violated invariants (nil when all hold).
func evaluate(w *world, permutedPods []*model.Pod) (results, []string) {
	perm := w.in
	perm.Pods = permutedPods
	r := results{
		scale:    Compute(w.in, ScaleVariant),
		update:   Compute(w.in, UpdateVariant),
		permuted: Compute(perm, ScaleVariant),
	}
	return r, violated(w, &r)
}

func violated(w *world, r *results) []string {
	var bad []string
	for _, inv := range invariants {
		if !inv.ok(w, r) {
			bad = append(bad, inv.name)
		}
	}
	return bad
}

// counterExample renders a failing world for the test log.
func counterExample(w *world, r *results, bad []string) string {
	return fmt.Sprintf("violated %q\n  world: %s\n  scale:    %+v\n  update:   %+v\n  permuted: %+v",
		bad, describeInput(w.in), r.scale, r.update, r.permuted)
}
