package kubecontroller

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	toolscache "k8s.io/client-go/tools/cache"
)

// NewDirectInformer returns a SharedIndexInformer of the objects lw lists
// and watches (of example's type) whose reflector writes each change
// straight into the indexer and hands it to the event handlers on its own
// goroutine. It has the signature of controller-runtime's
// cache.Options.NewInformer, which builds every informer of a manager's
// cache with it when set.
//
// client-go's shared informer queues each change the reflector reads in a
// FIFO, pops it on a second goroutine that updates the indexer and passes
// the change to a listener per handler, whose two goroutines hand it to the
// handler: three hand-offs between goroutines and their allocations per
// watch event (about 6 % of the controller's CPU in a rollout,
// docs/performance.md). The direct
// informer does the same work on the reflector's goroutine, in the same
// order: the indexer holds the change before any handler sees it, and the
// handlers see the changes one at a time in the order of the watch. The
// list, watch, relist, bookmark and resumption logic is client-go's
// Reflector's, unchanged.
//
// What differs, and why it is enough for controller-runtime's handlers
// (enqueues): a handler runs while the informer holds its lock, so it must
// be quick, and must neither add or remove handlers nor wait for anything
// that does (it would wait for itself); a slow handler slows the reading
// of the watch instead of filling a buffer. As client-go's, the informer
// has synced once its indexer holds the first list, perhaps before the
// handlers got it (so a handler may wait for a reader of the cache, which
// waits for the sync); a registration's HasSynced says when its handler
// has. A handler added after the first list gets an add event
// (isInInitialList true) for each object held, then every later change,
// as client-go's does. Every handler resyncs with the informer's
// period (a handler's own ResyncPeriod is not honoured). The watch error
// handler cannot be replaced (SetWatchErrorHandler returns an error): the
// reflector logs the errors, as it does by default.
func NewDirectInformer(lw toolscache.ListerWatcher, example runtime.Object, resync time.Duration, indexers toolscache.Indexers) toolscache.SharedIndexInformer {
	return &directInformer{
		lw:      lw,
		example: example,
		resync:  resync,
		indexer: toolscache.NewIndexer(toolscache.DeletionHandlingMetaNamespaceKeyFunc, indexers),
		synced:  make(chan struct{}),
	}
}

// directInformer is NewDirectInformer's informer. It is its reflector's
// store (Add, Update, Delete, Replace, Resync) and its own Controller.
type directInformer struct {
	lw      toolscache.ListerWatcher
	example runtime.Object
	resync  time.Duration
	indexer toolscache.Indexer

	// mu orders the changes and the handlers' registrations: a change is
	// stored and handed to the handlers under it.
	mu        sync.Mutex
	transform toolscache.TransformFunc
	handlers  []*directRegistration
	reflector *toolscache.Reflector // set when Run starts
	listed    bool                  // the first Replace is done, handlers included

	synced  chan struct{} // closed once the indexer holds the first list
	stopped atomic.Bool
}

// directRegistration is a handler's registration.
type directRegistration struct {
	informer *directInformer
	handler  toolscache.ResourceEventHandler
	// delivered closes once the handler got its events of the initial
	// list (or, added later, of the objects held then).
	delivered chan struct{}
}

// HasSynced reports whether the handler got its events of the informer's
// initial list (added later: of the objects held then).
func (r *directRegistration) HasSynced() bool { return isClosed(r.delivered) }

// HasSyncedChecker's Done closes when HasSynced becomes true.
func (r *directRegistration) HasSyncedChecker() toolscache.DoneChecker {
	return doneChecker{name: fmt.Sprintf("a handler of the direct informer of %T", r.informer.example), done: r.delivered}
}

// doneChecker is a toolscache.DoneChecker.
type doneChecker struct {
	name string
	done chan struct{}
}

// Name says what is waited for.
func (c doneChecker) Name() string { return c.name }

// Done closes once it is there.
func (c doneChecker) Done() <-chan struct{} { return c.done }

// AddEventHandler adds handler: see NewDirectInformer.
func (d *directInformer) AddEventHandler(handler toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	return d.AddEventHandlerWithOptions(handler, toolscache.HandlerOptions{})
}

// AddEventHandlerWithResyncPeriod adds handler; it resyncs with the
// informer's period.
func (d *directInformer) AddEventHandlerWithResyncPeriod(handler toolscache.ResourceEventHandler, _ time.Duration) (toolscache.ResourceEventHandlerRegistration, error) {
	return d.AddEventHandlerWithOptions(handler, toolscache.HandlerOptions{})
}

