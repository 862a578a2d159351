package kubecontroller

import (
	"context"
	"slices"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// recordingQueue records the requests added to it.
type recordingQueue struct {
	workqueue.TypedRateLimitingInterface[reconcile.Request]
	added []reconcile.Request
}

func (q *recordingQueue) Add(r reconcile.Request) { q.added = append(q.added, r) }

// recordingPriorityQueue is a priority queue that records each request
// added with its priority ("default" when none is given).
type recordingPriorityQueue struct {
	workqueue.TypedRateLimitingInterface[reconcile.Request]
	added []string
}

func (q *recordingPriorityQueue) Add(r reconcile.Request) {
	q.AddWithOpts(priorityqueue.AddOpts{}, r)
}

func (q *recordingPriorityQueue) AddWithOpts(o priorityqueue.AddOpts, items ...reconcile.Request) {
	prio := "default"
	if o.Priority != nil {
		prio = strconv.Itoa(*o.Priority)
	}
	for _, r := range items {
		q.added = append(q.added, r.String()+" at "+prio)
	}
}

func (q *recordingPriorityQueue) GetWithPriority() (reconcile.Request, int, bool) {
	return reconcile.Request{}, 0, true
}

// sortedPriorities returns the requests and priorities sorted, each once.
func sortedPriorities(added []string) []string {
	out := slices.Clone(added)
	slices.Sort(out)
	return slices.Compact(out)
}

// sortedUnique returns the requests sorted, each once (a queue holds a
// request once).
func sortedUnique(reqs []reconcile.Request) []reconcile.Request {
	out := slices.Clone(reqs)
	slices.SortFunc(out, func(a, b reconcile.Request) int {
		if c := compareStrings(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		return compareStrings(a.Name, b.Name)
	})
	return slices.Compact(out)
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestControllingCloneSet(t *testing.T) {
	yes, no := true, false
	ref := func(apiVersion, kind, name string, controller *bool) metav1.OwnerReference {
		return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: types.UID(name + "-uid"), Controller: controller}
	}
	for _, tc := range []struct {
		name string
		refs []metav1.OwnerReference
		want string // the CloneSet's name, "" for none
	}{
		{"v1beta1 controller", []metav1.OwnerReference{ref("apps.kruise.io/v1beta1", "CloneSet", "web", &yes)}, "web"},
		{"v1alpha1 controller", []metav1.OwnerReference{ref("apps.kruise.io/v1alpha1", "CloneSet", "web", &yes)}, "web"},
		{"not the controller", []metav1.OwnerReference{ref("apps.kruise.io/v1beta1", "CloneSet", "web", &no)}, ""},
		{"controller unset", []metav1.OwnerReference{ref("apps.kruise.io/v1beta1", "CloneSet", "web", nil)}, ""},
		{"another kind", []metav1.OwnerReference{ref("apps/v1", "ReplicaSet", "web", &yes)}, ""},
		{"a CloneSet of another group", []metav1.OwnerReference{ref("apps/v1", "CloneSet", "web", &yes)}, ""},
		{"a group and no version", []metav1.OwnerReference{ref("apps.kruise.io", "CloneSet", "web", &yes)}, ""},
		{"two slashes", []metav1.OwnerReference{ref("apps.kruise.io/v1beta1/x", "CloneSet", "web", &yes)}, ""},
		{"the controller second", []metav1.OwnerReference{ref("apps.kruise.io/v1beta1", "CloneSet", "other", &no), ref("apps.kruise.io/v1beta1", "CloneSet", "web", &yes)}, "web"},
		{"no owner", nil, ""},
	} {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", OwnerReferences: tc.refs}}
		req, ok := controllingCloneSet(pod)
		if got := req.Name; ok != (tc.want != "") || got != tc.want || ok && req.Namespace != "ns" {
			t.Errorf("%s: %v %v, want %q in ns", tc.name, req, ok, tc.want)
		}
	}
	if _, ok := controllingCloneSet(nil); ok {
		t.Errorf("a nil object has a CloneSet")
	}
}

// TestOwnerHandlerMatchesOwns: for pods with any owner references, the
// handler that replaces Owns asks for the reconciles controller-runtime's
// EnqueueRequestForOwner (OnlyControllerOwner, the CloneSet as owner type,
// as Owns builds it) asks for, on creates, updates, deletes and generic
// events.
func TestOwnerHandlerMatchesOwns(t *testing.T) {
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(CloneSetV1beta1, meta.RESTScopeNamespace)
	mapper.Add(CloneSetV1alpha1, meta.RESTScopeNamespace)
	owner := &unstructured.Unstructured{}
	owner.SetGroupVersionKind(CloneSetV1beta1)
	owns := handler.EnqueueRequestForOwner(runtime.NewScheme(), mapper, owner, handler.OnlyControllerOwner())
	ours := newOwnerHandler()

	genPod := func(t *rapid.T, label string) *corev1.Pod {
		refs := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) metav1.OwnerReference {
			r := metav1.OwnerReference{
				APIVersion: rapid.SampledFrom([]string{"apps.kruise.io/v1beta1", "apps.kruise.io/v1alpha1", "apps/v1", "v1", "apps.kruise.io", "apps.kruise.io/v1beta1/x", ""}).Draw(t, "apiVersion"),
				Kind:       rapid.SampledFrom([]string{"CloneSet", "ReplicaSet", "StatefulSet"}).Draw(t, "kind"),
				Name:       rapid.SampledFrom([]string{"web", "api", "db"}).Draw(t, "name"),
			}
			switch rapid.IntRange(0, 2).Draw(t, "controller") {
			case 1:
				r.Controller = new(bool)
			case 2:
				yes := true
				r.Controller = &yes
			}
			return r
		}), 0, 3).Draw(t, label+" refs")
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: rapid.SampledFrom([]string{"a", "b"}).Draw(t, label+" ns"), Name: "p", OwnerReferences: refs}}
	}
	rapid.Check(t, func(t *rapid.T) {
		oldPod, newPod := genPod(t, "old"), genPod(t, "new")
		newPod.Namespace = oldPod.Namespace
		oldPod.ResourceVersion, newPod.ResourceVersion = "1", rapid.SampledFrom([]string{"1", "2"}).Draw(t, "new resourceVersion")
		initialList := rapid.Bool().Draw(t, "in the initial list")
		ctx := context.Background()
		for _, ev := range []struct {
			name string
			send func(h handler.EventHandler, q workqueue.TypedRateLimitingInterface[reconcile.Request])
		}{
			{"create", func(h handler.EventHandler, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
				h.Create(ctx, event.CreateEvent{Object: newPod, IsInInitialList: initialList}, q)
			}},
			{"update", func(h handler.EventHandler, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
				h.Update(ctx, event.UpdateEvent{ObjectOld: oldPod, ObjectNew: newPod}, q)
			}},
			{"delete", func(h handler.EventHandler, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
				h.Delete(ctx, event.DeleteEvent{Object: newPod}, q)
			}},
			{"generic", func(h handler.EventHandler, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
				h.Generic(ctx, event.GenericEvent{Object: newPod}, q)
			}},
		} {
			var want, got recordingQueue
			ev.send(owns, &want)
			ev.send(ours, &got)
			if w, g := sortedUnique(want.added), sortedUnique(got.added); !slices.Equal(w, g) {
				t.Fatalf("%s: Owns asks for %v, the handler for %v", ev.name, w, g)
			}
			if len(got.added) != len(sortedUnique(got.added)) {
				t.Fatalf("%s: the handler asked for a request twice: %v", ev.name, got.added)
			}
			// On a priority queue (a controller's, by default), at the same
			// priorities: low for the initial list and resyncs.
			var wantPrio, gotPrio recordingPriorityQueue
			ev.send(owns, &wantPrio)
			ev.send(ours, &gotPrio)
			if w, g := sortedPriorities(wantPrio.added), sortedPriorities(gotPrio.added); !slices.Equal(w, g) {
				t.Fatalf("%s: Owns asks a priority queue for %v, the handler for %v", ev.name, w, g)
			}
		}
	})
}

