package partition

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
	"github.com/google/go-cmp/cmp"
)

type budgetCase struct {
	name string
	in   Input
	v    Variant
	want Budget
}

func runBudgetCases(t *testing.T, cases []budgetCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Compute(c.in, c.v)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("Compute (-want +got):\n%s\ninput: %s", diff, describeInput(c.in))
			}
		})
	}
}

// nfresh returns n new, not-yet-ready pods in state PreparingNormal (a pod the
// scale phase just created).
func nfresh(prefix string, n int) []*model.Pod {
	return pods(prefix, revB, n, withState(model.StatePreparingNormal), notReady())
}

// TestWorkedExamples reproduces the budget numbers of docs/spec/scale-and-budgets.md 8.1
// to 8.11. Field order of B: R P S U SU | up upOld upLimit | down downOld
// delReady | surge surgeOld | updNum updMaxUnav.
func TestWorkedExamples(t *testing.T) {
	a7 := pods("a", revA, 7)
	b84 := join(pods("b", revB, 4), pods("f", revB, 2, readySince(5*time.Second)))
	pd := []podOpt{withState(model.StatePreparingDelete)}
	x89 := join(pods("x", revB, 2), []*model.Pod{mkPod("x3", revB, pd...)})
	p811 := join([]*model.Pod{mkPod("pu", revA, withState(model.StatePreparingUpdate))}, pods("a", revA, 2), pods("b", revB, 1))
	runBudgetCases(t, []budgetCase{
		// 8.1.
		{"8.1 rollingUpdate {}", in(mkCS(7), a7), ScaleVariant,
			B(7, 0, 0, 2, maxI, 0, 0, 0, 0, 0, 0, 0, 0, 7, 2)},
		{"8.1 maxSurge 10%: one extra rev-b pod first", in(mkCS(7, surgeOf(S("10%"))), a7), ScaleVariant,
			B(7, 0, 1, 1, maxI, 1, 0, 1, 0, 0, 0, 1, 0, 7, 1)},
		{"8.1 maxSurge 10% paused", in(mkCS(7, surgeOf(S("10%")), paused()), a7), ScaleVariant,
			B(7, 0, 0, 2, maxI, 0, 0, 0, 0, 0, 0, 0, 0, 7, 2)},
		{"8.1 OnDelete", in(mkCS(7, onDelete()), a7), ScaleVariant,
			B(7, 0, 0, 1, maxI, 0, 0, 0, 0, 0, 0, 0, 0, 7, 1)},
		// 8.2.
		{"8.2 scale-out limited to 1", same(mkCS(8, partitionOf(I(0)), scaleUnavOf(S("25%"))),
			join(pods("b", revB, 2), nfresh("n", 1))), ScaleVariant,
			B(8, 0, 0, 2, 2, 5, 0, 1, 0, 0, 0, 0, 0, 0, 0)},
		{"8.2 next round limit 0", same(mkCS(8, partitionOf(I(0)), scaleUnavOf(S("25%"))),
			join(pods("b", revB, 2), nfresh("n", 2))), ScaleVariant,
			B(8, 0, 0, 2, 2, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0)},
		{"8.2 12.5% blocks forever [quirk]", same(mkCS(8, partitionOf(I(0)), scaleUnavOf(S("12.5%"))),
			join(pods("b", revB, 2), nfresh("n", 1))), ScaleVariant,
			B(8, 0, 0, 2, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0)},
		// 8.3.
		{"8.3 scale-out during partitioned update", in(mkCS(6, partitionOf(I(4)), unavOf(I(1))),
			join(pods("a", revA, 3), pods("b", revB, 1))), ScaleVariant,
			B(6, 4, 0, 1, maxI, 2, 1, 2, 0, 0, 0, 0, 0, 0, 0)},
		// 8.4.
		{"8.4 delete budget with minReadySeconds", same(mkCS(4, minReady(30)), b84), ScaleVariant,
			B(4, 0, 0, 1, maxI, 0, 0, 0, 2, 0, 1, 0, 0, 0, 0)},
		{"8.4 next round", same(mkCS(4, minReady(30)), join(b84[:4], b84[5:])), ScaleVariant,
			B(4, 0, 0, 1, maxI, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0)},
		// 8.5.
		{"8.5 scale-in split between revisions", in(mkCS(3, partitionOf(I(2)), unavOf(I(1)), surgeOf(I(0))),
			join(pods("a", revA, 3), pods("b", revB, 2))), ScaleVariant,
			B(3, 2, 0, 1, maxI, 0, 0, 0, 2, 1, 3, 0, 0, 0, 0)},
		{"8.5 variant partition 1", in(mkCS(3, partitionOf(I(1)), unavOf(I(1)), surgeOf(I(0))),
			join(pods("a", revA, 2), pods("b", revB, 3))), ScaleVariant,
			B(3, 1, 0, 1, maxI, 0, 0, 0, 2, 1, 3, 0, 0, 0, 0)},
		// 8.6.
		{"8.6 round 1: surge for specified delete", same(mkCS(4, surgeOf(I(1)), unavOf(I(0))),
			join(pods("b", revB, 1, specDel()), pods("c", revB, 3))), ScaleVariant,
			B(4, 0, 1, 0, maxI, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0)},
		{"8.6 round 2: new pod not ready", same(mkCS(4, surgeOf(I(1)), unavOf(I(0))),
			join(pods("b", revB, 1, specDel()), pods("c", revB, 3), nfresh("n", 1))), ScaleVariant,
			B(4, 0, 1, 0, maxI, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0)},
		{"8.6 round 3: new pod available", same(mkCS(4, surgeOf(I(1)), unavOf(I(0))),
			join(pods("b", revB, 1, specDel()), pods("c", revB, 4))), ScaleVariant,
			B(4, 0, 1, 0, maxI, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0)},
		{"8.6 round 4: at rest", same(mkCS(4, surgeOf(I(1)), unavOf(I(0))), pods("c", revB, 4)), ScaleVariant,
			B(4, 0, 1, 0, maxI, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)},
		{"8.6 paused: never deleted", same(mkCS(4, surgeOf(I(1)), unavOf(I(0)), paused()),
			join(pods("b", revB, 1, specDel()), pods("c", revB, 3))), ScaleVariant,
			B(4, 0, 0, 0, maxI, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)},
		// 8.7.
		{"8.7 round 1", in(mkCS(4, partitionOf(I(1)), surgeOf(S("50%"))), pods("a", revA, 4)), ScaleVariant,
			B(4, 1, 2, 0, maxI, 2, 0, 2, 0, 0, 0, 2, 0, 3, 0)},
		{"8.7 round 2", in(mkCS(4, partitionOf(I(1)), surgeOf(S("50%"))), join(pods("a", revA, 4), nfresh("n", 2))), ScaleVariant,
			B(4, 1, 2, 0, maxI, 0, 0, 0, 1, 3, 0, 1, 0, 1, 2)},
		{"8.7 round 3", in(mkCS(4, partitionOf(I(1)), surgeOf(S("50%"))), join(pods("a", revA, 4), pods("n", revB, 2))), ScaleVariant,
			B(4, 1, 2, 0, maxI, 0, 0, 0, 1, 3, 2, 1, 0, 1, 2)},
		{"8.7 round 4", in(mkCS(4, partitionOf(I(1)), surgeOf(S("50%"))), join(pods("a", revA, 3), pods("n", revB, 2))), ScaleVariant,
			B(4, 1, 2, 0, maxI, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1)},
		// 8.8.
		{"8.8 rollback gate on", rollbackGate(in(mkCS(5, partitionOf(I(3)), unavOf(I(2))), join(pods("a", revA, 1), pods("b", revB, 4)))), ScaleVariant,
			B(5, 3, 0, 2, maxI, 0, 0, 0, 0, 0, 0, 0, 0, -2, 2)},
		{"8.8 gate off", in(mkCS(5, partitionOf(I(3)), unavOf(I(2))), join(pods("a", revA, 1), pods("b", revB, 4))), ScaleVariant,
			B(5, 3, 0, 2, maxI, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)},
		{"8.8 gate on plus maxSurge 1: one pod at rev-a", rollbackGate(in(mkCS(5, partitionOf(I(3)), unavOf(I(2)), surgeOf(I(1))), join(pods("a", revA, 1), pods("b", revB, 4)))), ScaleVariant,
			B(5, 3, 1, 2, maxI, 1, 3, 1, 0, 0, 0, 1, 1, -2, 2)},
		// 8.9.
		{"8.9 PreparingDelete counted: at rest", same(mkCS(3), x89), ScaleVariant,
			B(3, 0, 0, 1, maxI, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)},
		{"8.9 excludePreparingDelete: create immediately", same(mkCS(3, excludePD()), x89), ScaleVariant,
			B(3, 0, 0, 1, maxI, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0)},
		{"8.9 controller flag does the same", func() Input {
			i := same(mkCS(3), x89)
			i.Controller.ScalingExcludePreparingDelete = true
			return i
		}(), ScaleVariant,
			B(3, 0, 0, 1, maxI, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0)},
		{"8.9 R stays 2", same(mkCS(2), x89), ScaleVariant,
			B(2, 0, 0, 1, maxI, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0)},
		// 8.10.
		{"8.10 paused: scale-out at rev-b", in(mkCS(6, partitionOf(S("50%")), surgeOf(S("40%")), unavOf(S("10%")), paused()), pods("a", revA, 4)), ScaleVariant,
			B(6, 3, 0, 1, maxI, 2, 0, 2, 0, 0, 0, 0, 0, 1, -1)},
		{"8.10 not paused", in(mkCS(6, partitionOf(S("50%")), surgeOf(S("40%")), unavOf(S("10%"))), pods("a", revA, 4)), ScaleVariant,
			B(6, 3, 3, 0, maxI, 3, 0, 3, 0, 0, 0, 1, 0, 1, -2)},
		// 8.11.
		{"8.11 gate off", in(mkCS(6, partitionOf(I(3)), unavOf(I(2))), p811), ScaleVariant,
			B(6, 3, 0, 2, maxI, 2, 0, 2, 0, 0, 0, 0, 0, 0, 0)},
		{"8.11 gate on, scale variant", puauGate(in(mkCS(6, partitionOf(I(3)), unavOf(I(2))), p811)), ScaleVariant,
			B(6, 3, 0, 2, maxI, 2, 1, 2, 0, 0, 0, 0, 0, 0, 0)},
		{"8.11 gate on, update variant", puauGate(in(mkCS(6, partitionOf(I(3)), unavOf(I(2))), p811)), UpdateVariant,
			B(6, 3, 0, 2, maxI, 2, 0, 2, 0, 0, 0, 0, 0, 0, 0)},
	})
}

