package pvc_test

import (
	"fmt"
	"time"

	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/pvc"
)

// A scale-out of three pods for CloneSet web with reuse enabled: the PVC of
// pod web-h7777 (evicted, gone) is still there, so its id is reused first;
// the other two ids are generated from the round's sequence
// (docs/spec/scale-and-budgets.md 7.2), skipping 6qhdd, which a running pod
// holds.
func ExampleAllocateIDs() {
	cs := &model.CloneSet{Name: "web", UID: "6f1c2a9e-0000-4000-8000-000000000001", Generation: 1}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cs.Spec.ScaleStrategy.EnablePVCReuse = true
	cs.Spec.VolumeClaimTemplates = []model.VolumeClaimTemplate{{Name: "data"}}
	owner := []model.OwnerReference{{Kind: "CloneSet", Name: "web", UID: cs.UID, Controller: true}}
	idLabel := func(id string) map[string]string { return map[string]string{model.LabelInstanceID: id} }

	running := &model.Pod{Name: "web-6qhdd", Labels: idLabel("6qhdd"), OwnerReferences: owner,
		Status: model.PodStatus{Phase: model.PodRunning}}
	pvcs := []*model.PVC{
		{Name: "data-web-6qhdd", Labels: idLabel("6qhdd"), OwnerReferences: owner},
		{Name: "data-web-h7777", Labels: idLabel("h7777"), OwnerReferences: owner},
	}
	observed := []*model.Pod{running}

	v, cleanup := pvc.Usable(cs, observed, nil, pvcs)
	idx := pvc.NewIndex(v)
	fmt.Println("clean-up actions:", len(cleanup))
	for _, a := range pvc.AllocateIDs(cs, now, 3, observed, nil, pvcs, v) {
		create, reuse := idx.ClaimsForNewPod(cs, a.ID)
		fmt.Println(pvc.PodName(cs, a.ID), "reused:", a.Reused, "create:", create, "reuse:", reuse)
	}
	// Output:
	// clean-up actions: 0
	// web-2zq2r reused: false create: [data-web-2zq2r] reuse: []
	// web-g7k9h reused: false create: [data-web-g7k9h] reuse: []
	// web-h7777 reused: true create: [] reuse: [data-web-h7777]
}

// GenerateID is a pure function of the round's seed and the counter: the
// same round gives the same ids, a round one second later other ids.
func ExampleGenerateID() {
	cs := &model.CloneSet{Name: "web", UID: "6f1c2a9e-0000-4000-8000-000000000001", Generation: 1}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, at := range []time.Time{now, now, now.Add(time.Second)} {
		seed := pvc.SeedOf(cs, at)
		fmt.Println(pvc.GenerateID(seed, 0), pvc.GenerateID(seed, 1), pvc.GenerateID(seed, 2))
	}
	// Output:
	// g7k9h 6qhdd 2zq2r
	// g7k9h 6qhdd 2zq2r
	// jxln5 sdpk9 w5fvs
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
	cs := &model.CloneSet{Name: "web", UID: "6f1c2a9e-0000-4000-8000-000000000001", Generation: 1}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cs.Spec.VolumeClaimTemplates = []model.VolumeClaimTemplate{{Name: "data"}}
	owner := []model.OwnerReference{{Kind: "CloneSet", Name: "web", UID: cs.UID, Controller: true}}
	idLabel := func(id string) map[string]string { return map[string]string{model.LabelInstanceID: id} }
	running := &model.Pod{Name: "web-6qhdd", Labels: idLabel("6qhdd"), OwnerReferences: owner,
		Status: model.PodStatus{Phase: model.PodRunning}}
	pvcs := []*model.PVC{
		{Name: "data-web-6qhdd", Labels: idLabel("6qhdd"), OwnerReferences: owner},
		{Name: "data-web-h7777", Labels: idLabel("h7777"), OwnerReferences: owner},
	}

	x := pvc.NewInventory(cs, pvc.RoundPods{Observed: []*model.Pod{running}}, pvcs)
	for _, a := range x.Cleanup() {
		fmt.Println(a.Type, a.PVC)
	}
	fmt.Println("claims of", running.Name, x.Index().ClaimsOfPod(running))
	for _, a := range x.Allocate(now, 2) {
		create, _ := x.Index().ClaimsForNewPod(cs, a.ID)
		fmt.Println("new pod", pvc.PodName(cs, a.ID), "creates", create)
	}
	// Output:
	// DeletePVC data-web-h7777
	// claims of web-6qhdd [data-web-6qhdd]
	// new pod web-2zq2r creates [data-web-2zq2r]
	// new pod web-g7k9h creates [data-web-g7k9h]
}
