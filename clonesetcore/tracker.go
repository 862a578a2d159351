package clonesetcore

import (
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/clonecore/cloneset/inplace"
	"github.com/clonecore/cloneset/lifecycle"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/ordering"
	"github.com/clonecore/cloneset/pvc"
)

// Tracker is the incremental input of the planner for one CloneSet: a
// controller keeps one per CloneSet, tells it of every object added, changed
// or removed (the CloneSet, its pods, PVCs, ControllerRevisions, the nodes
// and, with the PreDownloadImageForInPlaceUpdate gate, its ImagePullJobs),
// and calls Plan on each reconcile.
//
// The Tracker reads each pod when it is told of it and keeps a compact record
// of what the planner reads (kind, revision, lifecycle state, readiness and
// the time it became ready, instance id, specified-delete, whether the
// refresh step has work for it, whether the preDelete hook holds it) and its
// ordering keys, with an id for its node; Plan then works from the records
// instead of reading every pod again. Between plans it keeps what the events
// did not change: the update decision of each pod it updates (until the
// pod, the CloneSet, the revisions or the gates change: the decision does
// not depend on the clock), the pods for which the refresh step had nothing
// to do outside an in-place grace period (likewise), the PVC inventory
// (until a pod's kind or instance id, a PVC or the CloneSet changes), and
// the last update and deletion orders, from which the next sorts start
// almost sorted (they change only the speed, never the result).
// Tracker.Plan(now) returns
// exactly what Plan returns on Scenario(now), the same objects as a
// scenario: the same actions in the same order, the same status, requeue
// and notes, byte for byte.
//
// Objects are identified by name (the pods, PVCs and revisions of a CloneSet
// share its namespace): Set* replaces the object of the same name, Delete*
// forgets it. The Tracker keeps the objects it is given and reads some of
// them again when planning: an object must not be modified after it is
// handed over (informer caches hand out a new object on every change).
// Nil objects are ignored.
//
// A pod event costs O(1) (amortized): the pod is read once. A PVC event makes
// the next Plan read the PVCs again (they are cached between PVC changes), a
// revision event the revisions. A CloneSet change that alters what the
// records depend on (selector, name or uid; the update priority or scatter
// strategy) and a change of the feature gates make the next Plan read every
// pod again (or the facts concerned); a new update revision recomputes a flag
// per record without reading the pods. Plan costs O(n log n) like Plan on a
// scenario, but reads records instead of pods, in name order: Sync gives new
// pods slots in name order, and pods told one by one in another order are
// moved to slots in name order by the first Plan after the Tracker rebuilt
// its name order (at most once every n/8 pod additions and deletions). Plan
// changes no object it was given, and its result is pure: it reads no clock
// and depends only on the final set of objects, not on the order of the
// events. A Tracker is not safe for concurrent use.
type Tracker struct {
	gates      model.FeatureGates
	controller model.ControllerFlags
	cs         *model.CloneSet
	// setAside are the objects of the input left out of the CloneSet's,
	// named in the plan's notes (model.Scenario.SetAside).
	setAside []model.SetAside

	// Pods live in slots: pods[i], recs[i] and keys[i] are the object,
	// record and ordering keys of slot i (the keys apart, so that the pass
	// over the records walks small records; the round indexes the keys by
	// slot instead of copying them). order lists the live slots sorted by name, plus slots deleted
	// or added since it was last rebuilt (see sortedSlots).
	slot   map[string]int32
	pods   []*model.Pod
	recs   []podRecord
	keys   []ordering.PodKeys
	order  []int32
	added  []int32 // slots added since order was last rebuilt
	dead   int     // deleted slots still in order
	free   []int32 // slots to reuse (not in order)
	buried []int32 // deleted slots still in order, freed by the next rebuild
	// rebuilt is set when the name order was rebuilt since the last check
	// for scattered slots (renumberIfScattered).
	rebuilt bool

	// classStale is set when a CloneSet change can change the kind of every
	// pod (selector, name, uid): Plan reads every pod again.
	classStale bool
	// rereadAll is set when the gates changed: Plan reads every pod again.
	rereadAll bool
	// prioStale is set when the update priority or scatter strategy
	// changed: Plan reads every pod's priority and scatter flags again
	// (ordering.PodKeys.ReadPriority, ReadScatter).
	prioStale bool
	// hookStale is set when the CloneSet's preDelete hook changed: Plan
	// computes every record's recPreDeleteHooked again.
	hookStale bool
	// updatedFor is the update revision the records' updated flag was
	// computed for.
	updatedFor string

	pvcs      objects[*model.PVC]
	revisions objects[*model.Revision]
	nodes     objects[*model.Node]
	jobs      objects[*model.ImagePullJob]

	// buf holds the round's slices of the previous plan, reused.
	buf struct {
		observed, activeOwned []*model.Pod
		info                  []podInfo
		ids                   []string
		position, keyAt       []int
	}

	// claims caches the PVCs read (pvc.NewClaimSet) while neither the PVCs
	// nor the CloneSet's name and uid (ownership) change.
	claims *pvc.ClaimSet
	// inventory keeps the PVC Inventory of the last plan while it stays
	// the same: its answers depend on the kinds and instance ids of the
	// pods, the PVCs and the CloneSet only, none of which a status change
	// of a pod touches.
	inventory inventoryCache
	// nodeIndex counts the node names of the pods.
	nodeIndex nodeIndex

	// revs caches the resolved revisions and their notes while neither the
	// CloneSet nor the revisions change.
	revsValid bool
	revs      revisionSet
	revNotes  []string

	// decisions keeps the update decisions of the pods between plans.
	decisions decisionCache
	// delScratch holds the deletion rankings' buffers between plans.
	delScratch ordering.DeletionScratch
	// updScratch holds the update sort's buffers and last order.
	updScratch ordering.UpdateScratch
	// bufs holds the update phase's slices and the notes' set between plans.
	bufs roundBuffers
}

