package sim

import (
	"container/heap"
	"fmt"
	"hash/fnv"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/clonecore/cloneset/inplace"
	"github.com/clonecore/cloneset/lifecycle"
	"github.com/clonecore/cloneset/model"
)

// The world: the scheduler, the kubelet, the Kruise pod-readiness controller,
// the user's hook controller and the injected faults. Each is a set of rules
// "when a pod looks like this, do that after a delay": syncPod looks at a pod
// and queues the next thing that will happen to it; the queue fires events in
// (time, sequence) order. Events carry the incarnation of the pod (and of the
// container) they were queued for, so that an event outliving its pod or
// container does nothing.

type evKind int

const (
	evSchedule evKind = iota
	evStart
	evReady
	evRestart
	evCrash
	evResize
	evRemove
	evHook
	evNodeLost
	evNodeEvict
	evNodeGone
)

type event struct {
	at        time.Time
	seq       int
	kind      evKind
	pod       string
	uid       int
	container string
	cid       string
	purpose   string
	node      string
	index     int
}

func (e event) key() string {
	return strconv.Itoa(int(e.kind)) + "/" + e.container + "/" + e.cid + "/" + e.purpose
}

// eventQueue is a min-heap of events by (time, sequence) (container/heap).
type eventQueue []event

// Len, Less, Swap, Push and Pop implement heap.Interface.
func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	if !q[i].at.Equal(q[j].at) {
		return q[i].at.Before(q[j].at)
	}
	return q[i].seq < q[j].seq
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(event)) }
func (q *eventQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// podState is what the world knows about a pod beyond the object itself.
type podState struct {
	uid        int
	neverReady bool // probability fault, drawn at creation
	crash      bool // probability fault, drawn at creation
	lost       bool // the pod's node is lost
	force      bool // the pod garbage collector removes it as soon as it has no finalizers
	pending    map[string]bool
	running    map[string]string // container -> image it runs
	envHash    map[string]uint64 // container -> hash of its env from metadata at its start (inplace.EnvFromMetadataHash)
}

// stateOf returns the world's record of a pod, creating it when missing. A pod
// created by the controller (existing false) draws its probability faults; a
// pod the cluster starts with is taken over as it is.
func (c *Cluster) stateOf(p *model.Pod, existing bool) *podState {
	if st, ok := c.states[p.Name]; ok {
		return st
	}
	c.seq++
	st := &podState{uid: c.seq, pending: map[string]bool{}, running: map[string]string{}, envHash: map[string]uint64{}}
	f := c.world.Faults
	if !existing {
		if f.NeverReady.Probability > 0 && c.rng.Float64() < f.NeverReady.Probability {
			st.neverReady = true
		}
		if f.Crash.Probability > 0 && c.rng.Float64() < f.Crash.Probability {
			st.crash = true
		}
	}
	if existing {
		st.takeOver(p)
	}
	c.states[p.Name] = st
	return st
}

// takeOver records what an existing pod's containers run: the spec image,
// unless the pod is in the middle of an in-place update whose containers have
// not restarted yet (the status still shows the image id recorded before it).
func (st *podState) takeOver(p *model.Pod) {
	var last map[string]string
	if v, ok := p.InPlaceState(); ok {
		var s struct {
			Last map[string]struct {
				ImageID string `json:"imageID"`
			} `json:"lastContainerStatuses"`
		}
		if jsonUnmarshal(v, &s) == nil {
			last = map[string]string{}
			for k, x := range s.Last {
				last[k] = x.ImageID
			}
		}
	}
	for _, ctr := range p.Spec.Containers {
		cs := p.ContainerStatus(ctr.Name)
		if cs == nil {
			continue
		}
		st.running[ctr.Name] = ctr.Image
		if id, ok := last[ctr.Name]; ok && id == cs.ImageID && normImage(ctr.Image) != cs.Image {
			st.running[ctr.Name] = cs.Image
		}
		st.envHash[ctr.Name] = envHash(p, ctr)
	}
}

func (c *Cluster) push(e event) {
	c.seq++
	e.seq = c.seq
	heap.Push(&c.queue, e)
}

// queuePod queues a pod event after a delay drawn from r, unless the same
// event is already queued.
func (c *Cluster) queuePod(p *model.Pod, kind evKind, container, cid, purpose string, r Range) {
	st := c.stateOf(p, true)
	e := event{kind: kind, pod: p.Name, uid: st.uid, container: container, cid: cid, purpose: purpose}
	k := e.key()
	if st.pending[k] {
		return
	}
	st.pending[k] = true
	e.at = c.now.Add(c.delay(r))
	c.push(e)
}

// delay draws a delay from r, uniformly, to the millisecond.
func (c *Cluster) delay(r Range) time.Duration {
	lo, hi := int64(r.Min/time.Millisecond), int64(r.Max/time.Millisecond)
	if lo < 0 {
		lo = 0
	}
	if hi <= lo {
		return time.Duration(lo) * time.Millisecond
	}
	return time.Duration(lo+c.rng.Int64N(hi-lo+1)) * time.Millisecond
}

// NextEvent returns the time of the next thing the world will do by itself,
// and false when nothing is pending.
func (c *Cluster) NextEvent() (time.Time, bool) {
	if len(c.queue) == 0 {
		return time.Time{}, false
	}
	return c.queue[0].at, true
}

// Pending returns how many world events are queued.
func (c *Cluster) Pending() int { return len(c.queue) }

// AdvanceTo lets the world act until t, in order: every queued event due at or
// before t fires (and may queue more), then the clock is set to t. A t before
// the clock only fires what is already due.
func (c *Cluster) AdvanceTo(t time.Time) {
	for len(c.queue) > 0 && !c.queue[0].at.After(t) {
		e := heap.Pop(&c.queue).(event)
		if e.at.After(c.now) {
			c.now = e.at
		}
		c.fire(e)
	}
	if t.After(c.now) {
		c.now = t
	}
}

func (c *Cluster) fire(e event) {
	switch e.kind {
	case evNodeLost:
		c.nodeLost(e)
		c.sync()
		return
	case evNodeEvict:
		c.nodeEvict(e)
		c.sync()
		return
	case evNodeGone:
		c.nodeGone(e)
		c.sync()
		return
	}
	p := c.pods[e.pod]
	st := c.states[e.pod]
	if p == nil || st == nil || st.uid != e.uid {
		return
	}
	delete(st.pending, e.key())
	switch e.kind {
	case evSchedule:
		c.schedule(p)
	case evStart:
		c.startPod(p, st)
	case evReady:
		if cs := p.ContainerStatus(e.container); cs != nil && cs.ContainerID == e.cid && !cs.Ready && p.DeletionTimestamp.IsZero() {
			cs.Ready = true
			c.logf("%s: container %s ready", p.Name, e.container)
		}
	case evRestart:
		c.restartContainer(p, st, e.container)
	case evCrash:
		if cs := p.ContainerStatus(e.container); cs != nil && cs.ContainerID == e.cid && cs.Ready && p.DeletionTimestamp.IsZero() {
			cs.Ready = false
			cs.RestartCount++
			cs.ContainerID = containerID(p.Name, e.container, cs.RestartCount)
			c.logf("%s: container %s crashed (restarts %d)", p.Name, e.container, cs.RestartCount)
		}
	case evResize:
		for i := range p.Status.ContainerStatuses {
			s := &p.Status.ContainerStatuses[i]
			if ctr := p.Container(s.Name); ctr != nil {
				r := ctr.Resources.DeepCopy()
				s.Resources = &r
			}
		}
		c.logf("%s: container resources resized", p.Name)
	case evRemove:
		if len(p.Finalizers) == 0 && !p.DeletionTimestamp.IsZero() {
			c.removePod(p.Name, "terminated")
			return
		}
	case evHook:
		c.hookAct(p, e.purpose)
	}
	c.recompute(p)
	c.syncPod(p)
}

// sync lets every pod's rules queue what comes next.
func (c *Cluster) sync() {
	for _, n := range c.podNames() {
		if p := c.pods[n]; p != nil {
			c.syncPod(p)
		}
	}
}

func (c *Cluster) syncPod(p *model.Pod) {
	st := c.stateOf(p, true)
	c.readinessController(p)
	c.hookSync(p, st)
	if !p.DeletionTimestamp.IsZero() {
		if len(p.Finalizers) == 0 {
			if st.force {
				c.removePod(p.Name, "removed by the pod garbage collector")
				return
			}
			if !st.lost {
				c.queuePod(p, evRemove, "", "", "", c.world.Delays.Terminate)
			}
		}
		return
	}
	if p.Status.Phase == model.PodFailed || p.Status.Phase == model.PodSucceeded || st.lost {
		return
	}
	if p.Spec.NodeName == "" {
		if len(c.aliveNodes()) > 0 {
			c.queuePod(p, evSchedule, "", "", "", c.world.Delays.Schedule)
		}
		return
	}
	if p.Status.Phase != model.PodRunning {
		c.queuePod(p, evStart, "", "", "", c.world.Delays.Start)
		return
	}
	f := c.world.Faults
	for _, ctr := range p.Spec.Containers {
		cs := p.ContainerStatus(ctr.Name)
		switch {
		case cs == nil || st.running[ctr.Name] != ctr.Image || st.envHash[ctr.Name] != envHash(p, ctr):
			c.queuePod(p, evRestart, ctr.Name, "", "", c.world.Delays.InPlace)
		case !cs.Ready:
			if st.neverReady || f.NeverReady.hasImage(st.running[ctr.Name]) {
				continue
			}
			r := c.world.Delays.Ready
			if st.crash || f.Crash.hasImage(st.running[ctr.Name]) {
				if cs.RestartCount > 0 {
					r = Range{Min: crashPeriod(f.Crash.Down), Max: crashPeriod(f.Crash.Down)}
				}
			}
			c.queuePod(p, evReady, ctr.Name, cs.ContainerID, "", r)
		case st.crash || f.Crash.hasImage(st.running[ctr.Name]):
			up := crashPeriod(f.Crash.Up)
			c.queuePod(p, evCrash, ctr.Name, cs.ContainerID, "", Range{Min: up, Max: up})
		}
	}
	if c.gates.InPlaceWorkloadVerticalScaling && !resourcesReported(p) {
		c.queuePod(p, evResize, "", "", "", c.world.Delays.InPlace)
	}
}

func crashPeriod(d time.Duration) time.Duration {
	if d < time.Second {
		return time.Second
	}
	return d
}

// readinessController is Kruise's pod-readiness controller: a pod with the
// KruisePodReady readiness gate and no such condition gets it True (LSV 1.4).
func (c *Cluster) readinessController(p *model.Pod) {
	if p.Spec.HasReadinessGate(model.ConditionKruisePodReady) && p.Condition(model.ConditionKruisePodReady) == nil {
		p.Status.Conditions = append(p.Status.Conditions, model.PodCondition{Type: model.ConditionKruisePodReady, Status: "True", LastTransitionTime: c.now})
		c.recompute(p)
	}
}

func (c *Cluster) schedule(p *model.Pod) {
	alive := c.aliveNodes()
	if len(alive) == 0 || p.Spec.NodeName != "" {
		return
	}
	load := map[string]int{}
	for _, q := range c.pods {
		if q.IsActive() {
			load[q.Spec.NodeName]++
		}
	}
	best := []*node{}
	for _, n := range alive {
		switch {
		case len(best) == 0 || load[n.obj.Name] < load[best[0].obj.Name]:
			best = []*node{n}
		case load[n.obj.Name] == load[best[0].obj.Name]:
			best = append(best, n)
		}
	}
	n := best[c.rng.IntN(len(best))]
	p.Spec.NodeName = n.obj.Name
	c.logf("%s: scheduled to %s", p.Name, n.obj.Name)
}

func (c *Cluster) startPod(p *model.Pod, st *podState) {
	if p.Status.Phase == model.PodRunning || p.Spec.NodeName == "" {
		return
	}
	p.Status.Phase = model.PodRunning
	p.Status.ContainerStatuses = nil
	for _, ctr := range p.Spec.Containers {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, model.ContainerStatus{
			Name: ctr.Name, Image: normImage(ctr.Image), ImageID: imageID(ctr.Image),
			ContainerID: containerID(p.Name, ctr.Name, 0),
		})
		st.running[ctr.Name] = ctr.Image
		st.envHash[ctr.Name] = envHash(p, ctr)
	}
	c.writeRuntimeMeta(p, st)
	c.logf("%s: running", p.Name)
}

