package clonesetcore

import (
	"fmt"
)

// DefaultMaxCreatePods is the default of Limits.MaxCreatePods: the number of
// pods a Kubernetes cluster holds at most (the documented scalability limit
// of 150,000 pods per cluster). A plan that creates more pods could never be
// applied by any cluster, so it is refused rather than built; see
// docs/reliability.md.
const DefaultMaxCreatePods = 150_000

// Options adjust PlanWithOptions. The zero value is what Plan uses.
type Options struct {
	// Limits bound what one plan may hold; zero fields take their defaults.
	Limits Limits
}

// Limits bound the size of one plan, so that no input makes the planner
// allocate memory in proportion to a number (spec.replicas, maxSurge) rather
// than to the objects of the scenario. Everything else a plan holds is
// bounded by the scenario's own objects: deletions, lifecycle transitions
// and updates by its pods, PVC actions by its PVCs and the pods' claims, the
// podsToDelete rewrite by the names of spec.scaleStrategy.podsToDelete.
type Limits struct {
	// MaxCreatePods is the most CreatePod actions one plan may hold; 0 means
	// DefaultMaxCreatePods, a negative value is an error. A scale-out above
	// it is refused with a *LimitError before anything is allocated for the
	// new pods; the plan is never silently truncated, because the controller
	// does not truncate: it would try to create every pod, in slow-start
	// batches of 1, 2, 4, ...
	//
	// spec.scaleStrategy.maxUnavailable limits a scale-out the way the
	// controller does, so a CloneSet with a huge spec.replicas and a small
	// scale limit still plans (it creates that many pods per round).
	MaxCreatePods int
}

// resolved returns the limits with defaults filled in, or an error for a
// value that makes no sense.
func (l Limits) resolved() (Limits, error) {
	switch {
	case l.MaxCreatePods < 0:
		return l, fmt.Errorf("clonesetcore.Limits.MaxCreatePods is %d: want 0 (the default, %d) or a positive number", l.MaxCreatePods, DefaultMaxCreatePods)
	case l.MaxCreatePods == 0:
		l.MaxCreatePods = DefaultMaxCreatePods
	}
	return l, nil
}

// LimitError is the answer of Plan and PlanWithOptions for a scenario whose
// plan would exceed a limit of Limits: it names the CloneSet, the field of
// its spec that asks for too much, the amount asked and the limit.
type LimitError struct {
	// CloneSet is "namespace/name".
	CloneSet string
	// Field is the spec field responsible, e.g. "spec.replicas".
	Field string
	// Value is the field's value as written (a number or a percentage).
	Value string
	// Wanted is how many the plan would need (pods to create).
	Wanted int
	// Limit is the limit exceeded.
	Limit int
	// Setting is the option that holds the limit ("Limits.MaxCreatePods").
	Setting string
	// Existing is the number of pods the CloneSet has (counted as the scale
	// arithmetic counts them).
	Existing int
}

// Error names the CloneSet, the field, the amount and the limit, and says how
// to get a plan.
func (e *LimitError) Error() string {
	return fmt.Sprintf("CloneSet %s: %s %s asks this plan to create %d pods (%d exist), above the limit of %d pod creations per plan (clonesetcore.%s; a Kubernetes cluster holds at most about 150,000 pods): lower %s, or bound the scale-out with spec.scaleStrategy.maxUnavailable",
		e.CloneSet, e.Field, e.Value, e.Wanted, e.Existing, e.Limit, e.Setting, e.Field)
}

// checkCreations returns a *LimitError when a scale-out of n pods exceeds
// the round's MaxCreatePods. It reads only numbers: nothing is allocated.
// The field named is spec.replicas when the missing replicas alone exceed
// the limit, maxSurge otherwise (the surge pods push the total over).
func (r *round) checkCreations(n int) error {
	limit := r.limits.MaxCreatePods
	if limit == 0 {
		limit = DefaultMaxCreatePods // a round built without PlanWithOptions (Rank)
	}
	if n <= limit {
		return nil
	}
	existing := r.currentCount()
	e := &LimitError{
		CloneSet: r.cs.Namespace + "/" + r.cs.Name, Field: "spec.replicas", Value: fmt.Sprint(r.replicas),
		Wanted: n, Limit: limit, Setting: "Limits.MaxCreatePods", Existing: existing,
	}
	if r.replicas-existing <= limit {
		if ru := r.cs.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.MaxSurge != nil {
			e.Field, e.Value = "spec.updateStrategy.rollingUpdate.maxSurge", quotedValue(ru.MaxSurge.String(), ru.MaxSurge.IsString)
		}
	}
	return e
}

func quotedValue(s string, isString bool) string {
	if isString {
		return fmt.Sprintf("%q", s)
	}
	return s
}
