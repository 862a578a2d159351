package faults

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller"
	"github.com/clonecore/cloneset/examples/kubecontroller/controlplane"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// inPlace is the rollout of most faults: 20 pods updated in place, 4 at a
// time.
var inPlace = rollout{name: "web", replicas: 20, policy: "InPlaceIfPossible", maxUnavailable: 4}

// recreate is the rollout of the faults that need creates and deletes: 20
// pods replaced, 4 surge pods at a time, at most 1 unavailable (a v1beta1
// CloneSet with maxUnavailable 0 is refused whatever its maxSurge, as
// OpenKruise's webhook does: rule B17 of docs/spec).
var recreate = rollout{name: "web", replicas: 20, policy: "ReCreate", maxSurge: 4, maxUnavailable: 1}

// updatedAtLeast holds once n active pods have imageV2.
func updatedAtLeast(n int) func(podCounts) bool {
	return func(c podCounts) bool { return c.byImage[imageV2] >= n }
}

// TestFaultAPIServerRestart: kube-apiserver stopped and started again (etcd
// keeps the data) in the middle of an in-place update.
func TestFaultAPIServerRestart(t *testing.T) {
	cp := sharedControlPlane(t)
	e := newEnv(t, cp)
	e.startController("controller", e.kubeconfig)
	e.settle(inPlace)
	var outage time.Duration
	wait := e.during(inPlace.name, updatedAtLeast(6), func() error {
		start := time.Now()
		if err := cp.StopAPIServer(); err != nil {
			return err
		}
		err := cp.StartAPIServer(t.Context())
		outage = time.Since(start)
		return err
	})
	start := time.Now()
	e.setImage(inPlace.name, imageV2)
	wait()
	t.Logf("kube-apiserver down and back in %s", outage.Round(time.Millisecond))
	e.verdict("kube-apiserver restarted", inPlace.name, start, e.waitConverged(inPlace.name, inPlace.replicas, imageV2, start))
}

// TestFaultEtcdRestart: etcd killed (SIGKILL) and started again on its data
// in the middle of a recreate update with maxSurge.
func TestFaultEtcdRestart(t *testing.T) {
	cp := sharedControlPlane(t)
	e := newEnv(t, cp)
	e.startController("controller", e.kubeconfig)
	e.settle(recreate)
	var outage time.Duration
	wait := e.during(recreate.name, updatedAtLeast(6), func() error {
		start := time.Now()
		if err := cp.KillComponent(controlplane.Etcd); err != nil {
			return err
		}
		err := cp.StartEtcd(t.Context())
		outage = time.Since(start)
		return err
	})
	start := time.Now()
	e.setImage(recreate.name, imageV2)
	wait()
	t.Logf("etcd down and back in %s", outage.Round(time.Millisecond))
	e.verdict("etcd restarted", recreate.name, start, e.waitConverged(recreate.name, recreate.replicas, imageV2, start))
}

// TestFaultOtherWriter: while the pods are updated in place, another
// writer (user admin) patches their labels, annotations and status, and the
// CloneSet's annotations, without preconditions, a write every few
// milliseconds. The controller's pod patches carry uid preconditions only
// and touch only the fields they own, so they merge with the other
// writer's: none of its writes may be lost (the last label and annotation
// it wrote on each pod are there at the end). Its status write carries the
// resourceVersion it read: the other writer's CloneSet changes make some
// fail with 409 Conflict, which ends the round; the next one succeeds.
func TestFaultOtherWriter(t *testing.T) {
	cp := sharedControlPlane(t)
	e := newEnv(t, cp)
	e.startController("controller", e.kubeconfig)
	e.settle(inPlace)
	stop := make(chan struct{})
	written := make(chan map[string]string, 1)
	go func() { written <- e.otherWriter(inPlace.name, stop) }()
	start := time.Now()
	e.setImage(inPlace.name, imageV2)
	wait := e.during(inPlace.name, updatedAtLeast(inPlace.replicas), func() error { close(stop); return nil })
	wait()
	last := <-written
	converged := e.waitConverged(inPlace.name, inPlace.replicas, imageV2, start)
	report := e.verdict("another writer", inPlace.name, start, converged)
	t.Logf("the other writer's last writes on %d pods checked; the controller's conflicts: %d", len(last), report.refusedWith(http.StatusConflict))
	pods, err := e.cs.CoreV1().Pods(e.ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if v, ok := last[p.Name]; ok && (p.Labels[touchedKey] != v || p.Annotations[touchedKey] != v) {
			t.Errorf("pod %s: label %q, annotation %q: the other writer's last write %q was lost", p.Name, p.Labels[touchedKey], p.Annotations[touchedKey], v)
		}
	}
}

