package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/partition"
)

// Outcome is how a run ended.
type Outcome string

// Outcomes of a run.
const (
	// Converged: a round did nothing, nothing is pending and the CloneSet has
	// spec.replicas pods, all ready and available.
	Converged Outcome = "converged"
	// Stalled: nothing will ever happen again (no action, no requeue, no world
	// event, no scripted change pending) but the CloneSet is not at rest.
	Stalled Outcome = "stalled"
	// StepLimit: the step limit ended the run.
	StepLimit Outcome = "step-limit"
	// BoundExceeded: the convergence bound was exceeded (a violation).
	BoundExceeded Outcome = "bound-exceeded"
	// Livelock: the run was stopped at the convergence bound in one of the
	// upstream liveness gaps the simulator recognizes (the controller keeps
	// requeueing or acting without ever getting to rest, as upstream does).
	Livelock Outcome = "livelock"
)

// Step is one round of a run: what the world and the user did since the
// previous round, what the controller saw and decided, and what came of it.
type Step struct {
	// Index is the 0-based round number.
	Index int `json:"step"`
	// Time is the virtual time of the round.
	Time time.Time `json:"time"`
	// Elapsed is the time since the start of the run, in seconds.
	Elapsed float64 `json:"elapsedSeconds"`
	// Events are the scripted changes applied just before the round.
	Events []string `json:"events,omitempty"`
	// World is what the cluster did by itself since the previous round.
	World []string `json:"world,omitempty"`
	// Spec is what the spec asked for during the round.
	Spec StepSpec `json:"spec"`
	// Pods counts the pods at the start of the round.
	Pods PodCounts `json:"pods"`
	// Actions are the plan's actions, one line each.
	Actions []string `json:"actions"`
	// Failures are the actions that failed or were skipped, with the reason.
	Failures []string `json:"failures,omitempty"`
	// Status is the status the plan computed.
	Status StepStatus `json:"status"`
	// StatusWritten tells whether that status was written.
	StatusWritten bool `json:"statusWritten"`
	// RequeueAfterSeconds is the plan's requeue delay (0: none).
	RequeueAfterSeconds float64 `json:"requeueAfterSeconds"`
	// Notes are the plan's notes.
	Notes []string `json:"notes,omitempty"`
	// Violations are the invariants that failed in this round.
	Violations []Violation `json:"violations,omitempty"`
	// Plan is the whole plan (not serialized).
	Plan *clonesetcore.Result `json:"-"`
}

// StepSpec is the part of the spec a timeline shows.
type StepSpec struct {
	// Replicas is spec.replicas.
	Replicas int32 `json:"replicas"`
	// Partition is the partition as a pod count.
	Partition int `json:"partition"`
	// Paused is rollingUpdate.paused.
	Paused bool `json:"paused,omitempty"`
}

// StepStatus is the part of the plan's status a timeline shows.
type StepStatus struct {
	// Replicas is status.replicas: the pods the controller sees.
	Replicas int32 `json:"replicas"`
	// ReadyReplicas is status.readyReplicas.
	ReadyReplicas int32 `json:"readyReplicas"`
	// AvailableReplicas is status.availableReplicas.
	AvailableReplicas int32 `json:"availableReplicas"`
	// UpdatedReplicas is status.updatedReplicas: pods at the update revision.
	UpdatedReplicas int32 `json:"updatedReplicas"`
	// UpdatedAvailableReplicas is status.updatedAvailableReplicas.
	UpdatedAvailableReplicas int32 `json:"updatedAvailableReplicas"`
	// ExpectedUpdatedReplicas is status.expectedUpdatedReplicas (replicas - partition).
	ExpectedUpdatedReplicas int32 `json:"expectedUpdatedReplicas"`
	// CurrentRevision is status.currentRevision.
	CurrentRevision string `json:"currentRevision"`
	// UpdateRevision is status.updateRevision.
	UpdateRevision string `json:"updateRevision"`
	// Progressing is "status/reason" of the Progressing condition ("" when absent).
	Progressing string `json:"progressing,omitempty"`
}

// PodCounts counts the CloneSet's pods by revision and state.
type PodCounts struct {
	// Revisions has one entry per revision with active pods, oldest revision first.
	Revisions []RevisionCount `json:"revisions"`
	// Active is the number of active pods.
	Active int `json:"active"`
	// Terminating is the number of pods being deleted.
	Terminating int `json:"terminating"`
	// Terminal is the number of Failed or Succeeded pods still present.
	Terminal int `json:"terminal"`
}

// RevisionCount counts the active pods of one revision.
type RevisionCount struct {
	// Revision is the revision's name.
	Revision string `json:"revision"`
	// Label is the revision's short label in this run ("r1", "r2", ...).
	Label string `json:"label"`
	// Total is the number of active pods of the revision.
	Total int `json:"total"`
	// Available is how many of them are Available.
	Available int `json:"available"`
	// States counts them by lifecycle state ("none" for no state), sorted by state.
	States []StateCount `json:"states"`
}

