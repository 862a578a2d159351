package clonesetcore

import (
	"time"

	"github.com/clonecore/cloneset/clonesetcore/progress"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/partition"
)

// status computes the status the controller would write this round (LSV 2) and
// pushes the status-driven requeue requests (R1, R2).
func (r *round) status() Status {
	cs := r.cs
	m := cs.Spec.MinReadySeconds
	var st model.CloneSetStatus
	st.ObservedGeneration = cs.Generation
	st.UpdateRevision = r.revs.update.Name
	st.CurrentRevision = r.revs.current.Name
	collisions := r.revs.collisionCount
	st.CollisionCount = &collisions
	st.LabelSelector = cs.Spec.Selector.String()
	st.Conditions = append([]model.CloneSetCondition(nil), cs.Status.Conditions...)
	for _, in := range r.info {
		st.Replicas++
		ready, avail, upd := in.ready, in.available, in.updated
		if ready {
			st.ReadyReplicas++
		}
		if avail {
			st.AvailableReplicas++
		}
		if upd {
			st.UpdatedReplicas++
			if ready {
				st.UpdatedReadyReplicas++
			}
			if avail {
				st.UpdatedAvailableReplicas++
			}
		}
	}
	if st.UpdatedReplicas == st.Replicas && int(st.Replicas) == r.replicas && st.CurrentRevision != st.UpdateRevision {
		st.CurrentRevision = st.UpdateRevision
		r.notes.add("every pod is at %s: currentRevision advances to it", st.UpdateRevision)
	}
	ru := cs.Spec.UpdateStrategy.RollingUpdate
	partitionUnparsable := false
	if ru == nil {
		st.ExpectedUpdatedReplicas = int32(r.replicas)
	} else if pc, err := partition.PartitionCount(cs); err == nil {
		st.ExpectedUpdatedReplicas = int32(r.replicas - pc)
	} else {
		partitionUnparsable = true
		r.notes.add("partition %q cannot be computed (%v): expectedUpdatedReplicas stays 0 (quirk, LSV 2.2)", ru.Partition.String(), err)
	}
	if r.scaleErr != nil {
		st.Conditions = progress.SetCondition(st.Conditions, model.CloneSetCondition{
			Type: model.ConditionFailedScale, Status: "True", Message: r.scaleErr.Error(), LastTransitionTime: r.now,
		}, r.now)
	}
	if r.updateErr != nil {
		st.Conditions = progress.SetCondition(st.Conditions, model.CloneSetCondition{
			Type: model.ConditionFailedUpdate, Status: "True", Message: r.updateErr.Error(), LastTransitionTime: r.now,
		}, r.now)
	}
	res := progress.Evaluate(progress.Input{
		HasRollingUpdate:         ru != nil,
		Paused:                   ru != nil && ru.Paused,
		ProgressDeadlineSeconds:  cs.Spec.ProgressDeadlineSeconds,
		SpecReplicas:             cs.Spec.Replicas,
		Replicas:                 st.Replicas,
		UpdatedReplicas:          st.UpdatedReplicas,
		UpdatedAvailableReplicas: st.UpdatedAvailableReplicas,
		ExpectedUpdatedReplicas:  st.ExpectedUpdatedReplicas,
		PartitionUnparsable:      partitionUnparsable,
		CurrentRevision:          st.CurrentRevision,
		UpdateRevision:           st.UpdateRevision,
		Conditions:               st.Conditions,
		Now:                      r.now,
	})
	st.Conditions = res.Conditions
	r.notes.addAll(res.Notes)
	r.push(res.Requeue)
	// R2: availability maturing (the full minReadySeconds, quirk LSV 8.5).
	if r.scaleErr == nil && r.updateErr == nil && m > 0 && st.AvailableReplicas != st.ReadyReplicas {
		r.push(time.Duration(m) * time.Second)
		if soon := r.nextMaturing(); !soon.IsZero() {
			r.notes.add("requeue after minReadySeconds %ds (upstream uses the full value; the next pod becomes available at %s)", m, formatTime(soon))
		}
	}
	if r.scaleErr != nil || r.updateErr != nil {
		r.notes.add("FailedScale/FailedUpdate conditions are added once and never updated by upstream; they are persisted only when another status field changes (quirk, LSV 8.8)")
	}
	out := Status{
		Replicas: st.Replicas, ReadyReplicas: st.ReadyReplicas, AvailableReplicas: st.AvailableReplicas,
		UpdatedReplicas: st.UpdatedReplicas, UpdatedReadyReplicas: st.UpdatedReadyReplicas,
		UpdatedAvailableReplicas: st.UpdatedAvailableReplicas, ExpectedUpdatedReplicas: st.ExpectedUpdatedReplicas,
		CurrentRevision: st.CurrentRevision, UpdateRevision: st.UpdateRevision,
		ObservedGeneration: st.ObservedGeneration, LabelSelector: st.LabelSelector,
		Conditions: conditionsOut(st.Conditions),
	}
	out.CollisionCount = *st.CollisionCount
	out.WriteSkipped = !progress.WriteNeeded(cs.Status, st)
	return out
}

// nextMaturing returns the earliest instant a Ready pod in Normal state becomes
// available (Ready time + minReadySeconds), or zero.
func (r *round) nextMaturing() time.Time {
	m := time.Duration(r.cs.Spec.MinReadySeconds) * time.Second
	var best time.Time
	for i, in := range r.info {
		if in.available {
			continue
		}
		rt := r.observed[i].ReadyTime()
		if rt.IsZero() {
			continue
		}
		t := rt.Add(m)
		if t.After(r.now) && (best.IsZero() || t.Before(best)) {
			best = t
		}
	}
	return best
}
