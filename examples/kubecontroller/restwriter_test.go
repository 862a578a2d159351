package kubecontroller

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/clonecore/cloneset/expectations"
	"github.com/clonecore/cloneset/requests"
	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// seenRequest is a request as a fake API server received it.
type seenRequest struct {
	method, path, contentType, accept, body string
}

// fakeWriteServer answers every request with answer (status and JSON body,
// or protobuf when it starts with the protobuf serializer's prefix)
// and records what it received; the test's end stops it.
func fakeWriteServer(t *testing.T, answer func(r seenRequest) (int, string)) (*RESTWriter, func() []seenRequest) {
	t.Helper()
	var mu sync.Mutex
	var seen []seenRequest
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req := seenRequest{method: r.Method, path: r.URL.Path, contentType: r.Header.Get("Content-Type"), accept: r.Header.Get("Accept"), body: string(body)}
		mu.Lock()
		seen = append(seen, req)
		mu.Unlock()
		code, out := answer(req)
		w.Header().Set("Content-Type", "application/json")
		if strings.HasPrefix(out, "k8s\x00") {
			w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf")
		}
		w.WriteHeader(code)
		fmt.Fprint(w, out)
	}))
	t.Cleanup(s.Close)
	w, err := NewRESTWriter(&rest.Config{Host: s.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return w, func() []seenRequest {
		mu.Lock()
		defer mu.Unlock()
		return append([]seenRequest(nil), seen...)
	}
}

// partialAnswer is a PartialObjectMetadata answer at resourceVersion rv.
func partialAnswer(rv string) string {
	return fmt.Sprintf(`{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"x","resourceVersion":%q}}`, rv)
}

// TestRESTWriterSendsTheRequestsBytes: each verb goes to its path with the
// request's own bytes and media type, asks for the metadata only, and the
// Sender records the resourceVersion of the answer of a patch.
func TestRESTWriterSendsTheRequestsBytes(t *testing.T) {
	w, seen := fakeWriteServer(t, func(r seenRequest) (int, string) {
		if r.method == http.MethodDelete {
			return 200, `{"kind":"Status","apiVersion":"v1","status":"Success"}`
		}
		return 200, partialAnswer("42")
	})
	exp := NewExpectations(0)
	s := &Sender{Writer: w, Expectations: exp, Owner: "default/web", Now: sendNow}
	podPatch := `{"metadata":{"labels":{"a":"b"}}}`
	reqs := []requests.Request{
		createPod("web-a", 0, 0),
		{Verb: requests.VerbPatch, Resource: requests.ResourcePods, Subresource: requests.SubresourceStatus, Namespace: "default", Name: "web-b",
			PatchType: requests.PatchStrategicMerge, Patch: json.RawMessage(podPatch), Batch: -1, Action: 1},
		{Verb: requests.VerbDelete, Resource: requests.ResourcePods, Namespace: "default", Name: "web-c",
			Preconditions: &requests.Preconditions{UID: "uid-c"}, Batch: -1, Action: 2},
		{Verb: requests.VerbCreate, Resource: requests.ResourceControllerRevisions, Namespace: "default", Name: "web-rev",
			Object: json.RawMessage(`{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"web-rev"},"revision":1}`), Batch: -1, Action: 3},
		{Verb: requests.VerbPatch, Resource: requests.ResourceCloneSets, Subresource: requests.SubresourceStatus, Namespace: "default", Name: "web",
			PatchType: requests.PatchMerge, Patch: json.RawMessage(`{"status":{"replicas":1}}`), Preconditions: &requests.Preconditions{ResourceVersion: "7"}, Batch: -1, Action: -1},
		{Verb: requests.VerbCreate, Resource: requests.ResourceImagePullJobs, Namespace: "default", Name: "web-rev-main", Tolerated: true,
			Object: json.RawMessage(`{"apiVersion":"apps.kruise.io/v1beta1","kind":"ImagePullJob","metadata":{"name":"web-rev-main"}}`), Batch: -1, Action: 5},
		{Verb: requests.VerbDelete, Resource: requests.ResourceImagePullJobs, Namespace: "default", Name: "web-old-main", Tolerated: true,
			Preconditions: &requests.Preconditions{UID: "uid-j"}, Batch: -1, Action: 6},
	}
	if _, err := s.Send(context.Background(), reqs); err != nil {
		t.Fatal(err)
	}
	got := seen()
	want := []struct{ method, path, contentType, body string }{
		{"POST", "/api/v1/namespaces/default/pods", "application/json", string(reqs[0].Object)},
		{"PATCH", "/api/v1/namespaces/default/pods/web-b/status", "application/strategic-merge-patch+json", podPatch},
		{"DELETE", "/api/v1/namespaces/default/pods/web-c", "application/json", `{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"uid-c"}}`},
		{"POST", "/apis/apps/v1/namespaces/default/controllerrevisions", "application/json", string(reqs[3].Object)},
		{"PATCH", "/apis/apps.kruise.io/v1beta1/namespaces/default/clonesets/web/status", "application/merge-patch+json", `{"metadata":{"resourceVersion":"7"},"status":{"replicas":1}}`},
		{"POST", "/apis/apps.kruise.io/v1beta1/namespaces/default/imagepulljobs", "application/json", string(reqs[5].Object)},
		{"DELETE", "/apis/apps.kruise.io/v1beta1/namespaces/default/imagepulljobs/web-old-main", "application/json", `{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"uid-j"}}`},
	}
	if len(got) != len(want) {
		t.Fatalf("the server received %d requests, want %d: %+v", len(got), len(want), got)
	}
	for i, wr := range want {
		g := got[i]
		if g.method != wr.method || g.path != wr.path || g.contentType != wr.contentType || g.body != wr.body {
			t.Errorf("request %d: %s %s (%s) %s\nwant %s %s (%s) %s", i, g.method, g.path, g.contentType, g.body, wr.method, wr.path, wr.contentType, wr.body)
		}
		if g.accept != partialObjectMetadata {
			t.Errorf("request %d: Accept %q, want the metadata only", i, g.accept)
		}
	}
	var rv string
	exp.Do(func(st *expectations.Store) {
		v := st.Satisfied("default/web", sendNow, func(o expectations.Object) expectations.Observation {
			return expectations.Observation{Present: true, ResourceVersion: "41"}
		})
		for _, p := range v.Pending {
			if p.Object.Name == "web-b" {
				rv = p.ResourceVersion
			}
		}
	})
	if rv != "42" {
		t.Errorf("the patched pod's expected resourceVersion is %q, want the answer's 42", rv)
	}
}

// TestRESTWriterReadsAWholeObjectAnswer: a server that answers the whole
// object (no metadata transformation) gives its resourceVersion all the
// same.
func TestRESTWriterReadsAWholeObjectAnswer(t *testing.T) {
	w, _ := fakeWriteServer(t, func(seenRequest) (int, string) {
		return 200, `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-b","resourceVersion":"9"},"spec":{"containers":[{"name":"main","image":"web:2"}]}}`
	})
	rv, err := w.patch(context.Background(), requests.Request{Verb: requests.VerbPatch, Resource: requests.ResourcePods, Namespace: "default", Name: "web-b",
		PatchType: requests.PatchStrategicMerge}, CloneSetV1beta1, []byte(`{}`))
	if err != nil || rv != "9" {
		t.Fatalf("resourceVersion %q, %v; want 9", rv, err)
	}
}

// TestRESTWriterReadsAProtobufAnswer: the API server's answer as it sends
// it, the metadata in protobuf (managedFields included), gives the
// resourceVersion.
func TestRESTWriterReadsAProtobufAnswer(t *testing.T) {
	answer := protobufAnswer(t, &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"},
		ObjectMeta: metav1.ObjectMeta{Name: "web-b", ResourceVersion: "77", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "clonesetcontroller"}}}})
	w, _ := fakeWriteServer(t, func(seenRequest) (int, string) { return 200, string(answer) })
	rv, err := w.patch(context.Background(), requests.Request{Verb: requests.VerbPatch, Resource: requests.ResourcePods, Namespace: "default", Name: "web-b",
		PatchType: requests.PatchStrategicMerge}, CloneSetV1beta1, []byte(`{}`))
	if err != nil || rv != "77" {
		t.Fatalf("resourceVersion %q, %v; want 77", rv, err)
	}
}

