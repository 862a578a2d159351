package progress

import (
	"fmt"
	"math"
	"time"

	"github.com/clonecore/cloneset/model"
)

// Condition status values.
const (
	// StatusTrue is the "True" condition status.
	StatusTrue = "True"
	// StatusFalse is the "False" condition status.
	StatusFalse = "False"
)

// Reasons of the Progressing condition (LSV 2.4). The string values are the
// controller's, which differ from the upstream constant names.
const (
	// ReasonAvailable is written by row 1 (Available).
	ReasonAvailable = "CloneSetAvailable"
	// ReasonPaused is written by row 2 (Paused).
	ReasonPaused = "CloneSetPaused"
	// ReasonPartitionAvailable is written by row 3 (PartitionAvailable).
	ReasonPartitionAvailable = "ProgressPartitionAvailable"
	// ReasonDeadlineExceeded is written by row 4 (DeadlineExceeded).
	ReasonDeadlineExceeded = "ProgressDeadlineExceeded"
	// ReasonUpdated is written by row 5 (Updated).
	ReasonUpdated = "CloneSetUpdated"
)

// Messages of the Progressing condition (LSV 2.4). Row 4's message names the
// update revision; see [TimedOutMessage].
const (
	// MessageAvailable is row 1's message.
	MessageAvailable = "CloneSet is available"
	// MessagePaused is row 2's message.
	MessagePaused = "CloneSet is paused"
	// MessagePartitionAvailable is row 3's message.
	MessagePartitionAvailable = "CloneSet has been paused due to partition ready"
	// MessageUpdated is row 5's message.
	MessageUpdated = "CloneSet is progressing"
)

// NoDeadline is the progressDeadlineSeconds value that turns tracking off, like an
// absent field (LSV 2.4 "Activation").
const NoDeadline int32 = math.MaxInt32

// TimedOutMessage is row 4's message for the given update revision.
func TimedOutMessage(updateRevision string) string {
	return fmt.Sprintf("CloneSet revision %s has timed out progressing", updateRevision)
}

// Tracking reports whether progressDeadlineSeconds turns the Progressing
// condition on: the field is set and is not [NoDeadline]. Zero and negative values
// (admitted by v1beta1) turn it on.
func Tracking(progressDeadlineSeconds *int32) bool {
	return progressDeadlineSeconds != nil && *progressDeadlineSeconds != NoDeadline
}

// Input is what the Progressing decision reads: the spec fields, the counters of
// LSV 2.2 (already computed), the conditions of the status under construction and
// the planner clock.
type Input struct {
	// HasRollingUpdate is true when spec.updateStrategy.rollingUpdate is present
	// (false for OnDelete).
	HasRollingUpdate bool
	// Paused is rollingUpdate.paused; it is ignored when HasRollingUpdate is false.
	Paused bool
	// ProgressDeadlineSeconds is spec.progressDeadlineSeconds: nil or
	// [NoDeadline] turns tracking off.
	ProgressDeadlineSeconds *int32
	// SpecReplicas is spec.replicas; nil is treated as 1 throughout the decision
	// (LSV 2.4 "Absent spec.replicas").
	SpecReplicas *int32
	// Replicas is status.replicas of the status under construction.
	Replicas int32
	// UpdatedReplicas is status.updatedReplicas.
	UpdatedReplicas int32
	// UpdatedAvailableReplicas is status.updatedAvailableReplicas.
	UpdatedAvailableReplicas int32
	// ExpectedUpdatedReplicas is status.expectedUpdatedReplicas (0 when the
	// partition could not be computed, LSV 2.2).
	ExpectedUpdatedReplicas int32
	// PartitionUnparsable tells that the partition could not be computed, so
	// ExpectedUpdatedReplicas was left 0. It only selects a note; the decision
	// itself reads ExpectedUpdatedReplicas, as upstream does.
	PartitionUnparsable bool
	// CurrentRevision is status.currentRevision after its advancement (LSV 2.3).
	CurrentRevision string
	// UpdateRevision is status.updateRevision.
	UpdateRevision string
	// Conditions are the conditions of the status under construction: in a real
	// round, a copy of the previous status' conditions, possibly with FailedScale
	// or FailedUpdate already set. Evaluate never modifies this slice.
	Conditions []model.CloneSetCondition
	// Now is the planner clock; every comparison uses it exactly.
	Now time.Time
}

// Row identifies which line of the decision table of LSV 2.4 produced the result.
// The numeric values of the five rows are the table's numbers.
type Row int

