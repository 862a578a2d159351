package clustertest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller"
	"github.com/clonecore/cloneset/examples/kubecontroller/clustertest"
	"github.com/clonecore/cloneset/examples/kubecontroller/crd"
	"github.com/clonecore/cloneset/examples/kubecontroller/internal/kruisecrd"
	"github.com/clonecore/cloneset/model"
	appsv1 "k8s.io/api/apps/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// preDownloadCloneSet has five pods of two containers (main web:1, log
// busybox:1), an image pull secret and a template annotation, updated in
// place one pod at a time with imagePreDownloadParallelism 2 and
// imagePreDownloadTimeoutSeconds 60.
const preDownloadCloneSet = `{
  "apiVersion": "apps.kruise.io/v1beta1", "kind": "CloneSet",
  "metadata": {"name": "web"},
  "spec": {
    "replicas": 5,
    "selector": {"matchLabels": {"app": "web"}},
    "template": {"metadata": {"labels": {"app": "web", "tier": "front"}, "annotations": {"team": "a"}},
      "spec": {"imagePullSecrets": [{"name": "registry-key"}],
        "containers": [{"name": "main", "image": "web:1"}, {"name": "log", "image": "busybox:1"}]}},
    "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"podUpdatePolicy": "InPlaceIfPossible", "maxUnavailable": 1,
      "inPlaceUpdateStrategy": {"imagePreDownloadParallelism": 2, "imagePreDownloadTimeoutSeconds": 60}}}
  }
}`

// TestImagePreDownloadOnKubeAPIServer: the image pre-download of the
// controller on kube-apiserver with OpenKruise's ImagePullJob definition
// (read from its module at test time). With the
// PreDownloadImageForInPlaceUpdate gate on, an in-place update of the main
// container held by partition 1 creates one ImagePullJob, the object
// OpenKruise's controller creates (written out here from its code, with
// the server's revision name and hash), whose selector picks the pod left
// at the old revision, and marks the update revision; partition 0 ends the
// rollout and the job is deleted. With the gate off, or on while the API
// server does not serve ImagePullJobs, the same update writes neither job
// nor mark.
func TestImagePreDownloadOnKubeAPIServer(t *testing.T) {
	c := clustertest.Shared(t)
	ctx := t.Context()
	def, err := kruisecrd.ImagePullJob()
	if err != nil {
		t.Fatal(err)
	}
	uninstall(t, c, def.Name) // not served
	sc := func(name string, gate bool) clustertest.Scenario {
		s := clustertest.Scenario{Name: name, CloneSet: preDownloadCloneSet}
		if gate {
			s.Gates = []string{model.GatePreDownloadImageForInPlaceUpdate}
		}
		return s
	}
	update := clustertest.Combine(clustertest.SetImage("web:2"), clustertest.SetPartition(1))

	// The gate on, the kind not served: nothing of the pre-download.
	r := c.Start(t, sc("predownload-not-served", true))
	r.WaitRest()
	r.Apply(update)
	r.WaitRest()
	if r.Reconciler.ImagePullJobsServed {
		t.Error("the kind is not served, yet the Reconciler says it is")
	}
	if marks := revisionMarks(t, r); len(marks) != 0 {
		t.Errorf("kind not served: revision marks %v", marks)
	}

	if err := crd.InstallDefinition(ctx, c.Client, def); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { uninstall(t, c, def.Name) })

	// The gate on: one job, OpenKruise's, while the rollout goes on.
	r = c.Start(t, sc("predownload", true))
	r.WaitRest()
	r.Apply(update)
	r.WaitRest()
	if !r.Reconciler.ImagePullJobsServed {
		t.Fatal("the kind is served, yet the Reconciler says it is not")
	}
	cs := r.CloneSet()
	rev, _, _ := unstructured.NestedString(cs.Object, "status", "updateRevision")
	var updateRevision appsv1.ControllerRevision
	if err := c.Client.Get(ctx, client.ObjectKey{Namespace: r.Namespace, Name: rev}, &updateRevision); err != nil {
		t.Fatal(err)
	}
	hash := updateRevision.Labels[model.LabelControllerRevisionHash]
	jobs := imagePullJobs(t, r)
	if len(jobs) != 1 {
		t.Fatalf("%d ImagePullJobs, want 1: %v", len(jobs), jobs)
	}
	job := jobs[0]
	checkJob(t, job, cs, r.Namespace, rev, hash)
	if got := revisionMarks(t, r); !reflect.DeepEqual(got, map[string]string{rev: model.LabelImagePreDownloadCreated}) {
		t.Errorf("revision marks %v, want %s marked created", got, rev)
	}
	// The job's pods: the one left at the old revision.
	selector, err := metav1.LabelSelectorAsSelector(podSelector(t, job))
	if err != nil {
		t.Fatal(err)
	}
	var selected []string
	for _, p := range r.Pods() {
		if selector.Matches(labels.Set(p.Labels)) {
			selected = append(selected, p.Name)
			if p.Labels[model.LabelRevisionHash] == rev {
				t.Errorf("the job selects pod %s, which is at the update revision %s", p.Name, rev)
			}
		}
	}
	if len(selected) != 1 {
		t.Errorf("the job selects %v, want the one pod kept at the old revision", selected)
	}
	// The rollout done: the job is deleted.
	r.Apply(clustertest.SetPartition(0))
	r.WaitRest()
	waitFor(t, "the job deleted once the rollout is done", func() bool { return len(imagePullJobs(t, r)) == 0 })

	// The gate off, the kind served: nothing of the pre-download.
	r = c.Start(t, sc("predownload-gate-off", false))
	r.WaitRest()
	r.Apply(update)
	r.WaitRest()
	if jobs, marks := imagePullJobs(t, r), revisionMarks(t, r); len(jobs) != 0 || len(marks) != 0 {
		t.Errorf("gate off: jobs %v, revision marks %v", jobs, marks)
	}
	fmt.Printf("image pre-download on kube-apiserver %s: the ImagePullJob as OpenKruise's, deleted when done; none with the gate off or the kind not served\n", c.ServerVersion)
}

