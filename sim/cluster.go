package sim

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"sort"
	"strconv"
	"time"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/model"
)

// Cluster is an in-memory cluster holding one CloneSet and everything around it:
// its pods, PVCs, ControllerRevisions and nodes, a scheduler and kubelet, the
// user's hook controller and the injected faults (World). It evolves over a
// virtual clock that only moves when AdvanceTo is called.
//
// A controller loop reads a Snapshot, plans it with clonesetcore.Plan and
// applies the plan with Apply; AdvanceTo then lets the world react. Nothing in
// a Cluster reads the wall clock or global randomness: the same scenario,
// world and calls give the same cluster, byte for byte.
//
// A Cluster is not safe for concurrent use.
type Cluster struct {
	start, now  time.Time
	description string
	cs          *model.CloneSet
	gates       model.FeatureGates
	controller  model.ControllerFlags
	pods        map[string]*model.Pod
	pvcs        map[string]*model.PVC
	revisions   []*model.Revision
	jobs        map[string]*model.ImagePullJob
	nodes       []*node
	world       World
	rng         *rand.Rand
	queue       eventQueue
	states      map[string]*podState
	log         []string
	quirks      []string
	seq         int
}

type node struct {
	obj  *model.Node
	lost bool
	gone bool
}

// ErrNoCloneSet is returned by NewCluster for a scenario without a CloneSet.
var ErrNoCloneSet = errors.New("sim: the scenario has no CloneSet")

// NewCluster builds a cluster from a scenario (as manifest.Load returns it: a
// defaulted CloneSet and the objects that belong to it) and a world. The
// scenario is copied; the clock starts at scn.Now. Pods the scenario carries
// are taken over by the kubelet in whatever state they are (a Pending pod is
// started, a terminating pod finishes terminating, ...). A template without a
// raw tree (built in code) gets one rendered from its typed fields, because the
// revision hash and the in-place comparison read it. When the scenario has no
// ControllerRevision at all, one is created for the current template, as the
// controller would on its first round.
func NewCluster(scn *model.Scenario, w World) (*Cluster, error) {
	if scn == nil || scn.CloneSet == nil {
		return nil, ErrNoCloneSet
	}
	c := &Cluster{
		start: scn.Now, now: scn.Now, description: scn.Description,
		cs: scn.CloneSet.DeepCopy(), gates: scn.Gates, controller: scn.Controller,
		pods: map[string]*model.Pod{}, pvcs: map[string]*model.PVC{}, jobs: map[string]*model.ImagePullJob{},
		world: w, rng: rand.New(rand.NewPCG(w.Seed, w.Seed^0x9e3779b97f4a7c15)),
		states: map[string]*podState{},
	}
	if c.cs.Spec.Template.Raw == nil {
		c.cs.Spec.Template.Raw = model.TemplateTree(c.cs.Spec.Template)
	}
	for _, p := range scn.Pods {
		if p == nil {
			continue
		}
		if _, dup := c.pods[p.Name]; dup {
			return nil, fmt.Errorf("sim: two pods named %s", p.Name)
		}
		c.pods[p.Name] = p.DeepCopy()
	}
	for _, v := range scn.PVCs {
		if v != nil {
			c.pvcs[v.Name] = v.DeepCopy()
		}
	}
	for _, r := range scn.Revisions {
		if r != nil {
			c.revisions = append(c.revisions, r.DeepCopy())
		}
	}
	c.revisions = model.SortRevisions(c.revisions)
	for _, j := range scn.ImagePullJobs {
		if j != nil {
			c.jobs[j.Name] = j.DeepCopy()
		}
	}
	if len(c.revisions) == 0 {
		if err := c.firstRevision(); err != nil {
			return nil, fmt.Errorf("sim: %w", err)
		}
		if c.cs.Status.CurrentRevision == "" {
			c.cs.Status.CurrentRevision = c.revisions[0].Name
		}
	}
	c.initNodes(scn.Nodes)
	for _, name := range c.podNames() {
		c.stateOf(c.pods[name], true)
	}
	for i, nl := range w.Faults.NodeLoss {
		c.push(event{at: c.start.Add(nl.At), kind: evNodeLost, node: nl.Node, index: i})
	}
	c.sync()
	return c, nil
}

func (c *Cluster) initNodes(scnNodes []*model.Node) {
	seen := map[string]bool{}
	add := func(n *model.Node) {
		if n == nil || n.Name == "" || seen[n.Name] {
			return
		}
		seen[n.Name] = true
		c.nodes = append(c.nodes, &node{obj: &model.Node{Name: n.Name, Labels: maps.Clone(n.Labels)}})
	}
	if len(c.world.Nodes) > 0 {
		for _, n := range c.world.Nodes {
			add(&model.Node{Name: n, Labels: map[string]string{"kubernetes.io/hostname": n}})
		}
	}
	for _, n := range scnNodes {
		add(n)
	}
	for _, name := range c.podNames() {
		if nn := c.pods[name].Spec.NodeName; nn != "" {
			add(&model.Node{Name: nn, Labels: map[string]string{"kubernetes.io/hostname": nn}})
		}
	}
	if len(c.nodes) == 0 {
		for i := 0; i < 3; i++ {
			n := "node-" + strconv.Itoa(i)
			add(&model.Node{Name: n, Labels: map[string]string{"kubernetes.io/hostname": n}})
		}
	}
	sort.Slice(c.nodes, func(i, j int) bool { return c.nodes[i].obj.Name < c.nodes[j].obj.Name })
}

// Now returns the cluster's clock.
func (c *Cluster) Now() time.Time { return c.now }

