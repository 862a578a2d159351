package kubecontroller

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// oneInformer is a cache.Cache that has the pod informer alone.
type oneInformer struct {
	cache.Cache
	pods toolscache.SharedIndexInformer
}

func (o oneInformer) GetInformer(_ context.Context, obj client.Object, _ ...cache.InformerGetOption) (cache.Informer, error) {
	if _, ok := obj.(*corev1.Pod); !ok || o.pods == nil {
		return nil, fmt.Errorf("no informer of %T", obj)
	}
	return o.pods, nil
}

// podEventLog is a handler that writes down every event it gets.
type podEventLog struct {
	mu     sync.Mutex
	events []string
}

func (l *podEventLog) record(format string, args ...any) {
	l.mu.Lock()
	l.events = append(l.events, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

func (l *podEventLog) seen() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events)
}

func (l *podEventLog) handler() handler.EventHandler {
	return handler.Funcs{
		CreateFunc: func(_ context.Context, e event.CreateEvent, _ workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			l.record("create %s rv %s initial %t", e.Object.GetName(), e.Object.GetResourceVersion(), e.IsInInitialList)
		},
		UpdateFunc: func(_ context.Context, e event.UpdateEvent, _ workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			l.record("update %s rv %s to %s", e.ObjectNew.GetName(), e.ObjectOld.GetResourceVersion(), e.ObjectNew.GetResourceVersion())
		},
		DeleteFunc: func(_ context.Context, e event.DeleteEvent, _ workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			l.record("delete %s unknown %t", e.Object.GetName(), e.DeleteStateUnknown)
		},
	}
}

func eventPod(name, rv string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, ResourceVersion: rv}}
}

// TestPodEventsAsTheInformersOwnHandlers: a controller watching pods
// through PodEvents gets the events a handler of its own on the informer
// (controller-runtime's Informer source, the reference) gets: the initial
// list, adds, updates and deletes, the same predicates applied; a
// controller starting late first gets the pods held, as a late handler
// does.
func TestPodEventsAsTheInformersOwnHandlers(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	w := watch.NewFake()
	inf := toolscache.NewSharedIndexInformer(&toolscache.ListWatch{
		ListFunc: func(metav1.ListOptions) (runtime.Object, error) {
			return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: []corev1.Pod{*eventPod("a", "1"), *eventPod("b", "1")}}, nil
		},
		WatchFunc: func(o metav1.ListOptions) (watch.Interface, error) {
			if o.SendInitialEvents != nil && *o.SendInitialEvents {
				return nil, fmt.Errorf("no list by watch here: list") // the reflector lists then
			}
			return w, nil
		},
	}, &corev1.Pod{}, 0, toolscache.Indexers{})
	events := NewPodEvents(oneInformer{pods: inf})
	notC := predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetName() != "c" })
	queue := func() workqueue.TypedRateLimitingInterface[reconcile.Request] {
		q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
		t.Cleanup(q.ShutDown)
		return q
	}
	type pair struct {
		shared, own *podEventLog
		src         source.SyncingSource
	}
	start := func(preds ...predicate.Predicate) pair {
		p := pair{shared: &podEventLog{}, own: &podEventLog{}}
		p.src = events.Source(p.shared.handler(), preds...)
		if err := p.src.Start(ctx, queue()); err != nil {
			t.Fatal(err)
		}
		own := &source.Informer{Informer: inf, Handler: p.own.handler(), Predicates: preds}
		if err := own.Start(ctx, queue()); err != nil {
			t.Fatal(err)
		}
		return p
	}
	early, filtered := start(), start(notC)
	go inf.Run(ctx.Done())
	for _, p := range []pair{early, filtered} {
		if err := p.src.WaitForSync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	w.Add(eventPod("c", "2"))
	w.Modify(eventPod("a", "3"))
	w.Delete(eventPod("b", "4"))
	waitFor(t, "the early controller's four events", func() bool { return len(early.shared.seen()) >= 5 && len(early.own.seen()) >= 5 })
	late := start()
	if err := late.src.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	w.Modify(eventPod("c", "5"))
	waitFor(t, "every controller's last event", func() bool {
		return len(early.own.seen()) == 6 && len(filtered.own.seen()) == 4 && len(late.own.seen()) == 3 &&
			len(early.shared.seen()) == 6 && len(filtered.shared.seen()) == 4 && len(late.shared.seen()) == 3
	})
	for name, p := range map[string]pair{"early": early, "with a predicate": filtered, "late": late} {
		shared, own := p.shared.seen(), p.own.seen()
		if name == "late" { // the held pods come in the store's order
			slices.Sort(shared[:2])
			slices.Sort(own[:2])
		}
		if !slices.Equal(shared, own) {
			t.Errorf("the %s controller got through PodEvents:\n  %v\nfrom a handler of its own:\n  %v", name, shared, own)
		}
	}
	if want := []string{"create a rv 1 initial true", "create b rv 1 initial true", "create c rv 2 initial false",
		"update a rv 1 to 3", "delete b unknown false", "update c rv 2 to 5"}; !slices.Equal(early.own.seen(), want) {
		t.Errorf("the reference got %v, want %v", early.own.seen(), want)
	}
}

