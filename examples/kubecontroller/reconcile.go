package kubecontroller

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/expectations"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/requests"
	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// Reconciler reconciles CloneSets with the library's planner.
type Reconciler struct {
	// Client reads the objects (from the manager's cache) and writes them
	// (to the API server), unless Writer is set.
	Client client.Client
	// Writer, when set, sends the writes instead of Client (see
	// RESTWriter): SetupWithManager makes one from the manager's
	// configuration when Client is the manager's own client (a client of
	// yours keeps getting the writes), except in a dry run.
	Writer *RESTWriter
	// CloneSetGVK is the version the CloneSet is read and patched in:
	// CloneSetV1beta1 (the default when empty) or CloneSetV1alpha1.
	CloneSetGVK schema.GroupVersionKind
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Gates are the feature gates (upstream's defaults when nil). The
	// PreDownloadImageForInPlaceUpdate gate takes effect only with
	// ImagePullJobsServed.
	Gates *model.FeatureGates
	// ImagePullJobsServed says that the API server serves OpenKruise's
	// apps.kruise.io/v1beta1 ImagePullJob. With the
	// PreDownloadImageForInPlaceUpdate gate on, the reconciles then list the
	// CloneSet's ImagePullJobs and send the image pre-download's requests
	// (docs/spec/image-predownload.md); without it the gate is planned as
	// off, as OpenKruise's controller turns it off when its discovery does
	// not find the kind. SetupWithManager sets it from the API server's
	// discovery (and logs once when the gate is on and the kind is not
	// served) and registers the jobs' owner index; set it yourself only
	// for a Client that lists ImagePullJobs, and with UseOwnerIndex only
	// where IndexImagePullJobsByOwner registered the index.
	ImagePullJobsServed bool
	// Expectations are shared by all reconciles (created on first use).
	Expectations *Expectations
	// Logf, when set, receives a line per blocked round, dropped
	// expectation, failed request, refused CloneSet and, in a dry run,
	// request not sent. When nil, the lines go to the logger of the
	// reconcile's context (controller-runtime puts the manager's there).
	Logf func(format string, args ...any)

	// ServerVersion is the API server's version, for the requests
	// ("v1.37.2", as the server reports it); empty = newest.
	ServerVersion string
	// DryRun plans every round and builds its requests, logs each request
	// and sends none: not a write, the status and events included. The
	// expectations record nothing.
	DryRun bool
	// Recorder records the Warning event of a CloneSet the library refuses
	// (ReasonInvalidSpec). SetupWithManager takes the manager's when nil
	// (except in a dry run); without one the refusal is only logged.
	Recorder events.EventRecorder
	// ConcurrentBatches sends the creates of one slow-start batch
	// concurrently, as OpenKruise does (Sender.ConcurrentBatches); off, the
	// zero value, sends every request of a round one after the other, which
	// keeps the order of the writes deterministic. The binary turns it on
	// (--concurrent-batch-creates).
	ConcurrentBatches bool
	// MaxConcurrentCreates bounds the creates of a batch in flight at once
	// with ConcurrentBatches (Sender.MaxConcurrentCreates; 0: the whole
	// batch at once, as OpenKruise does). The binary bounds them at 32
	// (--max-concurrent-creates).
	MaxConcurrentCreates int
	// MaxConcurrentReconciles is how many CloneSets SetupWithManager lets
	// the controller reconcile at once (1 when 0).
	MaxConcurrentReconciles int
	// Trigger, when set, is a source of extra reconciles that
	// SetupWithManager watches: each event asks for a reconcile of the
	// CloneSet it carries (its namespace and name), though nothing changed.
	// Tests use it to see a CloneSet at rest reconciled once more.
	Trigger <-chan event.GenericEvent
	// AfterReconcile, when set, is called at the end of every reconcile
	// with the request, the round (as Last holds it) and what Reconcile
	// returns, from the reconciling goroutine: tests count reconciles,
	// requests and failures with it.
	AfterReconcile func(req reconcile.Request, round Round, res reconcile.Result, err error)

	// UseOwnerIndex lists the CloneSet's pods, claims and revisions
	// through the IndexOwner field index (its own and the orphans) instead
	// of the whole namespace. SetupWithManager registers the index and sets
	// it; set it yourself only when Client reads from a cache where
	// IndexByOwner registered the index.
	UseOwnerIndex bool

	// CopyListed makes List ask for deep copies of the objects it lists
	// (controller-runtime's default). Without it, List lists with
	// client.UnsafeDisableDeepCopy: from a cache (the manager's client,
	// SetupWithManager) the Objects it returns are the cache's own pods,
	// claims, revisions and nodes (each struct a shallow copy whose maps,
	// slices and pointers are the cache's), which saves copying every pod
	// at every reconcile (most of a reconcile at rest's time at 10,000
	// pods). A reconcile only reads them (TestListedObjectsStayUnchanged
	// checks it); set CopyListed when code of yours, a hook around List or
	// Scenario, may write to what List returns. A client that reads from
	// the API server, or a fake one, returns objects of its own either way.
	CopyListed bool

	// Nodes, once it has synced (NodeStore.HasSynced), gives the reconciles
	// the nodes: each CloneSet's Tracker is told only of the node changes
	// since its previous reconcile (of every node when it is new or fell out
	// of the store's change log) instead of a list of every node. Node
	// events ask for no reconcile. SetupWithManager sets it (WatchNodes on
	// the manager's cache); without it, or before it synced, every reconcile
	// lists the nodes.
	Nodes *NodeStore

	// PodEvents, when set, gives the controller its pod events from the
	// handler it shares with the manager's other pod controllers (the
	// binary gives the same one to the PodReadinessReconciler and the
	// LaunchPriorityReconciler); nil: a handler of its own on the pod
	// informer.
	PodEvents *PodEvents

	// VerifyTracker also plans every round with clonesetcore.Plan on the
	// converted objects (with the nodes of Nodes, when they come from it)
	// and fails the round when the Tracker's plan differs (tests turn it on;
	// it costs a whole plan).
	VerifyTracker bool

	// mu guards tracked (the state kept per CloneSet between rounds), Last
	// and the creation of Expectations.
	mu      sync.Mutex
	tracked map[string]*trackedCloneSet

	// Last is the result of the latest reconcile, for tests and tools
	// (meaningful with one worker: with several, it is the result of
	// whichever reconcile ended last).
	Last Round
}

// The event of a refused CloneSet.
const (
	// ReasonInvalidSpec is the reason of the Warning event recorded on a
	// CloneSet the library refuses.
	ReasonInvalidSpec = "InvalidSpec"
	// ActionReconcile is the action of the events the Reconciler records.
	ActionReconcile = "Reconcile"
	// EventSource is the name the Reconciler's events are reported by.
	EventSource = "cloneset-controller"
	// maxEventNote is the longest note of an event (the API refuses notes
	// above 1024 bytes).
	maxEventNote = 1024
)

// trackedCloneSet is what the Reconciler keeps per CloneSet: the objects
// converted in earlier rounds and the incremental planner fed with them,
// where its nodes stand in the NodeStore's change log, and the refusal last
// reported (so that a refused CloneSet gets one event per change, not one
// per reconcile).
type trackedCloneSet struct {
	cache   *ConversionCache
	tracker *clonesetcore.Tracker
	// nodesAt is the NodeStore sequence whose changes the Tracker holds,
	// when nodesFromStore; nodesFromStore is false while the Tracker holds
	// none of the store's nodes (a new CloneSet, or the last reconcile
	// listed the nodes).
	nodesAt        uint64
	nodesFromStore bool
	refused        string
}

// trackedState returns the state kept for the CloneSet owner, creating it
// on first use.
func (r *Reconciler) trackedState(owner string) *trackedCloneSet {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tracked == nil {
		r.tracked = map[string]*trackedCloneSet{}
	}
	st := r.tracked[owner]
	if st == nil {
		st = &trackedCloneSet{cache: NewConversionCache(), tracker: clonesetcore.NewTracker(model.DefaultFeatureGates(), model.ControllerFlags{})}
		r.tracked[owner] = st
	}
	return st
}

// forgetState drops the state kept for the CloneSet owner (the CloneSet is
// gone).
func (r *Reconciler) forgetState(owner string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.tracked, owner)
}