// TestUserDocExamples expresses the examples of the user documentation
// (seeds/cloneset-doc-en.md) as budget numbers.
func TestUserDocExamples(t *testing.T) {
	// "Partition": replicas 5, partition 3 -> two pods updated.
	p5 := pods("sample-", revA, 5)
	runBudgetCases(t, []budgetCase{
		{"partition 3 of 5: update 2", in(mkCS(5, partitionOf(I(3))), p5), UpdateVariant,
			B(5, 3, 0, 1, maxI, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1)},
		{"partition 3 of 5: done after 2", in(mkCS(5, partitionOf(I(3))), join(p5[:3], pods("new-", revB, 2))), UpdateVariant,
			B(5, 3, 0, 1, maxI, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)},
		{"partition 3 of 5: one of 2 done", in(mkCS(5, partitionOf(I(3))), join(p5[:4], pods("new-", revB, 1))), UpdateVariant,
			B(5, 3, 0, 1, maxI, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1)},
		// "partition 5 -> 3 then back to 5 does nothing" without the gate,
		// and rolls the 2 pods back with it ("Rollback by partition").
		{"partition back to 5, gate off", in(mkCS(5, partitionOf(I(5))), join(p5[:3], pods("new-", revB, 2))), UpdateVariant,
			B(5, 5, 0, 1, maxI, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)},
		{"partition back to 5, gate on", rollbackGate(in(mkCS(5, partitionOf(I(5))), join(p5[:3], pods("new-", revB, 2)))), UpdateVariant,
			B(5, 5, 0, 1, maxI, 0, 0, 0, 0, 0, 0, 0, 0, -2, 1)},
		// Percent partition below 100% with replicas > 1 keeps at least one updated.
		{"partition 99% of 5 updates one", in(mkCS(5, partitionOf(S("99%"))), p5), UpdateVariant,
			B(5, 4, 0, 1, maxI, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1)},
		{"partition 90% of 2 updates one", in(mkCS(2, partitionOf(S("90%"))), p5[:2]), UpdateVariant,
			B(2, 1, 0, 1, maxI, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1)},
		{"partition 100% of 5 updates none", in(mkCS(5, partitionOf(S("100%"))), p5), UpdateVariant,
			B(5, 5, 0, 1, maxI, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)},
		{"partition 99% of 1 updates none (replicas > 1 needed)", in(mkCS(1, partitionOf(S("99%"))), p5[:1]), UpdateVariant,
			B(1, 1, 0, 1, maxI, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)},
	})

	// "MaxSurge": five pods at one revision, pod-a unavailable.
	world := func(unav, surge int32, marked string, viaList bool) Input {
		ps := []*model.Pod{mkPod("pod-a", revB, notReady())}
		ps = append(ps, mkPod("pod-b", revB), mkPod("pod-c", revB), mkPod("pod-d", revB), mkPod("pod-e", revB))
		cs := mkCS(5, unavOf(I(unav)), surgeOf(I(surge)))
		if viaList {
			cs.Spec.ScaleStrategy.PodsToDelete = []string{marked}
		} else {
			for _, p := range ps {
				if p.Name == marked {
					specDel()(p)
				}
			}
		}
		return same(cs, ps)
	}
	for _, viaList := range []bool{false, true} {
		how := "label"
		if viaList {
			how = "podsToDelete"
		}
		runBudgetCases(t, []budgetCase{
			// maxUnavailable=2, maxSurge=1, delete pod-b: deleted directly.
			{"maxSurge doc 1 (" + how + "): delete directly", world(2, 1, "pod-b", viaList), ScaleVariant,
				B(5, 0, 1, 2, maxI, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0)},
			// maxUnavailable=1, maxSurge=1, delete pod-b: create a pod first.
			{"maxSurge doc 2 (" + how + "): create first", world(1, 1, "pod-b", viaList), ScaleVariant,
				B(5, 0, 1, 1, maxI, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0)},
			// maxUnavailable=1, maxSurge=1, delete the unavailable pod-a: deleted directly.
			{"maxSurge doc 3 (" + how + "): delete directly", world(1, 1, "pod-a", viaList), ScaleVariant,
				B(5, 0, 1, 1, maxI, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0)},
			// "MaxUnavailable": without surge, pod-b waits while pod-a is unavailable.
			{"maxUnavailable doc (" + how + "): waits", world(1, 0, "pod-b", viaList), ScaleVariant,
				B(5, 0, 0, 1, maxI, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)},
		})
	}

	// "Scaling with PreparingDelete": a specified-delete pod still in
	// PreparingDelete, replicas back at N.
	pdSpec := join(pods("p", revB, 2), pods("q", revB, 1, withState(model.StatePreparingDelete), specDel()))
	runBudgetCases(t, []budgetCase{
		{"PreparingDelete doc: counted, no new pod", same(mkCS(3), pdSpec), ScaleVariant,
			B(3, 0, 0, 1, maxI, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)},
		{"PreparingDelete doc: excluded, new pod immediately", same(mkCS(3, excludePD()), pdSpec), ScaleVariant,
			B(3, 0, 0, 1, maxI, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0)},
	})

	// "Scale up with rate limit": scaleStrategy.maxUnavailable 1 with
	// minReadySeconds 60 waits until the previous pod is ready for a minute.
	runBudgetCases(t, []budgetCase{
		{"rate limit: previous pod ready 30s", same(mkCS(3, minReady(60), scaleUnavOf(I(1))),
			join(pods("p", revB, 1), pods("n", revB, 1, readySince(30*time.Second)))), ScaleVariant,
			B(3, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0)},
		{"rate limit: previous pod ready 61s", same(mkCS(3, minReady(60), scaleUnavOf(I(1))),
			join(pods("p", revB, 1), pods("n", revB, 1, readySince(61*time.Second)))), ScaleVariant,
			B(3, 0, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0)},
	})
}

