package progress

import (
	"time"

	"github.com/clonecore/cloneset/model"
)

// FindCondition returns a copy of the first condition of the given type and
// whether one exists. The controller reads only the first one (LSV 2.4).
func FindCondition(conds []model.CloneSetCondition, condType string) (model.CloneSetCondition, bool) {
	for _, c := range conds {
		if c.Type == condType {
			return c, true
		}
	}
	return model.CloneSetCondition{}, false
}

// SetCondition writes c into a copy of conds following LSV 2.4 ("Writing a
// condition"), the rule the controller uses for every condition type:
//
//  1. E is the first condition of c's type in conds.
//  2. If E has c's status and c's reason, the copy is returned unchanged: E keeps
//     its message, lastUpdateTime, lastTransitionTime and position.
//  3. Otherwise c is taken as the caller built it, except that a zero
//     lastTransitionTime becomes now and that both timestamps are truncated to
//     whole seconds; if E has the same status (only the reason differs), c takes
//     E's lastTransitionTime instead. A zero lastUpdateTime stays zero (the shape
//     of FailedScale and FailedUpdate, see [FailedCondition]).
//  4. Every condition of c's type is removed and c is appended at the end; the
//     other conditions keep their relative order.
//
// conds is never modified; the result is a fresh slice, nil when empty.
func SetCondition(conds []model.CloneSetCondition, c model.CloneSetCondition, now time.Time) []model.CloneSetCondition {
	e, ok := FindCondition(conds, c.Type)
	if ok && e.Status == c.Status && e.Reason == c.Reason {
		return cloneConditions(conds)
	}
	if c.LastTransitionTime.IsZero() {
		c.LastTransitionTime = now
	}
	c.LastTransitionTime = truncate(c.LastTransitionTime)
	c.LastUpdateTime = truncate(c.LastUpdateTime)
	if ok && e.Status == c.Status {
		c.LastTransitionTime = e.LastTransitionTime
	}
	out := make([]model.CloneSetCondition, 0, len(conds)+1)
	for _, x := range conds {
		if x.Type != c.Type {
			out = append(out, x)
		}
	}
	return append(out, c)
}

// RemoveCondition returns a copy of conds without any condition of the given type
// (LSV 2.4 "Removing"); the others keep their order. conds is never modified;
// the result is nil when empty.
func RemoveCondition(conds []model.CloneSetCondition, condType string) []model.CloneSetCondition {
	var out []model.CloneSetCondition
	for _, x := range conds {
		if x.Type != condType {
			out = append(out, x)
		}
	}
	return out
}

// FailedCondition builds the FailedScale or FailedUpdate condition the controller
// writes after a scale or update error (LSV 2.5): status True, empty reason, the
// error text as message, lastTransitionTime now (whole seconds) and no
// lastUpdateTime. Written with [SetCondition], it is added once and never changed
// afterwards, because its status and reason never differ from the existing one
// (upstream quirk, LSV 2.5, 8.8).
func FailedCondition(condType, message string, now time.Time) model.CloneSetCondition {
	return model.CloneSetCondition{
		Type:               condType,
		Status:             StatusTrue,
		Message:            message,
		LastTransitionTime: truncate(now),
	}
}

// ProgressingChanged reports whether the Progressing condition differs between
// two condition lists in the way the controller's write decision sees it (LSV
// 2.6): present in one list only, or with a different status or reason. Only the
// first Progressing condition of each list is considered; messages and
// timestamps are ignored.
func ProgressingChanged(old, computed []model.CloneSetCondition) bool {
	o, okOld := FindCondition(old, model.ConditionProgressing)
	n, okNew := FindCondition(computed, model.ConditionProgressing)
	if okOld != okNew {
		return true
	}
	return okOld && (o.Status != n.Status || o.Reason != n.Reason)
}

// WriteNeeded reports whether the controller writes the computed status over the
// stored one (LSV 2.6): observedGeneration strictly increased, or one of replicas,
// readyReplicas, availableReplicas, updatedReadyReplicas, updatedReplicas,
// updatedAvailableReplicas, expectedUpdatedReplicas, updateRevision,
// currentRevision, labelSelector differs, or the Progressing condition changed
// (see [ProgressingChanged]). collisionCount, FailedScale, FailedUpdate, condition
// messages and timestamps are not considered, so a change confined to them is not
// persisted (upstream quirk, LSV 2.6, 8.8, 8.9).
func WriteNeeded(old, computed model.CloneSetStatus) bool {
	return computed.ObservedGeneration > old.ObservedGeneration ||
		old.Replicas != computed.Replicas ||
		old.ReadyReplicas != computed.ReadyReplicas ||
		old.AvailableReplicas != computed.AvailableReplicas ||
		old.UpdatedReadyReplicas != computed.UpdatedReadyReplicas ||
		old.UpdatedReplicas != computed.UpdatedReplicas ||
		old.UpdatedAvailableReplicas != computed.UpdatedAvailableReplicas ||
		old.ExpectedUpdatedReplicas != computed.ExpectedUpdatedReplicas ||
		old.UpdateRevision != computed.UpdateRevision ||
		old.CurrentRevision != computed.CurrentRevision ||
		old.LabelSelector != computed.LabelSelector ||
		ProgressingChanged(old.Conditions, computed.Conditions)
}

// cloneConditions returns a copy of conds, nil when empty.
func cloneConditions(conds []model.CloneSetCondition) []model.CloneSetCondition {
	if len(conds) == 0 {
		return nil
	}
	return append([]model.CloneSetCondition(nil), conds...)
}

// truncate drops the sub-second part of t (and any monotonic clock reading), as
// the API server's whole-second serialization does. The zero time stays zero.
func truncate(t time.Time) time.Time {
	return t.Truncate(time.Second)
}
