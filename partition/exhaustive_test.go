package partition

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
)

// podKind is one kind of pod of the exhaustive enumeration. Worlds are
// multisets of kinds (pod order cannot matter, which the permutation
// invariant checks on every world).
type podKind struct {
	name   string
	rev    string
	state  string
	ready  bool // Ready condition True for an hour
	fresh  bool // Ready condition True for 10 s only (minReadySeconds is 30)
	label  bool // specified-delete label
	listed bool // listed in podsToDelete
}

func (k podKind) preDel() bool { return k.state == model.StatePreparingDelete }
func (k podKind) toDel() bool  { return !k.preDel() && (k.label || k.listed) }
func (k podKind) available() bool {
	return !k.preDel() && !k.toDel() && (k.state == "" || k.state == model.StateNormal) && k.ready && !k.fresh
}

// exhaustiveKinds covers every row of section 2 on both sides, the
// PreparingUpdateAsUpdate switch, both specified-delete mechanisms and the
// PreparingDelete-wins rule. The classification of every single pod
// combination is checked separately (TestCountSinglePodExhaustive).
var exhaustiveKinds = []podKind{
	{name: "a", rev: revA, state: model.StateNormal, ready: true},
	{name: "aNotReady", rev: revA, state: "", ready: false},
	{name: "aPrepUpd", rev: revA, state: model.StatePreparingUpdate, ready: true},
	{name: "aPrepDelSD", rev: revA, state: model.StatePreparingDelete, ready: true, label: true},
	{name: "aListedNotReady", rev: revA, state: model.StateNormal, ready: false, listed: true},
	{name: "b", rev: revB, state: model.StateNormal, ready: true},
	{name: "bFresh", rev: revB, state: model.StateNormal, ready: true, fresh: true},
	{name: "bPrepDel", rev: revB, state: model.StatePreparingDelete, ready: false},
	{name: "bLabelSD", rev: revB, state: model.StateNormal, ready: true, label: true},
}

func (k podKind) pod(name string) *model.Pod {
	var opts []podOpt
	opts = append(opts, withState(k.state))
	if !k.ready {
		opts = append(opts, notReady())
	}
	if k.fresh {
		opts = append(opts, readySince(10*time.Second))
	}
	if k.label {
		opts = append(opts, specDel())
	}
	return mkPod(name, k.rev, opts...)
}

type strategy struct {
	name string
	opts []csOpt
}

// exhaustiveStrategies: partition, maxSurge and maxUnavailable over small
// counts and percents, plus paused, OnDelete, a scale-out limit, parse errors
// and values above replicas.
var exhaustiveStrategies = []strategy{
	{"defaults", nil},
	{"partition 1, maxSurge 1, maxUnavailable 0", []csOpt{partitionOf(I(1)), surgeOf(I(1)), unavOf(I(0))}},
	{"partition 50%, maxSurge 50%, maxUnavailable 50%", []csOpt{partitionOf(S("50%")), surgeOf(S("50%")), unavOf(S("50%"))}},
	{"partition 3, maxSurge 2, maxUnavailable 1, scaleMaxUnavailable 1", []csOpt{partitionOf(I(3)), surgeOf(I(2)), unavOf(I(1)), scaleUnavOf(I(1))}},
	{"paused, partition 99%, maxSurge 1", []csOpt{partitionOf(S("99%")), surgeOf(I(1)), paused()}},
	{"OnDelete", []csOpt{onDelete()}},
	{"parse errors", []csOpt{partitionOf(S("7")), surgeOf(S("12.5%")), unavOf(S("x")), scaleUnavOf(S("12.5%"))}},
	{"above replicas: partition 9, maxSurge 9, maxUnavailable 9", []csOpt{partitionOf(I(9)), surgeOf(I(9)), unavOf(I(9))}},
}

type gateSet struct {
	rollback bool
	current  string
	puau     bool
	exclude  bool
}