// inventoryCache is a round's PVC Inventory kept by a Tracker between plans
// (an Inventory's answers do not change once computed, and Allocate does not
// modify it).
type inventoryCache struct {
	inv   *pvc.Inventory
	valid bool
}

// nodeIndex is what a Tracker knows of the nodes for the deletion ranking:
// the nodes by name, and an id for each node name its pods reference (the
// pods' keys carry it: ordering.PodKeys.SetNodeID) with the number of pods
// naming it, so that a plan learns whether some pod names a node the Tracker
// does not hold (a note) without reading every pod, and the ranking groups
// the pods by node without looking names up.
type nodeIndex struct {
	byName map[string]*model.Node // the Tracker's nodes (objects.byName)
	ids    map[string]int32       // node name -> id, for the names pods reference
	names  []string               // id -> name; "" for an id not in use
	refs   []int32                // id -> pods naming it
	free   []int32                // ids not in use
	// checked is set when allExist holds the answer of
	// allReferencedExist; a new node name and a node event clear it.
	checked, allExist bool
}

// ref counts d more pods naming node n and returns n's id (-1 for ""). A
// name no pod names any more gives its id back.
func (x *nodeIndex) ref(n string, d int32) int32 {
	if n == "" {
		return -1
	}
	id, ok := x.ids[n]
	if !ok {
		x.checked = false
		if k := len(x.free); k > 0 {
			id, x.free = x.free[k-1], x.free[:k-1]
		} else {
			id = int32(len(x.names))
			x.names, x.refs = append(x.names, ""), append(x.refs, 0)
		}
		if x.ids == nil {
			x.ids = map[string]int32{}
		}
		x.ids[n], x.names[id] = id, n
	}
	if x.refs[id] += d; x.refs[id] <= 0 {
		delete(x.ids, n)
		x.names[id], x.refs[id] = "", 0
		x.free = append(x.free, id)
	}
	return id
}

// id returns the id of node name n, -1 when no pod names it.
func (x *nodeIndex) id(n string) int32 {
	if id, ok := x.ids[n]; ok && n != "" {
		return id
	}
	return -1
}

// allReferencedExist reports whether every node named by a pod of the
// Tracker is one of its nodes. It is O(1) between changes of the set of
// names and of the nodes.
func (x *nodeIndex) allReferencedExist() bool {
	if !x.checked {
		x.allExist = true
		for n := range x.ids {
			if x.byName[n] == nil {
				x.allExist = false
				break
			}
		}
		x.checked = true
	}
	return x.allExist
}

// podRecord is what the planner reads of one pod, read when the Tracker is
// told of the pod.
type podRecord struct {
	name     string
	state    string // lifecycle state label
	revLabel string // controller-revision-hash label
	id       string // instance-id label
	// readyAt is the Ready condition's lastTransitionTime, for statusReady
	// pods: with minReadySeconds m > 0 such a pod is available at now when
	// readyAt is set and readyAt+m is before now.
	readyAt time.Time
	flags   recordFlags
	pos     int32   // index in the round's observed pods (valid during Plan)
	kind    podKind // against the CloneSet of the last classification
	updated bool    // at Tracker.updatedFor
}

