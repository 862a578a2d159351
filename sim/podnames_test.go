package sim

import (
	"fmt"
	"testing"
	"time"

	"github.com/clonecore/cloneset/internal/cisummary"
	"github.com/clonecore/cloneset/model"
)

// nameReuse counts, over a run, the pods created under a name an earlier pod
// of the run already carried: through PVC reuse (the CreatePod action reuses
// PVCs of that instance id, docs/spec/scale-and-budgets.md 5.5, as upstream
// does on purpose) or not (a generated id that came back, 7.2).
type nameReuse struct {
	created  int            // pods that came into existence
	reused   []string       // names created again without PVC reuse, in order
	pvcReuse int            // creations under an earlier name through PVC reuse
	names    map[string]int // pod name -> pods created under it
	uids     map[string]bool
}

// observe records the pods the step's plan created: a CreatePod action whose
// pod now exists with a uid never seen (a create that failed leaves the old
// pod, or none).
func (n *nameReuse) observe(c *Cluster, st *Step) {
	for _, a := range st.Plan.Actions {
		if a.Type != model.ActionCreatePod {
			continue
		}
		p := c.Pod(a.Pod)
		if p == nil || n.uids[p.UID] {
			continue
		}
		n.uids[p.UID] = true
		n.created++
		if n.names[a.Pod] > 0 {
			if len(a.ReusePVCs) > 0 {
				n.pvcReuse++
			} else {
				n.reused = append(n.reused, fmt.Sprintf("%s (step %d)", a.Pod, st.Index))
			}
		}
		n.names[a.Pod]++
	}
}

// TestPodNamesNeverComeBack runs a rollout of about 200 pods (recreate
// updates, scale-in and scale-out, a lost node whose pods come back on their
// PVCs, pods deleted through podsToDelete) and checks that no pod name is
// created twice except through PVC instance-id reuse (issue 29): generated
// ids do not repeat across rounds (docs/spec/scale-and-budgets.md 7.2). It
// prints "pod names reused: R (PVC reuse: N)" for CI. With the sequence
// started over every round (the rule before issue 29) it finds 809 of the
// 1,167 creations under an earlier pod's name.
func TestPodNamesNeverComeBack(t *testing.T) {
	if testing.Short() {
		t.Skip("a long simulation")
	}
	scn := webScenario(webOptions{replicas: 200, policy: model.PolicyReCreate,
		maxSurge: intOrPct("25%"), maxUnav: intOrPct("25%"), vct: true})
	scn.CloneSet.Spec.ScaleStrategy.EnablePVCReuse = true
	cfg := DefaultConfig()
	cfg.MaxSteps = 8000
	cfg.Nodes = []string{"node-0", "node-1", "node-2", "node-3", "node-4", "node-5", "node-6", "node-7", "node-8", "node-9"}
	cfg.Faults.NodeLoss = []NodeLoss{{Node: "node-3", At: 10 * time.Minute, Mode: NodeLossEvict, After: 20 * time.Second}}
	cfg.Events = []Event{
		at(4*60, Change{Image: "web:v2"}),
		at(8*60, Change{Replicas: int32p(120)}),
		at(12*60, Change{Replicas: int32p(230)}),
		at(16*60, Change{Env: []EnvVar{{Name: "MODE", Value: "fast"}}}),
		at(20*60, Change{PickPodsToDelete: 15}),
		at(24*60, Change{Replicas: int32p(90)}),
		at(28*60, Change{Replicas: int32p(200), Image: "web:v3"}),
		at(32*60, Change{Image: "web:v4"}),
	}
	s, err := New(scn, cfg)
	if err != nil {
		t.Fatal(err)
	}
	run := nameReuse{names: map[string]int{}, uids: map[string]bool{}}
	for !s.Done() {
		st, err := s.Step()
		if err != nil {
			t.Fatal(err)
		}
		if st != nil {
			run.observe(s.Cluster(), st)
		}
	}
	res := s.Result()
	if res.Outcome != Converged {
		t.Fatalf("%s: %s", res.Outcome, res.Reason)
	}
	for _, v := range res.Violations() {
		t.Errorf("violation: %v", v)
	}
	t.Logf("%d rounds, %d pods created, %d names reused, %d through PVC reuse", len(res.Steps), run.created, len(run.reused), run.pvcReuse)
	if run.created < 1100 {
		t.Errorf("only %d pods created: the run does not exercise enough rounds", run.created)
	}
	if run.pvcReuse == 0 {
		t.Error("no PVC reuse: the lost node's pods did not come back on their PVCs, the exception is not exercised")
	}
	if len(run.reused) > 0 {
		t.Errorf("%d pod names created again without PVC reuse: %v", len(run.reused), run.reused)
	}
	cisummary.Print(t, fmt.Sprintf("pod names reused: %d (PVC reuse: %d)", len(run.reused), run.pvcReuse))
}
