package clonesetcore

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/clonecore/cloneset/inplace"
	"github.com/clonecore/cloneset/lifecycle"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/ordering"
	"github.com/clonecore/cloneset/partition"
	"github.com/clonecore/cloneset/pvc"
)

// round holds the state of one reconcile while the planner builds its plan.
type round struct {
	s     *model.Scenario
	cs    *model.CloneSet
	now   time.Time
	gates model.FeatureGates

	replicas int
	revs     revisionSet

	// observed are the active, owned pods matching the selector, in canonical
	// (name) order: the pod set of every decision and of the status.
	observed []*model.Pod
	// info holds, for observed[i], what the decisions read of the pod.
	info []podInfo
	// keys, when set (by a Tracker), holds ordering.ReadKeys of the observed
	// pods: keys[keyAt[i]] are those of observed[i] (and of
	// byInput.observed[i], the same order then). The orderings then do not
	// read the pods for their keys, and take them by index.
	keys  []ordering.PodKeys
	keyAt []int
	// decisions, when set (by a Tracker), keeps the update decisions
	// between plans, by slot (keyAt).
	decisions *decisionCache
	// delScratch, when set (by a Tracker), lends the deletion rankings
	// their buffers from plan to plan.
	delScratch *ordering.DeletionScratch
	// updScratch, when set (by a Tracker), lends the update sort its
	// buffers and the order of the previous plan.
	updScratch *ordering.UpdateScratch
	// bufs, when set (by a Tracker), lends the update phase the slices of
	// the previous plan (none of them reaches the Result).
	bufs *roundBuffers
	// recs, when set (by a Tracker), are its pod records by slot (r.keyAt
	// maps an observed index to its slot).
	recs []podRecord
	// activeOwned are the observed pods plus released ones (owned, active, no
	// longer matching the selector): PVC clean-up still counts them.
	activeOwned []*model.Pod
	released    []*model.Pod
	inactive    []*model.Pod
	// byInput are observed and activeOwned in the scenario's order, for the
	// steps whose result does not depend on the order and that read every
	// pod: in that order they visit memory sequentially. position[j] is the
	// index in observed of byInput.observed[j].
	byInput struct {
		observed, activeOwned []*model.Pod
		position              []int
		ids                   []string // instance-id label of observed[j]
		// canonical is set when the input order is the canonical order
		// (observed is r.observed, position the identity: a Tracker).
		canonical bool
	}
	// uniqueNames is true when no two observed pods share a name: the
	// rankings, whose last key is the name, then do not depend on the order
	// of their input.
	uniqueNames bool
	// pvcs holds the instance ids of the round's pods and PVCs, the clean-up
	// and V (see cleanupPVCs).
	pvcs *pvc.Inventory
	// claimSet, when set (by a Tracker), holds the scenario's PVCs already
	// read: cleanupPVCs reads no PVC.
	claimSet *pvc.ClaimSet
	// inventory, when set (by a Tracker), caches the round's Inventory
	// between plans while the pods' kinds and instance ids, the PVCs and
	// the CloneSet do not change.
	inventory *inventoryCache
	// nodes, when set (by a Tracker), are the scenario's nodes by name and
	// what the Tracker knows of the node names its pods reference.
	nodes *nodeIndex
	// delOpts are the deletion-ranking options, computed on first use (see
	// deletionOptions).
	delOpts *ordering.DeletionOptions

	budget       partition.Budget
	updateBudget partition.Budget
	counters     partition.Counters

	actions   []model.Action
	notes     notes
	requeue   []time.Duration
	scaleErr  error
	updateErr error

	// limits bound the plan (limits.go); limitErr is set when the plan
	// would exceed them, and Plan then returns it instead of a plan.
	limits   Limits
	limitErr error
}

// ErrNoCloneSet is returned by Plan for a scenario without a CloneSet.
var ErrNoCloneSet = errors.New("scenario has no CloneSet")

// Plan computes the decision of one reconcile of the scenario's CloneSet. It is
// pure: the same scenario gives the same plan, byte for byte, whatever the order
// of the objects in it, and nothing outside the scenario (no clock) is read.
// How to carry a plan out is the caller's contract of the package doc.
//
// Plan applies the default Limits; PlanWithOptions takes others.
func Plan(s *model.Scenario) (*Result, error) { return PlanWithOptions(s, Options{}) }

