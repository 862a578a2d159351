package clonesetcore_test

// Update-phase rules (docs/spec/update-and-ordering.md sections 2 to 4), status and
// requeue (docs/spec/lifecycle-status-validation.md sections 2 and 3), driven through Plan.

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/model"
)

type clonesetcoreCondition = clonesetcore.Condition

const refreshChangedNote = "the refresh step changed pods: no pod is updated this round"

// One phase per round: a scale change leaves the pending update for the next
// round (scale-and-budgets 4.1 step 7).
func TestOnePhasePerRoundScale(t *testing.T) {
	res := newWorld(4, pod("a1", revA), pod("a2", revA), pod("a3", revA)).maxUnavail(2).plan(t)
	if len(ofType(res, model.ActionCreatePod)) != 1 || len(res.Actions) != 1 {
		t.Errorf("want only one CreatePod, got %q", acts(res))
	}
	if res.Budget.UpdateNum != 3 || res.Budget.UpdateMaxUnavailable != 1 {
		t.Errorf("the update phase had work (updateNum 3, updateMaxUnavailable 1), budget %+v", res.Budget)
	}
	wantNote(t, res, scaleChangedNote)
}

// One phase per round: refresh changes end the update phase (update-and-ordering
// example 3).
func TestOnePhasePerRoundRefresh(t *testing.T) {
	noHash := func(p *model.Pod) { delete(p.Labels, model.LabelPodTemplateHash) }
	w := newWorld(2, pod("a", revA, state(model.StatePreparingNormal)), pod("b", revA, noHash)).maxUnavail(2)
	res := w.plan(t)
	wantActs(t, res, "SetLifecycleState a PreparingNormal->Normal notReady=false", "PatchPod b labels map[pod-template-hash:1]")
	if res.Budget.UpdateNum != 2 {
		t.Errorf("updateNum %d, want 2", res.Budget.UpdateNum)
	}
	wantNote(t, res, refreshChangedNote)

	// Next round, nothing left to refresh: both pods are updated.
	w.s.Pods = []*model.Pod{pod("a", revA), pod("b", revA)}
	res = w.plan(t)
	wantActs(t, res, "RecreatePod a ->web-2", "RecreatePod b ->web-2")
	wantNoNoteWith(t, res, "refresh step changed")
}

// OnDelete: nothing is updated, and the plan says why only when pods wait.
func TestOnDelete(t *testing.T) {
	res := newWorld(3, pod("a1", revA), pod("a2", revA), pod("a3", revA)).onDelete().plan(t)
	wantActs(t, res)
	wantNote(t, res, "updateStrategy OnDelete: pods are updated only when someone deletes them")
	if res.Status.ExpectedUpdatedReplicas != 3 {
		t.Errorf("expectedUpdatedReplicas %d, want spec.replicas 3", res.Status.ExpectedUpdatedReplicas)
	}
	res = newWorld(1, pod("b1", revB)).atRest(revB).onDelete().plan(t)
	wantNoNoteWith(t, res, "OnDelete")
}

// Paused: the refresh runs, the rolling update does not.
func TestPaused(t *testing.T) {
	w := newWorld(3, pod("a1", revA), pod("a2", revA, state(model.StatePreparingNormal)), pod("b1", revB)).maxUnavail(3)
	w.ru().Paused = true
	res := w.plan(t)
	wantActs(t, res, "SetLifecycleState a2 PreparingNormal->Normal notReady=false")

	w.s.Pods[1] = pod("a2", revA)
	res = w.plan(t)
	wantActs(t, res)
	wantNote(t, res, "update paused (rollingUpdate.paused): 2 pods wait for update")
}

