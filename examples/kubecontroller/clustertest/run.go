package clustertest

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller"
	"github.com/clonecore/cloneset/internal/cisummary"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/sim"
	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/event"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Defaults of a Scenario.
const (
	// DefaultHookDelay is how long the hook owners take to remove a hook's
	// finalizer from a pod waiting for them.
	DefaultHookDelay = 300 * time.Millisecond
	// DefaultRestTimeout bounds each wait for rest.
	DefaultRestTimeout = 3 * time.Minute
)

// Timing of the rest detection (tick: how often the Run looks at the
// cluster and plays the hook owners; idle: how long no reconcile must run
// before the Run asks for one more, or calls the CloneSet at rest).
const (
	tick = 100 * time.Millisecond
	idle = 400 * time.Millisecond
)

// Scenario is a CloneSet and the changes a user makes to it, each when the
// previous one has come to rest.
type Scenario struct {
	// Name names the scenario (and its namespace).
	Name string
	// CloneSet is the CloneSet as a user writes it, in JSON
	// (apps.kruise.io/v1beta1); its namespace is set to the Run's.
	CloneSet string
	// Gates are the library's feature gates turned on (upstream's
	// defaults otherwise), in the controller and the simulator.
	Gates []string
	// Changes are the user's changes, in order.
	Changes []Change
	// Faults are the simulator's faults standing for what the control
	// plane does to some pods (for example NeverReady images for the pods
	// labelled controlplane.LabelNeverReady).
	Faults sim.Faults
	// Outcome is how the simulator must end (sim.Converged when empty;
	// sim.Stalled for a rollout that waits forever: the controller's end,
	// at rest, is then compared with where the simulator stalls).
	Outcome sim.Outcome
	// InPlace asks that no pod be recreated by the changes: every pod at
	// the end is a pod (by UID) of the first rest.
	InPlace bool
	// HookDelay is DefaultHookDelay when zero.
	HookDelay time.Duration
	// RestTimeout is DefaultRestTimeout when zero.
	RestTimeout time.Duration
	// KeepGoingOnRefusal lets WaitRest go on after the API server refused a
	// request (fault tests expect some); by default the first refusal
	// fails the test at once. RunScenario fails on refusals either way.
	KeepGoingOnRefusal bool
	// Check, when set, checks more at the end (after the comparison with
	// the simulator).
	Check func(t *testing.T, r *Run)
	// VerifyTracker turns on Reconciler.VerifyTracker (every round also
	// planned from scratch and compared).
	VerifyTracker bool
}

// Change is a user's change of the CloneSet: Edit changes the object read
// from the server (it is then updated, retried on conflict); pods are the
// CloneSet's pods on the server at that moment, sorted by name.
type Change struct {
	// Name describes the change.
	Name string
	// Edit edits the CloneSet.
	Edit func(cs *unstructured.Unstructured, pods []corev1.Pod) error
}

// Run is one scenario running on a Cluster: its namespace, a manager with
// the Reconciler, and the hook owners and storage provisioner the Run plays.
// Create it with Cluster.Start; Stop (registered with t.Cleanup) stops the
// manager.
type Run struct {
	// Cluster is the cluster the Run uses.
	Cluster *Cluster
	// Scenario is the scenario.
	Scenario Scenario
	// Namespace is the Run's namespace.
	Namespace string
	// Reconciler is the controller under test.
	Reconciler *kubecontroller.Reconciler

	t       testing.TB
	ctx     context.Context
	stop    context.CancelFunc
	stopped chan struct{} // closed when the manager has stopped
	managed bool          // the manager was started
	trigger chan event.GenericEvent
	started time.Time

	mu       sync.Mutex
	counts   Counts
	streak   int // consecutive quiet reconciles
	lastEnd  time.Time
	recent   []string // the latest rounds, for a failure's dump
	logLines []string

	// hooked: when the hook owners first saw a pod waiting for them.
	hooked map[types.UID]time.Time
	// provisioned: the claims a volume was made for.
	provisioned map[types.UID]bool
	// cloneSets: the CloneSet on the server after its creation and after
	// each change; podsAt: the names of its active pods when the change was
	// made (for the simulator's podsToDelete).
	cloneSets []*unstructured.Unstructured
	podsAt    [][]string
	firstUIDs map[types.UID]bool
}

