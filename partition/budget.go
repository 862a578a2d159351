package partition

// Budget is the budget of one reconcile: the resolved inputs R, P, S, U, SU and
// the results of the diff arithmetic of docs/spec/scale-and-budgets.md section 3, under
// the JSON names of the plan's "budget" object (docs/spec/scenario-format.md section 2).
// All fields are pod counts. A CloneSet at rest has every field after
// ScaleMaxUnavailable at 0.
type Budget struct {
	// Replicas is R, the desired replicas.
	Replicas int `json:"replicas"`
	// Partition is P, the pods to keep at the current revision.
	Partition int `json:"partition"`
	// MaxSurge is S, the pods allowed above R (0 while paused).
	MaxSurge int `json:"maxSurge"`
	// MaxUnavailable is U, the update budget.
	MaxUnavailable int `json:"maxUnavailable"`
	// ScaleMaxUnavailable is SU, the scale-out budget (2147483647 when unset).
	ScaleMaxUnavailable int `json:"scaleMaxUnavailable"`
	// ScaleUp is the number of pods to create (3.4).
	ScaleUp int `json:"scaleUp"`
	// ScaleUpOldRevision is how many of the created pods should carry the
	// current revision. It is a wish and may exceed ScaleUp.
	ScaleUpOldRevision int `json:"scaleUpOldRevision"`
	// ScaleUpLimit is how many pods this round may actually create:
	// min(ScaleUp, max(SU - T_unav, 0)).
	ScaleUpLimit int `json:"scaleUpLimit"`
	// ScaleDown is the number of pods to delete beyond the specified-delete
	// ones (3.5).
	ScaleDown int `json:"scaleDown"`
	// ScaleDownOldRevision is how many of the deleted pods should be
	// current-revision pods. It is a wish and may exceed ScaleDown.
	ScaleDownOldRevision int `json:"scaleDownOldRevision"`
	// DeleteReadyLimit is how many ready pods may be deleted this round (3.6);
	// unready pods are never charged.
	DeleteReadyLimit int `json:"deleteReadyLimit"`
	// UseSurge is how much of S this round uses (3.2).
	UseSurge int `json:"useSurge"`
	// UseSurgeOldRevision is how much of UseSurge goes to the current revision.
	UseSurgeOldRevision int `json:"useSurgeOldRevision"`
	// UpdateNum is how many pods the update phase should move to the update
	// revision; negative means that many should move back to the current
	// revision (only with the CloneSetPartitionRollback gate) (3.7).
	UpdateNum int `json:"updateNum"`
	// UpdateMaxUnavailable is the unavailability budget of the update phase,
	// U + |Pods| - R when UpdateNum is not 0, else 0. It may be negative.
	UpdateMaxUnavailable int `json:"updateMaxUnavailable"`
}

// Flags are the two booleans the arithmetic reads besides Params and Counters.
type Flags struct {
	// Rollback allows the update diffs to move pods back (1.7, see Rollback).
	Rollback bool
	// ExcludePreparingDelete leaves PreparingDelete pods out of the current
	// totals (1.8, see ExcludePreparingDelete).
	ExcludePreparingDelete bool
}

// Compute returns the whole budget of one reconcile under the variant:
// Resolve, Count and Diff in one call. It is O(len(in.Pods)), pure, and
// independent of the order of in.Pods.
func Compute(in Input, v Variant) Budget {
	return Diff(resolve(in.CloneSet, false), Count(in, v), FlagsFor(in))
}

// FlagsFor returns the Flags of an input: Rollback from the gates and the two
// revision names, ExcludePreparingDelete from the CloneSet and the controller
// flags.
func FlagsFor(in Input) Flags {
	return Flags{
		Rollback:               Rollback(in.Gates, in.CurrentRevision, in.UpdateRevision),
		ExcludePreparingDelete: ExcludePreparingDelete(in.CloneSet, in.Controller),
	}
}

// Diff is the diff calculation of docs/spec/scale-and-budgets.md section 3 on resolved
// parameters and pod counters. It copies R, P, S, U and SU into the budget.
// The integer arithmetic is the controller's, so extreme inputs (for example a
// percentage whose value overflows) wrap exactly as they do upstream.
func Diff(p Params, c Counters, f Flags) Budget {
	b := Budget{
		Replicas:            p.Replicas,
		Partition:           p.Partition,
		MaxSurge:            p.MaxSurge,
		MaxUnavailable:      p.MaxUnavailable,
		ScaleMaxUnavailable: p.ScaleMaxUnavailable,
	}
	r, part, s, u := p.Replicas, p.Partition, p.MaxSurge, p.MaxUnavailable
	toDel := c.ToDel()
	unav := c.Unavailable()

	// 3.1 update diffs.
	oldDiff := c.ActOld - part
	newDiff := c.ActNew - (r - part)
	if !f.Rollback {
		oldDiff = max(oldDiff, 0)
		newDiff = min(newDiff, 0)
	}

	// 3.2 surge.
	if s > 0 {
		var scaleSurge, scaleSurgeOld int
		if toDel > 0 {
			scaleSurge = min(max(unav+toDel-u, 0), toDel)
			if scaleSurge > c.ToDelNew {
				scaleSurgeOld = scaleSurge - c.ToDelNew
			}
		}
		var updSurge, updSurgeOld int
		if oppositeSigns(oldDiff, newDiff) {
			if abs(oldDiff) <= abs(newDiff) {
				updSurge = abs(oldDiff)
				if oldDiff < 0 {
					updSurgeOld = updSurge
				}
			} else {
				updSurge = abs(newDiff)
				if newDiff > 0 {
					updSurgeOld = updSurge
				}
			}
		}
		// One purpose per round; ties go to specified deletion.
		if scaleSurge >= updSurge {
			b.UseSurge = min(s, scaleSurge)
			b.UseSurgeOldRevision = min(b.UseSurge, scaleSurgeOld)
		} else {
			b.UseSurge = min(s, updSurge)
			b.UseSurgeOldRevision = min(b.UseSurge, updSurgeOld)
		}
	}

	// 3.3 current and expected totals.
	cur, curOld := c.Total, c.AllOld
	if f.ExcludePreparingDelete {
		cur -= c.PreDelNew + c.PreDelOld
		curOld -= c.PreDelOld
	}
	exp, expOld := r+b.UseSurge, part+b.UseSurgeOldRevision

	// 3.4 scale up.
	if n := exp - cur; n > 0 {
		b.ScaleUp = n
		b.ScaleUpOldRevision = max(expOld-curOld, 0)
		b.ScaleUpLimit = min(n, max(p.ScaleMaxUnavailable-unav, 0))
	}

	// 3.5 scale down (specified-delete pods are subtracted first).
	if n := cur - toDel - exp; n > 0 {
		b.ScaleDown = n
		b.ScaleDownOldRevision = max(curOld-c.ToDelOld-expOld, 0)
	}

	// 3.6 delete budget, on the full observed count.
	if toDel > 0 || b.ScaleDown > 0 {
		b.DeleteReadyLimit = max(u+(c.Total-r)-unav, 0)
	}

	// 3.7 update amount and budget.
	if abs(oldDiff) <= abs(newDiff) {
		b.UpdateNum = oldDiff
	} else {
		b.UpdateNum = -newDiff
	}
	if b.UpdateNum != 0 {
		b.UpdateMaxUnavailable = u + c.Total - r
	}
	return b
}

// oppositeSigns reports whether one of a, b is strictly positive and the other
// strictly negative (kruise IsIntPlusAndMinus).
func oppositeSigns(a, b int) bool {
	return (a > 0 && b < 0) || (a < 0 && b > 0)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
