package ordering_test

import (
	"fmt"
	"time"

	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/ordering"
)

// pod builds a Running pod on node, ready since readyAt (not ready when
// readyAt is zero), with the given labels.
func pod(name, node string, readyAt time.Time, labels map[string]string) *model.Pod {
	p := &model.Pod{
		Name:   name,
		Labels: labels,
		Spec:   model.PodSpec{NodeName: node},
		Status: model.PodStatus{Phase: model.PodRunning},
	}
	if !readyAt.IsZero() {
		p.Status.Conditions = []model.PodCondition{{Type: model.ConditionReady, Status: "True", LastTransitionTime: readyAt}}
	}
	return p
}

// Scale-in of a group with two pods stacked on node-a and one pod that is not
// ready: the not-ready pod goes first, then the stacked pod that became ready
// last (same-node rank 1).
func ExampleRankForDeletion() {
	t := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	group := []*model.Pod{
		pod("web-a0", "node-a", t, nil),
		pod("web-a1", "node-a", t.Add(time.Minute), nil),
		pod("web-b0", "node-b", t.Add(2*time.Minute), nil),
		pod("web-c0", "node-c", time.Time{}, nil),
	}
	ranked := ordering.RankForDeletion(group, ordering.DeletionOptions{Now: t.Add(time.Hour)})
	for _, r := range ranked {
		fmt.Printf("%s %s rank=%g\n", r.Pod.Name, r.Why, r.SpreadRank)
	}

	// With a zone spread constraint the larger zone loses pods first.
	nodes := map[string]*model.Node{
		"node-a": {Name: "node-a", Labels: map[string]string{"zone": "z1"}},
		"node-b": {Name: "node-b", Labels: map[string]string{"zone": "z1"}},
		"node-c": {Name: "node-c", Labels: map[string]string{"zone": "z2"}},
	}
	ranked = ordering.RankForDeletion(group[:3], ordering.DeletionOptions{
		Now: t.Add(time.Hour), TopologyKeys: []string{"zone"}, Nodes: nodes,
	})
	for _, r := range ranked {
		fmt.Printf("%s %s rank=%.3f\n", r.Pod.Name, r.Why, r.SpreadRank)
	}
	// Output:
	// web-c0 unavailable rank=0
	// web-a1 rank rank=1
	// web-b0 readyTime rank=0
	// web-a0 last rank=0
	// web-a1 rank rank=3.296
	// web-b0 rank rank=2.197
	// web-a0 last rank=1.099
}

// An update with a weight priority for canaries and a scatter term spreading
// zone z1 over the rollout. The default order is by ready time (most recent
// first); the canary web-3 is moved to the front, the scatter pass interleaves
// z1 and z2 pods (web-6 web-5, then web-2, then web-4, the last z1 pod web-1
// at the end), and the PreparingUpdate pod web-6 finally goes first.
func ExampleSortForUpdate() {
	t := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	pods := []*model.Pod{
		pod("web-1", "n1", t, map[string]string{"zone": "z1"}),
		pod("web-2", "n1", t.Add(1*time.Minute), map[string]string{"zone": "z1"}),
		pod("web-3", "n2", t.Add(2*time.Minute), map[string]string{"zone": "z1", "canary": "true"}),
		pod("web-4", "n2", t.Add(3*time.Minute), map[string]string{"zone": "z2"}),
		pod("web-5", "n3", t.Add(4*time.Minute), map[string]string{"zone": "z2"}),
		pod("web-6", "n3", t.Add(5*time.Minute), map[string]string{"zone": "z2",
			model.LabelLifecycleState: model.StatePreparingUpdate}),
	}
	ru := &model.RollingUpdateStrategy{
		PriorityStrategy: &model.UpdatePriorityStrategy{WeightPriority: []model.UpdatePriorityWeightTerm{
			{Weight: 50, MatchSelector: model.LabelSelector{MatchLabels: map[string]string{"canary": "true"}}},
		}},
		ScatterStrategy: []model.ScatterTerm{{Key: "zone", Value: "z1"}},
	}
	for _, r := range ordering.SortForUpdate(pods, ordering.UpdateOptions{RollingUpdate: ru, AllPods: pods}) {
		fmt.Println(r.Pod.Name, r.Why)
	}
	// Output:
	// web-6 preparingUpdate
	// web-3 priority
	// web-5 readyTime
	// web-2 scatter:zone=z1
	// web-4 scatter:zone=z1
	// web-1 last
}
