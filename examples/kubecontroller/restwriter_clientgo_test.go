package kubecontroller

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clonecore/cloneset/requests"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
)

// cannedAnswer is an answer of a fake API server: its status code,
// headers and body.
type cannedAnswer struct {
	code    int
	headers map[string]string
	body    string
}

// cannedServer answers each request with the next of answers (the last
// one again once they run out) and counts the requests; the test's end
// stops it.
func cannedServer(t *testing.T, answers ...cannedAnswer) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		a := answers[min(int(n.Add(1))-1, len(answers)-1)]
		for k, v := range a.headers {
			w.Header().Set(k, v)
		}
		w.WriteHeader(a.code)
		_, _ = io.WriteString(w, a.body)
	}))
	t.Cleanup(s.Close)
	return s, &n
}

// clientGoPatch sends the patch of TestRESTWriterAnswersAsClientGo as the
// writer did through client-go's REST client, and reads the answer's
// resourceVersion as it did.
func clientGoPatch(t *testing.T, host string) (string, error) {
	t.Helper()
	c := metadata.ConfigFor(&rest.Config{Host: host, QPS: -1})
	c.GroupVersion = &schema.GroupVersion{}
	c.APIPath = "/paths-are-absolute"
	rc, err := rest.RESTClientFor(c)
	if err != nil {
		t.Fatal(err)
	}
	result := rc.Patch(types.MergePatchType).AbsPath("api", "v1", "namespaces", "default", "pods", "web-a").
		SetHeader("Accept", partialObjectMetadata).Body([]byte(`{}`)).Do(context.Background())
	if err := result.Error(); err != nil {
		return "", err
	}
	raw, err := result.Raw()
	if err != nil {
		return "", err
	}
	return resourceVersionOf(raw)
}