// TestRESTWriterErrors: the API server's refusals are API errors as from
// any client (a conflict, a missing object, an existing one), and a request
// the writer cannot address is refused before it is sent.
func TestRESTWriterErrors(t *testing.T) {
	w, seen := fakeWriteServer(t, func(r seenRequest) (int, string) {
		switch r.method {
		case http.MethodPatch:
			return 409, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Conflict","code":409,"message":"the object has been modified"}`
		case http.MethodDelete:
			return 404, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"not found"}`
		}
		return 409, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"AlreadyExists","code":409,"message":"exists"}`
	})
	ctx := context.Background()
	_, err := w.patch(ctx, requests.Request{Resource: requests.ResourceCloneSets, Subresource: "status", Namespace: "default", Name: "web", PatchType: requests.PatchMerge}, CloneSetV1beta1, []byte(`{}`))
	if !apierrors.IsConflict(err) {
		t.Errorf("patch: %v, want a conflict", err)
	}
	if err := w.delete(ctx, requests.Request{Resource: requests.ResourcePods, Namespace: "default", Name: "web-a"}, CloneSetV1beta1, nil); !apierrors.IsNotFound(err) {
		t.Errorf("delete: %v, want not found", err)
	}
	if err := w.create(ctx, createPod("web-a", 0, 0), CloneSetV1beta1); !apierrors.IsAlreadyExists(err) {
		t.Errorf("create: %v, want already exists", err)
	}
	before := len(seen())
	for name, r := range map[string]requests.Request{
		"unknown resource": {Verb: requests.VerbCreate, Resource: "deployments", Namespace: "default", Object: podJSON("x")},
		"no namespace":     {Verb: requests.VerbCreate, Resource: requests.ResourcePods, Object: podJSON("x")},
		"no object":        {Verb: requests.VerbCreate, Resource: requests.ResourcePods, Namespace: "default"},
	} {
		if err := w.create(ctx, r, CloneSetV1beta1); err == nil || apierrors.ReasonForError(err) != "" {
			t.Errorf("%s: %v, want an error of the request", name, err)
		}
	}
	if err := w.delete(ctx, requests.Request{Resource: requests.ResourcePods, Namespace: "default"}, CloneSetV1beta1, nil); err == nil || !strings.Contains(err.Error(), "no name") {
		t.Errorf("a delete without a name: %v", err)
	}
	if n := len(seen()) - before; n != 0 {
		t.Errorf("%d bad requests reached the server", n)
	}
}

