package faults

import (
	"context"
	"fmt"
	"io"
	"math/bits"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller"
	"github.com/clonecore/cloneset/examples/kubecontroller/controlplane"
	"github.com/clonecore/cloneset/examples/kubecontroller/installtest"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
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
	restartDuring(t, cp, "kube-apiserver restarted", inPlace, cp.StopAPIServer, cp.StartAPIServer)
}

// TestFaultEtcdRestart: etcd killed (SIGKILL) and started again on its data
// in the middle of a recreate update with maxSurge.
func TestFaultEtcdRestart(t *testing.T) {
	cp := sharedControlPlane(t)
	restartDuring(t, cp, "etcd restarted", recreate, func() error { return cp.KillComponent(controlplane.Etcd) }, cp.StartEtcd)
}

// restartDuring updates r from imageV1 to imageV2 with one controller and,
// once 6 pods are updated, stops a component and starts it again.
func restartDuring(t *testing.T, cp *controlplane.ControlPlane, fault string, r rollout, stop func() error, start func(context.Context) error) {
	e := newEnv(t, cp)
	e.startController("controller", e.identity(1))
	e.settle(r)
	var outage time.Duration
	wait := e.during(r.name, updatedAtLeast(6), func() error {
		down := time.Now()
		if err := stop(); err != nil {
			return err
		}
		err := start(t.Context())
		outage = time.Since(down)
		return err
	})
	begin := time.Now()
	e.setImage(r.name, imageV2)
	wait()
	t.Logf("%s: down and back in %s", fault, outage.Round(time.Millisecond))
	e.verdict(fault, r.name, begin, e.waitConverged(r.name, r.replicas, imageV2, begin))
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
	e.startController("controller", e.identity(1))
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
// maxUnavailable both 0) next to a valid one in the same namespace, with
// one controller. The validating webhook refuses to create it, naming the
// field; stored anyway as it would have been before the webhooks were
// installed (the validating webhook configuration taken away for the
// create, and applied again from config/), the valid one rolls out
// untouched and the refused one gets a Warning event and nothing else: no
// pod, no revision, no status.
func TestFaultRefusedNeighbour(t *testing.T) {
	cp := sharedControlPlane(t)
	e := newEnv(t, cp)
	e.startController("controller", e.identity(1))
	e.settle(inPlace)
	refused := rollout{name: "refused", replicas: 5, policy: "InPlaceIfPossible"}
	if err := e.tryCreateCloneSet(refused, imageV1); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.updateStrategy.rollingUpdate.maxUnavailable") {
		t.Fatalf("creating a CloneSet with maxSurge and maxUnavailable 0: %v; want the validating webhook's refusal naming the field", err)
	}
	e.createBeforeWebhooks(refused, imageV1)
	start := time.Now()
	e.setImage(inPlace.name, imageV2)
	converged := e.waitConverged(inPlace.name, inPlace.replicas, imageV2, start)
	event := e.waitEvent(refused.name, kubecontroller.ReasonInvalidSpec)
	t.Logf("event on %s: %s %s: %s", refused.name, event.Type, event.Reason, event.Note)
	if event.Type != corev1.EventTypeWarning || !strings.Contains(event.Note, "maxUnavailable") {
		t.Errorf("event %s %q: want a Warning naming maxUnavailable", event.Type, event.Note)
	}
	e.verdict("refused neighbour", inPlace.name, start, converged)
	for _, ev := range e.auditEventsOf(refused.name) {
		t.Errorf("the controller wrote for the refused CloneSet: %s %s/%s %s (%d)", ev.Verb, ev.ObjectRef.Resource, ev.ObjectRef.Subresource, ev.ObjectRef.Name, ev.Code())
	}
	if c := e.pods.snapshot(refused.name); c.active+c.terminating != 0 {
		t.Errorf("the refused CloneSet has pods: %s", c)
	}
}

// scaleOut is the rollout of the controller-process faults: 20 pods scaled
// out to 30, the 10 new ones created in slow-start batches of 1, 2, 4 and
// 3 (a ReCreate CloneSet, so that any pod created twice would stay).
var scaleOut = rollout{name: "web", replicas: 20, policy: "ReCreate", maxSurge: 4, maxUnavailable: 1}

// scaledOutReplicas is the replicas scaleOut is scaled to.
const scaledOutReplicas = 30

