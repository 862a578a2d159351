package partition

import (
	"strconv"
	"time"

	"github.com/clonecore/cloneset/model"
)

// Variant selects the "is this pod updated" predicate of docs/spec/scale-and-budgets.md
// 1.9. The controller runs the budget arithmetic once per variant.
type Variant int

const (
	// ScaleVariant is UpdatedForScale, used by the scale phase: a pod is
	// updated when it carries the update revision, or when the
	// PreparingUpdateAsUpdate gate is on and the pod is in state
	// PreparingUpdate.
	ScaleVariant Variant = iota
	// UpdateVariant is UpdatedForUpdate, used by the update phase: a pod is
	// updated when it carries the update revision.
	UpdateVariant
)

// String returns "scale" or "update" (or "Variant(n)" for other values).
func (v Variant) String() string {
	switch v {
	case ScaleVariant:
		return "scale"
	case UpdateVariant:
		return "update"
	}
	return "Variant(" + strconv.Itoa(int(v)) + ")"
}

// Input is everything the budget of one reconcile depends on.
type Input struct {
	// CloneSet is the CloneSet in the internal v1beta1 shape, already
	// defaulted. Spec.Replicas nil means 1. Nil is tolerated (see Resolve).
	CloneSet *model.CloneSet
	// Pods are the observed pods: active, controlled by the CloneSet and
	// matching its selector. Nil entries are ignored. Their order never
	// matters.
	Pods []*model.Pod
	// CurrentRevision and UpdateRevision are the revision names of the round.
	CurrentRevision string
	UpdateRevision  string
	// Gates are the controller feature gates (CloneSetPartitionRollback and
	// PreparingUpdateAsUpdate are read here).
	Gates model.FeatureGates
	// Controller holds the controller-wide flags (the
	// cloneset-scaling-exclude-preparing-delete flag is read here).
	Controller model.ControllerFlags
	// Now is the planner's clock; it matters only for minReadySeconds.
	Now time.Time
}

// Counters are the pod classification counters of docs/spec/scale-and-budgets.md
// section 2. Every observed pod is counted on the new side when it is updated
// under the chosen Variant and on the old side otherwise, and falls into the
// first matching row of: PreparingDelete (PreDel), specified-delete (ToDel),
// not available (Unav), available (no row counter).
type Counters struct {
	// PreDelNew and PreDelOld count pods in state PreparingDelete (even when
	// they are also specified-delete).
	PreDelNew, PreDelOld int
	// ToDelNew and ToDelOld count specified-delete pods not in
	// PreparingDelete, whatever their readiness.
	ToDelNew, ToDelOld int
	// UnavNew and UnavOld count the remaining pods that are not
	// Available(p, minReadySeconds).
	UnavNew, UnavOld int
	// ActNew and ActOld count the pods not in PreparingDelete.
	ActNew, ActOld int
	// AllNew and AllOld count every pod of each side (Act + PreDel).
	AllNew, AllOld int
	// Total is the number of observed pods, |Pods| (AllNew + AllOld).
	Total int
}

// ToDel returns toDel = ToDelNew + ToDelOld, the specified-delete pods.
func (c Counters) ToDel() int { return c.ToDelNew + c.ToDelOld }

// Unavailable returns T_unav = PreDelNew + PreDelOld + UnavNew + UnavOld, the
// pods the arithmetic counts as unavailable.
func (c Counters) Unavailable() int { return c.PreDelNew + c.PreDelOld + c.UnavNew + c.UnavOld }

// PodsToDeleteSet returns spec.scaleStrategy.podsToDelete as a set for O(1)
// lookups by pod name. Build it once per round. A nil CloneSet gives an empty
// (nil) set, which IsSpecifiedDelete accepts.
func PodsToDeleteSet(cs *model.CloneSet) map[string]bool {
	if cs == nil || len(cs.Spec.ScaleStrategy.PodsToDelete) == 0 {
		return nil
	}
	set := make(map[string]bool, len(cs.Spec.ScaleStrategy.PodsToDelete))
	for _, name := range cs.Spec.ScaleStrategy.PodsToDelete {
		set[name] = true
	}
	return set
}

// IsSpecifiedDelete is SpecifiedDelete(p) of docs/spec/scale-and-budgets.md 1.9: the pod
// carries the apps.kruise.io/specified-delete label with any value (even
// empty), or its name is in podsToDelete (see PodsToDeleteSet). A nil pod is
// not specified-delete.
func IsSpecifiedDelete(p *model.Pod, podsToDelete map[string]bool) bool {
	if p == nil {
		return false
	}
	return p.HasSpecifiedDeleteLabel() || podsToDelete[p.Name]
}

