package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller/controlplane"
	"github.com/clonecore/cloneset/examples/kubecontroller/crd"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// The controller processes authenticate as users of controllerGroup, named
// controllerUser-1, controllerUser-2, ... (one per process of a test). The
// group is bound to cluster-admin but is not system:masters, which the API
// server's priority and fairness and its max-in-flight filter exempt: the
// controller is throttled as a production controller would be, and the
// audit log tells its writes, and each process's, from everyone else's.
const (
	controllerUser  = "cloneset-controller"
	controllerGroup = "cloneset-controllers"
	// controllerGroupNoisy is the group of a noisy neighbour's user: bound
	// to cluster-admin as well, not system:masters either.
	controllerGroupNoisy = "faults-noisy-neighbours"
)

// controllerUserN is the user of the n-th controller process of a test.
func controllerUserN(n int) string { return fmt.Sprintf("%s-%d", controllerUser, n) }

// prepare installs the CloneSet definition and the controller's role
// binding on a new control plane.
func prepare(ctx context.Context, cp *controlplane.ControlPlane) error {
	c, err := cp.Client(crdScheme())
	if err != nil {
		return err
	}
	if err := crd.Install(ctx, c); err != nil {
		return err
	}
	for _, group := range []string{controllerGroup, controllerGroupNoisy} {
		binding := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: group},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: group}},
		}
		if _, err := cp.Clientset().RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
			return err
		}
	}
	return nil
}

// crdScheme is client-go's scheme with the CustomResourceDefinitions.
func crdScheme() *runtime.Scheme {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(apiextensionsv1.AddToScheme(scheme))
	return scheme
}

// cloneSets is the CloneSet resource (v1beta1).
var cloneSets = schema.GroupVersionResource{Group: "apps.kruise.io", Version: "v1beta1", Resource: "clonesets"}

// env is one test's namespace on a control plane, with a watch on its pods.
type env struct {
	t    testing.TB
	cp   *controlplane.ControlPlane
	ns   string
	cs   kubernetes.Interface
	dyn  dynamic.Interface
	pods *podWatcher
}

// newEnv creates a namespace for t and starts watching its pods.
func newEnv(t testing.TB, cp *controlplane.ControlPlane) *env {
	t.Helper()
	ns, err := cp.NewNamespace(t.Context(), strings.TrimPrefix(t.Name(), "TestFault"))
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, cp: cp, ns: ns, cs: cp.Clientset(), dyn: dynamic.NewForConfigOrDie(cp.Config())}
	e.pods = watchPods(t, e.cs, ns)
	return e
}

// kubeconfig writes a kubeconfig for the n-th controller process, straight
// to the API server.
func (e *env) kubeconfig(n int) string {
	e.t.Helper()
	path, err := e.cp.UserKubeconfig(controllerUserN(n), controllerGroup)
	if err != nil {
		e.t.Fatal(err)
	}
	return path
}

// startController runs the controller binary on the test's namespace, its
// log in the control plane's log directory (as <namespace>-<name>), and
// stops it when the test ends (its log tail logged when the test failed).
// It returns once the controller has started its workers (its caches
// synced).
func (e *env) startController(name, kubeconfig string, extra ...string) *controlplane.Process {
	e.t.Helper()
	// The metrics endpoint is off by default; the health probes are
	// turned off (several controllers run on one machine).
	args := append([]string{"--kubeconfig", kubeconfig, "--namespace", e.ns, "--health-probe-bind-address", "0"}, extra...)
	return e.startBinary(name, controllerBinary, args, !slices.Contains(extra, "--leader-elect"))
}

// startBinary runs a controller binary with args as startController does,
// and, with waitStarted, returns once its log says it started its workers.
func (e *env) startBinary(name, binary string, args []string, waitStarted bool) *controlplane.Process {
	e.t.Helper()
	p, err := e.cp.StartProcess(e.ns+"-"+name, binary, args...)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		p.Stop()
		if e.t.Failed() {
			e.t.Logf("%s log:\n%s", p.Name(), p.LogTail(40))
		}
	})
	if waitStarted {
		e.waitLog(p, "Starting workers")
	}
	return p
}