// Partition: pods beyond the partition are updated in update order; at the
// partition nothing moves and the plan says why.
func TestPartition(t *testing.T) {
	w := newWorld(3, pod("a1", revA, createdAgo(3*time.Hour)), pod("a2", revA, createdAgo(2*time.Hour)), pod("a3", revA, createdAgo(time.Hour))).
		partition(1).maxUnavail(3)
	res := w.plan(t)
	// Default order: newer pods first.
	wantActs(t, res, "RecreatePod a3 ->web-2", "RecreatePod a2 ->web-2")
	wantNote(t, res, "pod a3 is marked apps.kruise.io/specified-delete to be recreated at web-2 (policy ReCreate)")
	if res.Budget.UpdateNum != 2 || res.Status.ExpectedUpdatedReplicas != 2 {
		t.Errorf("updateNum %d, expectedUpdatedReplicas %d; want 2, 2", res.Budget.UpdateNum, res.Status.ExpectedUpdatedReplicas)
	}

	res = newWorld(4, pod("a1", revA), pod("a2", revA), pod("b1", revB), pod("b2", revB)).partition(2).plan(t)
	wantActs(t, res)
	wantNote(t, res, "partition 2 keeps 2 pods at old revisions")
}

// Roll-back with CloneSetPartitionRollback (scale-and-budgets example 8.8): two
// pods of the update revision go back to the current revision, in place
// (update-and-ordering 2.4: upstream hands currentRevision to its in-place
// path; conformance plan/0092 and plan/0109).
func TestRollbackWithGate(t *testing.T) {
	build := func(gate bool) *world {
		w := newWorld(5, pod("a1", revA), pod("b1", revB), pod("b2", revB), pod("b3", revB), pod("b4", revB)).
			partition(3).maxUnavail(2).policy(model.PolicyInPlaceIfPossible)
		w.s.Gates.CloneSetPartitionRollback = gate
		return w
	}
	res := build(true).plan(t)
	if res.Budget.UpdateNum != -2 || res.Budget.UpdateMaxUnavailable != 2 {
		t.Errorf("budget %+v, want updateNum -2, updateMaxUnavailable 2", res.Budget)
	}
	wantActs(t, res, "UpdatePodInPlace b1 web-2->web-1 grace 0", "UpdatePodInPlace b2 web-2->web-1 grace 0")
	wantNote(t, res, "rolling back 2 pods to the current revision web-1 (CloneSetPartitionRollback)")
	r, _ := rankNames(build(true), "update")
	if want := []string{"b1 name", "b2 name", "b3 name", "b4 last"}; !slices.Equal(r, want) {
		t.Errorf("roll-back candidates %q, want %q (a1 is at the target)", r, want)
	}

	res = build(false).plan(t)
	wantActs(t, res)
	if res.Budget.UpdateNum != 0 {
		t.Errorf("gate off: updateNum %d, want 0", res.Budget.UpdateNum)
	}
	wantNoNoteWith(t, res, "rolling back")
}

// In a ReCreate roll-back the target is the current revision
// (update-and-ordering 2.4: T = C): RecreatePod and its note name it.
func TestRollbackRecreateTargetsCurrentRevision(t *testing.T) {
	w := newWorld(5, pod("a1", revA), pod("b1", revB), pod("b2", revB), pod("b3", revB), pod("b4", revB)).partition(3).maxUnavail(2)
	w.s.Gates.CloneSetPartitionRollback = true
	res := w.plan(t)
	wantActs(t, res, "RecreatePod b1 ->web-1", "RecreatePod b2 ->web-1")
	wantNote(t, res, "pod b1 is marked apps.kruise.io/specified-delete to be recreated at web-1 (policy ReCreate)")
}

// After a ReCreate roll-back deleted two pods of the update revision, their
// replacements are created at the current revision (scaleUpOldRevision 2): the
// revision RecreatePod names.
func TestRollbackRecreateReplacementsAtCurrentRevision(t *testing.T) {
	w := newWorld(5, pod("a1", revA), pod("b3", revB), pod("b4", revB)).partition(3).maxUnavail(2)
	w.s.Gates.CloneSetPartitionRollback = true
	res := w.plan(t)
	c := ofType(res, model.ActionCreatePod)
	if len(c) != 2 || c[0].Revision != revA || c[1].Revision != revA {
		t.Errorf("want two CreatePod at %s, got %q", revA, acts(res))
	}
}

