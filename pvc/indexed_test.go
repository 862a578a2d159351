package pvc

import (
	"slices"
	"testing"

	"github.com/clonecore/cloneset/model"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// CleanupIndexed answers as Cleanup followed by NewIndex on its result, in
// any order of the inputs, names shared by several PVCs included.
func TestPropCleanupIndexed(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := genWorld(t)
		_, active, inactive := w.split()
		pvcs := permuted(t, w.pvcs, "perm")
		if len(pvcs) > 1 && rapid.Bool().Draw(t, "dup") { // a name given twice
			c := *pvcs[1]
			c.Name = pvcs[0].Name
			pvcs = append(pvcs, &c)
		}
		wantV, wantActs := Cleanup(w.cs, active, inactive, pvcs)
		gotV, gotActs, idx := CleanupIndexed(w.cs, active, inactive, pvcs)
		// The same PVCs, in the order of pvcs.
		var inOrder []*model.PVC
		for _, c := range pvcs {
			if slices.Contains(wantV, c) && !slices.Contains(inOrder, c) {
				inOrder = append(inOrder, c)
			}
		}
		if d := cmp.Diff(inOrder, gotV, cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("usable (-Cleanup +CleanupIndexed):\n%s", d)
		}
		if d := cmp.Diff(wantActs, gotActs, cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("actions (-Cleanup +CleanupIndexed):\n%s", d)
		}
		want := NewIndex(wantV)
		for _, p := range w.pods {
			if a, b := want.ClaimsOfPod(p), idx.ClaimsOfPod(p); !slices.Equal(a, b) {
				t.Fatalf("ClaimsOfPod(%s): NewIndex %v, CleanupIndexed %v", p.Name, a, b)
			}
			c1, r1 := want.ClaimsForNewPod(w.cs, p.InstanceID())
			c2, r2 := idx.ClaimsForNewPod(w.cs, p.InstanceID())
			if !slices.Equal(c1, c2) || !slices.Equal(r1, r2) {
				t.Fatalf("ClaimsForNewPod(%s): NewIndex %v %v, CleanupIndexed %v %v", p.InstanceID(), c1, r1, c2, r2)
			}
		}
		for _, c := range pvcs {
			if want.Has(c.Name) != idx.Has(c.Name) {
				t.Fatalf("Has(%s) differs", c.Name)
			}
		}
	})
}

// NewIndex answers as the plain scans ClaimsOfPod and ClaimsForNewPod, also
// on lists with a name given twice (under one id or two).
func TestPropNewIndexMatchesScansWithDuplicates(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := genWorld(t)
		v := permuted(t, w.pvcs, "perm")
		for i := rapid.IntRange(0, 3).Draw(t, "dups"); i > 0 && len(v) > 1; i-- {
			c := *v[rapid.IntRange(0, len(v)-1).Draw(t, "from")]
			c.Name = v[rapid.IntRange(0, len(v)-1).Draw(t, "to")].Name
			v = append(v, &c)
		}
		idx := NewIndex(v)
		for _, p := range w.pods {
			if a, b := ClaimsOfPod(p, v), idx.ClaimsOfPod(p); !slices.Equal(a, b) {
				t.Fatalf("ClaimsOfPod(%s): scan %v, index %v", p.Name, a, b)
			}
			c1, r1 := ClaimsForNewPod(w.cs, p.InstanceID(), v)
			c2, r2 := idx.ClaimsForNewPod(w.cs, p.InstanceID())
			if !slices.Equal(c1, c2) || !slices.Equal(r1, r2) {
				t.Fatalf("ClaimsForNewPod(%s): scan %v %v, index %v %v", p.InstanceID(), c1, r1, c2, r2)
			}
		}
	})
}