type recordFlags uint8

const (
	recSpecified   recordFlags = 1 << iota // carries the specified-delete label
	recStatusReady                         // model.Pod.IsStatusReady
	recInGrace                             // in an in-place grace period
	recRefresh                             // the refresh step has work for it
	recLive                                // the slot holds a pod
	// recPreDeleteHooked: lifecycle.AnyHooked(the CloneSet's preDelete
	// hook, pod), as of the last reading (see hookStale).
	recPreDeleteHooked
)

// objects is a set of named objects with their list in name order, rebuilt
// when the set changed.
type objects[T any] struct {
	byName map[string]T
	list   []T
	stale  bool
}

func (o *objects[T]) set(name string, v T) {
	if o.byName == nil {
		o.byName = map[string]T{}
	}
	o.byName[name] = v
	o.stale = true
}

func (o *objects[T]) delete(name string) bool {
	if _, ok := o.byName[name]; !ok {
		return false
	}
	delete(o.byName, name)
	o.stale = true
	return true
}

// sorted returns the objects in name order.
func (o *objects[T]) sorted() []T {
	if o.stale || (o.list == nil && len(o.byName) > 0) {
		names := make([]string, 0, len(o.byName))
		for n := range o.byName {
			names = append(names, n)
		}
		slices.Sort(names)
		o.list = make([]T, len(names))
		for i, n := range names {
			o.list[i] = o.byName[n]
		}
		o.stale = false
	}
	return o.list
}

// NewTracker returns an empty Tracker planning with the given feature gates
// and controller flags (those of model.Scenario).
func NewTracker(gates model.FeatureGates, controller model.ControllerFlags) *Tracker {
	return &Tracker{gates: gates, controller: controller, slot: map[string]int32{}}
}

// SetGates changes the feature gates of the following plans.
func (t *Tracker) SetGates(g model.FeatureGates) {
	if g != t.gates {
		t.gates = g
		t.revsValid = false // the derived revision's name depends on no gate, but stay safe
		t.rereadAll = true  // the records' refresh flags depend on the gates
	}
}

// SetController changes the controller flags of the following plans.
func (t *Tracker) SetController(c model.ControllerFlags) { t.controller = c }

// CloneSet returns the CloneSet the Tracker plans for (nil before SetCloneSet).
func (t *Tracker) CloneSet() *model.CloneSet { return t.cs }

// SetCloneSet sets (adds or replaces) the CloneSet; nil removes it, after
// which Plan returns ErrNoCloneSet.
func (t *Tracker) SetCloneSet(cs *model.CloneSet) {
	old := t.cs
	t.cs = cs
	t.revsValid = false
	t.inventory.valid = false
	if cs == nil {
		return
	}
	if old == nil || !reflect.DeepEqual(priorityStrategy(old), priorityStrategy(cs)) || !reflect.DeepEqual(scatterStrategy(old), scatterStrategy(cs)) {
		t.prioStale = true
	}
	if old == nil || !reflect.DeepEqual(preDeleteHook(old), preDeleteHook(cs)) {
		t.hookStale = true
	}
	if old == nil || old.UID != cs.UID || old.Name != cs.Name {
		t.claims = nil
	}
	if old == nil || old.UID != cs.UID || old.Name != cs.Name || !reflect.DeepEqual(old.Spec.Selector, cs.Spec.Selector) {
		t.classStale = true
	}
}

// SetPod adds the pod or replaces the pod of the same name.
func (t *Tracker) SetPod(p *model.Pod) {
	if p == nil {
		return
	}
	i, ok := t.slot[p.Name]
	if !ok {
		if n := len(t.free); n > 0 {
			i = t.free[n-1]
			t.free = t.free[:n-1]
		} else {
			i = int32(len(t.pods))
			t.pods = append(t.pods, nil)
			t.recs = append(t.recs, podRecord{})
			t.keys = append(t.keys, ordering.PodKeys{})
		}
		t.slot[p.Name] = i
		t.added = append(t.added, i)
		t.decisions.grow(i)
	}
	t.decisions.forget(i)
	t.pods[i] = p
	prev, prevNode := t.recs[i], t.keys[i].Node()
	t.recs[i] = t.read(p, &t.keys[i])
	n := t.keys[i].Node()
	switch {
	case !ok:
		t.keys[i].SetNodeID(t.nodeIndex.ref(n, 1))
	case n != prevNode:
		t.nodeIndex.ref(prevNode, -1)
		t.keys[i].SetNodeID(t.nodeIndex.ref(n, 1))
	default:
		t.keys[i].SetNodeID(t.nodeIndex.id(n))
	}
	if !ok || t.classStale || prev.kind != t.recs[i].kind || prev.id != t.recs[i].id {
		t.inventory.valid = false
	}
	if !ok {
		t.compact()
	}
}

