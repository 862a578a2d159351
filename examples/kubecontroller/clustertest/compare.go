package clustertest

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller"
	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/sim"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// FinalState is what a scenario ends in, in a form both worlds share: pod
// and claim names are left out (the instance ids the library generates
// depend on inputs the two worlds do not share), revisions keep their
// names (a hash of the template).
type FinalState struct {
	// Pods: "revision lifecycle-state phase ready=B", one per pod, sorted.
	Pods []string
	// Claims: "<volume claim template> pod=B" (whether a pod of the same
	// instance id exists), one per claim, sorted.
	Claims []string
	// Revisions are the CloneSet's revisions' names, sorted.
	Revisions []string
	// Status is the CloneSet's status on one line.
	Status string
}

// String renders the state on several lines.
func (f FinalState) String() string {
	return fmt.Sprintf("\n  pods:\n    %s\n  claims: %v\n  revisions: %v\n  status: %s", strings.Join(f.Pods, "\n    "), f.Claims, f.Revisions, f.Status)
}

// Diff is "" when f and g are the same, else both states and their
// difference (f is the controller's, g the simulator's).
func (f FinalState) Diff(g FinalState) string {
	d := cmp.Diff(f, g)
	if d == "" {
		return ""
	}
	return fmt.Sprintf("controller: %s\nsimulator: %s\n(-controller +simulator):\n%s", f, g, d)
}

// updated counts the pods at the status' update revision.
func (f FinalState) updated() int {
	n := 0
	for _, p := range f.Pods {
		if rev, _, _ := strings.Cut(p, " "); rev != "" && strings.HasSuffix(f.Status, "update="+rev) {
			n++
		}
	}
	return n
}

// replicas is the status' replicas field ("?" when absent).
func (f FinalState) replicas() string {
	for _, field := range strings.Fields(f.Status) {
		if v, ok := strings.CutPrefix(field, "replicas="); ok {
			return v
		}
	}
	return "?"
}

// podLine describes a pod of a FinalState (gated: it has the
// KruisePodReady readiness gate, the pod webhook's).
func podLine(labels map[string]string, phase string, ready, gated bool) string {
	return fmt.Sprintf("%s %s %s ready=%v kruisePodReadyGate=%v", labels[model.LabelRevisionHash], labels[model.LabelLifecycleState], phase, ready, gated)
}

// claimLine describes a claim of a FinalState: its volume claim template
// (the name without "-<cloneset>-<instance id>") and whether a pod of its
// instance id exists.
func claimLine(name, cloneSet string, labels map[string]string, ids map[string]bool) string {
	id := labels[model.LabelInstanceID]
	return fmt.Sprintf("%s pod=%v", strings.TrimSuffix(name, "-"+cloneSet+"-"+id), ids[id])
}

// statusLine is the CloneSet's status on one line.
func statusLine(s model.CloneSetStatus) string {
	return fmt.Sprintf("observedGeneration=%d replicas=%d ready=%d available=%d updated=%d updatedReady=%d updatedAvailable=%d expectedUpdated=%d current=%s update=%s",
		s.ObservedGeneration, s.Replicas, s.ReadyReplicas, s.AvailableReplicas, s.UpdatedReplicas, s.UpdatedReadyReplicas,
		s.UpdatedAvailableReplicas, s.ExpectedUpdatedReplicas, s.CurrentRevision, s.UpdateRevision)
}

// Final reads the end state from the server.
func (r *Run) Final() FinalState {
	r.t.Helper()
	u := r.CloneSet()
	cs, err := kubecontroller.CloneSetFromUnstructured(u)
	if err != nil {
		r.t.Fatalf("%s: %v", r.Scenario.Name, err)
	}
	var f FinalState
	ids := map[string]bool{}
	for _, p := range r.Pods() {
		gated := slices.ContainsFunc(p.Spec.ReadinessGates, func(g corev1.PodReadinessGate) bool { return g.ConditionType == model.ConditionKruisePodReady })
		f.Pods = append(f.Pods, podLine(p.Labels, string(p.Status.Phase), conditionTrue(&p, corev1.PodReady), gated))
		ids[p.Labels[model.LabelInstanceID]] = true
	}
	for _, v := range r.Claims() {
		f.Claims = append(f.Claims, claimLine(v.Name, cs.Name, v.Labels, ids))
	}
	var revs appsv1.ControllerRevisionList
	if err := r.Cluster.Client.List(r.ctx, &revs, client.InNamespace(r.Namespace)); err != nil {
		r.t.Fatalf("%s: list revisions: %v", r.Scenario.Name, err)
	}
	for _, v := range revs.Items {
		f.Revisions = append(f.Revisions, v.Name)
	}
	f.Status = statusLine(cs.Status)
	f.sort()
	return f
}

func (f *FinalState) sort() {
	sort.Strings(f.Pods)
	sort.Strings(f.Claims)
	sort.Strings(f.Revisions)
}