// TestRESTWriterAnswersAsClientGo: for each answer an API server (or a
// proxy before it) may give a write, the writer returns what client-go's
// REST client returned for it (the resourceVersion, or an error of the same
// text, reason, code, details and Retry-After), and sends the request again
// as often: an answer 429 or 5xx with a Retry-After of whole seconds once
// more (client-go waits that long: the cases wait 1 s), no other.
func TestRESTWriterAnswersAsClientGo(t *testing.T) {
	jsonType := map[string]string{"Content-Type": "application/json"}
	status := func(code int32, reason metav1.StatusReason, msg string) *metav1.Status {
		return &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure, Code: code, Reason: reason, Message: msg}
	}
	invalid := status(422, metav1.StatusReasonInvalid, `Pod "web-a" is invalid: spec.containers[0].image: Required value`)
	invalid.Details = &metav1.StatusDetails{Name: "web-a", Kind: "Pod", Causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueRequired, Message: "Required value", Field: "spec.containers[0].image"}}}
	for _, tc := range []struct {
		name    string
		answers []cannedAnswer
		sent    int32
	}{
		{name: "metadata in JSON", answers: []cannedAnswer{{code: 200, headers: jsonType, body: partialAnswer("42")}}, sent: 1},
		{name: "the whole object in JSON", answers: []cannedAnswer{{code: 200, headers: jsonType, body: `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-a","resourceVersion":"9"}}`}}, sent: 1},
		{name: "a conflict", answers: []cannedAnswer{{code: 409, headers: jsonType, body: `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Conflict","code":409,"message":"the object has been modified"}`}}, sent: 1},
		{name: "not found in protobuf", answers: []cannedAnswer{{code: 404, headers: map[string]string{"Content-Type": "application/vnd.kubernetes.protobuf"},
			body: string(protobufAnswer(t, status(404, metav1.StatusReasonNotFound, `pods "web-a" not found`)))}}, sent: 1},
		{name: "invalid, with its causes", answers: []cannedAnswer{{code: 422, headers: jsonType, body: mustJSON(t, invalid)}}, sent: 1},
		{name: "a Status that says Success", answers: []cannedAnswer{{code: 409, headers: jsonType, body: `{"kind":"Status","apiVersion":"v1","status":"Success","code":409}`}}, sent: 1},
		{name: "JSON that is no Status", answers: []cannedAnswer{{code: 503, headers: jsonType, body: `{"error":"upstream"}`}}, sent: 1},
		{name: "text", answers: []cannedAnswer{{code: 502, headers: map[string]string{"Content-Type": "text/plain; charset=utf-8"}, body: "  bad gateway\n"}}, sent: 1},
		{name: "no content type", answers: []cannedAnswer{{code: 500, body: "internal"}}, sent: 1},
		{name: "a content type that does not parse", answers: []cannedAnswer{{code: 500, headers: map[string]string{"Content-Type": "a/b/c"}, body: "x"}}, sent: 1},
		{name: "an unknown media type", answers: []cannedAnswer{{code: 500, headers: map[string]string{"Content-Type": "application/x-unknown"}, body: "x"}}, sent: 1},
		{name: "too many requests, then done", answers: []cannedAnswer{
			{code: 429, headers: map[string]string{"Content-Type": "application/json", "Retry-After": "1"}, body: mustJSON(t, status(429, metav1.StatusReasonTooManyRequests, "slow down"))},
			{code: 200, headers: jsonType, body: partialAnswer("43")}}, sent: 2},
		{name: "unavailable with a Retry-After, then a conflict", answers: []cannedAnswer{
			{code: 503, headers: map[string]string{"Content-Type": "text/plain", "Retry-After": "1"}, body: "shutting down"},
			{code: 409, headers: jsonType, body: `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Conflict","code":409,"message":"modified"}`}}, sent: 2},
		{name: "a Retry-After not in seconds", answers: []cannedAnswer{{code: 429, headers: map[string]string{"Content-Type": "application/json", "Retry-After": "Fri, 31 Dec 1999 23:59:59 GMT"},
			body: mustJSON(t, status(429, metav1.StatusReasonTooManyRequests, "slow down"))}}, sent: 1},
		{name: "a Retry-After on a conflict", answers: []cannedAnswer{{code: 409, headers: map[string]string{"Content-Type": "application/json", "Retry-After": "1"},
			body: `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Conflict","code":409,"message":"modified"}`}}, sent: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			reference, referenceSent := cannedServer(t, tc.answers...)
			wantRV, wantErr := clientGoPatch(t, reference.URL)
			s, sent := cannedServer(t, tc.answers...)
			w, err := NewRESTWriter(&rest.Config{Host: s.URL, QPS: -1}, nil)
			if err != nil {
				t.Fatal(err)
			}
			rv, err := w.patch(context.Background(), requests.Request{Resource: requests.ResourcePods, Namespace: "default", Name: "web-a", PatchType: requests.PatchMerge}, CloneSetV1beta1, []byte(`{}`))
			if rv != wantRV || fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("got %q, %v; client-go's %q, %v", rv, err, wantRV, wantErr)
			}
			if !reflect.DeepEqual(apiStatusOf(err), apiStatusOf(wantErr)) {
				t.Errorf("the error's status %+v; client-go's %+v", apiStatusOf(err), apiStatusOf(wantErr))
			}
			if n, want := sent.Load(), referenceSent.Load(); n != want || n != tc.sent {
				t.Errorf("sent %d times, client-go %d, want %d", n, want, tc.sent)
			}
		})
	}
}

// apiStatusOf is the Status of an API error, nil for another error.
func apiStatusOf(err error) *metav1.Status {
	if s, ok := err.(apierrors.APIStatus); ok {
		st := s.Status()
		return &st
	}
	return nil
}

