package ordering

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
	"github.com/google/go-cmp/cmp"
)

// delKeyCase describes one key of 8.2 for the isolation and precedence tests:
// both is applied to every pod of the test, first makes a pod go first on this
// key, extra returns pods the key needs in the group (the rank key needs a
// neighbour on the same node).
type delKeyCase struct {
	why   string
	both  []podOpt
	first []podOpt
	extra func() []*model.Pod
}

// deletionKeys lists the keys of 8.2 in precedence order (name excluded).
func deletionKeys() []delKeyCase {
	return []delKeyCase{
		{why: WhyUnscheduled, first: []podOpt{unscheduled()}},
		{why: WhyPhase, first: []podOpt{phase(model.PodPending)}},
		{why: WhyUnavailable, first: []podOpt{state(model.StatePreparingNormal)}},
		{why: WhyNotReady, both: []podOpt{state(model.StatePreparingNormal)}, first: []podOpt{notReady()}},
		{why: WhyDeletionCost, first: []podOpt{cost("-1")}},
		{why: WhyRank, first: []podOpt{onNode("shared")}, extra: func() []*model.Pod {
			// The neighbour is more valuable (ready longer), so the tested pod
			// gets same-node rank 1 and the neighbour 0.
			return []*model.Pod{newPod("zz-filler", onNode("shared"), readyAt(t0.Add(-time.Hour)))}
		}},
		{why: WhyReadyTime, first: []podOpt{readyAt(t0.Add(time.Minute))}},
		{why: WhyRestarts, first: []podOpt{restarts(3)}},
		{why: WhyCreationTime, first: []podOpt{created(t0.Add(-30 * time.Minute))}},
	}
}

var delOpts = DeletionOptions{Now: t0.Add(time.Hour)}

func applyAll(p *model.Pod, opts ...[]podOpt) {
	for _, os := range opts {
		for _, o := range os {
			o(p)
		}
	}
}

// checkFirst ranks group in both input orders and checks that a comes first,
// directly followed by b, with the expected why on a.
func checkFirst(t *testing.T, group []*model.Pod, opts DeletionOptions, a, b, why string) {
	t.Helper()
	for _, in := range [][]*model.Pod{group, reversed(group)} {
		got := RankForDeletion(in, opts)
		ns := names(got)
		if len(ns) < 2 || ns[0] != a || ns[1] != b {
			t.Fatalf("order %v, want %s then %s first", ns, a, b)
		}
		if got[0].Why != why {
			t.Fatalf("why(%s) = %q, want %q (order %v)", a, got[0].Why, why, ns)
		}
		if got[len(got)-1].Why != WhyLast {
			t.Fatalf("final why %q", got[len(got)-1].Why)
		}
	}
}

// Each key alone decides, and beats the name tie-break (a is named after b).
func TestDeletionKeyIsolation(t *testing.T) {
	for _, k := range deletionKeys() {
		t.Run(k.why, func(t *testing.T) {
			a, b := newPod("z-a"), newPod("a-b")
			applyAll(a, k.both, k.first)
			applyAll(b, k.both)
			group := []*model.Pod{a, b}
			if k.extra != nil {
				for _, x := range k.extra() {
					applyAll(x, k.both)
					group = append(group, x)
				}
			}
			checkFirst(t, group, delOpts, "z-a", "a-b", k.why)
		})
	}
	t.Run(WhyName, func(t *testing.T) {
		checkFirst(t, []*model.Pod{newPod("b"), newPod("a")}, delOpts, "a", "b", WhyName)
	})
}