// The budget loop stops at the first candidate that does not fit, it never
// skips ahead (update-and-ordering 3, example 5).
func TestUpdateBudgetStops(t *testing.T) {
	pods := func(n1Ready bool) []*model.Pod {
		n1 := pod("n1", revB)
		if !n1Ready {
			notReady(n1)
		}
		return []*model.Pod{
			pod("o1", revA, createdAgo(4*time.Hour)), pod("o2", revA, createdAgo(3*time.Hour)),
			pod("o3", revA, createdAgo(2*time.Hour)), pod("o4", revA, createdAgo(time.Hour), notReady), n1,
		}
	}
	res := newWorld(5, pods(false)...).maxUnavail(2).plan(t)
	if res.Budget.UpdateNum != 4 || res.Budget.UpdateMaxUnavailable != 2 {
		t.Errorf("budget %+v", res.Budget)
	}
	wantActs(t, res, "RecreatePod o4 ->web-2")
	wantNote(t, res, "update budget used up: 2 of updateMaxUnavailable 2 taken by pods already unavailable at web-2 or started this round; 3 pods wait")

	w := newWorld(5, pods(true)...).maxUnavail(2)
	r, _ := rankNames(w, "update")
	if want := []string{"o4 notReady", "o3 creationTime", "o2 creationTime", "o1 last"}; !slices.Equal(r, want) {
		t.Errorf("update order %q, want %q", r, want)
	}
	res = w.plan(t)
	wantActs(t, res, "RecreatePod o4 ->web-2", "RecreatePod o3 ->web-2")
	wantNote(t, res, "update budget used up: 2 of updateMaxUnavailable 2 taken by pods already unavailable at web-2 or started this round; 2 pods wait")
}

// Surge budget (update-and-ordering example 6): an unavailable surge pod takes
// the whole budget; once it is available, one old pod per round.
func TestUpdateBudgetSurge(t *testing.T) {
	pods := func(s1Ready bool) []*model.Pod {
		s1 := pod("s1", revB)
		if !s1Ready {
			notReady(s1)
		}
		return []*model.Pod{pod("o1", revA), pod("o2", revA), pod("o3", revA), pod("o4", revA), s1}
	}
	res := newWorld(4, pods(false)...).maxSurge(1).maxUnavail(0).plan(t)
	if b := res.Budget; b.UpdateNum != 3 || b.UpdateMaxUnavailable != 1 || b.UseSurge != 1 || b.ScaleUp != 0 {
		t.Errorf("budget %+v", b)
	}
	wantActs(t, res)
	wantNote(t, res, "update budget used up: 1 of updateMaxUnavailable 1 taken by pods already unavailable at web-2 or started this round; 3 pods wait")

	res = newWorld(4, pods(true)...).maxSurge(1).maxUnavail(0).plan(t)
	wantActs(t, res, "RecreatePod o1 ->web-2")
	wantNote(t, res, "update budget used up: 1 of updateMaxUnavailable 1 taken by pods already unavailable at web-2 or started this round; 2 pods wait")
}

// Rule 3.2 of the budget loop: available candidates also count against the
// global unavailability (a draining pod holds the budget).
func TestUpdateBudgetGlobalUnavailability(t *testing.T) {
	w := newWorld(4, pod("o1", revA), pod("o2", revA), pod("o3", revA), pod("d1", revA, hooked, state(model.StatePreparingDelete))).
		maxUnavail(1).preDelete(true) // markPodNotReady: the pre-deletion is not cancelled
	res := w.plan(t)
	wantActs(t, res)
	wantNote(t, res, "update budget used up: 1 pod unavailable, updateMaxUnavailable 1; 3 pods wait")
	wantNote(t, res, "1 pod in PreparingDelete still hooked by lifecycle.preDelete: waiting for the hook to be released")
}

// A PreparingDelete pod is never an update candidate.
func TestPreparingDeleteNotUpdated(t *testing.T) {
	w := newWorld(3, pod("a1", revA, hooked, state(model.StatePreparingDelete)), pod("a2", revA), pod("a3", revA)).
		maxUnavail(3).preDelete(true)
	res := w.plan(t)
	wantActs(t, res, "RecreatePod a2 ->web-2", "RecreatePod a3 ->web-2")
	r, _ := rankNames(w, "update")
	if slices.ContainsFunc(r, func(s string) bool { return strings.HasPrefix(s, "a1 ") }) {
		t.Errorf("a PreparingDelete pod is an update candidate: %q", r)
	}
}

