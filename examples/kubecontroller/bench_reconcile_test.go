package kubecontroller

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// fixedListWatch serves one list and a watch that never sends (or, when
// set, watcher: the test sends its events): an informer over it holds the
// list, as an informer cache at rest does.
type fixedListWatch struct {
	list    runtime.Object
	watcher watch.Interface
}

func (f fixedListWatch) List(metav1.ListOptions) (runtime.Object, error) {
	return f.list.DeepCopyObject(), nil
}

func (f fixedListWatch) Watch(metav1.ListOptions) (watch.Interface, error) {
	if f.watcher != nil {
		return f.watcher, nil
	}
	return watch.NewFake(), nil
}

// IsWatchListSemanticsUnSupported makes the reflector list, then watch
// (there is no streaming list to serve).
func (f fixedListWatch) IsWatchListSemanticsUnSupported() bool { return true }

// cachedClient reads from an informer cache and writes to the fake client
// (a reconcile at rest writes nothing).
type cachedClient struct {
	client.Client
	reader client.Reader
}

func (c cachedClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	return c.reader.Get(ctx, key, obj, opts...)
}

func (c cachedClient) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return c.reader.List(ctx, list, opts...)
}

// filledCache starts a controller-runtime informer cache holding objs (the
// CloneSet, n pods, its claims, revisions and nodes), with the IndexOwner
// index registered, and waits for it to sync. The Node informer's watch is
// nodeWatch when not nil (the test sends node events on it), silent
// otherwise. The cache stops with the test.
func filledCache(b testing.TB, objs Objects, nodeWatch watch.Interface) cache.Cache {
	b.Helper()
	scheme := testScheme()
	mapper := meta.NewDefaultRESTMapper(nil)
	for _, gvk := range []schema.GroupVersionKind{
		corev1.SchemeGroupVersion.WithKind("Pod"), corev1.SchemeGroupVersion.WithKind("PersistentVolumeClaim"),
		appsv1.SchemeGroupVersion.WithKind("ControllerRevision"), CloneSetV1beta1,
	} {
		mapper.Add(gvk, meta.RESTScopeNamespace)
	}
	mapper.Add(corev1.SchemeGroupVersion.WithKind("Node"), meta.RESTScopeRoot)
	lists := func(obj runtime.Object) runtime.Object {
		switch obj.(type) {
		case *corev1.Pod:
			return &corev1.PodList{Items: objs.Pods}
		case *corev1.PersistentVolumeClaim:
			return &corev1.PersistentVolumeClaimList{Items: objs.PVCs}
		case *appsv1.ControllerRevision:
			return &appsv1.ControllerRevisionList{Items: objs.Revisions}
		case *corev1.Node:
			return &corev1.NodeList{Items: objs.Nodes}
		default:
			l := &unstructured.UnstructuredList{Items: []unstructured.Unstructured{*objs.CloneSet.DeepCopy()}}
			l.SetAPIVersion(CloneSetV1beta1.GroupVersion().String())
			l.SetKind("CloneSetList")
			return l
		}
	}
	c, err := cache.New(&rest.Config{Host: "http://127.0.0.1:1"}, cache.Options{
		Scheme: scheme, Mapper: mapper, HTTPClient: http.DefaultClient,
		NewInformer: func(_ toolscache.ListerWatcher, obj runtime.Object, resync time.Duration, idx toolscache.Indexers) toolscache.SharedIndexInformer {
			lw := fixedListWatch{list: lists(obj)}
			if _, ok := obj.(*corev1.Node); ok {
				lw.watcher = nodeWatch
			}
			return toolscache.NewSharedIndexInformer(lw, obj, resync, idx)
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	if err := IndexByOwner(ctx, c); err != nil {
		b.Fatal(err)
	}
	cs := &unstructured.Unstructured{}
	cs.SetGroupVersionKind(CloneSetV1beta1)
	for _, o := range []client.Object{&corev1.Pod{}, &corev1.PersistentVolumeClaim{}, &appsv1.ControllerRevision{}, &corev1.Node{}, cs} {
		if _, err := c.GetInformer(ctx, o); err != nil {
			b.Fatal(err)
		}
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		b.Fatal("cache did not sync")
	}
	return c
}

// restingWorld is a CloneSet of restingSeed pods brought to rest on the
// fake API server of TestEndToEnd (the Reconciler creates the pods, the
// harness schedules them on three nodes and plays the kubelet), as the
// server then holds it (its pods, claims and revisions), with the three
// nodes; the CloneSet is csJSON
// (baseCloneSet(restingSeed, inPlace, "") when empty).
func restingWorld(b testing.TB, csJSON string) Objects {
	b.Helper()
	if csJSON == "" {
		csJSON = baseCloneSet(restingSeed, inPlace, "")
	}
	h := &harness{t: b, ctx: context.Background(), now: e2eStart, waiting: map[string]int{}}
	h.api = newAPIServer(func() time.Time { return h.now }, unstructuredFrom(b, csJSON))
	h.rec = &Reconciler{Client: h.api, Now: func() time.Time { return h.now }}
	h.req = reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "default", Name: "web"}}
	h.converge(100)
	objs := Objects{CloneSet: h.cloneSet(), Pods: h.serverPods()}
	var revs appsv1.ControllerRevisionList
	must(b, h.api.List(h.ctx, &revs, client.InNamespace("default")))
	objs.Revisions = revs.Items
	var pvcs corev1.PersistentVolumeClaimList
	must(b, h.api.List(h.ctx, &pvcs, client.InNamespace("default")))
	objs.PVCs = pvcs.Items
	for i := range 3 {
		objs.Nodes = append(objs.Nodes, corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%d", i), UID: types.UID(fmt.Sprintf("node-uid-%d", i)), ResourceVersion: "1"}})
	}
	return objs
}

// restingSeed is the number of pods restingWorld brings to rest.
const restingSeed = 6

// restingObjects is restingWorld (of csJSON) grown to n pods: each pod
// copied under a name, uid and instance id of its own and put on node
// node(i) (node-0, node-1 and node-2 in turn when nil), the CloneSet's
// replicas and status counts set to n (what a rest at n pods shows).
func restingObjects(b testing.TB, csJSON string, n int, node func(i int) string) Objects {
	b.Helper()
	if node == nil {
		node = func(i int) string { return fmt.Sprintf("node-%d", i%3) }
	}
	objs := restingWorld(b, csJSON)
	seed := objs.Pods
	objs.Pods = make([]corev1.Pod, 0, n)
	for i := range n {
		p := *seed[i%len(seed)].DeepCopy()
		id := fmt.Sprintf("b%05d", i)
		p.Name = "web-" + id
		p.UID = types.UID("uid-" + p.Name)
		p.Labels[model.LabelInstanceID] = id
		p.Spec.NodeName = node(i)
		objs.Pods = append(objs.Pods, p)
	}
	must(b, unstructured.SetNestedField(objs.CloneSet.Object, int64(n), "spec", "replicas"))
	for _, f := range []string{"replicas", "readyReplicas", "availableReplicas", "updatedReplicas", "updatedReadyReplicas", "updatedAvailableReplicas", "expectedUpdatedReplicas"} {
		if _, ok, _ := unstructured.NestedInt64(objs.CloneSet.Object, "status", f); ok {
			must(b, unstructured.SetNestedField(objs.CloneSet.Object, int64(n), "status", f))
		}
	}
	return objs
}

// BenchmarkReconcile measures one reconcile of a CloneSet at rest with
// 1,000 and 10,000 pods, spread over a node per 10 pods (100 and 1,000 nodes
// with a cluster's labels and status: clusterNodes), against a filled
// controller-runtime informer cache read through the IndexOwner index:
// list from the cache, convert (only what changed: nothing), plan, build the
// requests. from=events is the Reconciler as SetupWithManager builds it:
// the nodes come from a NodeStore on the cache's Node informer (at rest no
// node changes, so a reconcile reads no node); from=list is a Reconciler
// without a store, which lists (deep copies) every node each reconcile and
// looks each up in its conversion cache. The Reconciler is a dry run, so
// nothing could be sent; requests/op says how many the plan holds and
// node-lists/op how many lists of nodes a reconcile made. It reports p50
// and p99 of the reconciles it timed, and cpu-ms/op, the process's CPU time
// (user and system, the garbage collector's included) per reconcile, less
// sensitive than wall time to the other processes of a shared machine.
func BenchmarkReconcile(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		nodes := n / 10
		for _, from := range []string{"events", "list"} {
			b.Run(fmt.Sprintf("pods=%d/nodes=%d/from=%s", n, nodes, from), func(b *testing.B) {
				objs := restingObjects(b, "", n, func(i int) string { return fmt.Sprintf("node-%04d", i%nodes) })
				objs.Nodes = clusterNodes(nodes)
				c := filledCache(b, objs, nil)
				ctx := context.Background()
				counter := &nodeListCounter{Client: cachedClient{Client: fake.NewClientBuilder().WithScheme(testScheme()).Build(), reader: c}}
				r := &Reconciler{
					Client: counter,
					Now:    func() time.Time { return convNow }, DryRun: true, UseOwnerIndex: true,
					Logf: func(string, ...any) {},
				}
				if from == "events" {
					store, err := WatchNodes(ctx, c)
					if err != nil {
						b.Fatal(err)
					}
					waitFor(b, "the node store to sync", store.HasSynced)
					r.Nodes = store
				}
				req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: objs.CloneSet.GetNamespace(), Name: objs.CloneSet.GetName()}}
				if _, err := r.Reconcile(ctx, req); err != nil { // converts everything once
					b.Fatal(err)
				}
				if r.Last.Plan == nil || r.Last.Plan.Status.Replicas != int32(n) {
					b.Fatalf("the first reconcile did not plan %d pods: %+v", n, r.Last)
				}
				counter.lists.Store(0)
				times := make([]time.Duration, 0, b.N)
				requests := 0
				b.ReportAllocs()
				b.ResetTimer()
				cpu := processCPUTime()
				for i := 0; i < b.N; i++ {
					start := time.Now()
					if _, err := r.Reconcile(ctx, req); err != nil {
						b.Fatal(err)
					}
					times = append(times, time.Since(start))
					requests += len(r.Last.Outcomes)
				}
				cpu = processCPUTime() - cpu
				b.StopTimer()
				slices.Sort(times)
				b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(times[(len(times)*99)/100].Microseconds())/1000, "p99-ms")
				b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
				b.ReportMetric(float64(counter.lists.Load())/float64(b.N), "node-lists/op")
				b.ReportMetric(float64(cpu)/1e6/float64(b.N), "cpu-ms/op")
			})
		}
	}
}