// StateCount is a number of pods in one lifecycle state.
type StateCount struct {
	// State is the lifecycle state ("none" for pods without one).
	State string `json:"state"`
	// Count is the number of pods in it.
	Count int `json:"count"`
}

// RevisionInfo describes a revision seen during a run.
type RevisionInfo struct {
	// Name is the ControllerRevision's name.
	Name string `json:"name"`
	// Label is its short label in this run, in order of first appearance.
	Label string `json:"label"`
	// Images lists the template's container images ("nginx=nginx:v2").
	Images string `json:"images"`
}

// PodLine is one pod of the final state.
type PodLine struct {
	// Name is the pod's name.
	Name string `json:"name"`
	// Revision is the short label of the pod's revision ("r2").
	Revision string `json:"revision"`
	// State is the lifecycle state ("" when none).
	State string `json:"state"`
	// Phase is status.phase.
	Phase string `json:"phase"`
	// Ready is the status notion of ready (Running, Ready, InPlaceUpdateReady).
	Ready bool `json:"ready"`
	// Available is Available(p, minReadySeconds) at the end of the run.
	Available bool `json:"available"`
	// Node is spec.nodeName.
	Node string `json:"node,omitempty"`
	// Deleting is true for a terminating pod.
	Deleting bool `json:"deleting,omitempty"`
}

// Final is the state of the cluster when the run ended.
type Final struct {
	// Time is the virtual time at the end.
	Time time.Time `json:"time"`
	// Elapsed is the run's length in seconds.
	Elapsed float64 `json:"elapsedSeconds"`
	// Replicas is spec.replicas at the end.
	Replicas int32 `json:"specReplicas"`
	// Pods are every pod of the cluster, terminating and failed ones included.
	Pods []PodLine `json:"pods"`
	// Status is the status of the last round's plan.
	Status StepStatus `json:"status"`
}

// Result is a whole run.
type Result struct {
	// CloneSet names the simulated CloneSet.
	CloneSet string `json:"cloneSet"`
	// Description is the scenario's description.
	Description string `json:"description,omitempty"`
	// Seed is the world's seed.
	Seed uint64 `json:"seed"`
	// Start is the virtual time of the first round.
	Start time.Time `json:"start"`
	// Outcome says how the run ended.
	Outcome Outcome `json:"outcome"`
	// Reason explains the outcome in a sentence.
	Reason string `json:"reason"`
	// Revisions are the revisions seen, in order of first appearance.
	Revisions []RevisionInfo `json:"revisions"`
	// Steps are the rounds.
	Steps []Step `json:"steps"`
	// Final is the state at the end.
	Final Final `json:"final"`
	// Invariants are the invariant reports.
	Invariants []InvariantReport `json:"invariants"`
	// Quirks are the upstream quirks seen taking effect.
	Quirks []string `json:"quirks,omitempty"`
	// Digest is a hash of the whole trace (determinism).
	Digest string `json:"digest"`
}

// Violations returns every failed invariant check of the run.
func (r *Result) Violations() []Violation {
	var out []Violation
	for _, inv := range r.Invariants {
		out = append(out, inv.Violations...)
	}
	return out
}

// OK reports whether every invariant held.
func (r *Result) OK() bool { return len(r.Violations()) == 0 }

// Simulator runs the controller loop over a Cluster: plan, apply, advance the
// clock to the next thing that happens, repeat.
type Simulator struct {
	cfg      Config
	cluster  *Cluster
	events   []Event
	next     int
	steps    []Step
	check    *checker
	done     bool
	outcome  Outcome
	reason   string
	revs     []RevisionInfo
	revLabel map[string]string

	// rollout bookkeeping for InvPartition.
	updateRev    string
	startOld     int
	startP       int
	prevP        int
	raised       bool
	loss         bool
	lastEventAt  time.Time
	stepsAtEvent int
	bound        bound
	failedPhase  string

	// plan is the planner; nil means clonesetcore.Plan (tests swap in broken
	// planners to show that the invariants catch them).
	plan func(*model.Scenario) (*clonesetcore.Result, error)
}

type bound struct {
	steps int
	span  time.Duration
}