// settleScaleOut settles scaleOut, then arms the proxy's rule (sets
// *armed under the proxy's lock, when px is not nil) and checks the budget
// of the scale-out from then on.
func (e *env) settleScaleOut(px *proxy, armed *bool) {
	e.t.Helper()
	e.settle(scaleOut)
	if px != nil {
		px.mu.Lock()
		*armed = true
		px.mu.Unlock()
	}
	e.pods.setBudget(scaleOut.name, budget{maxActive: scaledOutReplicas, minReady: scaleOut.replicas - scaleOut.maxUnavailable})
}

// batchProxy is the proxy of the first process in the tests that kill the
// controller in the middle of the scale-out's batch of 4: once armed (the
// CloneSet settled) it counts the pod creates, records those of the batch
// of 4 (creates 4 to 7, in the order they reach it), and gives one create
// a verdict of the test's, until released.
type batchProxy struct {
	px       *proxy
	armed    bool       // under px.mu
	batchOf4 []*proxied // under px.mu
	held     chan string
	release  func()
}

// startBatchProxy starts a batchProxy that gives the n-th pod create the
// verdict heldVerdict makes of the release channel; the test's end
// releases it (a held request would keep the proxy from closing).
func (e *env) startBatchProxy(n int, heldVerdict func(release chan struct{}) verdict) *batchProxy {
	b := &batchProxy{held: make(chan string, 1)}
	releaseCh := make(chan struct{})
	var once sync.Once
	b.release = func() { once.Do(func() { close(releaseCh) }) }
	creates := 0
	b.px = e.startProxy(1, func(pr *proxied) verdict {
		if !b.armed || !isPodCreate(pr) {
			return verdict{}
		}
		creates++
		if creates >= 4 && creates <= 7 {
			b.batchOf4 = append(b.batchOf4, pr)
		}
		if creates == n {
			b.held <- pr.Name
			return heldVerdict(releaseCh)
		}
		return verdict{}
	})
	// Cleanups run last registered first: released before the proxy closes.
	e.t.Cleanup(b.release)
	return b
}

// heldCreate waits for the create the proxy holds and returns its pod's
// name.
func (b *batchProxy) heldCreate(t *testing.T) string {
	t.Helper()
	select {
	case name := <-b.held:
		return name
	case <-time.After(convergeTimeout):
		t.Fatal("the proxy held no create")
		return ""
	}
}

// waitLanded waits until want creates of the batch of 4, other than the
// pod except (none when empty), were answered 201 Created by the API
// server, and returns their pods' names.
func (b *batchProxy) waitLanded(t *testing.T, want int, except string) []string {
	t.Helper()
	var landed []string
	for deadline := time.Now().Add(30 * time.Second); len(landed) < want; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d creates of the batch of 4 landed (%v; the create of pod %q held), want %d: the binary did not send the batch concurrently", len(landed), landed, except, want)
		}
		landed = landed[:0]
		b.px.mu.Lock()
		for _, pr := range b.batchOf4 {
			if pr.Name != except && pr.Upstream == http.StatusCreated {
				landed = append(landed, pr.Name)
			}
		}
		b.px.mu.Unlock()
	}
	return landed
}

// TestFaultControllerKilled: the controller killed (SIGKILL) in the middle
// of a slow-start batch of creates and started again: the new process has
// no expectations from before; its cache syncs before its first reconcile
// and shows every write the dead one made, so it creates only the pods
// still missing. The first process talks through a proxy that forwards the
// creates of the batch of 4 (the binary sends them concurrently) and keeps
// the answer of the last one to reach it: the four pods exist, the process
// still waits for its batch, and is killed then, so the kill falls inside
// the batch whatever the timing. (A create that lands only after the new
// process planned is TestFaultControllerKilledWriteInFlight.)
func TestFaultControllerKilled(t *testing.T) {
	cp := sharedControlPlane(t)
	e := newEnv(t, cp)
	b := e.startBatchProxy(7, func(release chan struct{}) verdict { return verdict{holdAnswer: release} })
	first := e.startController("controller-1", b.px.identity(e.identity(1)))
	e.settleScaleOut(b.px, &b.armed)
	start := time.Now()
	e.setReplicas(scaleOut.name, scaledOutReplicas)
	name := b.heldCreate(t)
	// All four land, the held one too: only its answer is kept.
	landed := b.waitLanded(t, 4, "")
	if err := first.Kill(); err != nil {
		t.Fatal(err)
	}
	b.release()
	// The watch shows the batch of 4 complete before the new process starts.
	want := scaleOut.replicas + 1 + 2 + 4
	killedAt := e.pods.snapshot(scaleOut.name)
	for deadline := time.Now().Add(30 * time.Second); killedAt.active < want && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		killedAt = e.pods.snapshot(scaleOut.name)
	}
	t.Logf("killed with the batch of 4 created (%s), the answer to the create of pod %s not yet given; %s", strings.Join(landed, ", "), name, killedAt)
	if killedAt.active != want {
		t.Fatalf("%d active pods after the kill, want %d (batches of 1, 2 and 4)", killedAt.active, want)
	}
	restart := time.Now()
	e.startController("controller-2", e.identity(2))
	converged := e.waitConverged(scaleOut.name, scaledOutReplicas, imageV1, start)
	t.Logf("the new process started and converged in %s", time.Since(restart).Round(time.Millisecond))
	e.verdict("controller killed mid-batch", scaleOut.name, start, converged)
}

