package kubecontroller

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// PodEvents hands the events of a manager cache's pod informer to every
// controller that watches pods through it (Source), from one handler
// registered on the informer. Each handler an informer has is a listener
// of its own: two goroutines, and every event handed from the informer to
// one and from it to the other; the CloneSet Reconciler, the
// PodReadinessReconciler and the LaunchPriorityReconciler each watching
// pods on their own made three listeners, six hand-offs per pod event, in a
// rollout most of the Go scheduler's share of the controller's CPU. With
// PodEvents they share one listener and each event is handed on twice.
//
// The controllers get the same events as from their own handlers: the
// informer's initial list (IsInInitialList) and every later add, update
// and delete, a deletion seen late as its last state, each once; a
// controller that starts after the others first gets a create event
// (IsInInitialList) for each pod the informer holds, as last handed on
// (a change the informer has stored and not yet handed on follows). Its
// WaitForSync returns once the informer holds its initial list and the
// shared handler has handed it on, as the Kind source's waits for its own
// handler. PodEvents keeps a pointer to each pod it handed on for that.
// The handlers of the controllers run one after the other,
// in the order they started, on the informer's listener goroutine: each
// must be quick (an enqueue), as controller-runtime asks of every handler.
//
// The zero value is not usable: NewPodEvents.
type PodEvents struct {
	cache cache.Cache

	mu           sync.Mutex
	informer     cache.Informer // nil until the first Source subscribes
	registration toolscache.ResourceEventHandlerRegistration
	subs         []*podSubscription
	// handed is every pod the handler has handed on and not yet as
	// deleted, as last handed on: what a new subscription is given as
	// held. (The informer's store may be ahead of the handler: a change
	// is stored before it is handed on.)
	handed map[types.NamespacedName]*corev1.Pod
}

// NewPodEvents returns the PodEvents of the pod informer of c (a manager's
// cache: mgr.GetCache()). Nothing is registered before the first Source
// starts.
func NewPodEvents(c cache.Cache) *PodEvents {
	return &PodEvents{cache: c, handed: map[types.NamespacedName]*corev1.Pod{}}
}

// podSubscription is one controller's handler, predicates and queue.
type podSubscription struct {
	ctx        context.Context
	handler    handler.EventHandler
	predicates []predicate.Predicate
	queue      workqueue.TypedRateLimitingInterface[reconcile.Request]
}

// Source is a source for a controller (builder's WatchesRawSource) that
// gives h the pod events that pass every predicate. As controller-runtime's
// Kind source, it gets the informer in the background (trying again every
// informerRetry while the API server does not serve pods, until the
// controller stops) and waits for the informer's initial list before the
// controller's workers start.
func (p *PodEvents) Source(h handler.EventHandler, predicates ...predicate.Predicate) source.SyncingSource {
	return &podSource{events: p, handler: h, predicates: predicates, subscribed: make(chan struct{})}
}

// informerRetry is how long a Source waits before it asks for the pod
// informer again.
const informerRetry = time.Second

// podSource is one controller's Source.
type podSource struct {
	events     *PodEvents
	handler    handler.EventHandler
	predicates []predicate.Predicate
	subscribed chan struct{} // closed once subscribed, or given up (err)
	err        error
}

// Start subscribes the controller's queue, in the background: see
// PodEvents.subscribe.
func (s *podSource) Start(ctx context.Context, queue workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
	sub := &podSubscription{ctx: ctx, handler: s.handler, predicates: s.predicates, queue: queue}
	go func() {
		defer close(s.subscribed)
		for {
			err := s.events.subscribe(ctx, sub)
			if err == nil {
				return
			}
			log.FromContext(ctx).Error(err, "no pod events yet; trying again", "in", informerRetry)
			select {
			case <-ctx.Done():
				s.err = fmt.Errorf("%w (and the controller stopped)", err)
				return
			case <-time.After(informerRetry):
			}
		}
	}()
	return nil
}

