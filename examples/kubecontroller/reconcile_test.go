package kubecontroller

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/clonecore/cloneset/expectations"
	"github.com/clonecore/cloneset/requests"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// writeCounter wraps a client and counts every write it is asked for
// (creates, updates, patches, deletes, applies, of objects and
// subresources), whether or not it succeeds.
type writeCounter struct {
	client.WithWatch
	mu     sync.Mutex
	writes []string
}

func newWriteCounter(c client.WithWatch) *writeCounter {
	w := &writeCounter{}
	count := func(verb string, obj client.Object) {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.writes = append(w.writes, verb+" "+obj.GetName())
	}
	w.WithWatch = interceptor.NewClient(c, interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			count("create", obj)
			return c.Create(ctx, obj, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			count("delete", obj)
			return c.Delete(ctx, obj, opts...)
		},
		DeleteAllOf: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteAllOfOption) error {
			count("deleteAllOf", obj)
			return c.DeleteAllOf(ctx, obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			count("update", obj)
			return c.Update(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			count("patch", obj)
			return c.Patch(ctx, obj, patch, opts...)
		},
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			w.mu.Lock()
			w.writes = append(w.writes, "apply")
			w.mu.Unlock()
			return c.Apply(ctx, obj, opts...)
		},
		SubResourceCreate: func(ctx context.Context, c client.Client, sub string, obj, subObj client.Object, opts ...client.SubResourceCreateOption) error {
			count("create "+sub, obj)
			return c.SubResource(sub).Create(ctx, obj, subObj, opts...)
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			count("update "+sub, obj)
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			count("patch "+sub, obj)
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
	})
	return w
}

// taken returns the writes counted so far and forgets them.
func (w *writeCounter) taken() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.writes
	w.writes = nil
	return out
}

// recordedEvent is one event a Reconciler recorded.
type recordedEvent struct {
	regarding                 string // namespace/name
	eventType, reason, action string
	note                      string
}

// eventLog is an events.EventRecorder that keeps the events.
type eventLog struct {
	mu     sync.Mutex
	events []recordedEvent
}

var _ events.EventRecorder = (*eventLog)(nil)

func (l *eventLog) Eventf(regarding, related runtime.Object, eventType, reason, action, note string, args ...any) {
	o := regarding.(client.Object)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, recordedEvent{o.GetNamespace() + "/" + o.GetName(), eventType, reason, action, fmt.Sprintf(note, args...)})
}

func (l *eventLog) all() []recordedEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]recordedEvent(nil), l.events...)
}

// namedCloneSet is baseCloneSet named name, with uid name+"-uid".
func namedCloneSet(t *testing.T, name string, replicas int, strategy string) *unstructured.Unstructured {
	t.Helper()
	u := unstructuredFrom(t, baseCloneSet(replicas, strategy, ""))
	u.SetName(name)
	u.SetUID(types.UID(name + "-uid"))
	return u
}

// noBudget is a strategy the admission webhook refuses: maxUnavailable and
// maxSurge both 0 (B17).
const noBudget = `{"type": "RollingUpdate", "rollingUpdate": {"podUpdatePolicy": "ReCreate", "maxUnavailable": 0, "maxSurge": 0}}`

func request(name string) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "default", Name: name}}
}

// reconcileOnce runs one round and fails the test on an error.
func reconcileOnce(t *testing.T, r *Reconciler, name string) reconcile.Result {
	t.Helper()
	res, err := r.Reconcile(context.Background(), request(name))
	if err != nil {
		t.Fatalf("reconcile %s: %v", name, err)
	}
	return res
}