// Update budget <= 0: nothing is updated and the plan says why, with the
// under-replication quirk when pods are missing.
func TestUpdateBudgetNotPositive(t *testing.T) {
	res := newWorld(3, pod("a1", revA), pod("a2", revA), pod("a3", revA)).maxUnavail(0).plan(t)
	wantActs(t, res)
	wantNote(t, res, "update waits: updateMaxUnavailable is 0 (maxUnavailable 0 + 3 pods - 3 replicas)")

	w := newWorld(4, pod("a1", revA), pod("a2", revA), pod("a3", revA)).maxUnavail(1)
	w.cs.Spec.ScaleStrategy.MaxUnavailable = intv(0)
	res = w.plan(t)
	wantActs(t, res)
	wantNote(t, res, "scale-out of 1 pod waits: no creation allowed this round; nothing is deleted while pods are missing")
	wantNote(t, res, "update waits: updateMaxUnavailable is 0 (maxUnavailable 1 + 3 pods - 4 replicas); upstream stalls silently while under-replicated (quirk: the update budget goes negative)")
}

// Candidates (update-and-ordering example 4): PreparingDelete pods never, pods
// in a grace period not (unless Updated), other revisions yes; in a roll-back
// only pods of the update revision.
func TestCandidates(t *testing.T) {
	grace := annotate(model.AnnotationInPlaceUpdateGrace, `{"revision":"web-2","graceSeconds":10}`)
	w := newWorld(6,
		pod("p1", revA), pod("p2", revA, state(model.StatePreparingDelete)), pod("p3", revA, grace),
		pod("p4", revC), pod("p5", revA, state(model.StateUpdated), grace), pod("p6", revB),
	).target(revB).maxUnavail(6)
	r, _ := rankNames(w, "update")
	names := make([]string, len(r))
	for i, x := range r {
		names[i], _, _ = strings.Cut(x, " ")
	}
	slices.Sort(names)
	if want := []string{"p1", "p4", "p5"}; !slices.Equal(names, want) {
		t.Errorf("forward candidates %v, want %v", names, want)
	}

	w.s.Gates.CloneSetPartitionRollback = true
	w.partition(6)
	r, _ = rankNames(w, "update")
	if want := []string{"p6 last"}; !slices.Equal(r, want) {
		t.Errorf("roll-back candidates %q, want %q", r, want)
	}
}

// Order priority: pods without any orderedKey label are updated first, a quirk
// the plan names (update-and-ordering 6.2, 11.1).
func TestOrderPriorityUnlabelledFirst(t *testing.T) {
	w := newWorld(3, pod("a1", revA, label("order", "1")), pod("a2", revA), pod("a3", revA, label("order", "2"))).maxUnavail(1)
	w.ru().PriorityStrategy = &model.UpdatePriorityStrategy{OrderPriority: []model.UpdatePriorityOrderTerm{{OrderedKey: "order"}}}
	res := w.plan(t)
	wantActs(t, res, "RecreatePod a2 ->web-2")
	wantNote(t, res, "order priority: pods without any orderedKey label (a2) are updated before every labelled pod (quirk of the controller's code, update-and-ordering 11.1)")

	// Every candidate labelled: no note.
	w.s.Pods[1] = pod("a2", revA, label("order", "3"))
	res = w.plan(t)
	wantNoNoteWith(t, res, "order priority")
}

// A pod in a grace period is not updated again; the plan names it.
func TestGraceCandidateNote(t *testing.T) {
	grace := annotate(model.AnnotationInPlaceUpdateGrace, `{"revision":"web-2","graceSeconds":10}`)
	w := newWorld(2, pod("p1", revA), pod("p3", revA, grace)).maxUnavail(2)
	res := w.plan(t)
	if rc := ofType(res, model.ActionRecreatePod); len(rc) != 1 || rc[0].Pod != "p1" {
		t.Errorf("want p1 recreated only, got %q", acts(res))
	}
	wantNote(t, res, "in an in-place grace period, not updated again now: [p3]")
}

