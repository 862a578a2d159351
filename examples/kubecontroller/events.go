package kubecontroller

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// cloneSetGroup is the API group of the CloneSet (both versions).
const cloneSetGroup = "apps.kruise.io"

// enqueueControllingCloneSet is the event handler of the pods, claims and
// revisions: an event asks for a reconcile of the CloneSet that controls the
// object (its controller owner reference of kind CloneSet in group
// apps.kruise.io; an update asks for the old object's and the new one's), as
// controller-runtime's EnqueueRequestForOwner with OnlyControllerOwner does
// for Owns, without its REST mapping per event (which asks whether the
// owner's kind is namespaced: a CloneSet is) nor a map per event. An object
// controlled by nothing, or by something else, asks for nothing. The one
// difference: a reference to a CloneSet version the API server does not
// serve asks for a reconcile of the CloneSet of that name (Owns finds no
// mapping for it and asks for nothing).
type enqueueControllingCloneSet struct{}

// newOwnerHandler is the handler Owns would register, cheaper:
// enqueueControllingCloneSet, which asks for the reconciles of the
// informer's initial list and of its resyncs (an update that leaves the
// resourceVersion) at low priority, as Owns' handler does
// (handler.WithLowPriorityWhenUnchanged does it too, but asks reflect
// whether the object type is a client.Object on every event).
func newOwnerHandler() handler.EventHandler {
	return enqueueControllingCloneSet{}
}

// enqueue asks q for req, at low priority when low is set and q is a
// priority queue.
func enqueue(q workqueue.TypedRateLimitingInterface[reconcile.Request], req reconcile.Request, low bool) {
	if low {
		if pq, ok := q.(priorityqueue.PriorityQueue[reconcile.Request]); ok {
			pq.AddWithOpts(priorityqueue.AddOpts{Priority: new(handler.LowPriority)}, req)
			return
		}
	}
	q.Add(req)
}

// controllingCloneSet returns the request for the CloneSet that controls
// obj, and false when none does.
func controllingCloneSet(obj client.Object) (reconcile.Request, bool) {
	if obj == nil {
		return reconcile.Request{}, false
	}
	ref := controllerOf(obj.GetOwnerReferences())
	if ref == nil || ref.Kind != "CloneSet" {
		return reconcile.Request{}, false
	}
	if gv, err := schema.ParseGroupVersion(ref.APIVersion); err != nil || gv.Group != cloneSetGroup {
		return reconcile.Request{}, false
	}
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: ref.Name}}, true
}

func (enqueueControllingCloneSet) add(obj client.Object, q workqueue.TypedRateLimitingInterface[reconcile.Request], low bool) {
	if req, ok := controllingCloneSet(obj); ok {
		enqueue(q, req, low)
	}
}

// Create asks for a reconcile of the object's CloneSet, at low priority
// for an object of the informer's initial list.
func (h enqueueControllingCloneSet) Create(_ context.Context, evt event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	h.add(evt.Object, q, evt.IsInInitialList)
}

// Update asks for a reconcile of the CloneSet of the old object and of the
// new one's (once when they are the same), at low priority for a resync
// (the same resourceVersion).
func (h enqueueControllingCloneSet) Update(_ context.Context, evt event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	oldReq, oldOK := controllingCloneSet(evt.ObjectOld)
	newReq, newOK := controllingCloneSet(evt.ObjectNew)
	low := evt.ObjectOld != nil && evt.ObjectNew != nil && evt.ObjectOld.GetResourceVersion() == evt.ObjectNew.GetResourceVersion()
	if oldOK {
		enqueue(q, oldReq, low)
	}
	if newOK && (!oldOK || newReq != oldReq) {
		enqueue(q, newReq, low)
	}
}

// Delete asks for a reconcile of the object's CloneSet.
func (h enqueueControllingCloneSet) Delete(_ context.Context, evt event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	h.add(evt.Object, q, false)
}

// Generic asks for a reconcile of the object's CloneSet.
func (h enqueueControllingCloneSet) Generic(_ context.Context, evt event.GenericEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	h.add(evt.Object, q, false)
}