// DeletePod forgets the pod of that name (no-op when unknown).
func (t *Tracker) DeletePod(name string) {
	i, ok := t.slot[name]
	if !ok {
		return
	}
	delete(t.slot, name)
	t.nodeIndex.ref(t.keys[i].Node(), -1)
	t.pods[i] = nil
	t.recs[i] = podRecord{}
	t.keys[i] = ordering.PodKeys{}
	t.decisions.forget(i)
	t.inventory.valid = false
	t.dead++
	t.buried = append(t.buried, i)
	t.compact()
}

// compactSlack is the number of additions and deletions compact lets
// wait besides n/8 (a variable for the tests).
var compactSlack = 64

// compact rebuilds the name order when many pods were added or deleted
// since the last rebuild, so that a Tracker told of many events between
// plans keeps its memory bounded; the rebuild, O(n), runs once every n/8
// such events.
func (t *Tracker) compact() {
	if len(t.added)+len(t.buried) > compactSlack+len(t.slot)/8 {
		t.sortedSlots()
	}
}

// Pod returns the pod of that name, or nil.
func (t *Tracker) Pod(name string) *model.Pod {
	if i, ok := t.slot[name]; ok {
		return t.pods[i]
	}
	return nil
}

// Len returns the number of pods the Tracker holds.
func (t *Tracker) Len() int { return len(t.slot) }

// SetPVC adds the PVC or replaces the PVC of the same name.
func (t *Tracker) SetPVC(c *model.PVC) {
	if c != nil {
		t.pvcs.set(c.Name, c)
		t.claims = nil
		t.inventory.valid = false
	}
}

// DeletePVC forgets the PVC of that name.
func (t *Tracker) DeletePVC(name string) {
	if t.pvcs.delete(name) {
		t.claims = nil
		t.inventory.valid = false
	}
}

// SetRevision adds the ControllerRevision or replaces the revision of the
// same name.
func (t *Tracker) SetRevision(r *model.Revision) {
	if r != nil {
		t.revisions.set(r.Name, r)
		t.revsValid = false
	}
}

// DeleteRevision forgets the ControllerRevision of that name.
func (t *Tracker) DeleteRevision(name string) {
	if t.revisions.delete(name) {
		t.revsValid = false
	}
}

// SetImagePullJob adds the ImagePullJob or replaces the job of the same
// name (model.Scenario.ImagePullJobs: the planner deletes the CloneSet's
// jobs once its rollout is done, with the PreDownloadImageForInPlaceUpdate
// gate on).
func (t *Tracker) SetImagePullJob(j *model.ImagePullJob) {
	if j != nil {
		t.jobs.set(j.Name, j)
	}
}

// DeleteImagePullJob forgets the ImagePullJob of that name.
func (t *Tracker) DeleteImagePullJob(name string) { t.jobs.delete(name) }

// SetNode adds the node or replaces the node of the same name.
func (t *Tracker) SetNode(n *model.Node) {
	if n != nil {
		t.nodes.set(n.Name, n)
		t.nodeIndex.checked = false
	}
}

// SetSetAside replaces the objects of the input that are left out of the
// CloneSet's (an adapter's sorting of what it listed): Plan names them in its
// notes, as Plan does with model.Scenario.SetAside.
func (t *Tracker) SetSetAside(list []model.SetAside) { t.setAside = slices.Clone(list) }

// DeleteNode forgets the node of that name.
func (t *Tracker) DeleteNode(name string) {
	if t.nodes.delete(name) {
		t.nodeIndex.checked = false
	}
}

