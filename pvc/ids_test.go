package pvc

import (
	"os"
	"testing"

	"github.com/clonecore/cloneset/model"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// specSeed is the seed of the tests' rounds of the spec CloneSet (uid
// specUID, name web, generation 0, no resourceVersion) at t0.
var specSeed = IDSeed{UID: specUID, Name: "web", Now: t0}

// gen returns candidate k of the spec CloneSet's sequence at t0.
func gen(k int) string { return GenerateID(specSeed, k) }

// TestAllocateIDs covers docs/spec/scale-and-budgets.md 5.5 and the exclusion set of 7.2.
func TestAllocateIDs(t *testing.T) {
	cs := newCS("web", specUID, true, "data")
	c := func(id string) *model.PVC { return mkClaim(cs, "data", id) }
	p := func(id string) *model.Pod { return mkPod(cs, id) }
	r := func(id string) Allocation { return Allocation{ID: id, Reused: true} }
	g := func(id string) Allocation { return Allocation{ID: id} }

	tests := []struct {
		name     string
		cs       *model.CloneSet
		n        int
		observed []*model.Pod
		inactive []*model.Pod
		scen     []*model.PVC
		usable   []*model.PVC
		want     []Allocation
	}{
		{name: "n = 0", n: 0, usable: []*model.PVC{c("zzzzz")}, want: nil},
		{name: "negative n", n: -3, usable: []*model.PVC{c("zzzzz")}, want: nil},
		{
			name:   "free ids taken in ascending order, smallest first",
			n:      2,
			usable: []*model.PVC{c("zzzzz"), c("mmmmm"), c("bbbbb")},
			want:   []Allocation{r("bbbbb"), r("mmmmm")},
		},
		{
			name:     "free = ids of V minus ids of observed pods",
			n:        2,
			observed: []*model.Pod{p("aaaaa"), p("bbbbb")},
			usable:   []*model.PVC{c("aaaaa"), c("bbbbb"), c("ccccc")},
			want:     []Allocation{r("ccccc"), g(gen(0))},
		},
		{
			name:   "several PVCs of one free id give one id",
			n:      2,
			usable: []*model.PVC{c("ccccc"), mkClaim(cs, "logs", "ccccc"), mkClaim(cs, "cache", "ccccc")},
			want:   []Allocation{r("ccccc"), g(gen(0))},
		},
		{
			name:   "PVC without instance id gives no free id",
			n:      1,
			usable: []*model.PVC{mkClaimNamed(cs, "orphan", ""), nil},
			want:   []Allocation{g(gen(0))},
		},
		{
			name: "no free id: generated ids, result sorted ascending",
			n:    3,
			want: sortedAllocs(g(gen(0)), g(gen(1)), g(gen(2))),
		},
		{
			name:     "observed pod id excluded",
			n:        2,
			observed: []*model.Pod{p(gen(1))},
			want:     sortedAllocs(g(gen(0)), g(gen(2))),
		},
		{
			name:     "inactive pod id excluded (terminating and terminal)",
			n:        2,
			inactive: []*model.Pod{terminating(p(gen(0))), failed(p(gen(2))), nil},
			want:     sortedAllocs(g(gen(1)), g(gen(3))),
		},
		{
			name: "terminating PVC and PVC owned by a pod excluded",
			n:    2,
			scen: []*model.PVC{deletingClaim(c(gen(0))), ownedBy(c(gen(1)), foreignPod), nil, mkClaimNamed(cs, "nolabel", "")},
			want: sortedAllocs(g(gen(2)), g(gen(3))),
		},
		{
			name:   "id of a PVC of V excluded from generation even when it is not free",
			n:      1,
			cs:     newCS("web", specUID, false, "data"),
			usable: []*model.PVC{c(gen(0))},
			// gen(0) is free here (no observed pod), so it is reused.
			want: []Allocation{r(gen(0))},
		},
		{
			name:     "free id taken earlier in the plan is not generated again",
			n:        3,
			observed: []*model.Pod{p("zzzzz")},
			usable:   []*model.PVC{c(gen(1)), c("zzzzz")},
			want:     sortedAllocs(r(gen(1)), g(gen(0)), g(gen(2))),
		},
		{
			name:     "free id held by an inactive pod is still free [quirk 5.5]",
			n:        1,
			inactive: []*model.Pod{terminating(p("fghij"))},
			usable:   []*model.PVC{c("fghij")},
			want:     []Allocation{r("fghij")},
		},
		{
			name:     "empty ids are ignored",
			n:        1,
			observed: []*model.Pod{mkPodNamed(cs, "web-adopted", "")},
			inactive: []*model.Pod{terminating(mkPodNamed(cs, "web-old", ""))},
			usable:   []*model.PVC{mkClaimNamed(cs, "nolabel", "")},
			want:     []Allocation{g(gen(0))},
		},
		{
			name: "empty uid and nil CloneSet use the empty identity",
			cs:   nil,
			n:    2,
			want: sortedAllocs(g(GenerateID(IDSeed{Now: t0}, 0)), g(GenerateID(IDSeed{Now: t0}, 1))),
		},
		{
			name:   "reused ids keep any shape; mixed result sorted byte-wise",
			n:      3,
			usable: []*model.PVC{c("ZZZ"), c("a-long-id")},
			want:   sortedAllocs(r("ZZZ"), r("a-long-id"), g(gen(0))),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := cs
			if tc.name == "empty uid and nil CloneSet use the empty identity" {
				x = nil
			} else if tc.cs != nil {
				x = tc.cs
			}
			got := AllocateIDs(x, t0, tc.n, tc.observed, tc.inactive, tc.scen, tc.usable)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("AllocateIDs (-want +got):\n%s", diff)
			}
		})
	}
}