// TestPodEventsWithoutPods: a source whose informer the cache cannot give
// (the API server does not serve pods yet) does not fail its start; it
// tries again, and its WaitForSync fails once the controller stops, as
// controller-runtime's Kind source.
func TestPodEventsWithoutPods(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	src := NewPodEvents(oneInformer{}).Source(handler.Funcs{})
	if err := src.Start(ctx, nil); err != nil {
		t.Fatalf("start: %v, want nil", err)
	}
	time.AfterFunc(100*time.Millisecond, cancel)
	if err := src.WaitForSync(t.Context()); err == nil || !strings.Contains(err.Error(), "the pod informer") {
		t.Errorf("WaitForSync: %v, want the informer's error", err)
	}
}

// TestPodEventsLateDeletion: a deletion the informer saw only as its last
// known state reaches the controllers as a deletion whose state is
// unknown, as from a handler of its own.
func TestPodEventsLateDeletion(t *testing.T) {
	events := NewPodEvents(nil)
	log := &podEventLog{}
	events.subs = []*podSubscription{{ctx: t.Context(), handler: log.handler()}}
	events.delete(toolscache.DeletedFinalStateUnknown{Key: "default/a", Obj: eventPod("a", "7")})
	events.delete("not a pod")
	if want := []string{"delete a unknown true"}; !slices.Equal(log.seen(), want) {
		t.Errorf("got %v, want %v", log.seen(), want)
	}
}

// podView is what a controller knows of the pods from its events alone:
// each pod's resourceVersion. apply returns what in an event contradicts
// it (a create of a pod it has, a delete of one it has not, an update of
// one it has not or from another resourceVersion).
type podView map[string]string

func (v podView) apply(kind, name, oldRV, newRV string) string {
	rv, held := v[name]
	switch {
	case kind == "create" && held:
		return fmt.Sprintf("create of %s, held at rv %s", name, rv)
	case kind == "delete" && !held: // (its object is its last state: a later resourceVersion)
		return fmt.Sprintf("delete of %s, not held", name)
	case kind == "delete":
		delete(v, name)
	case kind == "update" && (!held || rv != oldRV):
		return fmt.Sprintf("update of %s from rv %s, held %t at rv %q", name, oldRV, held, rv)
	default:
		v[name] = newRV
	}
	return ""
}

// viewLog is a handler that keeps a podView and the contradictions met.
type viewLog struct {
	mu     sync.Mutex
	view   podView
	wrongs []string
}

func (l *viewLog) apply(kind, name, oldRV, newRV string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if wrong := l.view.apply(kind, name, oldRV, newRV); wrong != "" {
		l.wrongs = append(l.wrongs, wrong)
	}
}

func (l *viewLog) handler() handler.EventHandler {
	return handler.Funcs{
		CreateFunc: func(_ context.Context, e event.CreateEvent, _ workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			l.apply("create", e.Object.GetName(), "", e.Object.GetResourceVersion())
		},
		UpdateFunc: func(_ context.Context, e event.UpdateEvent, _ workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			l.apply("update", e.ObjectNew.GetName(), e.ObjectOld.GetResourceVersion(), e.ObjectNew.GetResourceVersion())
		},
		DeleteFunc: func(_ context.Context, e event.DeleteEvent, _ workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			l.apply("delete", e.Object.GetName(), e.Object.GetResourceVersion(), "")
		},
	}
}

