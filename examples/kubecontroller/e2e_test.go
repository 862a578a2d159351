package kubecontroller

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller/internal/e2ekit"
	"github.com/clonecore/cloneset/internal/cisummary"
	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/pvc"
	"github.com/clonecore/cloneset/sim"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// The end-to-end tests run the Reconciler on controller-runtime's fake
// client (apiServer) and play the rest of the cluster between reconciles:
// the kubelet (a new pod is Running and Ready after one round; a changed
// image shows in containerStatuses after one round and is ready the round
// after) and the hook owners (a hook finalizer is removed hookRounds rounds
// after the pod starts waiting for it). A user change is made whenever the
// CloneSet is at rest: a reconcile that sends nothing and is not blocked,
// with nothing left for the kubelet or the hooks to do, twice in a row.
//
// Each scenario then runs in the library's simulator (sim) with the same
// CloneSet, the same changes and fixed delays, and must end in the same
// pods, revisions and status.

// debugRounds logs every round (with -v).
var debugRounds = os.Getenv("KUBECONTROLLER_DEBUG") != ""

// hookRounds is how many rounds a hook owner takes to remove its finalizer.
const hookRounds = 3

var e2eStart = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// userChange is a change a user makes at rest: it edits the CloneSet on the
// server and returns the same change for the simulator.
type userChange func(h *harness, cs *unstructured.Unstructured) sim.Change

type e2eScenario struct {
	name     string
	cloneSet string // the initial CloneSet (JSON), without metadata
	gates    []string
	changes  []userChange
}

func baseCloneSet(replicas int, strategy, extra string) string {
	return e2ekit.CloneSet(`{"name": "web", "namespace": "default", "uid": "cs-uid", "generation": 1}`, replicas, strategy, extra)
}

func setImage(image string, partition any) userChange {
	return func(h *harness, cs *unstructured.Unstructured) sim.Change {
		containers, _, _ := unstructured.NestedSlice(cs.Object, "spec", "template", "spec", "containers")
		containers[0].(map[string]any)["image"] = image
		must(h.t, unstructured.SetNestedSlice(cs.Object, containers, "spec", "template", "spec", "containers"))
		c := sim.Change{Image: image}
		if partition != nil {
			c.Partition = setPartitionField(h, cs, partition)
		}
		return c
	}
}

func setPartition(partition any) userChange {
	return func(h *harness, cs *unstructured.Unstructured) sim.Change {
		return sim.Change{Partition: setPartitionField(h, cs, partition)}
	}
}

func setPartitionField(h *harness, cs *unstructured.Unstructured, partition any) *model.IntOrPercent {
	var p model.IntOrPercent
	switch x := partition.(type) {
	case int:
		must(h.t, unstructured.SetNestedField(cs.Object, int64(x), "spec", "updateStrategy", "rollingUpdate", "partition"))
		p = model.FromInt(int32(x))
	case string:
		must(h.t, unstructured.SetNestedField(cs.Object, x, "spec", "updateStrategy", "rollingUpdate", "partition"))
		p = model.FromString(x)
	}
	return &p
}

