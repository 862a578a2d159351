package sim

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/partition"
)

// Invariant names (see the package documentation for their precise statements).
const (
	InvMaxPods        = "max-pods"
	InvUpdateBudget   = "update-budget"
	InvFrozenDeletion = "preparing-delete-not-updated"
	InvPartition      = "partition-at-convergence"
	InvConvergence    = "convergence-bound"
	InvDeterminism    = "determinism"
	InvActionsApply   = "actions-apply"
	InvStatusCounts   = "status-counts"
	InvImagePullJobs  = "image-pull-jobs"
)

// InvariantInfo names an invariant and states it.
type InvariantInfo struct {
	// Name is the invariant's name (InvMaxPods, ...).
	Name string `json:"name"`
	// Statement is the precise claim checked.
	Statement string `json:"statement"`
}

// Invariants lists every invariant the simulator checks, in report order.
func Invariants() []InvariantInfo {
	return []InvariantInfo{
		{InvMaxPods, "every round: if the plan creates n pods, C + n <= R + S, where C counts the active pods the controller sees (owned or adoptable, matching the selector; PreparingDelete pods excluded when excludePreparingDelete is in effect), R is spec.replicas and S the resolved maxSurge (0 while paused or when it resolves below 0); and the active pods that are neither PreparingDelete nor specified-delete never grow past max(their number before the round, R + S)"},
		{InvUpdateBudget, "every round: A_after >= min(A_before, R - U - H), where A counts the active pods Available at the round's clock (state Normal or none, Running, Ready and InPlaceUpdateReady true, Ready for more than minReadySeconds) before and right after the round's actions, U is the resolved update maxUnavailable and H the specified-delete, non-PreparingDelete pods that are not Available before the round (upstream does not count them as unavailable, scale-and-budgets 2)"},
		{InvFrozenDeletion, "every round: no UpdatePodInPlace, RecreatePod or SetLifecycleState to PreparingUpdate/Updating targets a pod that is in PreparingDelete when the round starts (finishing a grace period started before is not an update)"},
		{InvPartition, "when a RollingUpdate CloneSet that is not paused converges: O <= P, where O counts the active pods not at the update revision and P is the partition count; and, unless the update phase failed, O == P when the CloneSetPartitionRollback gate is on and the revisions differ, or when the rollout began with at least P old pods and no specified-delete or PreparingDelete pod and, since, the partition count never rose and no pod was removed at a user's request (podsToDelete, a direct deletion) or by a node loss"},
		{InvConvergence, "a run without faults, with the hook controller on, in which the update phase never fails, converges (a round with no action, no status write and no requeue, no world event or scripted change pending, and replicas, ready and available all equal to spec.replicas at the current generation) within 100 + 60N rounds and 120 s + 3N x (one pod's worst-case life cycle) of virtual time after the last scripted change, N being the largest replicas + maxSurge plus the pods at the start; waived in the upstream liveness gaps the simulator recognizes: the NotReady key leak (LSV 7.10), a scale-out blocked by scaleStrategy.maxUnavailable while the unavailable pods cannot recover, a pod stranded in PreparingUpdate, a PreparingUpdate pod for which PreparingUpdateAsUpdate withholds the surge pod its update needs, the in-place roll-back of a hooked pod that the refresh step returns from PreparingUpdate every round (T6)"},
		{InvDeterminism, "two runs of the same scenario, configuration and seed produce the same trace, byte for byte (same digest)"},
		{InvActionsApply, "every action applies to the cluster the plan was computed from: its objects exist, a pod is in the state the action starts from, a created name is free (except the instance-id collision upstream has too, scale-and-budgets 5.5), the markPodNotReady flag is the effective one, and the plan's update revision is the ControllerRevision of spec.template"},
		{InvStatusCounts, "every round: the plan's replicas, readyReplicas, availableReplicas, updatedReplicas, updatedReadyReplicas and updatedAvailableReplicas equal the simulator's own count over the same snapshot"},
		{InvImagePullJobs, "every round: image pre-download writes only with the PreDownloadImageForInPlaceUpdate gate on, none for an update revision marked (created or ignored) before the round; an ImagePullJob the round created is in the cluster after it, pulling the image spec.template gives its container; and once the rollout is done (the plan's current revision is its update revision) no ImagePullJob of the CloneSet is left after a round whose deletes all applied"},
	}
}

// Violation is one failed invariant check.
type Violation struct {
	// Invariant is the invariant's name.
	Invariant string `json:"invariant"`
	// Step is the round (0-based), or -1 for a property of the whole run.
	Step int `json:"step"`
	// Time is the virtual time of the round.
	Time time.Time `json:"time"`
	// Message says what was seen.
	Message string `json:"message"`
}

