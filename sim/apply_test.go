package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/inplace"
	"github.com/clonecore/cloneset/model"
)

// planOf wraps actions into a plan whose status the cluster keeps as is.
func planOf(c *Cluster, acts ...model.Action) *clonesetcore.Result {
	p, _ := clonesetcore.Plan(c.Snapshot())
	p.Actions = acts
	p.Status.WriteSkipped = true
	return p
}

func applyOK(t *testing.T, c *Cluster, acts ...model.Action) ApplyReport {
	t.Helper()
	rep := c.Apply(planOf(c, acts...))
	for _, r := range rep.Results {
		if r.Err != "" || r.Skipped || r.Mismatch != "" {
			t.Fatalf("%s %s: err %q skipped %v mismatch %q", r.Action.Type, target(r.Action), r.Err, r.Skipped, r.Mismatch)
		}
	}
	return rep
}

func TestApplyCreatePod(t *testing.T) {
	scn := webScenario(webOptions{replicas: 1, vct: true, labels: map[string]string{"tier": "a"}})
	scn.Gates.CloneSetShortHash = true
	c, err := NewCluster(scn, DefaultConfig().World)
	if err != nil {
		t.Fatal(err)
	}
	rev := c.Revisions()[0].Name
	applyOK(t, c, model.Action{Type: model.ActionCreatePod, Pod: "web-abcde", InstanceID: "abcde", Revision: rev,
		LifecycleState: model.StatePreparingNormal, CreatePVCs: []string{"data-web-abcde"}})
	p := lookupPod(t, c, "web-abcde")
	want := map[string]string{
		"app": "web", "tier": "a",
		model.LabelRevisionHash:    model.ShortHash(rev), // CloneSetShortHash
		model.LabelPodTemplateHash: model.ShortHash(rev),
		model.LabelInstanceID:      "abcde",
		model.LabelLifecycleState:  model.StatePreparingNormal,
	}
	for k, v := range want {
		if p.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, p.Labels[k], v)
		}
	}
	if p.Annotations[model.AnnotationLifecycleTimestamp] != "2026-01-01T00:00:00Z" {
		t.Errorf("lifecycle timestamp %q", p.Annotations[model.AnnotationLifecycleTimestamp])
	}
	if !p.Spec.HasReadinessGate(model.ConditionInPlaceUpdateReady) || !p.Spec.HasReadinessGate(model.ConditionKruisePodReady) {
		t.Errorf("readiness gates %v", p.Spec.ReadinessGates)
	}
	if ref := model.ControllerRef(p.OwnerReferences); ref == nil || !ref.OwnedBy(c.cs) {
		t.Errorf("owner references %+v", p.OwnerReferences)
	}
	if len(p.Spec.Volumes) != 1 || p.Spec.Volumes[0] != "data" || p.Status.Phase != model.PodPending || p.Spec.NodeName != "" {
		t.Errorf("volumes %v, phase %s, node %q", p.Spec.Volumes, p.Status.Phase, p.Spec.NodeName)
	}
	claims := c.PVCs()
	if len(claims) != 1 || claims[0].Name != "data-web-abcde" || claims[0].Labels[model.LabelInstanceID] != "abcde" || claims[0].Labels["app"] != "web" {
		t.Fatalf("PVCs %+v", claims)
	}
	// The name is taken now; creating it again fails, and so does a later batch.
	rep := c.Apply(planOf(c,
		model.Action{Type: model.ActionCreatePod, Pod: "web-abcde", InstanceID: "abcde", Revision: rev, Batch: 0},
		model.Action{Type: model.ActionCreatePod, Pod: "web-fghij", InstanceID: "fghij", Revision: rev, Batch: 1},
		model.Action{Type: model.ActionUpdatePodsToDelete, Remove: []string{"nothing"}},
	))
	if !strings.Contains(rep.Results[0].Err, "already exists") || !rep.Results[1].Skipped || rep.Results[2].Err != "" || rep.Results[2].Skipped {
		t.Errorf("results %+v", rep.Results)
	}
	// The kubelet takes it from there; Ready waits for the InPlaceUpdateReady
	// gate, which only the controller's refresh step sets.
	c.AdvanceTo(t0.Add(time.Minute))
	p = lookupPod(t, c, "web-abcde")
	cr, rd := p.Condition(model.ConditionContainersReady), p.Condition(model.ConditionReady)
	if p.Status.Phase != model.PodRunning || p.Spec.NodeName == "" || cr.Status != "True" || rd.Status != "False" || rd.Reason != "ReadinessGatesNotReady" {
		t.Errorf("after a minute: phase %s node %q ContainersReady %+v Ready %+v", p.Status.Phase, p.Spec.NodeName, cr, rd)
	}
	applyOK(t, c, model.Action{Type: model.ActionPatchPod, Pod: "web-abcde", SetConditions: []model.ConditionPatch{{Type: model.ConditionInPlaceUpdateReady, Status: "True"}}})
	if p = lookupPod(t, c, "web-abcde"); !p.IsReady() || !p.ReadyTime().Equal(c.Now()) {
		t.Errorf("gate set: ready %v at %v", p.IsReady(), p.ReadyTime())
	}
}