// TestSetupWithManagerWriter: SetupWithManager gives the Reconciler a
// RESTWriter when its Client is the manager's, and none when the Client is
// one of the caller's (which keeps getting the writes), in a dry run, or
// when a Writer is set already.
func TestSetupWithManagerWriter(t *testing.T) {
	mine := &RESTWriter{}
	for _, tc := range []struct {
		name       string
		own        bool // the Client is the caller's
		dryRun     bool
		writer     *RESTWriter
		wantWriter bool
	}{
		{name: "the manager's client", wantWriter: true},
		{name: "a client of the caller's", own: true},
		{name: "a dry run", dryRun: true},
		{name: "a writer given", writer: mine, wantWriter: true},
	} {
		skip := true
		mgr, err := ctrl.NewManager(&rest.Config{Host: "http://127.0.0.1:1"}, ctrl.Options{
			Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0", Logger: logr.Discard(),
			Controller: config.Controller{SkipNameValidation: &skip},
		})
		if err != nil {
			t.Fatal(err)
		}
		r := &Reconciler{Client: mgr.GetClient(), DryRun: tc.dryRun, Writer: tc.writer}
		if tc.own {
			r.Client = fake.NewClientBuilder().Build()
		}
		if err := r.SetupWithManager(mgr); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if (r.Writer != nil) != tc.wantWriter || tc.writer != nil && r.Writer != tc.writer {
			t.Errorf("%s: writer %v, want one: %t", tc.name, r.Writer, tc.wantWriter)
		}
	}
}