// Each key beats every later key: a goes first on key i, b on key j > i.
func TestDeletionKeyPrecedence(t *testing.T) {
	keys := deletionKeys()
	tested := 0
	for i, ki := range keys {
		for _, kj := range keys[i+1:] {
			if ki.why == WhyUnavailable && kj.why == WhyNotReady {
				// Impossible: a not-ready pod is never available, so a pod
				// cannot be available and first by readiness.
				continue
			}
			t.Run(ki.why+">"+kj.why, func(t *testing.T) {
				a, b := newPod("z-a"), newPod("a-b")
				applyAll(a, ki.both, kj.both, ki.first)
				applyAll(b, ki.both, kj.both, kj.first)
				group := []*model.Pod{a, b}
				for _, k := range []delKeyCase{ki, kj} {
					if k.extra != nil {
						for _, x := range k.extra() {
							applyAll(x, ki.both, kj.both)
							group = append(group, x)
						}
					}
				}
				checkFirst(t, group, delOpts, "z-a", "a-b", ki.why)
				// Sanity: b alone against a neutral pod does win on key j.
				c := newPod("0-neutral")
				applyAll(c, ki.both, kj.both)
				g2 := []*model.Pod{c, b}
				if kj.extra != nil {
					for _, x := range kj.extra() {
						applyAll(x, ki.both, kj.both)
						g2 = append(g2, x)
					}
				}
				checkFirst(t, g2, delOpts, "a-b", "0-neutral", kj.why)
			})
			tested++
		}
	}
	if want := len(keys)*(len(keys)-1)/2 - 1; tested != want {
		t.Fatalf("tested %d pairs, want %d", tested, want)
	}
}

func TestDeletionPhaseRanks(t *testing.T) {
	group := []*model.Pod{
		newPod("run", phase(model.PodRunning)),
		newPod("unk", phase(model.PodUnknown)),
		newPod("pend", phase(model.PodPending)),
		newPod("empty", phase("")),
		newPod("odd", phase("Weird")),
	}
	got := RankForDeletion(group, delOpts)
	// Pending, empty and odd share rank 0 (then name), Unknown 1, Running 2.
	assertOrder(t, got, "empty", "odd", "pend", "unk", "run")
	if d := cmp.Diff(map[string]string{"empty": WhyName, "odd": WhyName, "pend": WhyPhase, "unk": WhyPhase, "run": WhyLast}, whys(got)); d != "" {
		t.Fatal(d)
	}
}

func TestDeletionAvailability(t *testing.T) {
	now := t0.Add(time.Hour)
	opts := DeletionOptions{MinReadySeconds: 10, Now: now}
	cases := []struct {
		name string
		opt  podOpt
		// why is the key that puts the pod before the reference pod, or ""
		// when the pod is available and goes after it by deletion cost.
		why string
	}{
		{"matured", readyAt(now.Add(-11 * time.Second)), ""},
		{"exactly minReadySeconds", readyAt(now.Add(-10 * time.Second)), WhyUnavailable},
		{"young", readyAt(now.Add(-5 * time.Second)), WhyUnavailable},
		{"zero transition time", readyAt(time.Time{}), WhyUnavailable},
		{"in-place not ready", func(p *model.Pod) {
			p.Status.Conditions = append(p.Status.Conditions, model.PodCondition{Type: model.ConditionInPlaceUpdateReady, Status: "False"})
		}, WhyUnavailable},
		{"in-place ready", func(p *model.Pod) {
			p.Status.Conditions = append(p.Status.Conditions, model.PodCondition{Type: model.ConditionInPlaceUpdateReady, Status: "True"})
		}, ""},
		{"state Updated", state(model.StateUpdated), WhyUnavailable},
		{"state PreparingDelete", state(model.StatePreparingDelete), WhyUnavailable},
		{"state empty", func(p *model.Pod) { delete(p.Labels, model.LabelLifecycleState) }, ""},
		{"phase Unknown decides before availability", phase(model.PodUnknown), WhyPhase},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// ref is available and, by deletion cost, goes before any pod
			// that is available too.
			ref := newPod("a-ref", readyAt(now.Add(-20*time.Second)), cost("-1"))
			p := newPod("z-p", c.opt)
			got := RankForDeletion([]*model.Pod{ref, p}, opts)
			if c.why == "" {
				assertOrder(t, got, "a-ref", "z-p")
				if got[0].Why != WhyDeletionCost {
					t.Fatalf("why %q", got[0].Why)
				}
				return
			}
			assertOrder(t, got, "z-p", "a-ref")
			if got[0].Why != c.why {
				t.Fatalf("why %q, want %q", got[0].Why, c.why)
			}
		})
	}
}

