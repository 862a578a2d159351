package kubecontroller

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/expectations"
	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/requests"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var sendNow = time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)

func fixedClock() time.Time { return sendNow }

func podJSON(name string) json.RawMessage {
	b, _ := json.Marshal(corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "web:1"}}},
	})
	return b
}

func createPod(name string, batch, action int) requests.Request {
	return requests.Request{Verb: requests.VerbCreate, Resource: requests.ResourcePods, Namespace: "default", Name: name,
		Object: podJSON(name), Batch: batch, Action: action}
}

func existingPod(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: k8stypes.UID("uid-existing-" + name)},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "web:1"}}},
	}
}

func existingCloneSet() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(CloneSetV1beta1)
	u.SetNamespace("default")
	u.SetName("web")
	u.SetUID("cs-uid")
	_ = unstructured.SetNestedField(u.Object, int64(3), "spec", "replicas")
	return u
}

func sentNames(out []Outcome) []string {
	var names []string
	for _, o := range out {
		if o.Sent {
			s := string(o.Request.Verb) + " " + o.Request.Name
			if o.Err != nil {
				s += " (failed)"
			}
			names = append(names, s)
		}
	}
	return names
}

func TestSendStopsAfterAFailedBatch(t *testing.T) {
	api := newAPIServer(fixedClock, existingPod("web-b"), existingCloneSet())
	exp := NewExpectations(0)
	s := &Sender{Client: api, Expectations: exp, Owner: "default/web", Now: sendNow}
	reqs := []requests.Request{
		createPod("web-a", 0, 0),
		createPod("web-b", 1, 1), // exists: AlreadyExists
		createPod("web-c", 1, 2), // same batch: still sent
		createPod("web-d", 2, 3), // later batch: not started
		{Verb: requests.VerbPatch, Resource: requests.ResourcePods, Namespace: "default", Name: "web-b",
			PatchType: requests.PatchMerge, Patch: json.RawMessage(`{"metadata":{"labels":{"x":"y"}}}`), Batch: -1, Action: 4},
		{Verb: requests.VerbPatch, Resource: requests.ResourceCloneSets, Subresource: requests.SubresourceStatus, Namespace: "default", Name: "web",
			PatchType: requests.PatchMerge, Patch: json.RawMessage(`{"status":{"replicas":2,"observedGeneration":1}}`), Batch: -1, Action: -1},
	}
	out, err := s.Send(context.Background(), reqs)
	if err == nil || !apierrors.IsAlreadyExists(unwrapAll(err)) {
		t.Fatalf("want the AlreadyExists of web-b, got %v", err)
	}
	want := []string{"create web-a", "create web-b (failed)", "create web-c", "patch web-b", "patch web"}
	if got := sentNames(out); !reflect.DeepEqual(got, want) {
		t.Fatalf("sent %v, want %v", got, want)
	}
	var pending []string
	exp.Do(func(st *expectations.Store) {
		for _, e := range st.Pending("default/web") {
			pending = append(pending, e.Object.Name+" "+string(e.Op))
		}
	})
	if want := []string{"web resourceVersion", "web-a create", "web-b resourceVersion", "web-c create"}; !reflect.DeepEqual(pending, want) {
		t.Fatalf("expectations %v, want %v (the failed create lowered, the unsent one never raised, the patch and the status write followed)", pending, want)
	}
	cs := existingCloneSet()
	if err := api.Get(context.Background(), client.ObjectKeyFromObject(cs), cs); err != nil {
		t.Fatal(err)
	}
	if r, _, _ := unstructured.NestedInt64(cs.Object, "status", "replicas"); r != 2 {
		t.Fatalf("status.replicas = %d after the status write, want 2", r)
	}
}

func unwrapAll(err error) error {
	for {
		if u, ok := err.(interface{ Unwrap() []error }); ok {
			err = u.Unwrap()[0]
			continue
		}
		if u, ok := err.(interface{ Unwrap() error }); ok && u.Unwrap() != nil {
			err = u.Unwrap()
			continue
		}
		return err
	}
}