// scaleInDeleting sets replicas and names the first pod (by name) in
// podsToDelete.
func scaleInDeleting(replicas int) userChange {
	return func(h *harness, cs *unstructured.Unstructured) sim.Change {
		pods := h.serverPods()
		victim := pods[0].Name
		must(h.t, unstructured.SetNestedField(cs.Object, int64(replicas), "spec", "replicas"))
		must(h.t, unstructured.SetNestedStringSlice(cs.Object, []string{victim}, "spec", "scaleStrategy", "podsToDelete"))
		r := int32(replicas)
		return sim.Change{Replicas: &r, PodsToDelete: []string{victim}}
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

const (
	inPlace       = e2ekit.InPlace
	recreateSurge = e2ekit.RecreateSurge
)

var e2eScenarios = []e2eScenario{
	{
		name: "scale-out-vct",
		cloneSet: baseCloneSet(3, inPlace, `,
    "volumeClaimTemplates": [{"metadata": {"name": "data"},
      "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]`),
	},
	{
		name:     "inplace-partition",
		cloneSet: baseCloneSet(4, inPlace, ""),
		changes:  []userChange{setImage("web:2", 2), setPartition(0)},
	},
	{
		name:     "recreate-maxsurge",
		cloneSet: baseCloneSet(3, recreateSurge, ""),
		changes:  []userChange{setImage("web:2", nil)},
	},
	{
		name:     "scale-in-predelete",
		cloneSet: baseCloneSet(4, inPlace, `, "lifecycle": {"preDelete": {"finalizersHandler": ["example.com/hook"]}}`),
		changes:  []userChange{scaleInDeleting(2)},
	},
	{
		name:     "partition-rollback",
		cloneSet: baseCloneSet(4, inPlace, ""),
		gates:    []string{model.GateCloneSetPartitionRollback},
		changes:  []userChange{setImage("web:2", 1), setPartition(3)},
	},
}

// harness is one cluster: the fake API server, the reconciler, the clock.
type harness struct {
	t      testing.TB
	ctx    context.Context
	now    time.Time
	api    *apiServer
	cache  *laggingCache // nil: the reconciler reads the server
	rec    *Reconciler
	req    reconcile.Request
	rounds int
	// bound counts the pods scheduled, to spread them over three nodes.
	bound int
	// waiting counts, per pod, the rounds it has waited for a hook owner.
	waiting map[string]int
	// statusConflicts counts the CloneSet status writes the server refused
	// with a conflict.
	statusConflicts int
}

func newHarness(t *testing.T, sc e2eScenario, lag bool) *harness {
	h := &harness{t: t, ctx: context.Background(), now: e2eStart, waiting: map[string]int{}}
	cs := unstructuredFrom(t, sc.cloneSet)
	h.api = newAPIServer(func() time.Time { return h.now }, cs)
	var c client.Client = h.api
	if lag {
		h.cache = newLaggingCache(h.api)
		c = h.cache
	}
	gates := model.DefaultFeatureGates()
	for _, g := range sc.gates {
		must(t, gates.Set(g, true))
	}
	h.rec = &Reconciler{Client: c, Now: func() time.Time { return h.now }, Gates: &gates, VerifyTracker: true}
	h.req = reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "default", Name: "web"}}
	return h
}

// round runs one reconcile, then the kubelet and the hook owners, and
// advances the clock; quiet reports a round in which nothing happened.
func (h *harness) round() (quiet bool) {
	if h.cache != nil {
		h.cache.advance()
	}
	res, err := h.rec.Reconcile(h.ctx, h.req)
	h.rounds++
	if errors.Is(err, reconcile.TerminalError(nil)) {
		h.t.Fatalf("round %d: %v", h.rounds, err)
	}
	sent, blocked := h.rec.Last.Sent(), len(h.rec.Last.Blocked) > 0
	for _, o := range h.rec.Last.Outcomes {
		if o.Request.IsStatusWrite() && apierrors.IsConflict(o.Err) {
			h.statusConflicts++
		}
	}
	changed := h.cluster()
	h.now = h.now.Add(time.Second)
	quiet = err == nil && sent == 0 && !blocked && !changed
	if testing.Verbose() && debugRounds {
		var acts []string
		if pl := h.rec.Last.Plan; pl != nil {
			for _, a := range pl.Actions {
				acts = append(acts, string(a.Type)+" "+a.Pod+a.PVC+a.Revision)
			}
		}
		h.t.Logf("round %d: sent %d blocked %v err %v changed %v requeue %v actions %v", h.rounds, sent, h.rec.Last.Blocked, err, changed, res.RequeueAfter, acts)
		for _, o := range h.rec.Last.Outcomes {
			h.t.Logf("  %s %s %s/%s %s %s %v", o.Request.Verb, o.Request.Resource, o.Request.Subresource, o.Request.Name, o.Request.PatchType, o.Request.Patch, o.Err)
		}
	}
	if quiet && res.RequeueAfter > 0 {
		h.now = h.now.Add(res.RequeueAfter)
	}
	return quiet
}