// Round is what one reconcile did.
type Round struct {
	// Blocked lists the expectations that kept the round from planning.
	Blocked []expectations.Expectation
	// Refused is why the library refused the CloneSet (nil when it did
	// not): the round planned nothing and wrote nothing.
	Refused *InvalidCloneSetError
	// Plan is the plan (nil when the round did not plan).
	Plan *clonesetcore.Result
	// Outcomes are the requests of the plan and what became of them (in a
	// dry run, none is sent).
	Outcomes []Outcome
}

// Sent returns the number of requests sent.
func (r Round) Sent() int {
	n := 0
	for _, o := range r.Outcomes {
		if o.Sent {
			n++
		}
	}
	return n
}

func (r *Reconciler) gvk() schema.GroupVersionKind {
	if r.CloneSetGVK.Empty() {
		return CloneSetV1beta1
	}
	return r.CloneSetGVK
}

// gates are the gates the rounds plan with: r.Gates, with
// PreDownloadImageForInPlaceUpdate off unless ImagePullJobs are served.
func (r *Reconciler) gates() model.FeatureGates {
	g := model.DefaultFeatureGates()
	if r.Gates != nil {
		g = *r.Gates
	}
	if !r.ImagePullJobsServed {
		g.PreDownloadImageForInPlaceUpdate = false
	}
	return g
}

