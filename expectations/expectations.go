// Package expectations is the bookkeeping a CloneSet controller keeps between
// its writes and its informer cache: which objects it has just created,
// deleted or patched that the cache does not show yet.
//
// A controller plans from its cache, and the cache lags behind the API
// server. Right after a round that created pod web-x, the next round may
// still see no web-x and would create it again; right after it deleted a pod
// or patched one in place, the next round may still see the old object and
// would act on it twice. Upstream therefore records an expectation for every
// write and skips planning while one is not yet observed: scale expectations
// for the pods and claims it creates or deletes, and a resourceVersion
// expectation for the pods it updates in place. This package is that
// bookkeeping, with no Kubernetes types, no goroutines and no clock of its
// own: the caller says what it wrote, what its cache shows, and what time it
// is.
//
// An expectation is observed when the cache shows:
//
//   - for a create, the object (by name);
//   - for a delete, the object gone, or terminating (a deletion timestamp:
//     the API server has accepted the delete and finalizers hold the object);
//   - for a resourceVersion, the object at that resourceVersion or a later
//     one, or the object gone.
//
// An expectation that stays unobserved for Timeout is dropped, as upstream
// gives up on an expectation after its timeout (a watch event lost for good
// must not stall the CloneSet forever); the Verdict names the dropped ones.
//
// A Store is not safe for concurrent use; a controller that reconciles
// several CloneSets at once guards it with a mutex (see
// examples/kubecontroller).
package expectations

import (
	"sort"
	"strconv"
	"time"
)

// DefaultTimeout is upstream's expectation timeout: how long an unobserved
// expectation blocks planning before it is dropped.
const DefaultTimeout = 5 * time.Minute

// Op is the write an expectation waits for the cache to show.
type Op string

// The writes an expectation can follow.
const (
	// OpCreate waits for the object to appear.
	OpCreate Op = "create"
	// OpDelete waits for the object to disappear or turn terminating.
	OpDelete Op = "delete"
	// OpResourceVersion waits for the object to reach a resourceVersion.
	OpResourceVersion Op = "resourceVersion"
)

// Object names an object of a CloneSet: its kind ("Pod",
// "PersistentVolumeClaim", ...) and its name. The namespace is the CloneSet's.
type Object struct {
	Kind string
	Name string
}

// String renders the object as "Kind/name".
func (o Object) String() string { return o.Kind + "/" + o.Name }

// Observation is what the cache shows of one object.
type Observation struct {
	// Present is true when the cache holds the object.
	Present bool
	// Terminating is true when the object carries a deletion timestamp.
	Terminating bool
	// ResourceVersion is the object's metadata.resourceVersion.
	ResourceVersion string
}

// Lookup reports what the cache shows of an object.
type Lookup func(Object) Observation

// Expectation is one recorded write not yet observed.
type Expectation struct {
	Object Object
	Op     Op
	// ResourceVersion is the version awaited (OpResourceVersion only).
	ResourceVersion string
	// Since is when the write was recorded; the expectation is dropped at
	// Since + the store's timeout.
	Since time.Time
}

// Verdict is the answer of Store.Satisfied.
type Verdict struct {
	// Satisfied is true when no expectation of the CloneSet is pending: the
	// controller may plan.
	Satisfied bool
	// Pending are the expectations still unobserved, sorted by object, then
	// operation.
	Pending []Expectation
	// Dropped are the expectations this call gave up on (older than the
	// timeout and still unobserved), sorted like Pending.
	Dropped []Expectation
	// RequeueAfter is, when Pending is not empty, the time until the oldest
	// pending expectation times out: a controller that sees no event in the
	// meantime calls again then. Zero otherwise.
	RequeueAfter time.Duration
}

type entryKey struct {
	obj Object
	op  Op
}

// Store holds the expectations of every CloneSet, keyed by the CloneSet's
// key (conventionally "namespace/name"). The zero value is not usable; call
// New.
type Store struct {
	timeout time.Duration
	owners  map[string]map[entryKey]Expectation
}

// New returns an empty store whose expectations time out after timeout
// (DefaultTimeout when timeout <= 0).
func New(timeout time.Duration) *Store {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Store{timeout: timeout, owners: map[string]map[entryKey]Expectation{}}
}

// Timeout returns the store's timeout.
func (s *Store) Timeout() time.Duration { return s.timeout }