// checkJob compares the stored job with the ImagePullJob OpenKruise's
// controller creates for the update of cs's main container to web:2
// (pkg/util/imagejob/utilfunction CreateJobForWorkloadWithStrategy, read
// for the facts): the server's own fields left out.
func checkJob(t *testing.T, job *unstructured.Unstructured, cs *unstructured.Unstructured, ns, rev, hash string) {
	t.Helper()
	labels := map[string]any{"app": "web", "tier": "front", model.LabelControllerRevisionHash: hash}
	want := map[string]any{
		"apiVersion": "apps.kruise.io/v1beta1", "kind": "ImagePullJob",
		"metadata": map[string]any{
			"name": rev + "-main", "namespace": ns, "labels": labels,
			"ownerReferences": []any{map[string]any{
				"apiVersion": "apps.kruise.io/v1beta1", "kind": "CloneSet", "name": cs.GetName(), "uid": string(cs.GetUID()),
				"controller": true, "blockOwnerDeletion": true,
			}},
		},
		"spec": map[string]any{
			"image":       "web:2",
			"pullSecrets": []any{"registry-key"},
			"podSelector": map[string]any{
				"matchLabels":      map[string]any{"app": "web"},
				"matchExpressions": []any{map[string]any{"key": "controller-revision-hash", "operator": "NotIn", "values": []any{rev, hash}}},
			},
			"parallelism":      int64(2),
			"pullPolicy":       map[string]any{"timeoutSeconds": int64(60), "backoffLimit": int64(1)},
			"completionPolicy": map[string]any{"type": "Always", "ttlSecondsAfterFinished": int64(600)},
			"sandboxConfig":    map[string]any{"labels": labels, "annotations": map[string]any{"team": "a"}},
		},
	}
	got := job.DeepCopy().Object
	delete(got, "status")
	md, _ := got["metadata"].(map[string]any)
	for _, k := range []string{"uid", "resourceVersion", "generation", "creationTimestamp", "managedFields"} {
		delete(md, k)
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", "  ")
		w, _ := json.MarshalIndent(want, "", "  ")
		t.Errorf("the ImagePullJob on the server:\n%s\nwant OpenKruise's:\n%s", g, w)
	}
}

// podSelector reads a job's spec.podSelector.
func podSelector(t *testing.T, job *unstructured.Unstructured) *metav1.LabelSelector {
	t.Helper()
	m, _, _ := unstructured.NestedMap(job.Object, "spec", "podSelector")
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	sel := &metav1.LabelSelector{}
	if err := json.Unmarshal(b, sel); err != nil {
		t.Fatal(err)
	}
	return sel
}

// imagePullJobs lists the Run's ImagePullJobs from the server.
func imagePullJobs(t *testing.T, r *clustertest.Run) []*unstructured.Unstructured {
	t.Helper()
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(kubecontroller.ImagePullJobV1beta1.GroupVersion().WithKind("ImagePullJobList"))
	if err := r.Cluster.Client.List(context.Background(), list, client.InNamespace(r.Namespace)); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		t.Fatal(err)
	}
	out := make([]*unstructured.Unstructured, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out
}

// revisionMarks are the pre-download marks of the Run's revisions: the
// label key by revision name.
func revisionMarks(t *testing.T, r *clustertest.Run) map[string]string {
	t.Helper()
	var revs appsv1.ControllerRevisionList
	if err := r.Cluster.Client.List(context.Background(), &revs, client.InNamespace(r.Namespace)); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, rv := range revs.Items {
		for _, k := range []string{model.LabelImagePreDownloadCreated, model.LabelImagePreDownloadIgnored} {
			if rv.Labels[k] == "true" {
				out[rv.Name] = k
			}
		}
	}
	return out
}

// uninstall deletes the definition named name, if any, and waits until the
// API server no longer serves its kind.
func uninstall(t *testing.T, c *clustertest.Cluster, name string) {
	t.Helper()
	err := c.Client.Delete(context.Background(), &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: name}})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	waitFor(t, name+" no longer served", func() bool {
		list, err := c.ControlPlane.Clientset().Discovery().ServerResourcesForGroupVersion(kubecontroller.ImagePullJobV1beta1.GroupVersion().String())
		if err != nil {
			return apierrors.IsNotFound(err)
		}
		for _, r := range list.APIResources {
			if r.Kind == kubecontroller.ImagePullJobV1beta1.Kind {
				return false
			}
		}
		return true
	})
}

// waitFor polls cond every 100 ms for up to a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after a minute", what)
		}
	}
}
