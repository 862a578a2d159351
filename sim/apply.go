package sim

import (
	"fmt"
	"strings"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/lifecycle"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/requests"
)

// ActionResult is what became of one action of a plan.
type ActionResult struct {
	// Action is the action as planned.
	Action model.Action `json:"action"`
	// Err is empty when the action was applied; otherwise the reason the write
	// failed (the object is missing, a name is taken, the pod is not in the
	// state the action starts from, ...).
	Err string `json:"error,omitempty"`
	// Skipped is true when the action was not attempted because an earlier
	// write of the round failed (as the controller stops).
	Skipped bool `json:"skipped,omitempty"`
	// Mismatch is set when the action was applied but its own data disagrees
	// with what applying it did (for example a markPodNotReady flag that is not
	// the effective one); it names the difference.
	Mismatch string `json:"mismatch,omitempty"`
	// Quirk is set for a failure upstream has too, by design (the instance-id
	// collision of scale-and-budgets 5.5); it names the quirk.
	Quirk string `json:"quirk,omitempty"`
}

// ApplyReport is the outcome of Cluster.Apply.
type ApplyReport struct {
	// Results has one entry per action of the plan, in order.
	Results []ActionResult `json:"results"`
	// RevisionCreated names the ControllerRevision the round created (the
	// controller's revision bookkeeping), if any.
	RevisionCreated string `json:"revisionCreated,omitempty"`
	// RevisionMismatch is set when the cluster's update revision is not the
	// plan's.
	RevisionMismatch string `json:"revisionMismatch,omitempty"`
	// StatusWritten is true when the plan's status replaced the stored one.
	StatusWritten bool `json:"statusWritten"`
	// Changed is true when anything was written (an action applied, a revision
	// created, the status written): the watch events of those writes trigger
	// the next round.
	Changed bool `json:"changed"`
}

// Applied returns how many actions were applied.
func (r *ApplyReport) Applied() int {
	n := 0
	for _, x := range r.Results {
		if x.Err == "" && !x.Skipped {
			n++
		}
	}
	return n
}

// Failures returns the results that failed or were skipped.
func (r *ApplyReport) Failures() []ActionResult {
	var out []ActionResult
	for _, x := range r.Results {
		if x.Err != "" || x.Skipped {
			out = append(out, x)
		}
	}
	return out
}

// Apply carries out a plan the way the CloneSet controller does, at the
// cluster's clock, through the API requests of package requests (the same
// writes a real controller sends; the simulator keeps only the world's
// reactions):
//
//  1. the requests of the actions in order (requests.ByAction), revision
//     bookkeeping first (CreateRevision, UpdateRevision: LSV 2.3). The
//     creates of one batch are all attempted; after a batch with a failure no
//     later batch starts. The failure of an image pre-download action ends
//     nothing (but the later DeleteImagePullJobs after a failed one: upstream
//     logs it and goes on). Any other failure ends the actions: later ones are
//     skipped;
//  2. the status, unless the plan says the write is skipped, then, if it
//     succeeded, the requests upstream sends only after it (the podsToDelete
//     rewrite, history truncation: LSV 2.7).
//
// Before an action is sent, the cluster checks that it fits what the action
// says it starts from (the pod exists and is active, is in the state the
// action moves it from, is at the action's old revision) and reports a
// contract mismatch (ActionResult.Mismatch) where the action's own data
// disagrees with the world (a markPodNotReady flag that is not the effective
// one, ...). Failures are reported, never panicked on. The world then reacts
// to the new objects (the kubelet starts new pods, ...) as the clock advances.
func (c *Cluster) Apply(plan *clonesetcore.Result) ApplyReport {
	var rep ApplyReport
	if plan == nil {
		return rep
	}
	rep.Results = make([]ActionResult, len(plan.Actions))
	for i, a := range plan.Actions {
		rep.Results[i].Action = a
	}
	each, err := requests.ByAction(c.view(), plan)
	if err != nil {
		for i := range rep.Results {
			rep.Results[i].Err = err.Error()
		}
		c.sync()
		return rep
	}
	w := c.apiWorld()
	// The actions upstream takes only after the status write come last.
	trailing := len(plan.Actions)
	for trailing > 0 && len(each.Actions[trailing-1]) > 0 && requestsAfterStatus(plan.Actions[trailing-1]) {
		trailing--
	}
	failedBatch := -1
	stop, jobsStopped := false, false
	for i := 0; i < trailing; i++ {
		a := plan.Actions[i]
		res := &rep.Results[i]
		switch {
		case stop:
			res.Skipped = true
			continue
		case a.Type == model.ActionCreatePod && failedBatch >= 0 && a.Batch > failedBatch:
			res.Skipped = true
			continue
		case a.Type == model.ActionDeleteImagePullJob && jobsStopped:
			res.Skipped = true
			continue
		}
		if c.carryOut(w, a, each.Actions[i], each.Errors[i], res) {
			rep.Changed = true
			continue
		}
		switch {
		case a.Type == model.ActionCreatePod:
			if failedBatch < 0 {
				failedBatch = a.Batch
			}
		case model.ToleratesFailure(a.Type):
			// Upstream logs it and goes on; a failed job delete ends the
			// job deletes (docs/spec/image-predownload.md P8).
			jobsStopped = jobsStopped || a.Type == model.ActionDeleteImagePullJob
		default:
			stop = true
		}
	}
	statusOK := true
	if each.Status != nil {
		if err := w.Apply(*each.Status); err != nil {
			statusOK = false
			c.logf("status write failed: %v", err)
		} else {
			rep.StatusWritten = true
			rep.Changed = true
		}
	}
	for i := trailing; i < len(plan.Actions); i++ {
		if !statusOK {
			rep.Results[i].Skipped = true
			continue
		}
		if c.carryOut(w, plan.Actions[i], each.Actions[i], each.Errors[i], &rep.Results[i]) {
			rep.Changed = true
		}
	}
	c.revisions = model.SortRevisions(w.Revisions)
	for i, a := range plan.Actions {
		if a.Type == model.ActionCreateRevision && rep.Results[i].Err == "" && !rep.Results[i].Skipped {
			rep.RevisionCreated = a.Revision
		}
	}
	if plan.UpdateRevision != "" && c.revisionByExactName(plan.UpdateRevision) == nil {
		rep.RevisionMismatch = fmt.Sprintf("the plan's update revision %s is not a ControllerRevision after the round", plan.UpdateRevision)
	}
	c.sync()
	return rep
}