// New prepares a simulation of the scenario under cfg.
func New(scn *model.Scenario, cfg Config) (*Simulator, error) {
	if err := checkSize(scn, cfg); err != nil {
		return nil, err
	}
	c, err := NewCluster(scn, cfg.World)
	if err != nil {
		return nil, err
	}
	s := &Simulator{cfg: cfg, cluster: c, check: newChecker(), revLabel: map[string]string{}, prevP: -1}
	s.events = append([]Event(nil), cfg.Events...)
	sort.SliceStable(s.events, func(i, j int) bool { return s.events[i].At < s.events[j].At })
	s.lastEventAt = c.Start()
	if len(s.events) > 0 && s.events[len(s.events)-1].At > 0 {
		s.lastEventAt = c.Start().Add(s.events[len(s.events)-1].At)
	}
	s.bound = convergenceBound(scn, cfg)
	if cfg.Faults.Any() {
		s.check.waive(InvConvergence, "faults are injected")
	} else if cfg.HooksDisabled {
		s.check.waive(InvConvergence, "the hook controller is off")
	}
	s.check.waive(InvDeterminism, "checked by Verify, which runs the simulation twice")
	return s, nil
}

// convergenceBound is the bound of InvConvergence for this scenario.
func convergenceBound(scn *model.Scenario, cfg Config) bound {
	cs := scn.CloneSet
	rMax := cs.Spec.DesiredReplicas()
	for _, e := range cfg.Events {
		if e.Change.Replicas != nil {
			rMax = max(rMax, int(*e.Change.Replicas))
		}
	}
	probe := cs.DeepCopy()
	r := int32(rMax)
	probe.Spec.Replicas = &r
	if ru := probe.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		ru.Paused = false
	}
	_, sMax, _ := budgetOf(probe)
	for _, e := range cfg.Events {
		if e.Change.MaxSurge != nil {
			v, _ := e.Change.MaxSurge.ScaledValueK8s(rMax, true)
			sMax = max(sMax, v)
		}
	}
	n := rMax + clampSurge(sMax, rMax+len(scn.Pods)) + len(scn.Pods)
	d := cfg.Delays
	var grace int32
	if ru := cs.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.InPlaceUpdateStrategy != nil {
		grace = ru.InPlaceUpdateStrategy.GracePeriodSeconds
	}
	cycle := satSum(d.Schedule.Max, d.Start.Max, satMul(2, d.Ready.Max), d.InPlace.Max, d.Terminate.Max, satMul(4, d.Hook.Max),
		satMul(3, d.Reconcile), time.Duration(max(0, int64(cs.Spec.MinReadySeconds)+int64(grace)))*time.Second, 5*time.Second)
	n = max(0, n)
	return bound{steps: 100 + 60*n, span: satAdd(120*time.Second, satMul(time.Duration(3*n), cycle))}
}

// Cluster returns the simulated cluster.
func (s *Simulator) Cluster() *Cluster { return s.cluster }

// Done reports whether the run has ended.
func (s *Simulator) Done() bool { return s.done }

// Steps returns the rounds run so far.
func (s *Simulator) Steps() []Step { return s.steps }

// Step runs one round: the scripted changes due now, a snapshot, the plan,
// its application, the invariant checks; then it advances the clock to the
// next round (the first of: the reconcile triggered by this round's writes,
// the plan's requeue, the world's next event, the next scripted change). It
// returns nil when the run has already ended.
func (s *Simulator) Step() (*Step, error) {
	if s.done {
		return nil, nil
	}
	c := s.cluster
	now := c.Now()
	step := Step{Index: len(s.steps), Time: now, Elapsed: now.Sub(c.Start()).Seconds()}
	spec := false
	for s.next < len(s.events) && !c.Start().Add(s.events[s.next].At).After(now) {
		ev := s.events[s.next]
		s.next++
		desc, err := c.Change(ev.Change)
		if err != nil {
			step.Events = append(step.Events, desc+": "+err.Error())
		} else {
			step.Events = append(step.Events, desc)
			spec = true
		}
		if len(ev.Change.DeletePods) > 0 || len(ev.Change.PodsToDelete) > 0 || ev.Change.PickPodsToDelete > 0 {
			s.loss = true
		}
	}
	step.World = c.TakeLog()
	for _, w := range step.World {
		if nodeLossLine(w) {
			s.loss = true
		}
	}
	before := c.Snapshot()
	planner := s.plan
	if planner == nil {
		planner = s.cfg.planner()
	}
	plan, err := planner(before)
	if err != nil {
		return nil, fmt.Errorf("step %d: %w", step.Index, err)
	}
	s.noteRevisions(before)
	s.trackRollout(before, plan)
	step.Pods = s.countPods(before)
	step.Spec = StepSpec{Replicas: int32(before.CloneSet.Spec.DesiredReplicas())}
	step.Spec.Partition, _ = partition.PartitionCount(before.CloneSet)
	if ru := before.CloneSet.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		step.Spec.Paused = ru.Paused
	}
	rep := c.Apply(plan)
	after := c.Snapshot()
	s.noteRevisions(after)
	step.World = append(step.World, c.TakeLog()...)
	step.Plan = plan
	step.Actions = make([]string, 0, len(plan.Actions))
	for _, a := range plan.Actions {
		step.Actions = append(step.Actions, describeAction(a))
	}
	for _, f := range rep.Failures() {
		why := f.Err
		if f.Skipped {
			why = "skipped: an earlier write of the round failed"
		}
		if f.Quirk != "" {
			why += " [quirk: " + f.Quirk + "]"
		}
		step.Failures = append(step.Failures, describeAction(f.Action)+": "+why)
	}
	step.Status = stepStatus(plan.Status)
	step.StatusWritten = rep.StatusWritten
	step.RequeueAfterSeconds = plan.RequeueAfterSeconds
	step.Notes = plan.Notes
	for _, n := range plan.Notes {
		if strings.HasPrefix(n, "the update loop stops") || strings.Contains(n, "the update phase aborts") {
			s.failedPhase = n
		}
	}
	step.Violations = s.check.checkRound(step.Index, before, plan, &rep, after)
	s.steps = append(s.steps, step)
	if len(step.Events) > 0 {
		s.stepsAtEvent = step.Index
	}
	s.decideNext(plan, &rep, before, spec)
	return &s.steps[len(s.steps)-1], nil
}