// PlanWithOptions is Plan with options. A plan that would exceed
// opts.Limits is not built: the answer is a *LimitError naming the field and
// the limit, and no allocation of the round was sized by the numbers that
// exceed it.
func PlanWithOptions(s *model.Scenario, opts Options) (*Result, error) {
	if s == nil || s.CloneSet == nil {
		return nil, ErrNoCloneSet
	}
	limits, err := opts.Limits.resolved()
	if err != nil {
		return nil, err
	}
	r := newRound(s)
	r.limits = limits
	return r.plan()
}

// plan runs the phases of a round built by newRound or newRoundFrom; the
// errors are a spec.template the API types cannot read (resolveRevisions)
// and a *LimitError.
func (r *round) plan() (*Result, error) {
	if r.revs.err != nil {
		return nil, r.revs.err
	}
	r.revisionActions()
	r.cleanupPVCs()
	r.preDownload()
	changed := false
	if !r.cs.DeletionTimestamp.IsZero() {
		r.notes.add("the CloneSet is being deleted: no scaling and no update (status is still computed)")
	} else {
		changed = r.scale()
		if changed {
			r.notes.add("the scale phase changed pods: the update phase waits for the next round")
		} else {
			r.update()
		}
	}
	if r.limitErr != nil {
		return nil, r.limitErr
	}
	r.noteIgnoredNotReady()
	status := r.status()
	r.truncatePodsToDelete()
	r.truncateHistory()
	return r.finish(status), nil
}

func newRound(s *model.Scenario) *round { return newRoundFrom(s, nil) }

// roundSource gives a round its revisions and pods already resolved and
// read (a Tracker), instead of resolveRevisions and classifyPods.
type roundSource interface {
	resolveRevisions(cs *model.CloneSet, notes *notes) revisionSet
	classifyPods(r *round)
}

func newRoundFrom(s *model.Scenario, src roundSource) *round {
	cs := s.CloneSet
	r := &round{s: s, cs: cs, now: s.Now, gates: s.Gates, limits: Limits{MaxCreatePods: DefaultMaxCreatePods}}
	if cs.Spec.Replicas == nil {
		r.notes.add("spec.replicas is absent: planning with the default 1 (upstream's scale phase would fail with \"spec.Replicas is nil\")")
	}
	r.replicas = cs.Spec.DesiredReplicas()
	setAside := append([]model.SetAside(nil), s.SetAside...)
	sort.Slice(setAside, func(i, j int) bool {
		if setAside[i].Kind != setAside[j].Kind {
			return setAside[i].Kind < setAside[j].Kind
		}
		return setAside[i].Name < setAside[j].Name
	})
	for _, sa := range setAside {
		r.notes.add("%s %s is left out: %s", sa.Kind, sa.Name, sa.Reason)
	}
	// The revisions are resolved first (pods read whether they are at the
	// update revision), their notes come after those of the pods.
	var revNotes notes
	if src != nil {
		r.revs = src.resolveRevisions(cs, &revNotes)
	} else {
		r.revs = resolveRevisions(cs, s.Revisions, &revNotes)
	}
	if r.revs.err != nil {
		return r // plan returns the error: no pod is read for a refused plan
	}
	if src != nil {
		src.classifyPods(r)
	} else {
		r.classifyPods()
	}
	r.noteTolerated()
	r.notes.addAll(revNotes.list)
	r.computeBudgets()
	return r
}

// podInfo is what the decisions of a round read of one observed pod: its
// labels, annotations and conditions are read once, in classifyPods, and every
// later step of the round uses these facts.
//
// It is kept small (24 bytes): the rounds of large CloneSets walk it often,
// and facts read rarely (ready time, node) are read from the pod.
type podInfo struct {
	state     string // lifecycle state label
	updated   bool   // at the update revision (model.Pod.InRevision)
	specified bool   // specified-delete: label or podsToDelete
	available bool   // model.Pod.IsAvailable(minReadySeconds, now)
	ready     bool   // model.Pod.IsStatusReady
	inGrace   bool   // in an in-place grace period (model.Pod.GraceValue)
	// refresh is false when the refresh step has nothing to do for the pod
	// (inplace.RefreshNeeded, lifecycle.RefreshNeeded).
	refresh bool
}

