package clonesetcore

import (
	"slices"
	"time"

	"github.com/clonecore/cloneset/inplace"
	"github.com/clonecore/cloneset/lifecycle"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/ordering"
	"github.com/clonecore/cloneset/partition"
)

// update runs the update phase (update-and-ordering 2.1): refresh every pod, stop
// if that changed any, then the rolling update within the budget.
func (r *round) update() {
	if r.refresh() {
		r.notes.add("the refresh step changed pods: no pod is updated this round")
		return
	}
	cs := r.cs
	if cs.Spec.UpdateStrategy.Type == model.UpdateStrategyOnDelete {
		if r.waitingCount() > 0 {
			r.notes.add("updateStrategy OnDelete: pods are updated only when someone deletes them")
		}
		return
	}
	ru := cs.Spec.UpdateStrategy.RollingUpdate
	if ru != nil && ru.Paused {
		if w := r.waitingCount(); w > 0 {
			r.notes.add("update paused (rollingUpdate.paused): %s for update", podsWait(w))
		}
		return
	}
	ub := r.updateBudget
	if ub.UpdateNum == 0 {
		if w := r.waitingCount(); w > 0 && ub.Partition > 0 {
			r.notes.add("partition %d keeps %s at old revisions", ub.Partition, plural(w, "pod", "pods"))
		}
		return
	}
	forward := ub.UpdateNum > 0
	target := r.revs.update
	if !forward {
		target = r.revs.current
		r.notes.add("rolling back %s to the current revision %s (CloneSetPartitionRollback)", plural(-ub.UpdateNum, "pod", "pods"), target.Name)
	}
	cands, at := r.candidates(forward) // at[j]: the index in r.observed of cands[j]
	if len(cands) == 0 {
		return
	}
	r.noteOrderPriority(ru, cands)
	// AllPods only feeds counts: the scenario's order reads it sequentially.
	byInput, at := r.inInputOrder(cands, at)
	b := r.bufs
	if b == nil {
		b = &roundBuffers{}
	}
	states := slices.Grow(b.states[:0], len(at))[:len(at)] // read by classifyPods
	b.states = states
	for j, i := range at {
		states[j] = r.info[i].state
	}
	// With r.keys (a Tracker, whose byInput order is the canonical order),
	// the keys are passed by index (r.keyAt), not copied.
	var keyIndex []int
	if r.keys != nil {
		keyIndex = slices.Grow(b.keyIndex[:0], len(at))[:len(at)]
		b.keyIndex = keyIndex
		for j, i := range at {
			keyIndex[j] = r.keyAt[i]
		}
	}
	sorted := ordering.SortForUpdate(byInput, ordering.UpdateOptions{RollingUpdate: ru, AllPods: r.byInput.observed, LifecycleStates: states, Keys: r.keys, KeyIndex: keyIndex, AllKeys: r.keys, AllKeyIndex: r.keyAt, Scratch: r.updScratch})
	ordered := slices.Grow(b.ordered[:0], len(sorted))[:len(sorted)] // indexes in r.observed
	b.ordered = ordered
	for i, x := range sorted {
		ordered[i] = at[x.Index]
	}
	admitted, why := r.limitUpdates(ordered, abs(ub.UpdateNum), ub.UpdateMaxUnavailable, target.Name)
	if why != "" {
		r.notes.addText(why)
	}
	// Every admitted pod moves to the target: in a roll-back that is the
	// current revision, as upstream hands currentRevision to its in-place path
	// (update-and-ordering 2.4). A recreate only marks the pod; its
	// replacement is created by a later scale-out at the revision the
	// arithmetic wants, the same target.
	podTarget := target.Name
	revisions := r.revisionList()
	index := inplace.NewRevisionIndex(revisions)
	r.actions = slices.Grow(r.actions, len(admitted))
	for j, p := range admitted {
		var decision lifecycle.UpdateDecision
		input := lifecycle.UpdateInput{
			CloneSet: cs, Pod: p, Target: podTarget, Revisions: revisions, Index: index, Gates: r.gates, Now: r.now,
		}
		if r.decisions != nil { // admitted[j] is r.observed[ordered[j]]
			r.actions, decision = r.decisions.appendDecide(r.actions, r.keyAt[ordered[j]], input)
		} else {
			r.actions, decision = lifecycle.AppendDecideUpdate(r.actions, input)
		}
		if decision.Note != "" {
			r.notes.addText(decision.Note)
		}
		r.push(decision.RequeueAfter)
		if decision.Err != nil {
			r.updateErr = decision.Err
			r.notes.add("the update loop stops: %v (FailedUpdate)", decision.Err)
			return
		}
	}
}

