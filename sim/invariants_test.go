package sim

import (
	"fmt"
	"testing"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/model"
)

// The invariants must be able to fail: each test below breaks the planner (or
// the plan of one round) in the way one invariant forbids, and checks that
// exactly that invariant reports it.

// atRest returns a simulator whose cluster holds the scenario's CloneSet with
// all its pods Normal and available (a run without events, to the end).
func atRest(t *testing.T, o webOptions) *Cluster {
	t.Helper()
	s, err := New(webScenario(o), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run()
	if err != nil || res.Outcome != Converged {
		t.Fatalf("warm-up: %v %v", err, res.Outcome)
	}
	return s.Cluster()
}

// checkPlan runs one round with the given (possibly broken) plan through the
// per-round checks and returns the names of the violated invariants.
func checkPlan(t *testing.T, c *Cluster, mutate func(scn *model.Scenario, p *clonesetcore.Result)) []string {
	t.Helper()
	before := c.Snapshot()
	plan, err := clonesetcore.Plan(before)
	if err != nil {
		t.Fatal(err)
	}
	mutate(before, plan)
	rep := c.Apply(plan)
	after := c.Snapshot()
	var names []string
	for _, v := range newChecker().checkRound(0, before, plan, &rep, after) {
		names = append(names, v.Invariant)
	}
	return names
}

// revisionActions keeps the revision bookkeeping of a plan (the new
// template's ControllerRevision), for tests that replace the pod actions.
func revisionActions(acts []model.Action) []model.Action {
	var out []model.Action
	for _, a := range acts {
		if a.Type == model.ActionCreateRevision || a.Type == model.ActionUpdateRevision {
			out = append(out, a)
		}
	}
	return out
}

func podNamesOf(scn *model.Scenario) []string {
	var out []string
	for _, p := range scn.Pods {
		out = append(out, p.Name)
	}
	return out
}

func wantOnly(t *testing.T, got []string, want string) {
	t.Helper()
	if len(got) == 0 {
		t.Fatalf("no violation, want %s", want)
	}
	for _, g := range got {
		if g != want {
			t.Errorf("violations %v, want only %s", got, want)
			return
		}
	}
}

func TestInvariantMaxPodsCatchesExtraPods(t *testing.T) {
	c := atRest(t, webOptions{replicas: 2, maxSurge: intOrPct("1")})
	got := checkPlan(t, c, func(scn *model.Scenario, p *clonesetcore.Result) {
		for i := 0; i < 2; i++ {
			p.Actions = append(p.Actions, model.Action{Type: model.ActionCreatePod, Pod: fmt.Sprintf("web-extra%d", i),
				InstanceID: fmt.Sprintf("extra%d", i), Revision: p.UpdateRevision, LifecycleState: model.StatePreparingNormal})
		}
	})
	wantOnly(t, got, InvMaxPods)
}

func TestInvariantMaxPodsAllowsSurge(t *testing.T) {
	c := atRest(t, webOptions{replicas: 2, maxSurge: intOrPct("1")})
	got := checkPlan(t, c, func(scn *model.Scenario, p *clonesetcore.Result) {
		p.Actions = append(p.Actions, model.Action{Type: model.ActionCreatePod, Pod: "web-extra0",
			InstanceID: "extra0", Revision: p.UpdateRevision, LifecycleState: model.StatePreparingNormal})
	})
	if len(got) != 0 {
		t.Errorf("one pod within maxSurge 1 reported: %v", got)
	}
}

func TestInvariantUpdateBudgetCatchesTooManyUpdates(t *testing.T) {
	c := atRest(t, webOptions{replicas: 4, maxUnav: intOrPct("1")})
	if _, err := c.Change(Change{Image: "web:v2"}); err != nil {
		t.Fatal(err)
	}
	got := checkPlan(t, c, func(scn *model.Scenario, p *clonesetcore.Result) {
		p.Actions = revisionActions(p.Actions)
		for _, name := range podNamesOf(scn)[:2] {
			p.Actions = append(p.Actions, model.Action{Type: model.ActionUpdatePodInPlace, Pod: name,
				FromRevision: p.CurrentRevision, ToRevision: p.UpdateRevision})
		}
	})
	wantOnly(t, got, InvUpdateBudget)
}

func TestInvariantUpdateBudgetCatchesDeletions(t *testing.T) {
	c := atRest(t, webOptions{replicas: 3, maxUnav: intOrPct("1")})
	got := checkPlan(t, c, func(scn *model.Scenario, p *clonesetcore.Result) {
		for _, name := range podNamesOf(scn)[:2] {
			p.Actions = append(p.Actions, model.Action{Type: model.ActionDeletePod, Pod: name})
		}
	})
	wantOnly(t, got, InvUpdateBudget)
}

func TestInvariantPreparingDeleteNotUpdated(t *testing.T) {
	hook := &model.LifecycleHook{FinalizersHandler: []string{"example.io/keep"}}
	o := webOptions{replicas: 2, lifecycle: &model.Lifecycle{PreDelete: hook}}
	c := atRest(t, o)
	name := c.Pods()[0].Name
	c.pods[name].Finalizers = []string{"example.io/keep"}
	c.pods[name].Labels[model.LabelLifecycleState] = model.StatePreparingDelete
	if _, err := c.Change(Change{Image: "web:v2"}); err != nil {
		t.Fatal(err)
	}
	got := checkPlan(t, c, func(scn *model.Scenario, p *clonesetcore.Result) {
		p.Actions = append(revisionActions(p.Actions), model.Action{Type: model.ActionRecreatePod, Pod: name, ToRevision: p.UpdateRevision})
	})
	wantOnly(t, got, InvFrozenDeletion)
}

func TestInvariantActionsApplyCatchesMissingObjects(t *testing.T) {
	c := atRest(t, webOptions{replicas: 1})
	got := checkPlan(t, c, func(scn *model.Scenario, p *clonesetcore.Result) {
		p.Actions = []model.Action{{Type: model.ActionPatchPod, Pod: "web-ghost", SetLabels: map[string]string{"a": "b"}}}
	})
	wantOnly(t, got, InvActionsApply)
}

func TestInvariantActionsApplyCatchesWrongFlag(t *testing.T) {
	hook := &model.LifecycleHook{LabelsHandler: map[string]string{"example.io/drain": "true"}, MarkPodNotReady: true}
	c := atRest(t, webOptions{replicas: 2, labels: map[string]string{"example.io/drain": "true"}, lifecycle: &model.Lifecycle{PreDelete: hook}})
	name := c.Pods()[0].Name
	got := checkPlan(t, c, func(scn *model.Scenario, p *clonesetcore.Result) {
		// The policy adds the preDeleteHook key; a plan saying it does not is wrong.
		p.Actions = []model.Action{{Type: model.ActionSetLifecycleState, Pod: name, From: model.StateNormal, To: model.StatePreparingDelete}}
	})
	wantOnly(t, got, InvActionsApply)
}

func TestInvariantStatusCounts(t *testing.T) {
	c := atRest(t, webOptions{replicas: 2})
	got := checkPlan(t, c, func(scn *model.Scenario, p *clonesetcore.Result) {
		p.Status.AvailableReplicas++
	})
	wantOnly(t, got, InvStatusCounts)
}

// brokenRun runs a scenario with a planner that breaks every plan with mutate.
func brokenRun(t *testing.T, scn *model.Scenario, cfg Config, mutate func(*model.Scenario, *clonesetcore.Result)) *Result {
	t.Helper()
	s, err := New(scn, cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.plan = func(in *model.Scenario) (*clonesetcore.Result, error) {
		p, err := clonesetcore.Plan(in)
		if err == nil {
			mutate(in, p)
		}
		return p, err
	}
	res, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func violated(res *Result) map[string]bool {
	out := map[string]bool{}
	for _, v := range res.Violations() {
		out[v.Invariant] = true
	}
	return out
}

func TestInvariantPartitionCatchesStoppedRollout(t *testing.T) {
	scn := webScenario(webOptions{replicas: 4})
	cfg := DefaultConfig()
	cfg.Events = []Event{at(60, Change{Image: "web:v2"})}
	updates := 0
	res := brokenRun(t, scn, cfg, func(_ *model.Scenario, p *clonesetcore.Result) {
		var keep []model.Action
		for _, a := range p.Actions {
			if a.Type == model.ActionUpdatePodInPlace {
				if updates >= 2 {
					continue
				}
				updates++
			}
			keep = append(keep, a)
		}
		p.Actions = keep
	})
	if res.Outcome != Converged || !violated(res)[InvPartition] {
		t.Errorf("outcome %s, violations %v: a rollout stopped after 2 of 4 pods must break %s", res.Outcome, res.Violations(), InvPartition)
	}
}

func TestInvariantPartitionCatchesOverUpdate(t *testing.T) {
	scn := webScenario(webOptions{replicas: 4, partition: intOrPct("2")})
	cfg := DefaultConfig()
	cfg.Events = []Event{at(60, Change{Image: "web:v2"})}
	done := false
	res := brokenRun(t, scn, cfg, func(in *model.Scenario, p *clonesetcore.Result) {
		// Once the partition holds, update one more old pod in place anyway.
		if done || len(p.Actions) > 0 || p.CurrentRevision == p.UpdateRevision || p.Status.UpdatedReplicas != 2 || p.Status.UpdatedAvailableReplicas != 2 {
			return
		}
		for _, q := range in.Pods {
			if q.IsActive() && !q.InRevision(p.UpdateRevision) {
				p.Actions = []model.Action{{Type: model.ActionUpdatePodInPlace, Pod: q.Name, FromRevision: p.CurrentRevision, ToRevision: p.UpdateRevision}}
				done = true
				return
			}
		}
	})
	if !violated(res)[InvPartition] {
		t.Errorf("violations %v: updating past partition 2 must break %s", res.Violations(), InvPartition)
	}
}

func TestInvariantConvergenceCatchesStall(t *testing.T) {
	scn := webScenario(webOptions{replicas: 3})
	res := brokenRun(t, scn, DefaultConfig(), func(_ *model.Scenario, p *clonesetcore.Result) {
		var keep []model.Action
		for _, a := range p.Actions {
			if a.Type != model.ActionCreatePod || a.Batch == 0 && p.Status.Replicas == 0 {
				keep = append(keep, a)
			}
		}
		p.Actions = keep
	})
	if res.Outcome != Stalled || !violated(res)[InvConvergence] {
		t.Errorf("outcome %s, violations %v: a planner that stops creating pods must break %s", res.Outcome, res.Violations(), InvConvergence)
	}
}

func TestInvariantConvergenceCatchesLivelock(t *testing.T) {
	scn := webScenario(webOptions{replicas: 2})
	flip := false
	res := brokenRun(t, scn, DefaultConfig(), func(in *model.Scenario, p *clonesetcore.Result) {
		// A planner that keeps toggling a label: always an action, never at rest.
		flip = !flip
		if p.Status.Replicas == 2 && len(p.Actions) == 0 {
			p.Actions = []model.Action{{Type: model.ActionPatchPod, Pod: in.Pods[0].Name, SetLabels: map[string]string{"flip": fmt.Sprint(flip)}}}
		}
	})
	if res.Outcome != BoundExceeded || !violated(res)[InvConvergence] {
		t.Errorf("outcome %s, violations %v: a livelock must break %s", res.Outcome, res.Violations(), InvConvergence)
	}
}

func TestInvariantDeterminismCatchesHiddenState(t *testing.T) {
	calls := 0
	scn := webScenario(webOptions{replicas: 2})
	run := func() *Result {
		return brokenRun(t, scn, DefaultConfig(), func(_ *model.Scenario, p *clonesetcore.Result) {
			calls++
			if calls == 7 {
				p.Notes = append(p.Notes, "a note that depends on how often the planner was called")
			}
		})
	}
	a, b := run(), run()
	if a.Digest == b.Digest {
		t.Errorf("digests equal (%s) although the two runs differ", a.Digest)
	}
}
