package pvc

import (
	"maps"
	"slices"
	"testing"

	"github.com/clonecore/cloneset/model"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// An idTable holds the flags a map of ids would hold, through growth, for
// generated-form ids and others, and counts the numbered ids below a limit as
// the map does.
func TestPropIDTableMatchesMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		table := newIDTable(rapid.IntRange(0, 40).Draw(t, "size"))
		want := map[string]uint8{}
		// Dense numbers (neighbours, long probe chains) or spread ones.
		spread := uint64(rapid.SampledFrom([]int{1, 28657}).Draw(t, "spread"))
		for i, n := 0, rapid.IntRange(0, 300).Draw(t, "ops"); i < n; i++ {
			var id string
			if rapid.IntRange(0, 9).Draw(t, "form") == 0 {
				id = rapid.SampledFrom([]string{"", "x", "odd-id", "abcdefg", "ABCDE"}).Draw(t, "other")
			} else {
				id = encodeID(uint64(rapid.IntRange(0, 500).Draw(t, "num")) * spread % idSpace)
			}
			f := uint8(1) << rapid.IntRange(0, 7).Draw(t, "flag")
			table.add(id, f)
			if id != "" {
				want[id] |= f
			}
			probe := encodeID(uint64(rapid.IntRange(0, 500).Draw(t, "probe")) * spread % idSpace)
			if got := table.get(probe); got != want[probe] {
				t.Fatalf("get(%s) = %b, want %b", probe, got, want[probe])
			}
		}
		for id, f := range want {
			if got := table.get(id); got != f {
				t.Fatalf("get(%s) = %b, want %b", id, got, f)
			}
		}
		for n := uint64(0); n < 600; n++ { // every number the ids were drawn from, and beyond
			id := encodeID(n * spread % idSpace)
			if got := table.get(id); got != want[id] {
				t.Fatalf("get(%s) = %b, want %b", id, got, want[id])
			}
		}
		c := table.clone()
		c.add(encodeID(7), 1<<7)
		if !maps.Equal(c.other, table.other) || table.get(encodeID(7)) != want[encodeID(7)] {
			t.Fatalf("clone shares state with the original")
		}
		limit := uint64(rapid.IntRange(0, 2*idSpace).Draw(t, "limit"))
		mask := uint8(rapid.IntRange(1, 255).Draw(t, "mask"))
		count := 0
		for id, f := range want {
			if v, ok := decodeID(id); ok && v < limit && f&mask != 0 {
				count++
			}
		}
		if got := table.countBelow(limit, mask); got != count {
			t.Fatalf("countBelow(%d, %b) = %d, want %d", limit, mask, got, count)
		}
	})
}

// An Inventory answers as the package's functions: Cleanup with the observed
// and released pods as the active ones, Owned/Usable, NewIndex on V, and
// AllocateIDs with the observed and inactive pods, every PVC and V, in any
// order of the inputs; asking twice gives the same answers.
func TestPropInventoryMatchesFunctions(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := genWorld(t)
		observed, active, inactive := w.split()
		var released []*model.Pod
		for _, p := range active {
			if !slices.Contains(observed, p) {
				released = append(released, p)
			}
		}
		pvcs := permuted(t, w.pvcs, "perm")
		obs := permuted(t, observed, "obs")
		var ids []string
		if rapid.Bool().Draw(t, "ids") {
			ids = make([]string, len(obs))
			for i, p := range obs {
				ids[i] = p.InstanceID()
			}
		}
		x := NewInventory(w.cs, RoundPods{Observed: obs, ObservedIDs: ids, Released: released, Inactive: permuted(t, inactive, "inact")}, pvcs)

		wantV, wantActs := Cleanup(w.cs, active, inactive, w.pvcs)
		for range 2 {
			gotV, gotActs := x.Usable(), x.Cleanup()
			if d := cmp.Diff(wantV, gotV, cmpopts.EquateEmpty()); d != "" {
				t.Fatalf("V (-Cleanup +Inventory):\n%s", d)
			}
			if d := cmp.Diff(wantActs, gotActs, cmpopts.EquateEmpty()); d != "" {
				t.Fatalf("actions (-Cleanup +Inventory):\n%s", d)
			}
		}
		if d := cmp.Diff(wantV, x.Usable(), cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("Usable (-Cleanup +Inventory):\n%s", d)
		}
		idx := NewIndex(wantV)
		for _, p := range w.pods {
			if a, b := idx.ClaimsOfPod(p), x.Index().ClaimsOfPod(p); !slices.Equal(a, b) {
				t.Fatalf("ClaimsOfPod(%s): NewIndex %v, Inventory %v", p.Name, a, b)
			}
		}
		n := rapid.IntRange(0, 40).Draw(t, "n")
		want := AllocateIDs(w.cs, t0, n, observed, inactive, w.pvcs, wantV)
		for range 2 {
			if d := cmp.Diff(want, x.Allocate(t0, n), cmpopts.EquateEmpty()); d != "" {
				t.Fatalf("Allocate(%d) (-AllocateIDs +Inventory):\n%s", n, d)
			}
		}
	})
}
