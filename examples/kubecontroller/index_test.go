package kubecontroller

import (
	"context"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// ownedBy returns the metadata of an object of namespace default named
// name, controlled by the CloneSet uid (no controller when uid is empty).
func ownedBy(name, uid string) metav1.ObjectMeta {
	m := metav1.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{"app": "web"}, ResourceVersion: "1"}
	if uid != "" {
		yes := true
		m.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps.kruise.io/v1beta1", Kind: "CloneSet", Name: "x", UID: types.UID(uid), Controller: &yes}}
	}
	return m
}

// TestListThroughOwnerIndex: with UseOwnerIndex, List reads the CloneSet's
// own pods, claims and revisions and the orphans (adoption), not the objects
// another CloneSet controls; without it, the whole namespace, as before.
func TestListThroughOwnerIndex(t *testing.T) {
	cs := namedCloneSet(t, "demo", 2, inPlace)
	own, other := string(cs.GetUID()), "other-uid"
	objs := []client.Object{
		&corev1.Pod{ObjectMeta: ownedBy("demo-a", own)},
		&corev1.Pod{ObjectMeta: ownedBy("orphan-pod", "")},
		&corev1.Pod{ObjectMeta: ownedBy("other-pod", other)},
		&corev1.PersistentVolumeClaim{ObjectMeta: ownedBy("data-demo-a", own)},
		&corev1.PersistentVolumeClaim{ObjectMeta: ownedBy("orphan-claim", "")},
		&corev1.PersistentVolumeClaim{ObjectMeta: ownedBy("other-claim", other)},
		&appsv1.ControllerRevision{ObjectMeta: ownedBy("demo-rev", own)},
		&appsv1.ControllerRevision{ObjectMeta: ownedBy("orphan-rev", "")},
		&appsv1.ControllerRevision{ObjectMeta: ownedBy("other-rev", other)},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}},
	}
	build := func() *fake.ClientBuilder {
		return fake.NewClientBuilder().WithScheme(testScheme()).WithObjects(objs...)
	}
	indexed := build().
		WithIndex(&corev1.Pod{}, IndexOwner, ownerIndexValue).
		WithIndex(&corev1.PersistentVolumeClaim{}, IndexOwner, ownerIndexValue).
		WithIndex(&appsv1.ControllerRevision{}, IndexOwner, ownerIndexValue).
		Build()
	names := func(o Objects) [4][]string {
		var out [4][]string
		for _, p := range o.Pods {
			out[0] = append(out[0], p.Name)
		}
		for _, c := range o.PVCs {
			out[1] = append(out[1], c.Name)
		}
		for _, v := range o.Revisions {
			out[2] = append(out[2], v.Name)
		}
		for _, n := range o.Nodes {
			out[3] = append(out[3], n.Name)
		}
		for i := range out {
			slices.Sort(out[i])
		}
		return out
	}
	for _, tc := range []struct {
		name string
		r    *Reconciler
		want [4][]string
	}{
		{"owner index", &Reconciler{Client: indexed, UseOwnerIndex: true}, [4][]string{
			{"demo-a", "orphan-pod"}, {"data-demo-a", "orphan-claim"}, {"demo-rev", "orphan-rev"}, {"node-1"}}},
		{"whole namespace", &Reconciler{Client: build().Build()}, [4][]string{
			{"demo-a", "orphan-pod", "other-pod"}, {"data-demo-a", "orphan-claim", "other-claim"}, {"demo-rev", "orphan-rev"}, {"node-1"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.r.List(context.Background(), cs)
			if err != nil {
				t.Fatal(err)
			}
			if g := names(got); !slices.EqualFunc(g[:], tc.want[:], slices.Equal) {
				t.Errorf("listed %v, want %v", g, tc.want)
			}
		})
	}
	// The index is really read: the same reconciler on a client without it fails.
	if _, err := (&Reconciler{Client: build().Build(), UseOwnerIndex: true}).List(context.Background(), cs); err == nil {
		t.Error("UseOwnerIndex on a client without the index listed without error: the index is not used")
	}
}