func TestApplyDeleteAndPVCs(t *testing.T) {
	c := atRest(t, webOptions{replicas: 2, vct: true})
	pods := c.Pods()
	victim := pods[0]
	claim := "data-" + victim.Name
	rep := applyOK(t, c, model.Action{Type: model.ActionDeletePod, Pod: victim.Name, DeletePVCs: []string{claim}})
	if !rep.Changed {
		t.Error("a deletion is a change")
	}
	if p := lookupPod(t, c, victim.Name); p.DeletionTimestamp.IsZero() {
		t.Error("deleted pod is not terminating")
	}
	for _, v := range c.PVCs() {
		if v.Name == claim {
			t.Errorf("PVC %s not deleted", claim)
		}
	}
	// Deleting it again fails: it is terminating.
	if rep := c.Apply(planOf(c, model.Action{Type: model.ActionDeletePod, Pod: victim.Name})); !strings.Contains(rep.Results[0].Err, "terminating") {
		t.Errorf("second delete: %+v", rep.Results[0])
	}
	// Re-own the other pod's PVC to the terminating pod, then let it go: the
	// garbage collector takes the PVC with it.
	other := "data-" + pods[1].Name
	applyOK(t, c, model.Action{Type: model.ActionSetPVCOwner, PVC: other, Pod: victim.Name})
	for _, v := range c.PVCs() {
		if v.Name == other {
			if ref := model.ControllerRef(v.OwnerReferences); ref == nil || ref.Kind != "Pod" || ref.Name != victim.Name || len(v.OwnerReferences) != 1 {
				t.Errorf("owner references %+v", v.OwnerReferences)
			}
		}
	}
	c.AdvanceTo(c.Now().Add(time.Minute))
	if c.Pod(victim.Name) != nil || len(c.PVCs()) != 0 {
		t.Errorf("pod %v and PVCs %v should be gone", c.Pod(victim.Name), c.PVCs())
	}
	if rep := c.Apply(planOf(c, model.Action{Type: model.ActionDeletePVC, PVC: "nope"})); rep.Results[0].Err == "" {
		t.Error("deleting a missing PVC succeeded")
	}
}

func TestApplyLifecycleNotReadyPolicy(t *testing.T) {
	hook := &model.LifecycleHook{LabelsHandler: map[string]string{"example.io/x": "true"}, MarkPodNotReady: true}
	c := atRest(t, webOptions{replicas: 1, labels: map[string]string{"example.io/x": "true"},
		lifecycle: &model.Lifecycle{PreDelete: hook, InPlaceUpdate: hook}})
	name := c.Pods()[0].Name
	applyOK(t, c, model.Action{Type: model.ActionSetLifecycleState, Pod: name, From: model.StateNormal, To: model.StatePreparingUpdate, MarkPodNotReady: true})
	p := lookupPod(t, c, name)
	kc := p.Condition(model.ConditionKruisePodReady)
	if p.LifecycleState() != model.StatePreparingUpdate || kc == nil || kc.Status != "False" ||
		kc.Message != `[{"userAgent":"Lifecycle","key":"preUpdateHook"}]` || p.IsReady() {
		t.Fatalf("state %s KruisePodReady %+v ready %v", p.LifecycleState(), kc, p.IsReady())
	}
	// Entering Updated removes the key; the kubelet makes the pod Ready again.
	applyOK(t, c, model.Action{Type: model.ActionSetLifecycleState, Pod: name, From: model.StatePreparingUpdate, To: model.StateUpdated, MarkPodNotReady: true})
	p = lookupPod(t, c, name)
	if kc := p.Condition(model.ConditionKruisePodReady); kc.Status != "True" || kc.Message != "[]" || !p.IsReady() {
		t.Errorf("after Updated: %+v ready %v", kc, p.IsReady())
	}
	// T9 re-adds hook markers with the action's labels and finalizers.
	applyOK(t, c, model.Action{Type: model.ActionSetLifecycleState, Pod: name, From: model.StateUpdated, To: model.StatePreparingUpdate,
		MarkPodNotReady: true, SetLabels: map[string]string{"example.io/x": "true"}, AddFinalizers: []string{"example.io/f"}})
	p = lookupPod(t, c, name)
	if p.Finalizers[len(p.Finalizers)-1] != "example.io/f" || p.Labels["example.io/x"] != "true" {
		t.Errorf("markers: %v %v", p.Finalizers, p.Labels)
	}
	// A wrong From is a conflict.
	rep := c.Apply(planOf(c, model.Action{Type: model.ActionSetLifecycleState, Pod: name, From: model.StateNormal, To: model.StatePreparingDelete}))
	if !strings.Contains(rep.Results[0].Err, "is in state") {
		t.Errorf("conflict not reported: %+v", rep.Results[0])
	}
}