// Counts are what the controller did during a Run.
type Counts struct {
	// Reconciles is the number of reconciles.
	Reconciles int
	// Requests is the number of requests sent.
	Requests int
	// Conflicts lists the requests refused on a conflict or a failed
	// precondition, which the controller handles by planning again.
	Conflicts []string
	// Refused lists every other failed request: the API server refused
	// what the controller sent.
	Refused []string
	// Errors lists reconciles that ended in an error not from a request
	// (a read, a plan).
	Errors []string
}

// Start creates the scenario's namespace and CloneSet and starts a manager
// running the Reconciler on it. Stop is registered with t.Cleanup.
func (c *Cluster) Start(t testing.TB, sc Scenario) *Run {
	t.Helper()
	if sc.HookDelay == 0 {
		sc.HookDelay = DefaultHookDelay
	}
	if sc.RestTimeout == 0 {
		sc.RestTimeout = DefaultRestTimeout
	}
	if sc.Outcome == "" {
		sc.Outcome = sim.Converged
	}
	r := &Run{Cluster: c, Scenario: sc, t: t,
		trigger: make(chan event.GenericEvent, 1), stopped: make(chan struct{}), started: time.Now(),
		hooked: map[types.UID]time.Time{}, provisioned: map[types.UID]bool{}}
	r.ctx, r.stop = context.WithCancel(context.Background())
	t.Cleanup(r.Stop)
	var err error
	if r.Namespace, err = c.ControlPlane.NewNamespace(r.ctx, sc.Name); err != nil {
		t.Fatalf("%s: create namespace: %v", sc.Name, err)
	}
	gates := model.DefaultFeatureGates()
	for _, g := range sc.Gates {
		if err := gates.Set(g, true); err != nil {
			t.Fatalf("%s: gate %s: %v", sc.Name, g, err)
		}
	}
	mgr, err := r.newManager()
	if err != nil {
		t.Fatalf("%s: %v", sc.Name, err)
	}
	r.Reconciler = &kubecontroller.Reconciler{
		Client: mgr.GetClient(), Gates: &gates, ServerVersion: c.ServerVersion,
		VerifyTracker: sc.VerifyTracker, Trigger: r.trigger, AfterReconcile: r.afterReconcile,
		Logf: r.logf,
	}
	if err := r.Reconciler.SetupWithManager(mgr); err != nil {
		t.Fatalf("%s: set up the controller: %v", sc.Name, err)
	}
	// The KruisePodReady gate the pod webhook gives the pods needs its
	// first True, as the binary gives it.
	if err := (&kubecontroller.PodReadinessReconciler{Client: mgr.GetClient()}).SetupWithManager(mgr); err != nil {
		t.Fatalf("%s: set up the pod readiness reconciler: %v", sc.Name, err)
	}
	if err := (&kubecontroller.LaunchPriorityReconciler{Client: mgr.GetClient(), Reader: mgr.GetAPIReader()}).SetupWithManager(mgr); err != nil {
		t.Fatalf("%s: set up the launch priority reconciler: %v", sc.Name, err)
	}
	r.managed = true
	go func() {
		defer close(r.stopped)
		if err := mgr.Start(r.ctx); err != nil {
			r.logf("manager: %v", err)
		}
	}()
	cs := &unstructured.Unstructured{}
	if err := cs.UnmarshalJSON([]byte(sc.CloneSet)); err != nil {
		t.Fatalf("%s: the CloneSet: %v", sc.Name, err)
	}
	cs.SetNamespace(r.Namespace)
	if err := c.Client.Create(r.ctx, cs); err != nil {
		t.Fatalf("%s: create the CloneSet: %v", sc.Name, err)
	}
	if _, ok, _ := unstructured.NestedInt64(cs.Object, "spec", "revisionHistoryLimit"); !ok {
		t.Fatalf("%s: the CloneSet was created without the mutating webhook's defaults", sc.Name)
	}
	r.cloneSets = append(r.cloneSets, cs.DeepCopy())
	r.podsAt = append(r.podsAt, nil)
	return r
}