func (r *Reconciler) now() time.Time {
	if r.Now == nil {
		return time.Now()
	}
	return r.Now()
}

func (r *Reconciler) logf(ctx context.Context, format string, args ...any) {
	if r.Logf != nil {
		r.Logf(format, args...)
		return
	}
	logr.FromContextOrDiscard(ctx).Info(fmt.Sprintf(format, args...))
}

// expectations returns the shared expectations, creating them.
func (r *Reconciler) expectations() *Expectations {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.Expectations == nil {
		r.Expectations = NewExpectations(0)
	}
	return r.Expectations
}

// SetupWithManager registers the reconciler with a manager: it watches the
// CloneSets (unstructured, of the reconciler's version) and the pods,
// claims and revisions they own, with MaxConcurrentReconciles workers, and
// registers the IndexOwner index (UseOwnerIndex) so that a reconcile reads
// only the CloneSet's objects and the orphans from the cache (when it cannot,
// for example when the API server's discovery fails, it logs why and the
// reconciles list the whole namespace), registers a NodeStore on the cache's
// Node informer (Nodes, unless set) so that a reconcile applies the node
// changes since the previous one instead of listing every node (likewise,
// without it the nodes are listed; the nodes are not watched for reconciles:
// a node change reaches a plan at the CloneSet's next reconcile, as with
// upstream's controller), and
// records its events with the manager's recorder (unless Recorder is set or
// this is a dry run), and sends its writes with a RESTWriter on the
// manager's configuration when Client is the manager's client (unless Writer
// is set or this is a dry run). With Trigger set, its events ask for reconciles too.
// Its reconciles read the manager's cache, and, unless CopyListed is set,
// list its own objects without deep copies (see List).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Recorder == nil && !r.DryRun {
		r.Recorder = mgr.GetEventRecorder(EventSource)
	}
	if r.Writer == nil && !r.DryRun && r.Client == mgr.GetClient() {
		w, err := NewRESTWriter(mgr.GetConfig(), mgr.GetHTTPClient())
		if err != nil {
			return err
		}
		r.Writer = w
	}
	// The index needs the API server's discovery now; without it the
	// reconciles list the whole namespace (and the manager's start will
	// report the server).
	if err := IndexByOwner(context.Background(), mgr.GetFieldIndexer()); err != nil {
		mgr.GetLogger().Info("no owner index: each reconcile lists the whole namespace", "error", err.Error())
	} else {
		r.UseOwnerIndex = true
	}
	// Image pre-download: ImagePullJobs only when the gate is on and the
	// API server serves them (their owner index then too).
	if r.Gates != nil && r.Gates.PreDownloadImageForInPlaceUpdate {
		r.ImagePullJobsServed = ServesImagePullJobs(mgr.GetRESTMapper())
		if !r.ImagePullJobsServed {
			mgr.GetLogger().Info("the PreDownloadImageForInPlaceUpdate gate is on, but the API server does not serve apps.kruise.io/v1beta1 ImagePullJob: no image pre-download (as OpenKruise's controller)")
		} else if r.UseOwnerIndex {
			if err := IndexImagePullJobsByOwner(context.Background(), mgr.GetFieldIndexer()); err != nil {
				return fmt.Errorf("the owner index of ImagePullJobs: %w", err)
			}
		}
	}
	// Likewise the Node informer: without it the reconciles list the nodes.
	if r.Nodes == nil {
		if nodes, err := WatchNodes(context.Background(), mgr.GetCache()); err != nil {
			mgr.GetLogger().Info("no node store: each reconcile lists the nodes", "error", err.Error())
		} else {
			r.Nodes = nodes
		}
	}
	cs := &unstructured.Unstructured{}
	cs.SetGroupVersionKind(r.gvk())
	b := ctrl.NewControllerManagedBy(mgr).
		For(cs)
	// As Owns(...), without a REST mapping per event.
	if r.PodEvents != nil {
		b = b.WatchesRawSource(r.PodEvents.Source(newOwnerHandler()))
	} else {
		b = b.Watches(&corev1.Pod{}, newOwnerHandler())
	}
	b = b.Watches(&corev1.PersistentVolumeClaim{}, newOwnerHandler()).
		Watches(&appsv1.ControllerRevision{}, newOwnerHandler()).
		WithOptions(controller.Options{MaxConcurrentReconciles: r.MaxConcurrentReconciles})
	if r.Trigger != nil {
		b = b.WatchesRawSource(source.Channel(r.Trigger, &handler.EnqueueRequestForObject{}))
	}
	return b.Complete(r)
}

