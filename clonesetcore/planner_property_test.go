package clonesetcore_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/model"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// rapidSource draws the generator's integers from rapid, so failures shrink.
type rapidSource struct{ t *rapid.T }

func (r rapidSource) intn(label string, n int) int {
	if n <= 1 {
		return 0
	}
	return rapid.IntRange(0, n-1).Draw(r.t, label)
}

// fatalf is the part of testing.TB and *rapid.T the world check needs.
type fatalf interface {
	Helper()
	Fatalf(format string, args ...any)
}

// checkWorld plans the world and checks, for that world: the invariants of
// every plan; determinism (two calls on one scenario, and on two fresh copies,
// give byte-identical JSON); that Plan does not modify its input; permutation
// invariance (the scenario with every slice reordered by perm gives the same
// JSON); the same for both rankings. It returns the plan.
func checkWorld(t fatalf, ws *worldSpec, perm func(string, int) []int) *clonesetcore.Result {
	t.Helper()
	s1 := ws.build(identity)
	res1, err := clonesetcore.Plan(s1)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	if v := invariantViolations(s1, res1); len(v) > 0 {
		t.Fatalf("invariants broken: %q\nplan: %s", v, mustJSON(t, res1))
	}
	j1 := mustJSON(t, res1)
	res1b, _ := clonesetcore.Plan(s1)
	if j := mustJSON(t, res1b); !bytes.Equal(j, j1) {
		t.Fatalf("two calls on the same scenario differ:\n%s", cmp.Diff(string(j1), string(j)))
	}
	s2 := ws.build(identity)
	if !reflect.DeepEqual(s1, s2) {
		d := cmp.Diff(s2, s1, cmp.Exporter(func(reflect.Type) bool { return true }))
		t.Fatalf("Plan modified its input scenario (-fresh +after):\n%s", d)
	}
	res2, _ := clonesetcore.Plan(s2)
	if j := mustJSON(t, res2); !bytes.Equal(j, j1) {
		t.Fatalf("two copies of one scenario give different plans:\n%s", cmp.Diff(string(j1), string(j)))
	}
	s3 := ws.build(perm)
	res3, _ := clonesetcore.Plan(s3)
	if j := mustJSON(t, res3); !bytes.Equal(j, j1) {
		t.Fatalf("reordering the scenario's slices changes the plan:\n%s", cmp.Diff(string(j1), string(j)))
	}
	for _, what := range []string{clonesetcore.RankForDeletion, clonesetcore.RankForUpdate} {
		r1, err := clonesetcore.Rank(s1, what)
		if err != nil {
			t.Fatalf("Rank %s: %v", what, err)
		}
		r3, _ := clonesetcore.Rank(s3, what)
		if d := cmp.Diff(r1, r3); d != "" {
			t.Fatalf("reordering the scenario changes the %s ranking:\n%s", what, d)
		}
		if what == clonesetcore.RankForDeletion && len(r1.Pods) != len(observedPods(s1)) {
			t.Fatalf("deletion ranking has %d pods, %d observed", len(r1.Pods), len(observedPods(s1)))
		}
	}
	return res1
}

func mustJSON(t fatalf, res any) []byte {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return b
}

// validWorld reports whether the built CloneSet passes the webhook (the rules
// the loader enforces by default: everything but A17/B17).
func validWorld(ws *worldSpec) error {
	s := ws.build(identity)
	for _, fe := range model.Validate(s.CloneSet, s.Pods) {
		if fe.Rule != "A17" && fe.Rule != "B17" {
			return fe
		}
	}
	return nil
}

// propertyRounds is how many times the rapid properties run their default 100
// checks (about 0.1 s each); -short runs one round.
const propertyRounds = 60