func (c *Cluster) restartContainer(p *model.Pod, st *podState, name string) {
	ctr := p.Container(name)
	if ctr == nil || p.Status.Phase != model.PodRunning || !p.DeletionTimestamp.IsZero() {
		return
	}
	cs := p.ContainerStatus(name)
	if cs == nil {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, model.ContainerStatus{Name: name})
		cs = &p.Status.ContainerStatuses[len(p.Status.ContainerStatuses)-1]
	} else {
		cs.RestartCount++
	}
	cs.Image, cs.ImageID = normImage(ctr.Image), imageID(ctr.Image)
	cs.Ready = false
	cs.ContainerID = containerID(p.Name, name, cs.RestartCount)
	st.running[name] = ctr.Image
	st.envHash[name] = envHash(p, *ctr)
	c.writeRuntimeMeta(p, st)
	c.logf("%s: container %s restarted with %s", p.Name, name, ctr.Image)
}

// writeRuntimeMeta is the kruise daemon's runtime-containers-meta annotation:
// every container with its current container id and the hash of the env it
// takes from the pod's metadata, as it was started.
func (c *Cluster) writeRuntimeMeta(p *model.Pod, st *podState) {
	type hashes struct {
		ExtractedEnvFromMetadataHash uint64 `json:"extractedEnvFromMetadataHash,omitempty"`
	}
	type entry struct {
		Name        string `json:"name"`
		ContainerID string `json:"containerID"`
		Hashes      hashes `json:"hashes"`
	}
	var list []entry
	for _, s := range p.Status.ContainerStatuses {
		list = append(list, entry{s.Name, s.ContainerID, hashes{st.envHash[s.Name]}})
	}
	if p.Annotations == nil {
		p.Annotations = map[string]string{}
	}
	p.Annotations[model.AnnotationRuntimeContainersMeta] = mustJSON(struct {
		Containers []entry `json:"containers"`
	}{list})
}