// TestDiffRules pins individual rules of section 3 on hand-made counters.
func TestDiffRules(t *testing.T) {
	P := func(r, p, s, u, su int) Params {
		return Params{Replicas: r, Partition: p, MaxSurge: s, MaxUnavailable: u, ScaleMaxUnavailable: su}
	}
	cases := []struct {
		name string
		p    Params
		c    Counters
		f    Flags
		want Budget
	}{
		{"3.1 clamp without rollback: too many old and new", P(4, 1, 0, 1, maxI),
			Counters{ActOld: 3, ActNew: 4, AllOld: 3, AllNew: 4, Total: 7}, Flags{},
			B(4, 1, 0, 1, maxI, 0, 0, 0, 3, 2, 4, 0, 0, 0, 0)},
		// With rollback, both diffs positive: 3.7 as written gives oldDiff.
		// With rollback, diffs of the same sign are not clamped and 3.7 applies
		// as written: oldDiff 2, newDiff 1 -> -newDiff = -1.
		{"3.7 rollback, same signs (both positive)", P(4, 1, 0, 1, maxI),
			Counters{ActOld: 3, ActNew: 4, AllOld: 3, AllNew: 4, Total: 7}, Flags{Rollback: true},
			B(4, 1, 0, 1, maxI, 0, 0, 0, 3, 2, 4, 0, 0, -1, 4)},
		{"3.7 rollback, both negative, abs(old) <= abs(new) picks oldDiff", P(6, 3, 0, 1, maxI),
			Counters{ActOld: 2, ActNew: 1, AllOld: 2, AllNew: 1, Total: 3}, Flags{Rollback: true},
			B(6, 3, 0, 1, maxI, 3, 1, 3, 0, 0, 0, 0, 0, -1, -2)},
		{"3.7 rollback, both negative, abs(old) > abs(new) picks -newDiff", P(6, 3, 0, 1, maxI),
			Counters{ActOld: 1, ActNew: 2, AllOld: 1, AllNew: 2, Total: 3}, Flags{Rollback: true},
			B(6, 3, 0, 1, maxI, 3, 2, 3, 0, 0, 0, 0, 0, 1, -2)},
		{"3.2 rollback update surge (abs equal) is old-revision surge", P(5, 3, 2, 1, maxI),
			Counters{ActOld: 2, ActNew: 3, AllOld: 2, AllNew: 3, Total: 5}, Flags{Rollback: true},
			// oldDiff -1, newDiff 1: abs equal -> updSurge 1 from oldDiff (<0) -> old.
			B(5, 3, 2, 1, maxI, 1, 2, 1, 0, 0, 0, 1, 1, -1, 1)},
		{"3.2 rollback with extra new pods, no scaling", P(5, 2, 3, 1, maxI),
			Counters{ActOld: 1, ActNew: 5, AllOld: 1, AllNew: 5, Total: 6}, Flags{Rollback: true},
			// oldDiff -1, newDiff 2: abs(old) <= abs(new) -> 1, old since oldDiff < 0.
			B(5, 2, 3, 1, maxI, 0, 0, 0, 0, 0, 0, 1, 1, -1, 2)},
		{"3.2 abs(newDiff) < abs(oldDiff) with newDiff > 0", P(5, 2, 3, 1, maxI),
			Counters{ActOld: 0, ActNew: 4, AllOld: 0, AllNew: 4, Total: 4}, Flags{Rollback: true},
			// oldDiff -2, newDiff 1: updSurge 1, old since newDiff > 0; updateNum -1.
			B(5, 2, 3, 1, maxI, 2, 3, 2, 0, 0, 0, 1, 1, -1, 0)},
		{"3.2 larger update surge beats specified-delete surge", P(4, 0, 3, 0, maxI),
			Counters{ToDelOld: 2, ActOld: 4, AllOld: 4, Total: 4}, Flags{},
			// scaleSurge 2, scaleSurgeOld 2; oldDiff 4 newDiff -4 -> updSurge 4 > 2: update wins.
			B(4, 0, 3, 0, maxI, 3, 0, 3, 0, 0, 0, 3, 0, 4, 0)},
		{"3.2 specified-delete surge wins ties", P(4, 2, 3, 0, maxI),
			Counters{ToDelOld: 2, ActOld: 4, AllOld: 4, Total: 4}, Flags{},
			// scaleSurge 2 == updSurge 2 (oldDiff 2, newDiff -2): scale purpose, so
			// useSurgeOld is 2 (the update purpose would give 0). E_old = C_old = 4.
			B(4, 2, 3, 0, maxI, 2, 0, 2, 0, 0, 0, 2, 2, 2, 0)},
		{"3.2 scaleSurgeOld only above toDel_new", P(4, 0, 3, 0, maxI),
			Counters{ToDelNew: 1, ToDelOld: 1, ActNew: 2, ActOld: 2, AllNew: 2, AllOld: 2, Total: 4}, Flags{},
			// scaleSurge min(max(0+2-0,0),2)=2, old 2-1=1; update: oldDiff 2 newDiff -2 -> 2: tie -> scale.
			B(4, 0, 3, 0, maxI, 2, 0, 2, 0, 0, 0, 2, 1, 2, 0)},
		{"3.2 scaleSurge reduced by U", P(4, 0, 3, 2, maxI),
			Counters{ToDelNew: 2, UnavNew: 1, ActNew: 4, AllNew: 4, Total: 4}, Flags{},
			// min(max(1+2-2,0),2) = 1; deleteReadyLimit max(2+0-1,0) = 1.
			B(4, 0, 3, 2, maxI, 1, 0, 1, 0, 0, 1, 1, 0, 0, 0)},
		{"3.2 no surge when S <= 0", P(4, 0, -1, 0, maxI),
			Counters{ToDelNew: 2, ActNew: 4, AllNew: 4, Total: 4}, Flags{},
			B(4, 0, -1, 0, maxI, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)},
		{"3.3 X subtracts PreparingDelete from C and C_old", P(4, 2, 0, 1, maxI),
			Counters{PreDelOld: 1, PreDelNew: 1, ActOld: 2, ActNew: 1, AllOld: 3, AllNew: 2, Total: 5}, Flags{ExcludePreparingDelete: true},
			// C = 3, C_old = 2, E = 4, E_old = 2.
			B(4, 2, 0, 1, maxI, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0)},
		{"3.3 without X the same pods are counted", P(4, 2, 0, 1, maxI),
			Counters{PreDelOld: 1, PreDelNew: 1, ActOld: 2, ActNew: 1, AllOld: 3, AllNew: 2, Total: 5}, Flags{},
			// C = 5, C_old = 3: scale-down 1, old 1; limit max(1+1-2,0) = 0.
			B(4, 2, 0, 1, maxI, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0)},
		{"3.2 PreparingDelete pods count as unavailable for the surge", P(4, 0, 1, 1, maxI),
			Counters{PreDelNew: 1, ToDelNew: 1, ActNew: 3, AllNew: 4, Total: 4}, Flags{},
			// scaleSurge = min(max(1+1-1,0),1) = 1.
			B(4, 0, 1, 1, maxI, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0)},
		{"3.3 X also subtracts PreparingDelete from C_old (scaleUpOld)", P(4, 3, 0, 1, maxI),
			Counters{PreDelOld: 1, ActOld: 2, AllOld: 3, ActNew: 1, AllNew: 1, Total: 4}, Flags{ExcludePreparingDelete: true},
			// C = 3, C_old = 2, E_old = 3 -> scaleUpOld 1.
			B(4, 3, 0, 1, maxI, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0)},
		{"3.5 toDel_old subtracted from scaleDownOld", P(2, 1, 0, 1, maxI),
			Counters{ToDelOld: 1, ActOld: 3, AllOld: 3, ActNew: 2, AllNew: 2, Total: 5}, Flags{},
			// scaleDown 5-1-2 = 2; scaleDownOld max(3-1-1,0) = 1; limit 1+3-0 = 4.
			B(2, 1, 0, 1, maxI, 0, 0, 0, 2, 1, 4, 0, 0, 0, 0)},
		{"3.7 rollback, both positive with equal abs picks oldDiff", P(4, 1, 0, 1, maxI),
			Counters{ActOld: 3, ActNew: 5, AllOld: 3, AllNew: 5, Total: 8}, Flags{Rollback: true},
			// oldDiff 2, newDiff 2: abs equal -> oldDiff = 2 (not -newDiff = -2).
			B(4, 1, 0, 1, maxI, 0, 0, 0, 4, 2, 5, 0, 0, 2, 5)},
		{"3.7 rollback, both negative with equal abs picks oldDiff", P(6, 3, 0, 1, maxI),
			Counters{ActOld: 1, ActNew: 1, AllOld: 1, AllNew: 1, Total: 2}, Flags{Rollback: true},
			// oldDiff -2, newDiff -2 -> -2; E_old - C_old = 2.
			B(6, 3, 0, 1, maxI, 4, 2, 4, 0, 0, 0, 0, 0, -2, -3)},
		{"3.4 scaleUpLimit is SU - T_unav", P(6, 0, 0, 2, 3),
			Counters{UnavNew: 1, PreDelNew: 1, ActNew: 2, AllNew: 3, Total: 3}, Flags{},
			B(6, 0, 0, 2, 3, 3, 0, 1, 0, 0, 0, 0, 0, 0, 0)},
		{"3.4 negative SU blocks creation", P(6, 0, 0, 2, -5),
			Counters{ActNew: 2, AllNew: 2, Total: 2}, Flags{},
			B(6, 0, 0, 2, -5, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0)},
		{"3.5 toDel subtracted before scale-down", P(3, 0, 0, 1, maxI),
			Counters{ToDelNew: 1, ToDelOld: 1, ActNew: 3, ActOld: 2, AllNew: 3, AllOld: 2, Total: 5}, Flags{},
			// C - toDel - E = 0: no scale-down, but deleteReadyLimit because toDel > 0.
			B(3, 0, 0, 1, maxI, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0)},
		{"3.6 delete budget uses the full count even with X", P(2, 0, 0, 1, maxI),
			Counters{PreDelNew: 1, ToDelNew: 1, ActNew: 3, AllNew: 4, Total: 4}, Flags{ExcludePreparingDelete: true},
			// C = 3, toDel 1 -> scaleDown 0; limit = 1 + (4-2) - 1 = 2.
			B(2, 0, 0, 1, maxI, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0)},
		{"3.6 no delete budget without toDel or scaleDown", P(2, 0, 0, 5, maxI),
			Counters{ActNew: 2, AllNew: 2, Total: 2}, Flags{},
			B(2, 0, 0, 5, maxI, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)},
		{"3.6 delete budget never negative", P(5, 0, 0, 0, maxI),
			Counters{ToDelNew: 1, UnavNew: 3, ActNew: 5, AllNew: 5, Total: 5}, Flags{},
			B(5, 0, 0, 0, maxI, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Diff(c.p, c.c, c.f)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("Diff (-want +got):\n%s\ncounters %+v flags %+v", diff, c.c, c.f)
			}
		})
	}
}

