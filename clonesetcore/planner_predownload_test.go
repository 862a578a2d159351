package clonesetcore_test

import (
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/model"
)

// preDownloadWorld is an in-place rollout from revA to revB of five pods,
// partition 1, with the PreDownloadImageForInPlaceUpdate gate on.
func preDownloadWorld() *world {
	w := newWorld(5, pod("web-a", revA), pod("web-b", revA), pod("web-c", revA), pod("web-d", revA), pod("web-e", revA))
	w.policy(model.PolicyInPlaceIfPossible).partition(1)
	w.s.Gates.PreDownloadImageForInPlaceUpdate = true
	return w
}

// rolledOut is preDownloadWorld once every pod is at revB.
func rolledOut() *world {
	w := preDownloadWorld().atRest(revB)
	for _, p := range w.s.Pods {
		p.Labels[model.LabelRevisionHash] = revB
		p.Labels[model.LabelPodTemplateHash] = model.ShortHash(revB)
		p.Spec.Containers[0].Image = imageOf(revB)
	}
	return w
}

func job(name string, owner string) *model.ImagePullJob {
	return &model.ImagePullJob{Name: name, Namespace: "default", UID: "uid-" + name, Image: "img:v2",
		OwnerReferences: []model.OwnerReference{{APIVersion: model.APIVersionV1beta1, Kind: "CloneSet", Name: owner, UID: "uid-" + owner, Controller: true}}}
}

