package partition

import (
	"fmt"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
)

// benchInput builds a CloneSet of n replicas in the middle of a rollout with
// n pods: 60 % at the current revision, 40 % updated, about 5 % not ready,
// 1 % PreparingDelete, 1 % specified-delete by label and 0.5 % listed in
// podsToDelete.
func benchInput(n int) Input {
	cs := mkCS(int32(n), partitionOf(S("30%")), surgeOf(S("10%")), unavOf(S("20%")), minReady(10))
	ps := make([]*model.Pod, n)
	var listed []string
	for i := range ps {
		rev := revA
		if i%5 >= 3 {
			rev = revB
		}
		var opts []podOpt
		switch {
		case i%20 == 7:
			opts = append(opts, notReady())
		case i%100 == 11:
			opts = append(opts, withState(model.StatePreparingDelete))
		case i%100 == 13:
			opts = append(opts, specDel())
		case i%200 == 17:
			listed = append(listed, fmt.Sprintf("pod-%06d", i))
		case i%50 == 19:
			opts = append(opts, readySince(5*time.Second))
		}
		ps[i] = mkPod(fmt.Sprintf("pod-%06d", i), rev, opts...)
	}
	cs.Spec.ScaleStrategy.PodsToDelete = listed
	return in(cs, ps)
}

func BenchmarkCompute(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		input := benchInput(n)
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var sink Budget
			for b.Loop() {
				sink = Compute(input, ScaleVariant)
			}
			if sink.Replicas != n {
				b.Fatalf("unexpected budget %+v", sink)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/pod")
		})
	}
}

// TestComputeIsLinear guards the O(n) requirement without timing: the
// counters of a 100k-pod world are exact sums (a quadratic or sampled
// implementation would either be far too slow for the test timeout or
// miscount).
func TestComputeIsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 100k pods")
	}
	input := benchInput(100_000)
	start := time.Now()
	c := Count(input, ScaleVariant)
	elapsed := time.Since(start)
	// 20 % of every 5 pods are rev-b pods 3 and 4 of each block of 5 -> 40 %.
	if c.Total != 100_000 || c.AllNew != 40_000 || c.AllOld != 60_000 {
		t.Fatalf("counters %+v", c)
	}
	if c.PreDelNew+c.PreDelOld != 1_000 || c.ToDelNew+c.ToDelOld != 1_000+500 {
		t.Fatalf("counters %+v", c)
	}
	// Generous bound: linear work over 100k pods takes milliseconds.
	if elapsed > 5*time.Second {
		t.Errorf("Count over 100k pods took %v", elapsed)
	}
}
