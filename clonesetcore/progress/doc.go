// Package progress decides the CloneSet Progressing condition
// (spec.progressDeadlineSeconds) and implements the generic rules the controller
// uses to write, remove and persist status conditions.
//
// Everything here is a small pure function of its arguments: no clock, no
// randomness, no I/O. The normative source is the planner spec, "Lifecycle,
// Status & Conditions" (LSV) sections 2.4 to 2.6 and 3.2, with the binding answers
// of docs/spec/DECISIONS.md:
//
//   - [Evaluate] runs the five-row decision of LSV 2.4 (Available, Paused,
//     PartitionAvailable, DeadlineExceeded, Updated) against the conditions of the
//     status under construction, writes the result with [SetCondition], and
//     returns the R1 requeue request of LSV 3.2 together with notes naming the
//     upstream quirks that shaped the outcome.
//   - [SetCondition] and [RemoveCondition] are the condition-writing rules of
//     LSV 2.4 ("Writing a condition", "Removing"); they serve FailedScale and
//     FailedUpdate as well (LSV 2.5, see [FailedCondition]).
//   - [WriteNeeded] is the status-write decision of LSV 2.6.
//
// Upstream behavior is reproduced, quirks included: a stale lastUpdateTime makes
// a new rollout time out immediately, ProgressDeadlineExceeded is sticky across
// new revisions, an OnDelete rollout times out, and an unparsable partition makes
// PartitionAvailable match (LSV 2.4, 7.3, 7.4, 8.1, 8.15).
//
// Timestamps written into conditions are truncated to whole seconds, as the API
// server would store them; every comparison uses the exact Input.Now.
package progress
