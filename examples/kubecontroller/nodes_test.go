package kubecontroller

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/model"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// labelZone is the topology key of the tests' zones.
const labelZone = "topology.kubernetes.io/zone"

// zonedNode is a Node of the tests: its uid follows its name, its zone label
// is zone (none when empty).
func zonedNode(name, version, zone string) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), ResourceVersion: version,
		Labels: map[string]string{"kubernetes.io/hostname": name}}}
	if zone != "" {
		n.Labels[labelZone] = zone
	}
	return n
}

// zonesOf returns name -> zone label of nodes ("-" for a node without one).
func zonesOf(nodes []*model.Node) map[string]string {
	out := map[string]string{}
	for _, n := range nodes {
		z, ok := n.Labels[labelZone]
		if !ok {
			z = "-"
		}
		out[n.Name] = z
	}
	return out
}

// trackerNodes returns the nodes the CloneSet's Tracker holds.
func trackerNodes(st *trackedCloneSet) []*model.Node {
	return st.tracker.Scenario(time.Time{}).Nodes
}

// newTracked returns the state of a new CloneSet, as Reconciler.state
// creates it.
func newTracked() *trackedCloneSet {
	return &trackedCloneSet{cache: NewConversionCache(), tracker: clonesetcore.NewTracker(model.DefaultFeatureGates(), model.ControllerFlags{})}
}

// synced is a HasSynced that is always true.
func synced() bool { return true }

// TestNodeStoreEvents feeds a store the informer's events one at a time:
// adds, updates (a resync of the same version and a status-only update are
// no change; a label change is), deletions, tombstones with and without
// the node; after each, a CloneSet's Tracker synced with the store holds
// exactly the store's nodes, having read every node the first time only.
func TestNodeStoreEvents(t *testing.T) {
	s := newNodeStore(0)
	s.hasSynced = synced
	st := newTracked()
	for i, step := range []struct {
		name  string
		event func()
		want  map[string]string // name -> zone
		seq   uint64            // the changes logged so far
	}{
		{"add node-a", func() { s.add(zonedNode("node-a", "1", "a")) }, map[string]string{"node-a": "a"}, 1},
		{"add node-b", func() { s.add(zonedNode("node-b", "1", "b")) }, map[string]string{"node-a": "a", "node-b": "b"}, 2},
		{"resync of node-a", func() { s.update(zonedNode("node-a", "1", "a"), zonedNode("node-a", "1", "a")) }, map[string]string{"node-a": "a", "node-b": "b"}, 2},
		{"status update of node-a", func() {
			n := zonedNode("node-a", "2", "a")
			n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
			s.update(zonedNode("node-a", "1", "a"), n)
		}, map[string]string{"node-a": "a", "node-b": "b"}, 2},
		{"node-a moves to zone c", func() { s.update(zonedNode("node-a", "2", "a"), zonedNode("node-a", "3", "c")) }, map[string]string{"node-a": "c", "node-b": "b"}, 3},
		{"node-b loses its zone", func() { s.update(zonedNode("node-b", "1", "b"), zonedNode("node-b", "2", "")) }, map[string]string{"node-a": "c", "node-b": "-"}, 4},
		{"delete node-b", func() { s.delete(zonedNode("node-b", "2", "")) }, map[string]string{"node-a": "c"}, 5},
		{"delete node-b again", func() { s.delete(zonedNode("node-b", "2", "")) }, map[string]string{"node-a": "c"}, 5},
		{"add node-c", func() { s.add(zonedNode("node-c", "1", "a")) }, map[string]string{"node-a": "c", "node-c": "a"}, 6},
		{"tombstone of node-c", func() {
			s.delete(toolscache.DeletedFinalStateUnknown{Key: "node-c", Obj: zonedNode("node-c", "1", "a")})
		}, map[string]string{"node-a": "c"}, 7},
		{"add node-d", func() { s.add(zonedNode("node-d", "1", "b")) }, map[string]string{"node-a": "c", "node-d": "b"}, 8},
		{"tombstone of node-d without the node", func() {
			s.delete(toolscache.DeletedFinalStateUnknown{Key: "node-d"})
		}, map[string]string{"node-a": "c"}, 9},
		{"node-d again, and an object that is no node", func() {
			s.add(zonedNode("node-d", "3", "b"))
			s.add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}})
			s.delete(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}})
		}, map[string]string{"node-a": "c", "node-d": "b"}, 10},
	} {
		step.event()
		read := s.read(0, false, true)
		if got := zonesOf(read.nodes); !maps.Equal(got, step.want) {
			t.Fatalf("%s: the store holds %v, want %v", step.name, got, step.want)
		}
		if read.at != step.seq {
			t.Fatalf("%s: %d changes logged, want %d", step.name, read.at, step.seq)
		}
		full := st.syncWithStore(&model.Scenario{}, s, false) != nil
		if want := i == 0; full != want {
			t.Fatalf("%s: the Tracker read every node: %v, want %v", step.name, full, want)
		}
		if got := zonesOf(trackerNodes(st)); !maps.Equal(got, step.want) {
			t.Fatalf("%s: the Tracker holds %v, want %v", step.name, got, step.want)
		}
	}
}