// TestRefusedCloneSetGetsOneWarningEvent: a CloneSet the webhook would
// refuse gets one Warning event naming the field and no write, with no
// error and no requeue, however often it is reconciled; a valid CloneSet of
// the same namespace reconciles; the refused one reconciles once it is
// fixed.
func TestRefusedCloneSetGetsOneWarningEvent(t *testing.T) {
	now := e2eStart
	api := newAPIServer(func() time.Time { return now }, namespacedCopy(t, "web", 2, inPlace), namespacedCopy(t, "bad", 2, noBudget))
	writes := newWriteCounter(api)
	log := &eventLog{}
	var lines []string
	r := &Reconciler{Client: writes, Recorder: log, Now: func() time.Time { return now }, Logf: func(f string, a ...any) { lines = append(lines, fmt.Sprintf(f, a...)) }}

	for i := 0; i < 3; i++ {
		res := reconcileOnce(t, r, "bad")
		if res.RequeueAfter != 0 {
			t.Errorf("round %d: requeue after %s, want none", i, res.RequeueAfter)
		}
		if r.Last.Refused == nil || r.Last.Plan != nil {
			t.Errorf("round %d: refused %v, planned %v", i, r.Last.Refused, r.Last.Plan != nil)
		}
		if w := writes.taken(); len(w) > 0 {
			t.Fatalf("round %d: a refused CloneSet was written to: %v", i, w)
		}
	}
	got := log.all()
	if len(got) != 1 {
		t.Fatalf("%d events, want exactly 1: %+v", len(got), got)
	}
	e := got[0]
	const field = "spec.updateStrategy.rollingUpdate.maxUnavailable"
	if e.regarding != "default/bad" || e.eventType != corev1.EventTypeWarning || e.reason != ReasonInvalidSpec || e.action != ActionReconcile ||
		!strings.Contains(e.note, field) || !strings.Contains(e.note, "maxUnavailable and maxSurge should not both be less than 1") {
		t.Errorf("event %+v: want a Warning %s on default/bad naming %s and the reason", e, ReasonInvalidSpec, field)
	}
	if len(lines) != 1 || !strings.Contains(lines[0], field) {
		t.Errorf("log %q: want one line naming %s", lines, field)
	}

	// The valid CloneSet next to it reconciles.
	reconcileOnce(t, r, "web")
	if w := writes.taken(); !containsPrefix(w, "create web-") || !containsPrefix(w, "patch status web") {
		t.Errorf("the valid CloneSet wrote %v, want its pods created and its status", w)
	}

	// Fixed (a new generation), the refused one reconciles; refused again,
	// it gets a second event.
	setStrategy(t, api, "bad", inPlace)
	reconcileOnce(t, r, "bad")
	if w := writes.taken(); r.Last.Refused != nil || !containsPrefix(w, "create bad-") {
		t.Errorf("the fixed CloneSet: refused %v, wrote %v", r.Last.Refused, w)
	}
	setStrategy(t, api, "bad", noBudget)
	reconcileOnce(t, r, "bad")
	if n := len(log.all()); n != 2 {
		t.Errorf("%d events after a second refused generation, want 2", n)
	}
}

// TestConversionErrorIsRefused: a field of the wrong type is refused the same
// way, naming the field.
func TestConversionErrorIsRefused(t *testing.T) {
	now := e2eStart
	bad := namespacedCopy(t, "bad", 2, inPlace)
	must(t, unstructured.SetNestedField(bad.Object, "two", "spec", "replicas"))
	api := newAPIServer(func() time.Time { return now }, bad)
	writes := newWriteCounter(api)
	log := &eventLog{}
	r := &Reconciler{Client: writes, Recorder: log, Now: func() time.Time { return now }}
	reconcileOnce(t, r, "bad")
	got := log.all()
	if len(got) != 1 || got[0].reason != ReasonInvalidSpec || !strings.Contains(got[0].note, `spec.replicas: expected an integer, got "two"`) {
		t.Fatalf("events %+v: want one naming spec.replicas", got)
	}
	if strings.Count(got[0].note, "CloneSet default/bad") > 0 {
		t.Errorf("the note %q names the object it is recorded on", got[0].note)
	}
	if w := writes.taken(); len(w) > 0 {
		t.Fatalf("wrote %v", w)
	}
}

// TestDryRunSendsNothing: a dry run plans, logs every request and sends
// none, records no expectation and no event.
func TestDryRunSendsNothing(t *testing.T) {
	now := e2eStart
	api := newAPIServer(func() time.Time { return now }, namespacedCopy(t, "web", 3, inPlace), namespacedCopy(t, "bad", 2, noBudget))
	writes := newWriteCounter(api)
	log := &eventLog{}
	var lines []string
	r := &Reconciler{Client: writes, Recorder: log, DryRun: true, Now: func() time.Time { return now },
		Logf: func(f string, a ...any) { lines = append(lines, fmt.Sprintf(f, a...)) }}
	for round := 0; round < 2; round++ {
		lines = nil
		reconcileOnce(t, r, "web")
		if w := writes.taken(); len(w) > 0 {
			t.Fatalf("round %d: a dry run wrote %v", round, w)
		}
		if r.Last.Plan == nil || len(r.Last.Outcomes) != 5 {
			t.Fatalf("round %d: planned %v, %d requests, want the revision, 3 pods and the status", round, r.Last.Plan != nil, len(r.Last.Outcomes))
		}
		for _, o := range r.Last.Outcomes {
			if o.Sent {
				t.Errorf("round %d: %s marked sent", round, describe(o.Request))
			}
		}
		text := strings.Join(lines, "\n")
		if strings.Count(text, "dry run: would send create pods default/web-") != 3 ||
			!strings.Contains(text, "dry run: would send create controllerrevisions default/web-") ||
			!strings.Contains(text, "dry run: would send patch clonesets/status default/web ("+string(requests.PatchMerge)+`) {"status":`) {
			t.Errorf("round %d: the log does not show the requests:\n%s", round, text)
		}
	}
	verdict := r.expectations().Satisfied("default/web", now, func(expectations.Object) expectations.Observation { return expectations.Observation{} })
	if !verdict.Satisfied || len(verdict.Pending) > 0 {
		t.Errorf("a dry run recorded expectations: %+v", verdict.Pending)
	}

	lines = nil
	reconcileOnce(t, r, "bad")
	if w := writes.taken(); len(w) > 0 || len(log.all()) > 0 {
		t.Errorf("a dry run of a refused CloneSet wrote %v, recorded %v", w, log.all())
	}
	if !strings.Contains(strings.Join(lines, "\n"), "would record a Warning event "+ReasonInvalidSpec) {
		t.Errorf("the log does not show the event: %q", lines)
	}
}