// String renders the violation on one line.
func (v Violation) String() string {
	if v.Step < 0 {
		return fmt.Sprintf("%s: %s", v.Invariant, v.Message)
	}
	return fmt.Sprintf("%s at step %d (%s): %s", v.Invariant, v.Step, v.Time.UTC().Format(time.RFC3339), v.Message)
}

// InvariantReport is the outcome of one invariant over a run.
type InvariantReport struct {
	InvariantInfo
	// Checks is how many times the invariant was evaluated.
	Checks int `json:"checks"`
	// Waived is non-empty when the invariant did not apply to this run, and says why.
	Waived string `json:"waived,omitempty"`
	// Violations are the failed checks (at most 20 are kept).
	Violations []Violation `json:"violations,omitempty"`
}

// OK reports whether the invariant held.
func (r InvariantReport) OK() bool { return len(r.Violations) == 0 }

type checker struct {
	reports []*InvariantReport
	byName  map[string]*InvariantReport
}

func newChecker() *checker {
	c := &checker{byName: map[string]*InvariantReport{}}
	for _, info := range Invariants() {
		r := &InvariantReport{InvariantInfo: info}
		c.reports = append(c.reports, r)
		c.byName[info.Name] = r
	}
	return c
}

func (c *checker) checked(name string) { c.byName[name].Checks++ }

func (c *checker) fail(name string, step int, t time.Time, format string, args ...any) Violation {
	v := Violation{Invariant: name, Step: step, Time: t, Message: fmt.Sprintf(format, args...)}
	r := c.byName[name]
	if len(r.Violations) < 20 {
		r.Violations = append(r.Violations, v)
	}
	return v
}

func (c *checker) waive(name, why string) {
	if r := c.byName[name]; r.Waived == "" {
		r.Waived = why
	}
}

func (c *checker) list() []InvariantReport {
	out := make([]InvariantReport, len(c.reports))
	for i, r := range c.reports {
		out[i] = *r
		out[i].Violations = append([]Violation(nil), r.Violations...)
	}
	return out
}

// observedPods are the pods a reconcile decides on: active (not terminal, not
// terminating), owned by the CloneSet or orphans, matching its selector.
func observedPods(cs *model.CloneSet, pods []*model.Pod) []*model.Pod {
	var out []*model.Pod
	for _, p := range pods {
		if p.Status.Phase == model.PodSucceeded || p.Status.Phase == model.PodFailed || !p.DeletionTimestamp.IsZero() {
			continue
		}
		if ref := model.ControllerRef(p.OwnerReferences); ref != nil && !ref.OwnedBy(cs) {
			continue
		}
		if cs.Spec.Selector == nil || !cs.Spec.Selector.Matches(p.Labels) {
			continue
		}
		out = append(out, p)
	}
	return out
}

func condStatus(p *model.Pod, typ string) (string, time.Time, bool) {
	for _, c := range p.Status.Conditions {
		if c.Type == typ {
			return c.Status, c.LastTransitionTime, true
		}
	}
	return "", time.Time{}, false
}

// simReady is the status notion of ready: Running, Ready True, InPlaceUpdateReady absent or True.
func simReady(p *model.Pod) bool {
	if p.Status.Phase != model.PodRunning {
		return false
	}
	if s, _, _ := condStatus(p, model.ConditionReady); s != "True" {
		return false
	}
	if s, _, ok := condStatus(p, model.ConditionInPlaceUpdateReady); ok && s != "True" {
		return false
	}
	return true
}

// simAvailable is Available(p, m) at now (scale-and-budgets 1.9).
func simAvailable(p *model.Pod, m int32, now time.Time) bool {
	if st := p.Labels[model.LabelLifecycleState]; st != "" && st != model.StateNormal {
		return false
	}
	if !simReady(p) {
		return false
	}
	if m == 0 {
		return true
	}
	_, ltt, _ := condStatus(p, model.ConditionReady)
	return !ltt.IsZero() && ltt.Add(time.Duration(m)*time.Second).Before(now)
}

func revMatch(label, rev string) bool {
	short := func(s string) string {
		if i := strings.LastIndexByte(s, '-'); i >= 0 {
			return s[i+1:]
		}
		return s
	}
	return label == rev || short(label) == short(rev)
}

func specifiedDelete(cs *model.CloneSet, p *model.Pod) bool {
	if _, ok := p.Labels[model.LabelSpecifiedDelete]; ok {
		return true
	}
	return slices.Contains(cs.Spec.ScaleStrategy.PodsToDelete, p.Name)
}

