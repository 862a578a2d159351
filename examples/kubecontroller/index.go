package kubecontroller

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// IndexOwner is the name of the field index the Reconciler reads a
// CloneSet's pods, claims and revisions through: an object's value is the
// uid of its controller owner, or OwnerIndexOrphan when it has none.
const IndexOwner = "cloneset.clonecore.io/controller-uid"

// OwnerIndexOrphan is the IndexOwner value of an object without a
// controller owner: the orphans a CloneSet may adopt.
const OwnerIndexOrphan = "orphan"

// ownerIndexValue is the IndexOwner value of obj.
func ownerIndexValue(obj client.Object) []string {
	if ref := controllerOf(obj.GetOwnerReferences()); ref != nil {
		return []string{string(ref.UID)}
	}
	return []string{OwnerIndexOrphan}
}

// IndexByOwner registers the IndexOwner index for pods, claims and
// revisions with indexer (a manager's or cache's field indexer). A
// Reconciler whose client reads from that cache can then set
// UseOwnerIndex.
func IndexByOwner(ctx context.Context, indexer client.FieldIndexer) error {
	for _, obj := range []client.Object{&corev1.Pod{}, &corev1.PersistentVolumeClaim{}, &appsv1.ControllerRevision{}} {
		if err := indexer.IndexField(ctx, obj, IndexOwner, ownerIndexValue); err != nil {
			return err
		}
	}
	return nil
}

// listOwned lists into list the objects of namespace ns whose controller
// owner has uid, then the orphans, appending the second list's items with
// add. Without the index it lists the whole namespace once.
func (r *Reconciler) listOwned(ctx context.Context, ns, uid string, list client.ObjectList, orphans client.ObjectList, add func()) error {
	if !r.UseOwnerIndex {
		return r.Client.List(ctx, list, client.InNamespace(ns))
	}
	if err := r.Client.List(ctx, list, client.InNamespace(ns), client.MatchingFields{IndexOwner: uid}); err != nil {
		return err
	}
	if err := r.Client.List(ctx, orphans, client.InNamespace(ns), client.MatchingFields{IndexOwner: OwnerIndexOrphan}); err != nil {
		return err
	}
	add()
	return nil
}
