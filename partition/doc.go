// Package partition computes the budget of one CloneSet reconcile: the numbers
// of the plan's "budget" object (docs/spec/scenario-format.md section 2) that decide how
// many pods the scale phase creates or deletes, how many
// of them belong to the old (current) revision, how far the controller may surge
// above the desired replicas, how many ready pods it may delete, and how many pods
// the update phase should move between revisions and with what unavailability
// budget.
//
// It reproduces the arithmetic of the OpenKruise CloneSet controller
// (calculateDiffsWithExpectation in kruise
// pkg/controller/cloneset/sync/cloneset_sync_utils.go) as specified in
// docs/spec/scale-and-budgets.md sections 1 to 3, quirks included:
//
//   - Resolve turns the CloneSet spec into the five resolved parameters R
//     (replicas), P (partition, [PartitionCount]), S (maxSurge), U
//     (maxUnavailable) and SU (scaleStrategy.maxUnavailable), using the two
//     percentage parsers of the controller (section 1.2).
//   - Count classifies every observed pod into the counters of section 2.
//   - Diff is the arithmetic of section 3 on resolved parameters and counters.
//   - Compute is Resolve, Count and Diff in one call.
//
// The controller runs the arithmetic twice per reconcile with two different
// "is this pod updated" predicates (section 1.9): [ScaleVariant] for the scale
// phase, in which a PreparingUpdate pod counts as updated when the
// PreparingUpdateAsUpdate gate is on, and [UpdateVariant] for the update phase
// (plain revision match). Both variants give the same budget unless that gate is
// on and some pod is in state PreparingUpdate.
//
// Everything here is pure and deterministic: no clock is read (the caller passes
// Input.Now), no map is iterated, and the result does not depend on the order of
// the pods. The computation is O(n) in the number of pods. Bad input (a nil
// CloneSet, nil pods, unparsable percentages, negative numbers) never panics; it
// is resolved the way the controller resolves it and unparsable values are
// reported in Params.Problems.
package partition
