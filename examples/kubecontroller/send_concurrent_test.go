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

	"github.com/clonecore/cloneset/expectations"
	"github.com/clonecore/cloneset/requests"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// gateTimeout is how long a create held at a gate waits for the other
// creates of its gate before the test fails: the creates of a batch sent one
// after the other never all arrive.
const gateTimeout = 10 * time.Second

// gate holds the creates of a set of objects until all of them are in
// flight at once.
type gate struct {
	want    int
	arrived int
	open    chan struct{}
}

// gatedClient is a client whose creates record when they start and end and
// wait at their gate (an object named in a gate waits until every object of
// its gate is being created): it sees which creates are in flight at once.
// A create named in after returns only once the create it names has
// returned, so that the creates of a batch end in an order the test picks.
type gatedClient struct {
	client.Client
	t      *testing.T
	gates  map[string]*gate
	after  map[string]string
	mu     sync.Mutex
	events []string // "start NAME", "end NAME", in the order they happened
	ended  map[string]chan struct{}
}

// newGatedClient returns a gatedClient over c with one gate per set of
// names.
func newGatedClient(t *testing.T, c client.Client, after map[string]string, gates ...[]string) *gatedClient {
	g := &gatedClient{Client: c, t: t, gates: map[string]*gate{}, after: after, ended: map[string]chan struct{}{}}
	for _, names := range gates {
		shared := &gate{want: len(names), open: make(chan struct{})}
		for _, n := range names {
			g.gates[n] = shared
		}
	}
	for _, before := range after {
		g.ended[before] = make(chan struct{})
	}
	return g
}

func (g *gatedClient) record(event string) {
	g.mu.Lock()
	g.events = append(g.events, event)
	g.mu.Unlock()
}

// Create waits at the object's gate, then creates it.
func (g *gatedClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	name := obj.GetName()
	g.record("start " + name)
	if gt := g.gates[name]; gt != nil {
		g.mu.Lock()
		gt.arrived++
		arrived := gt.arrived
		if arrived == gt.want {
			close(gt.open)
		}
		g.mu.Unlock()
		select {
		case <-gt.open:
		case <-time.After(gateTimeout):
			g.t.Errorf("create %s: only %d of the %d creates of its batch in flight at once after %v", name, arrived, gt.want, gateTimeout)
			return fmt.Errorf("create %s: gate timed out", name)
		}
	}
	err := g.Client.Create(ctx, obj, opts...)
	if before, ok := g.after[name]; ok {
		select {
		case <-g.ended[before]:
		case <-time.After(gateTimeout):
			g.t.Errorf("create %s: the create of %s did not end first", name, before)
		}
	}
	g.record("end " + name)
	if done, ok := g.ended[name]; ok {
		close(done)
	}
	return err
}

// eventIndex is where event happened in events (-1 when it did not).
func (g *gatedClient) eventIndex(event string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Index(g.events, event)
}

func statusWrite() requests.Request {
	return requests.Request{Verb: requests.VerbPatch, Resource: requests.ResourceCloneSets, Subresource: requests.SubresourceStatus,
		Namespace: "default", Name: "web", PatchType: requests.PatchMerge, Patch: json.RawMessage(`{"status":{"replicas":1}}`),
		Batch: -1, Action: -1}
}