// The handler's signatures are those of a handler.EventHandler.
var _ handler.TypedEventHandler[client.Object, reconcile.Request] = enqueueControllingCloneSet{}

// TestOwnerHandlerPriorities: the handler asks a priority queue for the
// reconciles of the informer's initial list and of resyncs (an update that
// keeps the resourceVersion, even one whose old object had no controller:
// the case TestOwnerHandlerMatchesOwns found) at low priority, every
// other at the queue's default, as Owns' handler does.
func TestOwnerHandlerPriorities(t *testing.T) {
	yes := true
	owned := func(rv string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "p", ResourceVersion: rv,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps.kruise.io/v1beta1", Kind: "CloneSet", Name: "web", Controller: &yes}}}}
	}
	orphan := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "p", ResourceVersion: "1"}}
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		send func(h handler.EventHandler, q workqueue.TypedRateLimitingInterface[reconcile.Request])
		want string
	}{
		{"create in the initial list", func(h handler.EventHandler, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			h.Create(ctx, event.CreateEvent{Object: owned("1"), IsInInitialList: true}, q)
		}, "a/web at -100"},
		{"create", func(h handler.EventHandler, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			h.Create(ctx, event.CreateEvent{Object: owned("1")}, q)
		}, "a/web at default"},
		{"resync", func(h handler.EventHandler, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			h.Update(ctx, event.UpdateEvent{ObjectOld: owned("1"), ObjectNew: owned("1")}, q)
		}, "a/web at -100"},
		{"resync, the old object without a controller", func(h handler.EventHandler, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			h.Update(ctx, event.UpdateEvent{ObjectOld: orphan, ObjectNew: owned("1")}, q)
		}, "a/web at -100"},
		{"update", func(h handler.EventHandler, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			h.Update(ctx, event.UpdateEvent{ObjectOld: owned("1"), ObjectNew: owned("2")}, q)
		}, "a/web at default"},
		{"delete", func(h handler.EventHandler, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			h.Delete(ctx, event.DeleteEvent{Object: owned("1")}, q)
		}, "a/web at default"},
	} {
		var q recordingPriorityQueue
		tc.send(newOwnerHandler(), &q)
		if len(q.added) != 1 || q.added[0] != tc.want {
			t.Errorf("%s: asked for %v, want [%s]", tc.name, q.added, tc.want)
		}
	}
}