func (s *Simulator) decideNext(plan *clonesetcore.Result, rep *ApplyReport, before *model.Scenario, spec bool) {
	c := s.cluster
	now := c.Now()
	var cands []time.Time
	if rep.Changed || spec {
		cands = append(cands, now.Add(c.world.Delays.Reconcile))
	}
	if plan.RequeueAfterSeconds > 0 {
		cands = append(cands, now.Add(plan.RequeueAfter()+c.world.Delays.Requeue))
	}
	if t, ok := c.NextEvent(); ok {
		cands = append(cands, t)
	}
	if s.next < len(s.events) {
		cands = append(cands, c.Start().Add(s.events[s.next].At))
	}
	r := int32(before.CloneSet.Spec.DesiredReplicas())
	st := plan.Status
	atRest := st.Replicas == r && st.ReadyReplicas == r && st.AvailableReplicas == r &&
		c.cs.Status.ObservedGeneration == c.cs.Generation
	if len(plan.Actions) == 0 && !rep.StatusWritten && plan.RequeueAfterSeconds == 0 && len(cands) == 0 && atRest {
		s.finish(Converged, fmt.Sprintf("at rest after %d rounds, %s of virtual time", len(s.steps), fmtDur(now.Sub(c.Start()))))
		return
	}
	if len(cands) == 0 {
		s.finish(Stalled, fmt.Sprintf("nothing more will happen (no action, no requeue, no pending event), but the CloneSet has %d of %d replicas available", st.AvailableReplicas, r))
		return
	}
	if s.boundApplies() && s.next == len(s.events) && !now.Before(s.lastEventAt) {
		n := len(s.steps) - 1 - s.stepsAtEvent
		if n > s.bound.steps || now.Sub(s.lastEventAt) > s.bound.span {
			if gap := s.upstreamGap(); gap != "" {
				s.check.waive(InvConvergence, gap)
				s.finish(Livelock, "stopped at the convergence bound: "+gap)
				return
			}
		}
		if n > s.bound.steps {
			s.check.fail(InvConvergence, len(s.steps)-1, now, "no convergence %d rounds after the last scripted change (bound %d)", n, s.bound.steps)
			s.finish(BoundExceeded, "the convergence bound was exceeded")
			return
		}
		if d := now.Sub(s.lastEventAt); d > s.bound.span {
			s.check.fail(InvConvergence, len(s.steps)-1, now, "no convergence %s after the last scripted change (bound %s)", fmtDur(d), fmtDur(s.bound.span))
			s.finish(BoundExceeded, "the convergence bound was exceeded")
			return
		}
	}
	if len(s.steps) >= s.cfg.maxSteps() {
		s.finish(StepLimit, fmt.Sprintf("the step limit (%d rounds) was reached", s.cfg.maxSteps()))
		return
	}
	next := cands[0]
	for _, t := range cands[1:] {
		if t.Before(next) {
			next = t
		}
	}
	c.AdvanceTo(next)
}

func (s *Simulator) boundApplies() bool {
	r := s.check.byName[InvConvergence]
	return r.Waived == "" && len(s.cluster.quirks) == 0 && s.failedPhase == ""
}