// TestPlanProperties checks, on random valid worlds (CloneSets with random
// replicas, partition, surge, budgets, policies, hooks, gates; pods with random
// revisions, lifecycle states, phases, readiness, owners, grace periods,
// specified deletion; PVCs, nodes, revisions): no error or panic, the invariants
// of invariantViolations, determinism, no mutation of the input, and
// invariance under any reordering of every slice of the scenario.
func TestPlanProperties(t *testing.T) {
	rounds := propertyRounds
	if testing.Short() {
		rounds = 1
	}
	worlds := 0
	seen := map[string]int{}
	for i := range rounds {
		t.Run(fmt.Sprint("round", i), func(t *testing.T) {
			rapid.Check(t, func(rt *rapid.T) {
				ws := genWorld(rapidSource{rt})
				if err := validWorld(ws); err != nil {
					rt.Fatalf("the generator made a CloneSet the webhook rejects: %v", err)
				}
				perm := func(label string, n int) []int {
					return rapid.Permutation(identity(label, n)).Draw(rt, "perm/"+label)
				}
				res := checkWorld(rt, ws, perm)
				worlds++
				for _, k := range outcomes(res) {
					seen[k]++
				}
			})
		})
	}
	t.Logf("%d random worlds; outcomes: %v", worlds, seen)
	if t.Failed() || testing.Short() {
		return
	}
	// A generator that never reaches some outcome tests nothing about it.
	for _, k := range allOutcomes {
		if seen[k] == 0 {
			t.Errorf("no random world produced %q", k)
		}
	}
}

var allOutcomes = []string{
	"CreatePod", "DeletePod", "SetLifecycleState", "UpdatePodInPlace", "RecreatePod", "DeletePVC",
	"SetPVCOwner", "UpdatePodsToDelete", "PatchPod", "FailedUpdate", "requeue", "updateBudget", "no action",
}

// outcomes names what a plan contains, for the generator's coverage tally.
func outcomes(res *clonesetcore.Result) []string {
	var out []string
	for _, a := range res.Actions {
		if !slices.Contains(out, string(a.Type)) {
			out = append(out, string(a.Type))
		}
	}
	for _, c := range res.Status.Conditions {
		if c.Type == model.ConditionFailedUpdate && c.Message != "earlier failure" {
			out = append(out, "FailedUpdate")
		}
	}
	if res.RequeueAfterSeconds > 0 {
		out = append(out, "requeue")
	}
	if res.UpdateBudget != nil {
		out = append(out, "updateBudget")
	}
	if len(res.Actions) == 0 {
		out = append(out, "no action")
	}
	return out
}

// TestPropertyCheckerDetectsViolations makes sure the invariant checker is not
// vacuous: hand-broken plans must be reported.
func TestPropertyCheckerDetectsViolations(t *testing.T) {
	w := newWorld(3, pod("a1", revA), pod("a2", revA), pod("a3", revA)).maxUnavail(1)
	res := w.plan(t)
	breakers := map[string]func(*clonesetcore.Result){
		"create and update": func(r *clonesetcore.Result) {
			r.Actions = append(r.Actions, model.Action{Type: model.ActionCreatePod, Pod: "web-new", Revision: revB})
			r.Budget.ScaleUpLimit = 1
		},
		"too many rolling updates": func(r *clonesetcore.Result) {
			r.Actions = append(r.Actions, model.Action{Type: model.ActionRecreatePod, Pod: "a2", ToRevision: revB})
		},
		"action on a foreign pod": func(r *clonesetcore.Result) {
			r.Actions = append(r.Actions, model.Action{Type: model.ActionDeletePod, Pod: "nobody"})
		},
		"ready pod deleted without budget": func(r *clonesetcore.Result) {
			r.Actions = []model.Action{{Type: model.ActionDeletePod, Pod: "a1"}}
		},
		"too many creations": func(r *clonesetcore.Result) {
			r.Actions = []model.Action{{Type: model.ActionCreatePod, Pod: "web-x", Revision: revB}}
		},
		"status replicas": func(r *clonesetcore.Result) { r.Status.Replicas = 7 },
	}
	for name, br := range breakers {
		cp := *res
		cp.Actions = append([]model.Action(nil), res.Actions...)
		br(&cp)
		if len(invariantViolations(w.s, &cp)) == 0 {
			t.Errorf("%s: the checker found nothing wrong", name)
		}
	}
}