// TestSendConcurrentBatches: with ConcurrentBatches, the creates of a batch
// are all in flight at once (each pod's claim before the pod), a batch starts
// only after the whole previous one ended, and the outcomes come in request
// order. Sent one after the other (ConcurrentBatches off), the creates
// never meet at the gates and the test fails.
func TestSendConcurrentBatches(t *testing.T) {
	api := newAPIServer(fixedClock, existingCloneSet())
	gated := newGatedClient(t, api, nil,
		[]string{"data-web-b", "data-web-c"},
		[]string{"web-d", "web-e", "web-f", "web-g"})
	exp := NewExpectations(0)
	s := &Sender{Client: gated, Expectations: exp, Owner: "default/web", Now: sendNow, ConcurrentBatches: true}
	reqs := []requests.Request{
		createPod("web-a", 0, 0),
		createClaim("data-web-b", 1, 1), createPod("web-b", 1, 1),
		createClaim("data-web-c", 1, 2), createPod("web-c", 1, 2),
		createPod("web-d", 2, 3), createPod("web-e", 2, 4), createPod("web-f", 2, 5), createPod("web-g", 2, 6),
		statusWrite(),
	}
	out, err := s.Send(context.Background(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range out {
		if o.Request.Name != reqs[i].Name || !o.Sent || o.Err != nil {
			t.Errorf("outcome %d: %s sent %v err %v; want %s sent", i, o.Request.Name, o.Sent, o.Err, reqs[i].Name)
		}
	}
	for _, pod := range []string{"web-b", "web-c"} {
		if claimEnd, podStart := gated.eventIndex("end data-"+pod), gated.eventIndex("start "+pod); claimEnd < 0 || podStart < claimEnd {
			t.Errorf("the create of %s started (event %d) before its claim's ended (event %d)", pod, podStart, claimEnd)
		}
	}
	for _, earlier := range []string{"web-a", "data-web-b", "web-b", "data-web-c", "web-c"} {
		for _, later := range []string{"web-d", "web-e", "web-f", "web-g"} {
			if gated.eventIndex("start "+later) < gated.eventIndex("end "+earlier) {
				t.Errorf("the create of %s (batch 2) started before the create of %s (an earlier batch) ended", later, earlier)
			}
		}
	}
	var pending []string
	exp.Do(func(st *expectations.Store) {
		for _, e := range st.Pending("default/web") {
			pending = append(pending, e.Object.Name)
		}
	})
	slices.Sort(pending)
	if want := []string{"data-web-b", "data-web-c", "web", "web-a", "web-b", "web-c", "web-d", "web-e", "web-f", "web-g"}; !reflect.DeepEqual(pending, want) {
		t.Errorf("expectations %v, want %v (every create and the status write)", pending, want)
	}
}

// TestSendConcurrentBatchWithFailures: the failed creates of a batch sent
// concurrently stop neither the other creates of the batch (all in flight at
// once) nor the status write, but the pod of a failed claim is not sent and
// no later batch starts; the error lists the failures in request order,
// though they end in the other order; the outcomes and the error are those
// of the same requests sent one after the other.
func TestSendConcurrentBatchWithFailures(t *testing.T) {
	existing := func() []client.Object {
		return []client.Object{existingPod("web-b"), existingCloneSet(),
			&corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data-web-c", Namespace: "default"}}}
	}
	reqs := []requests.Request{
		createPod("web-a", 0, 0),
		createPod("web-b", 1, 1),                                  // exists
		createClaim("data-web-c", 1, 2), createPod("web-c", 1, 2), // the claim exists: the pod is not sent
		createPod("web-d", 1, 3),
		createPod("web-e", 1, 4),
		createPod("web-f", 2, 5), // a later batch: not started
		statusWrite(),
	}
	exp := NewExpectations(0)
	gated := newGatedClient(t, newAPIServer(fixedClock, existing()...),
		map[string]string{"web-b": "data-web-c"}, // web-b's failure ends after data-web-c's
		[]string{"web-b", "data-web-c", "web-d", "web-e"})
	s := &Sender{Client: gated, Expectations: exp, Owner: "default/web", Now: sendNow, ConcurrentBatches: true}
	out, err := s.Send(context.Background(), reqs)
	want := []string{"create web-a", "create web-b (failed)", "create data-web-c (failed)", "create web-d", "create web-e", "patch web"}
	if got := sentNames(out); !reflect.DeepEqual(got, want) {
		t.Errorf("sent %v, want %v", got, want)
	}
	if err == nil || strings.Index(err.Error(), "pods default/web-b") > strings.Index(err.Error(), "persistentvolumeclaims default/data-web-c") {
		t.Errorf("error %v: want the failure of web-b, then that of data-web-c", err)
	}
	if gated.eventIndex("end data-web-c") > gated.eventIndex("end web-b") {
		t.Errorf("web-b's create ended before data-web-c's: the test does not check the order of the error")
	}
	var pending []string
	exp.Do(func(st *expectations.Store) {
		for _, e := range st.Pending("default/web") {
			pending = append(pending, e.Object.Name)
		}
	})
	slices.Sort(pending)
	if want := []string{"web", "web-a", "web-d", "web-e"}; !reflect.DeepEqual(pending, want) {
		t.Errorf("expectations %v, want %v (the failed creates lowered, the status write followed)", pending, want)
	}

	seq := &Sender{Client: newAPIServer(fixedClock, existing()...), Owner: "default/web", Now: sendNow}
	seqOut, seqErr := seq.Send(context.Background(), reqs)
	if !reflect.DeepEqual(sentNames(out), sentNames(seqOut)) || fmt.Sprint(err) != fmt.Sprint(seqErr) {
		t.Errorf("concurrently: %v, %v\none after the other: %v, %v", sentNames(out), err, sentNames(seqOut), seqErr)
	}
}

// failingCreates is a client whose creates of the named objects fail, and
// whose other creates succeed, without a server.
type failingCreates struct {
	client.Client
	fail map[string]bool
}

func (f failingCreates) Create(_ context.Context, obj client.Object, _ ...client.CreateOption) error {
	if f.fail[obj.GetName()] {
		return fmt.Errorf("refused %s", obj.GetName())
	}
	return nil
}

// TestSendConcurrentBatchesSendWhatSequentialSends: for any plan of batches
// of pods (some with a claim) followed by the status write, and any set of
// failing creates, ConcurrentBatches (with any MaxConcurrentCreates) sends
// the same requests, with the same outcomes and error, as sending one after
// the other (the rules of
// requests.Progress).
func TestSendConcurrentBatchesSendWhatSequentialSends(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var reqs []requests.Request
		fail := map[string]bool{}
		action, batches := 0, rapid.IntRange(0, 4).Draw(rt, "batches")
		for batch, size := 0, 1; batch < batches; batch, size = batch+1, size*2 {
			for range size {
				pod := fmt.Sprintf("web-%d", action)
				if rapid.Bool().Draw(rt, "claim of "+pod) {
					reqs = append(reqs, createClaim("data-"+pod, batch, action))
					fail["data-"+pod] = rapid.IntRange(0, 3).Draw(rt, "claim fails "+pod) == 0
				}
				reqs = append(reqs, createPod(pod, batch, action))
				fail[pod] = rapid.IntRange(0, 3).Draw(rt, "fails "+pod) == 0
				action++
			}
		}
		reqs = append(reqs, statusWrite())
		c := failingCreates{Client: newAPIServer(fixedClock, existingCloneSet()), fail: fail}
		seqOut, seqErr := (&Sender{Client: c, Expectations: NewExpectations(0), Owner: "default/web", Now: sendNow}).Send(context.Background(), reqs)
		bound := rapid.IntRange(0, 3).Draw(rt, "max concurrent creates")
		conOut, conErr := (&Sender{Client: c, Expectations: NewExpectations(0), Owner: "default/web", Now: sendNow, ConcurrentBatches: true, MaxConcurrentCreates: bound}).Send(context.Background(), reqs)
		if got, want := sentNames(conOut), sentNames(seqOut); !reflect.DeepEqual(got, want) {
			rt.Fatalf("concurrently sent %v\none after the other %v", got, want)
		}
		if fmt.Sprint(conErr) != fmt.Sprint(seqErr) {
			rt.Fatalf("concurrently: error %v\none after the other: %v", conErr, seqErr)
		}
	})
}

// meetingCreates holds the pod creates after the first until two of them
// are in flight at once (the batch of 2 of a new CloneSet of 3 pods),
// failing the test after gateTimeout otherwise.
type meetingCreates struct {
	client.WithWatch
	t       *testing.T
	mu      sync.Mutex
	creates int
	pair    *gate
}

func (m *meetingCreates) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	if _, pod := obj.(*corev1.Pod); !pod {
		return m.WithWatch.Create(ctx, obj, opts...)
	}
	m.mu.Lock()
	m.creates++
	n := m.creates
	if n == 2 || n == 3 {
		m.pair.arrived++
		if m.pair.arrived == m.pair.want {
			close(m.pair.open)
		}
	}
	m.mu.Unlock()
	if n == 2 || n == 3 {
		select {
		case <-m.pair.open:
		case <-time.After(gateTimeout):
			m.t.Errorf("create %s: the other create of its batch was not in flight with it after %v", obj.GetName(), gateTimeout)
		}
	}
	return m.WithWatch.Create(ctx, obj, opts...)
}