func TestDeletionKeyDetails(t *testing.T) {
	t.Run("both unscheduled fall through", func(t *testing.T) {
		got := RankForDeletion([]*model.Pod{newPod("a", unscheduled()), newPod("b", unscheduled(), phase(model.PodPending))}, delOpts)
		assertOrder(t, got, "b", "a")
		if got[0].Why != WhyPhase {
			t.Fatal(got[0].Why)
		}
	})
	t.Run("zero ready time first", func(t *testing.T) {
		got := RankForDeletion([]*model.Pod{newPod("a", readyAt(t0.Add(time.Hour))), newPod("b", readyAt(time.Time{}))}, delOpts)
		assertOrder(t, got, "b", "a")
		if got[0].Why != WhyReadyTime {
			t.Fatal(got[0].Why)
		}
	})
	t.Run("ready time ignored unless both ready", func(t *testing.T) {
		got := RankForDeletion([]*model.Pod{
			newPod("a", notReady(), readyAt(t0.Add(time.Hour))),
			newPod("b", notReady(), readyAt(t0)),
		}, delOpts)
		assertOrder(t, got, "a", "b")
		if got[0].Why != WhyName {
			t.Fatal(got[0].Why)
		}
	})
	t.Run("missing Ready condition is not ready", func(t *testing.T) {
		got := RankForDeletion([]*model.Pod{newPod("a"), newPod("b", noReadyCondition())}, delOpts)
		assertOrder(t, got, "b", "a")
		if got[0].Why != WhyUnavailable {
			t.Fatal(got[0].Why)
		}
	})
	t.Run("restarts: max over containers, sidecars ignored", func(t *testing.T) {
		multi := func(p *model.Pod) {
			p.Status.ContainerStatuses = []model.ContainerStatus{{Name: "a", RestartCount: 1}, {Name: "b", RestartCount: 4}}
		}
		got := RankForDeletion([]*model.Pod{newPod("a", restarts(3)), newPod("b", multi), newPod("c", sidecarRestarts(9))}, delOpts)
		assertOrder(t, got, "b", "a", "c")
		if d := cmp.Diff(map[string]string{"b": WhyRestarts, "a": WhyRestarts, "c": WhyLast}, whys(got)); d != "" {
			t.Fatal(d)
		}
	})
	t.Run("zero creation time first", func(t *testing.T) {
		got := RankForDeletion([]*model.Pod{newPod("a", created(t0)), newPod("b", created(time.Time{}))}, delOpts)
		assertOrder(t, got, "b", "a")
		if got[0].Why != WhyCreationTime {
			t.Fatal(got[0].Why)
		}
	})
	t.Run("invalid cost ties with zero", func(t *testing.T) {
		got := RankForDeletion([]*model.Pod{newPod("a", cost("+5")), newPod("b", cost("0"))}, delOpts)
		assertOrder(t, got, "a", "b")
		if got[0].Why != WhyName {
			t.Fatal(got[0].Why)
		}
	})
}

func TestSameNodeRankerBigNode(t *testing.T) {
	var group []*model.Pod
	want := map[string]float64{}
	for i := 0; i < 12; i++ {
		n := "p" + itoa(100+i)
		group = append(group, newPod(n, onNode("big"), readyAt(secs(i))))
		// p111 became ready last: first in the node sort, rank 11; p100 kept.
		want[n] = float64(i)
	}
	got := RankForDeletion(group, delOpts)
	if d := cmp.Diff(want, ranksOf(got)); d != "" {
		t.Fatal(d)
	}
	for i, r := range got[:11] {
		if r.Why != WhyRank || r.Pod.Name != "p"+itoa(111-i) {
			t.Fatalf("%d: %s %s", i, r.Pod.Name, r.Why)
		}
	}
}

func TestSameNodeRanker(t *testing.T) {
	group := []*model.Pod{
		newPod("x1", onNode("n1"), readyAt(secs(1))),
		newPod("x2", onNode("n1"), readyAt(secs(2))),
		newPod("x3", onNode("n1"), readyAt(secs(3))),
		newPod("x4", onNode("n1"), readyAt(secs(4))),
		newPod("y1", onNode("n2"), readyAt(secs(9))),
		newPod("u1", unscheduled(), readyAt(secs(10))),
		newPod("u2", unscheduled(), readyAt(secs(11))),
		// Unavailable but more valuable inside the node (availability is not a
		// key of the per-node sort): z2 goes first there and gets rank 1.
		newPod("z1", onNode("n3"), state(model.StatePreparingNormal), readyAt(secs(5))),
		newPod("z2", onNode("n3"), readyAt(secs(6))),
	}
	got := RankForDeletion(group, delOpts)
	want := map[string]float64{"x4": 3, "x3": 2, "x2": 1, "x1": 0, "y1": 0, "u1": 0, "u2": 0, "z2": 1, "z1": 0}
	if d := cmp.Diff(want, ranksOf(got)); d != "" {
		t.Fatalf("ranks (-want +got):\n%s", d)
	}
	// Unscheduled first (two of them: readyTime), then unavailable z1, then by rank.
	assertOrder(t, got, "u2", "u1", "z1", "x4", "x3", "z2", "x2", "y1", "x1")
}