// touchedKey is the label and annotation the other writer writes.
const touchedKey = "faults.test/touched"

// otherWriter patches the pods of cloneSet and the CloneSet, one after the
// other, until stop is closed: a label and an annotation (one merge patch),
// then a condition of its own in the status, then an annotation of the
// CloneSet. It returns the value it last wrote on each pod.
func (e *env) otherWriter(cloneSet string, stop <-chan struct{}) map[string]string {
	pods := e.cs.CoreV1().Pods(e.ns)
	last := map[string]string{}
	for i := 0; ; i++ {
		select {
		case <-stop:
			return last
		default:
		}
		names := e.pods.names(cloneSet)
		if len(names) == 0 {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		name := names[i%len(names)]
		value := fmt.Sprint(i)
		switch i % 3 {
		case 0:
			if _, err := pods.Patch(e.t.Context(), name, types.MergePatchType, fmt.Appendf(nil, `{"metadata":{"labels":{%q:%q},"annotations":{%q:%q}}}`, touchedKey, value, touchedKey, value), metav1.PatchOptions{}); err == nil {
				last[name] = value
			}
		case 1:
			pods.Patch(e.t.Context(), name, types.StrategicMergePatchType, fmt.Appendf(nil, `{"status":{"conditions":[{"type":"faults.test/Touched","status":"True","message":%q}]}}`, value), metav1.PatchOptions{}, "status")
		case 2:
			e.dyn.Resource(cloneSets).Namespace(e.ns).Patch(e.t.Context(), cloneSet, types.MergePatchType, fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, touchedKey, value), metav1.PatchOptions{})
		}
	}
}

// TestFaultRefusedNeighbour: a CloneSet the library refuses (maxSurge and
// maxUnavailable both 0, which only the admission webhook would stop) next
// to a valid one in the same namespace, with one controller: the valid one
// rolls out untouched; the refused one gets a Warning event and nothing
// else: no pod, no revision, no status.
func TestFaultRefusedNeighbour(t *testing.T) {
	cp := sharedControlPlane(t)
	e := newEnv(t, cp)
	e.startController("controller", e.kubeconfig)
	e.settle(inPlace)
	refused := rollout{name: "refused", replicas: 5, policy: "InPlaceIfPossible"}
	start := time.Now()
	e.createCloneSet(refused, imageV1)
	e.setImage(inPlace.name, imageV2)
	converged := e.waitConverged(inPlace.name, inPlace.replicas, imageV2, start)
	event := e.waitEvent(refused.name, kubecontroller.ReasonInvalidSpec)
	t.Logf("event on %s: %s %s: %s", refused.name, event.Type, event.Reason, event.Note)
	if event.Type != corev1.EventTypeWarning || !strings.Contains(event.Note, "maxUnavailable") {
		t.Errorf("event %s %q: want a Warning naming maxUnavailable", event.Type, event.Note)
	}
	e.verdict("refused neighbour", inPlace.name, start, converged)
	for _, ev := range e.auditEventsOf(controllerUser, refused.name) {
		t.Errorf("the controller wrote for the refused CloneSet: %s %s/%s %s (%d)", ev.Verb, ev.ObjectRef.Resource, ev.ObjectRef.Subresource, ev.ObjectRef.Name, ev.Code())
	}
	if c := e.pods.snapshot(refused.name); c.active+c.terminating != 0 {
		t.Errorf("the refused CloneSet has pods: %s", c)
	}
}