// InPlaceOnly with a change that cannot be made in place: the loop stops at
// the first pod, FailedUpdate is set, and R2 is not requested.
func TestInPlaceOnlyFailedUpdate(t *testing.T) {
	build := func(policy string) *world {
		return newWorld(3, pod("a1", revA), pod("a2", revA), pod("c1", revC, readySince(5*time.Second))).
			target(revC).policy(policy).maxUnavail(2).minReady(10)
	}
	res := build(model.PolicyInPlaceOnly).plan(t)
	wantActs(t, res)
	msg := "find Pod a1 update strategy is InPlaceOnly but can not update in-place"
	wantNote(t, res, "the update loop stops: "+msg+" (FailedUpdate)")
	wantNote(t, res, "FailedScale/FailedUpdate conditions are added once and never updated by upstream; they are persisted only when another status field changes (quirk, LSV 8.8)")
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.HasPrefix(n, "InPlaceOnly: pod a1 cannot be updated in place: ") }) {
		t.Errorf("no note explains why a1 cannot be updated in place: %q", res.Notes)
	}
	i := slices.IndexFunc(res.Status.Conditions, func(c clonesetcoreCondition) bool { return c.Type == model.ConditionFailedUpdate })
	if i < 0 {
		t.Fatalf("no FailedUpdate condition: %+v", res.Status.Conditions)
	}
	if c := res.Status.Conditions[i]; c.Status != "True" || c.Message != msg || c.Reason != "" || c.LastTransitionTime != "2026-01-01T12:00:00Z" {
		t.Errorf("FailedUpdate condition %+v", c)
	}
	if res.RequeueAfterSeconds != 0 {
		t.Errorf("requeue %v after an update error, want none (R2 is skipped)", res.RequeueAfterSeconds)
	}

	// An existing FailedUpdate condition is never rewritten (LSV 2.5).
	w := build(model.PolicyInPlaceOnly)
	w.cs.Status.Conditions = []model.CloneSetCondition{{Type: model.ConditionFailedUpdate, Status: "True", Message: "earlier failure", LastTransitionTime: t0.Add(-time.Hour)}}
	res = w.plan(t)
	if c := res.Status.Conditions; len(c) != 1 || c[0].Message != "earlier failure" || c[0].LastTransitionTime != "2026-01-01T11:00:00Z" {
		t.Errorf("conditions %+v, want the earlier FailedUpdate unchanged", c)
	}

	// The same world with InPlaceIfPossible recreates a1 and asks for R2.
	res = build(model.PolicyInPlaceIfPossible).plan(t)
	wantActs(t, res, "RecreatePod a1 ->web-3")
	if res.RequeueAfterSeconds != 10 {
		t.Errorf("requeue %v, want minReadySeconds 10", res.RequeueAfterSeconds)
	}
}

// An unknown lifecycle state is named, counts as unavailable, and fails an
// in-place update (T-ERR).
func TestUnknownLifecycleState(t *testing.T) {
	res := newWorld(2, pod("a1", revA, state("Weird")), pod("a2", revA)).policy(model.PolicyInPlaceIfPossible).maxUnavail(2).plan(t)
	wantNote(t, res, `pod a1 has the unknown lifecycle state "Weird": it counts as unavailable and cannot be updated in place (as upstream)`)
	wantNote(t, res, "the update loop stops: not allowed to in-place update pod a1 in state Weird (FailedUpdate)")
	if res.Status.AvailableReplicas != 1 {
		t.Errorf("availableReplicas %d, want 1", res.Status.AvailableReplicas)
	}
}

