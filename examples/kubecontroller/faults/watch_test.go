package faults

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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// podWatcher follows every event of the pods of a namespace (its own watch,
// not the controller's cache) and checks the budgets of each CloneSet after
// every event: no moment with more active pods than its maxActive, nor
// fewer ready ones than its minReady.
type podWatcher struct {
	mu         sync.Mutex
	pods       map[string]watchedPod // by name
	budgets    map[string]budget     // by CloneSet (the pods' app label)
	violations []string
	lowest     map[string]int // fewest ready pods seen while a budget held, by CloneSet
	highest    map[string]int // most active pods seen while a budget held, by CloneSet
	events     int
	relists    int // watches that could not resume and listed again (events in between unseen)
	triggers   []*trigger
	// recent are the last historyLength events, a line each; history is
	// recent as it was at the first violation (to tell what led to it).
	recent, history []seenEvent
}

// seenEvent is one event the watcher saw, as a line.
type seenEvent struct {
	at   time.Time
	line string
}

// historyLength is how many events before the first budget violation the
// watcher keeps to report.
const historyLength = 60

// watchedPod is what the watcher keeps of a pod.
type watchedPod struct {
	cloneSet    string // its app label
	image       string // of its first container
	terminating bool
	ready       bool
}

// budget bounds a CloneSet's pods at every moment.
type budget struct {
	maxActive int // replicas + maxSurge
	minReady  int // replicas - maxUnavailable
}

// trigger runs fire (in a goroutine of its own) the first time cond holds
// for the pods of cloneSet.
type trigger struct {
	cloneSet string
	cond     func(podCounts) bool
	fire     func(podCounts)
	fired    bool
}

// podCounts are the pods of a CloneSet at one moment.
type podCounts struct {
	active      int            // not terminating
	terminating int            // with a deletionTimestamp
	ready       int            // active and Ready
	byImage     map[string]int // active pods by image
}

func (c podCounts) String() string {
	var images []string
	for _, im := range slices.Sorted(maps.Keys(c.byImage)) {
		images = append(images, fmt.Sprintf("%s:%d", im, c.byImage[im]))
	}
	return fmt.Sprintf("%d active (%s), %d ready, %d terminating", c.active, strings.Join(images, " "), c.ready, c.terminating)
}

// watchPods lists the pods of ns and follows them until t ends, resuming
// the watch across API server and etcd restarts.
func watchPods(t testing.TB, cs kubernetes.Interface, ns string) *podWatcher {
	t.Helper()
	w := &podWatcher{pods: map[string]watchedPod{}, budgets: map[string]budget{}, lowest: map[string]int{}, highest: map[string]int{}}
	rv, err := w.relist(t.Context(), cs, ns)
	if err != nil {
		t.Fatal(err)
	}
	go w.follow(t.Context(), cs, ns, rv)
	return w
}

// relist replaces what the watcher knows with a list (no budget is checked
// on it: the moments in between were not seen), and returns its
// resourceVersion.
func (w *podWatcher) relist(ctx context.Context, cs kubernetes.Interface, ns string) (string, error) {
	list, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", err
	}
	pods := make(map[string]watchedPod, len(list.Items))
	for i := range list.Items {
		pods[list.Items[i].Name] = podState(&list.Items[i])
	}
	w.mu.Lock()
	w.pods = pods
	w.mu.Unlock()
	return list.ResourceVersion, nil
}

// follow watches from rv until ctx ends: a watch that ends resumes from the
// last resourceVersion seen; one the server cannot resume (410 Gone) lists
// again.
func (w *podWatcher) follow(ctx context.Context, cs kubernetes.Interface, ns, rv string) {
	for ctx.Err() == nil {
		wi, err := cs.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
		if err != nil {
			if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
				rv = w.mustRelist(ctx, cs, ns, rv)
				continue
			}
			time.Sleep(100 * time.Millisecond) // the API server is down: try again
			continue
		}
		for ev := range wi.ResultChan() {
			switch ev.Type {
			case watch.Added, watch.Modified, watch.Deleted:
				p := ev.Object.(*corev1.Pod)
				rv = p.ResourceVersion
				w.apply(ev.Type, p)
			case watch.Bookmark:
				if p, ok := ev.Object.(*corev1.Pod); ok {
					rv = p.ResourceVersion
				}
			case watch.Error:
				if s, ok := ev.Object.(*metav1.Status); ok && (s.Code == 410 || s.Reason == metav1.StatusReasonExpired || s.Reason == metav1.StatusReasonGone) {
					wi.Stop()
					rv = w.mustRelist(ctx, cs, ns, rv)
				}
			}
		}
		wi.Stop()
	}
}

// mustRelist lists again, retrying while the API server is down.
func (w *podWatcher) mustRelist(ctx context.Context, cs kubernetes.Interface, ns, rv string) string {
	for ctx.Err() == nil {
		next, err := w.relist(ctx, cs, ns)
		if err == nil {
			w.mu.Lock()
			w.relists++
			w.mu.Unlock()
			return next
		}
		time.Sleep(100 * time.Millisecond)
	}
	return rv
}

