package clonesetcore_test

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/worldgen"
)

// benchTrackerSizes are the pod counts of BenchmarkTrackerPlan.
var benchTrackerSizes = []int{1_000, 10_000, 100_000}

// benchWorlds are the worlds of BenchmarkPlan.
var benchWorlds = []struct {
	name string
	gen  func(seed int64, pods int) *model.Scenario
}{
	{"realistic", worldgen.Realistic},
	{"scaleIn", worldgen.ScaleIn},
	{"update", worldgen.Update},
}

// trackerFor returns a Tracker holding the objects of s and two versions of
// one of its pods (the pod in the middle of the name order): the one the
// Tracker holds and a copy whose Ready condition moved one second, the
// event a controller sees most (a status change).
func trackerFor(b *testing.B, s *model.Scenario) (*clonesetcore.Tracker, [2]*model.Pod) {
	tr := clonesetcore.NewTracker(s.Gates, s.Controller)
	tr.Sync(s)
	// The benchmark measures the right thing only if the Tracker plans as
	// Plan does on the world.
	got, err := tr.Plan(s.Now)
	if err != nil {
		b.Fatal(err)
	}
	want, _ := clonesetcore.Plan(s)
	if !bytes.Equal(mustJSON(b, got), mustJSON(b, want)) {
		b.Fatal("Tracker.Plan differs from Plan on the benchmark's world")
	}
	return tr, podVersions(tr, s.Now)
}

// podVersions returns two versions of the pod of tr in the middle of the
// name order: a copy whose Ready condition moved one second, and the one tr
// holds (the event a controller sees most: a status change).
func podVersions(tr *clonesetcore.Tracker, now time.Time) [2]*model.Pod {
	sc := tr.Scenario(now)
	p := sc.Pods[len(sc.Pods)/2]
	q := p.DeepCopy()
	for i := range q.Status.Conditions {
		q.Status.Conditions[i].LastTransitionTime = q.Status.Conditions[i].LastTransitionTime.Add(-1e9)
	}
	return [2]*model.Pod{q, p}
}

// eventThenPlan is the loop of the Tracker's plan benchmarks: one pod event
// (the two versions alternate) then Tracker.Plan at now; it reports the
// process's CPU time per op (cpu-ns/op).
func eventThenPlan(b *testing.B, tr *clonesetcore.Tracker, versions [2]*model.Pod, now time.Time) {
	cpu := processCPUTime()
	k := 0
	for b.Loop() {
		tr.SetPod(versions[k&1])
		k++
		if _, err := tr.Plan(now); err != nil {
			b.Fatal(err)
		}
	}
	if end := processCPUTime(); end > cpu {
		b.ReportMetric(float64(end-cpu)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkTrackerPlan measures one reconcile of a controller that keeps a
// Tracker: one pod event (a pod's status changes) then Tracker.Plan, on the
// worlds of BenchmarkPlan at 1k, 10k and 100k pods. It reports the metrics of
// BenchmarkPlan.
func BenchmarkTrackerPlan(b *testing.B) {
	for _, w := range benchWorlds {
		for _, n := range benchTrackerSizes {
			b.Run(fmt.Sprintf("%s/pods=%d", w.name, n), func(b *testing.B) {
				s := w.gen(1, n)
				tr, versions := trackerFor(b, s)
				b.ReportAllocs()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				eventThenPlan(b, tr, versions, s.Now)
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/pod")
				b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N)/float64(n), "allocs/pod")
			})
		}
	}
}

// BenchmarkTrackerEvent measures one pod event told to a Tracker of the
// realistic world: a pod's status changes (update), and a pod is deleted and
// added again (delete + add, two events per op).
func BenchmarkTrackerEvent(b *testing.B) {
	for _, n := range benchTrackerSizes {
		b.Run(fmt.Sprintf("update/pods=%d", n), func(b *testing.B) {
			tr, versions := trackerFor(b, worldgen.Realistic(1, n))
			b.ReportAllocs()
			k := 0
			for b.Loop() {
				tr.SetPod(versions[k&1])
				k++
			}
		})
		b.Run(fmt.Sprintf("deleteAdd/pods=%d", n), func(b *testing.B) {
			tr, versions := trackerFor(b, worldgen.Realistic(1, n))
			b.ReportAllocs()
			for b.Loop() {
				tr.DeletePod(versions[0].Name)
				tr.SetPod(versions[0])
			}
		})
	}
}

// BenchmarkTrackerPlanFedByEvents is BenchmarkTrackerPlan's update world at
// 100,000 pods with the Tracker told of each object by one event, the pods
// in the generator's order (not by name), instead of by Sync: "renumbered"
// lets the Tracker move its pods to slots in name order (it does so when it
// rebuilds its name order), "scattered" keeps the slots in the order the
// pods came (SetRenumberMin above the number of pods).
func BenchmarkTrackerPlanFedByEvents(b *testing.B) {
	s := worldgen.Update(1, 100_000)
	for _, c := range []struct {
		name string
		min  int
	}{{"renumbered", 1024}, {"scattered", 1 << 30}} {
		b.Run(c.name, func(b *testing.B) {
			defer clonesetcore.SetRenumberMin(clonesetcore.SetRenumberMin(c.min))
			tr := clonesetcore.NewTracker(s.Gates, s.Controller)
			tr.SetCloneSet(s.CloneSet)
			for _, r := range s.Revisions {
				tr.SetRevision(r)
			}
			for _, n := range s.Nodes {
				tr.SetNode(n)
			}
			for _, c := range s.PVCs {
				tr.SetPVC(c)
			}
			for _, p := range s.Pods {
				tr.SetPod(p)
			}
			if _, err := tr.Plan(s.Now); err != nil { // the first plan rebuilds the name order
				b.Fatal(err)
			}
			eventThenPlan(b, tr, podVersions(tr, s.Now), s.Now)
		})
	}
}