func TestSendEndsTheRoundAtAFailedPatch(t *testing.T) {
	api := newAPIServer(fixedClock, existingPod("web-a"), existingCloneSet())
	s := &Sender{Client: api, Owner: "default/web", Now: sendNow}
	reqs := []requests.Request{
		{Verb: requests.VerbPatch, Resource: requests.ResourcePods, Namespace: "default", Name: "web-a",
			PatchType: requests.PatchStrategicMerge, Patch: json.RawMessage(`{"metadata":{"labels":{"x":"y"}}}`),
			Preconditions: &requests.Preconditions{ResourceVersion: "1"}, Batch: -1, Action: 0},
		{Verb: requests.VerbDelete, Resource: requests.ResourcePods, Namespace: "default", Name: "web-a", Batch: -1, Action: 1},
		{Verb: requests.VerbPatch, Resource: requests.ResourceCloneSets, Subresource: requests.SubresourceStatus, Namespace: "default", Name: "web",
			PatchType: requests.PatchMerge, Patch: json.RawMessage(`{"status":{"replicas":1}}`), Batch: -1, Action: -1},
	}
	out, err := s.Send(context.Background(), reqs)
	if !apierrors.IsConflict(unwrapAll(err)) {
		t.Fatalf("want a Conflict (stale resourceVersion), got %v", err)
	}
	if got, want := sentNames(out), []string{"patch web-a (failed)", "patch web"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("sent %v, want %v", got, want)
	}
}

func TestPatchAndDeletePreconditions(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		req     requests.Request
		wantErr func(error) bool
	}{
		{"merge patch, right uid", requests.Request{Verb: requests.VerbPatch, PatchType: requests.PatchMerge,
			Patch: json.RawMessage(`{"metadata":{"labels":{"x":"y"}}}`), Preconditions: &requests.Preconditions{UID: "uid-existing-web-a"}}, nil},
		{"merge patch, other uid", requests.Request{Verb: requests.VerbPatch, PatchType: requests.PatchMerge,
			Patch: json.RawMessage(`{"metadata":{"labels":{"x":"y"}}}`), Preconditions: &requests.Preconditions{UID: "other"}}, apierrors.IsInvalid},
		{"strategic merge patch, stale resourceVersion", requests.Request{Verb: requests.VerbPatch, PatchType: requests.PatchStrategicMerge,
			Patch: json.RawMessage(`{"spec":{"containers":[{"name":"main","image":"web:2"}]}}`), Preconditions: &requests.Preconditions{ResourceVersion: "1"}}, apierrors.IsConflict},
		{"JSON patch, other uid", requests.Request{Verb: requests.VerbPatch, PatchType: requests.PatchJSON,
			Patch: json.RawMessage(`[{"op":"add","path":"/metadata/labels","value":{"x":"y"}}]`), Preconditions: &requests.Preconditions{UID: "other"}},
			func(err error) bool { return err != nil && strings.Contains(err.Error(), "test") }},
		{"JSON patch, right uid", requests.Request{Verb: requests.VerbPatch, PatchType: requests.PatchJSON,
			Patch: json.RawMessage(`[{"op":"add","path":"/metadata/labels","value":{"x":"y"}}]`), Preconditions: &requests.Preconditions{UID: "uid-existing-web-a"}}, nil},
		{"delete, other uid", requests.Request{Verb: requests.VerbDelete, Preconditions: &requests.Preconditions{UID: "other"}}, apierrors.IsConflict},
		{"delete, right uid", requests.Request{Verb: requests.VerbDelete, Preconditions: &requests.Preconditions{UID: "uid-existing-web-a"}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			api := newAPIServer(fixedClock, existingPod("web-a"))
			exp := NewExpectations(0)
			s := &Sender{Client: api, Expectations: exp, Owner: "default/web", Now: sendNow}
			r := tc.req
			r.Resource, r.Namespace, r.Name, r.Batch, r.Action = requests.ResourcePods, "default", "web-a", -1, 0
			_, err := s.Send(ctx, []requests.Request{r})
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
			} else if !tc.wantErr(unwrapAll(err)) {
				t.Fatalf("unexpected error %v", err)
			}
			pod := &corev1.Pod{}
			getErr := api.Get(ctx, client.ObjectKey{Namespace: "default", Name: "web-a"}, pod)
			var pending []expectations.Expectation
			exp.Do(func(st *expectations.Store) { pending = st.Pending("default/web") })
			switch {
			case err != nil && r.Verb == requests.VerbDelete:
				if getErr != nil || len(pending) != 0 {
					t.Fatalf("a refused delete removed the pod (%v) or left an expectation %v", getErr, pending)
				}
			case err != nil:
				if pod.Labels["x"] != "" || pod.Spec.Containers[0].Image != "web:1" || len(pending) != 0 {
					t.Fatalf("a refused patch changed the pod (%v, %v) or left an expectation %v", pod.Labels, pod.Spec.Containers, pending)
				}
			case r.Verb == requests.VerbDelete:
				if !apierrors.IsNotFound(getErr) || len(pending) != 1 || pending[0].Op != expectations.OpDelete {
					t.Fatalf("delete: get %v, expectations %v", getErr, pending)
				}
			default:
				if pod.Labels["x"] != "y" || len(pending) != 1 || pending[0].ResourceVersion != pod.ResourceVersion {
					t.Fatalf("patch: labels %v, expectations %v, server at %s", pod.Labels, pending, pod.ResourceVersion)
				}
			}
		})
	}
}

