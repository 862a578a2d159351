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

	"github.com/clonecore/cloneset/examples/kubecontroller/config"
	"github.com/clonecore/cloneset/examples/kubecontroller/controlplane"
	"github.com/clonecore/cloneset/examples/kubecontroller/installtest"
	"github.com/clonecore/cloneset/examples/kubecontroller/webhook"
	"github.com/clonecore/cloneset/internal/cisummary"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The controller processes run as service accounts of the test's
// namespace, controller-1, controller-2, ... (one per process of a test),
// each bound to the shipped ClusterRole and Role only
// (installtest.System.ServiceAccount): the controller is throttled as a
// production controller would be (not system:masters, which the API
// server's priority and fairness and its max-in-flight filter exempt), a
// request its roles do not allow fails the test, and the audit log tells
// its writes, and each process's, from everyone else's.
const (
	// controllerGroupNoisy is the group of a noisy neighbour's user: bound
	// to cluster-admin, not system:masters either.
	controllerGroupNoisy = "faults-noisy-neighbours"
)

// prepare installs the CloneSet system of config/ on a new control plane
// (installtest.Install: the webhook Service's stand-in included) and the
// noisy neighbours' binding.
func prepare(ctx context.Context, cp *controlplane.ControlPlane) (*installtest.System, error) {
	sys, err := installtest.Install(ctx, cp, controllerBinary)
	if err != nil {
		return nil, err
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: controllerGroupNoisy},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: controllerGroupNoisy}},
	}
	if _, err := cp.Clientset().RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		sys.Close()
		return nil, err
	}
	systems.Store(cp, sys)
	return sys, nil
}

// cloneSets is the CloneSet resource (v1beta1).
var cloneSets = schema.GroupVersionResource{Group: "apps.kruise.io", Version: "v1beta1", Resource: "clonesets"}

// env is one test's namespace on a control plane, with a watch on its pods.
type env struct {
	t    testing.TB
	cp   *controlplane.ControlPlane
	sys  *installtest.System
	ns   string
	cs   kubernetes.Interface
	dyn  dynamic.Interface
	pods *podWatcher
}

// newEnv creates a namespace for t and starts watching its pods. When the
// test ends, a request of its controller processes the API server refused
// with 403 Forbidden (the shipped roles lack something the binary does)
// fails it.
func newEnv(t testing.TB, cp *controlplane.ControlPlane) *env {
	t.Helper()
	start := time.Now()
	ns, err := cp.NewNamespace(t.Context(), strings.TrimPrefix(t.Name(), "TestFault"))
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, cp: cp, sys: systemOf(t, cp), ns: ns, cs: cp.Clientset(), dyn: dynamic.NewForConfigOrDie(cp.Config())}
	t.Cleanup(func() { e.checkForbidden(start) })
	e.pods = watchPods(t, e.cs, ns)
	return e
}

// checkForbidden fails the test for every request of its controller
// processes refused with 403 Forbidden since start.
func (e *env) checkForbidden(start time.Time) {
	forbidden, err := e.sys.Forbidden(start)
	if err != nil {
		e.t.Error(err)
		return
	}
	for _, ev := range forbidden {
		if slices.Contains(ev.User.Groups, installtest.ServiceAccountGroup(e.ns)) {
			e.t.Errorf("forbidden to the controller: %s", installtest.Describe(ev))
		}
	}
}

// isController reports whether user is one of the test's controller
// processes.
func (e *env) isController(user controlplane.AuditUser) bool {
	return slices.Contains(user.Groups, installtest.ServiceAccountGroup(e.ns))
}

// controllerUser is the user of the n-th controller process of the test.
func (e *env) controllerUser(n int) string {
	return installtest.ServiceAccountUser(e.ns, controllerAccount(n))
}

// controllerAccount is the service account of the n-th controller process.
func controllerAccount(n int) string { return fmt.Sprintf("controller-%d", n) }

// identity makes the service account of the n-th controller process,
// bound to the shipped roles, with a kubeconfig straight to the API
// server.
func (e *env) identity(n int) installtest.Identity {
	e.t.Helper()
	id, err := e.sys.ServiceAccount(e.t.Context(), e.ns, controllerAccount(n))
	if err != nil {
		e.t.Fatal(err)
	}
	return id
}

// startController runs the controller binary as id on the test's
// namespace, with its webhooks (installtest.System.StartController: it
// returns once they are ready), its log in the control plane's log
// directory (as <namespace>-<name>), and stops it when the test ends (its
// log tail logged when the test failed). Without --leader-elect it also
// waits until the controller has started its workers (its caches synced).
func (e *env) startController(name string, id installtest.Identity, extra ...string) *installtest.Controller {
	e.t.Helper()
	c := e.startProcess(name, id, append([]string{"--namespace", e.ns}, extra...)...)
	if !slices.Contains(extra, "--leader-elect") {
		e.waitLog(c.Process, "Starting workers")
	}
	return c
}