// AddEventHandlerWithOptions adds handler; the options are not used.
func (d *directInformer) AddEventHandlerWithOptions(handler toolscache.ResourceEventHandler, _ toolscache.HandlerOptions) (toolscache.ResourceEventHandlerRegistration, error) {
	if d.stopped.Load() {
		return nil, fmt.Errorf("the %T informer has stopped: no handler can be added", d.example)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	reg := &directRegistration{informer: d, handler: handler, delivered: make(chan struct{})}
	d.handlers = append(d.handlers, reg)
	if !d.listed {
		return reg, nil // delivered after the first list
	}
	for _, obj := range d.indexer.List() {
		handler.OnAdd(obj, true)
	}
	close(reg.delivered)
	return reg, nil
}

// RemoveEventHandler removes a handler AddEventHandler added.
func (d *directInformer) RemoveEventHandler(handle toolscache.ResourceEventHandlerRegistration) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, reg := range d.handlers {
		if reg == handle {
			d.handlers = append(d.handlers[:i:i], d.handlers[i+1:]...)
			return nil
		}
	}
	return nil
}

// GetStore is the indexer.
func (d *directInformer) GetStore() toolscache.Store { return d.indexer }

// GetIndexer is the indexer: the objects as the handlers last saw them.
func (d *directInformer) GetIndexer() toolscache.Indexer { return d.indexer }

// AddIndexers adds indexers to the indexer, which must be empty.
func (d *directInformer) AddIndexers(indexers toolscache.Indexers) error {
	return d.indexer.AddIndexers(indexers)
}

// GetController is the informer itself.
func (d *directInformer) GetController() toolscache.Controller { return d }

// Run runs the informer until stopCh closes.
func (d *directInformer) Run(stopCh <-chan struct{}) {
	d.RunWithContext(wait.ContextForChannel(stopCh))
}

// RunWithContext lists and watches until ctx ends; it runs once.
func (d *directInformer) RunWithContext(ctx context.Context) {
	d.mu.Lock()
	if d.reflector != nil || d.stopped.Load() {
		d.mu.Unlock()
		return
	}
	d.reflector = toolscache.NewReflectorWithOptions(d.lw, d.example, d, toolscache.ReflectorOptions{
		TypeDescription: reflect.TypeOf(d.example).String(),
		ResyncPeriod:    d.resync,
	})
	reflector := d.reflector
	d.mu.Unlock()
	defer d.stopped.Store(true)
	reflector.RunWithContext(ctx)
}

// HasSynced reports whether the indexer holds the initial list (the
// handlers may still be getting it: a registration's HasSynced says when
// one has), as client-go's informer's.
func (d *directInformer) HasSynced() bool { return isClosed(d.synced) }

// isClosed reports whether ch is closed.
func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// HasSyncedChecker's Done closes when HasSynced becomes true.
func (d *directInformer) HasSyncedChecker() toolscache.DoneChecker {
	return doneChecker{name: fmt.Sprintf("the direct informer of %T", d.example), done: d.synced}
}

// LastSyncResourceVersion is the reflector's.
func (d *directInformer) LastSyncResourceVersion() string {
	d.mu.Lock()
	reflector := d.reflector
	d.mu.Unlock()
	if reflector == nil {
		return ""
	}
	return reflector.LastSyncResourceVersion()
}

// errDirectWatchErrorHandler is SetWatchErrorHandler's error.
var errDirectWatchErrorHandler = errors.New("the direct informer's reflector logs its watch errors; no other handler can be set")

// SetWatchErrorHandler is not supported: see NewDirectInformer.
func (d *directInformer) SetWatchErrorHandler(toolscache.WatchErrorHandler) error {
	return errDirectWatchErrorHandler
}

// SetWatchErrorHandlerWithContext is not supported: see NewDirectInformer.
func (d *directInformer) SetWatchErrorHandlerWithContext(toolscache.WatchErrorHandlerWithContext) error {
	return errDirectWatchErrorHandler
}

// SetTransform sets the function each object goes through before it is
// stored; before Run only.
func (d *directInformer) SetTransform(transform toolscache.TransformFunc) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.reflector != nil {
		return fmt.Errorf("the %T informer has started: its transform cannot change", d.example)
	}
	d.transform = transform
	return nil
}

// IsStopped reports whether Run has returned.
func (d *directInformer) IsStopped() bool { return d.stopped.Load() }

