package kruisee2e

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// LabelProvisionedFor labels the volumes the provisioner makes with the
// namespace of their claim.
const LabelProvisionedFor = "kruisee2e.cloneset.dev/claim-namespace"

// Provision plays a storage provisioner until ctx ends: for every claim
// of the cluster that names no volume and is not being deleted, it makes a
// volume pre-bound to it (claimRef: the claim's namespace, name and UID),
// of the claim's requested size, access modes, volume mode and storage
// class, reclaim policy Retain; kube-controller-manager's persistent volume
// controller then binds the two, and kube-scheduler places the claim's pod.
// Errors other than a volume that exists already go to report (never nil)
// and the claim is tried again at its next change or the informer's
// resync.
func Provision(ctx context.Context, client kubernetes.Interface, report func(error)) {
	lw := cache.NewListWatchFromClient(client.CoreV1().RESTClient(), "persistentvolumeclaims", metav1.NamespaceAll, fields.Everything())
	handle := func(obj any) {
		claim, ok := obj.(*corev1.PersistentVolumeClaim)
		if !ok || claim.Spec.VolumeName != "" || claim.DeletionTimestamp != nil {
			return
		}
		_, err := client.CoreV1().PersistentVolumes().Create(ctx, VolumeFor(claim), metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) && ctx.Err() == nil {
			report(fmt.Errorf("provisioner: a volume for claim %s/%s: %w", claim.Namespace, claim.Name, err))
		}
	}
	_, informer := cache.NewInformerWithOptions(cache.InformerOptions{
		ListerWatcher: lw,
		ObjectType:    &corev1.PersistentVolumeClaim{},
		ResyncPeriod:  10 * time.Second,
		Handler: cache.ResourceEventHandlerFuncs{
			AddFunc:    handle,
			UpdateFunc: func(_, obj any) { handle(obj) },
		},
	})
	informer.RunWithContext(ctx)
}

// VolumeFor is the volume the provisioner makes for a claim (see
// Provision). Its name is derived from the claim's UID, so that a second
// attempt for the same claim finds the first one.
func VolumeFor(claim *corev1.PersistentVolumeClaim) *corev1.PersistentVolume {
	class := ""
	if claim.Spec.StorageClassName != nil {
		class = *claim.Spec.StorageClassName
	}
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{
			Name:   "pv-" + string(claim.UID),
			Labels: map[string]string{LabelProvisionedFor: claim.Namespace},
		},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: claim.Spec.Resources.Requests[corev1.ResourceStorage]},
			AccessModes:                   claim.Spec.AccessModes,
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			StorageClassName:              class,
			VolumeMode:                    claim.Spec.VolumeMode,
			ClaimRef: &corev1.ObjectReference{
				Kind: "PersistentVolumeClaim", APIVersion: "v1",
				Namespace: claim.Namespace, Name: claim.Name, UID: claim.UID,
			},
			PersistentVolumeSource: corev1.PersistentVolumeSource{
				HostPath: &corev1.HostPathVolumeSource{Path: "/tmp/kruisee2e/" + string(claim.UID)},
			},
		},
	}
}