// IsUpdated reports whether the pod counts as updated (new side) under the
// variant (docs/spec/scale-and-budgets.md 1.9): its controller-revision-hash label
// matches updateRevision (full name or short hash), or, for ScaleVariant only,
// the PreparingUpdateAsUpdate gate is on and the pod is in state
// PreparingUpdate. Any value other than ScaleVariant behaves as UpdateVariant.
// A nil pod is not updated.
func IsUpdated(p *model.Pod, updateRevision string, gates model.FeatureGates, v Variant) bool {
	if p == nil {
		return false
	}
	if v == ScaleVariant && gates.PreparingUpdateAsUpdate && p.LifecycleState() == model.StatePreparingUpdate {
		return true
	}
	return p.InRevision(updateRevision)
}

// ReadyForBudget is ReadyForBudget(p) of docs/spec/scale-and-budgets.md 1.9:
// Available(p, 0), the availability test with minReadySeconds ignored. The
// scale phase charges deleteReadyLimit only for pods that pass it, so a pod that
// is Ready but not yet past minReadySeconds is unavailable for the counters yet
// ready for charging [quirk]. A nil pod is not ready. now plays no part
// (minReadySeconds is ignored); it is kept for callers.
func ReadyForBudget(p *model.Pod, now time.Time) bool {
	return p != nil && ReadyForBudgetOf(p.IsStatusReady(), p.LifecycleState())
}

// ReadyForBudgetOf is ReadyForBudget from facts of the pod read already:
// statusReady is model.Pod.IsStatusReady, state its lifecycle state label.
// Available(p, 0) is status ready in lifecycle state "" or Normal (the
// clock plays no part without minReadySeconds).
func ReadyForBudgetOf(statusReady bool, state string) bool {
	return statusReady && model.AvailableState(state)
}

// PodClass is what Count reads of one observed pod: the inputs of its row
// and side in the counters of docs/spec/scale-and-budgets.md section 2.
type PodClass struct {
	// Updated is IsUpdated under the variant (the new side).
	Updated bool
	// PreparingDelete is lifecycle state PreparingDelete.
	PreparingDelete bool
	// SpecifiedDelete is IsSpecifiedDelete.
	SpecifiedDelete bool
	// Available is model.Pod.IsAvailable with the CloneSet's minReadySeconds
	// and the planner's clock.
	Available bool
}

// Count classifies the observed pods into the counters of
// docs/spec/scale-and-budgets.md section 2 under the variant. It is O(len(in.Pods)) and
// independent of the order of the pods; nil pods are skipped.
func Count(in Input, v Variant) Counters {
	var m int32
	if in.CloneSet != nil {
		m = in.CloneSet.Spec.MinReadySeconds
	}
	del := PodsToDeleteSet(in.CloneSet)
	puau := v == ScaleVariant && in.Gates.PreparingUpdateAsUpdate
	var t tally
	for _, p := range in.Pods {
		if p == nil {
			continue
		}
		// Same predicates as IsUpdated, IsSpecifiedDelete and
		// model.Pod.IsAvailable, with the state label read once per pod (this
		// loop runs over 100k pods).
		state := p.LifecycleState()
		t.add(PodClass{
			Updated:         (puau && state == model.StatePreparingUpdate) || p.InRevision(in.UpdateRevision),
			PreparingDelete: state == model.StatePreparingDelete,
			SpecifiedDelete: p.HasSpecifiedDeleteLabel() || del[p.Name],
			Available:       model.AvailableState(state) && p.IsUpdateReady(m, in.Now),
		})
	}
	return t.counters()
}

// CountClasses is Count for pods the caller has classified already (one
// PodClass per observed pod, under the variant it wants): a planner that
// reads every pod once for all its decisions counts without reading them
// again. The order of classes does not matter.
func CountClasses(classes []PodClass) Counters {
	var t tally
	for _, pc := range classes {
		t.add(pc)
	}
	return t.counters()
}

// tally accumulates Counters one pod at a time.
type tally struct{ c Counters }

func (t *tally) add(pc PodClass) {
	c := &t.c
	switch {
	case pc.PreparingDelete:
		if pc.Updated {
			c.PreDelNew++
		} else {
			c.PreDelOld++
		}
	case pc.SpecifiedDelete:
		if pc.Updated {
			c.ToDelNew++
		} else {
			c.ToDelOld++
		}
	case !pc.Available:
		if pc.Updated {
			c.UnavNew++
		} else {
			c.UnavOld++
		}
	}
	if pc.Updated {
		c.AllNew++
	} else {
		c.AllOld++
	}
}

func (t *tally) counters() Counters {
	c := t.c
	c.ActNew = c.AllNew - c.PreDelNew
	c.ActOld = c.AllOld - c.PreDelOld
	c.Total = c.AllNew + c.AllOld
	return c
}
