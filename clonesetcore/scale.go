package clonesetcore

import (
	"slices"

	"github.com/clonecore/cloneset/lifecycle"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/ordering"
	"github.com/clonecore/cloneset/partition"
	"github.com/clonecore/cloneset/pvc"
)

// cleanupPVCs runs the PVC clean-up (scale-and-budgets 5.4) when reuse is off
// and fixes the set V of PVCs the scale phase sees. The inventory reads every
// pod's and PVC's instance id once for the clean-up, the claims of deleted and
// new pods, and the ids of new pods.
func (r *round) cleanupPVCs() {
	pods := pvc.RoundPods{
		Observed: r.byInput.observed, ObservedIDs: r.byInput.ids, Released: r.released, Inactive: r.inactive,
	}
	switch {
	case r.inventory != nil && r.inventory.valid:
		r.pvcs = r.inventory.inv
	case r.claimSet != nil:
		r.pvcs = pvc.NewInventoryFrom(r.cs, pods, r.claimSet)
		if r.inventory != nil {
			r.inventory.inv, r.inventory.valid = r.pvcs, true
		}
	default:
		r.pvcs = pvc.NewInventory(r.cs, pods, r.s.PVCs)
	}
	r.emit(r.pvcs.Cleanup()...)
}

// claims returns the index of the set V, built once per round so that the
// per-pod claim lookups cost O(1) instead of a scan of V.
func (r *round) claims() *pvc.Index { return r.pvcs.Index() }

// scale runs the scale phase (scale-and-budgets 4.3) and reports whether it
// changed anything.
func (r *round) scale() bool {
	cs := r.cs
	b := r.budget
	// S1: planned deletions.
	var specifiedDelete []int // indexes in r.observed of the specified-delete pods
	var preparingDelete []*model.Pod
	specifiedPD := map[*model.Pod]bool{} // PreparingDelete pods that are specified-delete
	numToDelete := 0
	for i, p := range r.observed {
		isSpecifiedDelete := r.info[i].specified
		isPreparingDelete := r.info[i].state == model.StatePreparingDelete
		if isSpecifiedDelete {
			specifiedDelete = append(specifiedDelete, i)
		}
		if isPreparingDelete {
			preparingDelete = append(preparingDelete, p)
			specifiedPD[p] = isSpecifiedDelete
		}
		if isSpecifiedDelete || isPreparingDelete {
			numToDelete++
		}
	}
	// S1b: cancel pre-deletions when replicas went up again.
	isSpecified := func(p *model.Pod) bool { return specifiedPD[p] }
	if acts := lifecycle.CancelPreDelete(cs, preparingDelete, isSpecified, r.replicas, len(r.observed), numToDelete); len(acts) > 0 {
		r.emit(acts...)
		r.notes.add("replicas went up while %s waited in PreparingDelete: cancelled back to PreparingNormal", plural(len(acts), "pod", "pods"))
		return true
	}
	// S2: the record.
	if b.ScaleUp > b.ScaleUpLimit {
		r.notes.add("scale-out limited by scaleStrategy.maxUnavailable, limit %d (%d wanted, scaleMaxUnavailable %d, %s unavailable)",
			b.ScaleUpLimit, b.ScaleUp, b.ScaleMaxUnavailable, plural(r.counters.PreDelNew+r.counters.PreDelOld+r.counters.UnavNew+r.counters.UnavOld, "pod", "pods"))
	}
	// S3: scale out.
	if b.ScaleUp > 0 {
		if b.ScaleUpLimit <= 0 {
			r.notes.add("scale-out of %s waits: no creation allowed this round; nothing is deleted while pods are missing", plural(b.ScaleUp, "pod", "pods"))
			return false
		}
		r.createPods(b.ScaleUpLimit, b.ScaleUpOldRevision)
		return true
	}
	// S4: pods already in PreparingDelete.
	if len(preparingDelete) > 0 {
		changed := false
		waiting := 0
		for _, p := range preparingDelete {
			var ch bool
			r.actions, ch = lifecycle.AppendRemovePod(r.actions, cs, p, nil, r.claims().ClaimsOfPod(p), "PreparingDelete pod")
			if ch {
				changed = true
			} else {
				waiting++
			}
		}
		if waiting > 0 {
			r.notes.add("%s in PreparingDelete still hooked by lifecycle.preDelete: waiting for the hook to be released", plural(waiting, "pod", "pods"))
		}
		if changed {
			return true
		}
	}
	// S5: specified deletion, charged to deleteReadyLimit for ready pods.
	inPreparingDelete := make(map[string]bool, len(preparingDelete))
	for _, p := range preparingDelete {
		inPreparingDelete[p.Name] = true
	}
	var toDelete []int // the specified-delete pods not in PreparingDelete
	for _, i := range specifiedDelete {
		if !inPreparingDelete[r.observed[i].Name] {
			toDelete = append(toDelete, i)
		}
	}
	kept, skipped := r.spendReadyBudget(toDelete, b.DeleteReadyLimit)
	if len(skipped) > 0 {
		r.notes.add("specified delete of %s waits: deleteReadyLimit is %d (maxUnavailable %d + %d pods - %d replicas - %d unavailable)",
			podNames(r.podsAt(skipped)), b.DeleteReadyLimit, b.MaxUnavailable, len(r.observed), r.replicas, r.unavailableCount())
	}
	if len(kept) > 0 {
		changed := false
		for _, i := range kept {
			var ch bool
			r.actions, ch = lifecycle.AppendRemovePod(r.actions, cs, r.observed[i], r.removalFacts(i), r.claims().ClaimsOfID(r.idOf(i)), "specified delete")
			changed = changed || ch
		}
		if changed {
			return true
		}
	}
	// S6: scale in.
	if b.ScaleDown > 0 {
		if numToDelete > 0 {
			r.notes.add("scale-in of %s waits until %s (specified-delete or PreparingDelete) are gone",
				plural(b.ScaleDown, "pod", "pods"), plural(numToDelete, "pod", "pods"))
			return false
		}
		// S5 had nothing to delete, so the whole deleteReadyLimit is left.
		// The pods are handled by observed index, their facts read from
		// r.info (and the instance ids a Tracker read).
		del, wait := r.spendReadyBudget(r.choosePodsToDelete(b), b.DeleteReadyLimit)
		if len(wait) > 0 {
			r.notes.add("scale-in waits for %s: deleteReadyLimit is %d because %s not yet available (maxUnavailable %d, minReadySeconds %d)",
				podNames(r.podsAt(wait)), b.DeleteReadyLimit, podsAre(r.unavailableCount()), b.MaxUnavailable, cs.Spec.MinReadySeconds)
		}
		changed := false
		r.actions = slices.Grow(r.actions, len(del))
		for _, i := range del {
			var ch bool
			r.actions, ch = lifecycle.AppendRemovePod(r.actions, cs, r.observed[i], r.removalFacts(i), r.claims().ClaimsOfID(r.idOf(i)), "scale in")
			changed = changed || ch
		}
		return changed
	}
	return false
}