// converge runs rounds until two quiet rounds in a row.
func (h *harness) converge(limit int) {
	h.t.Helper()
	quiet := 0
	for start := h.rounds; quiet < 2; {
		if h.rounds-start >= limit {
			h.t.Fatalf("no rest after %d reconciles; last plan: %+v", limit, h.rec.Last.Plan)
		}
		if h.round() {
			quiet++
		} else {
			quiet = 0
		}
	}
}

func (h *harness) cloneSet() *unstructured.Unstructured {
	cs := &unstructured.Unstructured{}
	cs.SetGroupVersionKind(h.rec.gvk())
	must(h.t, h.api.Get(h.ctx, h.req.NamespacedName, cs))
	return cs
}

// change makes a user change on the server (the spec update bumps the
// generation).
func (h *harness) change(c userChange) sim.Change {
	cs := h.cloneSet()
	out := c(h, cs)
	must(h.t, h.api.Update(h.ctx, cs))
	return out
}

func (h *harness) serverPods() []corev1.Pod {
	var pods corev1.PodList
	must(h.t, h.api.List(h.ctx, &pods, client.InNamespace("default")))
	sort.Slice(pods.Items, func(i, j int) bool { return pods.Items[i].Name < pods.Items[j].Name })
	return pods.Items
}

func normImage(img string) string {
	if !strings.Contains(img, ":") {
		return img + ":latest"
	}
	return img
}

// cluster is the kubelet and the hook owners: one step per pod per round.
func (h *harness) cluster() (changed bool) {
	cs, err := CloneSetFromUnstructured(h.cloneSet())
	must(h.t, err)
	var hookFinalizers []string
	if l := cs.Spec.Lifecycle; l != nil && l.PreDelete != nil {
		hookFinalizers = l.PreDelete.FinalizersHandler
	}
	for _, p := range h.serverPods() {
		p := p
		// Hook owners: a terminating pod's finalizers, a PreparingDelete pod's
		// hook finalizers, removed after hookRounds rounds.
		if keep, hooked := e2ekit.HookOwners(&p, hookFinalizers); hooked {
			h.waiting[p.Name]++
			if h.waiting[p.Name] >= hookRounds {
				p.Finalizers = keep
				must(h.t, h.api.Update(h.ctx, &p))
				delete(h.waiting, p.Name)
				changed = true
			}
			continue
		}
		if p.DeletionTimestamp != nil {
			continue
		}
		if p.Spec.NodeName == "" { // the scheduler binds the pod
			p.Spec.NodeName = fmt.Sprintf("node-%d", h.bound%3)
			h.bound++
			must(h.t, h.api.Update(h.ctx, &p))
			changed = true
		}
		if h.kubelet(&p) {
			must(h.t, h.api.Status().Update(h.ctx, &p))
			changed = true
		}
	}
	return changed
}

// kubelet advances a pod's status by one step; false when it has none to take.
func (h *harness) kubelet(p *corev1.Pod) bool {
	changed := false
	st := &p.Status
	if st.Phase != corev1.PodRunning {
		st.Phase = corev1.PodRunning
		st.ContainerStatuses = nil
		for _, c := range p.Spec.Containers {
			st.ContainerStatuses = append(st.ContainerStatuses, corev1.ContainerStatus{
				Name: c.Name, Image: normImage(c.Image), ImageID: "sha256:" + normImage(c.Image),
				ContainerID: "containerd://" + p.Name + "-" + c.Name + "-0", Ready: true,
			})
		}
		changed = true
	} else {
		for i, c := range p.Spec.Containers {
			if i >= len(st.ContainerStatuses) {
				break
			}
			cs := &st.ContainerStatuses[i]
			switch {
			case cs.Image != normImage(c.Image): // an in-place update: restart
				cs.Image, cs.ImageID = normImage(c.Image), "sha256:"+normImage(c.Image)
				cs.RestartCount++
				cs.ContainerID = fmt.Sprintf("containerd://%s-%s-%d", p.Name, c.Name, cs.RestartCount)
				cs.Ready = false
				changed = true
			case !cs.Ready:
				cs.Ready = true
				changed = true
			}
		}
	}
	ready := true
	for _, cs := range st.ContainerStatuses {
		ready = ready && cs.Ready
	}
	containersReady := ready
	for _, g := range p.Spec.ReadinessGates {
		ok := false
		for _, c := range st.Conditions {
			if c.Type == g.ConditionType && c.Status == corev1.ConditionTrue {
				ok = true
			}
		}
		ready = ready && ok
	}
	changed = setPodCondition(p, corev1.ContainersReady, containersReady, h.now) || changed
	changed = setPodCondition(p, corev1.PodReady, ready, h.now) || changed
	return changed
}