func (s *Simulator) finish(o Outcome, reason string) {
	s.done = true
	s.outcome = o
	s.reason = reason
	conv := s.check.byName[InvConvergence]
	switch {
	case len(s.cluster.quirks) > 0:
		s.check.waive(InvConvergence, "an upstream quirk took effect: "+s.cluster.quirks[0])
	case s.failedPhase != "":
		s.check.waive(InvConvergence, "the update phase failed: "+s.failedPhase)
	case o != Converged:
		if gap := s.upstreamGap(); gap != "" {
			s.check.waive(InvConvergence, gap)
		}
	}
	if conv.Waived == "" {
		conv.Checks++
		switch o {
		case Converged:
		case Stalled:
			s.check.fail(InvConvergence, len(s.steps)-1, s.cluster.Now(), "the run stalled: %s", reason)
		case StepLimit:
			s.check.waive(InvConvergence, "the step limit ended the run before the bound was reached")
		}
	}
	part := s.check.byName[InvPartition]
	if o != Converged {
		part.Waived = "the run did not converge"
		return
	}
	cs := s.cluster.cs
	ru := cs.Spec.UpdateStrategy.RollingUpdate
	if cs.Spec.UpdateStrategy.Type == model.UpdateStrategyOnDelete || ru == nil {
		part.Waived = "updateStrategy is OnDelete"
		return
	}
	if ru.Paused {
		part.Waived = "the rollout is paused"
		return
	}
	part.Checks++
	last := s.steps[len(s.steps)-1]
	// A failed update phase (InPlaceOnly given a change it cannot make in
	// place) leaves pods where they are: O <= P still holds, O == P does not.
	failed := s.failedPhase != ""
	upd := last.Plan.UpdateRevision
	p, _ := partition.PartitionCount(cs)
	old := 0
	for _, q := range observedPods(cs, s.cluster.Snapshot().Pods) {
		if !revMatch(q.Labels[model.LabelRevisionHash], upd) {
			old++
		}
	}
	if old > p {
		s.check.fail(InvPartition, last.Index, last.Time, "%d pods are not at the update revision %s, more than the partition count %d", old, upd, p)
		return
	}
	exact := !failed && ((s.cluster.gates.CloneSetPartitionRollback && last.Status.CurrentRevision != upd) ||
		(s.startOld >= s.startP && !s.raised && !s.loss))
	if exact && old != p {
		s.check.fail(InvPartition, last.Index, last.Time, "%d pods are not at the update revision %s, the partition count is %d (rollout began with %d old pods, partition %d)", old, upd, p, s.startOld, s.startP)
	}
}

// upstreamGap names the upstream liveness gap the run is caught in, if it is
// one the simulator recognizes, or returns "":
//
//   - a scale-out is due but scaleStrategy.maxUnavailable allows no creation
//     while pods are unavailable, and these pods cannot become available: a
//     round that wants to scale out deletes nothing (released PreparingDelete
//     pods stay), and the update budget U + |Pods| - R is not positive while
//     under-replicated (PreparingUpdate or Updating pods stay) (scale-and-budgets
//     3.4, 3.7, 4.3 S3);
//   - a pod waits in PreparingUpdate although no update is due any more (the
//     partition was raised, or the update became a roll-back): only the update
//     step or a return to the update revision (T6) take a pod out of
//     PreparingUpdate (LSV 1.7), so it stays unavailable;
//   - with PreparingUpdateAsUpdate, a pod waits in PreparingUpdate at an old
//     revision: the scale phase counts it as updated and creates no surge pod,
//     while the update phase counts it as old and has no unavailability budget
//     to update it (U + |Pods| - R is 0 without the surge pod), so it stays
//     unavailable (scale-and-budgets 8.11).
func (s *Simulator) upstreamGap() string {
	if pod := s.surgeWithheldForPreparingUpdate(); pod != "" {
		return "upstream deadlock: with PreparingUpdateAsUpdate, pod " + pod + " waits in PreparingUpdate at an old revision; the scale phase counts it as updated and creates no surge pod, while the update phase counts it as old and has no unavailability budget to update it (updateMaxUnavailable 0 without the surge pod) (scale-and-budgets 8.11)"
	}
	if s.scaleOutDeadlock() {
		return "upstream deadlock: a scale-out is due but scaleStrategy.maxUnavailable allows no creation while pods are unavailable, and those pods cannot become available: nothing is deleted in a round that wants to scale out, and the update budget is not positive while under-replicated (scale-and-budgets 3.4, 3.7, 4.3 S3)"
	}
	if pod := s.strandedPreparingUpdate(); pod != "" {
		return "upstream gap: pod " + pod + " waits in PreparingUpdate but is not updated any more (no update is due for it), and nothing else takes a pod out of PreparingUpdate (LSV 1.7)"
	}
	if pod := s.hookedRollbackLoop(); pod != "" {
		return "upstream livelock: an in-place roll-back of pod " + pod + ", which has an inPlaceUpdate hook: the update step moves it to PreparingUpdate to go back to the current revision, and the next refresh step returns it from PreparingUpdate because it is at the update revision (LSV 1.7 T6 compares with the update revision), round after round"
	}
	return ""
}

