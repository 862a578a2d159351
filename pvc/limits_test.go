package pvc

import (
	"runtime"
	"testing"
)

// TestAllocateHugeCount: asking for far more ids than the id space holds
// returns what exists, without sizing anything by the count asked (the id
// table was sized by n: 2^26 ids asked cost 512 MB before any was made).
func TestAllocateHugeCount(t *testing.T) {
	cs := newCS("web", "uid-web", false)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := allocateIDs(SeedOf(cs, t0), 1<<26, nil, nil, nil, nil, 500)
	runtime.ReadMemStats(&after)
	if len(got) != 500 {
		t.Fatalf("%d ids, want the 500 of the space", len(got))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Fatalf("allocated %d MB", alloc>>20)
	}
}