// startProcess runs the binary as id with args (installtest's
// StartController), its log in the control plane's log directory (as
// <namespace>-<name>), and stops it when the test ends (its log tail
// logged when the test failed).
func (e *env) startProcess(name string, id installtest.Identity, args ...string) *installtest.Controller {
	e.t.Helper()
	c, err := e.sys.StartController(e.ns+"-"+name, id, args...)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		c.Remove()
		c.Stop()
		if e.t.Failed() {
			e.t.Logf("%s log:\n%s", c.Name(), c.LogTail(40))
		}
	})
	return c
}

// createBeforeWebhooks creates the CloneSet of r with image as if before
// the webhooks were installed (withoutValidatingWebhook), writing it again
// while the validating webhook still refuses it.
func (e *env) createBeforeWebhooks(r rollout, image string) {
	e.t.Helper()
	e.withoutValidatingWebhook(func() {
		deadline := time.Now().Add(30 * time.Second)
		for err := e.tryCreateCloneSet(r, image); err != nil; err = e.tryCreateCloneSet(r, image) {
			if !apierrors.IsInvalid(err) || time.Now().After(deadline) {
				e.t.Fatalf("creating CloneSet %s without the validating webhook: %v", r.name, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
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
	if err := e.tryCreateCloneSet(r, image); err != nil {
		e.t.Fatal(err)
	}
}

// tryCreateCloneSet creates the CloneSet of r with image and returns the
// API server's answer.
func (e *env) tryCreateCloneSet(r rollout, image string) error {
	_, err := e.dyn.Resource(cloneSets).Namespace(e.ns).Create(e.t.Context(), e.cloneSetObject(r, image), metav1.CreateOptions{})
	return err
}

// cloneSetObject is the CloneSet of r with image.
func (e *env) cloneSetObject(r rollout, image string) *unstructured.Unstructured {
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
	return &unstructured.Unstructured{Object: obj}
}

// withoutValidatingWebhook runs write with the validating webhook
// configuration deleted (as before the webhooks were installed: once
// kube-apiserver no longer calls it), then creates it again from config/
// and waits until the controller processes have written their CA into it
// again. The configuration is back when the test ends, whatever happened.
func (e *env) withoutValidatingWebhook(write func()) {
	e.t.Helper()
	ctx := context.Background()
	configs := e.cs.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	shipped, err := configs.Get(ctx, webhook.ValidatingConfigurationName, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	restore := func() {
		fresh := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: shipped.Name, Labels: shipped.Labels}}
		for _, o := range e.shippedObjects() {
			if v, ok := o.(*admissionregistrationv1.ValidatingWebhookConfiguration); ok {
				fresh.Webhooks = v.Webhooks
			}
		}
		if _, err := configs.Create(ctx, fresh, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			e.t.Error(err)
		}
	}
	e.t.Cleanup(restore)
	if err := configs.Delete(ctx, shipped.Name, metav1.DeleteOptions{}); err != nil {
		e.t.Fatal(err)
	}
	// kube-apiserver sees the deletion a moment later: write retries on the
	// webhook's refusal until then (write fails the test otherwise).
	write()
	restore()
	deadline := time.Now().Add(30 * time.Second)
	for {
		v, err := configs.Get(ctx, shipped.Name, metav1.GetOptions{})
		if err == nil && len(v.Webhooks) > 0 && len(v.Webhooks[0].ClientConfig.CABundle) > 0 && v.Webhooks[0].ClientConfig.URL != nil {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the validating webhook configuration applied again has no CA after 30 s: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// shippedObjects are the objects of config/.
func (e *env) shippedObjects() []client.Object {
	e.t.Helper()
	objs, err := config.Objects()
	if err != nil {
		e.t.Fatal(err)
	}
	return objs
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
	cisummary.Print(e.t, fmt.Sprintf("fault %s: converged in %.1fs, %d written twice, %d budget violations", fault, converged.Seconds(), len(writes.twice), len(violations)))
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
		if ref == nil || ref.Namespace != e.ns || !writeVerbs[ev.Verb] || ref.Resource != "pods" && !e.isController(ev.User) || ev.RequestReceivedTimestamp.Before(history[0].at.Add(-time.Second)) {
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

// startBinary runs binary (a controller other than the project's: kruise's,
// for the rollout's comparison) with args, its log in the control plane's
// log directory (as <namespace>-<name>), stops it when the test ends (its
// log tail logged when the test failed), and returns once its log says it
// started its workers.
func (e *env) startBinary(name, binary string, args []string) *controlplane.Process {
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
	e.waitLog(p, "Starting workers")
	return p
}

// adminIdentity makes service account name of the test's namespace bound
// to cluster-admin (a controller that is not the project's, whose roles
// the project does not ship), with a kubeconfig straight to the API
// server; the audit log counts its requests as a controller's.
func (e *env) adminIdentity(name string) installtest.Identity {
	e.t.Helper()
	id, err := e.sys.ServiceAccount(e.t.Context(), e.ns, name)
	if err != nil {
		e.t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "faults-admin-" + e.ns + "-" + name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: e.ns, Name: name}},
	}
	if _, err := e.cs.RbacV1().ClusterRoleBindings().Create(e.t.Context(), binding, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	return id
}