// view is the cluster's objects as a scenario without copies, for reading
// only (the request builder reads it).
func (c *Cluster) view() *model.Scenario {
	s := &model.Scenario{Now: c.now, Gates: c.gates, Controller: c.controller, CloneSet: c.cs, Revisions: c.revisions}
	for _, n := range model.SortedKeys(c.jobs) {
		s.ImagePullJobs = append(s.ImagePullJobs, c.jobs[n])
	}
	for _, name := range c.podNames() {
		s.Pods = append(s.Pods, c.pods[name])
	}
	for _, v := range c.pvcs {
		s.PVCs = append(s.PVCs, v)
	}
	return s
}

// requestsAfterStatus reports whether upstream takes action a only after the
// status write (LSV 2.7).
func requestsAfterStatus(a model.Action) bool {
	return a.Type == model.ActionUpdatePodsToDelete || a.Type == model.ActionDeleteRevision
}

// apiWorld is the API server's view of the cluster: a requests.World over
// the cluster's own objects, with the Kruise pod webhook as admission.
func (c *Cluster) apiWorld() *requests.World {
	return &requests.World{
		CloneSet: c.cs, Pods: c.pods, PVCs: c.pvcs, Revisions: c.revisions, ImagePullJobs: c.jobs, Now: c.now,
		GracefulPodDeletion: true,
		AdmitPod: func(p *model.Pod) error {
			// The Kruise pod webhook injects the KruisePodReady readiness
			// gate (LSV 1.4); the API server assigns the uid.
			if !c.world.NoKruisePodReadyGate && !p.Spec.HasReadinessGate(model.ConditionKruisePodReady) {
				p.Spec.ReadinessGates = append(p.Spec.ReadinessGates, model.ConditionKruisePodReady)
			}
			c.seq++
			p.UID = fmt.Sprintf("uid-%s-%d", p.Name, c.seq)
			return nil
		},
	}
}

