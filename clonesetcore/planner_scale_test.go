package clonesetcore_test

// Scale-phase rules (docs/spec/scale-and-budgets.md section 4.3), driven through Plan.

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
)

const scaleChangedNote = "the scale phase changed pods: the update phase waits for the next round"

// S1b: replicas went up while a pod drained; the pre-deletion is cancelled.
// Example 8.9 of docs/spec/scale-and-budgets.md.
func TestS1bCancelPreDelete(t *testing.T) {
	w := newWorld(3,
		pod("x1", revB, hooked), pod("x2", revB, hooked),
		pod("x3", revB, hooked, state(model.StatePreparingDelete)),
	).atRest(revB).preDelete(false)
	res := w.plan(t)
	wantActs(t, res, "SetLifecycleState x3 PreparingDelete->PreparingNormal notReady=false")
	if r := res.Actions[0].Reason; !strings.HasPrefix(r, "cancel pre-delete") {
		t.Errorf("reason %q, want it to start with %q", r, "cancel pre-delete")
	}
	wantNote(t, res, "replicas went up while 1 pod waited in PreparingDelete: cancelled back to PreparingNormal")
	wantNote(t, res, scaleChangedNote)
}

// S1b walks PreparingDelete pods in canonical order, stops when d reaches 0 and
// never cancels a specified-delete pod.
func TestS1bCancelStopsAtDAndSkipsSpecifiedDelete(t *testing.T) {
	// |Pods| 5, numToDelete 4 (x2..x5), R 3: d = 3 - 5 + 4 = 2.
	w := newWorld(3,
		pod("x1", revB, hooked),
		pod("x2", revB, hooked, state(model.StatePreparingDelete), specifiedDelete),
		pod("x5", revB, hooked, state(model.StatePreparingDelete)),
		pod("x4", revB, hooked, state(model.StatePreparingDelete)),
		pod("x3", revB, hooked, state(model.StatePreparingDelete)),
	).atRest(revB).preDelete(false)
	res := w.plan(t)
	wantActs(t, res,
		"SetLifecycleState x3 PreparingDelete->PreparingNormal notReady=false",
		"SetLifecycleState x4 PreparingDelete->PreparingNormal notReady=false")
	wantNote(t, res, "replicas went up while 2 pods waited in PreparingDelete: cancelled back to PreparingNormal")
}

// S1b is skipped when either hook has markPodNotReady: nothing happens until
// the hook is released; with excludePreparingDelete a replacement is created.
func TestS1bBlockedByMarkPodNotReady(t *testing.T) {
	build := func(inPlace bool) *world {
		w := newWorld(3,
			pod("x1", revB, hooked), pod("x2", revB, hooked),
			pod("x3", revB, hooked, state(model.StatePreparingDelete)),
		).atRest(revB).preDelete(!inPlace)
		if inPlace {
			w.cs.Spec.Lifecycle.InPlaceUpdate = &model.LifecycleHook{LabelsHandler: map[string]string{"hold": "true"}, MarkPodNotReady: true}
		}
		return w
	}
	for _, inPlace := range []bool{false, true} {
		res := build(inPlace).plan(t)
		wantActs(t, res)
		wantNote(t, res, "1 pod in PreparingDelete still hooked by lifecycle.preDelete: waiting for the hook to be released")
		wantNoNoteWith(t, res, "cancelled")
	}

	w := build(false)
	w.cs.Spec.ScaleStrategy.ExcludePreparingDelete = true
	res := w.plan(t)
	if c := ofType(res, model.ActionCreatePod); len(c) != 1 || c[0].Revision != revB || c[0].Reason != "scale out" {
		t.Errorf("with excludePreparingDelete: want one CreatePod at %s for scale out, got %q", revB, acts(res))
	}
}

// S3: scale-out during a partitioned update: min(n, scaleUpOld) pods at the
// current revision first, the rest at the update revision (example 8.3).
func TestS3ScaleOutSplitsRevisions(t *testing.T) {
	w := newWorld(6, pod("a1", revA), pod("a2", revA), pod("a3", revA), pod("b1", revB)).partition(4).maxUnavail(1)
	res := w.plan(t)
	c := ofType(res, model.ActionCreatePod)
	if len(c) != 2 {
		t.Fatalf("want 2 CreatePod, got %q", acts(res))
	}
	if c[0].Revision != revA || c[1].Revision != revB {
		t.Errorf("revisions %s, %s; want %s then %s", c[0].Revision, c[1].Revision, revA, revB)
	}
	for i, a := range c {
		if a.Batch != i || a.Reason != "scale out" || a.LifecycleState != model.StatePreparingNormal || a.Pod != "web-"+a.InstanceID {
			t.Errorf("CreatePod %d: %+v", i, a)
		}
	}
	if b := res.Budget; b.ScaleUp != 2 || b.ScaleUpOldRevision != 1 || b.ScaleUpLimit != 2 || b.UpdateNum != 0 {
		t.Errorf("budget %+v", b)
	}
	wantNote(t, res, "1 pod is created at the current revision web-1 to keep the partition")
	wantNote(t, res, scaleChangedNote)
}