// TestRESTWriterRetries: an answer asking for the request again is obeyed
// at most maxRetries times, each after the time it says; a write stops
// waiting when its context ends.
func TestRESTWriterRetries(t *testing.T) {
	s, sent := cannedServer(t, cannedAnswer{code: 429, headers: map[string]string{"Content-Type": "application/json", "Retry-After": "3"},
		body: `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","code":429,"message":"slow down"}`})
	w, err := NewRESTWriter(&rest.Config{Host: s.URL, QPS: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var waits []time.Duration
	w.sleep = func(_ context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		waits = append(waits, d)
		return nil
	}
	err = w.delete(context.Background(), requests.Request{Resource: requests.ResourcePods, Namespace: "default", Name: "web-a"}, CloneSetV1beta1, nil)
	if !apierrors.IsTooManyRequests(err) {
		t.Errorf("after the retries: %v, want too many requests", err)
	}
	if n := sent.Load(); n != maxRetries+1 {
		t.Errorf("sent %d times, want %d", n, maxRetries+1)
	}
	if len(waits) != maxRetries || waits[0] != 3*time.Second {
		t.Errorf("waited %v, want %d times 3s", waits, maxRetries)
	}

	ctx, cancel := context.WithCancel(context.Background())
	w.sleep = func(ctx context.Context, d time.Duration) error {
		cancel()
		return sleepContext(ctx, d)
	}
	sent.Store(0)
	if err := w.delete(ctx, requests.Request{Resource: requests.ResourcePods, Namespace: "default", Name: "web-a"}, CloneSetV1beta1, nil); err != context.Canceled {
		t.Errorf("a write whose context ends while it waits: %v, want %v", err, context.Canceled)
	}
	if n := sent.Load(); n != 1 {
		t.Errorf("sent %d times, want 1", n)
	}
}

// recordedWarnings records the warnings a writer hands on.
type recordedWarnings struct {
	mu    sync.Mutex
	texts []string
}

// HandleWarningHeader records the warning's text.
func (r *recordedWarnings) HandleWarningHeader(code int, agent, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.texts = append(r.texts, fmt.Sprintf("%d %s %s", code, agent, text))
}

// TestRESTWriterWarningsAndRateLimit: the server's warnings go to the
// configuration's handler, of a success and of a refusal alike; the
// configuration's rate limit applies to every write; the server's URL
// keeps its path.
func TestRESTWriterWarningsAndRateLimit(t *testing.T) {
	var paths []string
	var mu sync.Mutex
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		w.Header().Add("Warning", `299 - "spec.foo is deprecated"`)
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodDelete {
			w.WriteHeader(404)
			_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
			return
		}
		_, _ = io.WriteString(w, partialAnswer("5"))
	}))
	t.Cleanup(s.Close)
	warnings := &recordedWarnings{}
	limiter := &countingLimiter{}
	w, err := NewRESTWriter(&rest.Config{Host: s.URL + "/prefix", WarningHandler: warnings, RateLimiter: limiter}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := w.patch(ctx, requests.Request{Resource: requests.ResourcePods, Namespace: "default", Name: "web-a", PatchType: requests.PatchMerge}, CloneSetV1beta1, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if err := w.delete(ctx, requests.Request{Resource: requests.ResourcePods, Namespace: "default", Name: "web-b"}, CloneSetV1beta1, nil); !apierrors.IsNotFound(err) {
		t.Fatalf("delete: %v", err)
	}
	if want := []string{`299 - spec.foo is deprecated`, `299 - spec.foo is deprecated`}; !reflect.DeepEqual(warnings.texts, want) {
		t.Errorf("warnings %q, want %q", warnings.texts, want)
	}
	if n := limiter.waits.Load(); n != 2 {
		t.Errorf("the rate limiter was asked %d times, want 2", n)
	}
	if want := []string{"/prefix/api/v1/namespaces/default/pods/web-a", "/prefix/api/v1/namespaces/default/pods/web-b"}; !reflect.DeepEqual(paths, want) {
		t.Errorf("paths %q, want %q", paths, want)
	}
}

// countingLimiter is a rate limiter that never waits and counts the
// writes it let through.
type countingLimiter struct{ waits atomic.Int32 }

func (l *countingLimiter) TryAccept() bool { return true }
func (l *countingLimiter) Accept()         { l.waits.Add(1) }
func (l *countingLimiter) Stop()           {}
func (l *countingLimiter) QPS() float32    { return 0 }
func (l *countingLimiter) Wait(context.Context) error {
	l.waits.Add(1)
	return nil
}

// mustJSON is v in JSON.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// BenchmarkRESTWriterPatch sends a pod's patch over TLS to a server
// answering as kube-apiserver does (the pod's metadata in protobuf, its
// eight managedFields entries included), with the writer and with
// client-go's REST client as the writer used it before; cpu-us/op is the
// process's CPU time per patch, the server's share included (the same in
// both).
func BenchmarkRESTWriterPatch(b *testing.B) {
	pod := kwokPodMetadata()
	answer := protobufAnswer(b, &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"}, ObjectMeta: pod})
	s := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf")
		_, _ = w.Write(answer)
	}))
	b.Cleanup(s.Close)
	cfg := &rest.Config{Host: s.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}, BearerToken: "token", QPS: -1}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		b.Fatal(err)
	}
	w, err := NewRESTWriter(cfg, hc)
	if err != nil {
		b.Fatal(err)
	}
	c := metadata.ConfigFor(cfg)
	c.GroupVersion = &schema.GroupVersion{}
	c.APIPath = "/paths-are-absolute"
	rc, err := rest.RESTClientForConfigAndClient(c, hc)
	if err != nil {
		b.Fatal(err)
	}
	body := []byte(`{"metadata":{"labels":{"lifecycle.apps.kruise.io/state":"Normal"},"resourceVersion":"4817263"}}`)
	ctx := context.Background()
	for _, via := range []string{"writer", "client-go"} {
		b.Run("via="+via, func(b *testing.B) {
			b.ReportAllocs()
			cpu := processCPUTime()
			for b.Loop() {
				var rv string
				var err error
				if via == "writer" {
					rv, err = w.patch(ctx, requests.Request{Resource: requests.ResourcePods, Namespace: pod.Namespace, Name: pod.Name, PatchType: requests.PatchMerge}, CloneSetV1beta1, body)
				} else {
					result := rc.Patch(types.MergePatchType).AbsPath("api", "v1", "namespaces", pod.Namespace, "pods", pod.Name).
						SetHeader("Accept", partialObjectMetadata).Body(body).Do(ctx)
					var raw []byte
					if raw, err = result.Raw(); err == nil {
						rv, err = resourceVersionOf(raw)
					}
				}
				if err != nil || rv != pod.ResourceVersion {
					b.Fatalf("resourceVersion %q, %v", rv, err)
				}
			}
			b.ReportMetric(float64(processCPUTime()-cpu)/1e3/float64(b.N), "cpu-us/op")
		})
	}
}