// Sync makes the Tracker hold exactly the objects of s (its CloneSet, pods,
// PVCs, revisions, ImagePullJobs and nodes), its gates and controller flags, by applying the
// differences: objects the Tracker already holds (the same pointer) are not
// read again. It suits a controller that lists objects instead of watching
// them. The objects s sets aside are named in the plans' notes, as Plan
// names them; s.Now and s.Description are not used. Sync is SyncExceptNodes
// followed by the same differences for the nodes.
func (t *Tracker) Sync(s *model.Scenario) {
	t.SyncExceptNodes(s)
	syncObjects(&t.nodes, s.Nodes, func(n *model.Node) string { return n.Name }, t.SetNode, t.DeleteNode)
}

// SyncExceptNodes is Sync without the nodes: the Tracker holds exactly the
// CloneSet, pods, PVCs, revisions, ImagePullJobs and set-aside objects of s, its gates and
// controller flags, and keeps the nodes it holds, whatever s.Nodes holds
// (it is not read). It suits a controller that lists a CloneSet's objects
// on each reconcile but keeps the nodes, which all CloneSets share, from
// events: it tells the Tracker of them with SetNode and DeleteNode, so that
// a reconcile costs the node changes since the last one rather than a pass
// over every node.
func (t *Tracker) SyncExceptNodes(s *model.Scenario) {
	t.SetSetAside(s.SetAside)
	t.SetGates(s.Gates)
	t.SetController(s.Controller)
	if s.CloneSet != t.cs {
		t.SetCloneSet(s.CloneSet)
	}
	keep := make(map[string]bool, len(s.Pods))
	var changed []*model.Pod
	for _, p := range s.Pods {
		if p == nil {
			continue
		}
		keep[p.Name] = true
		if t.Pod(p.Name) != p {
			changed = append(changed, p)
		}
	}
	// In name order: new pods then get slots in name order, which the
	// plans walk sequentially.
	slices.SortStableFunc(changed, func(a, b *model.Pod) int { return strings.Compare(a.Name, b.Name) })
	for _, p := range changed {
		t.SetPod(p)
	}
	for name := range t.slot {
		if !keep[name] {
			t.DeletePod(name)
		}
	}
	syncObjects(&t.pvcs, s.PVCs, func(c *model.PVC) string { return c.Name }, t.SetPVC, t.DeletePVC)
	syncObjects(&t.revisions, s.Revisions, func(r *model.Revision) string { return r.Name }, t.SetRevision, t.DeleteRevision)
	syncObjects(&t.jobs, s.ImagePullJobs, func(j *model.ImagePullJob) string { return j.Name }, t.SetImagePullJob, t.DeleteImagePullJob)
}

func syncObjects[T comparable](o *objects[T], list []T, name func(T) string, set func(T), del func(string)) {
	var zero T
	keep := make(map[string]bool, len(list))
	for _, v := range list {
		if v == zero {
			continue
		}
		n := name(v)
		keep[n] = true
		if cur, ok := o.byName[n]; !ok || cur != v {
			set(v)
		}
	}
	for n := range o.byName {
		if !keep[n] {
			del(n)
		}
	}
}

// Scenario returns the objects the Tracker holds as a scenario planned at
// now (pods, PVCs, revisions, ImagePullJobs and nodes in name order): Plan(Scenario(now))
// equals t.Plan(now).
func (t *Tracker) Scenario(now time.Time) *model.Scenario {
	s := &model.Scenario{Now: now, Gates: t.gates, Controller: t.controller, CloneSet: t.cs, SetAside: slices.Clone(t.setAside)}
	// From the names, not from the name order Plan uses: the property tests
	// compare the two.
	names := make([]string, 0, len(t.slot))
	for n := range t.slot {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		s.Pods = append(s.Pods, t.pods[t.slot[n]])
	}
	s.PVCs = slices.Clone(t.pvcs.sorted())
	s.Revisions = slices.Clone(t.revisions.sorted())
	s.Nodes = slices.Clone(t.nodes.sorted())
	s.ImagePullJobs = slices.Clone(t.jobs.sorted())
	return s
}

// Plan computes the decision of one reconcile at now from the objects the
// Tracker holds: the result of Plan(t.Scenario(now)), computed from the
// records. It does not change what the Tracker holds.
func (t *Tracker) Plan(now time.Time) (*Result, error) {
	if t.cs == nil {
		return nil, ErrNoCloneSet
	}
	s := &model.Scenario{
		Now: now, Gates: t.gates, Controller: t.controller, CloneSet: t.cs,
		PVCs: t.pvcs.sorted(), Nodes: t.nodes.sorted(), SetAside: t.setAside,
		ImagePullJobs: t.jobs.sorted(),
	}
	// Validation (A10) looks the podsToDelete names up among the pods.
	for _, n := range t.cs.Spec.ScaleStrategy.PodsToDelete {
		if p := t.Pod(n); p != nil {
			s.Pods = append(s.Pods, p)
		}
	}
	return newRoundFrom(s, t).plan()
}