// spendReadyBudget walks observed pods (indexes in r.observed) in order:
// pods not ready for the budget are always kept, ready pods while the budget
// lasts; the rest wait (scale-and-budgets 4.3 S5, S6: the ready-pod delete
// budget), ready for the budget (partition.ReadyForBudgetOf) from r.info.
func (r *round) spendReadyBudget(pods []int, budget int) (kept, waiting []int) {
	for _, i := range pods {
		in := &r.info[i]
		switch {
		case !partition.ReadyForBudgetOf(in.ready, in.state):
			kept = append(kept, i)
		case budget > 0:
			kept = append(kept, i)
			budget--
		default:
			waiting = append(waiting, i)
		}
	}
	return kept, waiting
}

// removalFacts returns the lifecycle.RemovalFacts of observed pod i a
// Tracker keeps (nil without a Tracker: the pod is read).
func (r *round) removalFacts(i int) *lifecycle.RemovalFacts {
	if r.recs == nil {
		return nil
	}
	rec := &r.recs[r.keyAt[i]]
	return &lifecycle.RemovalFacts{State: rec.state, PreDeleteHooked: rec.flags&recPreDeleteHooked != 0}
}

// podsAt returns the observed pods of the indexes at.
func (r *round) podsAt(at []int) []*model.Pod {
	out := make([]*model.Pod, len(at))
	for k, i := range at {
		out[k] = r.observed[i]
	}
	return out
}

// idOf returns the instance-id label of observed pod i: read already when
// the input order is the canonical one (a Tracker), else from the pod.
func (r *round) idOf(i int) string {
	if r.byInput.canonical {
		return r.byInput.ids[i]
	}
	return r.observed[i].InstanceID()
}

func (r *round) unavailableCount() int {
	c := r.counters
	return c.PreDelNew + c.PreDelOld + c.UnavNew + c.UnavOld
}

