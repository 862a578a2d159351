package kubecontroller

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/clonecore/cloneset/model"
)

// NodeStore holds the cluster's nodes converted to the model, one
// *model.Node per name, for all the CloneSets of a Reconciler: the Node
// informer's event handlers feed it (WatchNodes), so that a node is
// converted once per change of its labels (the planner reads nothing else
// of it), not once per CloneSet and reconcile. Each change (a node added,
// its labels changed, a node deleted) gets a
// sequence number in a bounded change log: a reconcile tells its CloneSet's
// clonesetcore.Tracker only of the changes since the sequence it applied
// last, and of every node when that sequence is no longer in the log or the
// CloneSet is new. Node events do not ask for reconciles: a node change
// reaches a CloneSet's plan at its next reconcile (upstream's CloneSet
// controller does not watch nodes either). It is safe for concurrent use:
// the informer writes while the workers read.
type NodeStore struct {
	mu sync.Mutex
	// hasSynced is the event handler registration's HasSynced: true once
	// the informer's initial list reached the store.
	hasSynced func() bool
	nodes     map[string]*model.Node
	// log holds the changes with sequence numbers compacted+1 .. last, in
	// order; the older ones were dropped.
	log       []nodeChange
	compacted uint64
	last      uint64
	// maxLog is the length at which the log drops its older half.
	maxLog int
}

// nodeChange is one entry of the change log: node is the node's new value,
// nil when it was deleted.
type nodeChange struct {
	seq  uint64
	name string
	node *model.Node
}

// defaultMaxNodeLog is the length of the change log at which a NodeStore
// drops its older half: a CloneSet not reconciled for that many node
// changes gets every node again (a pass over the nodes, as when listing).
const defaultMaxNodeLog = 4096

// newNodeStore returns an empty store whose log holds up to maxLog changes
// (defaultMaxNodeLog when 0). It is not synced until hasSynced is set and
// true.
func newNodeStore(maxLog int) *NodeStore {
	if maxLog <= 0 {
		maxLog = defaultMaxNodeLog
	}
	return &NodeStore{nodes: map[string]*model.Node{}, maxLog: maxLog}
}

// WatchNodes returns a NodeStore fed by the Node informer of informers (a
// manager's cache: mgr.GetCache()): it registers the store's add, update
// and delete handlers (deletions seen only as a tombstone,
// cache.DeletedFinalStateUnknown, included). It does not wait for the
// informer: the store is to be trusted only once HasSynced is true.
func WatchNodes(ctx context.Context, informers cache.Informers) (*NodeStore, error) {
	inf, err := informers.GetInformer(ctx, &corev1.Node{}, cache.BlockUntilSynced(false))
	if err != nil {
		return nil, err
	}
	s := newNodeStore(0)
	reg, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{AddFunc: s.add, UpdateFunc: s.update, DeleteFunc: s.delete})
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.hasSynced = reg.HasSynced
	s.mu.Unlock()
	return s, nil
}

// HasSynced reports whether the store holds the informer's nodes: the
// handler registration has synced (the informer's initial list was
// delivered to the store).
func (s *NodeStore) HasSynced() bool {
	s.mu.Lock()
	synced := s.hasSynced
	s.mu.Unlock()
	return synced != nil && synced()
}

// Len returns the number of nodes the store holds.
func (s *NodeStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.nodes)
}

func (s *NodeStore) add(obj any) {
	if n, ok := obj.(*corev1.Node); ok {
		s.set(n)
	}
}

func (s *NodeStore) update(_, obj any) {
	if n, ok := obj.(*corev1.Node); ok {
		s.set(n)
	}
}

// delete forgets a node, named by the object or, for a tombstone whose
// object is not a node, by its key (a node's key is its name).
func (s *NodeStore) delete(obj any) {
	var name string
	switch o := obj.(type) {
	case *corev1.Node:
		name = o.Name
	case toolscache.DeletedFinalStateUnknown:
		if n, ok := o.Obj.(*corev1.Node); ok {
			name = n.Name
		} else if _, key, err := toolscache.SplitMetaNamespaceKey(o.Key); err == nil {
			name = key
		}
	}
	if name == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.nodes[name]; !ok {
		return
	}
	delete(s.nodes, name)
	s.record(name, nil)
}

// set stores the node's conversion and logs a change when what the planner
// reads of it (its labels) changed: a status update or a resync is no
// change, and converts nothing.
func (s *NodeStore) set(n *corev1.Node) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur, ok := s.nodes[n.Name]; ok && maps.Equal(cur.Labels, n.Labels) {
		return
	}
	conv := NodeFromObject(n)
	conv.Labels = maps.Clone(conv.Labels) // nothing of the informer's object is kept
	s.nodes[n.Name] = conv
	s.record(n.Name, conv)
}

// record logs a change (s.mu held), dropping the older half of the log when
// it is full.
func (s *NodeStore) record(name string, node *model.Node) {
	s.last++
	s.log = append(s.log, nodeChange{seq: s.last, name: name, node: node})
	if len(s.log) > s.maxLog {
		drop := len(s.log) - s.maxLog/2
		s.compacted = s.log[drop-1].seq
		// A new array: readers hold copies, but keep the old one untouched.
		s.log = slices.Clone(s.log[drop:])
	}
}

// nodeRead is what a reconcile reads from the store for one CloneSet.
type nodeRead struct {
	// at is the sequence the CloneSet is at once it applied the read.
	at uint64
	// all, when set, are every node in name order: the Tracker is to hold
	// exactly them (changes is then empty).
	all bool
	// changes are the changes after the CloneSet's sequence, in order.
	changes []nodeChange
	// nodes are every node in name order, when all or snapshot was asked.
	nodes []*model.Node
}

// read returns, at one instant, what a CloneSet whose Tracker holds the
// nodes at sequence from (known false: it holds none of the store's) needs:
// the changes since, or every node when from is no longer in the log or
// not known; with snapshot, every node in name order in any case (to check
// the Tracker against Plan on the same nodes).
func (s *NodeStore) read(from uint64, known, snapshot bool) nodeRead {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := nodeRead{at: s.last}
	if !known || from < s.compacted || from > s.last {
		out.all = true
	} else {
		out.changes = slices.Clone(s.log[from-s.compacted:])
	}
	if out.all || snapshot {
		out.nodes = make([]*model.Node, 0, len(s.nodes))
		for _, n := range s.nodes {
			out.nodes = append(out.nodes, n)
		}
		slices.SortFunc(out.nodes, func(a, b *model.Node) int { return strings.Compare(a.Name, b.Name) })
	}
	return out
}