// hookedRollbackLoop returns a pod that, within the last ten rounds, a
// roll-back moved into PreparingUpdate and the refresh step moved out of it
// again (T6), or "".
func (s *Simulator) hookedRollbackLoop() string {
	into, outOf := map[string]bool{}, map[string]bool{}
	for i := len(s.steps) - 1; i >= 0 && i >= len(s.steps)-10; i-- {
		st := s.steps[i]
		rollingBack := false
		for _, n := range st.Notes {
			rollingBack = rollingBack || strings.HasPrefix(n, "rolling back ")
		}
		for _, a := range st.Plan.Actions {
			if a.Type != model.ActionSetLifecycleState {
				continue
			}
			if rollingBack && a.To == model.StatePreparingUpdate {
				into[a.Pod] = true
			}
			if !rollingBack && a.From == model.StatePreparingUpdate {
				outOf[a.Pod] = true
			}
		}
	}
	for _, name := range model.SortedKeys(into) {
		if outOf[name] {
			return name
		}
	}
	return ""
}

// strandedPreparingUpdate returns a pod of the last round that is in
// PreparingUpdate, not at the update revision, while the round did nothing and
// no forward update is due (the update phase's updateNum is not positive, or
// the rollout is paused).
func (s *Simulator) strandedPreparingUpdate() string {
	if len(s.steps) == 0 {
		return ""
	}
	last := s.steps[len(s.steps)-1]
	if len(last.Plan.Actions) > 0 {
		return ""
	}
	ub := last.Plan.Budget
	if last.Plan.UpdateBudget != nil {
		ub = *last.Plan.UpdateBudget
	}
	ru := s.cluster.cs.Spec.UpdateStrategy.RollingUpdate
	if ub.UpdateNum > 0 && ru != nil && !ru.Paused {
		return ""
	}
	for _, p := range s.cluster.Pods() {
		if p.IsActive() && p.LifecycleState() == model.StatePreparingUpdate && !revMatch(p.Labels[model.LabelRevisionHash], last.Plan.UpdateRevision) {
			return p.Name
		}
	}
	return ""
}

// surgeWithheldForPreparingUpdate returns a pod of the last round that is in
// PreparingUpdate at an old revision while the round did nothing, the two
// budget variants differ (PreparingUpdateAsUpdate), the update variant wants
// a surge pod that the scale variant does not create, and the update
// variant admits no update (updateMaxUnavailable not positive); or "".
func (s *Simulator) surgeWithheldForPreparingUpdate() string {
	if len(s.steps) == 0 {
		return ""
	}
	last := s.steps[len(s.steps)-1]
	ub := last.Plan.UpdateBudget
	if len(last.Plan.Actions) > 0 || ub == nil {
		return ""
	}
	if b := last.Plan.Budget; b.ScaleUp > 0 || ub.ScaleUp <= 0 || ub.UpdateNum <= 0 || ub.UpdateMaxUnavailable > 0 {
		return ""
	}
	for _, p := range s.cluster.Pods() {
		if p.IsActive() && p.LifecycleState() == model.StatePreparingUpdate && !revMatch(p.Labels[model.LabelRevisionHash], last.Plan.UpdateRevision) {
			return p.Name
		}
	}
	return ""
}

// scaleOutDeadlock reports whether the last round wanted to create pods and
// scaleStrategy.maxUnavailable allowed none (some pods are unavailable).
func (s *Simulator) scaleOutDeadlock() bool {
	if len(s.steps) == 0 {
		return false
	}
	b := s.steps[len(s.steps)-1].Plan.Budget
	return b.ScaleUp > 0 && b.ScaleUpLimit <= 0
}

// nodeLossLine reports whether a line of the world's log is a node loss or one
// of its later steps: the node lost, a pod of it failed or evicted, the node
// deleted with its pods. The later steps count on their own because a rollout
// can begin between them: a pod evicted from a node lost in the round the
// rollout began was counted as an old pod when it began, and leaves without the
// update phase when the eviction comes.
func nodeLossLine(w string) bool {
	return (strings.HasPrefix(w, "node ") && strings.HasSuffix(w, " lost")) ||
		strings.Contains(w, ": evicted from lost node ") ||
		strings.Contains(w, ": failed (node ") ||
		(strings.HasPrefix(w, "node ") && strings.Contains(w, " deleted; the pod garbage collector removes"))
}

// trackRollout follows the partition during a rollout (for InvPartition).
func (s *Simulator) trackRollout(before *model.Scenario, plan *clonesetcore.Result) {
	p, _ := partition.PartitionCount(before.CloneSet)
	if plan.UpdateRevision != s.updateRev {
		s.updateRev = plan.UpdateRevision
		s.startP, s.prevP, s.raised, s.loss = p, p, false, false
		s.startOld = 0
		for _, q := range observedPods(before.CloneSet, before.Pods) {
			if !revMatch(q.Labels[model.LabelRevisionHash], plan.UpdateRevision) {
				s.startOld++
			}
			// A pod already on its way out (specified-delete, or in
			// PreparingDelete for a scale-in) leaves without the update
			// phase: the count of old pods can drop below P.
			if specifiedDelete(before.CloneSet, q) || q.LifecycleState() == model.StatePreparingDelete {
				s.loss = true
			}
		}
		return
	}
	if p > s.prevP {
		s.raised = true
	}
	s.prevP = p
}