// Reconcile runs one round for the CloneSet req names: read, check the
// expectations, plan, send, and requeue as the plan asks. A round whose
// only failed request is the status write refused with a conflict (the
// cache showed an older CloneSet than the server's) is no error: the newer
// version's event reconciles again. A CloneSet the
// library refuses gets a Warning event (once per change of it) and nothing
// else: no write, no error, no requeue; its next change reconciles again.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (res reconcile.Result, err error) {
	var round Round
	defer func() {
		r.mu.Lock()
		r.Last = round
		r.mu.Unlock()
		if r.AfterReconcile != nil {
			r.AfterReconcile(req, round, res, err)
		}
	}()
	exp := r.expectations()
	now := r.now()
	owner := req.String()

	cs := &unstructured.Unstructured{}
	cs.SetGroupVersionKind(r.gvk())
	if err := r.Client.Get(ctx, req.NamespacedName, cs); err != nil {
		if apierrors.IsNotFound(err) {
			exp.Do(func(s *expectations.Store) { s.Forget(owner) })
			r.forgetState(owner)
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	// The nodes come from the store once it holds the informer's nodes;
	// until then they are listed.
	store := r.Nodes
	if store != nil && !store.HasSynced() {
		store = nil
	}
	objs, err := r.list(ctx, cs, store == nil)
	if err != nil {
		return reconcile.Result{}, err
	}

	// Writes of earlier rounds the cache does not show yet block this one.
	verdict := exp.Satisfied(owner, now, Lookup(objs))
	for _, e := range verdict.Dropped {
		r.logf(ctx, "%s: gave up waiting for the %s of %s", owner, e.Op, e.Object)
	}
	if !verdict.Satisfied {
		round.Blocked = verdict.Pending
		r.logf(ctx, "%s: waiting for the cache to show %d write(s), first %s of %s", owner, len(verdict.Pending), verdict.Pending[0].Op, verdict.Pending[0].Object)
		return reconcile.Result{RequeueAfter: verdict.RequeueAfter}, nil
	}

	// Only the objects that changed since the last round are converted and
	// read again: the Tracker plans from its records of the others.
	st := r.trackedState(owner)
	gates := r.gates()
	scn, err := Scenario(objs, ScenarioOptions{Now: now, Gates: &gates, Cache: st.cache})
	var invalid *InvalidCloneSetError
	switch {
	case errors.As(err, &invalid):
		round.Refused = invalid
		r.refuse(ctx, cs, st, invalid)
		return reconcile.Result{}, nil
	case err != nil:
		return reconcile.Result{}, reconcile.TerminalError(err) // a revision whose data does not decode
	}
	st.refused = ""
	if store == nil {
		st.tracker.Sync(scn)
		st.nodesFromStore = false
	} else {
		// scn.Nodes: every node when r.VerifyTracker (Plan on the same
		// objects), none otherwise (the requests do not read them).
		scn.Nodes = st.syncWithStore(scn, store, r.VerifyTracker)
	}
	plan, err := st.tracker.Plan(now)
	if err != nil {
		return reconcile.Result{}, err
	}
	if r.VerifyTracker {
		if err := samePlan(scn, plan); err != nil {
			return reconcile.Result{}, fmt.Errorf("%s: %w", owner, err)
		}
	}
	round.Plan = plan
	// The requests for the server's version (from 1.32 resource changes go
	// to the pods/resize subresource).
	reqs, err := requests.BuildWithOptions(scn, plan, requests.Options{ServerVersion: r.ServerVersion})
	if err != nil {
		return reconcile.Result{}, fmt.Errorf("%s: requests of the plan: %w", owner, err)
	}
	if r.DryRun {
		round.Outcomes = r.dryRun(ctx, owner, reqs)
		return reconcile.Result{RequeueAfter: plan.RequeueAfter()}, nil
	}
	sender := &Sender{Client: r.Client, Writer: r.Writer, CloneSetGVK: r.gvk(), Expectations: exp, Owner: owner, Now: now, ConcurrentBatches: r.ConcurrentBatches, MaxConcurrentCreates: r.MaxConcurrentCreates}
	outcomes, err := sender.Send(ctx, reqs)
	round.Outcomes = outcomes
	for _, o := range outcomes {
		if o.Err != nil && o.Request.Tolerated {
			r.logf(ctx, "%s: %v (the round goes on, as OpenKruise's)", owner, o.Err)
		}
	}
	if err != nil && onlyStatusConflict(outcomes) {
		// The round read a CloneSet older than the server's (another
		// writer changed it since the cache showed it; this controller's
		// own writes of it are awaited as expectations): the newer
		// version's watch event reconciles again, and that round writes
		// the status from it. Not an error: no backoff, no error log.
		r.logf(ctx, "%s: the status write met a newer CloneSet (conflict); its event reconciles again", owner)
		return reconcile.Result{RequeueAfter: plan.RequeueAfter()}, nil
	}
	if err != nil {
		r.logf(ctx, "%s: %v", owner, err)
		return reconcile.Result{}, err
	}
	return reconcile.Result{RequeueAfter: plan.RequeueAfter()}, nil
}

// onlyStatusConflict reports whether the one failed request of a round is
// its CloneSet status write, refused with a conflict (its resourceVersion
// precondition).
func onlyStatusConflict(outcomes []Outcome) bool {
	conflict := false
	for _, o := range outcomes {
		switch {
		case o.Err == nil:
		case o.Request.IsStatusWrite() && apierrors.IsConflict(o.Err):
			conflict = true
		default:
			return false
		}
	}
	return conflict
}

// dryRun logs the requests of a round and sends none.
func (r *Reconciler) dryRun(ctx context.Context, owner string, reqs []requests.Request) []Outcome {
	if len(reqs) == 0 {
		r.logf(ctx, "%s: dry run: nothing to send", owner)
	}
	out := make([]Outcome, len(reqs))
	for i, q := range reqs {
		out[i] = Outcome{Request: q}
		r.logf(ctx, "%s: dry run: would send %s", owner, describe(q))
	}
	return out
}

// refuse reports a CloneSet the library refuses: a log line and a Warning
// event on the CloneSet (in a dry run, the log line only), once for each
// generation and reason.
func (r *Reconciler) refuse(ctx context.Context, cs *unstructured.Unstructured, st *trackedCloneSet, invalid *InvalidCloneSetError) {
	reason := strings.Join(invalid.Problems, "; ")
	key := fmt.Sprintf("%s/%d/%s", cs.GetUID(), cs.GetGeneration(), reason)
	if st.refused == key {
		return
	}
	st.refused = key
	note := clipNote("refused, nothing written: " + reason)
	r.logf(ctx, "%s/%s: %s", invalid.Namespace, invalid.Name, note)
	switch {
	case r.DryRun:
		r.logf(ctx, "%s/%s: dry run: would record a Warning event %s", invalid.Namespace, invalid.Name, ReasonInvalidSpec)
	case r.Recorder != nil:
		r.Recorder.Eventf(cs, nil, corev1.EventTypeWarning, ReasonInvalidSpec, ActionReconcile, "%s", note)
	}
}

// syncWithStore brings the Tracker to the CloneSet's objects of scn and the
// store's nodes: every node when the Tracker holds none of the store's or
// its sequence left the change log, the changes since its sequence
// otherwise. It returns every node of the store at the sequence the Tracker
// is then at when snapshot is set or every node was read (nil otherwise).
func (st *trackedCloneSet) syncWithStore(scn *model.Scenario, store *NodeStore, snapshot bool) []*model.Node {
	read := store.read(st.nodesAt, st.nodesFromStore, snapshot)
	if read.all {
		scn.Nodes = read.nodes
		st.tracker.Sync(scn)
	} else {
		st.tracker.SyncExceptNodes(scn)
		for _, c := range read.changes {
			if c.node == nil {
				st.tracker.DeleteNode(c.name)
			} else {
				st.tracker.SetNode(c.node)
			}
		}
	}
	st.nodesAt, st.nodesFromStore = read.at, true
	return read.nodes
}

// clipNote cuts a note to maxEventNote bytes with "..." at the end, at a
// character boundary (a name or value cut inside a UTF-8 sequence would make
// the note invalid text).
func clipNote(note string) string {
	if len(note) <= maxEventNote {
		return note
	}
	cut := maxEventNote - len("...")
	for cut > 0 && !utf8.RuneStart(note[cut]) {
		cut--
	}
	return note[:cut] + "..."
}

// samePlan checks that plan, from the Tracker, is what clonesetcore.Plan
// gives on the scenario.
func samePlan(scn *model.Scenario, plan *clonesetcore.Result) error {
	want, err := clonesetcore.Plan(scn)
	if err != nil {
		return err
	}
	a, _ := want.JSON()
	b, _ := plan.JSON()
	if !bytes.Equal(a, b) {
		return fmt.Errorf("the Tracker's plan differs from Plan on the same objects:\n%s\n%s", a, b)
	}
	return nil
}

// List reads the CloneSet's objects: its pods, claims and revisions (those
// it controls, and orphans; revisions only when its selector matches them)
// and the nodes. With UseOwnerIndex the pods, claims and revisions come
// through the IndexOwner index (the CloneSet's uid, then the orphans);
// without it, from a list of the whole namespace. The nodes are all listed,
// unless Nodes has synced: a reconcile then takes them from the store, and
// List leaves Objects.Nodes empty.
//
// Unless CopyListed is set, what List returns from a cache is the cache's
// own: read-only. A caller must never write to it (a label, an annotation,
// a finalizer, a container, a condition, the time a pointer holds, a
// quantity's cached text) nor hand it to code that does (a client's Update
// or Patch fills in the object it is given): the informer and every other
// reader of the cache would see the write. Deep copy an object first
// (DeepCopy) to change it. The slices of Objects and the structs in them
// are the caller's; what they point to is not.
func (r *Reconciler) List(ctx context.Context, cs *unstructured.Unstructured) (Objects, error) {
	return r.list(ctx, cs, r.Nodes == nil || !r.Nodes.HasSynced())
}

// list is List, listing the nodes when withNodes is set.
func (r *Reconciler) list(ctx context.Context, cs *unstructured.Unstructured, withNodes bool) (Objects, error) {
	objs := Objects{CloneSet: cs}
	ns, uid := cs.GetNamespace(), string(cs.GetUID())
	// copies is empty unless CopyListed: every list then reads the cache's
	// own objects.
	copies := []client.ListOption{client.UnsafeDisableDeepCopy}
	if r.CopyListed {
		copies = nil
	}
	var pods, orphanPods corev1.PodList
	if err := r.listOwned(ctx, ns, uid, copies, &pods, &orphanPods, func() { pods.Items = append(pods.Items, orphanPods.Items...) }); err != nil {
		return objs, err
	}
	objs.Pods = pods.Items
	var pvcs, orphanPVCs corev1.PersistentVolumeClaimList
	if err := r.listOwned(ctx, ns, uid, copies, &pvcs, &orphanPVCs, func() { pvcs.Items = append(pvcs.Items, orphanPVCs.Items...) }); err != nil {
		return objs, err
	}
	objs.PVCs = pvcs.Items
	var revs, orphanRevs appsv1.ControllerRevisionList
	if err := r.listOwned(ctx, ns, uid, copies, &revs, &orphanRevs, func() { revs.Items = append(revs.Items, orphanRevs.Items...) }); err != nil {
		return objs, err
	}
	// The selector is read (the CloneSet decoded) only for an orphan
	// revision, which is rare.
	var sel *model.LabelSelector
	selRead := false
	for _, rev := range revs.Items {
		ref := controllerOf(rev.OwnerReferences)
		if ref == nil && !selRead {
			sel, selRead = selectorOf(cs), true
		}
		switch {
		case ref != nil && ref.UID == cs.GetUID() && ref.Kind == "CloneSet":
		case ref == nil && sel != nil && sel.Matches(rev.Labels):
		default:
			continue
		}
		objs.Revisions = append(objs.Revisions, rev)
	}
	if r.gates().PreDownloadImageForInPlaceUpdate {
		jobs, err := r.listImagePullJobs(ctx, ns, uid, copies)
		if err != nil {
			return objs, err
		}
		objs.ImagePullJobs = jobs
	}
	if !withNodes {
		return objs, nil
	}
	var nodes corev1.NodeList
	if err := r.Client.List(ctx, &nodes, copies...); err != nil {
		return objs, err
	}
	objs.Nodes = nodes.Items
	return objs, nil
}

// selectorOf reads the CloneSet's selector (nil when it has none or it
// does not parse).
func selectorOf(cs *unstructured.Unstructured) *model.LabelSelector {
	m, err := CloneSetFromUnstructured(cs)
	if err != nil {
		return nil
	}
	return m.Spec.Selector
}

// Lookup tells the expectations what the listed objects show: the pods,
// claims and revisions, and the CloneSet itself. Its map of the owned
// objects is built at the first question about one: a CloneSet at rest has
// no expectation, or only one of its own status write, and its reconcile
// builds none.
func Lookup(objs Objects) expectations.Lookup {
	var shown map[expectations.Object]expectations.Observation
	build := func() {
		shown = make(map[expectations.Object]expectations.Observation, len(objs.Pods)+len(objs.PVCs)+len(objs.Revisions))
		see := func(kind string, o metav1.Object) {
			shown[expectations.Object{Kind: kind, Name: o.GetName()}] = expectations.Observation{Present: true, Terminating: o.GetDeletionTimestamp() != nil, ResourceVersion: o.GetResourceVersion()}
		}
		for i := range objs.Pods {
			see(KindPod, &objs.Pods[i])
		}
		for i := range objs.PVCs {
			see(KindPVC, &objs.PVCs[i])
		}
		for i := range objs.Revisions {
			see(KindRevision, &objs.Revisions[i])
		}
	}
	return func(o expectations.Object) expectations.Observation {
		if o.Kind == KindCloneSet {
			// The round's own CloneSet, without building the map.
			if cs := objs.CloneSet; cs != nil && cs.GetName() == o.Name {
				return expectations.Observation{Present: true, Terminating: cs.GetDeletionTimestamp() != nil, ResourceVersion: cs.GetResourceVersion()}
			}
			return expectations.Observation{}
		}
		if shown == nil {
			build()
		}
		return shown[o]
	}
}

var _ reconcile.Reconciler = (*Reconciler)(nil)

func controllerOf(refs []metav1.OwnerReference) *metav1.OwnerReference {
	for i := range refs {
		if refs[i].Controller != nil && *refs[i].Controller {
			return &refs[i]
		}
	}
	return nil
}
