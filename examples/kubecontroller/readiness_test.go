package kubecontroller

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func TestPodReadinessReconciler(t *testing.T) {
	gate := []corev1.PodReadinessGate{{ConditionType: "InPlaceUpdateReady"}, {ConditionType: "KruisePodReady"}}
	notReady := corev1.PodCondition{Type: "KruisePodReady", Status: corev1.ConditionFalse, Message: `[{"userAgent":"Lifecycle","key":"x"}]`}
	pods := map[string]*corev1.Pod{
		"gated":         {Spec: corev1.PodSpec{ReadinessGates: gate}},
		"not-ready-key": {Spec: corev1.PodSpec{ReadinessGates: gate}, Status: corev1.PodStatus{Conditions: []corev1.PodCondition{notReady}}},
		"no-gate":       {Spec: corev1.PodSpec{ReadinessGates: gate[:1]}},
		"deleting":      {ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: &metav1.Time{Time: time.Now()}, Finalizers: []string{"x"}}, Spec: corev1.PodSpec{ReadinessGates: gate}},
	}
	var objs []client.Object
	for name, p := range pods {
		p.Name, p.Namespace = name, "ns"
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionFalse})
		objs = append(objs, p)
	}
	c := fake.NewClientBuilder().WithObjects(objs...).WithStatusSubresource(&corev1.Pod{}).Build()
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	r := &PodReadinessReconciler{Client: c, Now: func() time.Time { return now }}
	for name := range pods {
		if _, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: name}}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	condition := func(name string) *corev1.PodCondition {
		p := &corev1.Pod{}
		if err := c.Get(context.Background(), types.NamespacedName{Namespace: "ns", Name: name}, p); err != nil {
			t.Fatal(err)
		}
		ready := false
		for _, c := range p.Status.Conditions {
			ready = ready || c.Type == corev1.PodReady
		}
		if !ready {
			t.Errorf("%s: the other conditions were not kept: %+v", name, p.Status.Conditions)
		}
		for i := range p.Status.Conditions {
			if p.Status.Conditions[i].Type == "KruisePodReady" {
				return &p.Status.Conditions[i]
			}
		}
		return nil
	}
	if got := condition("gated"); got == nil || got.Status != corev1.ConditionTrue || !got.LastTransitionTime.Time.Equal(now) {
		t.Errorf("gated: KruisePodReady %+v, want True at %s", got, now)
	}
	if got := condition("not-ready-key"); got == nil || got.Status != corev1.ConditionFalse || got.Message != notReady.Message {
		t.Errorf("not-ready-key: KruisePodReady %+v, want the lifecycle's False kept", got)
	}
	for _, name := range []string{"no-gate", "deleting"} {
		if got := condition(name); got != nil {
			t.Errorf("%s: KruisePodReady %+v written", name, got)
		}
	}
	if _, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "gone"}}); err != nil {
		t.Errorf("a pod gone: %v", err)
	}
}

// TestReadinessPatchIsConditioned: the patch carries the resourceVersion
// read, so that a pod the CloneSet controller changed meanwhile (a
// lifecycle hook's KruisePodReady False) is not overwritten.
func TestReadinessPatchIsConditioned(t *testing.T) {
	patch, err := readinessPatch("42", time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"metadata":{"resourceVersion":"42"},"status":{"conditions":[{"lastTransitionTime":"2030-01-02T03:04:05Z","status":"True","type":"KruisePodReady"}]}}`
	if string(patch) != want {
		t.Errorf("patch %s, want %s", patch, want)
	}
}
