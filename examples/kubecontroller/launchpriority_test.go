package kubecontroller

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/clonecore/cloneset/model"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// barrierContainer is a container with the launch barrier of priority p
// in pod web-a.
func barrierContainer(name string, p int) corev1.Container {
	return corev1.Container{Name: name, Image: name, Env: []corev1.EnvVar{{Name: model.EnvLaunchBarrier, ValueFrom: &corev1.EnvVarSource{
		ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: BarrierConfigMap("web-a")}, Key: BarrierKey(p)},
	}}}}
}

// TestLaunchPriorityReconciler: the barrier of a CloneSet's pod (redis
// priority 10, nginx 0, as kruise's e2e specs make it) is created, gets
// p_10 while nothing is ready, p_0 once redis is ready, and the pod is
// then marked completed; nothing is written for pods that do not wait.
func TestLaunchPriorityReconciler(t *testing.T) {
	ctx := context.Background()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-a", Namespace: "ns", UID: "uid-a", Labels: map[string]string{model.LabelInstanceID: "a"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{barrierContainer("nginx", 0), barrierContainer("redis", 10)}},
		Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{Name: "nginx"}, {Name: "redis"}},
			Conditions: []corev1.PodCondition{{Type: corev1.ContainersReady, Status: corev1.ConditionFalse}}},
	}
	other := pod.DeepCopy()
	other.Name, other.UID, other.Labels = "not-a-cloneset-pod", "uid-o", nil
	ready := pod.DeepCopy()
	ready.Name, ready.UID, ready.Status.Conditions[0].Status = "ready", "uid-r", corev1.ConditionTrue
	c := fake.NewClientBuilder().WithObjects(pod, other, ready).WithStatusSubresource(&corev1.Pod{}).Build()
	r := &LaunchPriorityReconciler{Client: c, Reader: c}
	reconcileOnce := func(name string) {
		t.Helper()
		if _, err := r.Reconcile(ctx, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: name}}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	keys := func() []string {
		t.Helper()
		cm := &corev1.ConfigMap{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: "web-a-barrier"}, cm); err != nil {
			t.Fatal(err)
		}
		if len(cm.OwnerReferences) != 1 || cm.OwnerReferences[0].UID != "uid-a" || cm.OwnerReferences[0].Kind != "Pod" {
			t.Errorf("barrier owners %+v, want the pod", cm.OwnerReferences)
		}
		return slices.Sorted(maps.Keys(cm.Data))
	}
	completed := func() bool {
		p := &corev1.Pod{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: "web-a"}, p); err != nil {
			t.Fatal(err)
		}
		return p.Annotations[model.AnnotationContainerLaunchPriorityCompleted] == "true"
	}

	reconcileOnce("web-a") // creates the config map
	if got := keys(); len(got) != 0 {
		t.Errorf("new barrier holds %v", got)
	}
	reconcileOnce("web-a")
	reconcileOnce("web-a")
	if got := keys(); !slices.Equal(got, []string{"p_10"}) || completed() {
		t.Errorf("nothing ready: keys %v, completed %v; want [p_10], false", got, completed())
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(pod), pod); err != nil {
		t.Fatal(err)
	}
	pod.Status.ContainerStatuses[1].Ready = true
	if err := c.Status().Update(ctx, pod); err != nil {
		t.Fatal(err)
	}
	reconcileOnce("web-a")
	if got := keys(); !slices.Equal(got, []string{"p_0", "p_10"}) || !completed() {
		t.Errorf("redis ready: keys %v, completed %v; want [p_0 p_10], true", got, completed())
	}
	for _, name := range []string{"not-a-cloneset-pod", "ready", "gone"} {
		reconcileOnce(name)
		err := c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: BarrierConfigMap(name)}, &corev1.ConfigMap{})
		if !apierrors.IsNotFound(err) {
			t.Errorf("%s: a barrier was written (%v)", name, err)
		}
	}
}

func TestPendingPriorities(t *testing.T) {
	malformed := corev1.Container{Name: "m", Env: []corev1.EnvVar{{Name: model.EnvLaunchBarrier, Value: "p_3"}}}
	pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{
		barrierContainer("a", 5), barrierContainer("b", -1), {Name: "plain"}, malformed, barrierContainer("c", 5),
	}}, Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{Name: "c", Ready: true}}}}
	if got := pendingPriorities(pod); !slices.Equal(got, []int{-1, 5}) {
		t.Errorf("pendingPriorities = %v, want [-1 5]", got)
	}
}
