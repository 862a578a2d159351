package kubecontroller

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// laggingCache is a client whose reads return the server's state at the
// start of the previous round (an informer cache one round behind) and
// whose writes go to the server.
type laggingCache struct {
	client.Client // the server: writes
	reads         client.Client
	prev          []client.Object
	server        *apiServer
}

func newLaggingCache(server *apiServer) *laggingCache {
	c := &laggingCache{Client: server, server: server}
	c.prev = c.snapshot()
	c.reads = c.build(c.prev)
	return c
}

// advance starts a round: the cache now shows what the server held when
// the previous round started.
func (c *laggingCache) advance() {
	c.reads = c.build(c.prev)
	c.prev = c.snapshot()
}

func (c *laggingCache) build(objs []client.Object) client.Client {
	copies := make([]client.Object, len(objs))
	for i, o := range objs {
		copies[i] = o.DeepCopyObject().(client.Object)
	}
	return fake.NewClientBuilder().WithScheme(testScheme()).WithObjects(copies...).Build()
}

func (c *laggingCache) snapshot() []client.Object {
	ctx := context.Background()
	var out []client.Object
	for _, gvk := range []schema.GroupVersionKind{CloneSetV1beta1, CloneSetV1alpha1} {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(gvk.GroupVersion().WithKind("CloneSetList"))
		if err := c.server.List(ctx, l); err != nil {
			panic(err)
		}
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	}
	var pods corev1.PodList
	var pvcs corev1.PersistentVolumeClaimList
	var revs appsv1.ControllerRevisionList
	for _, l := range []client.ObjectList{&pods, &pvcs, &revs} {
		if err := c.server.List(ctx, l); err != nil {
			panic(err)
		}
	}
	for i := range pods.Items {
		out = append(out, &pods.Items[i])
	}
	for i := range pvcs.Items {
		out = append(out, &pvcs.Items[i])
	}
	for i := range revs.Items {
		out = append(out, &revs.Items[i])
	}
	return out
}

func (c *laggingCache) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	return c.reads.Get(ctx, key, obj, opts...)
}

func (c *laggingCache) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return c.reads.List(ctx, list, opts...)
}

// TestLaggingCacheNeverWritesTwice runs scenarios with a cache one round
// behind the server: the expectations must keep the controller from
// creating or deleting any object twice, and the scenario must still come
// to rest in the same state as with a fresh cache, with no status write
// refused for a CloneSet older than the controller's own last write.
func TestLaggingCacheNeverWritesTwice(t *testing.T) {
	for _, sc := range e2eScenarios {
		t.Run(sc.name, func(t *testing.T) {
			h := newHarness(t, sc, true)
			h.converge(400)
			for _, c := range sc.changes {
				h.change(c)
				h.converge(400)
			}
			if d := h.api.doubleWrites(); len(d) > 0 {
				t.Errorf("written twice: %s", strings.Join(d, "; "))
			}
			// The round after a status write waits for the cache to show
			// it: none plans from, and writes the status over, the
			// CloneSet before it.
			if h.statusConflicts > 0 {
				t.Errorf("%d status writes refused with a conflict: a round wrote over the CloneSet before its own previous status write", h.statusConflicts)
			}
			fresh := newHarness(t, sc, false)
			fresh.converge(200)
			for _, c := range sc.changes {
				fresh.change(c)
				fresh.converge(200)
			}
			if got, want := h.final(), fresh.final(); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("with a lagging cache the scenario ends elsewhere:\nlagging: %s\nfresh:   %s", dump(got), dump(want))
			}
			t.Logf("%s: at rest after %d reconciles with a lagging cache (%d with a fresh one)", sc.name, h.rounds, fresh.rounds)
		})
	}
}

// TestLaggingCacheWithoutExpectations is the control of
// TestLaggingCacheNeverWritesTwice: with expectations that time out at once
// (as good as none), the same lagging cache makes the controller write
// something twice, so the test above would see a broken bookkeeping.
func TestLaggingCacheWithoutExpectations(t *testing.T) {
	var doubles []string
	for _, sc := range e2eScenarios {
		h := newHarness(t, sc, true)
		h.rec.Expectations = NewExpectations(time.Nanosecond)
		for i := 0; i < 30; i++ {
			h.round()
		}
		for _, c := range sc.changes {
			h.change(c)
			for i := 0; i < 30; i++ {
				h.round()
			}
		}
		doubles = append(doubles, h.api.doubleWrites()...)
	}
	if len(doubles) == 0 {
		t.Fatal("no double write without expectations: the lagging cache does not lag")
	}
	t.Logf("without expectations: %s", strings.Join(doubles, "; "))
}
