package requests_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/predownload"
	"github.com/clonecore/cloneset/requests"
)

// preDownloadWorld is an in-place rollout of five pods from web-1 (nginx:1)
// to web-2 (nginx:2), partition 1, the gate on; atRest puts every pod and
// the status at web-2.
func preDownloadWorld(atRest bool) string {
	rev := "web-1"
	if atRest {
		rev = "web-2"
	}
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: clonesetcore/v1alpha1
kind: Scenario
now: "2026-01-01T01:00:00Z"
featureGates: {PreDownloadImageForInPlaceUpdate: true}
---
apiVersion: apps.kruise.io/v1beta1
kind: CloneSet
metadata: {name: web, namespace: prod, uid: uid-web, generation: 2, resourceVersion: "77"}
spec:
  replicas: 5
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}, annotations: {team: a}}
    spec: {imagePullSecrets: [{name: reg}], containers: [{name: main, image: "nginx:2"}]}
  updateStrategy:
    rollingUpdate:
      podUpdatePolicy: InPlaceIfPossible
      partition: 1
      inPlaceUpdateStrategy: {imagePreDownloadParallelism: 2, imagePreDownloadTimeoutSeconds: 60}
status: {observedGeneration: 1, replicas: 5, currentRevision: %[1]s, updateRevision: %[1]s}
---
apiVersion: apps/v1
kind: ControllerRevision
metadata: {name: web-1, namespace: prod, uid: uid-rev1, labels: {app: web, controller.kubernetes.io/hash: "1"}}
revision: 1
data: {spec: {template: {$patch: replace, metadata: {labels: {app: web}, annotations: {team: a}}, spec: {imagePullSecrets: [{name: reg}], containers: [{name: main, image: "nginx:1"}]}}}}
---
apiVersion: apps/v1
kind: ControllerRevision
metadata: {name: web-2, namespace: prod, uid: uid-rev2, labels: {app: web, controller.kubernetes.io/hash: "2"}}
revision: 2
data: {spec: {template: {$patch: replace, metadata: {labels: {app: web}, annotations: {team: a}}, spec: {imagePullSecrets: [{name: reg}], containers: [{name: main, image: "nginx:2"}]}}}}
`, rev)
	image := map[string]string{"web-1": "nginx:1", "web-2": "nginx:2"}[rev]
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		fmt.Fprintf(&b, `---
apiVersion: v1
kind: Pod
metadata:
  name: web-%[1]s
  namespace: prod
  uid: uid-web-%[1]s
  creationTimestamp: "2026-01-01T00:00:00Z"
  labels: {app: web, apps.kruise.io/cloneset-instance-id: %[1]s, controller-revision-hash: %[2]s, pod-template-hash: "%[3]s", lifecycle.apps.kruise.io/state: Normal}
  ownerReferences: [{apiVersion: apps.kruise.io/v1beta1, kind: CloneSet, name: web, uid: uid-web, controller: true}]
spec: {nodeName: n1, readinessGates: [{conditionType: InPlaceUpdateReady}], containers: [{name: main, image: "%[4]s"}]}
status:
  phase: Running
  conditions:
  - {type: Ready, status: "True", lastTransitionTime: "2026-01-01T00:01:00Z"}
  - {type: InPlaceUpdateReady, status: "True", lastTransitionTime: "2026-01-01T00:00:00Z"}
  containerStatuses: [{name: main, image: "%[4]s", imageID: "sha-%[3]s", ready: true}]
