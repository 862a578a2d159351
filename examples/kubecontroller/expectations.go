package kubecontroller

import (
	"sync"
	"time"

	"github.com/clonecore/cloneset/expectations"
)

// Kinds of the objects expectations follow.
const (
	KindPod      = "Pod"
	KindPVC      = "PersistentVolumeClaim"
	KindRevision = "ControllerRevision"
	// KindCloneSet is the CloneSet itself: after a write of the CloneSet
	// or its status, the next round plans only once the cache shows the
	// version the server answered (or a later one), so that no round
	// plans from, and writes the status over, the version before it.
	KindCloneSet = "CloneSet"
)

// Expectations is the library's expectations.Store behind a mutex, shared by
// the reconciles of every CloneSet of a controller.
type Expectations struct {
	mu    sync.Mutex
	store *expectations.Store
}

// NewExpectations returns empty expectations that time out after timeout
// (expectations.DefaultTimeout when timeout <= 0).
func NewExpectations(timeout time.Duration) *Expectations {
	return &Expectations{store: expectations.New(timeout)}
}

// Do runs f on the store, holding the lock.
func (e *Expectations) Do(f func(*expectations.Store)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	f(e.store)
}

// Satisfied checks the expectations of owner against what the cache shows
// (expectations.Store.Satisfied, under the lock).
func (e *Expectations) Satisfied(owner string, now time.Time, look expectations.Lookup) expectations.Verdict {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.store.Satisfied(owner, now, look)
}