// A malformed in-place state annotation aborts the update phase (FailedUpdate).
func TestRefreshError(t *testing.T) {
	res := newWorld(2, pod("a1", revA, annotate(model.AnnotationInPlaceUpdateState, "{bad")), pod("a2", revA)).maxUnavail(2).plan(t)
	wantActs(t, res)
	ok := slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.HasPrefix(n, "pod a1: ") && strings.Contains(n, "unparsable in-place update state annotation") &&
			strings.HasSuffix(n, ": the update phase aborts (FailedUpdate)")
	})
	if !ok {
		t.Errorf("no refresh-abort note: %q", res.Notes)
	}
	if !slices.ContainsFunc(res.Status.Conditions, func(c clonesetcoreCondition) bool { return c.Type == model.ConditionFailedUpdate }) {
		t.Errorf("no FailedUpdate condition")
	}
}

// In place with a grace period: UpdatePodInPlace carries it and R4 asks for a
// requeue after it.
func TestInPlaceWithGraceR4(t *testing.T) {
	res := newWorld(2, pod("a1", revA), pod("b1", revB)).grace(10).maxUnavail(1).plan(t)
	wantActs(t, res, "UpdatePodInPlace a1 web-1->web-2 grace 10")
	if !slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.HasPrefix(n, "pod a1 (Normal) is updated in place from web-1 to web-2: ")
	}) {
		t.Errorf("no note for the in-place update: %q", res.Notes)
	}
	if res.RequeueAfterSeconds != 10 {
		t.Errorf("requeue %v, want 10 (R4)", res.RequeueAfterSeconds)
	}
}

// graceState returns the annotations of a pod whose in-place update to revB
// started ago and has a 10 s grace period.
func graceState(ago time.Duration) podOpt {
	return func(p *model.Pod) {
		p.Annotations[model.AnnotationInPlaceUpdateState] = fmt.Sprintf(`{"revision":"web-2","updateTimestamp":%q,"lastContainerStatuses":{"main":{"imageID":"img@sha256:1"}},"updateImages":true}`,
			t0.Add(-ago).Format(time.RFC3339))
		p.Annotations[model.AnnotationInPlaceUpdateGrace] = `{"revision":"web-2","containerImages":{"main":"img:v2"},"graceSeconds":10}`
	}
}

// Requeue: R1 (progress deadline), R2 (minReadySeconds, the full value), R3
// (grace remaining), R4 (grace started); the smallest positive request wins.
func TestRequeue(t *testing.T) {
	t.Run("R1", func(t *testing.T) {
		w := newWorld(3, pod("a1", revA), pod("a2", revA), pod("a3", revA)).maxUnavail(1)
		w.cs.Spec.ProgressDeadlineSeconds = ptr(int32(600))
		res := w.plan(t)
		if res.RequeueAfterSeconds != 601 {
			t.Errorf("requeue %v, want 600 + 1", res.RequeueAfterSeconds)
		}
		i := slices.IndexFunc(res.Status.Conditions, func(c clonesetcoreCondition) bool { return c.Type == model.ConditionProgressing })
		if i < 0 || res.Status.Conditions[i].Reason != "CloneSetUpdated" {
			t.Errorf("conditions %+v", res.Status.Conditions)
		}
	})
	t.Run("R2", func(t *testing.T) {
		res := newWorld(2, pod("b1", revB), pod("b2", revB, readySince(5*time.Second))).atRest(revB).minReady(30).plan(t)
		if res.RequeueAfterSeconds != 30 {
			t.Errorf("requeue %v, want the full minReadySeconds 30", res.RequeueAfterSeconds)
		}
		wantNote(t, res, "requeue after minReadySeconds 30s (upstream uses the full value; the next pod becomes available at 2026-01-01T12:00:25Z)")
	})
	t.Run("R3", func(t *testing.T) {
		res := newWorld(2, pod("b1", revB, state(model.StateUpdating), graceState(3*time.Second)), pod("b2", revB)).atRest(revB).grace(10).plan(t)
		if res.RequeueAfterSeconds != 7 {
			t.Errorf("requeue %v, want the 7 s left of the grace period", res.RequeueAfterSeconds)
		}
		wantNote(t, res, "pod b1 waits: in-place update grace period, 7s left")
	})
	t.Run("R3 over", func(t *testing.T) {
		res := newWorld(2, pod("b1", revB, state(model.StateUpdating), graceState(30*time.Second)), pod("b2", revB)).atRest(revB).grace(10).plan(t)
		if p := ofType(res, model.ActionPatchPod); len(p) != 1 || p[0].Pod != "b1" || !slices.Contains(p[0].RemoveAnnotations, model.AnnotationInPlaceUpdateGrace) {
			t.Errorf("want the pending update applied to b1, got %q", acts(res))
		}
		if res.RequeueAfterSeconds != 0 {
			t.Errorf("requeue %v, want none", res.RequeueAfterSeconds)
		}
	})
	t.Run("smallest R3 over R2", func(t *testing.T) {
		res := newWorld(3, pod("b1", revB, state(model.StateUpdating), graceState(3*time.Second)), pod("b2", revB),
			pod("b3", revB, readySince(5*time.Second))).atRest(revB).grace(10).minReady(30).plan(t)
		if res.RequeueAfterSeconds != 7 {
			t.Errorf("requeue %v, want min(7, 30)", res.RequeueAfterSeconds)
		}
	})
	t.Run("smallest R4 over R1 and R2", func(t *testing.T) {
		w := newWorld(3, pod("a1", revA), pod("a2", revA), pod("b3", revB, readySince(5*time.Second))).grace(12).maxUnavail(2).minReady(30)
		w.cs.Spec.ProgressDeadlineSeconds = ptr(int32(600))
		res := w.plan(t)
		if len(ofType(res, model.ActionUpdatePodInPlace)) == 0 {
			t.Fatalf("no in-place update: %q %q", acts(res), res.Notes)
		}
		if res.RequeueAfterSeconds != 12 {
			t.Errorf("requeue %v, want min(601, 30, 12)", res.RequeueAfterSeconds)
		}
	})
}

