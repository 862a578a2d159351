package kubecontroller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// scriptedPods is a ListerWatcher of pods a test changes: each change has
// the next resourceVersion and goes to the open watches, or, dropped, to
// none; expire makes the reflectors list again (their watches end and the
// next one answers 410 Gone).
type scriptedPods struct {
	mu      sync.Mutex
	pods    map[string]*corev1.Pod
	rv      int
	watches []*watch.FakeWatcher
	expired int // how many watches more answer 410 Gone
}

func newScriptedPods() *scriptedPods { return &scriptedPods{pods: map[string]*corev1.Pod{}} }

func (s *scriptedPods) List(metav1.ListOptions) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(s.rv)}}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for name := range s.pods {
			if !yield(name) {
				return
			}
		}
	}) {
		list.Items = append(list.Items, *s.pods[name].DeepCopy())
	}
	return list, nil
}

func (s *scriptedPods) Watch(o metav1.ListOptions) (watch.Interface, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o.SendInitialEvents != nil && *o.SendInitialEvents {
		return nil, errors.New("no list by watch here: list") // the reflector lists then
	}
	if s.expired > 0 {
		s.expired--
		return nil, apierrors.NewResourceExpired("too old resource version")
	}
	w := watch.NewFakeWithChanSize(100, false)
	s.watches = append(s.watches, w)
	return w, nil
}

// change applies a change of the pod named name (a delete, or a label
// value set) and sends it to the watches unless dropped.
func (s *scriptedPods) change(t watch.EventType, name, value string, dropped bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rv++
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, ResourceVersion: strconv.Itoa(s.rv), Labels: map[string]string{"v": value}}}
	if t == watch.Deleted {
		delete(s.pods, name)
	} else {
		s.pods[name] = pod
	}
	if dropped {
		return
	}
	for _, w := range s.watches {
		w.Action(t, pod.DeepCopy())
	}
}

// expire ends the watches; the next one of each reflector answers 410
// Gone.
func (s *scriptedPods) expire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expired = len(s.watches)
	for _, w := range s.watches {
		w.Stop()
	}
	s.watches = nil
}

// informerLog is a ResourceEventHandler that writes down each event with
// the objects' resourceVersions and the transform's mark.
type informerLog struct{ podEventLog }

func describePod(obj any) string {
	if tomb, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		return "tombstone " + tomb.Key + " of " + describePod(tomb.Obj)
	}
	pod := obj.(*corev1.Pod)
	return fmt.Sprintf("%s rv %s v %s marked %s", pod.Name, pod.ResourceVersion, pod.Labels["v"], pod.Labels["transformed"])
}

func (l *informerLog) OnAdd(obj any, initial bool) {
	l.record("add %s initial %t", describePod(obj), initial)
}
func (l *informerLog) OnUpdate(oldObj, newObj any) {
	l.record("update %s to %s", describePod(oldObj), describePod(newObj))
}
func (l *informerLog) OnDelete(obj any) { l.record("delete %s", describePod(obj)) }

