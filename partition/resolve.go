package partition

import (
	"fmt"

	"github.com/clonecore/cloneset/model"
)

// defaultMaxUnavailable is the controller's maxUnavailable when none is set
// (and the value it falls back to when the rollingUpdate block is absent).
var defaultMaxUnavailable = model.FromString("20%")

// Params are the five resolved inputs of the budget arithmetic
// (docs/spec/scale-and-budgets.md 1.3 to 1.6), all as pod counts, plus the problems met
// while resolving them.
type Params struct {
	// Replicas is R: spec.replicas, or 1 when absent (1.1).
	Replicas int
	// Partition is P, the number of pods to keep at the current revision
	// ([PartitionCount], 1.3); 0 when the partition does not parse.
	Partition int
	// MaxSurge is S (1.4): parser L rounded up; 0 when absent, when the
	// rollingUpdate block is absent, or when the rollout is paused.
	MaxSurge int
	// MaxUnavailable is U, the update budget (1.5): parser L, rounded up when
	// S is 0 and down otherwise; floor of 20 % of R when the rollingUpdate
	// block is absent.
	MaxUnavailable int
	// ScaleMaxUnavailable is SU (1.6): scaleStrategy.maxUnavailable by parser L
	// rounded up, 2147483647 when unset. A value of 0 or less blocks every pod
	// creation.
	ScaleMaxUnavailable int
	// Problems are human-readable sentences, one per field the controller
	// cannot parse (it then uses 0), in the fixed order partition, maxSurge,
	// maxUnavailable, scaleStrategy.maxUnavailable; for example
	// `maxUnavailable "12.5%" does not parse for the controller (uses 0)`.
	// Nil when there is nothing to report.
	Problems []string
}

// Resolve computes R, P, S, U and SU from the CloneSet spec
// (docs/spec/scale-and-budgets.md 1.3 to 1.6). A value the controller's parser rejects is
// resolved as the controller resolves it (0) and named in Params.Problems.
// A nil CloneSet is treated as an empty spec (one replica, no rollingUpdate
// block) and reported as a problem.
func Resolve(cs *model.CloneSet) Params { return resolve(cs, true) }

// resolve is Resolve; with explain false it leaves Problems nil and skips
// building the sentences (Compute does not need them).
func resolve(cs *model.CloneSet, explain bool) Params {
	var out Params
	problem := func(format string, args ...any) {
		if explain {
			out.Problems = append(out.Problems, fmt.Sprintf(format, args...))
		}
	}
	if cs == nil {
		cs = &model.CloneSet{}
		problem("no CloneSet given (resolved as an empty spec with 1 replica)")
	}
	r := cs.Spec.DesiredReplicas()
	out.Replicas = r

	ru := cs.Spec.UpdateStrategy.RollingUpdate
	if p, err := PartitionCount(cs); err != nil {
		problem("partition %s does not parse for the controller (uses 0): %v", quoted(*ru.Partition), err)
	} else {
		out.Partition = p
	}

	if ru != nil && ru.MaxSurge != nil {
		s, err := ru.MaxSurge.ScaledValueK8s(r, true)
		if err != nil {
			problem("maxSurge %s does not parse for the controller (uses 0)", quoted(*ru.MaxSurge))
			s = 0
		}
		if ru.Paused {
			s = 0
		}
		out.MaxSurge = s
	}

	if ru != nil {
		v := defaultMaxUnavailable
		if ru.MaxUnavailable != nil {
			v = *ru.MaxUnavailable
		}
		u, err := v.ScaledValueK8s(r, out.MaxSurge == 0)
		if err != nil {
			problem("maxUnavailable %s does not parse for the controller (uses 0)", quoted(v))
			u = 0
		}
		out.MaxUnavailable = u
	} else {
		// [quirk] rounded down although maxSurge is 0 (1.5).
		out.MaxUnavailable, _ = defaultMaxUnavailable.ScaledValueK8s(r, false)
	}

	sv := model.FromInt(model.MaxInt32)
	if cs.Spec.ScaleStrategy.MaxUnavailable != nil {
		sv = *cs.Spec.ScaleStrategy.MaxUnavailable
	}
	su, err := sv.ScaledValueK8s(r, true)
	if err != nil {
		problem("scaleStrategy.maxUnavailable %s does not parse for the controller (uses 0, which blocks every pod creation)", quoted(sv))
		su = 0
	}
	out.ScaleMaxUnavailable = su
	return out
}

// quoted renders an IntOrPercent for a message: strings quoted, integers bare.
func quoted(v model.IntOrPercent) string {
	if v.IsString {
		return fmt.Sprintf("%q", v.Str)
	}
	return v.String()
}

// PartitionCount is the controller's CalculatePartitionReplicas
// (docs/spec/scale-and-budgets.md 1.3, docs/spec/lifecycle-status-validation.md 2.2): the number of
// pods rollingUpdate.partition keeps at the current revision.
//
// An absent partition (or an absent rollingUpdate block) counts 0. An integer
// counts as itself; a string must end in '%' and is a decimal percentage of the
// desired replicas R, rounded up (parser K). When R > 1 and a percentage that is
// not literally "100%" comes out at R, the result is R-1 so that at least one
// pod is updated. The result is clamped to [0, R].
//
// A string the parser rejects (no trailing '%', or not a number) returns 0 and
// the parser's error; the budget then uses 0 and the status leaves
// expectedUpdatedReplicas uncomputed. A nil CloneSet counts 0.
func PartitionCount(cs *model.CloneSet) (int, error) {
	if cs == nil || cs.Spec.UpdateStrategy.RollingUpdate == nil || cs.Spec.UpdateStrategy.RollingUpdate.Partition == nil {
		return 0, nil
	}
	part := *cs.Spec.UpdateStrategy.RollingUpdate.Partition
	r := cs.Spec.DesiredReplicas()
	p, err := part.ScaledValueKruise(r, true)
	if err != nil {
		return 0, err
	}
	if r > 1 && p == r && part.IsString && part.Str != "100%" {
		p = r - 1
	}
	return max(min(p, r), 0), nil
}

// ExcludePreparingDelete reports X of docs/spec/scale-and-budgets.md 1.8: whether pods in
// state PreparingDelete are left out of the current totals of the scale
// arithmetic. It is true when the controller flag
// cloneset-scaling-exclude-preparing-delete is set or the CloneSet's
// spec.scaleStrategy.excludePreparingDelete is true (for a v1alpha1 input the
// loader sets that field from the CloneSet label). A nil CloneSet only
// consults the flag.
func ExcludePreparingDelete(cs *model.CloneSet, flags model.ControllerFlags) bool {
	if flags.ScalingExcludePreparingDelete {
		return true
	}
	return cs != nil && cs.Spec.ScaleStrategy.ExcludePreparingDelete
}

// Rollback reports the Rollback flag of docs/spec/scale-and-budgets.md 1.7: the
// CloneSetPartitionRollback gate is on and the current and update revisions
// differ (compared as strings). Only then may the arithmetic move pods back to
// the current revision (a negative updateNum).
func Rollback(gates model.FeatureGates, currentRevision, updateRevision string) bool {
	return gates.CloneSetPartitionRollback && currentRevision != updateRevision
}
