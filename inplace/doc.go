// Package inplace decides whether a pod can be moved from one ControllerRevision to
// another in place, and tracks an in-place update until it is complete.
//
// It implements docs/spec/update-and-ordering.md sections 1.4 (a pod's old revision), 2.2 (a)
// (the in-place bookkeeping of the refresh step), 4.3 and 4.4 (in-place
// feasibility), 4.5 and 4.6 (the grace period) and 4.7 ("update completed").
//
// Feasibility is decided by diffing the template trees of the two revisions as the
// API types write them (podtemplate.Encode of model.PodTemplate.Raw) the way upstream
// diffs the templates it reads back from its revisions: objects
// member by member, lists element by element at equal indexes, surplus elements
// becoming additions or removals. Each difference is then classified by its path.
//
// The package is pure: it never reads the clock (callers pass now), never iterates a
// map in an order that can leak into a result, and reports malformed annotations as
// errors instead of panicking. It depends on packages model and podtemplate and the
// standard library only.
package inplace
