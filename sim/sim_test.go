package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
)

func TestScaleOutFromScratch(t *testing.T) {
	res := mustRun(t, webScenario(webOptions{replicas: 3}), DefaultConfig())
	if res.Outcome != Converged {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
	}
	if got := finalByRevision(res); got["r1"] != 3 || len(got) != 1 {
		t.Errorf("final pods by revision %v, want r1: 3", got)
	}
	for _, p := range res.Final.Pods {
		if p.State != model.StateNormal || !p.Available || p.Node == "" {
			t.Errorf("pod %+v not Normal, available and scheduled", p)
		}
	}
	// Slow start: the first round creates one pod (batch 0) and no more, since
	// maxUnavailable does not limit scale-out; later rounds the rest.
	if n := countActions(res, model.ActionCreatePod); n != 3 {
		t.Errorf("%d CreatePod actions, want 3", n)
	}
}

func TestInPlaceRollout(t *testing.T) {
	scn := webScenario(webOptions{replicas: 4, maxUnav: intOrPct("1")})
	cfg := DefaultConfig()
	cfg.Events = []Event{at(60, Change{Image: "web:v2"})}
	res := mustRun(t, scn, cfg)
	if res.Outcome != Converged {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
	}
	if got := finalByRevision(res); got["r2"] != 4 {
		t.Errorf("final pods by revision %v, want r2: 4", got)
	}
	if n := countActions(res, model.ActionUpdatePodInPlace); n != 4 {
		t.Errorf("%d in-place updates, want 4", n)
	}
	if n := countActions(res, model.ActionRecreatePod); n != 0 {
		t.Errorf("%d recreates, want 0", n)
	}
	if res.Final.Status.CurrentRevision != res.Final.Status.UpdateRevision {
		t.Errorf("currentRevision %s did not advance to %s", res.Final.Status.CurrentRevision, res.Final.Status.UpdateRevision)
	}
	// maxUnavailable 1: never two pods updating at once.
	for _, s := range res.Steps {
		for _, rc := range s.Pods.Revisions {
			for _, st := range rc.States {
				if st.State == model.StateUpdating && st.Count > 1 {
					t.Errorf("step %d: %d pods Updating at once", s.Index, st.Count)
				}
			}
		}
	}
	// The kubelet ran the new image: every container status reports it.
	sim, err := New(scn, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Run(); err != nil {
		t.Fatal(err)
	}
	for _, p := range sim.Cluster().Pods() {
		if cs := p.Status.ContainerStatuses; len(cs) != 1 || cs[0].Image != "web:v2" || cs[0].ImageID != imageID("web:v2") || cs[0].RestartCount != 1 {
			t.Errorf("pod %s container status %+v, want web:v2 restarted once", p.Name, cs)
		}
	}
}

func TestRecreateRollout(t *testing.T) {
	scn := webScenario(webOptions{replicas: 3, maxSurge: intOrPct("1"), maxUnav: intOrPct("0"), vct: true})
	cfg := DefaultConfig()
	cfg.Events = []Event{at(60, Change{Env: []EnvVar{{Name: "MODE", Value: "fast"}}})}
	res := mustRun(t, scn, cfg)
	if res.Outcome != Converged {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
	}
	if got := finalByRevision(res); got["r2"] != 3 || len(got) != 1 {
		t.Errorf("final pods by revision %v, want r2: 3", got)
	}
	// Surge first: a new pod, then one old pod at a time is marked, deleted and
	// replaced; the last old pod goes by scale-in once the surge is not needed.
	if countActions(res, model.ActionRecreatePod) != 2 || countActions(res, model.ActionDeletePod) != 3 || countActions(res, model.ActionCreatePod) != 6 {
		t.Errorf("recreates %d, deletes %d, creates %d, want 2, 3 and 6", countActions(res, model.ActionRecreatePod),
			countActions(res, model.ActionDeletePod), countActions(res, model.ActionCreatePod))
	}
	// maxSurge 1, maxUnavailable 0: never more than 4 active pods, never fewer
	// than 3 available once the first 3 were.
	ready := false
	for _, s := range res.Steps {
		if s.Pods.Active > 4 {
			t.Errorf("step %d: %d active pods", s.Index, s.Pods.Active)
		}
		avail := 0
		for _, rc := range s.Pods.Revisions {
			avail += rc.Available
		}
		if ready && avail < 3 && s.Elapsed > 60 {
			t.Errorf("step %d: only %d pods available during the rollout", s.Index, avail)
		}
		if avail == 3 {
			ready = true
		}
	}
}

func TestPartitionKeepsOldPods(t *testing.T) {
	scn := webScenario(webOptions{replicas: 5, partition: intOrPct("3")})
	cfg := DefaultConfig()
	cfg.Events = []Event{at(60, Change{Image: "web:v2"}), at(200, Change{Partition: intOrPct("1")})}
	res := mustRun(t, scn, cfg)
	if res.Outcome != Converged {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
	}
	if got := finalByRevision(res); got["r1"] != 1 || got["r2"] != 4 {
		t.Errorf("final pods by revision %v, want r1: 1, r2: 4", got)
	}
	// Between the two events the partition held exactly 3 pods back.
	for _, s := range res.Steps {
		if s.Elapsed > 150 && s.Elapsed < 200 && s.Status.UpdatedReplicas != 2 {
			t.Errorf("step %d (t=%vs): %d pods updated with partition 3, want 2", s.Index, s.Elapsed, s.Status.UpdatedReplicas)
		}
	}
	part := res.Invariants[3]
	if part.Name != InvPartition || part.Checks != 1 || part.Waived != "" {
		t.Errorf("partition invariant not checked: %+v", part)
	}
}

func TestScaleInWithPreDeleteHook(t *testing.T) {
	hook := &model.LifecycleHook{LabelsHandler: map[string]string{"example.io/drain": "true"}, MarkPodNotReady: true}
	scn := webScenario(webOptions{replicas: 3, labels: map[string]string{"example.io/drain": "true"}, lifecycle: &model.Lifecycle{PreDelete: hook}})
	cfg := DefaultConfig()
	cfg.Events = []Event{at(60, Change{Replicas: int32p(1)})}
	res := mustRun(t, scn, cfg)
	if res.Outcome != Converged {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
	}
	var toPD, released int
	for _, s := range res.Steps {
		for _, a := range s.Plan.Actions {
			if a.Type == model.ActionSetLifecycleState && a.To == model.StatePreparingDelete {
				toPD++
				if !a.MarkPodNotReady {
					t.Errorf("step %d: %s to PreparingDelete without markPodNotReady", s.Index, a.Pod)
				}
			}
		}
		for _, w := range s.World {
			if strings.Contains(w, "releases the preDelete hook") {
				released++
			}
		}
	}
	if toPD != 2 || released != 2 || countActions(res, model.ActionDeletePod) != 2 {
		t.Errorf("to PreparingDelete %d, released %d, deleted %d; want 2, 2, 2", toPD, released, countActions(res, model.ActionDeletePod))
	}
	if len(res.Final.Pods) != 1 {
		t.Errorf("final pods %+v, want 1", res.Final.Pods)
	}
}

func TestInPlaceHookAndGrace(t *testing.T) {
	hook := &model.LifecycleHook{LabelsHandler: map[string]string{"example.io/serving": "true"}, MarkPodNotReady: true}
	scn := webScenario(webOptions{replicas: 2, grace: 5, labels: map[string]string{"example.io/serving": "true"},
		lifecycle: &model.Lifecycle{InPlaceUpdate: hook}})
	cfg := DefaultConfig()
	cfg.Events = []Event{at(60, Change{Image: "web:v2"})}
	res := mustRun(t, scn, cfg)
	if res.Outcome != Converged {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
	}
	// Every pod goes Normal -> PreparingUpdate -> Updating -> Updated -> Normal,
	// and its grace period ends with a PatchPod carrying the new image.
	seen := map[string]int{}
	for _, s := range res.Steps {
		for _, a := range s.Plan.Actions {
			switch {
			case a.Type == model.ActionSetLifecycleState:
				seen[a.From+">"+a.To]++
			case a.Type == model.ActionPatchPod && a.SetImages["main"] == "web:v2":
				seen["grace over"]++
			case a.Type == model.ActionUpdatePodInPlace && a.GracePeriodSeconds == 5:
				seen["update"]++
			}
		}
	}
	for _, k := range []string{"Normal>PreparingUpdate", "update", "grace over", "Updating>Updated", "Updated>Normal"} {
		if seen[k] != 2 {
			t.Errorf("%s seen %d times, want 2 (all: %v)", k, seen[k], seen)
		}
	}
}

func TestFaultNeverReady(t *testing.T) {
	scn := webScenario(webOptions{replicas: 3, maxUnav: intOrPct("1"), pds: 120})
	cfg := DefaultConfig()
	cfg.Events = []Event{at(30, Change{Image: "web:broken"})}
	cfg.Faults.NeverReady.Images = []string{"web:broken"}
	cfg.MaxSteps = 200
	res := mustRun(t, scn, cfg)
	if res.Outcome == Converged {
		t.Fatalf("a rollout to a never-ready image converged")
	}
	if got := finalByRevision(res); got["r2"] != 1 || got["r1"] != 2 {
		t.Errorf("final pods by revision %v, want the rollout stuck at one broken pod", got)
	}
	if inv := res.Invariants[4]; inv.Name != InvConvergence || inv.Waived == "" {
		t.Errorf("convergence invariant should be waived with faults: %+v", inv)
	}
}

func TestFaultCrashLoop(t *testing.T) {
	scn := webScenario(webOptions{replicas: 2})
	cfg := DefaultConfig()
	cfg.Faults.Crash = CrashFault{Selection: Selection{Images: []string{"web:v1"}}, Up: 20 * time.Second, Down: 10 * time.Second}
	cfg.MaxSteps = 150
	res := mustRun(t, scn, cfg)
	if res.Outcome != StepLimit {
		t.Errorf("outcome %s, want step-limit (a crash loop never rests)", res.Outcome)
	}
	crashes := 0
	for _, s := range res.Steps {
		for _, w := range s.World {
			if strings.Contains(w, "crashed") {
				crashes++
			}
		}
	}
	if crashes < 4 {
		t.Errorf("%d crashes, want a loop", crashes)
	}
}

func TestFaultNodeLoss(t *testing.T) {
	for _, mode := range []NodeLossMode{NodeLossEvict, NodeLossFail} {
		t.Run(string(mode), func(t *testing.T) {
			scn := webScenario(webOptions{replicas: 3})
			cfg := DefaultConfig()
			cfg.Nodes = []string{"a", "b", "c"}
			cfg.Faults.NodeLoss = []NodeLoss{{Node: "b", At: 60 * time.Second, Mode: mode, After: 20 * time.Second}}
			cfg.MaxSteps = 300
			res := mustRun(t, scn, cfg)
			if res.Outcome != Converged {
				t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
			}
			for _, p := range res.Final.Pods {
				if p.Node == "b" {
					t.Errorf("pod %s still on the lost node", p.Name)
				}
			}
			if got := finalByRevision(res); got["r1"] != 3 {
				t.Errorf("final %v, want 3 pods again", got)
			}
		})
	}
}

func TestScriptedChangesRejected(t *testing.T) {
	scn := webScenario(webOptions{replicas: 2})
	cfg := DefaultConfig()
	neg := model.FromInt(-1)
	cfg.Events = []Event{at(5, Change{MaxUnavailable: &neg})}
	res := mustRun(t, scn, cfg)
	found := false
	for _, s := range res.Steps {
		for _, e := range s.Events {
			if strings.Contains(e, "rejected by the validating webhook") {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("maxUnavailable -1 was not rejected")
	}
}

func TestQuickstartScenario(t *testing.T) {
	scn, err := manifest.LoadFiles([]string{"../testdata/scenarios/quickstart.yaml"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Events = []Event{at(120, Change{Partition: intOrPct("0")})}
	res := mustRun(t, scn, cfg)
	if res.Outcome != Converged {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
	}
	if got := finalByRevision(res); got["r2"] != 5 {
		t.Errorf("final %v, want all 5 pods at the new revision", got)
	}
}

func TestDeterminism(t *testing.T) {
	scn := webScenario(webOptions{replicas: 4, maxSurge: intOrPct("1")})
	cfg := DefaultConfig()
	cfg.Events = []Event{at(30, Change{Image: "web:v2"}), at(45, Change{Replicas: int32p(6)})}
	a := mustRun(t, scn, cfg)
	b := mustRun(t, scn, cfg)
	if a.Digest != b.Digest || a.Digest == "" {
		t.Errorf("digests %q and %q", a.Digest, b.Digest)
	}
	cfg.Seed = 2
	c := mustRun(t, scn, cfg)
	if c.Digest == a.Digest {
		t.Errorf("seeds 1 and 2 gave the same run (%s): the seed is not used", a.Digest)
	}
	if inv := a.Invariants[5]; inv.Name != InvDeterminism || inv.Checks != 1 || inv.Waived != "" {
		t.Errorf("determinism report %+v", inv)
	}
}

// The upstream liveness gaps the convergence invariant recognizes, each in a
// small scenario (the planner reproduces upstream here; these are findings
// about the real controller, not about the planner).

func TestUpstreamGapScaleOutDeadlock(t *testing.T) {
	hook := &model.LifecycleHook{LabelsHandler: map[string]string{"example.io/drain": "true"}}
	scn := webScenario(webOptions{replicas: 1, labels: map[string]string{"example.io/drain": "true"}, lifecycle: &model.Lifecycle{PreDelete: hook}})
	one := model.FromInt(1)
	scn.CloneSet.Spec.ScaleStrategy.MaxUnavailable = &one
	scn.CloneSet.Spec.ScaleStrategy.ExcludePreparingDelete = true
	cfg := DefaultConfig()
	cfg.Events = []Event{at(30, Change{PickPodsToDelete: 1})}
	res := mustRun(t, scn, cfg)
	if res.Outcome == Converged || !strings.HasPrefix(res.Invariants[4].Waived, "upstream deadlock") {
		t.Errorf("outcome %s, convergence waiver %q", res.Outcome, res.Invariants[4].Waived)
	}
	last := res.Steps[len(res.Steps)-1]
	if b := last.Plan.Budget; b.ScaleUp != 1 || b.ScaleUpLimit != 0 || last.Pods.Revisions[0].States[0].State != model.StatePreparingDelete {
		t.Errorf("last round: budget %+v, pods %s", b, last.Pods.PodsText())
	}
}

// TestPartitionRollbackConverges: a roll-back by partition
// (CloneSetPartitionRollback) moves the updated pods back to the current
// revision (update-and-ordering 2.4). An image change goes back in place, an
// env change is recreated under InPlaceIfPossible, and under InPlaceOnly the
// roll-back waits at the update revision with a FailedUpdate note.
func TestPartitionRollbackConverges(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy string
		change Change
		// waits: the roll-back cannot be done; the pods stay at the update
		// revision and the notes say why.
		waits bool
	}{
		{"in-place image", model.PolicyInPlaceIfPossible, Change{Image: "web:v2"}, false},
		{"InPlaceIfPossible env", model.PolicyInPlaceIfPossible, Change{Env: []EnvVar{{Name: "MODE", Value: "canary"}}}, false},
		// InPlaceOnly cannot roll an env change forward either: the
		// partition holds the old pods and a scale-out creates the two pods
		// at the update revision that the roll-back then cannot move.
		{"InPlaceOnly env", model.PolicyInPlaceOnly, Change{Env: []EnvVar{{Name: "MODE", Value: "canary"}}, Partition: intOrPct("4")}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scn := webScenario(webOptions{replicas: 4, maxUnav: intOrPct("1"), policy: tc.policy})
			scn.Gates.CloneSetPartitionRollback = true
			cfg := DefaultConfig()
			cfg.Events = []Event{at(30, tc.change), at(40, Change{Partition: intOrPct("4")})}
			if tc.waits {
				six := int32(6)
				cfg.Events = []Event{at(30, tc.change), at(40, Change{Replicas: &six}), at(200, Change{Partition: intOrPct("6")})}
			}
			cfg.MaxSteps = 5000
			res := mustRun(t, scn, cfg)
			last := res.Steps[len(res.Steps)-1]
			if !tc.waits {
				if res.Outcome != Converged {
					t.Fatalf("outcome %s (%s), want converged", res.Outcome, res.Invariants[4].Waived)
				}
				for _, r := range last.Pods.Revisions {
					if r.Revision != last.Status.CurrentRevision && r.Total > 0 {
						t.Errorf("%d pods still at %s after the roll-back to %s", r.Total, r.Revision, last.Status.CurrentRevision)
					}
				}
				return
			}
			waiting := false
			for _, n := range last.Notes {
				if strings.Contains(n, "cannot be updated in place") {
					waiting = true
				}
			}
			atUpdate := 0
			for _, r := range last.Pods.Revisions {
				if r.Revision == last.Plan.UpdateRevision {
					atUpdate = r.Total
				}
			}
			if !waiting || atUpdate != 2 {
				t.Errorf("outcome %s, %d pods at the update revision (want 2, waiting); the last round's notes: %q", res.Outcome, atUpdate, last.Notes)
			}
		})
	}
}

func TestUpstreamGapStrandedPreparingUpdate(t *testing.T) {
	hook := &model.LifecycleHook{LabelsHandler: map[string]string{"example.io/serving": "true"}}
	scn := webScenario(webOptions{replicas: 2, maxUnav: intOrPct("1"), labels: map[string]string{"example.io/serving": "true"},
		lifecycle: &model.Lifecycle{InPlaceUpdate: hook}})
	cfg := DefaultConfig()
	cfg.Delays.Hook = Seconds(20, 20)
	cfg.Events = []Event{at(60, Change{Image: "web:v2"}), at(65, Change{Partition: intOrPct("2")})}
	res := mustRun(t, scn, cfg)
	if res.Outcome == Converged || !strings.HasPrefix(res.Invariants[4].Waived, "upstream gap: pod") {
		t.Errorf("outcome %s, convergence waiver %q", res.Outcome, res.Invariants[4].Waived)
	}
}

// TestUpstreamGapPreparingUpdateAsUpdateSurge: with PreparingUpdateAsUpdate,
// maxSurge 1 and maxUnavailable 0, a second image change arrives while a
// pod waits in PreparingUpdate for its first: the scale phase counts that
// pod as updated (it removes the old pod the surge pod replaced and creates
// no surge pod), the update phase counts it as old and has no budget left
// (found by TestPropertyRandomRollouts).
func TestUpstreamGapPreparingUpdateAsUpdateSurge(t *testing.T) {
	hook := &model.LifecycleHook{LabelsHandler: map[string]string{"example.io/serving": "true"}}
	preNormal := &model.LifecycleHook{LabelsHandler: map[string]string{"example.io/warm": "true"}}
	scn := webScenario(webOptions{replicas: 2, maxSurge: intOrPct("1"), maxUnav: intOrPct("2"),
		labels: map[string]string{"example.io/serving": "true"}, lifecycle: &model.Lifecycle{InPlaceUpdate: hook, PreNormal: preNormal}})
	scn.Gates.PreparingUpdateAsUpdate = true
	cfg := DefaultConfig()
	cfg.Events = []Event{at(0, Change{Image: "web:v2"}), at(1, Change{Image: "web:v3"}), at(2, Change{MaxUnavailable: intOrPct("20%")})}
	res := mustRun(t, scn, cfg)
	if res.Outcome == Converged || !strings.HasPrefix(res.Invariants[4].Waived, "upstream deadlock: with PreparingUpdateAsUpdate") {
		t.Errorf("outcome %s, convergence waiver %q", res.Outcome, res.Invariants[4].Waived)
	}
}

// TestPartitionInvariantNodeLostAsRollbackBegins is the regression case of the
// random rollout that failed CI (issue 33): a roll-back to the current revision
// begins in the very round a node is lost, and the lost node's pods are evicted
// only later. The old pods on that node were counted when the roll-back began;
// their replacements are created at the update revision (it is also the
// current one), so fewer old pods than the partition remain, as upstream
// leaves them. The eviction is a removal by a node loss, which waives O == P:
// the invariant must not report it.
func TestPartitionInvariantNodeLostAsRollbackBegins(t *testing.T) {
	scn := webScenario(webOptions{replicas: 4, partition: intOrPct("2")})
	cfg := DefaultConfig()
	cfg.Nodes = []string{"a", "b"}
	cfg.Events = []Event{at(60, Change{Image: "web:v2"}), at(200, Change{Image: "web:v1"})}
	cfg.Faults.NodeLoss = []NodeLoss{{Node: "b", At: 200 * time.Second, Mode: NodeLossEvict, After: 10 * time.Second}}
	cfg.MaxSteps = 400
	res := mustRun(t, scn, cfg)
	if res.Outcome != Converged {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
	}
	for _, v := range res.Violations() {
		t.Errorf("%v", v)
	}
	// The evicted r2 pod came back at r1: one old pod, below partition 2.
	if got := finalByRevision(res); got["r1"] != 3 || got["r2"] != 1 {
		t.Errorf("final pods by revision %v, want r1: 3, r2: 1", got)
	}
}