func setPodCondition(p *corev1.Pod, typ corev1.PodConditionType, on bool, now time.Time) bool {
	status := corev1.ConditionFalse
	if on {
		status = corev1.ConditionTrue
	}
	for i := range p.Status.Conditions {
		c := &p.Status.Conditions[i]
		if c.Type == typ {
			if c.Status == status {
				return false
			}
			c.Status, c.LastTransitionTime = status, metav1.NewTime(now)
			return true
		}
	}
	p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: typ, Status: status, LastTransitionTime: metav1.NewTime(now)})
	return true
}

// finalState is what the scenario must end in, in both worlds.
type finalState struct {
	Pods      []string // "name revision state phase ready", sorted (podLine)
	Revisions []string
	Status    string
}

// podLine describes a pod of the final state. A pod named after a
// generated instance id (docs/spec/scale-and-budgets.md 7.2) shows as
// "web-<generated>": the id depends on the round's clock and the
// CloneSet's resourceVersion, which the controller's harness and the
// simulator do not share, so two worlds that decide alike name their new
// pods differently. Any other name (a pod whose name is not
// <cloneset>-<instance id>) shows as it is.
func podLine(name string, labels map[string]string, phase string, ready bool) string {
	if id := labels[model.LabelInstanceID]; pvc.IsGeneratedForm(id) && name == "web-"+id {
		name = "web-<generated>"
	}
	return fmt.Sprintf("%s %s %s %s ready=%v", name, labels[model.LabelRevisionHash], labels[model.LabelLifecycleState], phase, ready)
}

func (h *harness) final() finalState {
	var f finalState
	for _, p := range h.serverPods() {
		ready := false
		for _, c := range p.Status.Conditions {
			ready = ready || (c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue)
		}
		f.Pods = append(f.Pods, podLine(p.Name, p.Labels, string(p.Status.Phase), ready))
	}
	sort.Strings(f.Pods)
	var revs appsv1.ControllerRevisionList
	must(h.t, h.api.List(h.ctx, &revs, client.InNamespace("default")))
	for _, r := range revs.Items {
		f.Revisions = append(f.Revisions, r.Name)
	}
	sort.Strings(f.Revisions)
	cs, err := CloneSetFromUnstructured(h.cloneSet())
	must(h.t, err)
	f.Status = statusLine(cs.Status)
	return f
}

func statusLine(s model.CloneSetStatus) string {
	return fmt.Sprintf("observedGeneration=%d replicas=%d ready=%d available=%d updated=%d updatedReady=%d updatedAvailable=%d expectedUpdated=%d current=%s update=%s",
		s.ObservedGeneration, s.Replicas, s.ReadyReplicas, s.AvailableReplicas, s.UpdatedReplicas, s.UpdatedReadyReplicas,
		s.UpdatedAvailableReplicas, s.ExpectedUpdatedReplicas, s.CurrentRevision, s.UpdateRevision)
}

