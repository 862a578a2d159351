package kubecontroller

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/clonecore/cloneset/model"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// LaunchPriorityReconciler is OpenKruise's container launch priority
// controller (kruise pkg/controller/containerlaunchpriority, part of
// kruise-manager), the counterpart of the launch barriers the pod webhook
// injects (webhook.MutatePod): a container with the env
// KRUISE_CONTAINER_BARRIER reads the key "p_<priority>" of the config map
// "<pod>-barrier", and the kubelet starts it only once the key is there.
// For a CloneSet's pod (the apps.kruise.io/cloneset-instance-id label, the
// pods the webhook is sent) whose containers are not all ready, and that is
// not yet marked apps.kruise.io/container-launch-priority-completed, it
//
//   - creates the config map, owned by the pod (so that it goes with it);
//   - writes the key of the highest priority among the containers not
//     ready yet, once: containers start from the highest priority down,
//     each priority once the higher ones are ready;
//   - marks the pod completed once the lowest priority's key is written.
//
// Without it a pod with barriers never starts: kruise-manager is not there
// to write the keys. It reads pods from the manager's cache and each
// config map from the API server (Reader), only for a pod that waits.
type LaunchPriorityReconciler struct {
	// Client reads pods (the manager's cache), creates and patches the
	// config maps and patches the pods.
	Client client.Client
	// Reader reads the config maps from the API server (the manager's
	// API reader), so that no config map is cached.
	Reader client.Reader
	// PodEvents, when set, gives the reconciler its pod events from the
	// handler it shares with the manager's other pod controllers; nil: a
	// handler of its own.
	PodEvents *PodEvents
}

// BarrierConfigMap is the name of the config map holding pod podName's
// launch barrier.
func BarrierConfigMap(podName string) string { return podName + "-barrier" }

// BarrierKey is the key of a launch barrier that lets the containers of
// the given priority start.
func BarrierKey(priority int) string { return "p_" + strconv.Itoa(priority) }

// pendingPriorities lists, sorted ascending, the launch priorities of the
// pod's containers that have a barrier and are not ready (a container's
// priority as the library reads it, model.Container.LaunchPriority; a
// malformed barrier is left out).
func pendingPriorities(pod *corev1.Pod) []int {
	ready := map[string]bool{}
	for _, s := range pod.Status.ContainerStatuses {
		ready[s.Name] = s.Ready
	}
	var out []int
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		if ready[c.Name] {
			continue
		}
		for _, e := range c.Env {
			if e.Name != model.EnvLaunchBarrier {
				continue
			}
			ev := model.EnvVar{Name: e.Name}
			if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil {
				ev.ConfigMapName, ev.ConfigMapKey = e.ValueFrom.ConfigMapKeyRef.Name, e.ValueFrom.ConfigMapKeyRef.Key
			}
			mc := model.Container{Name: c.Name, Env: []model.EnvVar{ev}}
			if p, ok, err := mc.LaunchPriority(); ok && err == nil {
				out = append(out, p)
			}
			break
		}
	}
	slices.Sort(out)
	return out
}

// waitsForBarrier reports whether the reconciler has something to do for
// the pod: a CloneSet's pod, not being deleted, not marked completed, not
// ContainersReady, with a container that waits for its barrier.
func waitsForBarrier(pod *corev1.Pod) bool {
	if pod.DeletionTimestamp != nil || pod.Annotations[model.AnnotationContainerLaunchPriorityCompleted] == "true" {
		return false
	}
	if _, ok := pod.Labels[model.LabelInstanceID]; !ok {
		return false
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.ContainersReady && c.Status == corev1.ConditionTrue {
			return false
		}
	}
	return len(pendingPriorities(pod)) > 0
}

// SetupWithManager registers the reconciler on the manager's pods, for the
// pods that wait for a barrier key.
func (r *LaunchPriorityReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return setupPodReconciler(mgr, "launchpriority", waitsForBarrier, r, r.PodEvents)
}

// Reconcile moves the pod's barrier one step: it creates the config map,
// or writes the highest pending priority's key, or marks the pod completed.
func (r *LaunchPriorityReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	pod := &corev1.Pod{}
	if err := r.Client.Get(ctx, req.NamespacedName, pod); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !waitsForBarrier(pod) {
		return reconcile.Result{}, nil
	}
	barrier := &corev1.ConfigMap{}
	err := r.Reader.Get(ctx, types.NamespacedName{Namespace: pod.Namespace, Name: BarrierConfigMap(pod.Name)}, barrier)
	if apierrors.IsNotFound(err) {
		barrier = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Namespace: pod.Namespace, Name: BarrierConfigMap(pod.Name),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID}},
		}}
		if err := r.Client.Create(ctx, barrier); err != nil && !apierrors.IsAlreadyExists(err) {
			return reconcile.Result{}, fmt.Errorf("pod %s: create its launch barrier: %w", req.NamespacedName, err)
		}
		return reconcile.Result{Requeue: true}, nil
	}
	if err != nil {
		return reconcile.Result{}, fmt.Errorf("pod %s: read its launch barrier: %w", req.NamespacedName, err)
	}
	pending := pendingPriorities(pod)
	lowest, highest := pending[0], pending[len(pending)-1]
	if _, done := barrier.Data[BarrierKey(lowest)]; done {
		return reconcile.Result{}, r.markCompleted(ctx, pod)
	}
	if _, ok := barrier.Data[BarrierKey(highest)]; !ok {
		patch, _ := json.Marshal(map[string]any{"data": map[string]string{BarrierKey(highest): "true"}})
		if err := r.Client.Patch(ctx, barrier, client.RawPatch(types.StrategicMergePatchType, patch)); err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
	}
	if lowest == highest {
		return reconcile.Result{}, r.markCompleted(ctx, pod)
	}
	return reconcile.Result{}, nil
}

// markCompleted annotates the pod: every key of its barrier is written.
func (r *LaunchPriorityReconciler) markCompleted(ctx context.Context, pod *corev1.Pod) error {
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{
		model.AnnotationContainerLaunchPriorityCompleted: "true",
	}}})
	err := r.Client.Patch(ctx, pod, client.RawPatch(types.StrategicMergePatchType, patch))
	return client.IgnoreNotFound(err)
}