// S3: creations come in slow-start batches 1, 2, 4, 4 for 11 pods, every one
// at the update revision when the partition is 0, with sorted instance ids.
func TestS3Batches(t *testing.T) {
	res := newWorld(11).atRest(revB).plan(t)
	c := ofType(res, model.ActionCreatePod)
	if len(c) != 11 {
		t.Fatalf("want 11 CreatePod, got %d", len(c))
	}
	var batches []int
	var ids []string
	for _, a := range c {
		batches = append(batches, a.Batch)
		ids = append(ids, a.InstanceID)
		if a.Revision != revB {
			t.Errorf("%s at %s, want %s", a.Pod, a.Revision, revB)
		}
	}
	if want := []int{0, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}; !slices.Equal(batches, want) {
		t.Errorf("batches %v, want %v", batches, want)
	}
	if !slices.IsSorted(ids) {
		t.Errorf("instance ids not ascending: %v", ids)
	}
	wantNoNoteWith(t, res, "created at the current revision")
}

// S3 reasons: surge for update (example 8.1) and surge for specified delete
// (example 8.6).
func TestS3SurgeReasons(t *testing.T) {
	var pods []*model.Pod
	for _, n := range []string{"a1", "a2", "a3", "a4", "a5", "a6", "a7"} {
		pods = append(pods, pod(n, revA))
	}
	w := newWorld(7, pods...)
	w.ru().MaxSurge = strv("10%")
	res := w.plan(t)
	if c := ofType(res, model.ActionCreatePod); len(c) != 1 || len(res.Actions) != 1 {
		t.Fatalf("want one CreatePod, got %q", acts(res))
	}
	wantActs(t, res, "CreatePod "+res.Actions[0].Pod+"@web-2 batch 0 (surge for update)")
	if b := res.Budget; b.UseSurge != 1 || b.ScaleUpLimit != 1 || b.UpdateNum != 7 || b.UpdateMaxUnavailable != 1 {
		t.Errorf("budget %+v", b)
	}

	w = newWorld(4, pod("b1", revB, specifiedDelete), pod("b2", revB), pod("b3", revB), pod("b4", revB)).
		atRest(revB).maxSurge(1).maxUnavail(0)
	res = w.plan(t)
	c := ofType(res, model.ActionCreatePod)
	if len(c) != 1 || c[0].Reason != "surge for specified delete" || c[0].Revision != revB || len(res.Actions) != 1 {
		t.Errorf("want one CreatePod for specified delete, got %q", acts(res))
	}
}

// S3 with the roll-back gate: the old-revision surge creates the pod at the
// current revision (example 8.8).
func TestS3RollbackSurgeAtCurrentRevision(t *testing.T) {
	w := newWorld(5, pod("a1", revA), pod("b1", revB), pod("b2", revB), pod("b3", revB), pod("b4", revB)).
		partition(3).maxUnavail(2).maxSurge(1)
	w.s.Gates.CloneSetPartitionRollback = true
	res := w.plan(t)
	c := ofType(res, model.ActionCreatePod)
	if len(c) != 1 || c[0].Revision != revA || c[0].Reason != "surge for update" {
		t.Errorf("want one CreatePod at %s (surge for update), got %q", revA, acts(res))
	}
	if b := res.Budget; b.UseSurge != 1 || b.UseSurgeOldRevision != 1 || b.ScaleUpOldRevision != 3 {
		t.Errorf("budget %+v", b)
	}
}

// S2/S3: scaleStrategy.maxUnavailable limits the scale-out (example 8.2), and
// a limit of 0 stops it and lets the update phase run.
func TestS3ScaleOutLimited(t *testing.T) {
	w := newWorld(8, pod("b1", revB), pod("b2", revB), pod("b3", revB, state(model.StatePreparingNormal), notReady, unscheduled)).atRest(revB)
	w.cs.Spec.ScaleStrategy.MaxUnavailable = strv("25%")
	res := w.plan(t)
	if c := ofType(res, model.ActionCreatePod); len(c) != 1 {
		t.Errorf("want 1 CreatePod, got %q", acts(res))
	}
	wantNote(t, res, "scale-out limited by scaleStrategy.maxUnavailable, limit 1 (5 wanted, scaleMaxUnavailable 2, 1 pod unavailable)")

	// The new pod is there but not ready: limit 0. Nothing is created, the
	// update phase runs (its refresh moves nothing: the pods are unscheduled).
	w.add(pod("b4", revB, state(model.StatePreparingNormal), notReady, unscheduled))
	res = w.plan(t)
	wantActs(t, res)
	wantNote(t, res, "scale-out limited by scaleStrategy.maxUnavailable, limit 0 (4 wanted, scaleMaxUnavailable 2, 2 pods unavailable)")
	wantNote(t, res, "scale-out of 4 pods waits: no creation allowed this round; nothing is deleted while pods are missing")
	wantNoNoteWith(t, res, "scale phase changed")
}

