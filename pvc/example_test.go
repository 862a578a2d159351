package pvc_test

import (
	"fmt"
	"time"

	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/pvc"
)

// A scale-out of three pods for CloneSet web with reuse enabled: the PVC of
// pod web-h7777 (evicted, gone) is still there, so its id is reused first;
// the other two ids are generated (docs/spec/scale-and-budgets.md 7.2), skipping 797rr,
// which a running pod holds.
func ExampleAllocateIDs() {
	cs := &model.CloneSet{Name: "web", UID: "6f1c2a9e-0000-4000-8000-000000000001"}
	cs.Spec.ScaleStrategy.EnablePVCReuse = true
	cs.Spec.VolumeClaimTemplates = []model.VolumeClaimTemplate{{Name: "data"}}
	owner := []model.OwnerReference{{Kind: "CloneSet", Name: "web", UID: cs.UID, Controller: true}}
	idLabel := func(id string) map[string]string { return map[string]string{model.LabelInstanceID: id} }

	running := &model.Pod{Name: "web-797rr", Labels: idLabel("797rr"), OwnerReferences: owner,
		Status: model.PodStatus{Phase: model.PodRunning}}
	pvcs := []*model.PVC{
		{Name: "data-web-797rr", Labels: idLabel("797rr"), OwnerReferences: owner},
		{Name: "data-web-h7777", Labels: idLabel("h7777"), OwnerReferences: owner},
	}
	observed := []*model.Pod{running}

	v, cleanup := pvc.Usable(cs, observed, nil, pvcs)
	idx := pvc.NewIndex(v)
	fmt.Println("clean-up actions:", len(cleanup))
	for _, a := range pvc.AllocateIDs(cs, 3, observed, nil, pvcs, v) {
		create, reuse := idx.ClaimsForNewPod(cs, a.ID)
		fmt.Println(pvc.PodName(cs, a.ID), "reused:", a.Reused, "create:", create, "reuse:", reuse)
	}
	// Output:
	// clean-up actions: 0
	// web-b2w5c reused: false create: [data-web-b2w5c] reuse: []
	// web-h7777 reused: true create: [] reuse: [data-web-h7777]
	// web-vt5vm reused: false create: [data-web-vt5vm] reuse: []
}

// GenerateID is a pure function of the CloneSet's identity and the counter.
func ExampleGenerateID() {
	for k := 0; k < 3; k++ {
		fmt.Print(pvc.GenerateID("6f1c2a9e-0000-4000-8000-000000000001", "web", k), " ")
	}
	fmt.Println()
	// Output: vt5vm 797rr b2w5c
}

// With reuse disabled, clean-up hands the PVC of a terminating pod to that pod
// and deletes the PVC whose pod is gone.
func ExampleCleanup() {
	cs := &model.CloneSet{Name: "web", UID: "uid-1"}
	owner := []model.OwnerReference{{Kind: "CloneSet", Name: "web", UID: "uid-1", Controller: true}}
	idLabel := func(id string) map[string]string { return map[string]string{model.LabelInstanceID: id} }
	terminating := &model.Pod{Name: "web-fghij", Labels: idLabel("fghij"),
		DeletionTimestamp: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	pvcs := []*model.PVC{
		{Name: "data-web-zzzzz", Labels: idLabel("zzzzz"), OwnerReferences: owner},
		{Name: "data-web-fghij", Labels: idLabel("fghij"), OwnerReferences: owner},
	}
	v, actions := pvc.Cleanup(cs, nil, []*model.Pod{terminating}, pvcs)
	fmt.Println("kept:", len(v))
	for _, a := range actions {
		fmt.Println(a.Type, a.PVC, a.Pod)
	}
	// Output:
	// kept: 0
	// SetPVCOwner data-web-fghij web-fghij
	// DeletePVC data-web-zzzzz
}

// One round of a CloneSet with reuse disabled, from one Inventory: the PVC of
// a pod that is gone is deleted, the running pod keeps its PVC (and a
// scale-in of it would delete that PVC), and two new pods get generated ids.
func ExampleInventory() {
	cs := &model.CloneSet{Name: "web", UID: "6f1c2a9e-0000-4000-8000-000000000001"}
	cs.Spec.VolumeClaimTemplates = []model.VolumeClaimTemplate{{Name: "data"}}
	owner := []model.OwnerReference{{Kind: "CloneSet", Name: "web", UID: cs.UID, Controller: true}}
	idLabel := func(id string) map[string]string { return map[string]string{model.LabelInstanceID: id} }
	running := &model.Pod{Name: "web-797rr", Labels: idLabel("797rr"), OwnerReferences: owner,
		Status: model.PodStatus{Phase: model.PodRunning}}
	pvcs := []*model.PVC{
		{Name: "data-web-797rr", Labels: idLabel("797rr"), OwnerReferences: owner},
		{Name: "data-web-h7777", Labels: idLabel("h7777"), OwnerReferences: owner},
	}

	x := pvc.NewInventory(cs, pvc.RoundPods{Observed: []*model.Pod{running}}, pvcs)
	for _, a := range x.Cleanup() {
		fmt.Println(a.Type, a.PVC)
	}
	fmt.Println("claims of", running.Name, x.Index().ClaimsOfPod(running))
	for _, a := range x.Allocate(2) {
		create, _ := x.Index().ClaimsForNewPod(cs, a.ID)
		fmt.Println("new pod", pvc.PodName(cs, a.ID), "creates", create)
	}
	// Output:
	// DeletePVC data-web-h7777
	// claims of web-797rr [data-web-797rr]
	// new pod web-b2w5c creates [data-web-b2w5c]
	// new pod web-vt5vm creates [data-web-vt5vm]
}