const (
	// RowOff means tracking is off: the Progressing condition is removed.
	RowOff Row = iota
	// RowAvailable is row 1: every replica is updated and available at the
	// current revision.
	RowAvailable
	// RowPaused is row 2: rollingUpdate is paused.
	RowPaused
	// RowPartitionAvailable is row 3: the partition's share is updated and
	// available.
	RowPartitionAvailable
	// RowDeadlineExceeded is row 4: the deadline passed, or had already passed
	// (sticky).
	RowDeadlineExceeded
	// RowUpdated is row 5, the default: the rollout is progressing.
	RowUpdated
)

// String returns the row's name ("Off", "Available", "Paused",
// "PartitionAvailable", "DeadlineExceeded", "Updated").
func (r Row) String() string {
	switch r {
	case RowOff:
		return "Off"
	case RowAvailable:
		return "Available"
	case RowPaused:
		return "Paused"
	case RowPartitionAvailable:
		return "PartitionAvailable"
	case RowDeadlineExceeded:
		return "DeadlineExceeded"
	case RowUpdated:
		return "Updated"
	}
	return fmt.Sprintf("Row(%d)", int(r))
}

// Result is the outcome of [Evaluate].
type Result struct {
	// Conditions is the new condition list: a fresh slice (nil when empty) in
	// which the Progressing condition was set, kept or removed by the rules of
	// [SetCondition] and [RemoveCondition].
	Conditions []model.CloneSetCondition
	// Row is the decision row that matched.
	Row Row
	// Requeue is the R1 request (LSV 2.4 "Requeue for row 5", 3.2). For
	// RowUpdated it is d = lastUpdateTime + progressDeadlineSeconds - now of the
	// Progressing condition after the write (for a freshly written condition,
	// lastUpdateTime is the exact now, so d is the full deadline), returned as
	// is when d < 1s and as d + 1s otherwise; it may then be zero or negative.
	// Every other row returns 0. A value <= 0 requests nothing.
	Requeue time.Duration
	// Notes are sentences naming the upstream quirks that changed the outcome:
	// an immediate timeout because lastUpdateTime is stale (LSV 7.3, 7.4, 8.1),
	// ProgressDeadlineExceeded kept across a new update revision (LSV 2.4, 8.1),
	// an OnDelete rollout timing out (LSV 8.15), and PartitionAvailable matching
	// because the partition could not be computed (LSV 2.4). Nil when none
	// applies.
	Notes []string
}

// Evaluate decides the Progressing condition of LSV 2.4 for one round.
//
// With tracking off (see [Tracking]) every Progressing condition is removed and
// nothing is requested. Otherwise the first matching row wins:
//
//  1. Available: currentRevision == updateRevision and replicas, updatedReplicas
//     and updatedAvailableReplicas all equal spec.replicas;
//  2. Paused: rollingUpdate is present and paused;
//  3. PartitionAvailable: expectedUpdatedReplicas < spec.replicas and
//     expectedUpdatedReplicas <= updatedAvailableReplicas;
//  4. DeadlineExceeded: a Progressing condition exists in in.Conditions and its
//     reason is ProgressDeadlineExceeded or its lastUpdateTime +
//     progressDeadlineSeconds is strictly before now;
//  5. Updated: otherwise.
//
// The row's condition is written with [SetCondition] (lastUpdateTime =
// lastTransitionTime = now, truncated to the second). Only row 5 produces a
// requeue request (see [Result].Requeue). An absent spec.replicas counts as 1.
// The input slice is not modified.
func Evaluate(in Input) Result {
	if !Tracking(in.ProgressDeadlineSeconds) {
		return Result{Conditions: RemoveCondition(in.Conditions, model.ConditionProgressing), Row: RowOff}
	}
	pds := time.Duration(*in.ProgressDeadlineSeconds) * time.Second
	spec := int32(1)
	if in.SpecReplicas != nil {
		spec = *in.SpecReplicas
	}
	existing, hasExisting := FindCondition(in.Conditions, model.ConditionProgressing)

	var row Row
	switch {
	case in.CurrentRevision == in.UpdateRevision && in.Replicas == spec &&
		in.UpdatedReplicas == spec && in.UpdatedAvailableReplicas == spec:
		row = RowAvailable
	case in.HasRollingUpdate && in.Paused:
		row = RowPaused
	case in.ExpectedUpdatedReplicas < spec && in.ExpectedUpdatedReplicas <= in.UpdatedAvailableReplicas:
		row = RowPartitionAvailable
	case hasExisting && (existing.Reason == ReasonDeadlineExceeded || existing.LastUpdateTime.Add(pds).Before(in.Now)):
		row = RowDeadlineExceeded
	default:
		row = RowUpdated
	}

	c := progressingCondition(row, in.UpdateRevision, in.Now)
	res := Result{Conditions: SetCondition(in.Conditions, c, in.Now), Row: row}

	if row == RowUpdated {
		// The controller computes d from the condition it holds in memory: the kept
		// one, or the new one whose lastUpdateTime is the exact now.
		base := in.Now
		if hasExisting && existing.Status == c.Status && existing.Reason == c.Reason {
			base = existing.LastUpdateTime
		}
		d := base.Add(pds).Sub(in.Now)
		if d < time.Second {
			res.Requeue = d
		} else {
			res.Requeue = d + time.Second
		}
	}
	res.Notes = notes(in, row, existing, hasExisting, spec)
	return res
}

