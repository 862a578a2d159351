package kubecontroller

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// updateHookLabel is the label of the in-place update hook of
// hookedCloneSet: the template carries it, and a pod that carries it is held
// in PreparingUpdate until its owner removes it.
const updateHookLabel = "example.com/update-hook"

// hookedCloneSet is the JSON of a CloneSet of restingSeed pods with the
// given strategy, a volume claim template, a preDelete hook (a finalizer)
// and an in-place update hook (a label its template carries).
func hookedCloneSet(t testing.TB, strategy string) string {
	t.Helper()
	u := unstructuredFrom(t, baseCloneSet(restingSeed, strategy, `,
    "volumeClaimTemplates": [{"metadata": {"name": "data"},
      "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}],
    "lifecycle": {"preDelete": {"finalizersHandler": ["example.com/hook"]},
      "inPlaceUpdate": {"labelsHandler": {"`+updateHookLabel+`": "true"}}}`))
	must(t, unstructured.SetNestedField(u.Object, "true", "spec", "template", "metadata", "labels", updateHookLabel))
	b, err := u.MarshalJSON()
	must(t, err)
	return string(b)
}

// recordingClient reads from an informer cache and records every write
// without sending it anywhere (each succeeds): a reconcile then plans and
// sends all the requests of a round, and its cache never changes.
type recordingClient struct {
	client.Client
	mu     sync.Mutex
	writes []string
}

// newRecordingClient returns a recordingClient reading from c.
func newRecordingClient(c cache.Cache) *recordingClient {
	w := &recordingClient{}
	record := func(verb string, obj client.Object) error {
		w.mu.Lock()
		defer w.mu.Unlock()
		kind := reflect.TypeOf(obj).Elem().Name()
		if u, ok := obj.(*unstructured.Unstructured); ok {
			kind = u.GetKind()
		}
		w.writes = append(w.writes, verb+" "+kind+" "+obj.GetName())
		return nil
	}
	writes := interceptor.NewClient(fake.NewClientBuilder().WithScheme(testScheme()).Build(), interceptor.Funcs{
		Create: func(_ context.Context, _ client.WithWatch, obj client.Object, _ ...client.CreateOption) error {
			return record("create", obj)
		},
		Delete: func(_ context.Context, _ client.WithWatch, obj client.Object, _ ...client.DeleteOption) error {
			return record("delete", obj)
		},
		Update: func(_ context.Context, _ client.WithWatch, obj client.Object, _ ...client.UpdateOption) error {
			return record("update", obj)
		},
		Patch: func(_ context.Context, _ client.WithWatch, obj client.Object, _ client.Patch, _ ...client.PatchOption) error {
			return record("patch", obj)
		},
		SubResourcePatch: func(_ context.Context, _ client.Client, sub string, obj client.Object, _ client.Patch, _ ...client.SubResourcePatchOption) error {
			return record("patch "+sub, obj)
		},
		SubResourceUpdate: func(_ context.Context, _ client.Client, sub string, obj client.Object, _ ...client.SubResourceUpdateOption) error {
			return record("update "+sub, obj)
		},
	})
	w.Client = cachedClient{Client: writes, reader: c}
	return w
}

// taken returns the writes recorded so far and forgets them.
func (w *recordingClient) taken() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.writes
	w.writes = nil
	return out
}

// cachedObjects are the objects a cache holds, by kind and name: the
// cache's own (listed without copies; each struct is a shallow copy, its
// maps, slices and pointers the cache's).
type cachedObjects map[string]any

// cacheContents lists everything c holds without copies.
func cacheContents(t testing.TB, c cache.Cache) cachedObjects {
	t.Helper()
	ctx := context.Background()
	out := cachedObjects{}
	var pods corev1.PodList
	var pvcs corev1.PersistentVolumeClaimList
	var revs appsv1.ControllerRevisionList
	var nodes corev1.NodeList
	css := &unstructured.UnstructuredList{}
	css.SetGroupVersionKind(CloneSetV1beta1.GroupVersion().WithKind("CloneSetList"))
	for _, l := range []client.ObjectList{&pods, &pvcs, &revs, &nodes, css} {
		must(t, c.List(ctx, l, client.UnsafeDisableDeepCopy))
	}
	for i := range pods.Items {
		out["Pod "+pods.Items[i].Name] = &pods.Items[i]
	}
	for i := range pvcs.Items {
		out["PersistentVolumeClaim "+pvcs.Items[i].Name] = &pvcs.Items[i]
	}
	for i := range revs.Items {
		out["ControllerRevision "+revs.Items[i].Name] = &revs.Items[i]
	}
	for i := range nodes.Items {
		out["Node "+nodes.Items[i].Name] = &nodes.Items[i]
	}
	for i := range css.Items {
		out["CloneSet "+css.Items[i].GetName()] = &css.Items[i]
	}
	return out
}

