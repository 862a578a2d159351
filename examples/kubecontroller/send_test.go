package kubecontroller

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/expectations"
	"github.com/clonecore/cloneset/requests"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"
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
	if want := []string{"web-a create", "web-b resourceVersion", "web-c create"}; !reflect.DeepEqual(pending, want) {
		t.Fatalf("expectations %v, want %v (the failed create lowered, the unsent one never raised, the patch followed)", pending, want)
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
	if want := `{"metadata":{"labels":{"a":"b"},"resourceVersion":"7","uid":"u1"},"spec":{"n":1.50}}`; string(got) != want {
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