// waitLog waits until the process's log has a line containing text.
func (e *env) waitLog(p *controlplane.Process, text string) {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !logHas(p, text) {
		if time.Now().After(deadline) || p.Exited() {
			e.t.Fatalf("%s: no %q in its log after 30 s:\n%s", p.Name(), text, p.LogTail(20))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// logHas reports whether the process's log has a line containing text.
func logHas(p *controlplane.Process, text string) bool {
	data, _ := os.ReadFile(p.LogPath())
	return strings.Contains(string(data), text)
}

// rollout is a CloneSet of the tests: one container "main", pods labelled
// app=<name>, an update strategy.
type rollout struct {
	name           string
	replicas       int
	policy         string // the pod update policy: InPlaceIfPossible or ReCreate
	maxSurge       int
	maxUnavailable int
}

// createCloneSet creates the CloneSet of r with image.
func (e *env) createCloneSet(r rollout, image string) {
	e.t.Helper()
	obj := map[string]any{
		"apiVersion": "apps.kruise.io/v1beta1", "kind": "CloneSet",
		"metadata": map[string]any{"name": r.name, "namespace": e.ns},
		"spec": map[string]any{
			"replicas": int64(r.replicas),
			"selector": map[string]any{"matchLabels": map[string]any{"app": r.name}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": r.name}},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "main", "image": image}}},
			},
			"updateStrategy": map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{
				"podUpdatePolicy": r.policy, "maxSurge": int64(r.maxSurge), "maxUnavailable": int64(r.maxUnavailable),
			}},
		},
	}
	if _, err := e.dyn.Resource(cloneSets).Namespace(e.ns).Create(e.t.Context(), &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// patchCloneSet sends a merge patch of the CloneSet's spec.
func (e *env) patchCloneSet(name string, spec map[string]any) {
	e.t.Helper()
	body, _ := json.Marshal(map[string]any{"spec": spec})
	if _, err := e.dyn.Resource(cloneSets).Namespace(e.ns).Patch(e.t.Context(), name, types.MergePatchType, body, metav1.PatchOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// setImage changes the image of the CloneSet's template.
func (e *env) setImage(name, image string) {
	e.patchCloneSet(name, map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "main", "image": image}}}}})
}

// setReplicas changes the CloneSet's replicas.
func (e *env) setReplicas(name string, replicas int) {
	e.patchCloneSet(name, map[string]any{"replicas": int64(replicas)})
}

// convergeTimeout bounds every wait for a rollout.
const convergeTimeout = time.Minute

// waitConverged waits until the CloneSet has converged: its status
// observed its generation and counts replicas pods updated, ready and
// available, and the watch shows exactly replicas pods, none terminating,
// all ready and of image. It returns the time since start.
func (e *env) waitConverged(name string, replicas int, image string, start time.Time) time.Duration {
	e.t.Helper()
	return e.waitConvergedWithin(name, replicas, image, start, convergeTimeout)
}

// waitConvergedWithin is waitConverged with a timeout of its own.
func (e *env) waitConvergedWithin(name string, replicas int, image string, start time.Time, timeout time.Duration) time.Duration {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	var last string
	for {
		if last = e.converged(name, replicas, image); last == "" {
			return time.Since(start)
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("CloneSet %s/%s has not converged after %s: %s", e.ns, name, timeout, last)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// converged says what keeps the CloneSet from having converged ("" when
// nothing does).
func (e *env) converged(name string, replicas int, image string) string {
	u, err := e.dyn.Resource(cloneSets).Namespace(e.ns).Get(e.t.Context(), name, metav1.GetOptions{})
	if err != nil {
		return err.Error()
	}
	observed, _, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration")
	if observed != u.GetGeneration() {
		return fmt.Sprintf("status.observedGeneration %d, generation %d", observed, u.GetGeneration())
	}
	for _, f := range []string{"replicas", "updatedReplicas", "readyReplicas", "updatedReadyReplicas", "availableReplicas"} {
		if n, _, _ := unstructured.NestedInt64(u.Object, "status", f); n != int64(replicas) {
			return fmt.Sprintf("status.%s %d, want %d", f, n, replicas)
		}
	}
	s := e.pods.snapshot(name)
	if s.active != replicas || s.terminating != 0 || s.ready != replicas || s.byImage[image] != replicas {
		return fmt.Sprintf("pods: %s, want %d active, ready and of image %s", s, replicas, image)
	}
	return ""
}

// The images of the rollouts: every test updates from imageV1 to imageV2.
const (
	imageV1 = "example.com/web:v1"
	imageV2 = "example.com/web:v2"
)

// settle creates the CloneSet of r with imageV1, waits until it has
// converged, and from then on checks its budget at every pod event.
func (e *env) settle(r rollout) {
	e.t.Helper()
	start := time.Now()
	e.createCloneSet(r, imageV1)
	d := e.waitConverged(r.name, r.replicas, imageV1, start)
	e.t.Logf("%s: %d pods of %s in %s", r.name, r.replicas, imageV1, d.Round(time.Millisecond))
	e.pods.setBudget(r.name, budget{maxActive: r.replicas + r.maxSurge, minReady: r.replicas - r.maxUnavailable})
}

// during runs fault, in a goroutine of its own, at the first pod event
// after which cond holds for the pods of cloneSet, and returns a function
// that waits for the fault to be over (failing the test when it never
// started or failed).
func (e *env) during(cloneSet string, cond func(podCounts) bool, fault func() error) (wait func()) {
	done := make(chan error, 1)
	e.pods.when(cloneSet, cond, func(c podCounts) {
		e.t.Logf("fault starts: %s", c)
		done <- fault()
	})
	return func() {
		e.t.Helper()
		select {
		case err := <-done:
			if err != nil {
				e.t.Fatal(err)
			}
		case <-time.After(convergeTimeout):
			e.t.Fatalf("the fault did not happen within %s", convergeTimeout)
		}
	}
}

// verdict checks the witnesses of a fault test (the audit log, the pod
// watch) and prints its line; the writes it logs are those since start.
func (e *env) verdict(fault, cloneSet string, start time.Time, converged time.Duration) writeReport {
	e.t.Helper()
	writes := e.auditWrites(start)
	violations, highest, lowest, events, relists := e.pods.result(cloneSet)
	fmt.Printf("fault %s: converged in %.1fs, %d written twice, %d budget violations\n", fault, converged.Seconds(), len(writes.twice), len(violations))
	e.t.Logf("%s: %s; pods: at most %d active, at least %d ready; watch: %d events, %d relists", fault, writes, highest, lowest, events, relists)
	for _, s := range writes.twice {
		e.t.Error(s)
	}
	for _, v := range violations {
		e.t.Error("budget: " + v)
	}
	e.logHistory()
	return writes
}

// logHistory logs the pod events that led to the first budget violation,
// and the writes in the namespace in the same seconds, from the audit log:
// the controller processes' writes and everyone's writes of pods (nothing
// when no budget was broken).
func (e *env) logHistory() {
	e.t.Helper()
	history := e.pods.historyBeforeViolation()
	if len(history) == 0 {
		return
	}
	lines := make([]string, len(history))
	for i, h := range history {
		lines[i] = h.line
	}
	e.t.Logf("the pod events before the first budget violation:\n%s", strings.Join(lines, "\n"))
	events, err := e.cp.AuditEvents()
	if err != nil {
		e.t.Log(err)
		return
	}
	lines = lines[:0]
	for _, ev := range events {
		ref := ev.ObjectRef
		// Every user's writes of the pods (kube-controller-manager's node
		// lifecycle controller marks the pods of a node it believes lost
		// not Ready; kwok writes their status), the controllers' of the rest.
		if ref == nil || ref.Namespace != e.ns || ref.Resource != "pods" && !slices.Contains(ev.User.Groups, controllerGroup) || ev.RequestReceivedTimestamp.Before(history[0].at.Add(-time.Second)) {
			continue
		}
		what := ref.Resource
		if ref.Subresource != "" {
			what += "/" + ref.Subresource
		}
		lines = append(lines, fmt.Sprintf("%s %s %s %s %s %d", ev.RequestReceivedTimestamp.Format("15:04:05.000"), ev.User.Username, ev.Verb, what, ref.Name, ev.Code()))
		if len(lines) == 3*historyLength {
			break
		}
	}
	e.t.Logf("the writes from a second before those events (audit log):\n%s", strings.Join(lines, "\n"))
}

// waitEvent waits for an event of reason about the CloneSet name.
func (e *env) waitEvent(name, reason string) eventsv1.Event {
	e.t.Helper()
	deadline := time.Now().Add(convergeTimeout)
	for {
		list, err := e.cs.EventsV1().Events(e.ns).List(e.t.Context(), metav1.ListOptions{})
		if err != nil {
			e.t.Fatal(err)
		}
		for _, ev := range list.Items {
			if ev.Regarding.Name == name && ev.Regarding.Kind == "CloneSet" && ev.Reason == reason {
				return ev
			}
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("no event %s on CloneSet %s/%s after %s", reason, e.ns, name, convergeTimeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
