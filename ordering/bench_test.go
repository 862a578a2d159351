package ordering

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
)

// benchPods builds n pods on n/8 nodes in 3 zones with a mix of phases,
// readiness, costs, restarts, lifecycle states and labels, deterministically.
func benchPods(n int) ([]*model.Pod, map[string]*model.Node) {
	r := rand.New(rand.NewPCG(1, uint64(n)))
	nodes := map[string]*model.Node{}
	numNodes := max(n/8, 1)
	for i := 0; i < numNodes; i++ {
		name := fmt.Sprintf("node-%05d", i)
		nodes[name] = &model.Node{Name: name, Labels: map[string]string{
			LabelHostname: name, "topology.kubernetes.io/zone": fmt.Sprintf("zone-%d", i%3),
		}}
	}
	pods := make([]*model.Pod, n)
	for i := range pods {
		p := newPod(fmt.Sprintf("sample-%06x", r.Uint32()&0xffffff) + fmt.Sprintf("-%d", i))
		p.Spec.NodeName = fmt.Sprintf("node-%05d", r.IntN(numNodes))
		switch r.IntN(50) {
		case 0:
			p.Spec.NodeName = ""
			p.Status.Phase = model.PodPending
		case 1:
			p.Status.Conditions[0].Status = "False"
		case 2:
			p.Labels[model.LabelLifecycleState] = model.StatePreparingUpdate
		}
		p.Status.Conditions[0].LastTransitionTime = t0.Add(time.Duration(r.IntN(3600)) * time.Second)
		p.CreationTimestamp = t0.Add(-time.Duration(r.IntN(7200)) * time.Second)
		p.Status.ContainerStatuses[0].RestartCount = int32(r.IntN(3))
		if r.IntN(10) == 0 {
			p.Annotations[model.AnnotationDeletionCost] = fmt.Sprint(r.IntN(5) - 2)
		}
		if r.IntN(4) == 0 {
			p.Labels["canary"] = "true"
		}
		p.Labels["rack"] = fmt.Sprintf("r%d", r.IntN(4))
		p.Labels["order"] = fmt.Sprintf("sts-%d", r.IntN(100))
		pods[i] = p
	}
	return pods, nodes
}

// reportCPU adds the process CPU time per operation since start (GC work
// included) as the metric "cpu-ns/op".
func reportCPU(b *testing.B, start int64) {
	if end := processCPUTime(); end > start && b.N > 0 {
		b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
	}
}

var benchSizes = []int{1_000, 10_000, 100_000}

// deletionBenchModes are the key-5 rankers of the deletion benchmarks: the
// same-node rank, and the spread rank of two constraints (zone, hostname).
var deletionBenchModes = []struct {
	name string
	keys []string
}{
	{"sameNode", nil},
	{"spread2", []string{"topology.kubernetes.io/zone", LabelHostname}},
}

func BenchmarkRankForDeletion(b *testing.B) {
	for _, n := range benchSizes {
		pods, nodes := benchPods(n)
		for _, mode := range deletionBenchModes {
			opts := DeletionOptions{MinReadySeconds: 10, Now: t0.Add(time.Hour), TopologyKeys: mode.keys, Nodes: nodes}
			b.Run(fmt.Sprintf("n=%d/%s", n, mode.name), func(b *testing.B) {
				b.ReportAllocs()
				cpu := processCPUTime()
				for b.Loop() {
					RankForDeletion(pods, opts)
				}
				reportCPU(b, cpu)
			})
		}
	}
}

// BenchmarkFirstForDeletion picks the first 10% of the deletion order, as a
// scale-in by a tenth does.
func BenchmarkFirstForDeletion(b *testing.B) {
	for _, n := range benchSizes {
		pods, nodes := benchPods(n)
		for _, mode := range deletionBenchModes {
			opts := DeletionOptions{MinReadySeconds: 10, Now: t0.Add(time.Hour), TopologyKeys: mode.keys, Nodes: nodes}
			b.Run(fmt.Sprintf("n=%d/%s/k=%d", n, mode.name, n/10), func(b *testing.B) {
				b.ReportAllocs()
				cpu := processCPUTime()
				for b.Loop() {
					FirstForDeletion(pods, opts, n/10)
				}
				reportCPU(b, cpu)
			})
		}
	}
}

func BenchmarkSortForUpdate(b *testing.B) {
	for _, n := range benchSizes {
		pods, _ := benchPods(n)
		for _, mode := range []struct {
			name string
			ru   *model.RollingUpdateStrategy
		}{
			{"default", nil},
			{"weight+scatter2", &model.RollingUpdateStrategy{
				PriorityStrategy: &model.UpdatePriorityStrategy{WeightPriority: []model.UpdatePriorityWeightTerm{
					{Weight: 50, MatchSelector: model.LabelSelector{MatchLabels: map[string]string{"canary": "true"}}},
					{Weight: 10, MatchSelector: model.LabelSelector{MatchExpressions: []model.LabelSelectorRequirement{{Key: "rack", Operator: model.OpIn, Values: []string{"r1", "r2"}}}}},
				}},
				ScatterStrategy: []model.ScatterTerm{{Key: "rack", Value: "r1"}, {Key: "canary", Value: "true"}},
			}},
			{"order", &model.RollingUpdateStrategy{PriorityStrategy: &model.UpdatePriorityStrategy{
				OrderPriority: []model.UpdatePriorityOrderTerm{{OrderedKey: "order"}},
			}}},
		} {
			opts := UpdateOptions{RollingUpdate: mode.ru, AllPods: pods}
			b.Run(fmt.Sprintf("n=%d/%s", n, mode.name), func(b *testing.B) {
				b.ReportAllocs()
				cpu := processCPUTime()
				for b.Loop() {
					SortForUpdate(pods, opts)
				}
				reportCPU(b, cpu)
			})
		}
	}
}
