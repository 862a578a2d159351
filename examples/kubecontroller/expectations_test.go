package kubecontroller

import (
	"testing"
	"time"

	"github.com/clonecore/cloneset/expectations"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestLookupSeesTheCloneSet: the expectations' view answers for the
// round's CloneSet itself (by kind: a pod of the same name is another
// object), and a status write's expectation holds the round until the
// cache shows the version the server answered.
func TestLookupSeesTheCloneSet(t *testing.T) {
	cs := &unstructured.Unstructured{}
	cs.SetGroupVersionKind(CloneSetV1beta1)
	cs.SetNamespace("default")
	cs.SetName("web")
	cs.SetResourceVersion("7")
	pod := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", ResourceVersion: "3"}}
	look := Lookup(Objects{CloneSet: cs, Pods: []corev1.Pod{pod}})
	for _, c := range []struct {
		obj  expectations.Object
		want expectations.Observation
	}{
		{expectations.Object{Kind: KindCloneSet, Name: "web"}, expectations.Observation{Present: true, ResourceVersion: "7"}},
		{expectations.Object{Kind: KindPod, Name: "web"}, expectations.Observation{Present: true, ResourceVersion: "3"}},
		{expectations.Object{Kind: KindCloneSet, Name: "other"}, expectations.Observation{}},
	} {
		if got := look(c.obj); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.obj, got, c.want)
		}
	}
	if got := Lookup(Objects{})(expectations.Object{Kind: KindCloneSet, Name: "web"}); got.Present {
		t.Errorf("no CloneSet listed: %+v, want absent", got)
	}

	exp := NewExpectations(time.Minute)
	now := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	exp.Do(func(s *expectations.Store) {
		s.ExpectResourceVersion("default/web", expectations.Object{Kind: KindCloneSet, Name: "web"}, "8", now)
	})
	if v := exp.Satisfied("default/web", now, look); v.Satisfied {
		t.Fatal("the cache shows the CloneSet at 7, the status write answered 8: want the round held")
	}
	cs.SetResourceVersion("9") // a later write of another, seen with it
	if v := exp.Satisfied("default/web", now, Lookup(Objects{CloneSet: cs})); !v.Satisfied {
		t.Fatalf("the cache shows the CloneSet at 9: want the round to plan, pending %v", v.Pending)
	}
}