// recompute is the kubelet's condition bookkeeping: ContainersReady is True
// when the pod runs and every container is ready; Ready when, in addition,
// every readiness gate's condition is True. A condition's lastTransitionTime
// changes only when its status does.
func (c *Cluster) recompute(p *model.Pod) {
	st := c.states[p.Name]
	if st != nil && st.lost || !p.DeletionTimestamp.IsZero() {
		return
	}
	cr := p.Status.Phase == model.PodRunning && len(p.Status.ContainerStatuses) >= len(p.Spec.Containers)
	for _, ctr := range p.Spec.Containers {
		if s := p.ContainerStatus(ctr.Name); s == nil || !s.Ready {
			cr = false
		}
	}
	ready, reason := cr, ""
	if !cr {
		reason = "ContainersNotReady"
	}
	if cr {
		for _, g := range p.Spec.ReadinessGates {
			if cond := p.Condition(g); cond == nil || cond.Status != "True" {
				ready, reason = false, "ReadinessGatesNotReady"
			}
		}
	}
	setPodCondition(p, model.ConditionContainersReady, cr, "", c.now)
	setPodCondition(p, model.ConditionReady, ready, reason, c.now)
}

func setPodCondition(p *model.Pod, typ string, ok bool, reason string, now time.Time) {
	status := "False"
	if ok {
		status = "True"
		reason = ""
	}
	if cond := p.Condition(typ); cond != nil {
		if cond.Status != status {
			cond.Status, cond.LastTransitionTime = status, now
		}
		cond.Reason = reason
		return
	}
	p.Status.Conditions = append(p.Status.Conditions, model.PodCondition{Type: typ, Status: status, Reason: reason, LastTransitionTime: now})
}