// read computes the record of a pod and stores its ordering keys in keys;
// kind and updated are those of the current CloneSet and the last resolved
// update revision.
func (t *Tracker) read(p *model.Pod, keys *ordering.PodKeys) podRecord {
	rec := podRecord{
		name:     p.Name,
		state:    p.LifecycleState(),
		revLabel: p.RevisionLabel(),
		id:       p.InstanceID(),
		flags:    recLive,
	}
	*keys = ordering.ReadKeys(p)
	if p.HasSpecifiedDeleteLabel() {
		rec.flags |= recSpecified
	}
	if statusReady, _ := p.Readiness(0, time.Time{}); statusReady {
		rec.flags |= recStatusReady
		rec.readyAt = p.ReadyTime()
	}
	inGrace, inPlaceRefresh := inplace.RefreshFacts(p)
	_, hasHash := p.Labels[model.LabelPodTemplateHash]
	if inGrace {
		rec.flags |= recInGrace
	}
	if inPlaceRefresh && !inGrace {
		// Outside a grace period the in-place bookkeeping depends on the
		// pod and the gates only, not on the clock (the clock only stamps
		// an update it applies): when it has nothing to do now, it has
		// nothing to do at any time, and the refresh step can skip the pod
		// unless its lifecycle state needs it.
		if acts, wait, err := inplace.Refresh(p, t.gates, time.Time{}); len(acts) == 0 && wait == 0 && err == nil {
			inPlaceRefresh = false
		}
	}
	if inPlaceRefresh || lifecycle.RefreshNeeded(rec.state, hasHash) {
		rec.flags |= recRefresh
	}
	if t.cs != nil && !t.classStale {
		rec.kind = t.classify(p)
	}
	if t.cs != nil {
		keys.ReadPriority(priorityStrategy(t.cs), p)
		keys.ReadScatter(scatterStrategy(t.cs), p)
		if lifecycle.AnyHooked(preDeleteHook(t.cs), p) {
			rec.flags |= recPreDeleteHooked
		}
	}
	rec.updated = model.RevisionMatches(rec.revLabel, t.updatedFor)
	return rec
}

// classify is round.classify against the Tracker's CloneSet.
func (t *Tracker) classify(p *model.Pod) podKind {
	r := round{cs: t.cs}
	return r.classify(p, t.cs.Spec.Selector.Matcher())
}

// sortedSlots returns the live slots in name order, rebuilding the order
// after pods were added or deleted: the added slots are sorted and merged
// with the order, deleted slots dropped.
func (t *Tracker) sortedSlots() []int32 {
	if len(t.added) == 0 && t.dead == 0 {
		return t.order
	}
	added := t.added
	slices.SortFunc(added, func(a, b int32) int { return strings.Compare(t.recs[a].name, t.recs[b].name) })
	// A slot added then deleted before this rebuild is dead: skipped.
	merged := make([]int32, 0, len(t.slot))
	old := t.order
	// Deleted slots are reused only after this rebuild dropped them.
	t.free = append(t.free, t.buried...)
	t.buried = t.buried[:0]
	k := 0
	for _, i := range old {
		if t.recs[i].flags&recLive == 0 {
			continue
		}
		for k < len(added) && (t.recs[added[k]].flags&recLive == 0 || t.recs[added[k]].name < t.recs[i].name) {
			if t.recs[added[k]].flags&recLive != 0 {
				merged = append(merged, added[k])
			}
			k++
		}
		merged = append(merged, i)
	}
	for ; k < len(added); k++ {
		if t.recs[added[k]].flags&recLive != 0 {
			merged = append(merged, added[k])
		}
	}
	t.order = merged
	t.added = t.added[:0]
	t.dead = 0
	t.rebuilt = true
	return t.order
}

// renumberMin is the number of pods from which a Tracker renumbers its
// slots in name order when they are scattered (a variable for the tests).
var renumberMin = 1024

