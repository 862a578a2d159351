package pvc

import (
	"fmt"
	"testing"

	"github.com/clonecore/cloneset/model"
)

// benchWorld builds a CloneSet with size PVCs (one claim template): 90% belong
// to active pods, 5% to terminating pods and 5% to pods that are gone. Ids are
// spread over the generated-id space, as real ids are.
func benchWorld(size int, reuse bool) (cs *model.CloneSet, observed, inactive []*model.Pod, pvcs []*model.PVC) {
	cs = newCS("web", specUID, reuse, "data")
	for i := 0; i < size; i++ {
		id := encodeID(uint64(i) * 7919 % idSpace)
		pvcs = append(pvcs, mkClaim(cs, "data", id))
		switch {
		case i%20 == 0:
			inactive = append(inactive, terminating(mkPod(cs, id)))
		case i%20 == 1:
			// pod gone
		default:
			observed = append(observed, mkPod(cs, id))
		}
	}
	return
}

func BenchmarkCleanup(b *testing.B) {
	for _, size := range []int{10_000, 100_000} {
		cs, observed, inactive, pvcs := benchWorld(size, false)
		b.Run(fmt.Sprintf("pvcs=%d", size), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Cleanup(cs, observed, inactive, pvcs)
			}
		})
	}
}

func BenchmarkAllocateIDs(b *testing.B) {
	for _, reuse := range []bool{false, true} {
		for _, size := range []int{10_000, 100_000} {
			cs, observed, inactive, pvcs := benchWorld(size, reuse)
			v, _ := Usable(cs, observed, inactive, pvcs)
			n := size / 10
			b.Run(fmt.Sprintf("reuse=%v/pvcs=%d/n=%d", reuse, size, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if got := AllocateIDs(cs, t0, n, observed, inactive, pvcs, v); len(got) != n {
						b.Fatalf("got %d ids", len(got))
					}
				}
			})
		}
	}
}

// BenchmarkRound is the whole PVC work of a round: clean-up, the index, and
// the claims of every pod removed or created (n = 10% of the size each).
func BenchmarkRound(b *testing.B) {
	for _, size := range []int{10_000, 100_000} {
		cs, observed, inactive, pvcs := benchWorld(size, false)
		b.Run(fmt.Sprintf("pvcs=%d", size), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v, _ := Usable(cs, observed, inactive, pvcs)
				idx := NewIndex(v)
				for _, p := range observed[:size/10] {
					idx.ClaimsOfPod(p)
				}
				for _, a := range AllocateIDs(cs, t0, size/10, observed, inactive, pvcs, v) {
					idx.ClaimsForNewPod(cs, a.ID)
				}
			}
		})
	}
}

// BenchmarkInventoryRound is BenchmarkRound through one Inventory: every
// instance id is read once for the clean-up, the index and the allocation.
func BenchmarkInventoryRound(b *testing.B) {
	for _, size := range []int{10_000, 100_000} {
		cs, observed, inactive, pvcs := benchWorld(size, false)
		b.Run(fmt.Sprintf("pvcs=%d", size), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				x := NewInventory(cs, RoundPods{Observed: observed, Inactive: inactive}, pvcs)
				x.Cleanup()
				idx := x.Index()
				for _, p := range observed[:size/10] {
					idx.ClaimsOfPod(p)
				}
				for _, a := range x.Allocate(t0, size/10) {
					idx.ClaimsForNewPod(cs, a.ID)
				}
			}
		})
	}
}
