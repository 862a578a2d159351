package pvc

import (
	"strings"
	"testing"

	"github.com/clonecore/cloneset/model"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// These tests turn the user documentation into checks: the six reminders of
// "Support PVCs" (cloneset-doc-en.md) and the "PVC 复用行为" (PVC reuse
// behavior) section of the v1beta1 page (cloneset-doc-zh-v1beta1.md). Every
// subtest name quotes the sentence it checks.

// loaded returns the CloneSet "web" (claim templates data and logs) as the
// manifest loader fills it for a document of the given API version whose
// scaleStrategy sets the reuse field (disablePVCReuse for v1alpha1,
// enablePVCReuse for v1beta1) to *field, or leaves it absent when field is nil:
// v1alpha1 converts with enablePVCReuse = NOT disablePVCReuse (LSV 5.2, field
// default false); v1beta1 defaults enablePVCReuse to false (LSV 4.1).
func loaded(apiVersion string, field *bool) *model.CloneSet {
	cs := newCS("web", specUID, false, "data", "logs")
	cs.APIVersion = apiVersion
	set := field != nil && *field
	switch apiVersion {
	case model.APIVersionV1alpha1:
		cs.V1alpha1 = &model.V1alpha1Fields{DisablePVCReuse: set}
		cs.Spec.ScaleStrategy.EnablePVCReuse = !set
	default:
		cs.Spec.ScaleStrategy.EnablePVCReuse = set
	}
	return cs
}

func ptr(b bool) *bool { return &b }

// afterManualDeletion is the situation the docs describe: pod web-bbbbb is
// running; pod web-ccccc was deleted by someone else and is fully gone; both
// ids still have their data and logs PVCs. One pod is missing (n = 1).
func afterManualDeletion(cs *model.CloneSet) world {
	return world{cs: cs,
		pods: []*model.Pod{mkPod(cs, "bbbbb")},
		pvcs: []*model.PVC{
			mkClaim(cs, "data", "bbbbb"), mkClaim(cs, "logs", "bbbbb"),
			mkClaim(cs, "data", "ccccc"), mkClaim(cs, "logs", "ccccc"),
		},
	}
}

// checkReused asserts that the round recreates web-ccccc on its old PVCs.
func checkReused(t *testing.T, cs *model.CloneSet, r round) {
	t.Helper()
	if len(r.Actions) != 0 {
		t.Errorf("clean-up touched PVCs: %v", r.Actions)
	}
	want := []Allocation{{ID: "ccccc", Reused: true}}
	if diff := cmp.Diff(want, r.Allocs); diff != "" {
		t.Fatalf("allocation (-want +got):\n%s", diff)
	}
	if got := PodName(cs, "ccccc"); got != "web-ccccc" {
		t.Errorf("pod name %q", got)
	}
	if diff := cmp.Diff([]string{"data-web-ccccc", "logs-web-ccccc"}, r.Reuse["ccccc"]); diff != "" {
		t.Errorf("reusePVCs (-want +got):\n%s", diff)
	}
	if len(r.Create["ccccc"]) != 0 {
		t.Errorf("createPVCs %v", r.Create["ccccc"])
	}
}

// checkNotReused asserts that the round deletes the PVCs of web-ccccc and
// creates a pod with a new id and new PVCs.
func checkNotReused(t *testing.T, cs *model.CloneSet, r round) {
	t.Helper()
	want := []model.Action{
		del("data-web-ccccc", rNoPod("ccccc")),
		del("logs-web-ccccc", rNoPod("ccccc")),
	}
	if diff := cmp.Diff(want, r.Actions); diff != "" {
		t.Errorf("clean-up (-want +got):\n%s", diff)
	}
	if len(r.Allocs) != 1 || r.Allocs[0].Reused || r.Allocs[0].ID == "ccccc" {
		t.Fatalf("allocation %+v, want one new id", r.Allocs)
	}
	id := r.Allocs[0].ID
	if diff := cmp.Diff([]string{"data-web-" + id, "logs-web-" + id}, r.Create[id]); diff != "" {
		t.Errorf("createPVCs (-want +got):\n%s", diff)
	}
	if len(r.Reuse[id]) != 0 {
		t.Errorf("reusePVCs %v", r.Reuse[id])
	}
}

func TestDocSupportPVCs(t *testing.T) {
	t.Run("Each PVC created by CloneSet has an owner reference. So when a CloneSet has been deleted, its PVCs will be cascading deleted.", func(t *testing.T) {
		for _, reuse := range []bool{false, true} {
			cs := newCS("web", specUID, reuse, "data", "logs")
			for _, tmpl := range cs.Spec.VolumeClaimTemplates {
				c := NewClaim(cs, &tmpl, "bbbbb")
				ref := model.ControllerRef(c.OwnerReferences)
				if ref == nil || ref.Kind != "CloneSet" || ref.UID != specUID || ref.Name != "web" || ref.APIVersion != model.APIVersionV1beta1 {
					t.Fatalf("%s: controller reference %+v", c.Name, ref)
				}
				if !IsOwnedBy(c, cs) {
					t.Errorf("%s is not owned by the CloneSet", c.Name)
				}
				if diff := cmp.Diff([]string{c.Name}, names(Owned(cs, []*model.PVC{c}))); diff != "" {
					t.Errorf("Owned: %s", diff)
				}
			}
		}
		// While the CloneSet is being deleted, the round's clean-up still runs and
		// the owner references are left for the garbage collector.
		cs := newCS("web", specUID, false, "data")
		cs.DeletionTimestamp = t0
		w := world{cs: cs, pods: []*model.Pod{mkPod(cs, "bbbbb")}, pvcs: []*model.PVC{mkClaim(cs, "data", "bbbbb")}}
		if r := w.round(0); len(r.Actions) != 0 || len(r.V) != 1 {
			t.Errorf("deleting CloneSet: V %v actions %v", r.V, r.Actions)
		}
	})

	t.Run(`Each Pod and PVC created by CloneSet has a "apps.kruise.io/cloneset-instance-id" label key. The associated Pod and PVC will have the same instance-id. They use the same string as label value which is composed of a unique instance-id as suffix of the CloneSet name.`, func(t *testing.T) {
		cs := newCS("web", specUID, false, "data", "logs")
		w := world{cs: cs, pods: []*model.Pod{mkPod(cs, GenerateID(specSeed, 0))}}
		r := w.round(3)
		if len(r.Allocs) != 3 {
			t.Fatalf("allocations %+v", r.Allocs)
		}
		seen := map[string]bool{GenerateID(specSeed, 0): true}
		for _, a := range r.Allocs {
			if seen[a.ID] {
				t.Errorf("id %q not unique", a.ID)
			}
			seen[a.ID] = true
			podName := PodName(cs, a.ID)
			if podName != "web-"+a.ID {
				t.Errorf("pod name %q", podName)
			}
			pod := mkPodNamed(cs, podName, a.ID)
			var made []*model.PVC
			for _, tmpl := range cs.Spec.VolumeClaimTemplates {
				c := NewClaim(cs, &tmpl, a.ID)
				if c.Labels[model.LabelInstanceID] != pod.Labels[model.LabelInstanceID] {
					t.Errorf("%s: label %q, pod label %q", c.Name, c.Labels[model.LabelInstanceID], a.ID)
				}
				if !strings.HasSuffix(c.Name, "-"+podName) {
					t.Errorf("PVC %s does not end with the pod name %s", c.Name, podName)
				}
				made = append(made, c)
			}
			if diff := cmp.Diff(r.Create[a.ID], names(made)); diff != "" {
				t.Errorf("createPVCs vs built claims: %s", diff)
			}
			if diff := cmp.Diff([]string{"data-" + podName, "logs-" + podName}, NewIndex(made).ClaimsOfPod(pod)); diff != "" {
				t.Errorf("pod and PVCs not associated: %s", diff)
			}
		}
	})

	t.Run("When a Pod has been deleted by CloneSet controller, all PVCs related to it will be deleted together.", func(t *testing.T) {
		for _, reuse := range []bool{false, true} {
			cs := newCS("web", specUID, reuse, "data", "logs")
			w := world{cs: cs,
				pods: []*model.Pod{mkPod(cs, "bbbbb"), mkPod(cs, "ccccc")},
				pvcs: []*model.PVC{
					mkClaim(cs, "data", "bbbbb"), mkClaim(cs, "logs", "bbbbb"),
					mkClaim(cs, "data", "ccccc"), mkClaim(cs, "logs", "ccccc"),
				}}
			r := w.round(0)
			got := r.idx.ClaimsOfPod(w.pods[1])
			if diff := cmp.Diff([]string{"data-web-ccccc", "logs-web-ccccc"}, got); diff != "" {
				t.Errorf("reuse=%v: deletePVCs (-want +got):\n%s", reuse, diff)
			}
			// Next round: the pod is gone with those PVCs; nothing of id ccccc
			// is left to reuse.
			w.pods, w.pvcs = w.pods[:1], w.pvcs[:2]
			r = w.round(1)
			if len(r.Actions) != 0 || r.Allocs[0].Reused || r.Allocs[0].ID == "ccccc" {
				t.Errorf("reuse=%v: next round actions %v allocs %+v", reuse, r.Actions, r.Allocs)
			}
		}
	})

	t.Run("When a Pod has been deleted manually, all PVCs related to the Pod are preserved, and CloneSet controller will create a new Pod with the same instance-id and reuse the PVCs.", func(t *testing.T) {
		// The page describes the v1alpha1 default (reuse on); see
		// TestDocPVCReuseBehavior for the v1beta1 default.
		cs := loaded(model.APIVersionV1alpha1, nil)
		checkReused(t, cs, afterManualDeletion(cs).round(1))
	})

	t.Run("When a Pod is updated using recreate policy, all PVCs related to it will be deleted together.", func(t *testing.T) {
		for _, reuse := range []bool{false, true} {
			cs := newCS("web", specUID, reuse, "data", "logs")
			old := mkPod(cs, "ccccc")
			w := world{cs: cs, pods: []*model.Pod{mkPod(cs, "bbbbb"), old},
				pvcs: []*model.PVC{mkClaim(cs, "data", "bbbbb"), mkClaim(cs, "logs", "bbbbb"), mkClaim(cs, "data", "ccccc"), mkClaim(cs, "logs", "ccccc")}}
			// Recreate marks the pod specified-delete; the scale phase deletes
			// it with all PVCs of its id.
			if diff := cmp.Diff([]string{"data-web-ccccc", "logs-web-ccccc"}, w.round(0).idx.ClaimsOfPod(old)); diff != "" {
				t.Errorf("reuse=%v: deletePVCs (-want +got):\n%s", reuse, diff)
			}
			// Next round: the old pod is terminating, its PVCs are being deleted.
			terminating(old)
			deletingClaim(w.pvcs[2])
			deletingClaim(w.pvcs[3])
			r := w.round(1)
			if len(r.Actions) != 0 {
				t.Errorf("reuse=%v: PVCs being deleted were touched: %v", reuse, r.Actions)
			}
			a := r.Allocs[0]
			if a.Reused || a.ID == "ccccc" {
				t.Fatalf("reuse=%v: replacement got %+v, want a new id", reuse, a)
			}
			if diff := cmp.Diff([]string{"data-web-" + a.ID, "logs-web-" + a.ID}, r.Create[a.ID]); diff != "" {
				t.Errorf("reuse=%v: replacement PVCs (-want +got):\n%s", reuse, diff)
			}
		}
	})

	t.Run("When a Pod is updated using in-place policy, all PVCs related to it are preserved.", func(t *testing.T) {
		for _, reuse := range []bool{false, true} {
			cs := newCS("web", specUID, reuse, "data", "logs")
			p := mkPod(cs, "ccccc")
			p.Labels[model.LabelLifecycleState] = model.StateUpdating
			p.Labels[model.LabelRevisionHash] = "web-new"
			w := world{cs: cs, pods: []*model.Pod{p},
				pvcs: []*model.PVC{mkClaim(cs, "data", "ccccc"), mkClaim(cs, "logs", "ccccc")}}
			r := w.round(1)
			if len(r.Actions) != 0 {
				t.Errorf("reuse=%v: actions on the PVCs of an in-place updated pod: %v", reuse, r.Actions)
			}
			if diff := cmp.Diff([]string{"data-web-ccccc", "logs-web-ccccc"}, r.V); diff != "" {
				t.Errorf("reuse=%v: V (-want +got):\n%s", reuse, diff)
			}
			if r.Allocs[0].ID == "ccccc" || r.Allocs[0].Reused {
				t.Errorf("reuse=%v: the pod's id was handed out again: %+v", reuse, r.Allocs)
			}
		}
	})
}

func TestDocPVCReuseBehavior(t *testing.T) {
	t.Run("v1alpha1：默认启用 PVC 复用，新创建的 Pod 会复用原 Pod 的 instance-id 并关联原有的 PVC", func(t *testing.T) {
		cs := loaded(model.APIVersionV1alpha1, nil)
		if !ReuseEnabled(cs) {
			t.Fatal("v1alpha1 default does not reuse")
		}
		checkReused(t, cs, afterManualDeletion(cs).round(1))
		// disablePVCReuse written as false is the same as absent.
		cs = loaded(model.APIVersionV1alpha1, ptr(false))
		checkReused(t, cs, afterManualDeletion(cs).round(1))
	})
	t.Run("v1beta1：默认禁用 PVC 复用，新创建的 Pod 不会复用 PVC", func(t *testing.T) {
		cs := loaded(model.APIVersionV1beta1, nil)
		if ReuseEnabled(cs) {
			t.Fatal("v1beta1 default reuses")
		}
		checkNotReused(t, cs, afterManualDeletion(cs).round(1))
	})
	t.Run("v1alpha1：通过设置 scaleStrategy.disablePVCReuse: true 来禁用 PVC 复用", func(t *testing.T) {
		cs := loaded(model.APIVersionV1alpha1, ptr(true))
		if ReuseEnabled(cs) {
			t.Fatal("disablePVCReuse: true still reuses")
		}
		checkNotReused(t, cs, afterManualDeletion(cs).round(1))
	})
	t.Run("v1beta1：通过字段 scaleStrategy.enablePVCReuse 控制，默认值为 false（禁用复用）。如需启用 PVC 复用，可显式设置为 true", func(t *testing.T) {
		off := loaded(model.APIVersionV1beta1, ptr(false))
		checkNotReused(t, off, afterManualDeletion(off).round(1))
		on := loaded(model.APIVersionV1beta1, ptr(true))
		if !ReuseEnabled(on) {
			t.Fatal("enablePVCReuse: true does not reuse")
		}
		checkReused(t, on, afterManualDeletion(on).round(1))
	})
	t.Run("禁用 PVC 复用后，Pod 删除时其关联的 PVC 也会被自动删除。", func(t *testing.T) {
		for _, cs := range []*model.CloneSet{loaded(model.APIVersionV1alpha1, ptr(true)), loaded(model.APIVersionV1beta1, nil)} {
			// Fully gone: deleted at clean-up.
			checkNotReused(t, cs, afterManualDeletion(cs).round(1))
			// Still terminating: handed to the pod, so they go away with it.
			w := afterManualDeletion(cs)
			w.pods = append(w.pods, terminating(mkPod(cs, "ccccc")))
			r := w.round(0)
			want := []model.Action{
				reown("data-web-ccccc", "web-ccccc", rInactive("ccccc", "web-ccccc")),
				reown("logs-web-ccccc", "web-ccccc", rInactive("ccccc", "web-ccccc")),
			}
			if diff := cmp.Diff(want, r.Actions, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s: clean-up (-want +got):\n%s", cs.APIVersion, diff)
			}
		}
	})
	t.Run("To address this issue, you can set the DisablePVCReuse=true field, and the PVCs associated with the Pod will be automatically deleted and no longer reused.", func(t *testing.T) {
		cs := loaded(model.APIVersionV1alpha1, ptr(true))
		checkNotReused(t, cs, afterManualDeletion(cs).round(1))
	})
}