// TestReconcilerSendsBatchesConcurrently: Reconciler.ConcurrentBatches
// reaches the Sender: the two creates of the second batch of a new
// CloneSet of 3 pods are in flight at once.
func TestReconcilerSendsBatchesConcurrently(t *testing.T) {
	now := e2eStart
	api := newAPIServer(func() time.Time { return now }, namespacedCopy(t, "web", 3, inPlace))
	creates := &meetingCreates{WithWatch: api, t: t, pair: &gate{want: 2, open: make(chan struct{})}}
	r := &Reconciler{Client: creates, Now: func() time.Time { return now }, ConcurrentBatches: true}
	reconcileOnce(t, r, "web")
	if creates.creates != 3 {
		t.Errorf("%d pod creates, want 3 (batches of 1 and 2)", creates.creates)
	}
}

// inFlightCreates is a client whose creates take a moment and which
// records how many were in flight at once, at most.
type inFlightCreates struct {
	client.Client
	mu       sync.Mutex
	inFlight int
	most     int
}

func (c *inFlightCreates) Create(_ context.Context, _ client.Object, _ ...client.CreateOption) error {
	c.mu.Lock()
	c.inFlight++
	c.most = max(c.most, c.inFlight)
	c.mu.Unlock()
	time.Sleep(20 * time.Millisecond)
	c.mu.Lock()
	c.inFlight--
	c.mu.Unlock()
	return nil
}

// TestSendBoundsTheCreatesInFlight: with MaxConcurrentCreates, no more
// than that many actions of a batch are in flight at once, and more than
// one still are; every request is sent. Unbounded, the 12 creates of the
// batch (each 20 ms long) overlap beyond the bound and the test fails.
func TestSendBoundsTheCreatesInFlight(t *testing.T) {
	const bound = 3
	var reqs []requests.Request
	for a := range 12 {
		reqs = append(reqs, createPod(fmt.Sprintf("web-%d", a), 0, a))
	}
	c := &inFlightCreates{Client: newAPIServer(fixedClock, existingCloneSet())}
	s := &Sender{Client: c, Owner: "default/web", Now: sendNow, ConcurrentBatches: true, MaxConcurrentCreates: bound}
	out, err := s.Send(context.Background(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range out {
		if !o.Sent {
			t.Errorf("%s not sent", o.Request.Name)
		}
	}
	if c.most > bound || c.most < 2 {
		t.Errorf("%d creates in flight at once at most, want 2 to %d", c.most, bound)
	}
}