func sortedAllocs(a ...Allocation) []Allocation {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j].ID < a[j-1].ID; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
	return a
}

// TestAllocateIDsSkipsCandidates checks the skip rule of 7.2 step 4 on a run of
// excluded candidates: the accepted ids are exactly the first non-excluded
// candidates.
func TestAllocateIDsSkipsCandidates(t *testing.T) {
	cs := newCS("web", specUID, false)
	var observed []*model.Pod
	for k := 0; k < 50; k += 2 {
		observed = append(observed, mkPod(cs, gen(k)))
	}
	got := AllocateIDs(cs, t0, 10, observed, nil, nil, nil)
	want := sortedAllocs(
		Allocation{ID: gen(1)}, Allocation{ID: gen(3)}, Allocation{ID: gen(5)}, Allocation{ID: gen(7)}, Allocation{ID: gen(9)},
		Allocation{ID: gen(11)}, Allocation{ID: gen(13)}, Allocation{ID: gen(15)}, Allocation{ID: gen(17)}, Allocation{ID: gen(19)},
	)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

// TestGenerateSweep checks the fallback of generate: with no candidate budget
// the ids come from the sweep in numeric order, skipping excluded ones.
func TestGenerateSweep(t *testing.T) {
	excl := map[string]struct{}{encodeID(0): {}, encodeID(2): {}}
	got := generate(specSeed, 3, excl, 0, idSpace)
	if diff := cmp.Diff([]string{encodeID(1), encodeID(3), encodeID(4)}, got); diff != "" {
		t.Error(diff)
	}
	for _, id := range got {
		if _, ok := excl[id]; !ok {
			t.Errorf("accepted id %q not added to the exclusion set", id)
		}
	}
	// The sweep stops at the end of the space.
	if got := generate(specSeed, 3, map[string]struct{}{encodeID(0): {}}, 0, 2); len(got) != 1 || got[0] != encodeID(1) {
		t.Errorf("space 2: %v", got)
	}
}

func TestEncodeDecode(t *testing.T) {
	if encodeID(0) != "bbbbb" || encodeID(1) != "cbbbb" || encodeID(27) != "bcbbb" || encodeID(idSpace-1) != "99999" {
		t.Errorf("encoding: %q %q %q %q", encodeID(0), encodeID(1), encodeID(27), encodeID(idSpace-1))
	}
	for _, i := range []uint64{0, 1, 26, 27, 12345, idSpace - 1} {
		if got, ok := decodeID(encodeID(i)); !ok || got != i {
			t.Errorf("decode(encode(%d)) = %d, %v", i, got, ok)
		}
	}
	for k := 0; k < 100; k++ {
		id := gen(k)
		i, ok := decodeID(id)
		if !ok || encodeID(i) != id {
			t.Errorf("round trip of %q failed", id)
		}
	}
}

// TestGenerateBudgetExhausted checks that the sweep takes over when every
// candidate within the budget is excluded.
func TestGenerateBudgetExhausted(t *testing.T) {
	fresh := func() map[string]struct{} {
		excl := map[string]struct{}{}
		for k := 0; k < 5; k++ {
			excl[gen(k)] = struct{}{}
		}
		return excl
	}
	got := generate(specSeed, 2, fresh(), 5, idSpace)
	if diff := cmp.Diff([]string{encodeID(0), encodeID(1)}, got); diff != "" {
		t.Error(diff)
	}
	// With one more candidate of budget, the sequence provides the first id.
	got = generate(specSeed, 2, fresh(), 6, idSpace)
	if diff := cmp.Diff([]string{gen(5), encodeID(0)}, got); diff != "" {
		t.Error(diff)
	}
	if got := generate(specSeed, 0, fresh(), 6, idSpace); got != nil {
		t.Errorf("need 0: %v", got)
	}
}

// TestAllocateIDsSpaceLimits runs allocateIDs on a small id space to reach the
// capacity limit and the crowding threshold quickly.
func TestAllocateIDsSpaceLimits(t *testing.T) {
	cs := newCS("web", specUID, false)
	pvcs := func(nums ...uint64) []*model.PVC {
		var out []*model.PVC
		for _, i := range nums {
			out = append(out, mkClaim(cs, "d", encodeID(i)))
		}
		return out
	}
	g := func(i uint64) Allocation { return Allocation{ID: encodeID(i)} }

	// Space of 10 ids, 7 excluded (plus ids outside the space and not of the
	// generated form, which do not count): only 3 are left, n = 5 yields them.
	excl := append(pvcs(0, 1, 2, 4, 5, 7, 8, 20, 21), mkClaimNamed(cs, "odd", "not-generated"))
	got := allocateIDs(SeedOf(cs, t0), 5, nil, nil, excl, nil, 10)
	if diff := cmp.Diff(sortedAllocs(g(3), g(6), g(9)), got); diff != "" {
		t.Errorf("capacity (-want +got):\n%s", diff)
	}
	// Free ids come on top of the capacity.
	got = allocateIDs(SeedOf(cs, t0), 5, nil, nil, excl, []*model.PVC{mkClaim(cs, "d", "reused")}, 10)
	want := sortedAllocs(Allocation{ID: "reused", Reused: true}, g(3), g(6), g(9))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("capacity with a free id (-want +got):\n%s", diff)
	}
	// Full space: nothing can be generated, no loop, no panic.
	if got := allocateIDs(SeedOf(cs, t0), 3, nil, nil, pvcs(0, 1, 2, 3), nil, 4); len(got) != 0 {
		t.Errorf("full space: %v", got)
	}
	// Crowded (more than half of the space used): straight to the sweep.
	got = allocateIDs(SeedOf(cs, t0), 2, nil, nil, pvcs(1, 2, 3, 4, 5), nil, 10)
	if diff := cmp.Diff(sortedAllocs(g(0), g(6)), got); diff != "" {
		t.Errorf("crowded (-want +got):\n%s", diff)
	}
	// Exactly half: the 7.2 sequence is used.
	got = allocateIDs(SeedOf(cs, t0), 2, nil, nil, pvcs(1, 2, 3), nil, 10)
	if diff := cmp.Diff(sortedAllocs(Allocation{ID: gen(0)}, Allocation{ID: gen(1)}), got); diff != "" {
		t.Errorf("half (-want +got):\n%s", diff)
	}
}