// Example 17 of docs/spec/update-and-ordering.md section 10.
func example17() []*model.Pod {
	return []*model.Pod{
		newPod("a0", onNode("node-a"), readyAt(secs(10)), created(secs(0))),
		newPod("a1", onNode("node-a"), readyAt(secs(20)), created(secs(5))),
		newPod("a2", onNode("node-a"), readyAt(secs(15)), created(secs(6))),
		newPod("b0", onNode("node-b"), readyAt(secs(11))),
		newPod("c0", onNode("node-c"), readyAt(secs(12))),
		newPod("c1", onNode("node-c"), readyAt(secs(13))),
	}
}

func TestExample17SameNode(t *testing.T) {
	got := RankForDeletion(example17(), delOpts)
	assertOrder(t, got, "a1", "a2", "c1", "c0", "b0", "a0")
	if d := cmp.Diff(map[string]float64{"a1": 2, "a2": 1, "c1": 1, "c0": 0, "b0": 0, "a0": 0}, ranksOf(got)); d != "" {
		t.Fatal(d)
	}
	wantWhy := map[string]string{"a1": WhyRank, "a2": WhyReadyTime, "c1": WhyRank, "c0": WhyReadyTime, "b0": WhyReadyTime, "a0": WhyLast}
	if d := cmp.Diff(wantWhy, whys(got)); d != "" {
		t.Fatal(d)
	}
}

func example18() ([]*model.Pod, map[string]*model.Node) {
	pods := append(example17(),
		newPod("m0", onNode("node-gone")),
		newPod("u0", unscheduled(), notReady()),
	)
	nodes := nodeMap(
		node("node-a", "zone", "x", LabelHostname, "node-a"),
		node("node-b", "zone", "x", LabelHostname, "node-b"),
		node("node-c", "zone", "y", LabelHostname, "node-c"),
	)
	return pods, nodes
}

func TestExample18Spread(t *testing.T) {
	pods, nodes := example18()
	opts := DeletionOptions{Now: delOpts.Now, TopologyKeys: []string{"zone"}, Nodes: nodes}
	got := RankForDeletion(pods, opts)
	assertOrder(t, got, "u0", "a1", "a2", "c1", "b0", "c0", "a0", "m0")
	w := math.Log(4)
	wantRank := map[string]float64{"a1": 4 * w, "a2": 3 * w, "b0": 2 * w, "c1": 2 * w, "a0": w, "c0": w, "m0": 0, "u0": 0}
	if d := cmp.Diff(wantRank, ranksOf(got)); d != "" {
		t.Fatal(d)
	}
	approx := map[string]float64{"a1": 5.545, "a2": 4.159, "b0": 2.773, "c1": 2.773, "a0": 1.386, "c0": 1.386}
	for n, v := range approx {
		if r := ranksOf(got)[n]; math.Abs(r-v) > 5e-4 {
			t.Errorf("rank(%s) = %v, spec says %v", n, r, v)
		}
	}
	wantWhy := map[string]string{"u0": WhyUnscheduled, "a1": WhyRank, "a2": WhyRank, "c1": WhyReadyTime,
		"b0": WhyRank, "c0": WhyReadyTime, "a0": WhyRank, "m0": WhyLast}
	if d := cmp.Diff(wantWhy, whys(got)); d != "" {
		t.Fatal(d)
	}
}