func TestApplyUpdateInPlace(t *testing.T) {
	for _, grace := range []int32{0, 7} {
		c := atRest(t, webOptions{replicas: 1, grace: grace})
		if _, err := c.Change(Change{Image: "web:v2", TemplateLabels: map[string]string{"tier": "b"}}); err != nil {
			t.Fatal(err)
		}
		revs := c.Revisions()
		if len(revs) != 1 {
			t.Fatalf("revisions %d", len(revs))
		}
		plan, _ := clonesetcore.Plan(c.Snapshot())
		c.Apply(&clonesetcore.Result{UpdateRevision: plan.UpdateRevision, Status: clonesetcore.Status{WriteSkipped: true}}) // revision bookkeeping only
		old := lookupPod(t, c, c.Pods()[0].Name)
		applyOK(t, c, model.Action{Type: model.ActionUpdatePodInPlace, Pod: old.Name, FromRevision: revs[0].Name, ToRevision: plan.UpdateRevision, GracePeriodSeconds: grace})
		p := lookupPod(t, c, old.Name)
		if p.LifecycleState() != model.StateUpdating || !p.InRevision(plan.UpdateRevision) || p.Labels[model.LabelPodTemplateHash] != model.ShortHash(plan.UpdateRevision) {
			t.Errorf("grace %d: labels %v", grace, p.Labels)
		}
		if cond := p.Condition(model.ConditionInPlaceUpdateReady); cond == nil || cond.Status != "False" || cond.Reason != "StartInPlaceUpdate" {
			t.Errorf("grace %d: InPlaceUpdateReady %+v", grace, cond)
		}
		st, ok, err := inplace.ParseState(p)
		if !ok || err != nil || st.Revision != plan.UpdateRevision || !st.UpdateImages || !st.UpdateTimestamp.Equal(c.Now().Truncate(time.Second)) {
			t.Fatalf("grace %d: state %+v %v %v", grace, st, ok, err)
		}
		if grace == 0 {
			if p.Spec.Containers[0].Image != "web:v2" || p.Labels["tier"] != "b" || st.LastContainerStatuses["main"].ImageID != imageID("web:v1") {
				t.Errorf("applied at once: image %s tier %q state %+v", p.Spec.Containers[0].Image, p.Labels["tier"], st)
			}
			continue
		}
		// With a grace period nothing of the template is applied yet.
		pending, ok, err := inplace.ParsePending(p)
		if !ok || err != nil || pending.GraceSeconds != grace || pending.ContainerImages["main"] != "web:v2" || p.Spec.Containers[0].Image != "web:v1" {
			t.Fatalf("pending %+v %v %v, image %s", pending, ok, err, p.Spec.Containers[0].Image)
		}
		// The planner's own PatchPod ends the grace period after 7 s.
		c.AdvanceTo(c.Now().Add(7 * time.Second))
		plan, _ = clonesetcore.Plan(c.Snapshot())
		var patch *model.Action
		for i, a := range plan.Actions {
			if a.Type == model.ActionPatchPod && a.Pod == p.Name {
				patch = &plan.Actions[i]
			}
		}
		if patch == nil {
			t.Fatalf("no PatchPod at the end of the grace period: %v", plan.Actions)
		}
		c.Apply(plan)
		p = lookupPod(t, c, p.Name)
		if p.Spec.Containers[0].Image != "web:v2" || p.Labels["tier"] != "b" || p.GraceValue() != "" {
			t.Errorf("after the grace period: image %s labels %v grace %q", p.Spec.Containers[0].Image, p.Labels, p.GraceValue())
		}
	}
}