// Transformer is the transform: the reflector's own stores (of a watch
// list) use it too. It makes the informer a toolscache.TransformingStore.
func (d *directInformer) Transformer() toolscache.TransformFunc {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.transform
}

// transformed is obj through the transform.
func (d *directInformer) transformed(obj any) (any, error) {
	if d.transform == nil {
		return obj, nil
	}
	return d.transform(obj)
}

// Add stores an object the watch added and hands it on (an update when
// the key is held already). Part of the reflector's store.
func (d *directInformer) Add(obj any) error { return d.upsert(obj) }

// Update stores an object the watch changed and hands it on (an add when
// the key is not held). Part of the reflector's store.
func (d *directInformer) Update(obj any) error { return d.upsert(obj) }

// upsert is Add and Update: it stores obj, transformed, and hands the
// handlers an update of the object held under its key, or an add.
func (d *directInformer) upsert(obj any) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	obj, err := d.transformed(obj)
	if err != nil {
		return err
	}
	old, exists, err := d.indexer.Get(obj)
	if err != nil {
		return err
	}
	if exists {
		if err := d.indexer.Update(obj); err != nil {
			return err
		}
		for _, reg := range d.handlers {
			reg.handler.OnUpdate(old, obj)
		}
		return nil
	}
	if err := d.indexer.Add(obj); err != nil {
		return err
	}
	for _, reg := range d.handlers {
		reg.handler.OnAdd(obj, false)
	}
	return nil
}

// Delete forgets an object the watch deleted and hands it on. Part of the
// reflector's store.
func (d *directInformer) Delete(obj any) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	obj, err := d.transformed(obj)
	if err != nil {
		return err
	}
	if err := d.indexer.Delete(obj); err != nil {
		return err
	}
	for _, reg := range d.handlers {
		reg.handler.OnDelete(obj)
	}
	return nil
}

// Replace stores a list, all at once (a reader of the indexer sees the
// objects before the list or after it), then hands on each object held
// and not listed as deleted (a DeletedFinalStateUnknown of its last
// state), then each listed object as an update of the one held under its
// key, or an add: client-go's order. After the first list the informer has
// synced. The objects of a watch list went through the transform already
// (the reflector's own store uses Transformer); they go through it again,
// which is why the transform must be idempotent, as client-go asks of
// every informer's. Part of the reflector's store.
func (d *directInformer) Replace(list []any, resourceVersion string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	initial := !d.listed
	listed := make(map[string]struct{}, len(list))
	held := make([]any, len(list)) // the object held under each listed one's key, or nil
	for i, obj := range list {
		obj, err := d.transformed(obj)
		if err != nil {
			return err
		}
		key, err := toolscache.DeletionHandlingMetaNamespaceKeyFunc(obj)
		if err != nil {
			return err
		}
		listed[key] = struct{}{}
		list[i] = obj
		if old, exists, err := d.indexer.GetByKey(key); err == nil && exists {
			held[i] = old
		}
	}
	var gone []toolscache.DeletedFinalStateUnknown
	for _, key := range d.indexer.ListKeys() {
		if _, ok := listed[key]; ok {
			continue
		}
		if old, exists, err := d.indexer.GetByKey(key); err == nil && exists {
			gone = append(gone, toolscache.DeletedFinalStateUnknown{Key: key, Obj: old})
		}
	}
	if err := d.indexer.Replace(list, resourceVersion); err != nil { // read below, not changed
		return err
	}
	// Synced once the indexer holds the list, before the handlers get it,
	// as client-go's: a handler may wait for a reader of the indexer that
	// waits for the sync.
	if initial {
		close(d.synced)
	}
	for _, tomb := range gone {
		for _, reg := range d.handlers {
			reg.handler.OnDelete(tomb)
		}
	}
	for i, obj := range list {
		for _, reg := range d.handlers {
			if held[i] != nil {
				reg.handler.OnUpdate(held[i], obj)
			} else {
				reg.handler.OnAdd(obj, initial)
			}
		}
	}
	if initial {
		for _, reg := range d.handlers {
			close(reg.delivered)
		}
	}
	d.listed = true
	return nil
}

// Resync hands every handler an update of each object held onto itself
// (the reflector calls it every resync period). Part of the reflector's
// store.
func (d *directInformer) Resync() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, obj := range d.indexer.List() {
		for _, reg := range d.handlers {
			reg.handler.OnUpdate(obj, obj)
		}
	}
	return nil
}