// podKind is what a pod of the scenario is to the round.
type podKind int8

const (
	podIgnored  podKind = iota // controlled by another object, or an orphan the selector does not match
	podInactive                // owned, terminating or terminal
	podObserved                // owned, active, matching the selector
	podAdopted                 // an active orphan the selector matches
	podReleased                // owned, active, no longer matching the selector
)

// classify tells what the pod is to the round (LSV 0); selector is the
// CloneSet's.
func (r *round) classify(p *model.Pod, selector model.LabelMatcher) podKind {
	ref := model.ControllerRef(p.OwnerReferences)
	owned := ref.OwnedBy(r.cs)
	if !owned && ref != nil {
		return podIgnored // belongs to something else; the loader normally sets it aside
	}
	if !p.IsActive() {
		if owned {
			return podInactive
		}
		return podIgnored
	}
	matches := selector.Matches(p.Labels)
	switch {
	case owned && matches:
		return podObserved
	case owned:
		return podReleased
	case matches:
		return podAdopted
	}
	return podIgnored
}

// read returns the facts of an observed pod; specified only says whether
// the pod carries the specified-delete label (classifyPods adds podsToDelete).
func (r *round) read(p *model.Pod) podInfo {
	state := p.LifecycleState()
	statusReady, updateReady := p.Readiness(r.cs.Spec.MinReadySeconds, r.now)
	inGrace, inPlaceRefresh := inplace.RefreshFacts(p)
	_, hasHash := p.Labels[model.LabelPodTemplateHash]
	return podInfo{
		state:     state,
		updated:   model.RevisionMatches(p.RevisionLabel(), r.revs.update.Name),
		specified: p.HasSpecifiedDeleteLabel(),
		available: model.AvailableState(state) && updateReady, // model.Pod.IsAvailable
		ready:     statusReady,
		inGrace:   inGrace,
		refresh:   inPlaceRefresh || lifecycle.RefreshNeeded(state, hasHash),
	}
}

// computeBudgets runs the budget arithmetic of both phases
// (scale-and-budgets 1-3): the pods are classified from r.info, once, and
// counted once per variant only when the two variants differ.
func (r *round) computeBudgets() {
	puau := r.gates.PreparingUpdateAsUpdate
	var classes []partition.PodClass
	if r.bufs != nil {
		r.bufs.classes = slices.Grow(r.bufs.classes[:0], len(r.info))
		classes = r.bufs.classes[:len(r.info)]
	} else {
		classes = make([]partition.PodClass, len(r.info))
	}
	for i, in := range r.info {
		classes[i] = partition.PodClass{
			Updated:         in.updated || (puau && in.state == model.StatePreparingUpdate), // partition.ScaleVariant
			PreparingDelete: in.state == model.StatePreparingDelete,
			SpecifiedDelete: in.specified,
			Available:       in.available,
		}
	}
	r.counters = partition.CountClasses(classes)
	updateCounters := r.counters
	if puau {
		for i, in := range r.info {
			classes[i].Updated = in.updated // partition.UpdateVariant
		}
		updateCounters = partition.CountClasses(classes)
	}
	params := partition.Resolve(r.cs)
	flags := partition.FlagsFor(r.partitionInput())
	r.budget = partition.Diff(params, r.counters, flags)
	r.updateBudget = partition.Diff(params, updateCounters, flags)
	r.notes.addAll(params.Problems)
}

// noteTolerated names the inputs upstream's webhook would reject but the planner
// accepts, because real clusters can hold them (docs/spec/DECISIONS.md "Input strictness").
func (r *round) noteTolerated() {
	errs := model.Validate(r.cs, r.s.Pods)
	for _, e := range errs {
		if model.IsToleratedWhenStored(e.Rule) {
			r.notes.add("the webhook would reject this CloneSet (%s: %s); planning it anyway, as the controller does: it builds the revision and the pods of such a template", e.Path, e.Message)
		}
	}
	switch {
	case errs.HasRule("B17"):
		r.notes.add("the v1beta1 webhook would reject this CloneSet (maxUnavailable below 1; it ignores maxSurge, quirk B17); planning it anyway: such objects exist when created through v1alpha1 or when replicas changed through the scale subresource")
	case errs.HasRule("A17"):
		r.notes.add("the webhook would reject this CloneSet (maxUnavailable and maxSurge both below 1, A17); planning it anyway: replicas may have changed through the scale subresource")
	}
	for i, p := range r.observed {
		if st := r.info[i].state; !model.KnownLifecycleState(st) {
			r.notes.add("pod %s has the unknown lifecycle state %q: it counts as unavailable and cannot be updated in place (as upstream)", p.Name, st)
		}
	}
}