// TestFaultControllerKilledWriteInFlight: the case a restarted controller
// cannot know about. The first process talks through a proxy that holds
// the fifth pod create to reach it (the second of the batch of 4 to arrive;
// the binary sends the 4 concurrently, so which pod it is varies from run to
// run: the test names it); the other three creates of the batch go on and
// land while it is held (the batch's concurrency, checked), then the
// process is killed with the named create in flight, and a new process (no
// proxy) syncs a cache that cannot show that pod and plans the scale-out
// again. Its
// instance ids follow a sequence seeded per round (docs/spec
// scale-and-budgets.md 7.2), as upstream's random ids, so it names its pods
// otherwise and converges without the held one. The held create, released
// then, lands: a pod the dead process asked for, which no controller can
// stop, one above replicas + maxSurge (the budget of the watch allows that
// one pod from the release on). The new process removes the surplus and
// converges again; nothing is created or deleted twice.
func TestFaultControllerKilledWriteInFlight(t *testing.T) {
	cp := sharedControlPlane(t)
	e := newEnv(t, cp)
	b := e.startBatchProxy(5, func(release chan struct{}) verdict { return verdict{hold: release} })
	px := b.px
	first := e.startController("controller-1", px.identity(e.identity(1)))
	e.settleScaleOut(px, &b.armed)
	start := time.Now()
	e.setReplicas(scaleOut.name, scaledOutReplicas)
	name := b.heldCreate(t)
	// The other creates of the batch go on while one is held, and land.
	landed := b.waitLanded(t, 3, name)
	if err := first.Kill(); err != nil {
		t.Fatal(err)
	}
	// The watch shows the landed creates a moment later.
	want := scaleOut.replicas + 1 + 2 + 3 // batches of 1 and 2, and 3 of the batch of 4
	killedAt := e.pods.snapshot(scaleOut.name)
	for deadline := time.Now().Add(10 * time.Second); killedAt.active < want && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		killedAt = e.pods.snapshot(scaleOut.name)
	}
	t.Logf("killed with the create of pod %s in flight (held by the proxy), the other creates of its batch landed (%s); %s", name, strings.Join(landed, ", "), killedAt)
	if _, ok := e.pods.pod(name); ok {
		t.Errorf("pod %s exists though its create is held", name)
	}
	if killedAt.active != want {
		t.Errorf("%d active pods after the kill, want %d (batches of 1 and 2, and 3 of the batch of 4)", killedAt.active, want)
	}
	e.startController("controller-2", e.identity(2))
	e.waitConverged(scaleOut.name, scaledOutReplicas, imageV1, start)
	if _, ok := e.pods.pod(name); ok {
		t.Logf("the new process chose the held name %s itself", name)
	}
	// From the release on, the dead process's create may add one pod.
	e.pods.setBudget(scaleOut.name, budget{maxActive: scaledOutReplicas + 1, minReady: scaleOut.replicas - scaleOut.maxUnavailable})
	b.release()
	var late proxied
	for deadline := time.Now().Add(10 * time.Second); late.Upstream == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for _, pr := range px.requests() {
			if pr.Name == name && pr.Verdict.hold != nil {
				late = pr
			}
		}
	}
	t.Logf("the dead process's create of pod %s, released after the new process converged: %d", name, late.Upstream)
	switch late.Upstream {
	case http.StatusCreated:
		// The surplus pod must go, the CloneSet must come back to rest.
		deadline := time.Now().Add(convergeTimeout)
		for len(e.pods.names(scaleOut.name)) != scaledOutReplicas {
			if time.Now().After(deadline) {
				t.Fatalf("the surplus pod %s was never removed: %d active pods", name, len(e.pods.names(scaleOut.name)))
			}
			time.Sleep(20 * time.Millisecond)
		}
	case http.StatusConflict: // the new process had taken the name
	default:
		t.Errorf("the late create of %s got %d, want 201 Created or 409 AlreadyExists", name, late.Upstream)
	}
	converged := e.waitConverged(scaleOut.name, scaledOutReplicas, imageV1, start)
	e.verdict("controller killed with a create in flight", scaleOut.name, start, converged)
}