func TestExample18TwoConstraints(t *testing.T) {
	pods, nodes := example18()
	opts := DeletionOptions{Now: delOpts.Now, TopologyKeys: []string{"zone", LabelHostname}, Nodes: nodes}
	got := RankForDeletion(pods, opts)
	w, w2 := math.Log(4), math.Log(5)
	// hostname: node-a a1 a2 a0 (no same-node rank; by ready time) 3,2,1;
	// node-b b0 1; node-c c1 c0 2,1.
	wantRank := map[string]float64{
		"a1": 4*w + 3*w2, "a2": 3*w + 2*w2, "c1": 2*w + 2*w2, "b0": 2*w + 1*w2,
		"a0": 1*w + 1*w2, "c0": 1*w + 1*w2, "m0": 0, "u0": 0,
	}
	if d := cmp.Diff(wantRank, ranksOf(got)); d != "" {
		t.Fatal(d)
	}
	approx := map[string]float64{"a1": 10.373, "a2": 7.378, "c1": 5.991, "b0": 4.382, "a0": 2.996, "c0": 2.996}
	for n, v := range approx {
		if r := ranksOf(got)[n]; math.Abs(r-v) > 5e-4 {
			t.Errorf("rank(%s) = %v, spec says %v", n, r, v)
		}
	}
	r := ranksOf(got)
	if r["a0"] != r["c0"] {
		t.Errorf("a0 and c0 must tie exactly: %v vs %v", r["a0"], r["c0"])
	}
	// a0 and c0 tie on rank; c0 became ready later.
	assertOrder(t, got, "u0", "a1", "a2", "c1", "b0", "c0", "a0", "m0")
	if got[5].Why != WhyReadyTime {
		t.Errorf("why(c0) = %q", got[5].Why)
	}
}

func TestSpreadRankerDetails(t *testing.T) {
	t.Run("no nodes: every rank 0, stacking ignored", func(t *testing.T) {
		got := RankForDeletion(example17(), DeletionOptions{Now: delOpts.Now, TopologyKeys: []string{"zone"}})
		for _, r := range got {
			if r.SpreadRank != 0 {
				t.Fatalf("%s has rank %v", r.Pod.Name, r.SpreadRank)
			}
		}
		// Pure ready-time order.
		assertOrder(t, got, "a1", "a2", "c1", "c0", "b0", "a0")
	})
	t.Run("duplicate key counts twice, lone pod gets w, empty value is a topology", func(t *testing.T) {
		pods := []*model.Pod{
			newPod("p1", onNode("n1"), readyAt(secs(1))),
			newPod("p2", onNode("n1"), readyAt(secs(2))),
			newPod("p3", onNode("n2")),
			newPod("p4", onNode("n3")),  // node without the key
			newPod("p5", onNode("nil")), // nil node entry
		}
		nodes := map[string]*model.Node{"n1": node("n1", "k", "a"), "n2": node("n2", "k", ""), "n3": node("n3"), "nil": nil}
		got := RankForDeletion(pods, DeletionOptions{Now: delOpts.Now, TopologyKeys: []string{"k", "k"}, Nodes: nodes})
		w := math.Log(4) // two values: "a" and ""
		// Inside n1 the same-node rank puts p2 (rank 1) before p1.
		want := map[string]float64{"p2": 2*w + 2*w, "p1": w + w, "p3": w + w, "p4": 0, "p5": 0}
		if d := cmp.Diff(want, ranksOf(got)); d != "" {
			t.Fatal(d)
		}
	})
	t.Run("same-node rank is key 5 inside a topology", func(t *testing.T) {
		// q1 is stacked (same-node rank 1) but became ready before q3, alone on n2.
		pods := []*model.Pod{
			newPod("q1", onNode("n1"), readyAt(secs(5))),
			newPod("q2", onNode("n1"), readyAt(secs(1))),
			newPod("q3", onNode("n2"), readyAt(secs(9))),
		}
		nodes := nodeMap(node("n1", "zone", "z"), node("n2", "zone", "z"))
		w := math.Log(3)
		got := RankForDeletion(pods, DeletionOptions{Now: delOpts.Now, TopologyKeys: []string{"zone"}, Nodes: nodes})
		// zone z: q1 (sm 1), then q3 (sm 0, ready later), q2.
		if d := cmp.Diff(map[string]float64{"q1": 3 * w, "q3": 2 * w, "q2": w}, ranksOf(got)); d != "" {
			t.Fatal(d)
		}
		assertOrder(t, got, "q1", "q3", "q2")
	})
	t.Run("hostname ignores same-node rank, other keys use it", func(t *testing.T) {
		// One topology holding two nodes; the stacked pod s1 became ready
		// before s3 but has same-node rank 1.
		pods := []*model.Pod{
			newPod("s1", onNode("n1"), readyAt(secs(2))),
			newPod("s2", onNode("n1"), readyAt(secs(1))),
			newPod("s3", onNode("n2"), readyAt(secs(3))),
		}
		// Both nodes carry the same value for both keys, so each key forms one
		// topology {s1, s2, s3}.
		nodes := nodeMap(node("n1", "k", "v", LabelHostname, "h"), node("n2", "k", "v", LabelHostname, "h"))
		w := math.Log(3)
		withRanker := RankForDeletion(pods, DeletionOptions{Now: delOpts.Now, TopologyKeys: []string{"k"}, Nodes: nodes})
		// s1 has same-node rank 1 and goes first; then s3 (ready 3) then s2.
		if d := cmp.Diff(map[string]float64{"s1": 3 * w, "s3": 2 * w, "s2": w}, ranksOf(withRanker)); d != "" {
			t.Fatal(d)
		}
		noRanker := RankForDeletion(pods, DeletionOptions{Now: delOpts.Now, TopologyKeys: []string{LabelHostname}, Nodes: nodes})
		// Without the same-node rank: s3 (ready 3), s1 (2), s2 (1).
		if d := cmp.Diff(map[string]float64{"s3": 3 * w, "s1": 2 * w, "s2": w}, ranksOf(noRanker)); d != "" {
			t.Fatal(d)
		}
	})
	t.Run("D counts the group's topologies only", func(t *testing.T) {
		pods := []*model.Pod{newPod("p1", onNode("n1")), newPod("p2", onNode("n2"))}
		nodes := nodeMap(node("n1", "zone", "a"), node("n2", "zone", "a"), node("n3", "zone", "b"), node("n4", "zone", "c"))
		got := RankForDeletion(pods, DeletionOptions{Now: delOpts.Now, TopologyKeys: []string{"zone"}, Nodes: nodes})
		w := math.Log(3)
		if d := cmp.Diff(map[string]float64{"p1": 2 * w, "p2": w}, ranksOf(got)); d != "" {
			t.Fatal(d)
		}
	})
}