func (r *round) partitionInput() partition.Input {
	return partition.Input{
		CloneSet: r.cs, Pods: r.observed, CurrentRevision: r.revs.current.Name,
		UpdateRevision: r.revs.update.Name, Gates: r.gates, Controller: r.s.Controller, Now: r.now,
	}
}

// classifyPods splits the scenario's pods into observed, released and inactive
// pods, in canonical order (LSV 0, scale-and-budgets 0), and reads the facts of
// the observed pods (r.info). Every pod is read once, in input order, which
// visits memory sequentially; the canonical order is then a sort of the names
// alone.
func (r *round) classifyPods() {
	pods := r.s.Pods
	selector := r.cs.Spec.Selector.Matcher()
	kinds := make([]podKind, len(pods))
	order := make([]int, len(pods))
	r.byInput.observed = make([]*model.Pod, 0, len(pods))
	r.byInput.activeOwned = make([]*model.Pod, 0, len(pods))
	r.info = make([]podInfo, 0, len(pods)) // in input order until the end
	r.byInput.ids = make([]string, 0, len(pods))
	for i, p := range pods {
		order[i] = i
		kinds[i] = r.classify(p, selector)
		switch kinds[i] {
		case podObserved, podAdopted:
			r.info = append(r.info, r.read(p))
			r.byInput.ids = append(r.byInput.ids, p.InstanceID())
			r.byInput.observed = append(r.byInput.observed, p)
			r.byInput.activeOwned = append(r.byInput.activeOwned, p)
		case podReleased:
			r.byInput.activeOwned = append(r.byInput.activeOwned, p)
		}
	}
	model.SortByName(order, func(i int) string { return pods[i].Name })
	position := make([]int, len(pods)) // index in r.observed, by input index
	r.observed = make([]*model.Pod, 0, len(r.byInput.observed))
	r.activeOwned = make([]*model.Pod, 0, len(r.byInput.activeOwned))
	var adopted []string
	for _, i := range order {
		p := pods[i]
		switch kinds[i] {
		case podInactive:
			r.inactive = append(r.inactive, p)
		case podObserved, podAdopted:
			position[i] = len(r.observed)
			r.observed = append(r.observed, p)
			r.activeOwned = append(r.activeOwned, p)
			if kinds[i] == podAdopted {
				adopted = append(adopted, p.Name)
			}
		case podReleased:
			r.released = append(r.released, p)
			r.activeOwned = append(r.activeOwned, p)
		}
	}
	r.byInput.position = make([]int, 0, len(r.observed))
	for i, k := range kinds {
		if k == podObserved || k == podAdopted {
			r.byInput.position = append(r.byInput.position, position[i])
		}
	}
	// r.info to canonical order, in place: r.info[position[j]] = r.info[j].
	done := make([]bool, len(r.info))
	for j := range r.info {
		if done[j] {
			continue
		}
		done[j] = true
		moving := r.info[j]
		for k := r.byInput.position[j]; k != j; k = r.byInput.position[k] {
			moving, r.info[k] = r.info[k], moving
			done[k] = true
		}
		r.info[j] = moving
	}
	r.finishPods(adopted)
}

// finishPods completes the classification of the round's pods: podsToDelete,
// the uniqueness of names and the notes on adopted and released pods.
func (r *round) finishPods(adopted []string) {
	r.markPodsToDelete()
	r.uniqueNames = true
	for i := 1; i < len(r.observed); i++ {
		if r.observed[i].Name == r.observed[i-1].Name {
			r.uniqueNames = false
			break
		}
	}
	r.notePods(adopted)
}

// notePods names the adopted and released pods.
func (r *round) notePods(adopted []string) {
	if len(adopted) > 0 {
		r.notes.add("orphan pods matching the selector are treated as adopted: %s", strings.Join(adopted, ", "))
	}
	if len(r.released) > 0 {
		names := make([]string, len(r.released))
		for i, p := range r.released {
			names[i] = p.Name
		}
		r.notes.add("released (no longer match the selector, not counted): %s", strings.Join(names, ", "))
	}
}