func TestDeleteOfAGoneObjectIsDone(t *testing.T) {
	api := newAPIServer(fixedClock)
	s := &Sender{Client: api, Owner: "default/web", Now: sendNow}
	_, err := s.Send(context.Background(), []requests.Request{{Verb: requests.VerbDelete, Resource: requests.ResourcePods, Namespace: "default", Name: "gone", Batch: -1}})
	if err != nil {
		t.Fatal(err)
	}
}

func TestWithPreconditions(t *testing.T) {
	pre := &requests.Preconditions{UID: "u1", ResourceVersion: "7"}
	got, err := withPreconditions(requests.PatchMerge, []byte(`{"metadata":{"labels":{"a":"b"}},"spec":{"n":1.50}}`), pre)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"metadata":{"labels":{"a":"b"},"resourceVersion":"7","uid":"u1"},"spec":{"n":1.50}}`; !sameJSON(got, []byte(want)) {
		t.Fatalf("merge patch:\n got %s\nwant %s", got, want)
	}
	got, err = withPreconditions(requests.PatchJSON, []byte(`[{"op":"remove","path":"/x"}]`), pre)
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"op":"test","path":"/metadata/uid","value":"u1"},{"op":"test","path":"/metadata/resourceVersion","value":"7"},{"op":"remove","path":"/x"}]`; string(got) != want {
		t.Fatalf("JSON patch:\n got %s\nwant %s", got, want)
	}
	if got, _ := withPreconditions(requests.PatchMerge, []byte(`{}`), nil); string(got) != `{}` {
		t.Fatalf("no preconditions changed the body: %s", got)
	}
	if _, err := withPreconditions("text/plain", []byte(`{}`), pre); err == nil {
		t.Fatal("an unknown patch type was accepted")
	}

}

func TestSendTrailingRequestsNeedTheStatusWrite(t *testing.T) {
	status := requests.Request{Verb: requests.VerbPatch, Resource: requests.ResourceCloneSets, Subresource: requests.SubresourceStatus,
		Namespace: "default", Name: "web", PatchType: requests.PatchMerge, Patch: json.RawMessage(`{"status":{"replicas":1}}`), Batch: -1, Action: -1}
	rewrite := requests.Request{Verb: requests.VerbPatch, Resource: requests.ResourceCloneSets, Namespace: "default", Name: "web",
		PatchType: requests.PatchMerge, Patch: json.RawMessage(`{"spec":{"scaleStrategy":{"podsToDelete":null}}}`), Batch: -1, Action: 2}
	failing := requests.Request{Verb: requests.VerbPatch, Resource: requests.ResourcePods, Namespace: "default", Name: "missing",
		PatchType: requests.PatchMerge, Patch: json.RawMessage(`{"metadata":{"labels":{"x":"y"}}}`), Batch: -1, Action: 0}
	tests := []struct {
		name   string
		status requests.Request
		want   []string
	}{
		{"a failed action: status and rewrite still sent", status, []string{"patch missing (failed)", "patch web", "patch web"}},
		{"a failed status write: no rewrite", func() requests.Request {
			st := status
			st.Preconditions = &requests.Preconditions{UID: "other-uid"}
			return st
		}(), []string{"patch missing (failed)", "patch web (failed)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			api := newAPIServer(fixedClock, existingCloneSet())
			s := &Sender{Client: api, Owner: "default/web", Now: sendNow}
			out, err := s.Send(context.Background(), []requests.Request{failing, tc.status, rewrite})
			if err == nil {
				t.Fatal("no error")
			}
			if got := sentNames(out); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("sent %v, want %v", got, tc.want)
			}
		})
	}
}