// TestPreDownloadActions: the decision of package predownload as plan
// actions, where upstream takes them (after the revision write and the PVC
// clean-up, before the scale and update phases), with their notes.
func TestPreDownloadActions(t *testing.T) {
	t.Run("created", func(t *testing.T) {
		res := preDownloadWorld().plan(t)
		wantActs(t, res,
			"CreateImagePullJob web-2-main main=img:v2",
			"LabelRevision web-2 map[apps.kruise.io/pre-predownload-created:true]",
			"UpdatePodInPlace web-a web-1->web-2 grace 0")
		if a := res.Actions[0]; a.Revision != revB || a.Reason != "image pre-download: container main changes its image in place" {
			t.Errorf("create %+v", a)
		}
		if a := res.Actions[1]; a.Reason != "image pre-download: the ImagePullJobs of this revision are created" {
			t.Errorf("label reason %q", a.Reason)
		}
		wantNote(t, res, "image pre-download for the in-place update from web-1 to web-2: an ImagePullJob per changed image (main=img:v2), parallelism 1, timeout 300s, on the pods not at web-2")
	})
	t.Run("after the created revision, before the scale phase", func(t *testing.T) {
		w := preDownloadWorld()
		w.s.Revisions = w.s.Revisions[:1] // revB is created this round
		w.s.Pods = w.s.Pods[:4]
		res := w.plan(t)
		got, rev := acts(res), res.UpdateRevision
		if len(got) < 4 || !strings.HasPrefix(got[0], "CreateRevision "+rev) || got[1] != "CreateImagePullJob "+rev+"-main main=img:v2" ||
			!strings.HasPrefix(got[2], "LabelRevision "+rev) || !strings.HasPrefix(got[3], "CreatePod") {
			t.Errorf("actions %q", got)
		}
	})
	t.Run("ignored", func(t *testing.T) {
		w := preDownloadWorld()
		w.cs.Spec.Replicas = ptr(int32(3))
		w.s.Pods = w.s.Pods[:3]
		res := w.plan(t)
		if got := acts(res); len(got) == 0 || got[0] != "LabelRevision web-2 map[apps.kruise.io/image-predownload-ignored:true]" {
			t.Errorf("actions %q", got)
		}
		if a := res.Actions[0]; a.Reason != "image pre-download: not done for this revision" {
			t.Errorf("label reason %q", a.Reason)
		}
		wantNote(t, res, "image pre-download for web-2 is ignored: replicas 3 <= 3")
	})
	t.Run("marked", func(t *testing.T) {
		w := preDownloadWorld()
		w.s.Revisions[1].Labels[model.LabelImagePreDownloadCreated] = "true"
		res := w.plan(t)
		wantActs(t, res, "UpdatePodInPlace web-a web-1->web-2 grace 0")
		wantNote(t, res, `image pre-download for web-2 was decided before (label apps.kruise.io/pre-predownload-created="true"): nothing to do`)
	})
	t.Run("gate off: nothing, no note", func(t *testing.T) {
		w := preDownloadWorld()
		w.s.Gates.PreDownloadImageForInPlaceUpdate = false
		w.s.ImagePullJobs = []*model.ImagePullJob{job("web-1-main", "web")}
		res := w.plan(t)
		wantActs(t, res, "UpdatePodInPlace web-a web-1->web-2 grace 0")
		wantNoNoteWith(t, res, "pre-download")
	})
	t.Run("rollout done: the CloneSet's jobs deleted, being deleted or not", func(t *testing.T) {
		for _, deleting := range []bool{false, true} {
			w := rolledOut()
			if deleting {
				w.cs.DeletionTimestamp = t0.Add(-time.Minute)
			}
			w.s.ImagePullJobs = []*model.ImagePullJob{job("web-2-side", "web"), job("other-2-main", "other"), job("web-2-main", "web")}
			res := w.plan(t)
			wantActs(t, res, "DeleteImagePullJob web-2-main", "DeleteImagePullJob web-2-side")
			if a := res.Actions[0]; a.Reason != "image pre-download: the rollout is done" {
				t.Errorf("delete reason %q", a.Reason)
			}
			wantNote(t, res, "the rollout is done (current revision = update revision): the CloneSet's ImagePullJobs are deleted: web-2-main, web-2-side")
		}
	})
	t.Run("a job that exists already", func(t *testing.T) {
		w := preDownloadWorld()
		w.s.ImagePullJobs = []*model.ImagePullJob{job("web-2-main", "web")}
		res := w.plan(t)
		if len(ofType(res, model.ActionCreateImagePullJob)) != 1 {
			t.Errorf("actions %q", acts(res))
		}
		wantNote(t, res, "ImagePullJob web-2-main exists already: its create will be refused (AlreadyExists), which upstream ignores")
	})
	t.Run("a name the API server refuses", func(t *testing.T) {
		w := preDownloadWorld()
		long := strings.Repeat("c", 250)
		w.cs.Spec.Template.Spec.Containers[0].Name = long
		w.cs.Spec.Template.Raw["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["name"] = long
		rev := revision(revB)
		rev.Template = w.cs.Spec.Template
		w.s.Revisions[1] = rev
		// revA's container is "main": not in place; make revA's the same name.
		old := revision(revA)
		old.Template.Spec.Containers[0].Name = long
		old.Template.Raw["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["name"] = long
		w.s.Revisions[0] = old
		res := w.plan(t)
		wantNote(t, res, "ImagePullJob web-2-"+long+": its name is longer than 253 characters: the API server will refuse it (upstream creates it all the same, and goes on)")
	})
}

// TestTrackerPreDownload: a Tracker told of the ImagePullJobs and of the
// revision's mark plans as Plan does.
func TestTrackerPreDownload(t *testing.T) {
	w := rolledOut()
	w.s.ImagePullJobs = []*model.ImagePullJob{job("web-2-main", "web")}
	tr := clonesetcore.NewTracker(w.s.Gates, w.s.Controller)
	tr.Sync(w.s)
	res, err := tr.Plan(t0)
	if err != nil {
		t.Fatal(err)
	}
	if got := acts(res); len(got) != 1 || got[0] != "DeleteImagePullJob web-2-main" {
		t.Fatalf("actions %q", got)
	}
	tr.DeleteImagePullJob("web-2-main")
	if res, _ = tr.Plan(t0); len(ofType(res, model.ActionDeleteImagePullJob)) != 0 {
		t.Fatalf("the job is gone, yet %q", acts(res))
	}
	tr.SetImagePullJob(job("web-2-other", "web"))
	if s := tr.Scenario(t0); len(s.ImagePullJobs) != 1 || s.ImagePullJobs[0].Name != "web-2-other" {
		t.Fatalf("Scenario's jobs %v", s.ImagePullJobs)
	}
	if res, _ = tr.Plan(t0); len(ofType(res, model.ActionDeleteImagePullJob)) != 1 {
		t.Fatalf("actions %q", acts(res))
	}
	// The mark on the update revision, through SetRevision.
	w = preDownloadWorld()
	tr = clonesetcore.NewTracker(w.s.Gates, w.s.Controller)
	tr.Sync(w.s)
	if res, _ = tr.Plan(t0); len(ofType(res, model.ActionLabelRevision)) != 1 {
		t.Fatalf("actions %q", acts(res))
	}
	marked := w.s.Revisions[1].DeepCopy()
	marked.Labels[model.LabelImagePreDownloadCreated] = "true"
	tr.SetRevision(marked)
	if res, _ = tr.Plan(t0); len(ofType(res, model.ActionLabelRevision))+len(ofType(res, model.ActionCreateImagePullJob)) != 0 {
		t.Fatalf("marked, yet %q", acts(res))
	}
}