// phase waits until the log has n events and returns them from the
// from-th, sorted (within a list, the informers hand on the objects in
// an order of their own).
func (l *informerLog) phase(t *testing.T, from, n int) []string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := l.seen()
		if len(got) >= n || time.Now().After(deadline) {
			if len(got) != n {
				t.Fatalf("%d events, want %d: %q", len(got), n, got)
			}
			slices.Sort(got[from:])
			return got[from:]
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// markTransformed is an idempotent transform that labels each pod.
func markTransformed(obj any) (any, error) {
	if pod, ok := obj.(*corev1.Pod); ok {
		if pod.Labels == nil {
			pod.Labels = map[string]string{}
		}
		pod.Labels["transformed"] = "yes"
	}
	return obj, nil
}

// TestDirectInformerAsClientGos: the direct informer's handlers get the
// events client-go's shared informer's get, on one scripted source: the
// initial list, a watch's adds, updates and deletes, a handler added late,
// and a relist after the watch expired in which changes the watch dropped
// show (a deletion as a tombstone); both stores end equal; the transform
// applies to every object stored and handed on.
func TestDirectInformerAsClientGos(t *testing.T) {
	src := newScriptedPods()
	src.change(watch.Added, "a", "1", false)
	src.change(watch.Added, "b", "1", false)
	lw := &toolscache.ListWatch{ListFunc: src.List, WatchFunc: src.Watch}

	type run struct {
		name      string
		informer  toolscache.SharedIndexInformer
		first     *informerLog
		late      *informerLog
		firstSeen []string
		lateSeen  []string
	}
	runs := []*run{
		{name: "client-go's shared informer", informer: toolscache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, toolscache.Indexers{})},
		{name: "direct informer", informer: NewDirectInformer(lw, &corev1.Pod{}, 0, toolscache.Indexers{})},
	}
	ctx, cancel := context.WithCancel(t.Context())
	var running sync.WaitGroup
	defer func() { cancel(); running.Wait() }()
	for _, r := range runs {
		r.first, r.late = &informerLog{}, &informerLog{}
		if err := r.informer.SetTransform(markTransformed); err != nil {
			t.Fatal(err)
		}
		if _, err := r.informer.AddEventHandler(r.first); err != nil {
			t.Fatal(err)
		}
		running.Go(func() { r.informer.RunWithContext(ctx) })
		if !toolscache.WaitForCacheSync(ctx.Done(), r.informer.HasSynced) {
			t.Fatalf("%s: not synced", r.name)
		}
	}
	var phases []string
	phase := func(name string, first, late int) {
		for _, r := range runs {
			from := len(r.firstSeen)
			r.firstSeen = append(r.firstSeen, r.first.phase(t, from, from+first)...)
			from = len(r.lateSeen)
			r.lateSeen = append(r.lateSeen, r.late.phase(t, from, from+late)...)
		}
		phases = append(phases, name)
	}
	phase("initial list", 2, 0)

	src.change(watch.Modified, "a", "2", false)
	src.change(watch.Added, "c", "1", false)
	src.change(watch.Deleted, "b", "", false)
	phase("watch", 3, 0)

	for _, r := range runs {
		if _, err := r.informer.AddEventHandler(r.late); err != nil {
			t.Fatal(err)
		}
	}
	phase("late handler", 0, 2)

	src.change(watch.Deleted, "c", "", true)
	src.change(watch.Modified, "a", "3", true)
	src.change(watch.Added, "d", "1", true)
	src.expire()
	phase("relist", 3, 3)

	want := []string{
		"add a rv 1 v 1 marked yes initial true",
		"add b rv 2 v 1 marked yes initial true",
		"add c rv 4 v 1 marked yes initial false",
		"delete b rv 5 v  marked yes",
		"update a rv 1 v 1 marked yes to a rv 3 v 2 marked yes",
		"add d rv 8 v 1 marked yes initial false",
		"delete tombstone default/c of c rv 4 v 1 marked yes",
		"update a rv 3 v 2 marked yes to a rv 7 v 3 marked yes",
	}
	for _, r := range runs {
		if diff := cmp.Diff(runs[0].firstSeen, r.firstSeen); diff != "" {
			t.Errorf("%s, first handler (-client-go's +this one's), phases %v:\n%s", r.name, phases, diff)
		}
		if diff := cmp.Diff(runs[0].lateSeen, r.lateSeen); diff != "" {
			t.Errorf("%s, late handler (-client-go's +this one's):\n%s", r.name, diff)
		}
		var held []string
		for _, obj := range r.informer.GetStore().List() {
			held = append(held, describePod(obj))
		}
		slices.Sort(held)
		if diff := cmp.Diff([]string{"a rv 7 v 3 marked yes", "d rv 8 v 1 marked yes"}, held); diff != "" {
			t.Errorf("%s: store (-want +got):\n%s", r.name, diff)
		}
	}
	if diff := cmp.Diff(want, runs[1].firstSeen); diff != "" {
		t.Errorf("direct informer, first handler (-want +got):\n%s", diff)
	}
}