// resizeWorld is a CloneSet whose template raises the cpu of its one
// container in place (the vertical-scaling gate on), and its pod at the old
// revision.
const resizeWorld = `apiVersion: clonesetcore/v1alpha1
kind: Scenario
now: "2026-05-06T07:08:09Z"
featureGates: {InPlaceWorkloadVerticalScaling: true}
---
apiVersion: apps.kruise.io/v1beta1
kind: CloneSet
metadata: {name: web, namespace: default, uid: cs-uid, generation: 2}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: main, image: "web:1", resources: {requests: {cpu: 500m, memory: 64Mi}, limits: {cpu: "1", memory: 128Mi}}}]}
  updateStrategy: {rollingUpdate: {podUpdatePolicy: InPlaceIfPossible}}
status: {observedGeneration: 1, replicas: 1, readyReplicas: 1, availableReplicas: 1, currentRevision: web-1, updateRevision: web-1}
---
apiVersion: apps/v1
kind: ControllerRevision
metadata: {name: web-1, namespace: default, labels: {app: web}}
revision: 1
data: {spec: {template: {$patch: replace, metadata: {labels: {app: web}}, spec: {containers: [{name: main, image: "web:1", resources: {requests: {cpu: 250m, memory: 64Mi}, limits: {cpu: "1", memory: 128Mi}}}]}}}}
---
apiVersion: v1
kind: Pod
metadata:
  name: web-a
  namespace: default
  uid: uid-web-a
  labels: {app: web, apps.kruise.io/cloneset-instance-id: a, controller-revision-hash: web-1, pod-template-hash: "1", lifecycle.apps.kruise.io/state: Normal}
  ownerReferences: [{apiVersion: apps.kruise.io/v1beta1, kind: CloneSet, name: web, uid: cs-uid, controller: true}]
spec:
  nodeName: n1
  readinessGates: [{conditionType: InPlaceUpdateReady}]
  containers: [{name: main, image: "web:1", resources: {requests: {cpu: 250m, memory: 64Mi}, limits: {cpu: "1", memory: 128Mi}}}]
status:
  phase: Running
  conditions: [{type: Ready, status: "True"}, {type: InPlaceUpdateReady, status: "True"}]
  containerStatuses: [{name: main, image: "web:1", imageID: sha-1, ready: true}]
`

// resizeWorldPod is the pod of resizeWorld as the API server holds it.
func resizeWorldPod(t *testing.T) *corev1.Pod {
	t.Helper()
	docs := strings.Split(resizeWorld, "\n---\n")
	pod := &corev1.Pod{}
	if err := k8syaml.NewYAMLOrJSONDecoder(strings.NewReader(docs[len(docs)-1]), 4096).Decode(pod); err != nil {
		t.Fatal(err)
	}
	return pod
}