// simulatedFinal is the simulator cluster's end state.
func simulatedFinal(c *sim.Cluster) FinalState {
	var f FinalState
	cs := c.CloneSet()
	ids := map[string]bool{}
	for _, p := range c.Pods() {
		ready := p.Status.Phase == model.PodRunning
		if cond := p.Condition("Ready"); cond == nil || cond.Status != "True" {
			ready = false
		}
		f.Pods = append(f.Pods, podLine(p.Labels, p.Status.Phase, ready, p.Spec.HasReadinessGate(model.ConditionKruisePodReady)))
		ids[p.Labels[model.LabelInstanceID]] = true
	}
	for _, v := range c.PVCs() {
		f.Claims = append(f.Claims, claimLine(v.Name, cs.Name, v.Labels, ids))
	}
	for _, v := range c.Revisions() {
		f.Revisions = append(f.Revisions, v.Name)
	}
	f.Status = statusLine(cs.Status)
	f.sort()
	return f
}

// simStart is the simulator's clock at the start (any fixed instant).
var simStart = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// SimConfig is the simulator's world for a scenario: one second for the
// scheduler, the kubelet and a termination, the scenario's hook delay
// rounded up to seconds for the hook owners, the KruisePodReady readiness
// gate (the pod webhook serves it on the control plane too), the
// scenario's faults.
func (sc Scenario) SimConfig() sim.Config {
	cfg := sim.DefaultConfig()
	one := sim.Seconds(1, 1)
	hook := int((sc.HookDelay + time.Second - 1) / time.Second)
	cfg.Delays = sim.Delays{Schedule: one, Start: one, Ready: one, InPlace: one, Terminate: one,
		Hook: sim.Seconds(hook, hook), Reconcile: time.Second, Requeue: 10 * time.Millisecond}
	cfg.Faults = sc.Faults
	cfg.MaxSteps = 5000
	return cfg
}

// Simulate runs the simulator on the CloneSet as the server held it after
// its creation and after each change: the first from scratch, each next one
// from the simulator's cluster at rest with the CloneSet's spec replaced
// (its status kept). A name of spec.scaleStrategy.podsToDelete stands for
// the pod of the same rank by name among the simulator's active pods. Each
// part must end as Scenario.Outcome says (the parts before the last:
// converged, or that outcome).
func (r *Run) Simulate() (FinalState, error) {
	sc := r.Scenario
	var s *sim.Simulator
	for i, u := range r.cloneSets {
		doc, err := r.simDocument(u)
		if err != nil {
			return FinalState{}, err
		}
		scn, err := manifest.LoadBytes(doc, sc.Name)
		if err != nil {
			return FinalState{}, fmt.Errorf("load the CloneSet of part %d: %w", i, err)
		}
		if s != nil {
			snap := s.Cluster().Snapshot()
			next := scn.CloneSet
			next.Status = snap.CloneSet.Status
			next.Spec.ScaleStrategy.PodsToDelete = translatePods(next.Spec.ScaleStrategy.PodsToDelete, r.podsAt[i], snap.Pods)
			snap.CloneSet = next
			scn = snap
		}
		if s, err = sim.New(scn, sc.SimConfig()); err != nil {
			return FinalState{}, fmt.Errorf("part %d: %w", i, err)
		}
		res, err := s.Run()
		if err != nil {
			return FinalState{}, fmt.Errorf("part %d: %w", i, err)
		}
		last := i == len(r.cloneSets)-1
		if res.Outcome != sc.Outcome && (last || res.Outcome != sim.Converged) {
			return FinalState{}, fmt.Errorf("part %d ends %s (%s), want %s", i, res.Outcome, res.Reason, sc.Outcome)
		}
	}
	return simulatedFinal(s.Cluster()), nil
}

// simDocument is the simulator's scenario of one CloneSet: a Scenario
// document (clock, gates) and the CloneSet with the metadata that matters
// (no status: the simulator computes its own).
func (r *Run) simDocument(u *unstructured.Unstructured) ([]byte, error) {
	gates := map[string]bool{}
	for _, g := range r.Scenario.Gates {
		gates[g] = true
	}
	head, err := json.Marshal(map[string]any{"apiVersion": "clonesetcore/v1alpha1", "kind": "Scenario",
		"now": simStart.Format(time.RFC3339), "featureGates": gates})
	if err != nil {
		return nil, err
	}
	meta := map[string]any{"name": u.GetName(), "namespace": u.GetNamespace(), "uid": string(u.GetUID()), "generation": u.GetGeneration()}
	if l := u.GetLabels(); len(l) > 0 {
		meta["labels"] = l
	}
	if a := u.GetAnnotations(); len(a) > 0 {
		meta["annotations"] = a
	}
	body, err := json.Marshal(map[string]any{"apiVersion": u.GetAPIVersion(), "kind": u.GetKind(), "metadata": meta, "spec": u.Object["spec"]})
	if err != nil {
		return nil, err
	}
	return append(append(head, '\n'), body...), nil
}

// translatePods maps pod names of the server (serverPods: its active pods
// by name) to the simulator's pod of the same rank among its active pods.
func translatePods(names, serverPods []string, simPods []*model.Pod) []string {
	var active []string
	for _, p := range simPods {
		if p.IsActive() {
			active = append(active, p.Name)
		}
	}
	sort.Strings(active)
	out := make([]string, 0, len(names))
	for _, n := range names {
		i := sort.SearchStrings(serverPods, n)
		if i < len(serverPods) && serverPods[i] == n && i < len(active) {
			n = active[i]
		}
		out = append(out, n)
	}
	return out
}