// TestAllocateIDsHugeN checks that an absurd n (spec.replicas at its maximum)
// is capped by the 27^5 id space instead of exhausting memory. It allocates the
// whole id space, so it only runs with PVC_LONG_TESTS=1.
func TestAllocateIDsHugeN(t *testing.T) {
	if os.Getenv("PVC_LONG_TESTS") == "" {
		t.Skip("set PVC_LONG_TESTS=1 to allocate the whole id space")
	}
	got := AllocateIDs(newCS("web", specUID, false), t0, model.MaxInt32, nil, nil, nil, nil)
	if len(got) != idSpace {
		t.Fatalf("got %d ids, want %d", len(got), idSpace)
	}
	for i := 1; i < len(got); i++ {
		if got[i].ID <= got[i-1].ID {
			t.Fatalf("not strictly ascending at %d: %q, %q", i, got[i-1].ID, got[i].ID)
		}
	}
}

func TestCollisions(t *testing.T) {
	cs := newCS("web", specUID, true, "data")
	allocs := []Allocation{{ID: "aaaaa", Reused: true}, {ID: "fghij", Reused: true}, {ID: "vt5vm"}, {ID: "zzzzz", Reused: true}}
	pods := []*model.Pod{
		terminating(mkPod(cs, "fghij")), nil,
		succeeded(mkPod(cs, "zzzzz")),
		// a pod whose name does not match its id label: its name is what collides
		terminating(mkPodNamed(cs, "web-vt5vm", "other")),
		terminating(mkPodNamed(cs, "web-qqqqq", "aaaaa")),
	}
	if diff := cmp.Diff([]string{"fghij", "vt5vm", "zzzzz"}, Collisions(cs, allocs, pods)); diff != "" {
		t.Error(diff)
	}
	if got := Collisions(cs, allocs, nil); got != nil {
		t.Errorf("no pods: %v", got)
	}
	if got := Collisions(cs, nil, pods); got != nil {
		t.Errorf("no allocations: %v", got)
	}
	note := CollisionNote(cs, "fghij")
	for _, part := range []string{"fghij", "web-fghij", "AlreadyExists", "[quirk"} {
		if !contains(note, part) {
			t.Errorf("note %q lacks %q", note, part)
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// generate is generateIDs over a set of excluded ids, which it extends with
// the ids it returns.
func generate(seed IDSeed, need int, excl map[string]struct{}, budget, space int) []string {
	t := newIDTable(len(excl) + need)
	for id := range excl {
		t.add(id, idClaim)
	}
	out := generateIDs(seed, need, t, budget, space)
	for _, id := range out {
		excl[id] = struct{}{}
	}
	return out
}