// TestSendResize sends the library's requests for an in-place vertical
// resize: for the newest servers (the default) the resize subresource then
// the pod patch both apply on the fake API server; the requests for a 1.31
// server put the resources in the pod patch, which the fake, acting as a
// current server, refuses with the API server's Forbidden message, and the
// pod keeps its revision.
func TestSendResize(t *testing.T) {
	ctx := context.Background()
	scn, err := manifest.LoadBytes([]byte(resizeWorld), "resize.yaml")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := clonesetcore.Plan(scn)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		version string
		ok      bool
	}{{"", true}, {"v1.32.0", true}, {"v1.31.4", false}} {
		t.Run("server "+c.version, func(t *testing.T) {
			reqs, err := requests.BuildWithOptions(scn, plan, requests.Options{ServerVersion: c.version})
			if err != nil {
				t.Fatal(err)
			}
			api := newAPIServer(fixedClock, resizeWorldPod(t), existingCloneSet())
			s := &Sender{Client: api, Owner: "default/web", Now: sendNow}
			_, err = s.Send(ctx, reqs)
			pod := &corev1.Pod{}
			must(t, api.Get(ctx, client.ObjectKey{Namespace: "default", Name: "web-a"}, pod))
			cpu := pod.Spec.Containers[0].Resources.Requests.Cpu().String()
			if c.ok {
				if err != nil || cpu != "500m" || pod.Labels["controller-revision-hash"] == "web-1" || api.writesTo("patch pods/resize/web-a") != 1 {
					t.Fatalf("err %v, cpu %s, labels %v, resizes %d", err, cpu, pod.Labels, api.writesTo("patch pods/resize/web-a"))
				}
				return
			}
			if !apierrors.IsInvalid(unwrapAll(err)) || !strings.Contains(err.Error(), `Pod "web-a" is invalid: spec: Forbidden: pod updates may not change fields other than`) {
				t.Fatalf("err = %v, want the Forbidden pod update", err)
			}
			if cpu != "250m" || pod.Labels["controller-revision-hash"] != "web-1" {
				t.Fatalf("a refused pod patch changed the pod: cpu %s, labels %v", cpu, pod.Labels)
			}
		})
	}
}

// TestFakeServerPodRules: the fake API server's pod rules on their own. A
// pod patch or update may change an image, not resources; pods/resize
// changes resources and drops anything else; only pods have it.
func TestFakeServerPodRules(t *testing.T) {
	ctx := context.Background()
	patch := func(sub, body string) requests.Request {
		return requests.Request{Verb: requests.VerbPatch, Resource: requests.ResourcePods, Subresource: sub, Namespace: "default", Name: "web-a",
			PatchType: requests.PatchStrategicMerge, Patch: json.RawMessage(body), Preconditions: &requests.Preconditions{UID: "uid-web-a"}, Batch: -1}
	}
	for _, c := range []struct {
		name           string
		req            requests.Request
		wantErr        func(error) bool
		image, cpuWant string
	}{
		{"image", patch("", `{"spec":{"containers":[{"name":"main","image":"web:2"}]}}`), nil, "web:2", "250m"},
		{"resources in a pod patch", patch("", `{"spec":{"containers":[{"name":"main","resources":{"requests":{"cpu":"500m"}}}]}}`), apierrors.IsInvalid, "web:1", "250m"},
		{"the same resources", patch("", `{"spec":{"containers":[{"name":"main","resources":{"requests":{"cpu":"0.25"}}}]}}`), nil, "web:1", "250m"},
		{"activeDeadlineSeconds set by a merge patch", func() requests.Request {
			r := patch("", `{"spec":{"activeDeadlineSeconds":5}}`)
			r.PatchType = requests.PatchMerge
			return r
		}(), nil, "web:1", "250m"},
		{"resize", patch(requests.SubresourceResize, `{"spec":{"containers":[{"name":"main","resources":{"requests":{"cpu":"500m"}}}]}}`), nil, "web:1", "500m"},
		{"resize with an image", patch(requests.SubresourceResize, `{"spec":{"containers":[{"name":"main","image":"web:9","resources":{"requests":{"cpu":"500m"}}}]}}`), nil, "web:1", "500m"},
		{"resize of another resource", patch(requests.SubresourceResize, `{"spec":{"containers":[{"name":"main","resources":{"requests":{"ephemeral-storage":"1Gi"}}}]}}`), apierrors.IsInvalid, "web:1", "250m"},
		{"resize adding a container", patch(requests.SubresourceResize, `{"spec":{"containers":[{"name":"extra","image":"x"}]}}`), apierrors.IsInvalid, "web:1", "250m"},
		{"resize of another uid", func() requests.Request {
			r := patch(requests.SubresourceResize, `{"spec":{"containers":[{"name":"main","resources":{"requests":{"cpu":"500m"}}}]}}`)
			r.Preconditions.UID = "other"
			return r
		}(), apierrors.IsInvalid, "web:1", "250m"},
	} {
		t.Run(c.name, func(t *testing.T) {
			api := newAPIServer(fixedClock, resizeWorldPod(t))
			s := &Sender{Client: api, Owner: "default/web", Now: sendNow}
			_, err := s.Send(ctx, []requests.Request{c.req})
			if c.wantErr == nil && err != nil || c.wantErr != nil && !c.wantErr(unwrapAll(err)) {
				t.Fatalf("err = %v", err)
			}
			pod := &corev1.Pod{}
			must(t, api.Get(ctx, client.ObjectKey{Namespace: "default", Name: "web-a"}, pod))
			if got := pod.Spec.Containers[0]; got.Image != c.image || got.Resources.Requests.Cpu().String() != c.cpuWant {
				t.Errorf("after: image %s cpu %s, want %s %s", got.Image, got.Resources.Requests.Cpu(), c.image, c.cpuWant)
			}
		})
	}
	t.Run("an update changing resources", func(t *testing.T) {
		api := newAPIServer(fixedClock, resizeWorldPod(t))
		pod := &corev1.Pod{}
		must(t, api.Get(ctx, client.ObjectKey{Namespace: "default", Name: "web-a"}, pod))
		pod.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("2")
		if err := api.Update(ctx, pod); !apierrors.IsInvalid(err) {
			t.Errorf("err = %v, want Invalid", err)
		}
	})
	t.Run("resize of a claim", func(t *testing.T) {
		api := newAPIServer(fixedClock, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "default"}})
		s := &Sender{Client: api, Owner: "default/web", Now: sendNow}
		r := patch(requests.SubresourceResize, `{"spec":{}}`)
		r.Resource, r.Name, r.Preconditions = requests.ResourcePersistentVolumeClaims, "data", nil
		if _, err := s.Send(ctx, []requests.Request{r}); !apierrors.IsNotFound(unwrapAll(err)) {
			t.Errorf("err = %v, want NotFound", err)
		}
	})
}