// noteIgnoredNotReady names the pods this round moves into a hooked state
// whose hook asks for markPodNotReady while the pod lacks the KruisePodReady
// readiness gate: their SetLifecycleState carries markPodNotReady false, the
// effective flag (docs/spec/DECISIONS.md), and the note says why.
func (r *round) noteIgnoredNotReady() {
	l := r.cs.Spec.Lifecycle
	if l == nil {
		return
	}
	var names []string
	for _, a := range r.actions {
		if a.Type != model.ActionSetLifecycleState || a.MarkPodNotReady {
			continue
		}
		var hook *model.LifecycleHook
		switch a.To {
		case model.StatePreparingDelete:
			hook = l.PreDelete
		case model.StatePreparingUpdate:
			hook = l.InPlaceUpdate
		}
		if hook == nil || !hook.MarkPodNotReady {
			continue
		}
		i, found := slices.BinarySearchFunc(r.observed, a.Pod, func(p *model.Pod, n string) int { return strings.Compare(p.Name, n) })
		if found && lifecycle.NotReadyIgnored(r.observed[i], true) {
			names = append(names, a.Pod)
		}
	}
	if len(names) > 0 {
		r.notes.add("markPodNotReady has no effect on %s: no %s readiness gate, so no not-ready key is written (only pods with that gate can be marked not ready)",
			strings.Join(names, ", "), model.ConditionKruisePodReady)
	}
}

func (r *round) emit(acts ...model.Action) { r.actions = append(r.actions, acts...) }

func (r *round) push(d time.Duration) {
	if d > 0 {
		r.requeue = append(r.requeue, d)
	}
}

// markPodsToDelete sets info.specified for the observed pods named in
// podsToDelete: a merge of two sorted lists instead of a lookup per pod.
func (r *round) markPodsToDelete() {
	list := r.cs.Spec.ScaleStrategy.PodsToDelete
	if len(list) == 0 {
		return
	}
	names := slices.Clone(list)
	slices.Sort(names)
	k := 0
	for i, p := range r.observed { // sorted by name
		for k < len(names) && names[k] < p.Name {
			k++
		}
		if k < len(names) && names[k] == p.Name {
			r.info[i].specified = true
		}
	}
}

// truncatePodsToDelete drops names of podsToDelete that are not observed pods
// (scale-and-budgets 6.7).
func (r *round) truncatePodsToDelete() {
	list := r.cs.Spec.ScaleStrategy.PodsToDelete
	if len(list) == 0 {
		return
	}
	var remove []string
	for _, n := range list {
		// r.observed is sorted by name.
		if _, found := slices.BinarySearchFunc(r.observed, n, func(p *model.Pod, n string) int { return strings.Compare(p.Name, n) }); !found {
			remove = append(remove, n)
		}
	}
	if len(remove) > 0 {
		r.emit(model.Action{Type: model.ActionUpdatePodsToDelete, Remove: remove, Reason: "names of pods that are gone"})
	}
}

func (r *round) finish(status Status) *Result {
	p := &Result{
		APIVersion: PlanAPIVersion, Kind: PlanKind,
		CloneSet:        ObjectRef{Namespace: r.cs.Namespace, Name: r.cs.Name},
		Now:             formatNow(r.now),
		CurrentRevision: r.revs.current.Name, UpdateRevision: r.revs.update.Name,
		Budget: r.budget, Actions: r.actions, Status: status, Notes: r.notes.list,
	}
	if r.updateBudget != r.budget {
		ub := r.updateBudget
		p.UpdateBudget = &ub
	}
	if p.Actions == nil {
		p.Actions = []model.Action{}
	}
	if p.Notes == nil {
		p.Notes = []string{}
	}
	var best time.Duration
	for _, d := range r.requeue {
		if d > 0 && (best == 0 || d < best) {
			best = d
		}
	}
	p.RequeueAfterSeconds = best.Seconds()
	return p
}

// batchOf returns the 0-based slow-start batch of the i-th created pod (batches
// of 1, 2, 4, ...).
func batchOf(i int) int { return bits.Len(uint(i+1)) - 1 }

func podNames(pods []*model.Pod) string {
	names := make([]string, len(pods))
	for i, p := range pods {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
