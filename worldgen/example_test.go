package worldgen_test

import (
	"fmt"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/worldgen"
)

// A realistic world of 1000 pods in the middle of a rolling update, and what
// the planner does with it: the scale phase creates the surge pods that are
// still missing, at the update revision.
func ExampleRealistic() {
	s := worldgen.Realistic(1, 1000)
	cs := s.CloneSet
	ru := cs.Spec.UpdateStrategy.RollingUpdate
	fmt.Printf("%s/%s: %d replicas, %d pods, %d PVCs, %d nodes, %d revisions\n",
		cs.Namespace, cs.Name, *cs.Spec.Replicas, len(s.Pods), len(s.PVCs), len(s.Nodes), len(s.Revisions))
	fmt.Printf("policy %s, maxSurge %s, maxUnavailable %s, %d names in podsToDelete\n",
		ru.PodUpdatePolicy, ru.MaxSurge, ru.MaxUnavailable, len(cs.Spec.ScaleStrategy.PodsToDelete))

	updated, states := 0, map[string]int{}
	for _, p := range s.Pods {
		if p.InRevision(cs.Status.UpdateRevision) {
			updated++
		}
		states[p.LifecycleState()]++
	}
	fmt.Printf("%d pods at the update revision; Normal %d, PreparingNormal %d, PreparingDelete %d, PreparingUpdate %d, Updating %d, Updated %d\n",
		updated, states[model.StateNormal], states[model.StatePreparingNormal], states[model.StatePreparingDelete],
		states[model.StatePreparingUpdate], states[model.StateUpdating], states[model.StateUpdated])

	plan, err := clonesetcore.Plan(s)
	if err != nil {
		fmt.Println(err)
		return
	}
	counts := map[model.ActionType]int{}
	for _, a := range plan.Actions {
		counts[a.Type]++
	}
	fmt.Printf("plan: scaleUp %d, %d CreatePod, %d DeletePVC, %d SetPVCOwner, %d UpdatePodsToDelete\n",
		plan.Budget.ScaleUp, counts[model.ActionCreatePod], counts[model.ActionDeletePVC],
		counts[model.ActionSetPVCOwner], counts[model.ActionUpdatePodsToDelete])
	// Output:
	// default/sample: 950 replicas, 1002 pods, 1004 PVCs, 125 nodes, 4 revisions
	// policy InPlaceIfPossible, maxSurge 10%, maxUnavailable 10%, 7 names in podsToDelete
	// 400 pods at the update revision; Normal 981, PreparingNormal 7, PreparingDelete 2, PreparingUpdate 5, Updating 5, Updated 2
	// plan: scaleUp 45, 45 CreatePod, 2 DeletePVC, 2 SetPVCOwner, 1 UpdatePodsToDelete
}
