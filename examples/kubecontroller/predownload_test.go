package kubecontroller

import (
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/requests"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// imagePullJobs lists the ImagePullJobs on the fake server, by name.
func (h *harness) imagePullJobs() map[string]*unstructured.Unstructured {
	h.t.Helper()
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(ImagePullJobV1beta1.GroupVersion().WithKind("ImagePullJobList"))
	must(h.t, h.api.List(h.ctx, list, client.InNamespace("default")))
	out := map[string]*unstructured.Unstructured{}
	for i := range list.Items {
		out[list.Items[i].GetName()] = &list.Items[i]
	}
	return out
}

// marks returns the pre-download mark of each revision on the fake server.
func (h *harness) marks() map[string]string {
	h.t.Helper()
	var revs appsv1.ControllerRevisionList
	must(h.t, h.api.List(h.ctx, &revs))
	out := map[string]string{}
	for _, r := range revs.Items {
		for _, k := range []string{model.LabelImagePreDownloadCreated, model.LabelImagePreDownloadIgnored} {
			if v, ok := r.Labels[k]; ok {
				out[r.Name] = k + "=" + v
			}
		}
	}
	return out
}

// TestImagePreDownload: with the PreDownloadImageForInPlaceUpdate gate on
// and ImagePullJobs served, an in-place rollout of five pods held by a
// partition creates the ImagePullJob of the new image once, with the
// library's object, and marks the update revision; once the partition
// lets the rollout finish, the job is deleted. Without the kind served the
// gate is planned as off: nothing is listed or written.
func TestImagePreDownload(t *testing.T) {
	sc := e2eScenario{name: "predownload", cloneSet: baseCloneSet(5, inPlace, ""), gates: []string{model.GatePreDownloadImageForInPlaceUpdate}}
	h := newHarness(t, sc, false)
	h.rec.ImagePullJobsServed = true
	h.converge(200)
	if jobs := h.imagePullJobs(); len(jobs) != 0 {
		t.Fatalf("jobs before any update: %v", jobs)
	}
	h.change(setImage("web:2", 2))
	h.converge(200)
	jobs := h.imagePullJobs()
	if len(jobs) != 1 {
		t.Fatalf("jobs after the update: %v", jobs)
	}
	cs := h.cloneSet()
	rev, _, _ := unstructured.NestedString(cs.Object, "status", "updateRevision")
	job := jobs[rev+"-main"]
	if job == nil {
		t.Fatalf("no job %s-main: %v", rev, jobs)
	}
	if img, _, _ := unstructured.NestedString(job.Object, "spec", "image"); img != "web:2" {
		t.Errorf("the job pulls %q", img)
	}
	if ref := job.GetOwnerReferences(); len(ref) != 1 || ref[0].UID != cs.GetUID() || ref[0].Controller == nil || !*ref[0].Controller {
		t.Errorf("the job's owner references %v", ref)
	}
	if got := h.marks(); got[rev] != model.LabelImagePreDownloadCreated+"=true" || len(got) != 1 {
		t.Errorf("revision marks %v, want %s marked created", got, rev)
	}
	if n := h.api.writesTo("create imagepulljobs/" + rev + "-main"); n != 1 {
		t.Errorf("the job was created %d times", n)
	}
	h.change(setPartition(0))
	h.converge(200)
	if jobs := h.imagePullJobs(); len(jobs) != 0 {
		t.Errorf("jobs after the rollout: %v", jobs)
	}

	// The kind not served: the gate has no effect, and nothing is listed.
	h = newHarness(t, sc, false)
	h.converge(200)
	h.change(setImage("web:2", 2))
	h.converge(200)
	if jobs, marks := h.imagePullJobs(), h.marks(); len(jobs) != 0 || len(marks) != 0 {
		t.Errorf("kind not served: jobs %v, marks %v", jobs, marks)
	}
}

// TestServesImagePullJobs: the REST mapper's answer decides.
func TestServesImagePullJobs(t *testing.T) {
	served := meta.NewDefaultRESTMapper(nil)
	served.Add(ImagePullJobV1beta1, meta.RESTScopeNamespace)
	if !ServesImagePullJobs(served) {
		t.Error("a mapper that knows ImagePullJob v1beta1: not served")
	}
	other := meta.NewDefaultRESTMapper(nil)
	other.Add(schema.GroupVersionKind{Group: "apps.kruise.io", Version: "v1alpha1", Kind: "ImagePullJob"}, meta.RESTScopeNamespace)
	if ServesImagePullJobs(other) || ServesImagePullJobs(meta.NewDefaultRESTMapper(nil)) {
		t.Error("a mapper without ImagePullJob v1beta1: served")
	}
}

// TestSendToleratedFailures: a tolerated request's failure is in its
// Outcome, not in Send's error, and only later ImagePullJob deletes are
// skipped after a failed one.
func TestSendToleratedFailures(t *testing.T) {
	api := newAPIServer(func() time.Time { return e2eStart })
	s := &Sender{Client: api}
	ns := "default"
	reqs := []requests.Request{
		{Verb: "delete", Resource: "imagepulljobs", Namespace: ns, Name: "gone", Batch: -1, Action: 0, Tolerated: true},
		{Verb: "delete", Resource: "imagepulljobs", Namespace: ns, Name: "gone-too", Batch: -1, Action: 1, Tolerated: true},
		{Verb: "create", Resource: "imagepulljobs", Namespace: ns, Name: "j", Batch: -1, Action: 2, Tolerated: true,
			Object: []byte(`{"kind":"ImagePullJob","apiVersion":"apps.kruise.io/v1beta1","metadata":{"name":"j","namespace":"default"},"spec":{"image":"x"}}`)},
		{Verb: "create", Resource: "imagepulljobs", Namespace: ns, Name: "j", Batch: -1, Action: 3, Tolerated: true,
			Object: []byte(`{"kind":"ImagePullJob","apiVersion":"apps.kruise.io/v1beta1","metadata":{"name":"j","namespace":"default"},"spec":{"image":"x"}}`)},
	}
	// A delete of a job that is gone counts as done: make the first fail
	// otherwise, with a uid precondition on a job that exists.
	seed := newImagePullJob()
	seed.SetNamespace(ns)
	seed.SetName("gone")
	must(t, api.Create(t.Context(), seed))
	reqs[0].Preconditions = &requests.Preconditions{UID: "not-its-uid"}
	outcomes, err := s.Send(t.Context(), reqs)
	if err != nil {
		t.Errorf("Send's error %v: tolerated failures are not errors", err)
	}
	if o := outcomes; o[0].Err == nil || o[1].Sent || !o[2].Sent || o[2].Err != nil || o[3].Err == nil || !strings.Contains(o[3].Err.Error(), "exists") {
		t.Errorf("outcomes %+v", o)
	}
}