// budgetOf resolves R, S and U from the spec (scale-and-budgets 1.4, 1.5),
// independently of package partition.
func budgetOf(cs *model.CloneSet) (r, s, u int) {
	r = cs.Spec.DesiredReplicas()
	ru := cs.Spec.UpdateStrategy.RollingUpdate
	twenty := model.FromString("20%")
	if ru == nil {
		u, _ = twenty.ScaledValueK8s(r, false)
		return r, 0, u
	}
	if ru.MaxSurge != nil && !ru.Paused {
		s, _ = ru.MaxSurge.ScaledValueK8s(r, true)
	}
	mu := twenty
	if ru.MaxUnavailable != nil {
		mu = *ru.MaxUnavailable
	}
	u, _ = mu.ScaledValueK8s(r, s == 0)
	return r, s, u
}

// checkRound runs the per-round invariants.
func (c *checker) checkRound(step int, before *model.Scenario, plan *clonesetcore.Result, rep *ApplyReport, after *model.Scenario) []Violation {
	var out []Violation
	now := before.Now
	cs := before.CloneSet
	obsB := observedPods(cs, before.Pods)
	obsA := observedPods(after.CloneSet, after.Pods)
	replicas, maxSurge, maxUnavailable := budgetOf(cs)
	maxSurge = max(maxSurge, 0) // a maxSurge resolved below 0 allows no surge pods, not fewer replicas (scale-and-budgets 3.2)
	excludePreparingDelete := partition.ExcludePreparingDelete(cs, before.Controller)
	stateB := map[string]string{}
	for _, p := range obsB {
		stateB[p.Name] = p.Labels[model.LabelLifecycleState]
	}

	// max-pods.
	c.checked(InvMaxPods)
	created := 0
	for _, a := range plan.Actions {
		if a.Type == model.ActionCreatePod {
			created++
		}
	}
	counted := 0
	for _, p := range obsB {
		if !(excludePreparingDelete && stateB[p.Name] == model.StatePreparingDelete) {
			counted++
		}
	}
	if created > 0 && counted+created > replicas+maxSurge {
		out = append(out, c.fail(InvMaxPods, step, now, "%d pods counted + %d created > replicas %d + maxSurge %d", counted, created, replicas, maxSurge))
	}
	kept := func(sc *model.Scenario, obs []*model.Pod) int {
		n := 0
		for _, p := range obs {
			if p.Labels[model.LabelLifecycleState] != model.StatePreparingDelete && !specifiedDelete(sc.CloneSet, p) {
				n++
			}
		}
		return n
	}
	if keptBefore, keptAfter := kept(before, obsB), kept(after, obsA); keptAfter > max(keptBefore, replicas+maxSurge) {
		out = append(out, c.fail(InvMaxPods, step, now, "pods neither PreparingDelete nor specified-delete grew from %d to %d, above replicas %d + maxSurge %d", keptBefore, keptAfter, replicas, maxSurge))
	}

	// update-budget.
	c.checked(InvUpdateBudget)
	minReady := cs.Spec.MinReadySeconds
	availB, hidden := 0, 0
	for _, p := range obsB {
		available := simAvailable(p, minReady, now)
		if available {
			availB++
		}
		if !available && stateB[p.Name] != model.StatePreparingDelete && specifiedDelete(cs, p) {
			hidden++
		}
	}
	availA := 0
	for _, p := range obsA {
		if simAvailable(p, minReady, now) {
			availA++
		}
	}
	if floor := min(availB, replicas-maxUnavailable-hidden); availA < floor {
		out = append(out, c.fail(InvUpdateBudget, step, now, "available pods went from %d to %d, below min(%d, replicas %d - maxUnavailable %d - %d unavailable specified-delete pods) = %d (actions: %s)",
			availB, availA, availB, replicas, maxUnavailable, hidden, floor, actionSummary(plan.Actions)))
	}

	// preparing-delete-not-updated.
	c.checked(InvFrozenDeletion)
	for _, a := range plan.Actions {
		if stateB[a.Pod] != model.StatePreparingDelete {
			continue
		}
		bad := a.Type == model.ActionUpdatePodInPlace || a.Type == model.ActionRecreatePod ||
			(a.Type == model.ActionSetLifecycleState && (a.To == model.StatePreparingUpdate || a.To == model.StateUpdating))
		if bad {
			out = append(out, c.fail(InvFrozenDeletion, step, now, "%s on pod %s, which is in PreparingDelete", a.Type, a.Pod))
		}
	}

	// actions-apply.
	c.checked(InvActionsApply)
	for _, res := range rep.Results {
		switch {
		case res.Err != "" && res.Quirk == "":
			out = append(out, c.fail(InvActionsApply, step, now, "%s %s: %s", res.Action.Type, target(res.Action), res.Err))
		case res.Mismatch != "":
			out = append(out, c.fail(InvActionsApply, step, now, "%s %s: %s", res.Action.Type, target(res.Action), res.Mismatch))
		}
	}
	if rep.RevisionMismatch != "" {
		out = append(out, c.fail(InvActionsApply, step, now, "%s", rep.RevisionMismatch))
	}

	// status-counts.
	c.checked(InvStatusCounts)
	var want clonesetcore.Status
	for _, p := range obsB {
		want.Replicas++
		ready, avail := simReady(p), simAvailable(p, minReady, now)
		upd := revMatch(p.Labels[model.LabelRevisionHash], plan.UpdateRevision)
		if ready {
			want.ReadyReplicas++
		}
		if avail {
			want.AvailableReplicas++
		}
		if upd {
			want.UpdatedReplicas++
			if ready {
				want.UpdatedReadyReplicas++
			}
			if avail {
				want.UpdatedAvailableReplicas++
			}
		}
	}
	// image-pull-jobs.
	c.checked(InvImagePullJobs)
	out = append(out, c.checkImagePullJobs(step, before, plan, rep, after)...)

	got := plan.Status
	if got.Replicas != want.Replicas || got.ReadyReplicas != want.ReadyReplicas || got.AvailableReplicas != want.AvailableReplicas ||
		got.UpdatedReplicas != want.UpdatedReplicas || got.UpdatedReadyReplicas != want.UpdatedReadyReplicas ||
		got.UpdatedAvailableReplicas != want.UpdatedAvailableReplicas {
		out = append(out, c.fail(InvStatusCounts, step, now, "plan status %s, simulator counts %s", countsText(got), countsText(want)))
	}
	return out
}