// namespacedCopy is namedCloneSet in namespace default.
func namespacedCopy(t *testing.T, name string, replicas int, strategy string) *unstructured.Unstructured {
	u := namedCloneSet(t, name, replicas, strategy)
	u.SetNamespace("default")
	return u
}

// setStrategy replaces a CloneSet's updateStrategy on the server (its
// generation moves).
func setStrategy(t *testing.T, api *apiServer, name, strategy string) {
	t.Helper()
	cs := &unstructured.Unstructured{}
	cs.SetGroupVersionKind(CloneSetV1beta1)
	must(t, api.Get(context.Background(), types.NamespacedName{Namespace: "default", Name: name}, cs))
	fresh := unstructuredFrom(t, baseCloneSet(1, strategy, ""))
	must(t, unstructured.SetNestedField(cs.Object, fresh.Object["spec"].(map[string]any)["updateStrategy"], "spec", "updateStrategy"))
	must(t, api.Update(context.Background(), cs))
}

func containsPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// refusingWith makes c answer the error fail returns (nil: none) to creates
// and patches: fail sees the verb ("create", "patch", "patch <subresource>")
// and the object.
func refusingWith(c client.WithWatch, fail func(verb string, obj client.Object) error) client.WithWatch {
	return interceptor.NewClient(c, interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if err := fail("create", obj); err != nil {
				return err
			}
			return c.Create(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			if err := fail("patch", obj); err != nil {
				return err
			}
			return c.Patch(ctx, obj, patch, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			if err := fail("patch "+sub, obj); err != nil {
				return err
			}
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
	})
}

// TestStatusConflictIsNoError: a round whose only failed request is the
// CloneSet's status write, refused with a conflict (the round read an older
// CloneSet than the server's), ends without an error (no backoff, no error
// log: the newer version's event reconciles again) and logs a line; a
// conflict on any other request is still the round's error.
func TestStatusConflictIsNoError(t *testing.T) {
	now := e2eStart
	conflict := func(obj client.Object) error {
		return apierrors.NewConflict(schema.GroupResource{Resource: "test"}, obj.GetName(), errors.New("the object has been modified"))
	}
	for _, tc := range []struct {
		name      string
		refuse    func(verb string, obj client.Object) bool
		wantError bool
	}{
		{"the status write", func(verb string, obj client.Object) bool {
			_, cloneSet := obj.(*unstructured.Unstructured)
			return verb == "patch status" && cloneSet
		}, false},
		{"a pod create", func(verb string, obj client.Object) bool {
			_, pod := obj.(*corev1.Pod)
			return verb == "create" && pod
		}, true},
		{"the status write and a pod create", func(verb string, obj client.Object) bool {
			_, pod := obj.(*corev1.Pod)
			_, cloneSet := obj.(*unstructured.Unstructured)
			return verb == "create" && pod || verb == "patch status" && cloneSet
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := newAPIServer(func() time.Time { return now }, namespacedCopy(t, "web", 2, inPlace))
			refused := 0
			var lines []string
			r := &Reconciler{
				Client: refusingWith(api, func(verb string, obj client.Object) error {
					if !tc.refuse(verb, obj) {
						return nil
					}
					refused++
					return conflict(obj)
				}),
				Now:  func() time.Time { return now },
				Logf: func(f string, a ...any) { lines = append(lines, fmt.Sprintf(f, a...)) },
			}
			// The first round creates the two pods and writes the status.
			_, err := r.Reconcile(context.Background(), request("web"))
			if refused == 0 {
				t.Fatalf("nothing refused: the round sent no such request; log: %q", lines)
			}
			if tc.wantError && err == nil {
				t.Fatalf("a conflict on %s: no error", tc.name)
			}
			if !tc.wantError && err != nil {
				t.Fatalf("a conflict on %s: error %v", tc.name, err)
			}
			if logged := containsPrefix(lines, "default/web: the status write met a newer CloneSet"); logged == tc.wantError {
				t.Fatalf("a conflict on %s: the status-conflict line logged %v; log: %q", tc.name, logged, lines)
			}
		})
	}
}

// TestClipNote: an event note above the API's 1024 bytes is cut to 1024
// with "...", never inside a character.
func TestClipNote(t *testing.T) {
	short := "refused: spec.replicas"
	if got := clipNote(short); got != short {
		t.Errorf("a short note changed: %q", got)
	}
	for pad := 0; pad < 4; pad++ {
		long := strings.Repeat("x", pad) + strings.Repeat("é", 600) // 2 bytes each
		got := clipNote(long)
		if len(got) > maxEventNote || !strings.HasSuffix(got, "...") || !utf8.ValidString(got) {
			t.Errorf("pad %d: %d bytes, valid UTF-8 %v, ends %q", pad, len(got), utf8.ValidString(got), got[len(got)-5:])
		}
	}
}
