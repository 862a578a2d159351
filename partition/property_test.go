package partition

import (
	"fmt"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
	"pgregory.net/rapid"
)

// genPod describes a generated pod independently of the code under test.
type genPod struct {
	rev, state, ready string
	label, listed     bool
}

// Revision labels: rev-b in full and short form and with a foreign prefix
// (all "new"), rev-a, a third revision and no label (all "old").
var (
	genRevs   = []string{revB, "b", "zz-b", revA, "web-1", ""}
	genNewRev = map[string]bool{revB: true, "b": true, "zz-b": true}
	genStates = []string{"", model.StateNormal, model.StatePreparingNormal, model.StatePreparingUpdate,
		model.StateUpdating, model.StateUpdated, model.StatePreparingDelete, "Unknown"}
	genReady = []string{"ready", "fresh", "notReady", "pending", "ipuFalse"}
)

func (g genPod) pod(name string) *model.Pod {
	opts := []podOpt{withState(g.state)}
	switch g.ready {
	case "fresh":
		opts = append(opts, readySince(10*time.Second))
	case "notReady":
		opts = append(opts, notReady())
	case "pending":
		opts = append(opts, withPhase(model.PodPending))
	case "ipuFalse":
		opts = append(opts, inPlaceNotReady())
	}
	if g.label {
		opts = append(opts, specDel())
	}
	if g.rev == "" {
		opts = append(opts, withoutLabel(model.LabelRevisionHash))
	}
	return mkPod(name, g.rev, opts...)
}

func drawIntOrPercent(rt *rapid.T, label string, lo, hi int, odd []string) *model.IntOrPercent {
	switch rapid.IntRange(0, 4).Draw(rt, label+"Kind") {
	case 0:
		return nil
	case 1:
		return I(int32(rapid.IntRange(lo, hi).Draw(rt, label+"Int")))
	case 2:
		return S(fmt.Sprintf("%d%%", rapid.IntRange(0, 150).Draw(rt, label+"Pct")))
	case 3:
		return S(fmt.Sprintf("%d.%d%%", rapid.IntRange(0, 120).Draw(rt, label+"PctInt"), rapid.IntRange(0, 9).Draw(rt, label+"PctFrac")))
	default:
		return S(rapid.SampledFrom(odd).Draw(rt, label+"Odd"))
	}
}

// drawWorld draws a CloneSet of up to 1000 replicas with random strategy,
// gates and flags, and up to replicas*1.25+8 pods, a fraction of them unusual.
func drawWorld(rt *rapid.T) (world, []genPod) {
	r := rapid.IntRange(0, 1000).Draw(rt, "replicas")
	cs := mkCS(int32(r))
	if rapid.IntRange(0, 7).Draw(rt, "onDelete") == 0 {
		onDelete()(cs)
	} else {
		ru := cs.Spec.UpdateStrategy.RollingUpdate
		ru.Partition = drawIntOrPercent(rt, "partition", -2, r+5, []string{"100%", "100.0%", "99%", "7", "x%"})
		ru.MaxSurge = drawIntOrPercent(rt, "maxSurge", -1, r/2+3, []string{"12.5%", "30", "x", "%%50"})
		ru.MaxUnavailable = drawIntOrPercent(rt, "maxUnavailable", -1, r/2+3, []string{"12.5%", "30", "x", "%%50"})
		ru.Paused = rapid.Bool().Draw(rt, "paused")
	}
	cs.Spec.ScaleStrategy.MaxUnavailable = drawIntOrPercent(rt, "scaleMaxUnavailable", -1, r+3, []string{"12.5%", "30", "x"})
	cs.Spec.ScaleStrategy.ExcludePreparingDelete = rapid.Bool().Draw(rt, "excludeField")
	cs.Spec.MinReadySeconds = rapid.SampledFrom([]int32{0, 30}).Draw(rt, "minReadySeconds")

	unusual := rapid.IntRange(0, 100).Draw(rt, "unusualPercent")
	var n int
	if rapid.Bool().Draw(rt, "nearReplicas") {
		n = max(r+rapid.IntRange(-3, 3).Draw(rt, "podsDelta"), 0) // a rollout or a small scale
	} else {
		n = rapid.IntRange(0, r+r/4+8).Draw(rt, "pods")
	}
	gps := make([]genPod, n)
	ps := make([]*model.Pod, n)
	listed := []string{"ghost"}
	for i := range gps {
		var g genPod
		if rapid.IntRange(0, 99).Draw(rt, "u") < unusual {
			g = genPod{
				rev:    rapid.SampledFrom(genRevs).Draw(rt, "rev"),
				state:  rapid.SampledFrom(genStates).Draw(rt, "state"),
				ready:  rapid.SampledFrom(genReady).Draw(rt, "ready"),
				label:  rapid.IntRange(0, 9).Draw(rt, "label") == 0,
				listed: rapid.IntRange(0, 9).Draw(rt, "listed") == 0,
			}
		} else {
			g = genPod{rev: rapid.SampledFrom([]string{revA, revB}).Draw(rt, "rev"), state: model.StateNormal, ready: "ready"}
		}
		gps[i] = g
		name := fmt.Sprintf("p%04d", i)
		ps[i] = g.pod(name)
		if g.listed {
			listed = append(listed, name)
		}
	}
	cs.Spec.ScaleStrategy.PodsToDelete = listed

	input := Input{CloneSet: cs, Pods: ps, UpdateRevision: revB, Now: testNow,
		CurrentRevision: rapid.SampledFrom([]string{revA, revB}).Draw(rt, "current")}
	input.Gates.CloneSetPartitionRollback = rapid.Bool().Draw(rt, "rollbackGate")
	input.Gates.PreparingUpdateAsUpdate = rapid.Bool().Draw(rt, "puauGate")
	input.Controller.ScalingExcludePreparingDelete = rapid.Bool().Draw(rt, "excludeFlag")

	// Independent facts for the checks.
	w := world{in: input}
	p, _ := PartitionCount(cs)
	nOld, nNew, allAvailable := 0, 0, true
	for _, g := range gps {
		preDel := g.state == model.StatePreparingDelete
		toDel := !preDel && (g.label || g.listed)
		if toDel {
			w.hasToDel = 1
		}
		avail := !preDel && !toDel && (g.state == "" || g.state == model.StateNormal) &&
			(g.ready == "ready" || (g.ready == "fresh" && cs.Spec.MinReadySeconds == 0))
		if !avail {
			allAvailable = false
		}
		if genNewRev[g.rev] {
			nNew++
		} else {
			nOld++
		}
	}
	w.rest = allAvailable && n == r && nOld == p && nNew == r-p
	return w, gps
}