// noteOrderPriority names the order-priority quirk when it decides something:
// candidates without any orderedKey label are updated before every labelled one
// (update-and-ordering 6.2, 11.1; docs/spec/DECISIONS.md).
func (r *round) noteOrderPriority(ru *model.RollingUpdateStrategy, cands []*model.Pod) {
	if ru == nil || ru.PriorityStrategy == nil || len(ru.PriorityStrategy.WeightPriority) > 0 || len(ru.PriorityStrategy.OrderPriority) == 0 {
		return
	}
	var unlabeled []*model.Pod
	labeled := false
	for _, p := range cands {
		has := false
		for _, t := range ru.PriorityStrategy.OrderPriority {
			if _, ok := p.Labels[t.OrderedKey]; ok {
				has = true
				break
			}
		}
		if has {
			labeled = true
		} else {
			unlabeled = append(unlabeled, p)
		}
	}
	if labeled && len(unlabeled) > 0 {
		r.notes.add("order priority: pods without any orderedKey label (%s) are updated before every labelled pod (quirk of the controller's code, update-and-ordering 11.1)", podNames(unlabeled))
	}
}

// revisionList returns the known revisions plus a derived update revision.
func (r *round) revisionList() []*model.Revision {
	if !r.revs.derived {
		return r.revs.sorted
	}
	return append(append([]*model.Revision(nil), r.revs.sorted...), r.revs.update)
}

// refresh runs step 1 of the update phase for every observed pod and reports
// whether a lifecycle label or the template-hash label was written.
func (r *round) refresh() bool {
	// The per-pod steps are pure: they run in input order (sequential
	// memory), and their results are applied in canonical order.
	// Only the pods read as needing it are refreshed (podInfo.refresh).
	var results []indexedRefresh
	if r.bufs != nil {
		results = r.bufs.refreshed[:0]
		defer func() { clear(results); r.bufs.refreshed = results[:0] }()
	}
	for j, p := range r.byInput.observed {
		i := r.byInput.position[j]
		if !r.info[i].refresh {
			continue
		}
		// A Tracker remembers the pods outside a grace period for which the
		// step had nothing to do (decisionCache.refreshIsQuiet).
		var quiet quietRefresh
		keep := r.decisions != nil && !r.info[i].inGrace
		if keep {
			quiet = quietRefresh{pod: p, cs: r.cs, update: r.revs.update.Name, gates: r.gates}
			if r.decisions.refreshIsQuiet(r.keyAt[i], quiet) {
				continue
			}
		}
		res := r.refreshPod(p, r.info[i].state)
		if keep && res.err == nil && res.wait == 0 && len(res.patches) == 0 && len(res.actions) == 0 {
			r.decisions.setRefreshQuiet(r.keyAt[i], quiet)
		}
		results = append(results, indexedRefresh{i, res})
	}
	if !r.byInput.canonical {
		slices.SortFunc(results, func(a, b indexedRefresh) int { return a.i - b.i })
	}
	changed := false
	for k := range results {
		res, p := &results[k].res, r.observed[results[k].i]
		if res.err != nil {
			r.updateErr = res.err
			r.notes.add("%v: the update phase aborts (FailedUpdate)", res.err)
			return true
		}
		r.emit(res.patches...)
		if res.wait > 0 {
			r.push(res.wait)
			r.notes.add("pod %s waits: in-place update grace period, %s left", p.Name, res.wait)
		}
		if len(res.actions) > 0 {
			r.emit(res.actions...)
			changed = true
		}
	}
	return changed
}

// indexedRefresh is the refresh result of observed pod i.
type indexedRefresh struct {
	i   int // index in r.observed
	res refreshResult
}

// refreshResult is what the refresh step decides for one pod.
type refreshResult struct {
	patches []model.Action // in-place bookkeeping (inplace.Refresh)
	wait    time.Duration  // grace period left
	err     error          // a malformed annotation: the update phase aborts
	actions []model.Action // lifecycle transitions and repairs (lifecycle.Refresh)
}

// refreshPod is the refresh step of one observed pod in lifecycle state state.
func (r *round) refreshPod(p *model.Pod, state string) refreshResult {
	patches, wait, err := inplace.Refresh(p, r.gates, r.now)
	if err != nil {
		return refreshResult{err: err}
	}
	// Only the Updating transition reads the completion check (and its
	// annotations), so other pods skip it.
	completed := false
	if state == model.StateUpdating {
		done, err := inplace.Completed(p, r.gates)
		completed = done && err == nil
	}
	return refreshResult{patches: patches, wait: wait, actions: lifecycle.RefreshInState(r.cs, p, state, r.revs.update.Name, completed)}
}

// waitingCount counts the observed pods not at the update revision.
func (r *round) waitingCount() int {
	n := 0
	for _, in := range r.info {
		if !in.updated {
			n++
		}
	}
	return n
}