// A scaleStrategy.maxUnavailable the controller cannot parse (the webhook does
// not check it) blocks every creation (scale-and-budgets 1.6, 8.2).
func TestS3UnparsableScaleMaxUnavailable(t *testing.T) {
	w := newWorld(3, pod("b1", revB), pod("b2", revB)).atRest(revB)
	w.cs.Spec.ScaleStrategy.MaxUnavailable = strv("12.5%")
	res := w.plan(t)
	wantActs(t, res)
	wantNote(t, res, `scaleStrategy.maxUnavailable "12.5%" does not parse for the controller (uses 0, which blocks every pod creation)`)
	wantNote(t, res, "scale-out of 1 pod waits: no creation allowed this round; nothing is deleted while pods are missing")
}

// S4: a PreparingDelete pod whose hook was released is deleted with its PVCs,
// without charging the budget; one still hooked waits.
func TestS4PreparingDeleteReleased(t *testing.T) {
	w := newWorld(2, pod("x1", revB, hooked), pod("x2", revB, hooked), pod("x3", revB, state(model.StatePreparingDelete))).
		atRest(revB).preDelete(false).maxUnavail(0).maxSurge(1)
	w.s.PVCs = []*model.PVC{pvcOf("x3"), pvcOf("x1")}
	res := w.plan(t)
	wantActs(t, res, "DeletePod x3 pvcs [data-web-x3]")
	if r := res.Actions[0].Reason; r != "PreparingDelete pod: preDelete hook released" {
		t.Errorf("reason %q", r)
	}
	wantNote(t, res, scaleChangedNote)

	w.s.Pods[2] = pod("x3", revB, state(model.StatePreparingDelete), hooked)
	res = w.plan(t)
	wantActs(t, res)
	wantNote(t, res, "1 pod in PreparingDelete still hooked by lifecycle.preDelete: waiting for the hook to be released")
}

// S5: specified deletion charges deleteReadyLimit for ready pods only, in
// canonical order; the rest waits.
func TestS5SpecifiedDeleteReadyBudget(t *testing.T) {
	// |Pods| 4, R 3, U 1, toDel 3, T_unav 0: deleteReadyLimit = 1 + 1 - 0 = 2.
	w := newWorld(3, pod("b1", revB), pod("b2", revB, specifiedDelete), pod("b3", revB), pod("b4", revB)).
		atRest(revB).maxUnavail(1).podsToDelete("b4", "b3")
	res := w.plan(t)
	wantActs(t, res, "DeletePod b2 pvcs []", "DeletePod b3 pvcs []")
	for _, a := range res.Actions {
		if a.Reason != "specified delete" {
			t.Errorf("%s: reason %q", a.Pod, a.Reason)
		}
	}
	if res.Budget.DeleteReadyLimit != 2 {
		t.Errorf("deleteReadyLimit %d, want 2", res.Budget.DeleteReadyLimit)
	}
	wantNote(t, res, "specified delete of b4 waits: deleteReadyLimit is 2 (maxUnavailable 1 + 4 pods - 3 replicas - 0 unavailable)")
	wantNote(t, res, scaleChangedNote)
}

// S5: an unready specified-delete pod is deleted even with no budget at all;
// a ready one waits (scale-and-budgets 6.8).
func TestS5UnreadyNotCharged(t *testing.T) {
	w := newWorld(3, pod("b1", revB), pod("b2", revB, specifiedDelete), pod("b3", revB, specifiedDelete, notReady)).
		atRest(revB).maxUnavail(0)
	res := w.plan(t)
	wantActs(t, res, "DeletePod b3 pvcs []")
	wantNote(t, res, "specified delete of b2 waits: deleteReadyLimit is 0 (maxUnavailable 0 + 3 pods - 3 replicas - 0 unavailable)")
	wantNote(t, res, "the v1beta1 webhook would reject this CloneSet (maxUnavailable below 1; it ignores maxSurge, quirk B17); planning it anyway: such objects exist when created through v1alpha1 or when replicas changed through the scale subresource")
}