// protobufAnswer is obj (a PartialObjectMetadata or a Status) as
// kube-apiserver encodes it in protobuf.
func protobufAnswer(tb testing.TB, obj runtime.Object) []byte {
	tb.Helper()
	scheme := runtime.NewScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		tb.Fatal(err)
	}
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	var b bytes.Buffer
	if err := protobuf.NewSerializer(scheme, scheme).Encode(obj, &b); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// kwokPodMetadata is a pod's metadata as kube-apiserver answers a write of
// a pod of a rollout on kwok: labels, the in-place update state, the owner
// and eight managedFields entries (the controller's, the scheduler's,
// kwok's), about 4.5 KB in protobuf as the answers of the benchmark's
// rollout average.
func kwokPodMetadata() metav1.ObjectMeta {
	at := metav1.NewTime(time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC))
	fields := func(n int) *metav1.FieldsV1 {
		return &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{"f:lifecycle.apps.kruise.io/state":{}` + strings.Repeat(`,"f:x":{}`, n) + `}}}`)}
	}
	var managed []metav1.ManagedFieldsEntry
	for i, manager := range []string{"clonesetcontroller", "kube-scheduler", "clonesetcontroller", "kwok", "clonesetcontroller", "clonesetcontroller", "kwok", "clonesetcontroller"} {
		managed = append(managed, metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
			Time: &at, FieldsType: "FieldsV1", FieldsV1: fields(40 + 10*i)})
	}
	controller := true
	return metav1.ObjectMeta{
		Name: "sample-x7k2p", GenerateName: "sample-", Namespace: "rollout", UID: "6f1c2d3e-4b5a-4c6d-8e7f-901234567890", ResourceVersion: "4817263",
		CreationTimestamp: at,
		Labels: map[string]string{"app": "sample", "controller-revision-hash": "sample-6c9d7f8b4", "apps.kruise.io/cloneset-instance-id": "x7k2p",
			"lifecycle.apps.kruise.io/state": "Normal", "pod-template-hash": "6c9d7f8b4"},
		Annotations:     map[string]string{"apps.kruise.io/inplace-update-state": `{"revision":"sample-6c9d7f8b4","updateTimestamp":"2026-11-28T10:00:01Z"}`},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps.kruise.io/v1beta1", Kind: "CloneSet", Name: "sample", UID: "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", Controller: &controller, BlockOwnerDeletion: &controller}},
		ManagedFields:   managed,
	}
}