// TestNodeStoreCompaction: the change log keeps the most recent changes
// only; a CloneSet that keeps up applies the changes, one that fell behind
// the log (or a new one) gets every node, and both hold the store's nodes.
func TestNodeStoreCompaction(t *testing.T) {
	s := newNodeStore(4)
	s.hasSynced = synced
	for _, n := range []string{"node-0", "node-1", "node-2"} {
		s.add(zonedNode(n, "1", "a"))
	}
	steady, behind := newTracked(), newTracked()
	for _, st := range []*trackedCloneSet{steady, behind} {
		if st.syncWithStore(&model.Scenario{}, s, false) == nil {
			t.Fatal("a new CloneSet did not read every node")
		}
	}
	for i := range 10 {
		s.update(nil, zonedNode(fmt.Sprintf("node-%d", i%3), fmt.Sprint(i+2), fmt.Sprint("z", i)))
		if steady.syncWithStore(&model.Scenario{}, s, false) != nil {
			t.Fatalf("change %d: a CloneSet one change behind read every node", i)
		}
	}
	if len(s.log) > 4 || s.compacted == 0 {
		t.Fatalf("the log holds %d changes after sequence %d: not compacted", len(s.log), s.compacted)
	}
	if s.read(behind.nodesAt, true, false).changes != nil {
		t.Fatal("the changes of a CloneSet behind the log are offered")
	}
	if behind.syncWithStore(&model.Scenario{}, s, false) == nil {
		t.Fatal("a CloneSet behind the log did not read every node")
	}
	want := zonesOf(s.read(0, false, true).nodes)
	if !maps.Equal(want, map[string]string{"node-0": "z9", "node-1": "z7", "node-2": "z8"}) {
		t.Fatalf("the store holds %v", want)
	}
	for name, st := range map[string]*trackedCloneSet{"steady": steady, "behind": behind} {
		if got := zonesOf(trackerNodes(st)); !maps.Equal(got, want) {
			t.Errorf("%s: the Tracker holds %v, the store %v", name, got, want)
		}
	}
}