// progressingCondition builds the Progressing condition of a row (not RowOff).
func progressingCondition(row Row, updateRevision string, now time.Time) model.CloneSetCondition {
	c := model.CloneSetCondition{
		Type:               model.ConditionProgressing,
		Status:             StatusTrue,
		LastUpdateTime:     now,
		LastTransitionTime: now,
	}
	switch row {
	case RowAvailable:
		c.Reason, c.Message = ReasonAvailable, MessageAvailable
	case RowPaused:
		c.Reason, c.Message = ReasonPaused, MessagePaused
	case RowPartitionAvailable:
		c.Reason, c.Message = ReasonPartitionAvailable, MessagePartitionAvailable
	case RowDeadlineExceeded:
		c.Status, c.Reason, c.Message = StatusFalse, ReasonDeadlineExceeded, TimedOutMessage(updateRevision)
	default:
		c.Reason, c.Message = ReasonUpdated, MessageUpdated
	}
	return c
}

// Prefixes of the notes, one per quirk; tests recognize notes by them.
const (
	noteStalePrefix     = "stale lastUpdateTime: "
	noteStickyPrefix    = "sticky ProgressDeadlineExceeded: "
	noteOnDeletePrefix  = "OnDelete timing out: "
	notePartitionPrefix = "unparsable partition: "
)

// notes names the quirks that changed the outcome of a tracked decision.
func notes(in Input, row Row, existing model.CloneSetCondition, hasExisting bool, spec int32) []string {
	var out []string
	pds := *in.ProgressDeadlineSeconds
	if row == RowDeadlineExceeded && hasExisting && existing.Reason != ReasonDeadlineExceeded {
		switch {
		case existing.LastUpdateTime.IsZero():
			out = append(out, fmt.Sprintf("%sthe Progressing condition (reason %q) has no lastUpdateTime, so the controller measures the %ds deadline from year 1 and reports ProgressDeadlineExceeded at once (upstream quirk, LSV 2.4, 8.1).",
				noteStalePrefix, existing.Reason, pds))
		case existing.Reason != ReasonUpdated:
			out = append(out, fmt.Sprintf("%sthe Progressing condition entered reason %q at %s, more than progressDeadlineSeconds (%ds) before now, so leaving that reason reports ProgressDeadlineExceeded at once instead of restarting the deadline (upstream quirk, LSV 7.3, 7.4, 8.1).",
				noteStalePrefix, existing.Reason, formatTime(existing.LastUpdateTime), pds))
		}
	}
	if row == RowDeadlineExceeded && hasExisting && existing.Reason == ReasonDeadlineExceeded &&
		existing.Message != TimedOutMessage(in.UpdateRevision) {
		out = append(out, fmt.Sprintf("%sthe kept condition still says %q although the update revision is now %s; only Available, Paused or PartitionAvailable clear it (upstream quirk, LSV 2.4, 8.1).",
			noteStickyPrefix, existing.Message, in.UpdateRevision))
	}
	if row == RowDeadlineExceeded && !in.HasRollingUpdate && in.CurrentRevision != in.UpdateRevision {
		out = append(out, fmt.Sprintf("%supdateStrategy has no rollingUpdate (OnDelete), so pods move to revision %s only when deleted by hand and the rollout reports ProgressDeadlineExceeded (upstream behavior, LSV 2.4, 8.15).",
			noteOnDeletePrefix, in.UpdateRevision))
	}
	if row == RowPartitionAvailable && in.PartitionUnparsable {
		out = append(out, fmt.Sprintf("%sthe partition cannot be computed, so expectedUpdatedReplicas stays %d and PartitionAvailable matches with spec.replicas %d (upstream quirk, LSV 2.2, 2.4).",
			notePartitionPrefix, in.ExpectedUpdatedReplicas, spec))
	}
	return out
}

func formatTime(t time.Time) string {
	return t.UTC().Format(time.RFC3339Nano)
}