// S5 with a preDelete hook: the pod goes to PreparingDelete instead of being
// deleted; with markPodNotReady and the KruisePodReady gate the write marks it.
func TestS5SpecifiedDeleteHooked(t *testing.T) {
	w := newWorld(3, pod("b1", revB), pod("b2", revB), pod("b3", revB, specifiedDelete, hooked,
		func(p *model.Pod) {
			p.Spec.ReadinessGates = append(p.Spec.ReadinessGates, model.ConditionKruisePodReady)
		})).
		atRest(revB).maxUnavail(1).preDelete(true)
	res := w.plan(t)
	wantActs(t, res, "SetLifecycleState b3 Normal->PreparingDelete notReady=true")
	wantNote(t, res, scaleChangedNote)
}

// S6 waits while a specified-delete or PreparingDelete pod exists (example 8.9,
// last case).
func TestS6WaitsForNumToDelete(t *testing.T) {
	w := newWorld(2, pod("x1", revB, hooked), pod("x2", revB, hooked), pod("x3", revB, hooked, state(model.StatePreparingDelete))).
		atRest(revB).preDelete(true)
	res := w.plan(t)
	wantActs(t, res)
	if b := res.Budget; b.ScaleDown != 1 || b.DeleteReadyLimit != 1 {
		t.Errorf("budget %+v", b)
	}
	wantNote(t, res, "scale-in of 1 pod waits until 1 pod (specified-delete or PreparingDelete) are gone")
	wantNote(t, res, "1 pod in PreparingDelete still hooked by lifecycle.preDelete: waiting for the hook to be released")
}

// S6: scaleDown is split between old and updated pods and each group is
// ranked alone (example 8.5 and its variant).
func TestS6SplitsOldAndNew(t *testing.T) {
	w := newWorld(3, pod("a1", revA), pod("a2", revA), pod("a3", revA), pod("b1", revB), pod("b2", revB)).partition(2).maxUnavail(1)
	res := w.plan(t)
	wantActs(t, res, "DeletePod a1 pvcs []", "DeletePod b1 pvcs []")
	if b := res.Budget; b.ScaleDown != 2 || b.ScaleDownOldRevision != 1 || b.DeleteReadyLimit != 3 || b.UpdateNum != 0 {
		t.Errorf("budget %+v", b)
	}
	for _, a := range res.Actions {
		if a.Reason != "scale in" {
			t.Errorf("%s: reason %q", a.Pod, a.Reason)
		}
	}

	w = newWorld(3, pod("a1", revA), pod("a2", revA), pod("b1", revB), pod("b2", revB), pod("b3", revB)).partition(1).maxUnavail(1)
	res = w.plan(t)
	wantActs(t, res, "DeletePod a1 pvcs []", "DeletePod b1 pvcs []")

	// Inside a group the ranking decides: the not-ready b2 goes before b1.
	w = newWorld(3, pod("a1", revA), pod("a2", revA), pod("a3", revA), pod("b1", revB), pod("b2", revB, notReady)).partition(2).maxUnavail(1)
	res = w.plan(t)
	wantActs(t, res, "DeletePod a1 pvcs []", "DeletePod b2 pvcs []")

	// scaleDownOld >= scaleDown: every pod comes from the old group.
	w = newWorld(3, pod("a1", revA), pod("a2", revA), pod("a3", revA), pod("b1", revB), pod("b2", revB)).maxUnavail(1)
	res = w.plan(t)
	wantActs(t, res, "DeletePod a1 pvcs []", "DeletePod a2 pvcs []")
}

// S6 spends the ready budget in ranking order; ReadyForBudget ignores
// minReadySeconds (example 8.4).
func TestS6ReadyBudgetWithMinReadySeconds(t *testing.T) {
	w := newWorld(4, pod("b1", revB), pod("b2", revB), pod("b3", revB), pod("b4", revB),
		pod("f1", revB, readySince(5*time.Second)), pod("f2", revB, readySince(5*time.Second))).atRest(revB).minReady(30)
	w.s.PVCs = []*model.PVC{pvcOf("f1"), pvcOf("f2")}
	res := w.plan(t)
	wantActs(t, res, "DeletePod f1 pvcs [data-web-f1]")
	if b := res.Budget; b.ScaleDown != 2 || b.DeleteReadyLimit != 1 || b.MaxUnavailable != 1 {
		t.Errorf("budget %+v", b)
	}
	wantNote(t, res, "scale-in waits for f2: deleteReadyLimit is 1 because 2 pods are not yet available (maxUnavailable 1, minReadySeconds 30)")
}

// The deletion ranking of Rank puts unscheduled, unready and cheap pods first.
func TestRankForDeletion(t *testing.T) {
	w := newWorld(2,
		pod("r1", revB), pod("r2", revB, notReady), pod("r3", revB, unscheduled),
		pod("r4", revB, annotate(model.AnnotationDeletionCost, "-10")),
	).atRest(revB)
	r, err := rankNames(w, "deletion")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"r3 unscheduled", "r2 unavailable", "r4 deletionCost", "r1 last"}; !slices.Equal(r, want) {
		t.Errorf("ranking %q, want %q", r, want)
	}
}
