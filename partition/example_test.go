package partition_test

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/partition"
)

// The CloneSet of the user guide: 5 replicas, partition 3, an update to a new
// template. Two pods should move to the update revision, one at a time
// (maxUnavailable defaults to 20 % of 5, rounded up).
func ExampleCompute() {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	replicas := int32(5)
	keep := model.FromInt(3)
	cs := &model.CloneSet{
		Name: "sample",
		Spec: model.CloneSetSpec{
			Replicas: &replicas,
			UpdateStrategy: model.UpdateStrategy{
				Type:          model.UpdateStrategyRollingUpdate,
				RollingUpdate: &model.RollingUpdateStrategy{Partition: &keep},
			},
		},
	}
	var pods []*model.Pod
	for _, name := range []string{"sample-chvnr", "sample-j6c4s", "sample-ns85c", "sample-jnjdp", "sample-qqglp"} {
		pods = append(pods, &model.Pod{
			Name:   name,
			Labels: map[string]string{model.LabelRevisionHash: "sample-d4d4fb5bd"},
			Status: model.PodStatus{
				Phase:      model.PodRunning,
				Conditions: []model.PodCondition{{Type: model.ConditionReady, Status: "True", LastTransitionTime: now.Add(-time.Hour)}},
			},
		})
	}
	b := partition.Compute(partition.Input{
		CloneSet:        cs,
		Pods:            pods,
		CurrentRevision: "sample-d4d4fb5bd",
		UpdateRevision:  "sample-56dfb978d4",
		Now:             now,
	}, partition.ScaleVariant)

	fmt.Printf("update %d pods, at most %d unavailable\n", b.UpdateNum, b.UpdateMaxUnavailable)
	out, _ := json.Marshal(b)
	fmt.Println(string(out))
	// Output:
	// update 2 pods, at most 1 unavailable
	// {"replicas":5,"partition":3,"maxSurge":0,"maxUnavailable":1,"scaleMaxUnavailable":2147483647,"scaleUp":0,"scaleUpOldRevision":0,"scaleUpLimit":0,"scaleDown":0,"scaleDownOldRevision":0,"deleteReadyLimit":0,"useSurge":0,"useSurgeOldRevision":0,"updateNum":2,"updateMaxUnavailable":1}
}

// Resolve reports values the controller cannot parse; it uses 0 for them.
func ExampleResolve() {
	replicas := int32(8)
	bad := model.FromString("12.5%")
	cs := &model.CloneSet{Spec: model.CloneSetSpec{
		Replicas:       &replicas,
		UpdateStrategy: model.UpdateStrategy{Type: model.UpdateStrategyRollingUpdate, RollingUpdate: &model.RollingUpdateStrategy{MaxUnavailable: &bad}},
	}}
	p := partition.Resolve(cs)
	fmt.Println(p.MaxUnavailable)
	fmt.Println(p.Problems[0])
	// Output:
	// 0
	// maxUnavailable "12.5%" does not parse for the controller (uses 0)
}
