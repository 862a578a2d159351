package kubecontroller

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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
// add, each list with the options opts too. Without the index it lists the
// whole namespace once.
func (r *Reconciler) listOwned(ctx context.Context, ns, uid string, opts []client.ListOption, list client.ObjectList, orphans client.ObjectList, add func()) error {
	if !r.UseOwnerIndex {
		return r.Client.List(ctx, list, append([]client.ListOption{client.InNamespace(ns)}, opts...)...)
	}
	if err := r.Client.List(ctx, list, append([]client.ListOption{client.InNamespace(ns), client.MatchingFields{IndexOwner: uid}}, opts...)...); err != nil {
		return err
	}
	if err := r.Client.List(ctx, orphans, append([]client.ListOption{client.InNamespace(ns), client.MatchingFields{IndexOwner: OwnerIndexOrphan}}, opts...)...); err != nil {
		return err
	}
	add()
	return nil
}

// IndexImagePullJobsByOwner registers the IndexOwner index for OpenKruise's
// ImagePullJobs (unstructured, ImagePullJobV1beta1) with indexer: the
// image pre-download lists a CloneSet's jobs through it. The API server
// must serve the kind (ServesImagePullJobs).
func IndexImagePullJobsByOwner(ctx context.Context, indexer client.FieldIndexer) error {
	return indexer.IndexField(ctx, newImagePullJob(), IndexOwner, ownerIndexValue)
}

// ServesImagePullJobs reports whether the API server serves
// ImagePullJobV1beta1, as mapper (a manager's REST mapper: the server's
// discovery) knows it.
func ServesImagePullJobs(mapper meta.RESTMapper) bool {
	_, err := mapper.RESTMapping(ImagePullJobV1beta1.GroupKind(), ImagePullJobV1beta1.Version)
	return err == nil
}

// newImagePullJob is an empty unstructured ImagePullJob.
func newImagePullJob() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(ImagePullJobV1beta1)
	return u
}

// listImagePullJobs lists the ImagePullJobs of namespace ns the CloneSet of
// uid controls (through the IndexOwner index; without it, every job of the
// namespace: Scenario keeps the CloneSet's).
func (r *Reconciler) listImagePullJobs(ctx context.Context, ns, uid string, opts []client.ListOption) ([]unstructured.Unstructured, error) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(ImagePullJobV1beta1.GroupVersion().WithKind(ImagePullJobV1beta1.Kind + "List"))
	opts = append([]client.ListOption{client.InNamespace(ns)}, opts...)
	if r.UseOwnerIndex {
		opts = append(opts, client.MatchingFields{IndexOwner: uid})
	}
	if err := r.Client.List(ctx, list, opts...); err != nil {
		return nil, err
	}
	return list.Items, nil
}