// checkImagePullJobs is InvImagePullJobs for one round.
func (c *checker) checkImagePullJobs(step int, before *model.Scenario, plan *clonesetcore.Result, rep *ApplyReport, after *model.Scenario) []Violation {
	var out []Violation
	now := before.Now
	fail := func(format string, args ...any) {
		out = append(out, c.fail(InvImagePullJobs, step, now, format, args...))
	}
	marked := ""
	for _, r := range before.Revisions {
		if r.Name != plan.UpdateRevision {
			continue
		}
		for _, k := range []string{model.LabelImagePreDownloadCreated, model.LabelImagePreDownloadIgnored} {
			if _, ok := r.Labels[k]; ok {
				marked = k
			}
		}
	}
	jobs := map[string]*model.ImagePullJob{}
	for _, j := range after.ImagePullJobs {
		jobs[j.Name] = j
	}
	deletesApplied := true
	for i, a := range plan.Actions {
		if !model.ToleratesFailure(a.Type) {
			continue
		}
		applied := i < len(rep.Results) && rep.Results[i].Err == "" && !rep.Results[i].Skipped
		switch {
		case !before.Gates.PreDownloadImageForInPlaceUpdate:
			fail("%s %s with the PreDownloadImageForInPlaceUpdate gate off", a.Type, target(a))
			continue
		case a.Type != model.ActionDeleteImagePullJob && marked != "":
			fail("%s %s: the update revision %s was marked %s before the round", a.Type, target(a), plan.UpdateRevision, marked)
		}
		switch a.Type {
		case model.ActionDeleteImagePullJob:
			deletesApplied = deletesApplied && applied
		case model.ActionCreateImagePullJob:
			if !applied {
				continue
			}
			j := jobs[a.ImagePullJob]
			if j == nil {
				fail("ImagePullJob %s was created but is not in the cluster", a.ImagePullJob)
				continue
			}
			want := ""
			for _, ct := range before.CloneSet.Spec.Template.Spec.Containers {
				if ct.Name == a.Container {
					want = ct.Image
				}
			}
			if j.Image != a.Image || j.Image != want {
				fail("ImagePullJob %s pulls %q, spec.template gives container %s the image %q", a.ImagePullJob, j.Image, a.Container, want)
			}
		}
	}
	if before.Gates.PreDownloadImageForInPlaceUpdate && plan.CurrentRevision == plan.UpdateRevision && deletesApplied {
		for _, j := range after.ImagePullJobs {
			if model.ControllerRef(j.OwnerReferences).OwnedBy(after.CloneSet) {
				fail("the rollout is done, yet ImagePullJob %s of the CloneSet is left after the round", j.Name)
			}
		}
	}
	return out
}

func countsText(s clonesetcore.Status) string {
	return fmt.Sprintf("replicas %d ready %d available %d updated %d updatedReady %d updatedAvailable %d",
		s.Replicas, s.ReadyReplicas, s.AvailableReplicas, s.UpdatedReplicas, s.UpdatedReadyReplicas, s.UpdatedAvailableReplicas)
}

func target(a model.Action) string {
	if a.ImagePullJob != "" {
		return a.ImagePullJob
	}
	if a.Type == model.ActionLabelRevision {
		return a.Revision
	}
	if a.Pod != "" {
		return a.Pod
	}
	return a.PVC
}

func actionSummary(acts []model.Action) string {
	if len(acts) == 0 {
		return "none"
	}
	var parts []string
	for _, a := range acts {
		parts = append(parts, string(a.Type)+" "+target(a))
	}
	return strings.Join(parts, ", ")
}