// deepCopy returns deep copies of the objects.
func (objs cachedObjects) deepCopy() cachedObjects {
	out := make(cachedObjects, len(objs))
	for k, o := range objs {
		out[k] = o.(runtime.Object).DeepCopyObject()
	}
	return out
}

// changes returns, for each object of before, how the cache's now differs
// (reflect.DeepEqual: a quantity whose text got cached counts too), and the
// objects that came or went.
func (objs cachedObjects) changes(now cachedObjects) []string {
	var out []string
	for k, was := range objs {
		is, ok := now[k]
		switch {
		case !ok:
			out = append(out, k+": gone")
		case !reflect.DeepEqual(was, is):
			out = append(out, fmt.Sprintf("%s (-before +after):\n%s", k, cmp.Diff(was, is)))
		}
	}
	for k := range now {
		if _, ok := objs[k]; !ok {
			out = append(out, k+": new")
		}
	}
	slices.Sort(out)
	return out
}

// TestListedObjectsStayUnchanged reconciles CloneSets whose rounds do real
// work from a controller-runtime informer cache, the Reconciler listing
// without deep copies (its default), and checks that no object of the cache
// changed: the listing, Lookup and the expectations, the conversion and the
// ConversionCache (which keeps model objects sharing the cached objects'
// label and annotation maps between rounds), the Tracker's Sync and Plan,
// Plan itself (VerifyTracker), the requests and the Sender only read what
// List returns. Each CloneSet is reconciled with the nodes listed (the
// listing fallback) and from a NodeStore, three rounds: one that plans and
// sends, one the expectations may block, and one planned again from the
// cache with fresh expectations (the kept model objects read again). The
// writes go to a client that records them, so the cache holds the same
// objects throughout; deep copies of every cached object taken before are
// compared with the cache's objects after.
func TestListedObjectsStayUnchanged(t *testing.T) {
	hooked := hookedCloneSet(t, inPlace)
	recreate := hookedCloneSet(t, recreateSurge)
	setImage := func(t *testing.T, objs *Objects) {
		containers, _, _ := unstructured.NestedSlice(objs.CloneSet.Object, "spec", "template", "spec", "containers")
		containers[0].(map[string]any)["image"] = "web:2"
		must(t, unstructured.SetNestedSlice(objs.CloneSet.Object, containers, "spec", "template", "spec", "containers"))
	}
	for _, tc := range []struct {
		name   string
		csJSON string
		change func(t *testing.T, objs *Objects)
		// want are writes the first round must send (prefixes: verb and
		// kind); none for a refused CloneSet.
		want    []string
		refused bool
	}{
		{
			name: "scale-out-with-claims", csJSON: hooked,
			change: func(t *testing.T, objs *Objects) {
				must(t, unstructured.SetNestedField(objs.CloneSet.Object, int64(restingSeed+3), "spec", "replicas"))
			},
			want: []string{"create Pod ", "create PersistentVolumeClaim ", "patch status CloneSet web"},
		},
		{
			name: "scale-in-podsToDelete-preDelete-hook", csJSON: hooked,
			change: func(t *testing.T, objs *Objects) {
				must(t, unstructured.SetNestedField(objs.CloneSet.Object, int64(restingSeed-2), "spec", "replicas"))
				must(t, unstructured.SetNestedStringSlice(objs.CloneSet.Object, []string{objs.Pods[0].Name}, "spec", "scaleStrategy", "podsToDelete"))
			},
			want: []string{"patch Pod " + "web-"}, // PreparingDelete
		},
		{
			name: "in-place-update-with-hooks", csJSON: hooked, change: setImage,
			want: []string{"create ControllerRevision ", "patch Pod "}, // PreparingUpdate
		},
		{
			name: "recreate", csJSON: recreate, change: setImage,
			want: []string{"create ControllerRevision ", "create Pod "},
		},
		{
			name: "refused", csJSON: hooked,
			change: func(t *testing.T, objs *Objects) {
				var strategy map[string]any
				must(t, json.Unmarshal([]byte(noBudget), &strategy))
				must(t, unstructured.SetNestedField(objs.CloneSet.Object, strategy, "spec", "updateStrategy"))
			},
			refused: true,
		},
	} {
		for _, from := range []string{"list", "events"} {
			t.Run(tc.name+"/nodes-from-"+from, func(t *testing.T) {
				objs := restingWorld(t, tc.csJSON)
				if len(objs.PVCs) == 0 {
					t.Fatal("the resting world has no claims")
				}
				objs.Nodes = nil
				for i := range 3 {
					objs.Nodes = append(objs.Nodes, *zonedNode(fmt.Sprintf("node-%d", i), "1", fmt.Sprint("zone-", i)))
				}
				tc.change(t, &objs)
				c := filledCache(t, objs, nil)
				before := cacheContents(t, c).deepCopy()
				w := newRecordingClient(c)
				events := &eventLog{}
				r := &Reconciler{
					Client: w, Now: func() time.Time { return e2eStart.Add(time.Hour) }, UseOwnerIndex: true,
					VerifyTracker: true, Recorder: events, Logf: func(string, ...any) {},
				}
				if from == "events" {
					store, err := WatchNodes(context.Background(), c)
					must(t, err)
					waitFor(t, "the node store to sync", store.HasSynced)
					r.Nodes = store
				}
				sharesCache(t, r, c, objs.CloneSet)
				req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "default", Name: "web"}}
				for round := range 3 {
					if round == 2 {
						r.Expectations = NewExpectations(0)
					}
					if _, err := r.Reconcile(context.Background(), req); err != nil {
						t.Fatalf("round %d: %v", round, err)
					}
					writes := w.taken()
					if round > 0 {
						continue
					}
					t.Logf("first round: %d write(s): %q", len(writes), writes)
					if tc.refused {
						if r.Last.Refused == nil || len(writes) > 0 || len(events.all()) != 1 {
							t.Fatalf("want a refusal with one event and no write: refused %v, writes %q, events %v", r.Last.Refused, writes, events.all())
						}
						continue
					}
					for _, want := range tc.want {
						if !slices.ContainsFunc(writes, func(s string) bool { return strings.HasPrefix(s, want) }) {
							t.Fatalf("the first round sent no %q: %q", want, writes)
						}
					}
				}
				if d := before.changes(cacheContents(t, c)); len(d) > 0 {
					t.Fatalf("the reconciles changed %d cached object(s):\n%s", len(d), strings.Join(d, "\n"))
				}
			})
		}
	}
}