// TestNodeStoreConcurrent: workers sync their CloneSets with the store
// while the informer writes it (run with -race); at the end each Tracker
// holds the store's nodes.
func TestNodeStoreConcurrent(t *testing.T) {
	s := newNodeStore(64)
	s.hasSynced = synced
	var done atomic.Bool
	var wg sync.WaitGroup
	states := make([]*trackedCloneSet, 3)
	for w := range states {
		states[w] = newTracked()
		wg.Go(func() {
			for !done.Load() {
				states[w].syncWithStore(&model.Scenario{}, s, w == 0)
			}
		})
	}
	for i := range 3000 {
		name := fmt.Sprintf("node-%d", i%40)
		switch i % 7 {
		case 3:
			s.delete(zonedNode(name, "", ""))
		case 5:
			s.delete(toolscache.DeletedFinalStateUnknown{Key: name})
		default:
			s.update(nil, zonedNode(name, fmt.Sprint(i), fmt.Sprint("z", i%5)))
		}
	}
	done.Store(true)
	wg.Wait()
	want := zonesOf(s.read(0, false, true).nodes)
	for w, st := range states {
		st.syncWithStore(&model.Scenario{}, s, false)
		if got := zonesOf(trackerNodes(st)); !maps.Equal(got, want) {
			t.Errorf("worker %d: the Tracker holds %v, the store %v", w, got, want)
		}
	}
}

// nodeListCounter wraps a client and counts the lists of nodes it is asked
// for.
type nodeListCounter struct {
	client.Client
	lists atomic.Int32
}

func (c *nodeListCounter) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if _, ok := list.(*corev1.NodeList); ok {
		c.lists.Add(1)
	}
	return c.Client.List(ctx, list, opts...)
}

// waitFor polls cond until it holds, failing after ten seconds.
func waitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out waiting for %s", what)
		}
	}
}

// zonedWorld is a CloneSet whose template spreads its pods over zones
// (topologySpreadConstraints on labelZone), at rest with 7 pods, 2 on
// node-0, 2 on node-1, 1 on node-2 and 2 on node-3, scaled in to 6: the
// planner deletes a pod of the zone with the most pods. The nodes are in
// zones a, a, b, b.
func zonedWorld(t testing.TB) Objects {
	t.Helper()
	const plain = `"spec": {"containers": [{"name": "main", "image": "web:1"}]}`
	cs := baseCloneSet(restingSeed, inPlace, "")
	if !strings.Contains(cs, plain) {
		t.Fatalf("baseCloneSet's template is not %s", plain)
	}
	cs = strings.Replace(cs, plain, `"spec": {"containers": [{"name": "main", "image": "web:1"}],
      "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "`+labelZone+`", "whenUnsatisfiable": "ScheduleAnyway"}]}`, 1)
	placement := []string{"node-0", "node-0", "node-1", "node-1", "node-2", "node-3", "node-3"}
	objs := restingObjects(t, cs, len(placement), func(i int) string { return placement[i] })
	must(t, unstructured.SetNestedField(objs.CloneSet.Object, int64(len(placement)-1), "spec", "replicas"))
	objs.Nodes = nil
	for i, zone := range []string{"a", "a", "b", "b"} {
		objs.Nodes = append(objs.Nodes, *zonedNode(fmt.Sprintf("node-%d", i), "1", zone))
	}
	return objs
}

// deletedPodNode returns the node of the pod the round's plan deletes.
func deletedPodNode(t *testing.T, round Round, objs Objects) string {
	t.Helper()
	if round.Plan == nil {
		t.Fatalf("no plan: %+v", round)
	}
	var deleted []string
	for _, a := range round.Plan.Actions {
		if a.Type == model.ActionDeletePod {
			deleted = append(deleted, a.Pod)
		}
	}
	if len(deleted) != 1 {
		t.Fatalf("the plan deletes %v, want one pod (scale in by one)", deleted)
	}
	for _, p := range objs.Pods {
		if p.Name == deleted[0] {
			return p.Spec.NodeName
		}
	}
	t.Fatalf("the plan deletes %s, not a pod of the world", deleted[0])
	return ""
}