// TestPodEventsOnADirectInformer: controllers subscribing to PodEvents on
// a direct informer whose first list holds pods all get them, each once,
// whether the informer lists before the first subscription (it then hands
// the pods to the handler before AddEventHandler returns: seen hanging
// when PodEvents held its lock over the registration) or after the
// others subscribed.
func TestPodEventsOnADirectInformer(t *testing.T) {
	for _, listedFirst := range []bool{true, false} {
		t.Run(fmt.Sprintf("listed before the subscriptions %t", listedFirst), func(t *testing.T) {
			src := newScriptedPods()
			src.change(watch.Added, "a", "1", false)
			src.change(watch.Added, "b", "1", false)
			inf := NewDirectInformer(&toolscache.ListWatch{ListFunc: src.List, WatchFunc: src.Watch}, &corev1.Pod{}, 0, toolscache.Indexers{})
			events := NewPodEvents(oneInformer{pods: inf})
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			var running sync.WaitGroup
			defer func() {
				cancel()
				stopped := make(chan struct{})
				go func() { running.Wait(); close(stopped) }()
				select {
				case <-stopped:
				case <-time.After(5 * time.Second):
					t.Error("the informer did not stop: deadlocked in a handler")
				}
			}()
			if listedFirst {
				running.Go(func() { inf.RunWithContext(ctx) })
				if !toolscache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
					t.Fatal("not synced")
				}
			}
			logs := []*podEventLog{{}, {}, {}}
			var sources []source.SyncingSource
			for i, log := range logs {
				s := events.Source(log.handler())
				queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
				defer queue.ShutDown()
				if err := s.Start(ctx, queue); err != nil {
					t.Fatal(err)
				}
				sources = append(sources, s)
				if i == 0 { // the first subscribes alone (without taking its lock: it is held when deadlocked)
					select {
					case <-s.(*podSource).subscribed:
					case <-ctx.Done():
						t.Fatal("the first controller did not subscribe: deadlocked")
					}
				}
			}
			if !listedFirst {
				time.Sleep(50 * time.Millisecond) // the others wait in List
				running.Go(func() { inf.RunWithContext(ctx) })
			}
			for i, s := range sources {
				if err := s.WaitForSync(ctx); err != nil {
					t.Fatalf("controller %d: %v", i, err)
				}
			}
			for i, log := range logs {
				got := log.seen() // every pod handed on: WaitForSync returned
				slices.Sort(got)
				if want := []string{"create a rv 1 initial true", "create b rv 2 initial true"}; !slices.Equal(got, want) {
					t.Errorf("controller %d got %v, want %v", i, got, want)
				}
			}
		})
	}
}

// TestPodEventsOnAStoppedInformer: a handler the informer refuses (it has
// stopped) leaves PodEvents without the subscription and without the
// informer, so that the next subscription registers a handler again; the
// source's WaitForSync fails once the controller stops.
func TestPodEventsOnAStoppedInformer(t *testing.T) {
	src := newScriptedPods()
	inf := NewDirectInformer(&toolscache.ListWatch{ListFunc: src.List, WatchFunc: src.Watch}, &corev1.Pod{}, 0, toolscache.Indexers{})
	stopped, stop := context.WithCancel(t.Context())
	stop()
	inf.RunWithContext(stopped)
	if !inf.IsStopped() {
		t.Fatal("the informer did not stop")
	}
	events := NewPodEvents(oneInformer{pods: inf})
	ctx, cancel := context.WithCancel(t.Context())
	s := events.Source(handler.Funcs{})
	if err := s.Start(ctx, nil); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(100*time.Millisecond, cancel)
	if err := s.WaitForSync(t.Context()); err == nil || !strings.Contains(err.Error(), "a handler on the pod informer") {
		t.Errorf("WaitForSync: %v, want the refused handler", err)
	}
	events.mu.Lock()
	defer events.mu.Unlock()
	if events.informer != nil || len(events.subs) != 0 {
		t.Errorf("after the refusal: informer %v, %d subscriptions, want none", events.informer, len(events.subs))
	}
}