// newManager is a manager whose cache holds the Run's namespace (and the
// nodes), reading the CloneSet unstructured from the cache too.
func (r *Run) newManager() (ctrl.Manager, error) {
	skip := true
	return ctrl.NewManager(r.Cluster.ControlPlane.Config(), ctrl.Options{
		Scheme:                 r.Cluster.Scheme,
		Logger:                 logr.Discard(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		// The cache trims what the controller does not read, as
		// clonesetcontroller's does.
		Cache:      cache.Options{DefaultNamespaces: map[string]cache.Config{r.Namespace: {}}, DefaultTransform: kubecontroller.TrimForCache},
		Client:     client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		Controller: config.Controller{SkipNameValidation: &skip},
	})
}

// Stop stops the manager and waits for it, then deletes the namespace and
// the volumes made for its claims (without waiting for the namespace).
func (r *Run) Stop() {
	select {
	case <-r.ctx.Done():
		return
	default:
	}
	if r.t.Failed() && len(r.cloneSets) > 0 {
		r.t.Log(r.Dump())
	}
	r.stop()
	if r.managed {
		<-r.stopped
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := r.Cluster.Client
	_ = c.DeleteAllOf(ctx, &corev1.PersistentVolume{}, client.MatchingLabels{labelVolumeOf: r.Namespace})
	_ = c.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: r.Namespace}})
}

// Counts returns what the controller did so far.
func (r *Run) Counts() Counts {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.counts
	c.Refused = append([]string(nil), c.Refused...)
	c.Conflicts = append([]string(nil), c.Conflicts...)
	c.Errors = append([]string(nil), c.Errors...)
	return c
}

func (r *Run) logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logLines = keepLast(append(r.logLines, fmt.Sprintf("%s %s", time.Since(r.started).Round(time.Millisecond), fmt.Sprintf(format, args...))), 30)
}

func keepLast(s []string, n int) []string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// afterReconcile counts a reconcile (Reconciler.AfterReconcile).
func (r *Run) afterReconcile(_ reconcile.Request, round kubecontroller.Round, res reconcile.Result, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.counts.Reconciles++
	requestErr := false
	for _, o := range round.Outcomes {
		if !o.Sent {
			continue
		}
		r.counts.Requests++
		switch {
		case o.Err == nil:
		case apierrors.IsConflict(o.Err):
			r.counts.Conflicts = append(r.counts.Conflicts, describeFailure(o))
			requestErr = true
		default:
			r.counts.Refused = append(r.counts.Refused, describeFailure(o))
			requestErr = true
		}
	}
	if err != nil && !requestErr {
		r.counts.Errors = append(r.counts.Errors, err.Error())
	}
	quiet := err == nil && round.Sent() == 0 && len(round.Blocked) == 0 && round.Refused == nil
	if quiet {
		r.streak++
	} else {
		r.streak = 0
	}
	r.lastEnd = time.Now()
	r.recent = keepLast(append(r.recent, describeRound(r.counts.Reconciles, round, res, err)), 8)
}

// describeFailure names a failed request and its error.
func describeFailure(o kubecontroller.Outcome) string {
	what := string(o.Request.Resource)
	if o.Request.Subresource != "" {
		what += "/" + o.Request.Subresource
	}
	return fmt.Sprintf("%s %s %s: %v", o.Request.Verb, what, o.Request.Name, o.Err)
}

// describeRound is one line per reconcile and one per request, for dumps.
func describeRound(n int, round kubecontroller.Round, res reconcile.Result, err error) string {
	var b strings.Builder
	fmt.Fprintf(&b, "reconcile %d: sent %d, blocked %d, requeue %v, err %v", n, round.Sent(), len(round.Blocked), res.RequeueAfter, err)
	if round.Plan != nil {
		for _, a := range round.Plan.Actions {
			fmt.Fprintf(&b, "\n    action %s %s%s%s", a.Type, a.Pod, a.PVC, a.Revision)
		}
	}
	for _, o := range round.Outcomes {
		fmt.Fprintf(&b, "\n    %s %s %s %s sent=%v err=%v", o.Request.Verb, o.Request.Resource, o.Request.Subresource, o.Request.Name, o.Sent, o.Err)
	}
	return b.String()
}