// Status: counters over the observed pods and currentRevision advancement
// (LSV 2.2, 2.3).
func TestStatusAndCurrentRevision(t *testing.T) {
	res := newWorld(3, pod("b1", revB), pod("b2", revB, notReady), pod("b3", revB, readySince(time.Second))).minReady(10).plan(t)
	st := res.Status
	if st.Replicas != 3 || st.ReadyReplicas != 2 || st.AvailableReplicas != 1 || st.UpdatedReplicas != 3 ||
		st.UpdatedReadyReplicas != 2 || st.UpdatedAvailableReplicas != 1 || st.ExpectedUpdatedReplicas != 3 {
		t.Errorf("status %+v", st)
	}
	if st.CurrentRevision != revB || st.UpdateRevision != revB || st.ObservedGeneration != 2 || st.LabelSelector != "app=web" {
		t.Errorf("status %+v", st)
	}
	if res.CurrentRevision != revA {
		t.Errorf("plan currentRevision %s, want the round's %s", res.CurrentRevision, revA)
	}
	wantNote(t, res, "every pod is at web-2: currentRevision advances to it")

	// Not every replica exists yet: no advancement.
	res = newWorld(3, pod("b1", revB), pod("b2", revB)).maxUnavail(1).plan(t)
	if res.Status.CurrentRevision != revA {
		t.Errorf("currentRevision %s, want %s (2 of 3 replicas)", res.Status.CurrentRevision, revA)
	}
	wantNoNoteWith(t, res, "currentRevision advances")
}

// podsToDelete truncation (scale-and-budgets 6.7): names of pods that are not
// observed are dropped after the status; a pod deleted this round stays listed.
func TestPodsToDeleteTruncation(t *testing.T) {
	w := newWorld(3, pod("b1", revB), pod("b2", revB), pod("b3", revB), pod("b9", revB, terminating)).
		atRest(revB).maxUnavail(1).podsToDelete("ghost", "b1", "b9")
	res := w.plan(t)
	wantActs(t, res, "DeletePod b1 pvcs []", "UpdatePodsToDelete remove [ghost b9]")
	if a := res.Actions[1]; a.Reason == "" {
		t.Errorf("UpdatePodsToDelete without a reason")
	}
	res = newWorld(1, pod("b1", revB)).atRest(revB).podsToDelete().plan(t)
	if len(ofType(res, model.ActionUpdatePodsToDelete)) != 0 {
		t.Errorf("truncation with an empty list: %q", acts(res))
	}
}