// Run runs the simulation to its end and returns the result.
func (s *Simulator) Run() (*Result, error) {
	for !s.done {
		if _, err := s.Step(); err != nil {
			return nil, err
		}
	}
	return s.Result(), nil
}

// Result returns the run so far (complete once Done).
func (s *Simulator) Result() *Result {
	c := s.cluster
	cs := c.cs
	res := &Result{
		CloneSet: cs.Namespace + "/" + cs.Name, Description: c.description, Seed: c.world.Seed, Start: c.Start(),
		Outcome: s.outcome, Reason: s.reason, Revisions: append([]RevisionInfo(nil), s.revs...),
		Steps: s.steps, Invariants: s.check.list(), Quirks: c.Quirks(),
	}
	res.Final = Final{Time: c.Now(), Elapsed: c.Now().Sub(c.Start()).Seconds(), Replicas: int32(cs.Spec.DesiredReplicas())}
	if len(s.steps) > 0 {
		res.Final.Status = s.steps[len(s.steps)-1].Status
	}
	for _, p := range c.Pods() {
		line := PodLine{
			Name: p.Name, Revision: s.label(p.Labels[model.LabelRevisionHash]), State: p.Labels[model.LabelLifecycleState],
			Phase: p.Status.Phase, Ready: simReady(p), Available: simAvailable(p, cs.Spec.MinReadySeconds, c.Now()),
			Node: p.Spec.NodeName, Deleting: !p.DeletionTimestamp.IsZero(),
		}
		res.Final.Pods = append(res.Final.Pods, line)
	}
	res.Digest = digest(res)
	return res
}

// Run simulates the scenario under cfg to the end.
func Run(scn *model.Scenario, cfg Config) (*Result, error) {
	s, err := New(scn, cfg)
	if err != nil {
		return nil, err
	}
	return s.Run()
}

// Verify runs the simulation twice and checks InvDeterminism: both runs must
// have the same digest. It returns the first run's result, its determinism
// report filled in.
func Verify(scn *model.Scenario, cfg Config) (*Result, error) {
	a, err := Run(scn, cfg)
	if err != nil {
		return nil, err
	}
	b, err := Run(scn, cfg)
	if err != nil {
		return nil, err
	}
	for i := range a.Invariants {
		inv := &a.Invariants[i]
		if inv.Name != InvDeterminism {
			continue
		}
		inv.Waived = ""
		inv.Checks = 1
		if a.Digest != b.Digest {
			inv.Violations = append(inv.Violations, Violation{Invariant: InvDeterminism, Step: -1,
				Message: fmt.Sprintf("digests %s and %s differ (%d and %d rounds)", a.Digest, b.Digest, len(a.Steps), len(b.Steps))})
		}
	}
	return a, nil
}

func digest(r *Result) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	for _, s := range r.Steps {
		_ = enc.Encode(s)
		if s.Plan != nil {
			_ = enc.Encode(s.Plan.Actions)
		}
	}
	_ = enc.Encode(r.Final)
	_ = enc.Encode(r.Outcome)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func stepStatus(s clonesetcore.Status) StepStatus {
	out := StepStatus{
		Replicas: s.Replicas, ReadyReplicas: s.ReadyReplicas, AvailableReplicas: s.AvailableReplicas,
		UpdatedReplicas: s.UpdatedReplicas, UpdatedAvailableReplicas: s.UpdatedAvailableReplicas,
		ExpectedUpdatedReplicas: s.ExpectedUpdatedReplicas, CurrentRevision: s.CurrentRevision, UpdateRevision: s.UpdateRevision,
	}
	for _, c := range s.Conditions {
		if c.Type == model.ConditionProgressing {
			out.Progressing = c.Status + "/" + c.Reason
		}
	}
	return out
}

// noteRevisions gives every revision a short label in order of appearance.
func (s *Simulator) noteRevisions(scn *model.Scenario) {
	for _, r := range model.SortRevisions(scn.Revisions) {
		if _, ok := s.revLabel[r.Name]; ok {
			continue
		}
		label := fmt.Sprintf("r%d", len(s.revs)+1)
		s.revLabel[r.Name] = label
		var imgs []string
		for _, c := range r.Template.Spec.Containers {
			imgs = append(imgs, c.Image)
		}
		s.revs = append(s.revs, RevisionInfo{Name: r.Name, Label: label, Images: strings.Join(imgs, ",")})
	}
}