// Start returns the instant the cluster was created at.
func (c *Cluster) Start() time.Time { return c.start }

// CloneSet returns a copy of the CloneSet as stored (spec and status).
func (c *Cluster) CloneSet() *model.CloneSet { return c.cs.DeepCopy() }

// Pods returns copies of every pod of the cluster (active, terminating and
// terminal), sorted by name.
func (c *Cluster) Pods() []*model.Pod {
	out := make([]*model.Pod, 0, len(c.pods))
	for _, n := range c.podNames() {
		out = append(out, c.pods[n].DeepCopy())
	}
	return out
}

// Pod returns a copy of the named pod, or nil.
func (c *Cluster) Pod(name string) *model.Pod { return c.pods[name].DeepCopy() }

// PVCs returns copies of every PVC, sorted by name.
func (c *Cluster) PVCs() []*model.PVC {
	names := make([]string, 0, len(c.pvcs))
	for n := range c.pvcs {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]*model.PVC, 0, len(names))
	for _, n := range names {
		out = append(out, c.pvcs[n].DeepCopy())
	}
	return out
}

// Revisions returns copies of the ControllerRevisions in history order.
func (c *Cluster) Revisions() []*model.Revision {
	out := make([]*model.Revision, 0, len(c.revisions))
	for _, r := range model.SortRevisions(c.revisions) {
		out = append(out, r.DeepCopy())
	}
	return out
}

// ImagePullJobs returns copies of the ImagePullJobs (the image pre-download
// of in-place updates), sorted by name.
func (c *Cluster) ImagePullJobs() []*model.ImagePullJob {
	out := make([]*model.ImagePullJob, 0, len(c.jobs))
	for _, n := range model.SortedKeys(c.jobs) {
		out = append(out, c.jobs[n].DeepCopy())
	}
	return out
}

// Snapshot returns what one reconcile sees: a deep copy of the CloneSet, its
// pods, PVCs, revisions, ImagePullJobs and the nodes still in the cluster, at the cluster's
// clock, with the scenario's gates and controller flags. It shares nothing with
// the cluster.
func (c *Cluster) Snapshot() *model.Scenario {
	s := &model.Scenario{
		Description: c.description, Now: c.now, Gates: c.gates, Controller: c.controller,
		CloneSet: c.cs.DeepCopy(),
	}
	s.Pods = c.Pods()
	s.PVCs = c.PVCs()
	s.Revisions = c.Revisions()
	s.ImagePullJobs = c.ImagePullJobs()
	for _, n := range c.nodes {
		if !n.gone {
			s.Nodes = append(s.Nodes, &model.Node{Name: n.obj.Name, Labels: maps.Clone(n.obj.Labels)})
		}
	}
	return s
}

// TakeLog returns what happened in the cluster since the previous call (pods
// scheduled, started, ready, crashed, removed; hooks released; faults), in
// order, and clears it.
func (c *Cluster) TakeLog() []string {
	out := c.log
	c.log = nil
	return out
}

// Quirks returns the upstream quirks the cluster has seen take effect (for
// example a NotReady key that leaked, LSV 7.10), in order of first sighting.
func (c *Cluster) Quirks() []string { return append([]string(nil), c.quirks...) }

func (c *Cluster) logf(format string, args ...any) {
	c.log = append(c.log, fmt.Sprintf(format, args...))
}

func (c *Cluster) quirk(s string) {
	for _, q := range c.quirks {
		if q == s {
			return
		}
	}
	c.quirks = append(c.quirks, s)
}

func (c *Cluster) podNames() []string {
	names := make([]string, 0, len(c.pods))
	for n := range c.pods {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// revision finds a ControllerRevision by name (exact, else short hash).
func (c *Cluster) revision(name string) *model.Revision {
	for _, r := range c.revisions {
		if r.Name == name {
			return r
		}
	}
	for _, r := range model.SortRevisions(c.revisions) {
		if model.RevisionMatches(name, r.Name) {
			return r
		}
	}
	return nil
}

// firstRevision creates the ControllerRevision of spec.template for a
// cluster that starts with none, as the controller's first round would (LSV
// 2.3), so that the scenario's pods and status can name it.
func (c *Cluster) firstRevision() error {
	var coll int32
	if c.cs.Status.CollisionCount != nil {
		coll = *c.cs.Status.CollisionCount
	}
	rev, _, err := clonesetcore.NewRevision(c.cs, 1, coll)
	if err != nil {
		return err
	}
	rev.CreationTimestamp = c.now
	c.revisions = []*model.Revision{rev}
	c.logf("controller revision %s created (revision 1)", rev.Name)
	return nil
}

func (c *Cluster) revisionByExactName(name string) *model.Revision {
	for _, r := range c.revisions {
		if r.Name == name {
			return r
		}
	}
	return nil
}

func (c *Cluster) aliveNodes() []*node {
	var out []*node
	for _, n := range c.nodes {
		if !n.lost && !n.gone {
			out = append(out, n)
		}
	}
	return out
}

func (c *Cluster) nodeNamed(name string) *node {
	for _, n := range c.nodes {
		if n.obj.Name == name {
			return n
		}
	}
	return nil
}

func (c *Cluster) ownerRef() model.OwnerReference {
	return model.OwnerReference{APIVersion: model.APIVersionV1beta1, Kind: "CloneSet", Name: c.cs.Name, UID: c.cs.UID, Controller: true}
}

func (c *Cluster) ts() string { return c.now.UTC().Truncate(time.Second).Format(time.RFC3339) }