// TestFaultLeaderKilled: two controller processes with leader election
// (lease 4 s, renew deadline 3 s, retry 500 ms); the leader is killed in
// the middle of an in-place update and the other takes over. No write of
// the second may come before the first was killed (one leader at a time).
func TestFaultLeaderKilled(t *testing.T) {
	cp := sharedControlPlane(t)
	e := newEnv(t, cp)
	election := []string{"--leader-elect", "--leader-election-namespace", e.ns,
		"--leader-election-lease-duration", "4s", "--leader-election-renew-deadline", "3s", "--leader-election-retry-period", "500ms"}
	procs := []*installtest.Controller{
		e.startController("controller-1", e.identity(1), election...),
		e.startController("controller-2", e.identity(2), election...),
	}
	const acquired = "Successfully acquired lease"
	leader := -1
	for deadline := time.Now().Add(30 * time.Second); leader < 0; time.Sleep(20 * time.Millisecond) {
		for i, p := range procs {
			if logHas(p.Process, acquired) {
				leader = i
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("no controller acquired the lease")
		}
	}
	follower := procs[1-leader]
	e.settle(inPlace)
	var killed time.Time
	wait := e.during(inPlace.name, updatedAtLeast(6), func() error {
		killed = time.Now()
		return procs[leader].Kill()
	})
	start := time.Now()
	e.setImage(inPlace.name, imageV2)
	wait()
	e.waitLog(follower.Process, acquired)
	t.Logf("leader %s killed; %s took over %s later", procs[leader].Name(), follower.Name(), time.Since(killed).Round(time.Millisecond))
	converged := e.waitConverged(inPlace.name, inPlace.replicas, imageV2, start)
	e.verdict("leader killed", inPlace.name, start, converged)
	for _, ev := range e.auditEventsOf(inPlace.name) {
		if ev.User.Username == e.controllerUser(2-leader) && ev.RequestReceivedTimestamp.Before(killed) {
			t.Errorf("the follower wrote while the leader ran: %s %s %s at %s", ev.Verb, ev.ObjectRef.Resource, ev.ObjectRef.Name, ev.RequestReceivedTimestamp.Format(time.RFC3339Nano))
		}
	}
}

// TestFaultThrottledWithErrors: the API server throttles writes (legacy
// max-in-flight filter, --max-mutating-requests-inflight=1, which the
// controller's users are not exempt from; a noisy neighbour writes
// meanwhile), and a proxy between the controller and the API server
// answers 500 to the second pod create without forwarding it, and forwards
// the eighth and answers 500 (the pod is created, the controller is told it
// failed). A failed create stops the slow-start batches of its round, as
// upstream does: the proxy reads the controller's reconcile counter at
// every create, and within one reconcile no create follows the batch of a
// failed one. No write is lost: the scale-out ends with every pod, and the
// pod whose response was lost is not created twice.
func TestFaultThrottledWithErrors(t *testing.T) {
	cp := ownControlPlane(t, controlPlaneOptions([]string{"--enable-priority-and-fairness=false", "--max-mutating-requests-inflight=1"}))
	e := newEnv(t, cp)
	metrics := freeAddress(t)
	creates := 0
	var settled bool
	var rounds []float64 // the controller's reconcile count at each pod create
	px := e.startProxy(1, func(pr *proxied) verdict {
		if !settled || !isPodCreate(pr) {
			return verdict{}
		}
		creates++
		rounds = append(rounds, reconcileCount(metrics))
		switch creates {
		case 2:
			return verdict{fail: http.StatusInternalServerError}
		case 8:
			return verdict{failAfter: http.StatusInternalServerError}
		}
		return verdict{}
	})
	e.startController("controller", px.identity(e.identity(1)), "--metrics-bind-address", metrics)
	e.settleScaleOut(px, &settled)
	stopNoise := e.noisyNeighbour()
	start := time.Now()
	e.setReplicas(scaleOut.name, scaledOutReplicas)
	converged := e.waitConverged(scaleOut.name, scaledOutReplicas, imageV1, start)
	noise := stopNoise()
	report := e.verdict("throttled with errors", scaleOut.name, start, converged)

	px.mu.Lock()
	byRound := slices.Clone(rounds)
	px.mu.Unlock()
	var podCreates []proxied
	for _, pr := range px.requests() {
		if isPodCreate(&pr) {
			podCreates = append(podCreates, pr)
		}
	}
	t.Logf("noisy neighbour: %d writes; the controller's throttled writes (429): %d; pod creates through the proxy: %d", noise, report.refusedWith(http.StatusTooManyRequests), len(byRound))
	checkBatchesStop(t, podCreates[len(podCreates)-len(byRound):], byRound)
}

// checkBatchesStop checks, for the pod creates of each reconcile (the
// creates with the same reconcile count), that none comes after the
// slow-start batch (sizes 1, 2, 4, ...) of a failed one.
func checkBatchesStop(t *testing.T, creates []proxied, rounds []float64) {
	t.Helper()
	// A create answered 429 is sent again by client-go itself (it honours
	// Retry-After): the retries of one create are one create, at the place
	// of its first try, with the last answer. The creates of a batch are
	// sent concurrently (the binary's default), so the retries of two
	// creates of a batch may interleave; a batch still starts only once the
	// previous one was answered, so the places of the first tries give the
	// batches.
	var groups [][]proxied
	var at map[string]int // where each create of the last group is
	for i, c := range creates {
		if i == 0 || rounds[i] != rounds[i-1] {
			groups = append(groups, nil)
			at = map[string]int{}
		}
		g := groups[len(groups)-1]
		if j, ok := at[c.Name]; ok && g[j].Answered == http.StatusTooManyRequests {
			g[j] = c
			continue
		}
		at[c.Name] = len(g)
		groups[len(groups)-1] = append(g, c)
	}
	failed := 0
	for g, group := range groups {
		var line []string
		failedBatch := -1
		for i, c := range group {
			batch := bits.Len(uint(i+1)) - 1 // positions 0 | 1 2 | 3 4 5 6 | 7 ...
			line = append(line, fmt.Sprintf("%s:%d", c.Name, c.Answered))
			if failedBatch >= 0 && batch > failedBatch {
				t.Errorf("reconcile %d: create %d (%s, batch %d) sent after a failed create in batch %d", g, i, c.Name, batch, failedBatch)
			}
			if c.Answered >= 300 && failedBatch < 0 {
				failedBatch = batch
				failed++
			}
		}
		t.Logf("reconcile %d: %s", g, strings.Join(line, " "))
	}
	if failed == 0 {
		t.Error("no create failed: the proxy's errors did not reach the controller")
	}
}

// reconcileCount reads controller_runtime_reconcile_total of the CloneSet
// controller ("cloneset"; OpenKruise's is "cloneset-controller"; all
// results; the pod readiness and launch priority reconcilers' are their own)
// from the controller's metrics endpoint at address (-1 when it cannot).
func reconcileCount(address string) float64 {
	resp, err := http.Get("http://" + address + "/metrics")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	total := 0.0
	for _, line := range strings.Split(string(body), "\n") {
		if rest, ok := strings.CutPrefix(line, "controller_runtime_reconcile_total{"); ok &&
			(strings.Contains(rest, `controller="cloneset"`) || strings.Contains(rest, `controller="cloneset-controller"`)) {
			var v float64
			if _, err := fmt.Sscan(rest[strings.LastIndexByte(rest, ' ')+1:], &v); err == nil {
				total += v
			}
		}
	}
	return total
}

// freeAddress returns a loopback address with a port free at the time.
func freeAddress(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// noisyNeighbour writes a ConfigMap of the namespace over and over, as a
// user that is not exempt from the max-in-flight filter either, until the
// returned function is called (which returns how many writes succeeded).
func (e *env) noisyNeighbour() (stop func() int) {
	e.t.Helper()
	cfg, err := e.cp.UserConfig("faults-noisy-neighbour", controllerGroupNoisy)
	if err != nil {
		e.t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(cfg)
	done := make(chan struct{})
	count := make(chan int, 1)
	go func() {
		n := 0
		for i := 0; ; i++ {
			select {
			case <-done:
				count <- n
				return
			default:
			}
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "noise", Namespace: e.ns}, Data: map[string]string{"i": fmt.Sprint(i)}}
			if _, err := cs.CoreV1().ConfigMaps(e.ns).Update(e.t.Context(), cm, metav1.UpdateOptions{}); apierrors.IsNotFound(err) {
				_, err = cs.CoreV1().ConfigMaps(e.ns).Create(e.t.Context(), cm, metav1.CreateOptions{})
			} else if err == nil {
				n++
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	return func() int {
		close(done)
		return <-count
	}
}