// Example 19: deletion cost decides before stacking.
func TestExample19CostBeforeStacking(t *testing.T) {
	build := func(xCost string) []*model.Pod {
		return []*model.Pod{
			newPod("x", onNode("lone"), cost(xCost), readyAt(secs(0))),
			newPod("y", onNode("big"), readyAt(secs(9))),
			newPod("y2", onNode("big"), readyAt(secs(5))),
			newPod("y3", onNode("big"), readyAt(secs(1))),
		}
	}
	got := RankForDeletion(build("-5"), delOpts)
	if r := ranksOf(got); r["y"] != 2 || r["x"] != 0 {
		t.Fatalf("ranks %v", r)
	}
	assertOrder(t, got, "x", "y", "y2", "y3")
	if got[0].Why != WhyDeletionCost {
		t.Fatal(got[0].Why)
	}
	got = RankForDeletion(build("+5"), delOpts)
	assertOrder(t, got, "y", "y2", "y3", "x")
	if got[0].Why != WhyRank {
		t.Fatal(got[0].Why)
	}
}

func TestRankForDeletionInputHandling(t *testing.T) {
	if got := RankForDeletion(nil, delOpts); got == nil || len(got) != 0 {
		t.Fatalf("nil input: %v", got)
	}
	a, b := newPod("a", notReady()), newPod("b")
	in := []*model.Pod{b, nil, a, nil}
	before := slices.Clone(in)
	got := RankForDeletion(in, delOpts)
	assertOrder(t, got, "a", "b")
	if !slices.Equal(in, before) {
		t.Fatal("input slice modified")
	}
	if got[0].Pod != a || got[1].Pod != b {
		t.Fatal("output must carry the caller's pointers")
	}
	one := RankForDeletion([]*model.Pod{a}, delOpts)
	if len(one) != 1 || one[0].Why != WhyLast {
		t.Fatalf("single: %+v", one)
	}
	// A pod without maps or conditions at all.
	bare := &model.Pod{Name: "bare"}
	got = RankForDeletion([]*model.Pod{bare, b}, DeletionOptions{TopologyKeys: []string{"zone"}})
	assertOrder(t, got, "bare", "b")
	if got[0].Why != WhyUnscheduled {
		t.Fatal(got[0].Why)
	}
}