func TestApplyRecreatePatchAndPodsToDelete(t *testing.T) {
	c := atRest(t, webOptions{replicas: 2})
	names := []string{c.Pods()[0].Name, c.Pods()[1].Name}
	if _, err := c.Change(Change{PodsToDelete: []string{names[1], "web-gone"}}); err != nil {
		t.Fatal(err)
	}
	gen := c.CloneSet().Generation
	applyOK(t, c,
		model.Action{Type: model.ActionRecreatePod, Pod: names[0]},
		model.Action{Type: model.ActionPatchPod, Pod: names[1], SetLabels: map[string]string{"x": "1"}, SetAnnotations: map[string]string{"y": "2"},
			SetConditions: []model.ConditionPatch{{Type: "Custom", Status: "True"}}},
		model.Action{Type: model.ActionUpdatePodsToDelete, Remove: []string{"web-gone"}},
	)
	if !lookupPod(t, c, names[0]).HasSpecifiedDeleteLabel() {
		t.Error("RecreatePod did not mark the pod")
	}
	p := lookupPod(t, c, names[1])
	if p.Labels["x"] != "1" || p.Annotations["y"] != "2" || p.Condition("Custom") == nil {
		t.Errorf("patch not applied: %v %v %v", p.Labels, p.Annotations, p.Status.Conditions)
	}
	cs := c.CloneSet()
	if strings.Join(cs.Spec.ScaleStrategy.PodsToDelete, ",") != names[1] || cs.Generation != gen+1 {
		t.Errorf("podsToDelete %v generation %d (was %d)", cs.Spec.ScaleStrategy.PodsToDelete, cs.Generation, gen)
	}
}

func TestApplyWritesStatus(t *testing.T) {
	c := atRest(t, webOptions{replicas: 2, pds: 60})
	cs := c.CloneSet()
	if cs.Status.Replicas != 2 || cs.Status.AvailableReplicas != 2 || cs.Status.ObservedGeneration != cs.Generation {
		t.Errorf("status %+v", cs.Status)
	}
	cond := cs.Status.Condition(model.ConditionProgressing)
	if cond == nil || cond.Reason != "CloneSetAvailable" || cond.LastUpdateTime.IsZero() {
		t.Errorf("Progressing %+v", cond)
	}
}

func TestHookControllerAndFinalizers(t *testing.T) {
	pre := &model.LifecycleHook{FinalizersHandler: []string{"example.io/ready"}}
	c := atRest(t, webOptions{replicas: 1, lifecycle: &model.Lifecycle{PreNormal: pre}})
	p := c.Pods()[0]
	if p.LifecycleState() != model.StateNormal || len(p.Finalizers) != 1 {
		t.Fatalf("preNormal hook not satisfied by the hook controller: %s %v", p.LifecycleState(), p.Finalizers)
	}
	// A deleted pod keeps its finalizer until the hook controller drops it.
	applyOK(t, c, model.Action{Type: model.ActionDeletePod, Pod: p.Name})
	c.AdvanceTo(c.Now().Add(time.Minute))
	if c.Pod(p.Name) != nil {
		t.Errorf("pod with a finalizer was never removed")
	}
	log := strings.Join(c.TakeLog(), "\n")
	if !strings.Contains(log, "removes finalizers") {
		t.Errorf("log: %s", log)
	}
}

func TestHooksDisabledStall(t *testing.T) {
	pre := &model.LifecycleHook{LabelsHandler: map[string]string{"example.io/ok": "yes"}}
	cfg := DefaultConfig()
	cfg.HooksDisabled = true
	res := mustRun(t, webScenario(webOptions{replicas: 2, lifecycle: &model.Lifecycle{PreNormal: pre}}), cfg)
	if res.Outcome != Stalled {
		t.Errorf("outcome %s, want stalled: nobody satisfies the preNormal hook", res.Outcome)
	}
	for _, p := range res.Final.Pods {
		if p.State != model.StatePreparingNormal {
			t.Errorf("pod %s in %s", p.Name, p.State)
		}
	}
}