// sharesCache fails unless r.List returns the cache's own objects (their
// label maps the cache's), so that TestListedObjectsStayUnchanged checks
// what a reconcile does to them and not to copies.
func sharesCache(t *testing.T, r *Reconciler, c cache.Cache, cs *unstructured.Unstructured) {
	t.Helper()
	listed, err := r.List(context.Background(), cs)
	must(t, err)
	cached := cacheContents(t, c)
	for i := range listed.Pods {
		p := &listed.Pods[i]
		own := cached["Pod "+p.Name].(*corev1.Pod)
		if reflect.ValueOf(p.Labels).UnsafePointer() != reflect.ValueOf(own.Labels).UnsafePointer() {
			t.Fatalf("List returned a copy of pod %s, not the cache's own", p.Name)
		}
	}
	if len(listed.Pods) == 0 {
		t.Fatal("List returned no pod")
	}
}

// TestCopyListedListsCopies: with CopyListed, List hands out deep copies
// (the label maps are not the cache's), so that code of a caller may write
// to them; without it, the cache's own (sharesCache).
func TestCopyListedListsCopies(t *testing.T) {
	objs := restingWorld(t, hookedCloneSet(t, inPlace))
	c := filledCache(t, objs, nil)
	r := &Reconciler{Client: newRecordingClient(c), UseOwnerIndex: true, CopyListed: true}
	listed, err := r.List(context.Background(), objs.CloneSet)
	must(t, err)
	cached := cacheContents(t, c)
	if len(listed.Pods) == 0 {
		t.Fatal("List returned no pod")
	}
	for i := range listed.Pods {
		p := &listed.Pods[i]
		own := cached["Pod "+p.Name].(*corev1.Pod)
		if reflect.ValueOf(p.Labels).UnsafePointer() == reflect.ValueOf(own.Labels).UnsafePointer() {
			t.Fatalf("with CopyListed, List returned the cache's own pod %s", p.Name)
		}
	}
	r.CopyListed = false
	sharesCache(t, r, c, objs.CloneSet)
}
