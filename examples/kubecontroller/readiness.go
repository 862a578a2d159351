package kubecontroller

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/clonecore/cloneset/model"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// PodReadinessReconciler is OpenKruise's pod readiness controller, the
// counterpart of the pod webhook's KruisePodReady readiness gate: a pod
// with the gate and no KruisePodReady condition gets the condition True,
// once, and is then Ready as soon as its containers are. From then on the
// condition belongs to the CloneSet controller (the lifecycle hooks'
// markPodNotReady turn it False and back), which this reconciler never
// touches: it writes only a pod that has no such condition, and its write
// is conditioned on the resourceVersion it read.
type PodReadinessReconciler struct {
	// Client reads pods (the manager's cache) and patches their status.
	Client client.Client
	// Now is the clock of the condition's lastTransitionTime (time.Now
	// when nil).
	Now func() time.Time
	// PodEvents, when set, gives the reconciler its pod events from the
	// handler it shares with the manager's other pod controllers; nil: a
	// handler of its own.
	PodEvents *PodEvents
}

// needsReadiness reports whether pod has the KruisePodReady gate and no
// KruisePodReady condition, and is not being deleted.
func needsReadiness(pod *corev1.Pod) bool {
	if pod.DeletionTimestamp != nil {
		return false
	}
	gated := false
	for _, g := range pod.Spec.ReadinessGates {
		gated = gated || g.ConditionType == model.ConditionKruisePodReady
	}
	if !gated {
		return false
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == model.ConditionKruisePodReady {
			return false
		}
	}
	return true
}

// SetupWithManager registers the reconciler on the manager's pods (the
// informer the CloneSet Reconciler shares), for the pods that need it.
func (r *PodReadinessReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return setupPodReconciler(mgr, "podreadiness", needsReadiness, r, r.PodEvents)
}

// setupPodReconciler registers r, named name, on the manager's pods (the
// informer the CloneSet Reconciler shares; through events when not nil),
// for the pods created, updated or resynced that wants holds (deletions are
// of no interest), with two workers.
func setupPodReconciler(mgr ctrl.Manager, name string, wants func(*corev1.Pod) bool, r reconcile.Reconciler, events *PodEvents) error {
	want := func(o client.Object) bool {
		pod, ok := o.(*corev1.Pod)
		return ok && wants(pod)
	}
	wanted := predicate.Funcs{
		CreateFunc:  func(e event.CreateEvent) bool { return want(e.Object) },
		UpdateFunc:  func(e event.UpdateEvent) bool { return want(e.ObjectNew) },
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(e event.GenericEvent) bool { return want(e.Object) },
	}
	b := ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(controller.Options{MaxConcurrentReconciles: 2})
	if events != nil {
		b = b.WatchesRawSource(events.Source(&handler.EnqueueRequestForObject{}, wanted))
	} else {
		b = b.For(&corev1.Pod{}, builder.WithPredicates(wanted))
	}
	return b.Complete(r)
}

// Reconcile sets KruisePodReady True on the pod when it still needs it. A
// conflict (the pod changed since the cache showed it) is retried on the
// next event.
func (r *PodReadinessReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	pod := &corev1.Pod{}
	if err := r.Client.Get(ctx, req.NamespacedName, pod); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !needsReadiness(pod) {
		return reconcile.Result{}, nil
	}
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	patch, err := readinessPatch(pod.ResourceVersion, now())
	if err != nil {
		return reconcile.Result{}, err
	}
	target := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name}}
	err = r.Client.Status().Patch(ctx, target, client.RawPatch("application/strategic-merge-patch+json", patch))
	switch {
	case err == nil, apierrors.IsNotFound(err):
		return reconcile.Result{}, nil
	case apierrors.IsConflict(err):
		return reconcile.Result{Requeue: true}, nil
	default:
		return reconcile.Result{}, fmt.Errorf("pod %s: set %s: %w", req.NamespacedName, model.ConditionKruisePodReady, err)
	}
}

// readinessPatch is the strategic merge patch of the pod status adding
// KruisePodReady True, conditioned on resourceVersion.
func readinessPatch(resourceVersion string, now time.Time) ([]byte, error) {
	return json.Marshal(map[string]any{
		"metadata": map[string]any{"resourceVersion": resourceVersion},
		"status": map[string]any{"conditions": []any{map[string]any{
			"type": model.ConditionKruisePodReady, "status": "True", "lastTransitionTime": metav1.NewTime(now.UTC()).Rfc3339Copy(),
		}}},
	})
}