// renumberIfScattered moves the pods to slots in name order when the name
// order jumps between slots often (more than once every four pods): pods
// told one by one in another order (or many added after the first plan)
// would otherwise be walked in random memory order by every plan, about
// 1.5 times slower at 100,000 pods. Plan calls it when the name order was
// rebuilt since the last check (a rebuild happens at most once every n/8
// pod additions and deletions), right after bringing the name order up to
// date (no slot is buried then); it is O(n). Events do not call it, so that
// a Tracker told of many pods one by one renumbers once, at its next plan.
func (t *Tracker) renumberIfScattered() {
	if !t.rebuilt {
		return
	}
	t.rebuilt = false
	n := len(t.order)
	if n < renumberMin || len(t.buried) > 0 {
		return
	}
	jumps := 0
	for k := 1; k < n; k++ {
		if t.order[k] != t.order[k-1]+1 {
			jumps++
		}
	}
	if jumps <= n/4 {
		return
	}
	pods := make([]*model.Pod, n)
	recs := make([]podRecord, n)
	keys := make([]ordering.PodKeys, n)
	entries := make([]*cachedDecision, n)
	quiet := make([]quietRefresh, n)
	for k, i := range t.order {
		pods[k], recs[k], keys[k] = t.pods[i], t.recs[i], t.keys[i]
		if int(i) < len(t.decisions.entries) {
			entries[k], quiet[k] = t.decisions.entries[i], t.decisions.quiet[i]
		}
		t.slot[recs[k].name] = int32(k)
		t.order[k] = int32(k)
	}
	t.pods, t.recs, t.keys, t.decisions.entries, t.decisions.quiet = pods, recs, keys, entries, quiet
	t.free = t.free[:0]
}

// resolveRevisions is the round's revision resolution, cached while neither
// the CloneSet nor the revisions change.
func (t *Tracker) resolveRevisions(cs *model.CloneSet, n *notes) revisionSet {
	if !t.revsValid {
		var rn notes
		t.revs = resolveRevisions(cs, t.revisions.sorted(), &rn)
		t.revNotes = rn.list
		t.revsValid = true
		t.decisions.revGen++ // the decisions read the revisions
	}
	n.addAll(t.revNotes)
	return t.revs
}

// refreshRecords brings the CloneSet-dependent facts of the records up to
// date: the kinds after a change of the selector, name or uid (every pod is
// read again), the updated flags after a change of the update revision.
func (t *Tracker) refreshRecords(update string) {
	if t.rereadAll {
		t.classStale, t.prioStale = true, false // read does the priorities
		for i, p := range t.pods {
			if p != nil {
				t.recs[i] = t.read(p, &t.keys[i])
				t.keys[i].SetNodeID(t.nodeIndex.id(t.keys[i].Node()))
			}
		}
		t.rereadAll = false
		t.hookStale = false // read did the hooks
		t.updatedFor = ""   // read used the old update revision
		t.inventory.valid = false
	}
	if t.classStale {
		selector := t.cs.Spec.Selector.Matcher()
		r := round{cs: t.cs}
		for i, p := range t.pods {
			if p != nil {
				t.recs[i].kind = r.classify(p, selector)
			}
		}
		t.classStale = false
		t.inventory.valid = false
	}
	if t.hookStale {
		h := preDeleteHook(t.cs)
		for i, p := range t.pods {
			if p != nil {
				t.recs[i].flags &^= recPreDeleteHooked
				if lifecycle.AnyHooked(h, p) {
					t.recs[i].flags |= recPreDeleteHooked
				}
			}
		}
		t.hookStale = false
	}
	if t.prioStale {
		ps, ss := priorityStrategy(t.cs), scatterStrategy(t.cs)
		for i, p := range t.pods {
			if p != nil {
				t.keys[i].ReadPriority(ps, p)
				t.keys[i].ReadScatter(ss, p)
			}
		}
		t.prioStale = false
	}
	if update != t.updatedFor {
		for i := range t.recs {
			t.recs[i].updated = model.RevisionMatches(t.recs[i].revLabel, update)
		}
		t.updatedFor = update
	}
}