// choosePodsToDelete splits scaleDown between old and updated pods and ranks each
// group (scale-and-budgets 4.6); it returns the chosen pods' indexes in
// r.observed, in deletion order.
func (r *round) choosePodsToDelete(b partition.Budget) []int {
	// With distinct names the ranking does not depend on the order of the
	// group: the groups are then built in the scenario's order, which the
	// ranking reads sequentially.
	pods, position := r.observed, []int(nil)
	if r.uniqueNames {
		pods, position = r.byInput.observed, r.byInput.position
	}
	bufs := r.bufs
	if bufs == nil {
		bufs = &roundBuffers{}
	}
	// Each group: its pods, their indexes in r.observed (obs) and, with
	// r.keys, in r.keys (r.keyAt).
	upd, old := scaleInGroup{pods: bufs.upd[:0], obs: bufs.updObs[:0], at: bufs.updAt[:0]}, scaleInGroup{pods: bufs.old[:0], obs: bufs.oldObs[:0], at: bufs.oldAt[:0]}
	defer func() {
		bufs.upd, bufs.updObs, bufs.updAt = upd.pods, upd.obs, upd.at
		bufs.old, bufs.oldObs, bufs.oldAt = old.pods, old.obs, old.at
	}()
	for j, p := range pods {
		i := j
		if position != nil {
			i = position[j]
		}
		// partition.IsUpdated under partition.ScaleVariant.
		in := r.info[i]
		g := &old
		if in.updated || (r.gates.PreparingUpdateAsUpdate && in.state == model.StatePreparingUpdate) {
			g = &upd
		}
		g.pods, g.obs = append(g.pods, p), append(g.obs, i)
		if r.keys != nil {
			g.at = append(g.at, r.keyAt[i])
		}
	}
	if r.keys == nil {
		upd.at, old.at = nil, nil
	}
	switch {
	case b.ScaleDownOldRevision >= b.ScaleDown:
		return r.pick(old, b.ScaleDown)
	case b.ScaleDownOldRevision > 0:
		return append(r.pick(old, b.ScaleDownOldRevision), r.pick(upd, b.ScaleDown-b.ScaleDownOldRevision)...)
	default:
		return r.pick(upd, b.ScaleDown)
	}
}

// scaleInGroup is one group of choosePodsToDelete: its pods, their indexes
// in r.observed, and, with r.keys, their indexes in r.keys (else nil).
type scaleInGroup struct {
	pods    []*model.Pod
	obs, at []int
}

// pick takes k pods of group g in deletion order and returns their indexes
// in r.observed.
func (r *round) pick(g scaleInGroup, k int) []int {
	chosen := r.pickPods(g.pods, g.at, k)
	for n, j := range chosen {
		chosen[n] = g.obs[j]
	}
	return chosen
}

// pickPods takes k pods of group g in deletion order and returns their
// positions in g; at, when as long as g, holds the index in r.keys of each
// pod's ordering keys.
func (r *round) pickPods(g []*model.Pod, at []int, k int) []int {
	if k > len(g) {
		r.notes.add("scale-in wanted %d pods from a group of %d: upstream takes fewer than asked (quirk, scale-and-budgets 9.10)", k, len(g))
		k = len(g)
	}
	opts := r.deletionOptions()
	if len(opts.TopologyKeys) > 0 && len(g) > 1 {
		r.notes.add("scale-in spread ranks follow the controller's code ((n-i)*ln(D+2) per topology, larger domains lose pods first), not the example of the design proposal (update-and-ordering 8.5, 11.2)")
	}
	if at != nil {
		opts.Keys, opts.KeyIndex = r.keys, at
	}
	opts.Scratch = r.delScratch
	return ordering.FirstIndexesForDeletion(g, opts, k)
}

func (r *round) deletionOptions() ordering.DeletionOptions {
	if r.delOpts != nil {
		return *r.delOpts
	}
	opts := ordering.DeletionOptions{MinReadySeconds: r.cs.Spec.MinReadySeconds, Now: r.now}
	if r.nodes != nil && r.keys != nil {
		opts.NodeNames = r.nodes.names // the keys carry the Tracker's node ids
	}
	for _, c := range r.revs.update.Template.Spec.TopologySpreadConstraints {
		opts.TopologyKeys = append(opts.TopologyKeys, c.TopologyKey)
	}
	switch {
	case len(opts.TopologyKeys) == 0:
	case r.nodes != nil && r.nodes.allReferencedExist():
		// No pod names a node the scenario lacks: nothing to note.
		opts.Nodes = r.nodes.byName
	default:
		if r.nodes != nil {
			opts.Nodes = r.nodes.byName
		} else {
			opts.Nodes = make(map[string]*model.Node, len(r.s.Nodes))
			for _, n := range r.s.Nodes {
				opts.Nodes[n.Name] = n
			}
		}
		var missing []string
		seen := map[string]bool{}
		for i, p := range r.observed {
			n := ""
			if r.keys != nil {
				n = r.keys[r.keyAt[i]].Node() // the pod is not read
			} else {
				n = p.Spec.NodeName
			}
			if n != "" && opts.Nodes[n] == nil && !seen[n] {
				seen[n] = true
				missing = append(missing, n)
			}
		}
		if len(missing) > 0 {
			r.notes.add("topology spread ranking: nodes %v are referenced by pods but not in the scenario; their pods get spread rank 0 (as upstream when a node cannot be fetched)", missing)
		}
	}
	r.delOpts = &opts
	return opts
}