func (s *Store) put(owner string, e Expectation) {
	m := s.owners[owner]
	if m == nil {
		m = map[entryKey]Expectation{}
		s.owners[owner] = m
	}
	m[entryKey{e.Object, e.Op}] = e
}

// ExpectCreate records that the controller is creating obj for owner at now.
// Record it before sending the create, and call Lower if the create fails.
func (s *Store) ExpectCreate(owner string, obj Object, now time.Time) {
	s.put(owner, Expectation{Object: obj, Op: OpCreate, Since: now})
}

// ExpectDelete records that the controller is deleting obj for owner at now.
// Record it before sending the delete, and call Lower if the delete fails.
func (s *Store) ExpectDelete(owner string, obj Object, now time.Time) {
	s.put(owner, Expectation{Object: obj, Op: OpDelete, Since: now})
}

// ExpectResourceVersion records that a write of the controller left obj at
// resourceVersion rv (the version the API server returned). A later
// expectation for the same object replaces an earlier one. An empty rv
// records nothing.
func (s *Store) ExpectResourceVersion(owner string, obj Object, rv string, now time.Time) {
	if rv == "" {
		return
	}
	s.put(owner, Expectation{Object: obj, Op: OpResourceVersion, ResourceVersion: rv, Since: now})
}

// Lower removes the expectation of op on obj, if any: the write it waited for
// failed, so the cache will never show it.
func (s *Store) Lower(owner string, obj Object, op Op) {
	if m := s.owners[owner]; m != nil {
		delete(m, entryKey{obj, op})
		if len(m) == 0 {
			delete(s.owners, owner)
		}
	}
}

// Forget drops every expectation of owner (the CloneSet is gone).
func (s *Store) Forget(owner string) { delete(s.owners, owner) }

// Pending returns the expectations of owner not yet observed, without
// consulting any cache, sorted by object, then operation.
func (s *Store) Pending(owner string) []Expectation {
	var out []Expectation
	for _, e := range s.owners[owner] {
		out = append(out, e)
	}
	sortExpectations(out)
	return out
}

// Satisfied checks the expectations of owner against what the cache shows
// (look is called once per expectation) at now. Observed expectations are
// removed, as are those older than the timeout (listed in Dropped). The
// controller plans only when the verdict is Satisfied.
func (s *Store) Satisfied(owner string, now time.Time, look Lookup) Verdict {
	var v Verdict
	m := s.owners[owner]
	for k, e := range m {
		if observed(e, look(e.Object)) {
			delete(m, k)
			continue
		}
		if now.Sub(e.Since) >= s.timeout {
			delete(m, k)
			v.Dropped = append(v.Dropped, e)
			continue
		}
		v.Pending = append(v.Pending, e)
		if left := e.Since.Add(s.timeout).Sub(now); v.RequeueAfter == 0 || left < v.RequeueAfter {
			v.RequeueAfter = left
		}
	}
	if m != nil && len(m) == 0 {
		delete(s.owners, owner)
	}
	sortExpectations(v.Pending)
	sortExpectations(v.Dropped)
	v.Satisfied = len(v.Pending) == 0
	return v
}

func observed(e Expectation, o Observation) bool {
	switch e.Op {
	case OpCreate:
		return o.Present
	case OpDelete:
		return !o.Present || o.Terminating
	case OpResourceVersion:
		return !o.Present || AtLeast(o.ResourceVersion, e.ResourceVersion)
	}
	return true
}

// AtLeast reports whether resourceVersion have is want or later. Kubernetes
// resourceVersions are opaque strings, but every API server hands out
// decimal integers that grow with each write, and upstream compares them as
// such; two versions that are not both decimal integers compare equal only
// when identical.
func AtLeast(have, want string) bool {
	h, err1 := strconv.ParseUint(have, 10, 64)
	w, err2 := strconv.ParseUint(want, 10, 64)
	if err1 != nil || err2 != nil {
		return have == want
	}
	return h >= w
}

func sortExpectations(list []Expectation) {
	sort.Slice(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if a.Object.Kind != b.Object.Kind {
			return a.Object.Kind < b.Object.Kind
		}
		if a.Object.Name != b.Object.Name {
			return a.Object.Name < b.Object.Name
		}
		return a.Op < b.Op
	})
}