// classifyPods is round.classifyPods from the records: the pods in name
// order are the canonical order and stand for the input order too (the
// round's results do not depend on it when names are distinct, as they are
// here).
func (t *Tracker) classifyPods(r *round) {
	t.refreshRecords(r.revs.update.Name)
	t.sortedSlots()
	t.renumberIfScattered()
	order := t.order
	m := r.cs.Spec.MinReadySeconds
	minReady := time.Duration(m) * time.Second
	n := 0
	for _, i := range order {
		if k := t.recs[i].kind; k == podObserved || k == podAdopted {
			n++
		}
	}
	// The slices of the round are reused from plan to plan: no Result
	// refers to them.
	b := &t.buf
	r.observed = slices.Grow(b.observed[:0], n)
	r.activeOwned = slices.Grow(b.activeOwned[:0], n)
	r.info = slices.Grow(b.info[:0], n)
	r.keys = t.keys // indexed by slot: r.keyAt
	r.decisions = &t.decisions
	r.delScratch = &t.delScratch
	r.updScratch = &t.updScratch
	r.bufs = &t.bufs
	r.recs = t.recs
	// The notes' set of the previous plan, emptied, holds those of this
	// one (the notes themselves go to the Result).
	if t.bufs.seen == nil {
		t.bufs.seen = map[string]bool{}
	}
	clear(t.bufs.seen)
	for n := range r.notes.seen {
		t.bufs.seen[n] = true
	}
	r.notes.seen = t.bufs.seen
	r.keyAt = slices.Grow(b.keyAt[:0], n)
	ids := slices.Grow(b.ids[:0], n)
	var adopted []string
	for _, i := range order {
		rec := &t.recs[i]
		p := t.pods[i]
		switch rec.kind {
		case podInactive:
			r.inactive = append(r.inactive, p)
		case podObserved, podAdopted:
			ready := rec.flags&recStatusReady != 0
			updateReady := ready && (m == 0 || (!rec.readyAt.IsZero() && rec.readyAt.Add(minReady).Before(r.now)))
			r.info = append(r.info, podInfo{
				state:     rec.state,
				updated:   rec.updated,
				specified: rec.flags&recSpecified != 0,
				available: model.AvailableState(rec.state) && updateReady,
				ready:     ready,
				inGrace:   rec.flags&recInGrace != 0,
				refresh:   rec.flags&recRefresh != 0,
			})
			rec.pos = int32(len(r.info) - 1)
			ids = append(ids, rec.id)
			r.keyAt = append(r.keyAt, int(i))
			r.observed = append(r.observed, p)
			r.activeOwned = append(r.activeOwned, p)
			if rec.kind == podAdopted {
				adopted = append(adopted, p.Name)
			}
		case podReleased:
			r.released = append(r.released, p)
			r.activeOwned = append(r.activeOwned, p)
		}
	}
	position := slices.Grow(b.position[:0], len(r.observed))[:len(r.observed)]
	for i := range position {
		position[i] = i
	}
	b.observed, b.activeOwned, b.info, b.keyAt, b.ids, b.position = r.observed, r.activeOwned, r.info, r.keyAt, ids, position
	r.byInput.observed, r.byInput.activeOwned, r.byInput.position, r.byInput.ids = r.observed, r.activeOwned, position, ids
	r.byInput.canonical = true
	// round.finishPods without reading the pods again: names are distinct
	// in a Tracker, and podsToDelete is looked up by name.
	for _, name := range r.cs.Spec.ScaleStrategy.PodsToDelete {
		if i, ok := t.slot[name]; ok {
			if rec := &t.recs[i]; rec.kind == podObserved || rec.kind == podAdopted {
				r.info[rec.pos].specified = true
			}
		}
	}
	r.uniqueNames = true
	r.notePods(adopted)
	if t.claims == nil {
		t.claims = pvc.NewClaimSet(t.cs, t.pvcs.sorted())
	}
	r.claimSet = t.claims
	r.inventory = &t.inventory
	t.nodeIndex.byName = t.nodes.byName
	r.nodes = &t.nodeIndex
}

// preDeleteHook returns the CloneSet's preDelete hook, or nil.
func preDeleteHook(cs *model.CloneSet) *model.LifecycleHook {
	if l := cs.Spec.Lifecycle; l != nil {
		return l.PreDelete
	}
	return nil
}

// priorityStrategy returns the CloneSet's update priority strategy, or nil.
func priorityStrategy(cs *model.CloneSet) *model.UpdatePriorityStrategy {
	if ru := cs.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		return ru.PriorityStrategy
	}
	return nil
}

// scatterStrategy returns the CloneSet's scatter strategy, or nil.
func scatterStrategy(cs *model.CloneSet) []model.ScatterTerm {
	if ru := cs.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		return ru.ScatterStrategy
	}
	return nil
}