// TestPodEventsEachOnce: controllers subscribing to PodEvents at any
// point of a stream of pod changes, on client-go's informer and on a
// direct one, each get every pod once and then each of its changes once,
// in order: the view each builds from its events alone never contradicts
// them, and ends as the informer's store. (When a late subscription was
// given the pods the informer had stored, this failed at once: a pod
// stored and not yet handed on came twice; CI saw it as
// TestPodEventsAsTheInformersOwnHandlers timing out under the race
// detector.)
func TestPodEventsEachOnce(t *testing.T) {
	informers := map[string]func(toolscache.ListerWatcher) toolscache.SharedIndexInformer{
		"client-go's": func(lw toolscache.ListerWatcher) toolscache.SharedIndexInformer {
			return toolscache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, toolscache.Indexers{})
		},
		"direct": func(lw toolscache.ListerWatcher) toolscache.SharedIndexInformer {
			return NewDirectInformer(lw, &corev1.Pod{}, 0, toolscache.Indexers{})
		},
	}
	for name, newInformer := range informers {
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(rt *rapid.T) {
				names := []string{"a", "b", "c", "d"}
				store := podView{}
				rv := 1
				var listed []corev1.Pod
				for _, n := range names {
					if !rapid.Bool().Draw(rt, "listed "+n) {
						continue
					}
					listed = append(listed, *eventPod(n, "1"))
					store[n] = "1"
				}
				w := watch.NewFake()
				inf := newInformer(&toolscache.ListWatch{
					ListFunc: func(metav1.ListOptions) (runtime.Object, error) {
						return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: listed}, nil
					},
					WatchFunc: func(o metav1.ListOptions) (watch.Interface, error) {
						if o.SendInitialEvents != nil && *o.SendInitialEvents {
							return nil, fmt.Errorf("no list by watch here: list")
						}
						return w, nil
					},
				})
				ctx, cancel := context.WithCancel(t.Context())
				var running sync.WaitGroup
				defer func() { cancel(); running.Wait() }()
				events := NewPodEvents(oneInformer{pods: inf})
				var logs []*viewLog
				subscribe := func() {
					l := &viewLog{view: podView{}}
					logs = append(logs, l)
					s := events.Source(l.handler())
					if err := s.Start(ctx, nil); err != nil {
						rt.Fatal(err)
					}
					<-s.(*podSource).subscribed
				}
				subscribe()
				running.Go(func() { inf.RunWithContext(ctx) })
				for i, steps := 0, rapid.IntRange(0, 12).Draw(rt, "steps"); i < steps; i++ {
					if rapid.IntRange(0, 3).Draw(rt, "subscribe") == 0 {
						subscribe()
						continue
					}
					n := rapid.SampledFrom(names).Draw(rt, "pod")
					rv++
					pod := eventPod(n, fmt.Sprint(rv))
					switch _, held := store[n]; {
					case !held:
						w.Add(pod)
						store[n] = pod.ResourceVersion
					case rapid.Bool().Draw(rt, "delete"):
						w.Delete(pod)
						delete(store, n)
					default:
						w.Modify(pod)
						store[n] = pod.ResourceVersion
					}
				}
				for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
					done, timedOut := true, time.Now().After(deadline)
					for i, l := range logs {
						l.mu.Lock()
						wrongs, view := slices.Clone(l.wrongs), maps.Clone(l.view)
						l.mu.Unlock()
						if len(wrongs) > 0 {
							rt.Fatalf("controller %d of %d: %v", i, len(logs), wrongs)
						}
						if !maps.Equal(view, store) {
							done = false
							if timedOut {
								rt.Errorf("controller %d of %d ends with %v, the store with %v", i, len(logs), view, store)
							}
						}
					}
					if done || timedOut {
						break
					}
				}
			})
		})
	}
}