func (c *Cluster) removePod(name, why string) {
	p := c.pods[name]
	if p == nil {
		return
	}
	delete(c.pods, name)
	delete(c.states, name)
	var gc []string
	for n, v := range c.pvcs {
		if ref := model.ControllerRef(v.OwnerReferences); ref != nil && ref.Kind == "Pod" && ref.Name == name {
			gc = append(gc, n)
		}
	}
	sort.Strings(gc)
	for _, n := range gc {
		delete(c.pvcs, n)
	}
	if len(gc) > 0 {
		c.logf("%s: gone (%s); its PVCs %s garbage-collected", name, why, strings.Join(gc, ", "))
	} else {
		c.logf("%s: gone (%s)", name, why)
	}
}

// hookSync is the user's hook controller (LSV 1.9): after a delay it makes
// the preNormal markers present on PreparingNormal pods, removes the
// inPlaceUpdate markers of PreparingUpdate pods, puts them back on Updated
// pods, removes the preDelete markers of PreparingDelete pods, and removes
// every finalizer of a terminating pod (it owns them all).
func (c *Cluster) hookSync(p *model.Pod, st *podState) {
	if c.world.HooksDisabled {
		return
	}
	if purpose := c.hookNeed(p); purpose != "" {
		c.queuePod(p, evHook, "", "", purpose, c.world.Delays.Hook)
	}
}