// label returns the short label of a revision-hash label value.
func (s *Simulator) label(hash string) string {
	for _, r := range s.revs {
		if revMatch(hash, r.Name) {
			return r.Label
		}
	}
	if hash == "" {
		return "none"
	}
	return hash
}

func (s *Simulator) countPods(scn *model.Scenario) PodCounts {
	var pc PodCounts
	cs := scn.CloneSet
	type acc struct {
		rc     RevisionCount
		states map[string]int
	}
	byLabel := map[string]*acc{}
	for _, p := range scn.Pods {
		switch {
		case !p.DeletionTimestamp.IsZero():
			pc.Terminating++
			continue
		case p.Status.Phase == model.PodFailed || p.Status.Phase == model.PodSucceeded:
			pc.Terminal++
			continue
		}
		pc.Active++
		l := s.label(p.Labels[model.LabelRevisionHash])
		a := byLabel[l]
		if a == nil {
			a = &acc{rc: RevisionCount{Label: l}, states: map[string]int{}}
			for _, r := range s.revs {
				if r.Label == l {
					a.rc.Revision = r.Name
				}
			}
			byLabel[l] = a
		}
		a.rc.Total++
		if simAvailable(p, cs.Spec.MinReadySeconds, scn.Now) {
			a.rc.Available++
		}
		st := p.Labels[model.LabelLifecycleState]
		if st == "" {
			st = "none"
		}
		a.states[st]++
	}
	order := map[string]int{}
	for i, r := range s.revs {
		order[r.Label] = i
	}
	labels := model.SortedKeys(byLabel)
	sort.SliceStable(labels, func(i, j int) bool {
		oi, iok := order[labels[i]]
		oj, jok := order[labels[j]]
		if iok != jok {
			return iok
		}
		return oi < oj
	})
	for _, l := range labels {
		a := byLabel[l]
		for _, st := range model.SortedKeys(a.states) {
			a.rc.States = append(a.rc.States, StateCount{st, a.states[st]})
		}
		pc.Revisions = append(pc.Revisions, a.rc)
	}
	return pc
}

func describeAction(a model.Action) string {
	switch a.Type {
	case model.ActionCreatePod:
		s := fmt.Sprintf("create %s at %s (batch %d, %s)", a.Pod, a.Revision, a.Batch, a.Reason)
		if len(a.CreatePVCs)+len(a.ReusePVCs) > 0 {
			s += fmt.Sprintf(" pvc +%v reuse %v", a.CreatePVCs, a.ReusePVCs)
		}
		return s
	case model.ActionDeletePod:
		return fmt.Sprintf("delete %s (%s)", a.Pod, a.Reason)
	case model.ActionSetLifecycleState:
		s := fmt.Sprintf("%s: %s -> %s", a.Pod, stateOrNone(a.From), a.To)
		if a.MarkPodNotReady {
			s += " (markPodNotReady)"
		}
		return s
	case model.ActionUpdatePodInPlace:
		s := fmt.Sprintf("update %s in place %s -> %s", a.Pod, a.FromRevision, a.ToRevision)
		if a.GracePeriodSeconds > 0 {
			s += fmt.Sprintf(" (grace %ds)", a.GracePeriodSeconds)
		}
		return s
	case model.ActionRecreatePod:
		return fmt.Sprintf("recreate %s at %s", a.Pod, a.ToRevision)
	case model.ActionPatchPod:
		return fmt.Sprintf("patch %s (%s)", a.Pod, a.Reason)
	case model.ActionDeletePVC:
		return fmt.Sprintf("delete PVC %s", a.PVC)
	case model.ActionSetPVCOwner:
		return fmt.Sprintf("PVC %s now owned by pod %s", a.PVC, a.Pod)
	case model.ActionUpdatePodsToDelete:
		return fmt.Sprintf("podsToDelete -%v", a.Remove)
	case model.ActionCreateRevision:
		return fmt.Sprintf("create revision %s (revision number %d)", a.Revision, a.RevisionNumber)
	case model.ActionUpdateRevision:
		return fmt.Sprintf("renumber revision %s to %d (roll-back: it becomes the newest)", a.Revision, a.RevisionNumber)
	case model.ActionDeleteRevision:
		return fmt.Sprintf("delete revision %s (history limit)", a.Revision)
	case model.ActionCreateImagePullJob:
		return fmt.Sprintf("create ImagePullJob %s (pre-download %s)", a.ImagePullJob, a.Image)
	case model.ActionLabelRevision:
		return fmt.Sprintf("label revision %s %v", a.Revision, a.SetLabels)
	case model.ActionDeleteImagePullJob:
		return fmt.Sprintf("delete ImagePullJob %s (rollout done)", a.ImagePullJob)
	}
	return string(a.Type) + " " + a.Pod
}

func stateOrNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func fmtDur(d time.Duration) string {
	return (d.Round(time.Second)).String()
}