// carryOut checks action a against the cluster, sends its requests and lets
// the kubelet's bookkeeping see the changed pod; it reports success.
func (c *Cluster) carryOut(w *requests.World, a model.Action, reqs []requests.Request, buildErr error, res *ActionResult) bool {
	mismatch, err := c.check(a)
	res.Mismatch = mismatch
	if err == nil {
		err = buildErr
	}
	if err == nil {
		for _, r := range reqs {
			if err = w.Apply(r); err != nil {
				break
			}
		}
	}
	if err != nil {
		res.Err = err.Error()
		if a.Type == model.ActionCreatePod && requests.ReasonOf(err) == requests.ReasonAlreadyExists {
			if old := c.pods[a.Pod]; old != nil && !old.IsActive() {
				res.Quirk = "instance-id collision with a pod that still exists (scale-and-budgets 5.5, kruise #1099/#1433)"
				res.Err = fmt.Sprintf("pod %s already exists (it is %s)", a.Pod, inactiveWhy(old))
			}
		}
		return false
	}
	switch a.Type {
	case model.ActionCreatePod:
		if p := c.pods[a.Pod]; p != nil {
			c.stateOf(p, false)
			c.recompute(p)
		}
	case model.ActionSetLifecycleState, model.ActionUpdatePodInPlace, model.ActionPatchPod:
		if p := c.pods[a.Pod]; p != nil {
			c.recompute(p)
			if a.Type == model.ActionSetLifecycleState && a.To == model.StateNormal && lifecycle.NotReadyKeyListed(p, lifecycle.KeyPreUpdateHook) {
				c.quirk(fmt.Sprintf("NotReady key leak: pod %s went to Normal with %s still in its KruisePodReady condition (LSV 7.10, 8.2)", p.Name, lifecycle.KeyPreUpdateHook))
			}
		}
	}
	return true
}

// check is what the cluster verifies before sending an action's requests:
// the object it acts on is there in the state the action starts from. It
// returns a contract mismatch (the action is sent anyway) or why it cannot be
// carried out.
func (c *Cluster) check(a model.Action) (mismatch string, err error) {
	switch a.Type {
	case model.ActionCreatePod:
		if old := c.pods[a.Pod]; old != nil && old.IsActive() {
			return "", fmt.Errorf("pod %s already exists and is active", a.Pod)
		}
		if a.LifecycleState != "" && a.LifecycleState != model.StatePreparingNormal {
			mismatch = fmt.Sprintf("created in state %s; the controller creates pods in %s (LSV 1.5 W3)", a.LifecycleState, model.StatePreparingNormal)
		}
		return mismatch, nil
	case model.ActionDeletePod, model.ActionRecreatePod, model.ActionPatchPod:
		_, err := c.activePod(a.Pod)
		return "", err
	case model.ActionSetLifecycleState:
		p, err := c.activePod(a.Pod)
		if err != nil {
			return "", err
		}
		if cur := p.LifecycleState(); cur != a.From {
			return "", fmt.Errorf("pod %s is in state %q, the action moves it from %q", a.Pod, cur, a.From)
		}
		eff := len(lifecycle.NotReadyPolicy(p, a.To, lifecycle.HookFlag(c.cs, a.From, a.To), c.now)) > 0
		if eff != a.MarkPodNotReady {
			mismatch = fmt.Sprintf("markPodNotReady is %v but the NotReady policy %s the KruisePodReady condition", a.MarkPodNotReady, map[bool]string{true: "changed", false: "did not change"}[eff])
		}
		return mismatch, nil
	case model.ActionUpdatePodInPlace:
		p, err := c.activePod(a.Pod)
		if err != nil {
			return "", err
		}
		switch st := p.LifecycleState(); st {
		case "", model.StatePreparingNormal, model.StateNormal, model.StatePreparingUpdate, model.StateUpdating:
		default:
			return "", fmt.Errorf("pod %s is in state %s, which forbids an in-place update", a.Pod, st)
		}
		if !p.InRevision(a.FromRevision) {
			return "", fmt.Errorf("pod %s is at revision %q, not %s", a.Pod, p.RevisionLabel(), a.FromRevision)
		}
		if g := lifecycle.GracePeriodSeconds(c.cs); g != a.GracePeriodSeconds {
			mismatch = fmt.Sprintf("gracePeriodSeconds %d, the CloneSet says %d", a.GracePeriodSeconds, g)
		}
		return mismatch, nil
	}
	return "", nil
}

// activePod returns the named pod when it exists and is not terminating.
func (c *Cluster) activePod(name string) (*model.Pod, error) {
	p := c.pods[name]
	if p == nil {
		return nil, fmt.Errorf("pod %s not found", name)
	}
	if !p.DeletionTimestamp.IsZero() {
		return nil, fmt.Errorf("pod %s is terminating", name)
	}
	return p, nil
}

func inactiveWhy(p *model.Pod) string {
	if !p.DeletionTimestamp.IsZero() {
		return "terminating"
	}
	return strings.ToLower(p.Status.Phase)
}