// subscribe adds sub: it registers the one handler on the pod informer
// when sub is the first, else gives sub a create event for each pod the
// handler has handed on (and not as deleted) so far.
func (p *PodEvents) subscribe(ctx context.Context, sub *podSubscription) error {
	p.mu.Lock()
	if p.informer == nil {
		inf, err := p.cache.GetInformer(ctx, &corev1.Pod{}, cache.BlockUntilSynced(false))
		if err != nil {
			p.mu.Unlock()
			return fmt.Errorf("the pod informer: %w", err)
		}
		// sub is subscribed before the handler is registered, and the
		// lock released: an informer may hand the pods it holds to the
		// handler before AddEventHandler returns (NewDirectInformer
		// does), and the handler takes the lock. A subscription arriving
		// meanwhile is given what the handler has handed on so far and
		// gets the rest from it.
		p.informer = inf
		p.subs = append(p.subs, sub)
		p.mu.Unlock()
		reg, err := inf.AddEventHandler(toolscache.ResourceEventHandlerDetailedFuncs{
			AddFunc: p.add, UpdateFunc: p.update, DeleteFunc: p.delete,
		})
		p.mu.Lock()
		defer p.mu.Unlock()
		if err != nil {
			// (The informer has stopped: the cache stops.) The next
			// subscription registers a handler again, for every one. A
			// new slice: the handlers read the old one without the lock.
			p.informer = nil
			p.subs = slices.DeleteFunc(slices.Clone(p.subs), func(s *podSubscription) bool { return s == sub })
			return fmt.Errorf("a handler on the pod informer: %w", err)
		}
		p.registration = reg
		return nil
	}
	defer p.mu.Unlock()
	// The handler hands every change on after recording it in p.handed,
	// under p.mu, and to the subscriptions of that moment: a change it
	// recorded before this is in what sub is given, a change after
	// reaches sub from the handler; each exactly once.
	for _, pod := range p.handed {
		sub.create(pod, true)
	}
	p.subs = append(p.subs, sub)
	return nil
}

// WaitForSync returns once the source is subscribed and the pod informer
// holds its initial list, or with an error when ctx ends first.
func (s *podSource) WaitForSync(ctx context.Context) error {
	select {
	case <-s.subscribed:
	case <-ctx.Done():
		return fmt.Errorf("the pod events' source did not subscribe: %w", ctx.Err())
	}
	if s.err != nil {
		return s.err
	}
	// As controller-runtime's Kind source: the informer's initial list,
	// then the handler's (every pod of it handed on, so given to this
	// subscription or handed to it).
	if !toolscache.WaitForCacheSync(ctx.Done(), s.events.synced) {
		return fmt.Errorf("the pod informer did not sync: %w", ctx.Err())
	}
	return nil
}

// synced reports whether the informer holds its initial list and the
// handler has handed it on.
func (p *PodEvents) synced() bool {
	p.mu.Lock()
	inf, reg := p.informer, p.registration
	p.mu.Unlock()
	return inf != nil && reg != nil && inf.HasSynced() && reg.HasSynced()
}

// String names the source in controller-runtime's logs.
func (s *podSource) String() string { return "pod events (shared)" }

// record notes pod as handed on (nil: deleted) and returns the
// subscriptions to hand it to, under the lock.
func (p *PodEvents) record(key types.NamespacedName, pod *corev1.Pod) []*podSubscription {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pod == nil {
		delete(p.handed, key)
	} else {
		p.handed[key] = pod
	}
	return p.subs
}

func (p *PodEvents) add(obj any, isInInitialList bool) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	for _, s := range p.record(client.ObjectKeyFromObject(pod), pod) {
		s.create(pod, isInInitialList)
	}
}

func (p *PodEvents) update(oldObj, newObj any) {
	oldPod, ok1 := oldObj.(*corev1.Pod)
	newPod, ok2 := newObj.(*corev1.Pod)
	if !ok1 || !ok2 {
		return
	}
	e := event.UpdateEvent{ObjectOld: oldPod, ObjectNew: newPod}
	for _, s := range p.record(client.ObjectKeyFromObject(newPod), newPod) {
		if s.passes(func(pr predicate.Predicate) bool { return pr.Update(e) }) {
			s.handler.Update(s.ctx, e, s.queue)
		}
	}
}

func (p *PodEvents) delete(obj any) {
	e := event.DeleteEvent{}
	if tomb, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		e.DeleteStateUnknown = true
		obj = tomb.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	e.Object = pod
	for _, s := range p.record(client.ObjectKeyFromObject(pod), nil) {
		if s.passes(func(pr predicate.Predicate) bool { return pr.Delete(e) }) {
			s.handler.Delete(s.ctx, e, s.queue)
		}
	}
}

// create hands the subscription a create event of pod.
func (s *podSubscription) create(pod client.Object, isInInitialList bool) {
	e := event.CreateEvent{Object: pod, IsInInitialList: isInInitialList}
	if s.passes(func(pr predicate.Predicate) bool { return pr.Create(e) }) {
		s.handler.Create(s.ctx, e, s.queue)
	}
}

// passes reports whether every predicate of the subscription lets the
// event through.
func (s *podSubscription) passes(lets func(predicate.Predicate) bool) bool {
	for _, pr := range s.predicates {
		if !lets(pr) {
			return false
		}
	}
	return true
}