// TestReconcileNodesFromEvents runs the Reconciler on a controller-runtime
// informer cache whose Node informer is fed by a watch the test writes to,
// with a NodeStore registered on it as SetupWithManager does: once the store
// has synced no reconcile lists the nodes, a node's zone change reaches the
// next plan (the topology-spread scale-in deletes from the zone that now has
// the most pods) and a deleted node is gone from the plan's input (the
// Tracker's nodes, the note on the pods whose node is missing). Every round
// also plans with Plan on the store's nodes (VerifyTracker).
func TestReconcileNodesFromEvents(t *testing.T) {
	objs := zonedWorld(t)
	nodeWatch := watch.NewFake()
	c := filledCache(t, objs, nodeWatch)
	ctx := context.Background()
	store, err := WatchNodes(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the store to sync", store.HasSynced)
	counter := &nodeListCounter{Client: cachedClient{Client: fake.NewClientBuilder().WithScheme(testScheme()).Build(), reader: c}}
	now := e2eStart.Add(time.Hour)
	r := &Reconciler{Client: counter, Nodes: store, Now: func() time.Time { return now }, DryRun: true, UseOwnerIndex: true, VerifyTracker: true,
		Logf: func(string, ...any) {}}
	req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: objs.CloneSet.GetNamespace(), Name: objs.CloneSet.GetName()}}
	reconcileOnce := func(when string) Round {
		t.Helper()
		if _, err := r.Reconcile(ctx, req); err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		if n := counter.lists.Load(); n != 0 {
			t.Fatalf("%s: the reconciles listed the nodes %d times, want 0 (they come from the store)", when, n)
		}
		return r.Last
	}
	zoneOf := func(node string) string { return zonesOf(store.read(0, false, true).nodes)[node] }

	for i := range 2 { // the first reads every node, the second none
		if node := deletedPodNode(t, reconcileOnce(fmt.Sprint("reconcile ", i)), objs); node != "node-0" && node != "node-1" {
			t.Fatalf("reconcile %d: the scale-in deletes a pod of %s, want one of zone a (node-0, node-1: 4 pods)", i, node)
		}
	}

	nodeWatch.Modify(zonedNode("node-0", "2", "c"))
	waitFor(t, "node-0 in zone c", func() bool { return zoneOf("node-0") == "c" })
	if node := deletedPodNode(t, reconcileOnce("after node-0 moved to zone c"), objs); node != "node-2" && node != "node-3" {
		t.Fatalf("after node-0 moved to zone c: the scale-in deletes a pod of %s, want one of zone b (node-2, node-3: 3 pods)", node)
	}

	nodeWatch.Delete(zonedNode("node-3", "3", "b"))
	waitFor(t, "node-3 gone", func() bool { return store.Len() == 3 })
	round := reconcileOnce("after node-3 was deleted")
	st := r.trackedState(req.String())
	if got, want := zonesOf(trackerNodes(st)), map[string]string{"node-0": "c", "node-1": "a", "node-2": "b"}; !maps.Equal(got, want) {
		t.Fatalf("after node-3 was deleted the Tracker holds %v, want %v", got, want)
	}
	if !slices.ContainsFunc(round.Plan.Notes, func(n string) bool {
		return strings.Contains(n, "nodes [node-3] are referenced by pods but not in the scenario")
	}) {
		t.Fatalf("after node-3 was deleted no note names its pods' missing node:\n%s", strings.Join(round.Plan.Notes, "\n"))
	}
}

