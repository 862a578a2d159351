package clonesetcore_test

import (
	"fmt"
	"log"
	"time"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
)

// ExampleTracker keeps a Tracker for the CloneSet of exampleScenario, feeds
// it the objects one event at a time as an informer would, and plans after
// each change: the unready pod is updated in place first; once it is ready
// (a pod update event) and has been for a while, the next pod follows.
func ExampleTracker() {
	scn, err := manifest.LoadBytes([]byte(exampleScenario), "example.yaml")
	if err != nil {
		log.Fatal(err)
	}
	tr := clonesetcore.NewTracker(scn.Gates, scn.Controller)
	// Add events, in any order.
	tr.SetCloneSet(scn.CloneSet)
	for _, r := range scn.Revisions {
		tr.SetRevision(r)
	}
	for _, p := range scn.Pods {
		tr.SetPod(p)
	}
	show := func(now time.Time) {
		plan, err := tr.Plan(now)
		if err != nil {
			log.Fatal(err)
		}
		for _, a := range plan.Actions {
			fmt.Printf("%s %s %s -> %s\n", a.Type, a.Pod, a.FromRevision, a.ToRevision)
		}
	}
	show(scn.Now)

	// An update event: sample-c was updated in place and is ready again.
	c := tr.Pod("sample-c").DeepCopy()
	c.Labels[model.LabelRevisionHash] = "sample-2"
	c.Spec.Containers[0].Image = "nginx:2"
	c.Status.Conditions[0].Status = "True"
	tr.SetPod(c)
	show(scn.Now.Add(time.Minute))

	// A delete event: sample-a is gone.
	tr.DeletePod("sample-a")
	plan, _ := tr.Plan(scn.Now.Add(time.Minute))
	fmt.Printf("after sample-a is gone: scaleUp %d, %d pods\n", plan.Budget.ScaleUp, plan.Status.Replicas)
	// Output:
	// UpdatePodInPlace sample-c sample-1 -> sample-2
	// UpdatePodInPlace sample-a sample-1 -> sample-2
	// after sample-a is gone: scaleUp 1, 2 pods
}

// ExampleTracker_SyncExceptNodes keeps the nodes of a Tracker from events
// (SetNode, DeleteNode) while the CloneSet's own objects are listed on each
// reconcile: SyncExceptNodes takes the listed objects and leaves the nodes as
// the events made them.
func ExampleTracker_SyncExceptNodes() {
	scn, err := manifest.LoadBytes([]byte(exampleScenario), "example.yaml")
	if err != nil {
		log.Fatal(err)
	}
	tr := clonesetcore.NewTracker(scn.Gates, scn.Controller)
	// Node events, from the informer.
	tr.SetNode(&model.Node{Name: "node-1", Labels: map[string]string{"topology.kubernetes.io/zone": "a"}})
	tr.SetNode(&model.Node{Name: "node-2", Labels: map[string]string{"topology.kubernetes.io/zone": "b"}})
	tr.DeleteNode("node-1")
	// A reconcile: the CloneSet, pods and revisions listed, no node.
	listed := *scn
	listed.Nodes = nil
	tr.SyncExceptNodes(&listed)
	s := tr.Scenario(scn.Now)
	fmt.Printf("%d pods, nodes:", len(s.Pods))
	for _, n := range s.Nodes {
		fmt.Printf(" %s", n.Name)
	}
	fmt.Println()
	// Output:
	// 3 pods, nodes: node-2
}