func createClaim(name string, batch, action int) requests.Request {
	b, _ := json.Marshal(corev1.PersistentVolumeClaim{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"}},
	})
	return requests.Request{Verb: requests.VerbCreate, Resource: requests.ResourcePersistentVolumeClaims, Namespace: "default", Name: name,
		Object: b, Batch: batch, Action: action}
}

// TestSendSkipsThePodOfAFailedClaim: a pod whose claim's create failed is
// not created (upstream's createOnePod returns before the pod); the other
// pod of the batch is, no later batch starts, the status is written.
func TestSendSkipsThePodOfAFailedClaim(t *testing.T) {
	exists := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data-web-a", Namespace: "default"}}
	api := newAPIServer(fixedClock, exists, existingCloneSet())
	s := &Sender{Client: api, Expectations: NewExpectations(0), Owner: "default/web", Now: sendNow}
	reqs := []requests.Request{
		createClaim("data-web-a", 0, 0), // exists: AlreadyExists
		createPod("web-a", 0, 0),        // its pod: not sent
		createClaim("data-web-c", 0, 1),
		createPod("web-c", 0, 1),
		createPod("web-d", 1, 2), // later batch: not started
		{Verb: requests.VerbPatch, Resource: requests.ResourceCloneSets, Subresource: requests.SubresourceStatus, Namespace: "default", Name: "web",
			PatchType: requests.PatchMerge, Patch: json.RawMessage(`{"status":{"replicas":1}}`), Batch: -1, Action: -1},
	}
	out, err := s.Send(context.Background(), reqs)
	if !apierrors.IsAlreadyExists(unwrapAll(err)) {
		t.Fatalf("want the AlreadyExists of data-web-a, got %v", err)
	}
	want := []string{"create data-web-a (failed)", "create data-web-c", "create web-c", "patch web"}
	if got := sentNames(out); !reflect.DeepEqual(got, want) {
		t.Fatalf("sent %v, want %v", got, want)
	}
}