func TestComputeIsResolveCountDiff(t *testing.T) {
	i := rollbackGate(puauGate(in(mkCS(5, partitionOf(I(2)), surgeOf(I(1))), join(pods("a", revA, 3, withState(model.StatePreparingUpdate)), pods("b", revB, 3)))))
	for _, v := range []Variant{ScaleVariant, UpdateVariant} {
		want := Diff(Resolve(i.CloneSet), Count(i, v), FlagsFor(i))
		if got := Compute(i, v); got != want {
			t.Errorf("%v: Compute = %+v, want %+v", v, got, want)
		}
	}
}

// TestBudgetJSON pins the JSON names and their order (docs/spec/scenario-format.md 2).
func TestBudgetJSON(t *testing.T) {
	b, err := json.Marshal(B(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, -14, 15))
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"replicas":1,"partition":2,"maxSurge":3,"maxUnavailable":4,"scaleMaxUnavailable":5,` +
		`"scaleUp":6,"scaleUpOldRevision":7,"scaleUpLimit":8,"scaleDown":9,"scaleDownOldRevision":10,` +
		`"deleteReadyLimit":11,"useSurge":12,"useSurgeOldRevision":13,"updateNum":-14,"updateMaxUnavailable":15}`
	if string(b) != want {
		t.Errorf("JSON =\n%s\nwant\n%s", b, want)
	}
	var back Budget
	if err := json.Unmarshal(b, &back); err != nil || back != B(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, -14, 15) {
		t.Errorf("round trip = %+v, %v", back, err)
	}
}

// TestBadInputNeverPanics feeds nil and extreme values through Compute.
func TestBadInputNeverPanics(t *testing.T) {
	huge := mkCS(model.MaxInt32, partitionOf(S("1e308%")), surgeOf(S("99999999999999%")), unavOf(S("-99999999999999%")), scaleUnavOf(S("99999999999%")))
	inputs := []Input{
		{},
		{Pods: []*model.Pod{nil, {}}},
		in(nil, []*model.Pod{{}}),
		in(mkCS(-5), pods("a", revA, 3)),
		in(huge, pods("a", revA, 3)),
		in(mkCS(3, partitionOf(S("NaN%")), surgeOf(S("%")), unavOf(S("")), scaleUnavOf(S("-"))), pods("a", revA, 3)),
		in(mkCS(3, func(cs *model.CloneSet) { cs.Spec.Selector = nil; cs.Spec.ScaleStrategy.PodsToDelete = []string{""} }), []*model.Pod{{}}),
	}
	for k, i := range inputs {
		for _, v := range []Variant{ScaleVariant, UpdateVariant, Variant(-1)} {
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("input %d variant %v panicked: %v", k, v, r)
					}
				}()
				b := Compute(i, v)
				if b.ScaleUpLimit > b.ScaleUp || b.UseSurge > max(b.MaxSurge, 0) {
					t.Errorf("input %d: invariant broken on bad input: %+v", k, b)
				}
			}()
		}
	}
	// A zero Pod with an empty name is matched by an empty podsToDelete entry.
	if c := Count(inputs[6], ScaleVariant); c.ToDelOld != 1 {
		t.Errorf("empty name listed in podsToDelete: %+v", c)
	}
}