`, id, rev, strings.TrimPrefix(rev, "web-"), image)
	}
	return b.String()
}

const jobDocs = `---
apiVersion: apps.kruise.io/v1beta1
kind: ImagePullJob
metadata: {name: web-2-main, namespace: prod, uid: uid-job-main, ownerReferences: [{apiVersion: apps.kruise.io/v1beta1, kind: CloneSet, name: web, uid: uid-web, controller: true}]}
spec: {image: "nginx:2"}
---
apiVersion: apps.kruise.io/v1beta1
kind: ImagePullJob
metadata: {name: web-1-main, namespace: prod, uid: uid-job-old, ownerReferences: [{apiVersion: apps.kruise.io/v1beta1, kind: CloneSet, name: web, uid: uid-web, controller: true}]}
spec: {image: "nginx:1"}
`

func loadPlan(t *testing.T, world string) (*model.Scenario, *clonesetcore.Result) {
	t.Helper()
	scn, err := manifest.LoadBytes([]byte(world), "predownload.yaml")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := clonesetcore.Plan(scn)
	if err != nil {
		t.Fatal(err)
	}
	return scn, plan
}

// TestPreDownloadRequests: the ImagePullJob's create carries upstream's
// object byte for byte, the revision's mark is upstream's strategic merge
// patch of its labels (no precondition), every pre-download request is
// Tolerated, and they come before the pod's update.
func TestPreDownloadRequests(t *testing.T) {
	scn, plan := loadPlan(t, preDownloadWorld(false))
	reqs, err := requests.Build(scn, plan)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) < 3 {
		t.Fatalf("requests %+v", reqs)
	}
	labels := `{"app":"web","controller.kubernetes.io/hash":"2"}`
	wantObject := `{"kind":"ImagePullJob","apiVersion":"apps.kruise.io/v1beta1",` +
		`"metadata":{"name":"web-2-main","namespace":"prod","creationTimestamp":null,"labels":` + labels + `,` +
		`"ownerReferences":[{"apiVersion":"apps.kruise.io/v1beta1","kind":"CloneSet","name":"web","uid":"uid-web","controller":true,"blockOwnerDeletion":true}]},` +
		`"spec":{"image":"nginx:2","pullSecrets":["reg"],` +
		`"podSelector":{"matchLabels":{"app":"web"},"matchExpressions":[{"key":"controller-revision-hash","operator":"NotIn","values":["web-2","2"]}]},` +
		`"parallelism":2,"pullPolicy":{"timeoutSeconds":60,"backoffLimit":1},"completionPolicy":{"type":"Always","ttlSecondsAfterFinished":600},` +
		`"sandboxConfig":{"labels":` + labels + `,"annotations":{"team":"a"}}},` +
		`"status":{"desired":0,"active":0,"succeeded":0,"failed":0}}`
	create := reqs[0]
	if create.Verb != requests.VerbCreate || create.Resource != requests.ResourceImagePullJobs || create.Name != "web-2-main" ||
		create.Namespace != "prod" || !create.Tolerated || create.Preconditions != nil || create.Action != 0 || create.Batch != -1 {
		t.Errorf("create %+v", create)
	}
	if string(create.Object) != wantObject {
		t.Errorf("object:\n got  %s\n want %s", create.Object, wantObject)
	}
	mark := reqs[1]
	if mark.Verb != requests.VerbPatch || mark.Resource != requests.ResourceControllerRevisions || mark.Name != "web-2" ||
		mark.PatchType != requests.PatchStrategicMerge || !mark.Tolerated || mark.Preconditions != nil || mark.Action != 1 {
		t.Errorf("mark %+v", mark)
	}
	if want := `{"metadata":{"labels":{"apps.kruise.io/pre-predownload-created":"true"}}}`; string(mark.Patch) != want {
		t.Errorf("mark patch %s, want %s", mark.Patch, want)
	}
	for _, r := range reqs[2:] {
		if r.Tolerated {
			t.Errorf("%s %s %s is tolerated", r.Verb, r.Resource, r.Name)
		}
	}

	// The in-memory API server holds the job and the mark afterwards.
	w := requests.NewWorld(scn)
	if errs, ok := w.ApplyAll(reqs); !ok {
		t.Fatalf("apply: %v", errs)
	}
	after := w.Scenario(scn)
	if len(after.ImagePullJobs) != 1 || after.ImagePullJobs[0].Image != "nginx:2" || after.ImagePullJobs[0].UID == "" ||
		!predownload.Controls(after.CloneSet, after.ImagePullJobs[0]) {
		t.Errorf("jobs after the round %+v", after.ImagePullJobs)
	}
	for _, r := range after.Revisions {
		if got := r.Labels[model.LabelImagePreDownloadCreated]; (r.Name == "web-2") != (got == "true") {
			t.Errorf("revision %s labels %v", r.Name, r.Labels)
		}
	}
	// The next round plans no pre-download: the revision is marked.
	next, err := clonesetcore.Plan(after)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range next.Actions {
		if model.ToleratesFailure(a.Type) {
			t.Errorf("the next round plans %s", a.Type)
		}
	}
}

// TestPreDownloadFailuresTolerated: a job that exists already (a create
// refused) ends nothing: the mark and the update go; a failed job delete
// skips the later deletes, not the rest of the round.
func TestPreDownloadFailuresTolerated(t *testing.T) {
	scn, plan := loadPlan(t, preDownloadWorld(false))
	reqs, err := requests.Build(scn, plan)
	if err != nil {
		t.Fatal(err)
	}
	w := requests.NewWorld(scn)
	w.ImagePullJobs = map[string]*model.ImagePullJob{"web-2-main": {Name: "web-2-main", Namespace: "prod"}}
	errs, complete := w.ApplyAll(reqs)
	if complete || requests.ReasonOf(errs[0]) != requests.ReasonAlreadyExists {
		t.Fatalf("errors %v", errs)
	}
	for i, e := range errs[1:] {
		if e != nil {
			t.Errorf("request %d (%s %s %s) after the refused create: %v", i+1, reqs[i+1].Verb, reqs[i+1].Resource, reqs[i+1].Name, e)
		}
	}

	scn, plan = loadPlan(t, preDownloadWorld(true)+jobDocs)
	reqs, err = requests.Build(scn, plan)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) < 2 || reqs[0].Name != "web-1-main" || reqs[1].Name != "web-2-main" || reqs[0].Verb != requests.VerbDelete ||
		reqs[0].Preconditions == nil || reqs[0].Preconditions.UID != "uid-job-old" || !reqs[0].Tolerated {
		t.Fatalf("requests %+v", reqs)
	}
	w = requests.NewWorld(scn)
	delete(w.ImagePullJobs, "web-1-main") // gone meanwhile: its delete fails
	errs, _ = w.ApplyAll(reqs)
	if requests.ReasonOf(errs[0]) != requests.ReasonNotFound || errs[1] != requests.ErrNotSent {
		t.Fatalf("errors %v", errs)
	}
	for i, e := range errs[2:] {
		if e != nil {
			t.Errorf("request %d after the failed job delete: %v", i+2, e)
		}
	}
}

// TestPreDownloadKubectl: the kubectl rendering names the resource by its
// group and says that upstream goes on after a failure.
func TestPreDownloadKubectl(t *testing.T) {
	scn, plan := loadPlan(t, preDownloadWorld(false))
	reqs, err := requests.Build(scn, plan)
	if err != nil {
		t.Fatal(err)
	}
	out, err := requests.Kubectl(reqs, plan)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# create imagepulljobs web-2-main: action 0, CreateImagePullJob\n# upstream logs a failure of this request and goes on\nkubectl create -n prod -f - <<'CLONESETPLAN_EOF'\n{\"kind\":\"ImagePullJob\"",
		"kubectl patch controllerrevision web-2 -n prod --type strategic -p '{\"metadata\":{\"labels\":{\"apps.kruise.io/pre-predownload-created\":\"true\"}}}'",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("kubectl output lacks %q:\n%s", want, out)
		}
	}
	scn, plan = loadPlan(t, preDownloadWorld(true)+jobDocs)
	reqs, _ = requests.Build(scn, plan)
	out, _ = requests.Kubectl(reqs, plan)
	if want := "kubectl delete imagepulljobs.apps.kruise.io web-1-main -n prod"; !strings.Contains(string(out), want) {
		t.Errorf("kubectl output lacks %q:\n%s", want, out)
	}
}

// TestPreDownloadBuildErrors: a pre-download action that does not fit the
// scenario is an error naming it.
func TestPreDownloadBuildErrors(t *testing.T) {
	scn, plan := loadPlan(t, preDownloadWorld(false))
	for _, tc := range []struct {
		a    model.Action
		want string
	}{
		{model.Action{Type: model.ActionCreateImagePullJob, ImagePullJob: "web-1-main", Revision: "web-1", Container: "main", Image: "x"}, "not the plan's update revision"},
		{model.Action{Type: model.ActionCreateImagePullJob, ImagePullJob: "other", Revision: "web-2", Container: "main", Image: "x"}, "named web-2-main"},
		{model.Action{Type: model.ActionLabelRevision, Revision: "web-9", SetLabels: map[string]string{"k": "v"}}, "revision not in the scenario"},
		{model.Action{Type: model.ActionLabelRevision, Revision: "web-2"}, "no label to set"},
		{model.Action{Type: model.ActionDeleteImagePullJob, ImagePullJob: "gone"}, "ImagePullJob not in the scenario"},
	} {
		p := *plan
		p.Actions = []model.Action{tc.a}
		_, err := requests.Build(scn, &p)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.a.Type, err, tc.want)
		}
	}
}