// exhaustiveGates: the rollback gate off, on, and on with current == update;
// PreparingUpdateAsUpdate off/on; excludePreparingDelete off/on (through the
// spec field for even replicas, the controller flag for odd ones).
func exhaustiveGates() []gateSet {
	var out []gateSet
	for _, rb := range []struct {
		on  bool
		cur string
	}{{false, revA}, {true, revA}, {true, revB}} {
		for _, puau := range []bool{false, true} {
			for _, x := range []bool{false, true} {
				out = append(out, gateSet{rb.on, rb.cur, puau, x})
			}
		}
	}
	return out
}

type config struct {
	r      int32
	strat  strategy
	gates  gateSet
	cs     *model.CloneSet
	params Params // Resolve(cs): podsToDelete, the only per-world change, does not enter it
	p      int    // PartitionCount(cs), 0 on error
}

func (c config) input(ps []*model.Pod) Input {
	i := Input{CloneSet: c.cs, Pods: ps, CurrentRevision: c.gates.current, UpdateRevision: revB, Now: testNow}
	i.Gates.CloneSetPartitionRollback = c.gates.rollback
	i.Gates.PreparingUpdateAsUpdate = c.gates.puau
	i.Controller.ScalingExcludePreparingDelete = c.gates.exclude && c.r%2 == 1
	return i
}

// buildConfigs returns a fresh set of configurations (each worker owns one, as
// the podsToDelete list is rewritten per multiset).
func buildConfigs() []config {
	var out []config
	for r := int32(0); r <= 4; r++ {
		for _, st := range exhaustiveStrategies {
			for _, g := range exhaustiveGates() {
				opts := append([]csOpt{minReady(30)}, st.opts...)
				if g.exclude && r%2 == 0 {
					opts = append(opts, excludePD())
				}
				cs := mkCS(r, opts...)
				p, _ := PartitionCount(cs)
				out = append(out, config{r: r, strat: st, gates: g, cs: cs, params: Resolve(cs), p: p})
			}
		}
	}
	return out
}

// multisets returns every vector of kind counts with total at most maxPods.
func multisets(kinds, maxPods int) [][]int {
	var out [][]int
	cur := make([]int, kinds)
	var rec func(k, left int)
	rec = func(k, left int) {
		if k == kinds {
			out = append(out, append([]int(nil), cur...))
			return
		}
		for n := 0; n <= left; n++ {
			cur[k] = n
			rec(k+1, left-n)
		}
		cur[k] = 0
	}
	rec(0, maxPods)
	return out
}

// TestExhaustiveSmallWorlds enumerates every world made of replicas 0..4, a
// multiset of up to 6 pods (4 with -short) over exhaustiveKinds, every strategy of
// exhaustiveStrategies and every gate combination of exhaustiveGates, and
// checks every invariant on both variants plus permutation invariance.
func TestExhaustiveSmallWorlds(t *testing.T) {
	maxPods := 6
	if testing.Short() {
		maxPods = 4
	}
	sets := multisets(len(exhaustiveKinds), maxPods)
	nConfigs := len(buildConfigs())

	workers := runtime.GOMAXPROCS(0)
	var next atomic.Int64
	var worlds atomic.Int64
	type failure struct{ msg string }
	var mu sync.Mutex
	failures := map[string][]string{} // invariant -> counter-examples (first few)
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			configs := buildConfigs()
			var local int64
			for {
				idx := int(next.Add(1) - 1)
				if idx >= len(sets) {
					break
				}
				counts := sets[idx]
				var ps []*model.Pod
				listed := []string{"ghost"} // a listed name with no pod must not matter
				nAOld, nBNew, total := 0, 0, 0
				rest, hasToDel := true, 0
				for k, n := range counts {
					kind := exhaustiveKinds[k]
					for j := 0; j < n; j++ {
						name := fmt.Sprintf("%s-%d", kind.name, j)
						ps = append(ps, kind.pod(name))
						if kind.listed {
							listed = append(listed, name)
						}
						total++
						if kind.toDel() {
							hasToDel = 1
						}
						switch {
						case kind.name == "a":
							nAOld++
						case kind.name == "b":
							nBNew++
						default:
							rest = false
						}
					}
				}
				reversed := slices.Clone(ps)
				slices.Reverse(reversed)
				for _, c := range configs {
					c.cs.Spec.ScaleStrategy.PodsToDelete = listed
					w := world{
						in:       c.input(ps),
						params:   &c.params,
						rest:     rest && total == int(c.r) && nAOld == c.p && nBNew == int(c.r)-c.p,
						hasToDel: hasToDel,
					}
					r, bad := evaluate(&w, reversed)
					local++
					if bad != nil {
						mu.Lock()
						for _, name := range bad {
							if len(failures[name]) < 3 {
								failures[name] = append(failures[name], fmt.Sprintf("[%s | %s]\n%s", c.strat.name, kindsString(counts), counterExample(&w, &r, []string{name})))
							}
						}
						mu.Unlock()
					}
				}
			}
			worlds.Add(local)
		}()
	}
	wg.Wait()
	for _, inv := range invariants {
		for _, msg := range failures[inv.name] {
			t.Errorf("invariant %q failed:\n%s", inv.name, msg)
		}
	}
	want := int64(len(sets) * nConfigs)
	if worlds.Load() != want {
		t.Errorf("checked %d worlds, want %d", worlds.Load(), want)
	}
	t.Logf("checked %d worlds (%d pod multisets x %d configurations: replicas 0..4 x %d strategies x %d gate combinations), %d invariants each, in %v on %d workers",
		worlds.Load(), len(sets), nConfigs, len(exhaustiveStrategies), len(exhaustiveGates()), len(invariants), time.Since(start).Round(time.Millisecond), workers)
}