// TestPropertyInvariants checks every invariant, on both variants, plus
// permutation invariance under a random shuffle, on random large worlds.
func TestPropertyInvariants(t *testing.T) {
	const batches = 10 // rapid.Check runs 100 worlds per batch (-rapid.checks)
	runs, maxPods := 0, 0
	for b := 0; b < batches; b++ {
		t.Run(fmt.Sprintf("batch%d", b), func(t *testing.T) {
			rapid.Check(t, func(rt *rapid.T) {
				w, _ := drawWorld(rt)
				perm := rapid.Permutation(w.in.Pods).Draw(rt, "permutation")
				r, bad := evaluate(&w, perm)
				if bad != nil {
					rt.Fatalf("%s", counterExample(&w, &r, bad))
				}
				// The update variant is order independent too.
				pi := w.in
				pi.Pods = perm
				if got := Compute(pi, UpdateVariant); got != r.update {
					rt.Fatalf("update variant depends on pod order: %+v vs %+v", got, r.update)
				}
				runs++
				maxPods = max(maxPods, len(w.in.Pods))
			})
		})
	}
	t.Logf("%d random worlds checked (largest: %d pods)", runs, maxPods)
}

// TestPropertyRestIsReached makes sure the generator produces CloneSets at
// rest often enough for that invariant to be exercised (it is not vacuous).
func TestPropertyRestIsReached(t *testing.T) {
	rest := 0
	rapid.Check(t, func(rt *rapid.T) {
		r := rapid.IntRange(0, 1000).Draw(rt, "replicas")
		p := rapid.IntRange(0, r).Draw(rt, "partition")
		cs := mkCS(int32(r), partitionOf(I(int32(p))), surgeOf(drawIntOrPercent(rt, "maxSurge", 0, 5, []string{"10%"})))
		ps := join(pods("a", revA, p), pods("b", revB, r-p))
		w := world{in: in(cs, rapid.Permutation(ps).Draw(rt, "order")), rest: true}
		res, bad := evaluate(&w, ps)
		if bad != nil {
			rt.Fatalf("%s", counterExample(&w, &res, bad))
		}
		rest++
	})
	t.Logf("%d worlds at rest checked", rest)
}

// TestPropertyCountIsAdditive checks that the counters are sums over pods:
// counting two halves separately and adding equals counting the whole, and
// that Compute equals Diff of Resolve and Count.
func TestPropertyCountIsAdditive(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		w, _ := drawWorld(rt)
		k := rapid.IntRange(0, len(w.in.Pods)).Draw(rt, "split")
		for _, v := range []Variant{ScaleVariant, UpdateVariant} {
			whole := Count(w.in, v)
			a, b := w.in, w.in
			a.Pods, b.Pods = w.in.Pods[:k], w.in.Pods[k:]
			ca, cb := Count(a, v), Count(b, v)
			sum := Counters{
				PreDelNew: ca.PreDelNew + cb.PreDelNew, PreDelOld: ca.PreDelOld + cb.PreDelOld,
				ToDelNew: ca.ToDelNew + cb.ToDelNew, ToDelOld: ca.ToDelOld + cb.ToDelOld,
				UnavNew: ca.UnavNew + cb.UnavNew, UnavOld: ca.UnavOld + cb.UnavOld,
				ActNew: ca.ActNew + cb.ActNew, ActOld: ca.ActOld + cb.ActOld,
				AllNew: ca.AllNew + cb.AllNew, AllOld: ca.AllOld + cb.AllOld, Total: ca.Total + cb.Total,
			}
			if whole != sum {
				rt.Fatalf("%v: Count(whole) = %+v, sum of halves = %+v", v, whole, sum)
			}
			if whole.Total != len(w.in.Pods) || whole.AllNew+whole.AllOld != whole.Total ||
				whole.ActNew+whole.PreDelNew != whole.AllNew || whole.ActOld+whole.PreDelOld != whole.AllOld {
				rt.Fatalf("%v: inconsistent totals %+v for %d pods", v, whole, len(w.in.Pods))
			}
			if got, want := Compute(w.in, v), Diff(Resolve(w.in.CloneSet), whole, FlagsFor(w.in)); got != want {
				rt.Fatalf("%v: Compute = %+v, Diff(Resolve, Count) = %+v", v, got, want)
			}
		}
	})
}
