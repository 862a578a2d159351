package clonesetcore_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/worldgen"
)

// benchPlanSizes are the pod counts of BenchmarkPlan (docs/performance.md).
var benchPlanSizes = []int{100, 1_000, 10_000, 100_000}

// BenchmarkPlan plans worldgen worlds of 100 to 100k pods: realistic (a
// rollout with maxSurge, hooks, spread constraints and specified deletes; the
// plan creates surge pods), scaleIn (the plan ranks every pod and deletes the
// first ones) and update (the plan refreshes every pod, orders the candidates
// and updates a fifth of the pods). Besides ns/op, B/op and allocs/op it
// reports ns/pod, allocs/pod and cpu-ns/op (the process CPU time, GC workers
// included, steadier than wall time on a shared machine). Ranking alone is
// benchmarked in package ordering.
func BenchmarkPlan(b *testing.B) {
	for _, w := range []struct {
		name string
		gen  func(seed int64, pods int) *model.Scenario
	}{
		{"realistic", worldgen.Realistic},
		{"scaleIn", worldgen.ScaleIn},
		{"update", worldgen.Update},
	} {
		for _, n := range benchPlanSizes {
			b.Run(fmt.Sprintf("%s/pods=%d", w.name, n), func(b *testing.B) {
				s := w.gen(1, n)
				b.ReportAllocs()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				cpu := processCPUTime()
				for b.Loop() {
					if _, err := clonesetcore.Plan(s); err != nil {
						b.Fatal(err)
					}
				}
				if end := processCPUTime(); end > cpu {
					b.ReportMetric(float64(end-cpu)/float64(b.N), "cpu-ns/op")
				}
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/pod")
				b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N)/float64(n), "allocs/pod")
			})
		}
	}
}