// WaitRest plays the hook owners and the storage provisioner until the
// CloneSet is at rest: every pod settled (scheduled, running its spec as
// kwok reports it, Ready as the kubelet would say, not terminating), every
// claim bound, no hook waiting, and the last two reconciles sent nothing
// and were not blocked, the second one asked for by the Run (Trigger) once
// nothing happened for a moment. It fails the test after RestTimeout.
func (r *Run) WaitRest() {
	r.t.Helper()
	deadline := time.Now().Add(r.Scenario.RestTimeout)
	base := -1 // the reconcile count when the cluster was last seen settled
	for {
		settled, why, err := r.play()
		if err != nil {
			r.t.Fatalf("%s: %v", r.Scenario.Name, err)
		}
		r.mu.Lock()
		n, streak, since, refused := r.counts.Reconciles, r.streak, time.Since(r.lastEnd), r.counts.Refused
		r.mu.Unlock()
		if len(refused) > 0 && !r.Scenario.KeepGoingOnRefusal {
			r.t.Fatalf("%s: the API server refused a request: %s", r.Scenario.Name, refused[0])
		}
		if settled {
			why = fmt.Sprintf("the cluster is settled, the controller is not quiet (%d quiet reconciles in a row)", streak)
		}
		switch {
		case !settled:
			base = -1
		case base < 0:
			base = n
		case n-base >= 2 && streak >= 2 && since >= idle:
			return
		case since >= idle:
			r.poke()
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("%s: no rest after %v: %s (%d reconciles)", r.Scenario.Name, r.Scenario.RestTimeout, why, n)
		}
		time.Sleep(tick)
	}
}

// poke asks for one more reconcile (unless one is asked for already).
func (r *Run) poke() {
	cs := &unstructured.Unstructured{}
	cs.SetGroupVersionKind(kubecontroller.CloneSetV1beta1)
	cs.SetNamespace(r.Namespace)
	cs.SetName(r.cloneSets[0].GetName())
	select {
	case r.trigger <- event.GenericEvent{Object: cs}:
	default:
	}
}

// CloneSet reads the CloneSet from the server.
func (r *Run) CloneSet() *unstructured.Unstructured {
	r.t.Helper()
	cs := &unstructured.Unstructured{}
	cs.SetGroupVersionKind(kubecontroller.CloneSetV1beta1)
	key := client.ObjectKey{Namespace: r.Namespace, Name: r.cloneSets[0].GetName()}
	if err := r.Cluster.Client.Get(r.ctx, key, cs); err != nil {
		r.t.Fatalf("%s: get the CloneSet: %v", r.Scenario.Name, err)
	}
	return cs
}

// Pods lists the namespace's pods from the server, sorted by name.
func (r *Run) Pods() []corev1.Pod {
	r.t.Helper()
	var pods corev1.PodList
	if err := r.Cluster.Client.List(r.ctx, &pods, client.InNamespace(r.Namespace)); err != nil {
		r.t.Fatalf("%s: list pods: %v", r.Scenario.Name, err)
	}
	sort.Slice(pods.Items, func(i, j int) bool { return pods.Items[i].Name < pods.Items[j].Name })
	return pods.Items
}

// Claims lists the namespace's claims from the server, sorted by name.
func (r *Run) Claims() []corev1.PersistentVolumeClaim {
	r.t.Helper()
	var pvcs corev1.PersistentVolumeClaimList
	if err := r.Cluster.Client.List(r.ctx, &pvcs, client.InNamespace(r.Namespace)); err != nil {
		r.t.Fatalf("%s: list claims: %v", r.Scenario.Name, err)
	}
	sort.Slice(pvcs.Items, func(i, j int) bool { return pvcs.Items[i].Name < pvcs.Items[j].Name })
	return pvcs.Items
}