// roundBuffers are slices of the scale and update phases a Tracker lends
// from plan to plan (none of them reaches the Result).
type roundBuffers struct {
	cands                     []*model.Pod
	candAt, keyIndex, ordered []int
	states                    []string
	seen                      map[string]bool // the notes' set
	upd, old                  []*model.Pod    // the scale-in groups
	updAt, oldAt              []int
	updObs, oldObs            []int
	classes                   []partition.PodClass // computeBudgets
	refreshed                 []indexedRefresh     // refresh (cleared after use)
}

// candidates selects the pods waiting for update (update-and-ordering 2.4,
// 2.5), in canonical order; at holds the index in r.observed of each.
func (r *round) candidates(forward bool) (pods []*model.Pod, at []int) {
	if b := r.bufs; b != nil {
		pods, at = b.cands[:0], b.candAt[:0]
		defer func() { b.cands, b.candAt = pods, at }()
	}
	var inGrace []string
	for i, p := range r.observed {
		switch candidate(r.info[i], forward) {
		case isCandidate:
			pods = append(pods, p)
			at = append(at, i)
		case inGracePeriod:
			inGrace = append(inGrace, p.Name)
		}
	}
	if len(inGrace) > 0 {
		r.notes.add("in an in-place grace period, not updated again now: %v", inGrace)
	}
	return pods, at
}

// inInputOrder returns the candidates (pods, at from candidates) in the
// scenario's order when no two pods share a name: the update order then does
// not depend on the order of its input, and reads the pods sequentially.
// Otherwise it returns them as they are.
func (r *round) inInputOrder(pods []*model.Pod, at []int) ([]*model.Pod, []int) {
	if !r.uniqueNames || r.byInput.canonical {
		return pods, at
	}
	chosen := make([]bool, len(r.observed))
	for _, i := range at {
		chosen[i] = true
	}
	outPods := make([]*model.Pod, 0, len(pods))
	outAt := make([]int, 0, len(at))
	for j, p := range r.byInput.observed {
		if i := r.byInput.position[j]; chosen[i] {
			outPods = append(outPods, p)
			outAt = append(outAt, i)
		}
	}
	return outPods, outAt
}

// Answers of candidate.
const (
	notCandidate = iota
	isCandidate
	inGracePeriod // would be a candidate, but waits for its grace period
)

// candidate tells whether a pod is waiting for update (update-and-ordering
// 2.4, 2.5): not at (forward) or at (roll-back) the update revision, not in
// PreparingDelete, and not in an in-place grace period unless Updated.
func candidate(in podInfo, forward bool) int {
	switch st := in.state; {
	case in.updated == forward, st == model.StatePreparingDelete:
		return notCandidate
	case st == model.StateUpdated:
		return isCandidate
	case in.inGrace:
		return inGracePeriod
	}
	return isCandidate
}

// limitUpdates applies limitUpdateIndexes (update-and-ordering 3) to the
// sorted candidates, given by index in r.observed: the loop stops at the
// first candidate that does not fit. It returns the admitted pods and, when
// some were held back, a sentence saying why.
func (r *round) limitUpdates(sorted []int, n, maxUnavail int, target string) ([]*model.Pod, string) {
	if n < len(sorted) {
		sorted = sorted[:n]
	}
	unavail, unavailT := 0, 0
	for i, p := range r.observed {
		if in := r.info[i]; !in.available {
			unavail++
			if (target == r.revs.update.Name && in.updated) || (target != r.revs.update.Name && p.InRevision(target)) {
				unavailT++
			}
		}
	}
	k := 0
	why := ""
	for _, i := range sorted {
		if unavailT+k >= maxUnavail {
			if maxUnavail <= 0 {
				why = budgetStallNote(r, maxUnavail)
			} else {
				why = sprintf("update budget used up: %d of updateMaxUnavailable %d taken by pods already unavailable at %s or started this round; %s", unavailT+k, maxUnavail, target, podsWait(len(sorted)-k))
			}
			break
		}
		if r.info[i].available { // model.Pod.IsAvailable
			if unavail >= maxUnavail {
				why = sprintf("update budget used up: %s unavailable, updateMaxUnavailable %d; %s", plural(unavail, "pod", "pods"), maxUnavail, podsWait(len(sorted)-k))
				break
			}
			unavail++
		}
		k++
	}
	admitted := make([]*model.Pod, k)
	for j, i := range sorted[:k] {
		admitted[j] = r.observed[i]
	}
	return admitted, why
}

func budgetStallNote(r *round, maxUnavail int) string {
	b := r.updateBudget
	s := sprintf("update waits: updateMaxUnavailable is %d (maxUnavailable %d + %d pods - %d replicas)", maxUnavail, b.MaxUnavailable, len(r.observed), b.Replicas)
	if len(r.observed) < b.Replicas {
		s += "; upstream stalls silently while under-replicated (quirk: the update budget goes negative)"
	}
	return s
}
