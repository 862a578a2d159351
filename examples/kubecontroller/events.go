package kubecontroller

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
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
// enqueueControllingCloneSet, its events of the informer's initial list and
// its resyncs at low priority (as Owns' are).
func newOwnerHandler() handler.EventHandler {
	return handler.WithLowPriorityWhenUnchanged[client.Object, reconcile.Request](enqueueControllingCloneSet{})
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

func (enqueueControllingCloneSet) add(obj client.Object, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	if req, ok := controllingCloneSet(obj); ok {
		q.Add(req)
	}
}

// Create asks for a reconcile of the object's CloneSet.
func (h enqueueControllingCloneSet) Create(_ context.Context, evt event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	h.add(evt.Object, q)
}

// Update asks for a reconcile of the CloneSet of the old object and of the
// new one's (once when they are the same).
func (h enqueueControllingCloneSet) Update(_ context.Context, evt event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	oldReq, oldOK := controllingCloneSet(evt.ObjectOld)
	newReq, newOK := controllingCloneSet(evt.ObjectNew)
	if oldOK {
		q.Add(oldReq)
	}
	if newOK && (!oldOK || newReq != oldReq) {
		q.Add(newReq)
	}
}

// Delete asks for a reconcile of the object's CloneSet.
func (h enqueueControllingCloneSet) Delete(_ context.Context, evt event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	h.add(evt.Object, q)
}

// Generic asks for a reconcile of the object's CloneSet.
func (h enqueueControllingCloneSet) Generic(_ context.Context, evt event.GenericEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	h.add(evt.Object, q)
}
