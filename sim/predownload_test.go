package sim

import (
	"testing"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/model"
)

// TestPreDownloadRollout: with the PreDownloadImageForInPlaceUpdate gate on,
// an in-place rollout of five pods creates the ImagePullJob of the new
// image once (and marks the revision), leaves the pods' rollout as it is
// without the gate, and deletes the job once the rollout is done; with a
// partition the rollout ends with the revisions apart and the job kept; at
// three replicas the revision is marked ignored and no job is created.
func TestPreDownloadRollout(t *testing.T) {
	run := func(replicas int32, partition *model.IntOrPercent, gate bool) (*Result, *Simulator) {
		t.Helper()
		scn := webScenario(webOptions{replicas: replicas, maxUnav: intOrPct("1"), partition: partition})
		scn.Gates.PreDownloadImageForInPlaceUpdate = gate
		cfg := DefaultConfig()
		cfg.Events = []Event{at(60, Change{Image: "web:v2"})}
		s, err := New(scn, cfg)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Run()
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range res.Violations() {
			t.Errorf("violation: %v", v)
		}
		if res.Outcome != Converged {
			t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
		}
		return res, s
	}
	res, s := run(5, nil, true)
	if c, l, d := countActions(res, model.ActionCreateImagePullJob), countActions(res, model.ActionLabelRevision), countActions(res, model.ActionDeleteImagePullJob); c != 1 || l != 1 || d != 1 {
		t.Errorf("%d creates, %d marks, %d deletes of ImagePullJobs, want 1 each", c, l, d)
	}
	if jobs := s.Cluster().ImagePullJobs(); len(jobs) != 0 {
		t.Errorf("jobs left after the rollout: %v", jobs)
	}
	var created *model.Revision
	for _, r := range s.Cluster().Revisions() {
		if r.Labels[model.LabelImagePreDownloadCreated] == "true" {
			created = r
		}
	}
	if created == nil || created.Name != res.Final.Status.UpdateRevision {
		t.Errorf("the update revision %s is not marked created (%v)", res.Final.Status.UpdateRevision, created)
	}
	without, _ := run(5, nil, false)
	if got, want := countActions(without, model.ActionUpdatePodInPlace), countActions(res, model.ActionUpdatePodInPlace); got != want || got != 5 {
		t.Errorf("%d in-place updates without the gate, %d with it, want 5 each", got, want)
	}

	res, s = run(5, intOrPct("2"), true)
	if res.Final.Status.CurrentRevision == res.Final.Status.UpdateRevision {
		t.Fatalf("partition 2: the revisions should stay apart")
	}
	if jobs := s.Cluster().ImagePullJobs(); len(jobs) != 1 || jobs[0].Image != "web:v2" || countActions(res, model.ActionDeleteImagePullJob) != 0 {
		t.Errorf("partition 2: jobs %v, %d deletes; want the job kept", jobs, countActions(res, model.ActionDeleteImagePullJob))
	}

	res, s = run(3, nil, true)
	if c, l := countActions(res, model.ActionCreateImagePullJob), countActions(res, model.ActionLabelRevision); c != 0 || l != 1 || len(s.Cluster().ImagePullJobs()) != 0 {
		t.Errorf("3 replicas: %d creates, %d marks, jobs %v; want the revision marked ignored only", c, l, s.Cluster().ImagePullJobs())
	}
}

// TestPreDownloadDeleteFailureTolerated: a DeleteImagePullJob that fails
// (the job is gone meanwhile) ends nothing but the later job deletes.
func TestPreDownloadDeleteFailureTolerated(t *testing.T) {
	c := atRest(t, webOptions{replicas: 2})
	c.gates.PreDownloadImageForInPlaceUpdate = true
	for _, n := range []string{"web-1-a", "web-1-b"} {
		c.jobs[n] = &model.ImagePullJob{Name: n, Namespace: "default", UID: "uid-" + n,
			OwnerReferences: []model.OwnerReference{{Kind: "CloneSet", Name: "web", UID: "uid-web", Controller: true}}}
	}
	plan, err := clonesetcore.Plan(c.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Actions) != 2 {
		t.Fatalf("actions %v", plan.Actions)
	}
	plan.Actions = append(plan.Actions, model.Action{Type: model.ActionCreatePod, Pod: "web-x", InstanceID: "x", Revision: plan.UpdateRevision, LifecycleState: model.StatePreparingNormal})
	delete(c.jobs, "web-1-a")
	rep := c.Apply(plan)
	if r := rep.Results; r[0].Err == "" || !r[1].Skipped || r[2].Err != "" || r[2].Skipped {
		t.Fatalf("results %+v", r)
	}
}

// TestInvariantImagePullJobs: a plan whose pre-download writes are wrong
// breaks image-pull-jobs.
func TestInvariantImagePullJobs(t *testing.T) {
	t.Run("gate off", func(t *testing.T) {
		c := atRest(t, webOptions{replicas: 2})
		got := checkPlan(t, c, func(scn *model.Scenario, p *clonesetcore.Result) {
			p.Actions = append(p.Actions, model.Action{Type: model.ActionLabelRevision, Revision: p.UpdateRevision,
				SetLabels: map[string]string{model.LabelImagePreDownloadIgnored: "true"}})
		})
		wantOnly(t, got, InvImagePullJobs)
	})
	t.Run("the wrong image", func(t *testing.T) {
		c := atRest(t, webOptions{replicas: 2})
		c.gates.PreDownloadImageForInPlaceUpdate = true
		got := checkPlan(t, c, func(scn *model.Scenario, p *clonesetcore.Result) {
			p.Actions = append(p.Actions, model.Action{Type: model.ActionCreateImagePullJob, ImagePullJob: p.UpdateRevision + "-main",
				Revision: p.UpdateRevision, Container: "main", Image: "web:v9"})
		})
		wantOnly(t, got, InvImagePullJobs)
	})
	t.Run("a job left once the rollout is done", func(t *testing.T) {
		c := atRest(t, webOptions{replicas: 2})
		c.gates.PreDownloadImageForInPlaceUpdate = true
		c.jobs["web-1-main"] = &model.ImagePullJob{Name: "web-1-main", Namespace: "default", UID: "uid-job",
			OwnerReferences: []model.OwnerReference{{Kind: "CloneSet", Name: "web", UID: "uid-web", Controller: true}}}
		got := checkPlan(t, c, func(scn *model.Scenario, p *clonesetcore.Result) { p.Actions = nil })
		wantOnly(t, got, InvImagePullJobs)
	})
}
