package ordering

import (
	"time"

	"github.com/clonecore/cloneset/model"
)

// PodKeys are the keys the deletion and update orders read of one pod
// (scheduled, phase rank, readiness and its time, deletion cost, container
// and sidecar restarts, creation time, node), read once by ReadKeys. A
// caller that reads each pod once and keeps its keys across rounds
// (clonesetcore.Tracker) passes them in DeletionOptions.Keys and
// UpdateOptions.Keys: the orders then read the pods only for their names
// when every other key ties, and for the labels of the priority and scatter
// terms. The orders are those computed from the pods.
type PodKeys struct {
	del     delKey // without the available bit; idx 0, node -1
	sidecar uint32 // maxKey31 - MaxSidecarRestarts
	// availableBase is IsAvailable without the minReadySeconds wait: Ready
	// True, Running, InPlaceUpdateReady absent or True, lifecycle state ""
	// or Normal. readyAt is the Ready condition's lastTransitionTime.
	availableBase bool
	readyAt       time.Time
	node          string
	// nodeID is 1 + the caller's id of node (SetNodeID); 0 for none.
	nodeID int32
	// level and prio are the update priority under a strategy, when
	// prioRead (ReadPriority).
	prioRead bool
	level    int32
	prio     int64
	// scatter holds the two scatter flags (flagMatch, flagCarry) of each
	// scatter term t at bits 2t and 2t+1, when scatterRead (ReadScatter).
	scatterRead bool
	scatter     uint32
}

// maxScatterTerms is the number of scatter terms PodKeys holds flags for.
const maxScatterTerms = 16

// ReadScatter reads, for each term of the scatter strategy terms
// (rollingUpdate.scatterStrategy), whether p carries its label and value
// into the keys, for a caller that keeps them: SortForUpdate then does not
// read the pod's labels for them. The keys must be read again when the
// strategy changes. More than 16 terms are not kept (the labels are read).
func (k *PodKeys) ReadScatter(terms []model.ScatterTerm, p *model.Pod) {
	k.scatterRead, k.scatter = false, 0
	if len(terms) > maxScatterTerms {
		return
	}
	for t, term := range terms {
		var b [1]uint8
		f := scatterFlags{stride: 1, bits: b[:]}
		f.set(0, 0, p.Labels, term)
		k.scatter |= uint32(b[0]) << (2 * t)
	}
	k.scatterRead = true
}

// scatterFlags returns the flags of term t read by ReadScatter.
func (k *PodKeys) scatterFlags(t int) uint8 { return uint8(k.scatter>>(2*t)) & 3 }

// Node returns the pod's spec.nodeName.
func (k *PodKeys) Node() string { return k.node }

// SetNodeID records the caller's id of the pod's node: a non-negative index
// into DeletionOptions.NodeNames, where the pod's spec.nodeName must be
// found. The deletion ranking then groups the pod by id instead of looking
// its node's name up. A negative id clears it; ReadKeys sets none.
func (k *PodKeys) SetNodeID(id int32) {
	if id < 0 {
		k.nodeID = 0
		return
	}
	k.nodeID = id + 1
}

// ReadPriority reads the update priority of p under the priority strategy
// ps (rollingUpdate.priorityStrategy) into the keys, for a caller that keeps
// them: SortForUpdate then does not read the pod's labels for it. The keys
// must be read again when the strategy changes.
func (k *PodKeys) ReadPriority(ps *model.UpdatePriorityStrategy, p *model.Pod) {
	spec := newPrioritySpec(ps)
	k.level, k.prio = spec.of(p.Labels)
	k.prioRead = true
}

// ReadKeys reads the keys of p.
func ReadKeys(p *model.Pod) PodKeys {
	k := PodKeys{
		del:           newDelKey(p, 0, &DeletionOptions{}),
		sidecar:       uint32(maxKey31 - p.MaxSidecarRestarts()),
		availableBase: p.IsAvailable(0, time.Time{}),
		node:          p.Spec.NodeName,
	}
	k.del.pre &^= preAvailable
	if k.availableBase {
		k.readyAt = p.ReadyTime()
	}
	return k
}

// available is model.Pod.IsAvailable(minReadySeconds, now) of the pod.
func (k *PodKeys) available(minReadySeconds int32, now time.Time) bool {
	if !k.availableBase {
		return false
	}
	if minReadySeconds == 0 {
		return true
	}
	return !k.readyAt.IsZero() && k.readyAt.Add(time.Duration(minReadySeconds)*time.Second).Before(now)
}

// delKey is newDelKey(p, idx, opts) of the pod.
func (k *PodKeys) delKey(idx int, opts *DeletionOptions) delKey {
	d := k.del
	d.idx = int32(idx)
	if d.pre&preReady != 0 && k.available(opts.MinReadySeconds, opts.Now) {
		d.pre |= preAvailable
	}
	return d
}

// updKey is newUpdKey(p, idx, state) of the pod p.
func (k *PodKeys) updKey(p *model.Pod, idx int, state string) updKey {
	pre := (k.del.pre>>prePhaseShift)&3<<updPhaseShift | uint64(k.del.pre>>preReadyBit)&1*updReady
	if k.del.pre&preScheduled != 0 {
		pre |= updScheduled
	}
	u := updKey{
		pod:             p,
		readyRec:        k.del.readyRec,
		readyNsRestarts: k.del.readyNsRestarts,
		createdRec:      k.del.createdRec,
		createdNs:       k.del.createdNs,
		sidecar:         k.sidecar,
		idx:             int32(idx),
		scatter:         -1,
		preparing:       state == model.StatePreparingUpdate,
	}
	u.setPriority(0, 0, pre)
	return u
}