const (
	hookFinalizers   = "finalizers"
	hookPreNormal    = "preNormal"
	hookUpdateGo     = "inPlaceUpdate-release"
	hookUpdateBack   = "inPlaceUpdate-restore"
	hookPreDeleteRel = "preDelete-release"
)

func (c *Cluster) hookNeed(p *model.Pod) string {
	if !p.DeletionTimestamp.IsZero() {
		if len(p.Finalizers) > 0 {
			return hookFinalizers
		}
		return ""
	}
	l := c.cs.Spec.Lifecycle
	if l == nil || !p.IsActive() {
		return ""
	}
	switch p.LifecycleState() {
	case model.StatePreparingNormal:
		if l.PreNormal != nil && !lifecycle.AllHooked(l.PreNormal, p) {
			return hookPreNormal
		}
	case model.StatePreparingUpdate:
		if l.InPlaceUpdate != nil && lifecycle.AnyHooked(l.InPlaceUpdate, p) {
			return hookUpdateGo
		}
	case model.StateUpdated:
		if l.InPlaceUpdate != nil && !lifecycle.AllHooked(l.InPlaceUpdate, p) {
			return hookUpdateBack
		}
	case model.StatePreparingDelete:
		if l.PreDelete != nil && lifecycle.AnyHooked(l.PreDelete, p) {
			return hookPreDeleteRel
		}
	}
	return ""
}

func (c *Cluster) hookAct(p *model.Pod, purpose string) {
	if c.hookNeed(p) != purpose {
		return
	}
	l := c.cs.Spec.Lifecycle
	switch purpose {
	case hookFinalizers:
		c.logf("%s: hook controller removes finalizers %v of the terminating pod", p.Name, p.Finalizers)
		p.Finalizers = nil
	case hookPreNormal:
		addMarkers(p, l.PreNormal)
		c.logf("%s: hook controller adds the preNormal markers", p.Name)
	case hookUpdateGo:
		removeMarkers(p, l.InPlaceUpdate)
		c.logf("%s: hook controller releases the inPlaceUpdate hook", p.Name)
	case hookUpdateBack:
		addMarkers(p, l.InPlaceUpdate)
		c.logf("%s: hook controller puts the inPlaceUpdate markers back", p.Name)
	case hookPreDeleteRel:
		removeMarkers(p, l.PreDelete)
		c.logf("%s: hook controller releases the preDelete hook", p.Name)
	}
}

func addMarkers(p *model.Pod, h *model.LifecycleHook) {
	if h == nil {
		return
	}
	for _, k := range model.SortedKeys(h.LabelsHandler) {
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		p.Labels[k] = h.LabelsHandler[k]
	}
	p.Finalizers = addFinalizers(p.Finalizers, h.FinalizersHandler)
}

// removeMarkers makes a hook release the pod: a label whose hook value is ""
// matches when absent, so it is set to "released"; other labels are removed.
func removeMarkers(p *model.Pod, h *model.LifecycleHook) {
	if h == nil {
		return
	}
	for _, k := range model.SortedKeys(h.LabelsHandler) {
		v := h.LabelsHandler[k]
		if p.Labels[k] != v {
			continue
		}
		if v == "" {
			if p.Labels == nil {
				p.Labels = map[string]string{}
			}
			p.Labels[k] = "released"
		} else {
			delete(p.Labels, k)
		}
	}
	var keep []string
	for _, f := range p.Finalizers {
		if !slices.Contains(h.FinalizersHandler, f) {
			keep = append(keep, f)
		}
	}
	p.Finalizers = keep
}