// Apply makes a user change: the CloneSet is read, edited and updated
// (again on a conflict: the controller writes the status meanwhile).
func (r *Run) Apply(ch Change) {
	r.t.Helper()
	if r.firstUIDs == nil {
		r.firstUIDs = map[types.UID]bool{}
		for _, p := range r.Pods() {
			r.firstUIDs[p.UID] = true
		}
	}
	for attempt := 0; ; attempt++ {
		cs := r.CloneSet()
		pods := r.Pods()
		if err := ch.Edit(cs, pods); err != nil {
			r.t.Fatalf("%s: change %s: %v", r.Scenario.Name, ch.Name, err)
		}
		err := r.Cluster.Client.Update(r.ctx, cs)
		if apierrors.IsConflict(err) && attempt < 20 {
			continue
		}
		if err != nil {
			r.t.Fatalf("%s: change %s: %v", r.Scenario.Name, ch.Name, err)
		}
		var names []string
		for _, p := range pods {
			if p.DeletionTimestamp == nil {
				names = append(names, p.Name)
			}
		}
		r.cloneSets = append(r.cloneSets, cs.DeepCopy())
		r.podsAt = append(r.podsAt, names)
		return
	}
}

// CloneSets returns the CloneSet as the server held it after its creation
// and after each change (what Simulate gives the simulator).
func (r *Run) CloneSets() []*unstructured.Unstructured {
	out := make([]*unstructured.Unstructured, len(r.cloneSets))
	for i, u := range r.cloneSets {
		out[i] = u.DeepCopy()
	}
	return out
}

// Result is what a whole scenario did.
type Result struct {
	// Counts are the controller's reconciles and requests.
	Counts Counts
	// Final is the end state on the server; Simulated the simulator's.
	Final, Simulated FinalState
	// Duration is the wall time from the start to the last rest.
	Duration time.Duration
}

// RunScenario runs sc on the cluster: start, rest, each change and rest
// again; then the simulator runs the same CloneSet and changes, and the
// test fails when the two end apart, when a request was refused, when a
// reconcile failed, or (Scenario.InPlace) when a pod was recreated. It
// prints the CI line:
//
//	kubecontroller on kube-apiserver <name>: converged after N reconciles, M requests, 0 refused
func (c *Cluster) RunScenario(t *testing.T, sc Scenario) Result {
	t.Helper()
	r := c.Start(t, sc)
	sc = r.Scenario // with its defaults
	r.WaitRest()
	for _, ch := range sc.Changes {
		r.Apply(ch)
		r.WaitRest()
	}
	res := Result{Counts: r.Counts(), Duration: time.Since(r.started)}
	res.Final = r.Final()
	simulated, err := r.Simulate()
	if err != nil {
		t.Fatalf("%s: simulator: %v", sc.Name, err)
	}
	res.Simulated = simulated
	note := ""
	if sc.Outcome != sim.Converged {
		note = fmt.Sprintf(" (at rest where the simulator ends %s: %d of %s updated)", sc.Outcome, res.Final.updated(), res.Final.replicas())
	}
	cisummary.Print(t, fmt.Sprintf("kubecontroller on kube-apiserver %s: converged after %d reconciles, %d requests, %d refused%s",
		sc.Name, res.Counts.Reconciles, res.Counts.Requests, len(res.Counts.Refused), note))
	t.Logf("%s: %v wall time; %d conflicts (planned again):%s\nfinal state: %s", sc.Name, res.Duration.Round(time.Millisecond),
		len(res.Counts.Conflicts), strings.Join(append([]string{""}, res.Counts.Conflicts...), "\n  "), res.Final)
	if len(res.Counts.Refused) > 0 {
		t.Errorf("%s: the API server refused %d request(s):\n  %s", sc.Name, len(res.Counts.Refused), strings.Join(res.Counts.Refused, "\n  "))
	}
	if len(res.Counts.Errors) > 0 {
		t.Errorf("%s: %d reconcile(s) failed:\n  %s", sc.Name, len(res.Counts.Errors), strings.Join(res.Counts.Errors, "\n  "))
	}
	if len(res.Final.Pods) == 0 {
		t.Errorf("%s: no pod at the end", sc.Name)
	}
	if d := res.Final.Diff(res.Simulated); d != "" {
		t.Errorf("%s: the controller on kube-apiserver and the simulator end apart:\n%s", sc.Name, d)
	}
	if sc.InPlace {
		r.checkInPlace()
	}
	if sc.Check != nil {
		sc.Check(t, r)
	}
	return res
}