// apply records one event and checks the budget of the pod's CloneSet.
func (w *podWatcher) apply(typ watch.EventType, p *corev1.Pod) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.events++
	if typ == watch.Deleted {
		delete(w.pods, p.Name)
	} else {
		w.pods[p.Name] = podState(p)
	}
	cloneSet := p.Labels["app"]
	counts := w.countLocked(cloneSet)
	w.remember(typ, p, counts)
	if b, ok := w.budgets[cloneSet]; ok {
		if (counts.active > b.maxActive || counts.ready < b.minReady) && w.history == nil {
			w.history = slices.Clone(w.recent)
		}
		if counts.active > b.maxActive {
			w.violations = append(w.violations, fmt.Sprintf("%s %s %s: %s, above %d (replicas + maxSurge)", typ, p.Name, cloneSet, counts, b.maxActive))
		}
		if counts.ready < b.minReady {
			w.violations = append(w.violations, fmt.Sprintf("%s %s %s: %s, below %d ready (replicas - maxUnavailable)", typ, p.Name, cloneSet, counts, b.minReady))
		}
		w.highest[cloneSet] = max(w.highest[cloneSet], counts.active)
		if low, ok := w.lowest[cloneSet]; !ok || counts.ready < low {
			w.lowest[cloneSet] = counts.ready
		}
	}
	for _, tr := range w.triggers {
		if !tr.fired && tr.cloneSet == cloneSet && tr.cond(counts) {
			tr.fired = true
			go tr.fire(counts)
		}
	}
}

// remember adds the event to the recent ones: when, what, the pod's image,
// readiness, InPlaceUpdateReady condition and resourceVersion, and the
// counts after it. w.mu is held.
func (w *podWatcher) remember(typ watch.EventType, p *corev1.Pod, counts podCounts) {
	st := podState(p)
	gate := "-"
	for _, c := range p.Status.Conditions {
		if c.Type == "InPlaceUpdateReady" {
			gate = string(c.Status)
		}
	}
	now := time.Now()
	line := fmt.Sprintf("%s %s %s rv=%s image=%s ready=%t inPlaceUpdateReady=%s terminating=%t => %s",
		now.Format("15:04:05.000"), typ, p.Name, p.ResourceVersion, st.image, st.ready, gate, st.terminating, counts)
	if len(w.recent) == historyLength {
		w.recent = append(w.recent[:0], w.recent[1:]...)
	}
	w.recent = append(w.recent, seenEvent{at: now, line: line})
}

// podState is what the watcher keeps of p.
func podState(p *corev1.Pod) watchedPod {
	wp := watchedPod{cloneSet: p.Labels["app"], terminating: p.DeletionTimestamp != nil}
	if len(p.Spec.Containers) > 0 {
		wp.image = p.Spec.Containers[0].Image
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			wp.ready = true
		}
	}
	return wp
}

// countLocked counts the pods of a CloneSet; w.mu is held.
func (w *podWatcher) countLocked(cloneSet string) podCounts {
	c := podCounts{byImage: map[string]int{}}
	for _, p := range w.pods {
		switch {
		case p.cloneSet != cloneSet:
		case p.terminating:
			c.terminating++
		default:
			c.active++
			c.byImage[p.image]++
			if p.ready {
				c.ready++
			}
		}
	}
	return c
}

// snapshot counts the pods of a CloneSet now.
func (w *podWatcher) snapshot(cloneSet string) podCounts {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.countLocked(cloneSet)
}

// pod returns what the watcher knows of the pod name.
func (w *podWatcher) pod(name string) (watchedPod, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	p, ok := w.pods[name]
	return p, ok
}

// setBudget starts checking the budget of a CloneSet at every event.
func (w *podWatcher) setBudget(cloneSet string, b budget) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.budgets[cloneSet] = b
}

// clearBudget stops checking the budget of a CloneSet (before a test
// deletes it).
func (w *podWatcher) clearBudget(cloneSet string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.budgets, cloneSet)
}

// when runs fire (with the counts), once, at the first event after which cond holds for the
// pods of cloneSet.
func (w *podWatcher) when(cloneSet string, cond func(podCounts) bool, fire func(podCounts)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.triggers = append(w.triggers, &trigger{cloneSet: cloneSet, cond: cond, fire: fire})
}

// historyBeforeViolation returns the events that led to the first budget
// violation (nil when there was none).
func (w *podWatcher) historyBeforeViolation() []seenEvent {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.history)
}

// result returns the budget violations seen so far, the extremes seen under
// the budget of cloneSet, and the watcher's event and relist counts.
func (w *podWatcher) result(cloneSet string) (violations []string, highest, lowest, events, relists int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.violations), w.highest[cloneSet], w.lowest[cloneSet], w.events, w.relists
}

// names returns the names of the active pods of cloneSet, sorted.
func (w *podWatcher) names(cloneSet string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for name, p := range w.pods {
		if p.cloneSet == cloneSet && !p.terminating {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