func addFinalizers(have, add []string) []string {
	for _, f := range add {
		if !slices.Contains(have, f) {
			have = append(have, f)
		}
	}
	return have
}

func (c *Cluster) nodeLost(e event) {
	n := c.nodeNamed(e.node)
	if n == nil || n.lost {
		c.logf("node %s: loss ignored (unknown or already lost)", e.node)
		return
	}
	nl := c.world.Faults.NodeLoss[e.index]
	after := nl.After
	if after <= 0 {
		after = 30 * time.Second
	}
	n.lost = true
	c.logf("node %s lost", e.node)
	for _, name := range c.podNames() {
		p := c.pods[name]
		if p.Spec.NodeName != e.node || !p.DeletionTimestamp.IsZero() || !p.IsActive() {
			continue
		}
		st := c.stateOf(p, true)
		st.lost = true
		for i := range p.Status.ContainerStatuses {
			p.Status.ContainerStatuses[i].Ready = false
		}
		setPodCondition(p, model.ConditionContainersReady, false, "NodeLost", c.now)
		setPodCondition(p, model.ConditionReady, false, "NodeLost", c.now)
		if nl.Mode == NodeLossFail {
			p.Status.Phase = model.PodFailed
			c.logf("%s: failed (node %s lost)", name, e.node)
		} else {
			c.logf("%s: not ready (node %s lost)", name, e.node)
		}
	}
	if nl.Mode == NodeLossFail {
		c.push(event{at: c.now.Add(after), kind: evNodeGone, node: e.node})
	} else {
		c.push(event{at: c.now.Add(after), kind: evNodeEvict, node: e.node, index: e.index})
	}
}

func (c *Cluster) nodeEvict(e event) {
	nl := c.world.Faults.NodeLoss[e.index]
	after := nl.After
	if after <= 0 {
		after = 30 * time.Second
	}
	for _, name := range c.podNames() {
		p := c.pods[name]
		if p.Spec.NodeName == e.node && p.DeletionTimestamp.IsZero() {
			p.DeletionTimestamp = c.now
			c.logf("%s: evicted from lost node %s", name, e.node)
		}
	}
	c.push(event{at: c.now.Add(after), kind: evNodeGone, node: e.node})
}

func (c *Cluster) nodeGone(e event) {
	if n := c.nodeNamed(e.node); n != nil {
		n.gone = true
	}
	c.logf("node %s deleted; the pod garbage collector removes its pods", e.node)
	for _, name := range c.podNames() {
		p := c.pods[name]
		if p.Spec.NodeName != e.node {
			continue
		}
		if p.DeletionTimestamp.IsZero() {
			p.DeletionTimestamp = c.now
		}
		c.stateOf(p, true).force = true
	}
}

// resourcesReported reports whether every container status shows its spec
// container's resources (the in-place vertical scaling completion test).
func resourcesReported(p *model.Pod) bool {
	if p.Status.Phase != model.PodRunning {
		return true
	}
	for _, ctr := range p.Spec.Containers {
		s := p.ContainerStatus(ctr.Name)
		if s == nil {
			continue
		}
		if s.Resources == nil {
			if len(ctr.Resources.Limits) == 0 && len(ctr.Resources.Requests) == 0 {
				continue
			}
			return false
		}
		if !s.Resources.Equal(ctr.Resources) {
			return false
		}
	}
	return true
}

// normImage is the image a kubelet reports for a spec image: ":latest" is
// added to an image without any ':' (as the completion check compares).
func normImage(img string) string {
	if !strings.Contains(img, ":") {
		return img + ":latest"
	}
	return img
}

// imageID is a stable fake digest of an image.
func imageID(img string) string {
	h := fnv.New64a()
	h.Write([]byte(normImage(img)))
	return fmt.Sprintf("sim://%s@sha256:%016x", normImage(img), h.Sum64())
}

func containerID(pod, container string, restarts int32) string {
	return fmt.Sprintf("containerd://%s-%s-%d", pod, container, restarts)
}

// envHash is the hash of the values the container takes from the pod's
// labels and annotations now, as kruise's node agent computes it.
func envHash(p *model.Pod, ctr model.Container) uint64 {
	return inplace.EnvFromMetadataHash(ctr.Env, p.Labels, p.Annotations)
}