// checkInPlace fails the test when a pod at the end was not there at the
// first change (a pod was recreated).
func (r *Run) checkInPlace() {
	r.t.Helper()
	for _, p := range r.Pods() {
		if !r.firstUIDs[p.UID] {
			r.t.Errorf("%s: pod %s (uid %s) was created after the first change: not updated in place", r.Scenario.Name, p.Name, p.UID)
		}
	}
}

// Dump describes the Run for a failure: the CloneSet, its pods and claims,
// the latest rounds and log lines.
func (r *Run) Dump() string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var b strings.Builder
	fmt.Fprintf(&b, "=== %s (namespace %s) after %v\n", r.Scenario.Name, r.Namespace, time.Since(r.started).Round(time.Millisecond))
	c := r.Cluster.Client
	cs := &unstructured.Unstructured{}
	cs.SetGroupVersionKind(kubecontroller.CloneSetV1beta1)
	if err := c.Get(ctx, client.ObjectKey{Namespace: r.Namespace, Name: r.cloneSets[0].GetName()}, cs); err == nil {
		unstructured.RemoveNestedField(cs.Object, "metadata", "managedFields")
		data, _ := json.MarshalIndent(cs.Object, "", "  ")
		fmt.Fprintf(&b, "CloneSet:\n%s\n", data)
	} else {
		fmt.Fprintf(&b, "CloneSet: %v\n", err)
	}
	var pods corev1.PodList
	if err := c.List(ctx, &pods, client.InNamespace(r.Namespace)); err == nil {
		fmt.Fprintf(&b, "pods (%d):\n", len(pods.Items))
		for i := range pods.Items {
			_, why := podSettled(&pods.Items[i])
			fmt.Fprintf(&b, "  %s\n", describePod(&pods.Items[i], why))
		}
	}
	var pvcs corev1.PersistentVolumeClaimList
	if err := c.List(ctx, &pvcs, client.InNamespace(r.Namespace)); err == nil {
		fmt.Fprintf(&b, "claims (%d):\n", len(pvcs.Items))
		for _, v := range pvcs.Items {
			fmt.Fprintf(&b, "  %s %s volume=%s deleting=%v\n", v.Name, v.Status.Phase, v.Spec.VolumeName, v.DeletionTimestamp != nil)
		}
	}
	r.mu.Lock()
	n := r.counts
	fmt.Fprintf(&b, "%d reconciles, %d requests, %d conflicts, %d refused, %d failed reconciles\n", n.Reconciles, n.Requests, len(n.Conflicts), len(n.Refused), len(n.Errors))
	for _, l := range [][]string{n.Refused, n.Errors} {
		for _, s := range l[:min(len(l), 3)] {
			fmt.Fprintf(&b, "  %s\n", s)
		}
	}
	fmt.Fprintf(&b, "latest rounds:\n  %s\ncontroller log:\n  %s\n", strings.Join(r.recent, "\n  "), strings.Join(r.logLines, "\n  "))
	r.mu.Unlock()
	return b.String()
}

func describePod(p *corev1.Pod, why string) string {
	ready := "?"
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			ready = string(c.Status)
		}
	}
	var images []string
	for _, c := range p.Status.ContainerStatuses {
		images = append(images, c.Image)
	}
	s := fmt.Sprintf("%s rev=%s state=%s node=%s phase=%s ready=%s images=%v finalizers=%v deleting=%v",
		p.Name, p.Labels[model.LabelRevisionHash], p.Labels[model.LabelLifecycleState], p.Spec.NodeName, p.Status.Phase, ready, images, p.Finalizers, p.DeletionTimestamp != nil)
	if why != "" {
		s += " (" + why + ")"
	}
	return s
}