// createPods emits n CreatePod actions: min(n, k) at the current revision first,
// the rest at the update revision (scale-and-budgets 4.4).
func (r *round) createPods(n, k int) {
	if r.limitErr = r.checkCreations(n); r.limitErr != nil {
		return // nothing is allocated for the n pods
	}
	cs := r.cs
	allocs := r.pvcs.Allocate(r.now, n)
	r.actions = slices.Grow(r.actions, len(allocs))
	reasons := r.createReasons(n)
	nOld := min(n, k)
	for i, a := range allocs {
		rev := r.revs.update
		if i < nOld {
			rev = r.revs.current
		}
		create, reuse := r.claims().ClaimsForNewPod(cs, a.ID)
		act := model.Action{
			Type: model.ActionCreatePod, Pod: pvc.PodName(cs, a.ID), InstanceID: a.ID, Revision: rev.Name,
			LifecycleState: model.StatePreparingNormal, CreatePVCs: create, ReusePVCs: reuse,
			Batch: batchOf(i), Reason: reasons[i],
		}
		if l := model.RevisionLabelValue(rev.Name, r.gates); l != rev.Name {
			act.RevisionLabel = l
		}
		r.emit(act)
	}
	if nOld > 0 {
		r.notes.add("%s created at the current revision %s to keep the partition", plural(nOld, "pod is", "pods are"), r.revs.current.Name)
	}
	if c := pvc.Collisions(cs, allocs, r.inactive); len(c) > 0 {
		r.notes.add("reused instance ids collide with pods that still exist (terminating or terminal): %v; upstream's creation fails with AlreadyExists until they are gone (quirk, scale-and-budgets 5.5, kruise issues #1099/#1433)", c)
	}
}

// createReasons says why each of n new pods is created: missing replicas first,
// then surge for specified deletion or for the update (scale-and-budgets 3.2).
func (r *round) createReasons(n int) []string {
	missing := r.replicas - r.currentCount()
	surgeReason := "surge for update"
	if r.counters.ToDelNew+r.counters.ToDelOld > 0 && r.scaleSurgeWins() {
		surgeReason = "surge for specified delete"
	}
	out := make([]string, n)
	for i := range out {
		if i < missing {
			out[i] = "scale out"
		} else {
			out[i] = surgeReason
		}
	}
	return out
}

// currentCount is C of scale-and-budgets 3.3.
func (r *round) currentCount() int {
	c := len(r.observed)
	if partition.ExcludePreparingDelete(r.cs, r.s.Controller) {
		c -= r.counters.PreDelNew + r.counters.PreDelOld
	}
	return c
}

// scaleSurgeWins tells whether the surge of this round serves specified deletion
// (scale-and-budgets 3.2 step 3: ties go to specified deletion).
func (r *round) scaleSurgeWins() bool {
	c := r.counters
	toDel := c.ToDelNew + c.ToDelOld
	tUnav := c.PreDelNew + c.PreDelOld + c.UnavNew + c.UnavOld
	scaleSurge := min(max(tUnav+toDel-r.budget.MaxUnavailable, 0), toDel)
	oldDiff := c.ActOld - r.budget.Partition
	newDiff := c.ActNew - (r.budget.Replicas - r.budget.Partition)
	if !r.gates.CloneSetPartitionRollback || r.revs.current.Name == r.revs.update.Name {
		oldDiff, newDiff = max(oldDiff, 0), min(newDiff, 0)
	}
	updSurge := 0
	if (oldDiff > 0 && newDiff < 0) || (oldDiff < 0 && newDiff > 0) {
		updSurge = min(abs(oldDiff), abs(newDiff))
	}
	return scaleSurge >= updSurge
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