// TestReconcileListsNodesWithoutASyncedStore: a Reconciler without a
// NodeStore (built by hand, not through SetupWithManager) or with one whose
// informer has not synced lists the nodes every reconcile, and plans with
// them; once the store has synced, the reconciles list no more nodes and
// the Tracker holds the store's nodes (in the store, node-2 is in zone c).
func TestReconcileListsNodesWithoutASyncedStore(t *testing.T) {
	objs := zonedWorld(t)
	c := filledCache(t, objs, nil)
	listed := map[string]string{"node-0": "a", "node-1": "a", "node-2": "b", "node-3": "b"}
	for _, tc := range []struct {
		name  string
		store *NodeStore
	}{
		{"no store", nil},
		{"a store without an informer", newNodeStore(0)},
		{"a store whose informer has not synced", func() *NodeStore { s := newNodeStore(0); s.hasSynced = func() bool { return false }; return s }()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			counter := &nodeListCounter{Client: cachedClient{Client: fake.NewClientBuilder().WithScheme(testScheme()).Build(), reader: c}}
			r := &Reconciler{Client: counter, Nodes: tc.store, Now: func() time.Time { return e2eStart.Add(time.Hour) }, DryRun: true, UseOwnerIndex: true,
				VerifyTracker: true, Logf: func(string, ...any) {}}
			req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: objs.CloneSet.GetNamespace(), Name: objs.CloneSet.GetName()}}
			for i := range 2 {
				if _, err := r.Reconcile(context.Background(), req); err != nil {
					t.Fatal(err)
				}
				if got := counter.lists.Load(); got != int32(i+1) {
					t.Fatalf("reconcile %d: the nodes were listed %d times, want %d", i, got, i+1)
				}
			}
			st := r.trackedState(req.String())
			if got := zonesOf(trackerNodes(st)); !maps.Equal(got, listed) {
				t.Fatalf("the Tracker holds %v, want the listed nodes %v", got, listed)
			}
			if tc.store == nil {
				return
			}
			for i := range 4 {
				zone := listed[fmt.Sprintf("node-%d", i)]
				if i == 2 {
					zone = "c"
				}
				tc.store.add(zonedNode(fmt.Sprintf("node-%d", i), "1", zone))
			}
			tc.store.hasSynced = synced
			if _, err := r.Reconcile(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			if got := counter.lists.Load(); got != 2 {
				t.Fatalf("the nodes were listed once the store had synced (%d lists in all, want 2)", got)
			}
			want := map[string]string{"node-0": "a", "node-1": "a", "node-2": "c", "node-3": "b"}
			if got := zonesOf(trackerNodes(st)); !maps.Equal(got, want) {
				t.Fatalf("once the store synced the Tracker holds %v, want the store's %v", got, want)
			}
		})
	}
}

// clusterNodes returns k nodes as a cluster holds them: the usual labels
// (hostname, zone, region, os, arch, instance type), and a status with
// conditions, addresses, capacity, node info and a few images, so that a
// list of them costs what it costs on a cluster.
func clusterNodes(k int) []corev1.Node {
	out := make([]corev1.Node, k)
	qty := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("16"), corev1.ResourceMemory: resource.MustParse("64Gi"),
		corev1.ResourcePods: resource.MustParse("110"), corev1.ResourceEphemeralStorage: resource.MustParse("100Gi")}
	for i := range out {
		name := fmt.Sprintf("node-%04d", i)
		n := zonedNode(name, "1", fmt.Sprint("zone-", i%3))
		maps.Copy(n.Labels, map[string]string{"topology.kubernetes.io/region": "region-1", "kubernetes.io/os": "linux",
			"kubernetes.io/arch": "amd64", "node.kubernetes.io/instance-type": "m5.4xlarge"})
		n.Status.Capacity, n.Status.Allocatable = qty.DeepCopy(), qty.DeepCopy()
		for _, typ := range []corev1.NodeConditionType{corev1.NodeReady, corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure, corev1.NodeNetworkUnavailable} {
			n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{Type: typ, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficient" + string(typ), Message: "kubelet reports " + string(typ)})
		}
		n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("10.0.%d.%d", i/250, i%250)}, {Type: corev1.NodeHostName, Address: name}}
		n.Status.NodeInfo = corev1.NodeSystemInfo{KubeletVersion: "v1.37.0", ContainerRuntimeVersion: "containerd://2.1.0", OSImage: "Linux", Architecture: "amd64", OperatingSystem: "linux"}
		for j := range 8 {
			n.Status.Images = append(n.Status.Images, corev1.ContainerImage{Names: []string{fmt.Sprintf("registry.example/image-%d@sha256:%064d", j, j), fmt.Sprintf("registry.example/image-%d:v1", j)}, SizeBytes: 100 << 20})
		}
		out[i] = *n
	}
	return out
}