func kindsString(counts []int) string {
	s := ""
	for k, n := range counts {
		if n > 0 {
			if s != "" {
				s += " "
			}
			s += fmt.Sprintf("%dx%s", n, exhaustiveKinds[k].name)
		}
	}
	if s == "" {
		return "no pods"
	}
	return s
}

// TestExhaustiveCountsMatchKinds cross-checks Count against the kinds'
// metadata on every multiset (scale and update variant, PUAU on and off).
func TestExhaustiveCountsMatchKinds(t *testing.T) {
	sets := multisets(len(exhaustiveKinds), 6)
	cs := mkCS(3, minReady(30))
	for _, counts := range sets {
		var ps []*model.Pod
		var listed []string
		for k, n := range counts {
			for j := 0; j < n; j++ {
				name := fmt.Sprintf("%s-%d", exhaustiveKinds[k].name, j)
				ps = append(ps, exhaustiveKinds[k].pod(name))
				if exhaustiveKinds[k].listed {
					listed = append(listed, name)
				}
			}
		}
		cs.Spec.ScaleStrategy.PodsToDelete = listed
		for _, puau := range []bool{false, true} {
			for _, v := range []Variant{ScaleVariant, UpdateVariant} {
				var want Counters
				for k, n := range counts {
					kind := exhaustiveKinds[k]
					newSide := kind.rev == revB || (puau && v == ScaleVariant && kind.state == model.StatePreparingUpdate)
					add := func(nw, old *int) {
						if newSide {
							*nw += n
						} else {
							*old += n
						}
					}
					switch {
					case kind.preDel():
						add(&want.PreDelNew, &want.PreDelOld)
					case kind.toDel():
						add(&want.ToDelNew, &want.ToDelOld)
						add(&want.ActNew, &want.ActOld)
					case !kind.available():
						add(&want.UnavNew, &want.UnavOld)
						add(&want.ActNew, &want.ActOld)
					default:
						add(&want.ActNew, &want.ActOld)
					}
					add(&want.AllNew, &want.AllOld)
					want.Total += n
				}
				i := in(cs, ps)
				i.Gates.PreparingUpdateAsUpdate = puau
				if got := Count(i, v); got != want {
					t.Fatalf("%s puau=%v %v: Count = %+v, want %+v", kindsString(counts), puau, v, got, want)
				}
			}
		}
	}
	t.Logf("%d multisets x 4 (variant, gate) counted", len(sets))
}