// simFinal runs the scenario in the simulator and returns its final state.
func simFinal(t *testing.T, sc e2eScenario, changes []sim.Change) finalState {
	gates := ""
	for _, g := range sc.gates {
		gates += fmt.Sprintf(`, "featureGates": {%q: true}`, g)
	}
	doc := fmt.Sprintf(`{"apiVersion": "clonesetcore/v1alpha1", "kind": "Scenario", "now": %q%s}`, e2eStart.Format(time.RFC3339), gates)
	scn, err := manifest.LoadBytes([]byte(doc+"\n"+sc.cloneSet), sc.name)
	must(t, err)
	cfg := sim.DefaultConfig()
	one := sim.Seconds(1, 1)
	cfg.Delays = sim.Delays{Schedule: one, Start: one, Ready: one, InPlace: one, Terminate: one,
		Hook: sim.Seconds(hookRounds, hookRounds), Reconcile: time.Second, Requeue: 10 * time.Millisecond}
	cfg.NoKruisePodReadyGate = true
	cfg.MaxSteps = 2000
	for i, c := range changes {
		cfg.Events = append(cfg.Events, sim.Event{At: time.Duration(i+1) * 10 * time.Minute, Change: c})
	}
	s, err := sim.New(scn, cfg)
	must(t, err)
	res, err := s.Run()
	must(t, err)
	if res.Outcome != sim.Converged {
		t.Fatalf("sim: %s: %s", res.Outcome, res.Reason)
	}
	cl := s.Cluster()
	var f finalState
	for _, p := range cl.Pods() {
		ready := p.Status.Phase == model.PodRunning
		if c := p.Condition("Ready"); c == nil || c.Status != "True" {
			ready = false
		}
		f.Pods = append(f.Pods, podLine(p.Name, p.Labels, p.Status.Phase, ready))
	}
	sort.Strings(f.Pods)
	for _, r := range cl.Revisions() {
		f.Revisions = append(f.Revisions, r.Name)
	}
	sort.Strings(f.Revisions)
	f.Status = statusLine(cl.CloneSet().Status)
	return f
}

func TestEndToEnd(t *testing.T) {
	for _, sc := range e2eScenarios {
		t.Run(sc.name, func(t *testing.T) {
			h := newHarness(t, sc, false)
			h.converge(200)
			var simChanges []sim.Change
			for _, c := range sc.changes {
				simChanges = append(simChanges, h.change(c))
				h.converge(200)
			}
			cisummary.Print(t, fmt.Sprintf("kubecontroller %s: converged after %d reconciles", sc.name, h.rounds))
			got := h.final()
			if len(got.Pods) == 0 {
				t.Fatal("no pods at the end")
			}
			t.Logf("final state: %s", dump(got))
			if sc.name == "scale-out-vct" {
				var pvcs corev1.PersistentVolumeClaimList
				must(t, h.api.List(h.ctx, &pvcs))
				if len(pvcs.Items) != 3 {
					t.Fatalf("%d claims for 3 pods with one volume claim template", len(pvcs.Items))
				}
			}
			if again := h.api.createdTwice("pods"); len(again) > 0 {
				t.Errorf("pod names created twice (docs/spec/scale-and-budgets.md 7.2: generated ids do not come back): %v", again)
			}
			want := simFinal(t, sc, simChanges)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("the controller and the simulator end apart:\ncontroller: %s\nsimulator:  %s", dump(got), dump(want))
			}
		})
	}
}

func dump(f finalState) string {
	return fmt.Sprintf("\n  pods:\n    %s\n  revisions: %v\n  status: %s", strings.Join(f.Pods, "\n    "), f.Revisions, f.Status)
}

// TestEndToEndV1alpha1 runs a v1alpha1 CloneSet (read, patched and its
// status written in that version) through a scale-out and an in-place
// update.
func TestEndToEndV1alpha1(t *testing.T) {
	sc := e2eScenario{name: "v1alpha1", cloneSet: `{
  "apiVersion": "apps.kruise.io/v1alpha1", "kind": "CloneSet",
  "metadata": {"name": "web", "namespace": "default", "uid": "cs-uid", "generation": 1},
  "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
    "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "main", "image": "web:1"}]}},
    "updateStrategy": {"type": "InPlaceIfPossible", "maxUnavailable": 1}}
}`}
	h := newHarness(t, sc, false)
	h.rec.CloneSetGVK = CloneSetV1alpha1
	h.converge(100)
	h.change(setImage("web:2", nil))
	h.converge(100)
	got := h.final()
	if len(got.Pods) != 2 || len(got.Revisions) != 2 || !strings.Contains(got.Status, "updated=2 updatedReady=2") {
		t.Fatalf("v1alpha1 CloneSet did not roll out: %s", dump(got))
	}
}
