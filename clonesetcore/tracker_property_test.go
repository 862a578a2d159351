package clonesetcore_test

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/worldgen"
)

// trackerPlanJSON plans with the Tracker and with Plan on the Tracker's
// objects and fails unless both plans are byte-identical; it returns the
// JSON.
func trackerPlanJSON(t fatalf, tr *clonesetcore.Tracker, now time.Time, when string) []byte {
	t.Helper()
	want, wantErr := clonesetcore.Plan(tr.Scenario(now))
	got, gotErr := tr.Plan(now)
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("%s: Plan error %v, Tracker.Plan error %v", when, wantErr, gotErr)
	}
	if wantErr != nil {
		return nil
	}
	jw, jg := mustJSON(t, want), mustJSON(t, got)
	if !bytes.Equal(jw, jg) {
		t.Fatalf("%s: Tracker.Plan differs from Plan on the same objects (-Plan +Tracker):\n%s", when, cmp.Diff(string(jw), string(jg)))
	}
	return jg
}

// event is one change told to a Tracker.
type event struct {
	name  string
	apply func(*clonesetcore.Tracker)
}

// objectEvents returns one Set event per object of s (CloneSet, pods, PVCs,
// revisions, nodes).
func objectEvents(s *model.Scenario) []event {
	var evs []event
	if s.CloneSet != nil {
		cs := s.CloneSet
		evs = append(evs, event{"cloneset", func(t *clonesetcore.Tracker) { t.SetCloneSet(cs) }})
	}
	for _, p := range s.Pods {
		evs = append(evs, event{"pod " + p.Name, func(t *clonesetcore.Tracker) { t.SetPod(p) }})
	}
	for _, c := range s.PVCs {
		evs = append(evs, event{"pvc " + c.Name, func(t *clonesetcore.Tracker) { t.SetPVC(c) }})
	}
	for _, r := range s.Revisions {
		evs = append(evs, event{"revision " + r.Name, func(t *clonesetcore.Tracker) { t.SetRevision(r) }})
	}
	for _, n := range s.Nodes {
		evs = append(evs, event{"node " + n.Name, func(t *clonesetcore.Tracker) { t.SetNode(n) }})
	}
	for _, j := range s.ImagePullJobs {
		evs = append(evs, event{"job " + j.Name, func(t *clonesetcore.Tracker) { t.SetImagePullJob(j) }})
	}
	return evs
}

// converge returns the events that take a Tracker holding the objects of
// have to the objects of want: deletions of what want lacks and a Set of
// every object of want that have does not hold (by pointer).
func converge(have, want *model.Scenario) []event {
	var evs []event
	if want.CloneSet != have.CloneSet {
		cs := want.CloneSet
		evs = append(evs, event{"cloneset", func(t *clonesetcore.Tracker) { t.SetCloneSet(cs) }})
	}
	diff := func(kind string, haveNames, wantNames map[string]any, set func(string) func(*clonesetcore.Tracker), del func(string) func(*clonesetcore.Tracker)) {
		for n, v := range wantNames {
			if h, ok := haveNames[n]; !ok || h != v {
				evs = append(evs, event{kind + " " + n, set(n)})
			}
		}
		for n := range haveNames {
			if _, ok := wantNames[n]; !ok {
				evs = append(evs, event{"delete " + kind + " " + n, del(n)})
			}
		}
	}
	index := func(s *model.Scenario, kind string) map[string]any {
		m := map[string]any{}
		switch kind {
		case "pod":
			for _, p := range s.Pods {
				m[p.Name] = p
			}
		case "pvc":
			for _, c := range s.PVCs {
				m[c.Name] = c
			}
		case "revision":
			for _, r := range s.Revisions {
				m[r.Name] = r
			}
		case "node":
			for _, n := range s.Nodes {
				m[n.Name] = n
			}
		case "job":
			for _, j := range s.ImagePullJobs {
				m[j.Name] = j
			}
		}
		return m
	}
	wp, wc, wr, wn, wj := index(want, "pod"), index(want, "pvc"), index(want, "revision"), index(want, "node"), index(want, "job")
	diff("pod", index(have, "pod"), wp,
		func(n string) func(*clonesetcore.Tracker) {
			return func(t *clonesetcore.Tracker) { t.SetPod(wp[n].(*model.Pod)) }
		},
		func(n string) func(*clonesetcore.Tracker) { return func(t *clonesetcore.Tracker) { t.DeletePod(n) } })
	diff("pvc", index(have, "pvc"), wc,
		func(n string) func(*clonesetcore.Tracker) {
			return func(t *clonesetcore.Tracker) { t.SetPVC(wc[n].(*model.PVC)) }
		},
		func(n string) func(*clonesetcore.Tracker) { return func(t *clonesetcore.Tracker) { t.DeletePVC(n) } })
	diff("revision", index(have, "revision"), wr,
		func(n string) func(*clonesetcore.Tracker) {
			return func(t *clonesetcore.Tracker) { t.SetRevision(wr[n].(*model.Revision)) }
		},
		func(n string) func(*clonesetcore.Tracker) {
			return func(t *clonesetcore.Tracker) { t.DeleteRevision(n) }
		})
	diff("node", index(have, "node"), wn,
		func(n string) func(*clonesetcore.Tracker) {
			return func(t *clonesetcore.Tracker) { t.SetNode(wn[n].(*model.Node)) }
		},
		func(n string) func(*clonesetcore.Tracker) { return func(t *clonesetcore.Tracker) { t.DeleteNode(n) } })
	diff("job", index(have, "job"), wj,
		func(n string) func(*clonesetcore.Tracker) {
			return func(t *clonesetcore.Tracker) { t.SetImagePullJob(wj[n].(*model.ImagePullJob)) }
		},
		func(n string) func(*clonesetcore.Tracker) {
			return func(t *clonesetcore.Tracker) { t.DeleteImagePullJob(n) }
		})
	// Map iteration order is random: sort for reproducible draws.
	sortEvents(evs)
	return evs
}

func sortEvents(evs []event) {
	for i := 1; i < len(evs); i++ {
		for j := i; j > 0 && evs[j].name < evs[j-1].name; j-- {
			evs[j], evs[j-1] = evs[j-1], evs[j]
		}
	}
}

// idsAndNodes returns the instance ids and node names of pods, for mutatePod.
func idsAndNodes(pods []*model.Pod) (ids, nodes []string) {
	for _, p := range pods {
		ids = append(ids, p.InstanceID())
		nodes = append(nodes, p.Spec.NodeName)
	}
	return ids, nodes
}

// mutatePod returns a changed copy of p: one of the facts the planner reads
// (lifecycle state, revision, readiness, specified delete, phase,
// termination, selector labels, owner, instance id, node, preDelete
// finalizer) changed; ids and
// nodes are the instance ids and node names to pick from.
func mutatePod(src source, p *model.Pod, revs, ids, nodes []string) *model.Pod {
	q := p.DeepCopy()
	if q.Labels == nil {
		q.Labels = map[string]string{}
	}
	switch src.intn("podChange", 12) {
	case 0:
		q.Labels[model.LabelLifecycleState] = pick(src, "state", model.StateNormal, model.StatePreparingDelete,
			model.StatePreparingUpdate, model.StateUpdating, model.StateUpdated, model.StatePreparingNormal, "Weird")
	case 1:
		q.Labels[model.LabelRevisionHash] = pick(src, "rev", revs...)
	case 2:
		for i := range q.Status.Conditions {
			if q.Status.Conditions[i].Type == model.ConditionReady {
				q.Status.Conditions[i].Status = pick(src, "ready", "True", "False")
				q.Status.Conditions[i].LastTransitionTime = q.Status.Conditions[i].LastTransitionTime.Add(time.Duration(src.intn("readyShift", 60)) * time.Second)
			}
		}
	case 3:
		if _, ok := q.Labels[model.LabelSpecifiedDelete]; ok {
			delete(q.Labels, model.LabelSpecifiedDelete)
		} else {
			q.Labels[model.LabelSpecifiedDelete] = "true"
		}
	case 4:
		q.Status.Phase = pick(src, "phase", model.PodRunning, model.PodPending, model.PodFailed, model.PodSucceeded)
	case 5:
		q.DeletionTimestamp = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	case 6:
		if q.Labels["app"] == "web" {
			q.Labels["app"] = "other"
		} else {
			q.Labels["app"] = "web"
		}
	case 7:
		q.OwnerReferences = nil
	case 8:
		delete(q.Labels, model.LabelPodTemplateHash)
	case 9: // the instance id: gone, another pod's, or new
		switch src.intn("idChange", 3) {
		case 0:
			delete(q.Labels, model.LabelInstanceID)
		case 1:
			q.Labels[model.LabelInstanceID] = pick(src, "otherID", ids...)
		default:
			q.Labels[model.LabelInstanceID] = "zz" + q.Labels[model.LabelInstanceID]
		}
	case 10: // the node: none, another pod's, or one no Node object names
		q.Spec.NodeName = pick(src, "node", append([]string{"", "node-missing"}, nodes...)...)
	case 11: // the preDelete hook's finalizer comes or goes
		if i := slices.Index(q.Finalizers, hookFinalizer); i >= 0 {
			q.Finalizers = slices.Delete(q.Finalizers, i, i+1)
		} else {
			q.Finalizers = append(q.Finalizers, hookFinalizer)
		}
	}
	return q
}

// mutateCloneSet returns a changed copy of cs: replicas, template (from
// other), podsToDelete, minReadySeconds, paused, selector, update
// priority strategy, scatter strategy, or pod update policy and in-place
// grace period.
func mutateCloneSet(src source, cs, other *model.CloneSet, pods []*model.Pod) *model.CloneSet {
	c := cs.DeepCopy()
	switch src.intn("csChange", 10) {
	case 0:
		r := int32(src.intn("replicas", 12))
		c.Spec.Replicas = &r
	case 1:
		if other != nil {
			c.Spec.Template = other.Spec.Template.DeepCopy()
		}
	case 2:
		if len(pods) > 0 {
			c.Spec.ScaleStrategy.PodsToDelete = append(c.Spec.ScaleStrategy.PodsToDelete, pods[src.intn("podToDelete", len(pods))].Name)
		}
		c.Spec.ScaleStrategy.PodsToDelete = append(c.Spec.ScaleStrategy.PodsToDelete, "gone-pod")
	case 3:
		c.Spec.MinReadySeconds = int32(src.intn("minReady", 4) * 10)
	case 4:
		if ru := c.Spec.UpdateStrategy.RollingUpdate; ru != nil {
			ru.Paused = !ru.Paused
		}
		c.Generation++
	case 5:
		c.Spec.Selector = &model.LabelSelector{MatchLabels: map[string]string{"app": pick(src, "selector", "web", "other")}}
	case 6:
		if ru := c.Spec.UpdateStrategy.RollingUpdate; ru != nil {
			switch src.intn("priority", 3) {
			case 0:
				ru.PriorityStrategy = nil
			case 1:
				ru.PriorityStrategy = &model.UpdatePriorityStrategy{WeightPriority: []model.UpdatePriorityWeightTerm{
					{Weight: 50, MatchSelector: model.LabelSelector{MatchLabels: map[string]string{"prio": pick(src, "prioValue", "p1", "p2")}}},
				}}
			case 2:
				ru.PriorityStrategy = &model.UpdatePriorityStrategy{OrderPriority: []model.UpdatePriorityOrderTerm{{OrderedKey: "prio"}}}
			}
		}
	case 7:
		if ru := c.Spec.UpdateStrategy.RollingUpdate; ru != nil {
			ru.ScatterStrategy = nil
			for range src.intn("scatterTerms", 3) {
				ru.ScatterStrategy = append(ru.ScatterStrategy, model.ScatterTerm{Key: "prio", Value: pick(src, "scatterValue", "p1", "p2", "p3")})
			}
		}
	case 8: // what the update decisions read besides the revisions
		if ru := c.Spec.UpdateStrategy.RollingUpdate; ru != nil {
			ru.PodUpdatePolicy = pick(src, "policy", model.PolicyReCreate, model.PolicyInPlaceIfPossible, model.PolicyInPlaceOnly)
			ru.InPlaceUpdateStrategy = &model.InPlaceUpdateStrategy{GracePeriodSeconds: int32(src.intn("grace", 3) * 5)}
		}
	case 9: // a lifecycle hook (preDelete, preNormal, inPlaceUpdate): none, by finalizer, by label
		l := &model.Lifecycle{}
		if c.Spec.Lifecycle != nil {
			*l = *c.Spec.Lifecycle // c is a deep copy already
		}
		var h *model.LifecycleHook
		switch src.intn("hookHandler", 3) {
		case 1:
			h = &model.LifecycleHook{FinalizersHandler: []string{hookFinalizer}}
		case 2:
			h = &model.LifecycleHook{LabelsHandler: map[string]string{"prio": "p1"}}
		}
		switch src.intn("hook", 3) {
		case 0:
			l.PreDelete = h
		case 1:
			l.PreNormal = h
		default:
			l.InPlaceUpdate = h
		}
		c.Spec.Lifecycle = l
	}
	return c
}

// checkTrackerEvents feeds a Tracker the objects of a in an order drawn
// from src, then a drawn sequence of events (pods, PVCs, revisions and nodes
// of a or b set or deleted, pods and the CloneSet changed, plans in
// between), then the events that lead to the objects of b (by Sync, one
// event at a time in a drawn order, or SyncExceptNodes with node events as
// a controller that keeps the nodes from events does); every plan along the
// way must equal Plan on the Tracker's objects, and the last one Plan(b);
// the objects of a and b must be left as they were.
func checkTrackerEvents(t fatalf, src source, a, b *model.Scenario) {
	t.Helper()
	// Labels for the priority strategies of mutateCloneSet.
	for _, s := range []*model.Scenario{a, b} {
		for _, p := range s.Pods {
			if v := src.intn("prioLabel", 4); v > 0 && p.Labels != nil {
				p.Labels["prio"] = fmt.Sprint("p", v)
			}
		}
	}
	// The Tracker keeps the objects it is told of and must not write to
	// them (a controller's share maps with its informer cache's objects):
	// a and b are compared with these copies at the end.
	freshA, freshB := a.DeepCopy(), b.DeepCopy()
	tr := clonesetcore.NewTracker(a.Gates, a.Controller)
	evs := objectEvents(a)
	for _, j := range drawPerm(src, "initial", len(evs)) {
		evs[j].apply(tr)
	}
	now := a.Now
	trackerPlanJSON(t, tr, now, "after loading the first world")
	revs := []string{revA, revB, revC, "web-other"}
	bEvents := objectEvents(b)
	steps := src.intn("events", 24)
	for step := range steps {
		var cur *model.Scenario
		switch src.intn("event", 11) {
		case 0, 1: // an object of the second world arrives or replaces one
			if len(bEvents) > 0 {
				bEvents[src.intn("bObject", len(bEvents))].apply(tr)
			}
		case 2: // a pod changes
			cur = tr.Scenario(now)
			if len(cur.Pods) > 0 {
				ids, nodes := idsAndNodes(cur.Pods)
				tr.SetPod(mutatePod(src, cur.Pods[src.intn("pod", len(cur.Pods))], revs, ids, nodes))
			}
		case 3: // a pod goes
			cur = tr.Scenario(now)
			if len(cur.Pods) > 0 {
				tr.DeletePod(cur.Pods[src.intn("gonePod", len(cur.Pods))].Name)
			}
		case 4: // the CloneSet changes
			if cs := tr.CloneSet(); cs != nil {
				cur = tr.Scenario(now)
				tr.SetCloneSet(mutateCloneSet(src, cs, b.CloneSet, cur.Pods))
			}
		case 5: // a PVC, revision, node or ImagePullJob goes
			cur = tr.Scenario(now)
			switch src.intn("goneKind", 4) {
			case 0:
				if len(cur.PVCs) > 0 {
					tr.DeletePVC(cur.PVCs[src.intn("gonePVC", len(cur.PVCs))].Name)
				}
			case 1:
				if len(cur.Revisions) > 0 {
					tr.DeleteRevision(cur.Revisions[src.intn("goneRevision", len(cur.Revisions))].Name)
				}
			case 2:
				if len(cur.Nodes) > 0 {
					tr.DeleteNode(cur.Nodes[src.intn("goneNode", len(cur.Nodes))].Name)
				}
			case 3:
				if len(cur.ImagePullJobs) > 0 {
					tr.DeleteImagePullJob(cur.ImagePullJobs[src.intn("goneJob", len(cur.ImagePullJobs))].Name)
				}
			}
		case 8: // the feature gates change
			var g model.FeatureGates
			for _, name := range model.KnownFeatureGates() {
				if err := g.Set(name, src.intn("gate", 2) == 1); err != nil {
					t.Fatalf("gate %s: %v", name, err)
				}
			}
			tr.SetGates(g)
		case 6: // the clock moves, maybe to the instant a pod matures
			now = now.Add(time.Duration(src.intn("tick", 40)) * time.Second)
			if cur = tr.Scenario(now); len(cur.Pods) > 0 && cur.CloneSet != nil && src.intn("mature", 2) == 1 {
				if rt := cur.Pods[src.intn("maturing", len(cur.Pods))].ReadyTime(); !rt.IsZero() {
					now = rt.Add(time.Duration(cur.CloneSet.Spec.MinReadySeconds) * time.Second)
				}
			}
		case 7: // a reconcile
			trackerPlanJSON(t, tr, now, fmt.Sprint("after event ", step))
		case 9: // a reconcile, a pod it decided to update changes, a reconcile
			// (the Tracker keeps the update decisions between plans)
			res, err := tr.Plan(now)
			if err != nil {
				break
			}
			var updated []string
			for _, a := range res.Actions {
				switch a.Type {
				case model.ActionUpdatePodInPlace, model.ActionSetLifecycleState, model.ActionRecreatePod:
					updated = append(updated, a.Pod)
				}
			}
			if len(updated) == 0 {
				break
			}
			if p := tr.Pod(updated[src.intn("updatedPod", len(updated))]); p != nil {
				// Mostly a change the decision reads (state or revision),
				// sometimes any change.
				q := p.DeepCopy()
				if q.Labels == nil {
					q.Labels = map[string]string{}
				}
				switch src.intn("updatedChange", 3) {
				case 0:
					q.Labels[model.LabelLifecycleState] = pick(src, "updatedState", "", model.StateNormal,
						model.StatePreparingUpdate, model.StateUpdating, model.StateUpdated, model.StatePreparingNormal)
				case 1:
					q.Labels[model.LabelRevisionHash] = pick(src, "updatedRev", revs...)
				default:
					ids, nodes := idsAndNodes(tr.Scenario(now).Pods)
					q = mutatePod(src, p, revs, ids, nodes)
				}
				tr.SetPod(q)
			}
			trackerPlanJSON(t, tr, now, fmt.Sprint("after event ", step, " (a pod the previous plan updated changed)"))
		case 10: // a reconcile, a revision's template changes, a reconcile
			if _, err := tr.Plan(now); err != nil {
				break
			}
			cur = tr.Scenario(now)
			if len(cur.Revisions) == 0 {
				break
			}
			rv := cur.Revisions[src.intn("changedRevision", len(cur.Revisions))].DeepCopy()
			if oneIn(src, "markRevision", 3) {
				// The image pre-download mark a LabelRevision sets.
				if rv.Labels == nil {
					rv.Labels = map[string]string{}
				}
				rv.Labels[pick(src, "mark", model.LabelImagePreDownloadCreated, model.LabelImagePreDownloadIgnored)] = "true"
			} else if cs := rv.Template.Spec.Containers; len(cs) > 0 {
				cs[0].Image += pick(src, "image", "-a", "-b")
			} else {
				rv.HasTemplate = !rv.HasTemplate
			}
			tr.SetRevision(rv)
			trackerPlanJSON(t, tr, now, fmt.Sprint("after event ", step, " (a revision changed)"))
		}
	}
	trackerPlanJSON(t, tr, now, "after the events")
	// Converge to b: by Sync, one event at a time, or as a controller that
	// lists a CloneSet's objects and keeps the nodes from events.
	switch src.intn("sync", 3) {
	case 0:
		tr.Sync(b)
	case 1:
		tr.SetGates(b.Gates)
		tr.SetController(b.Controller)
		tr.SetSetAside(b.SetAside)
		evs := converge(tr.Scenario(now), b)
		for _, j := range drawPerm(src, "converge", len(evs)) {
			evs[j].apply(tr)
		}
	default:
		syncExceptNodes(t, src, tr, a, b, now)
	}
	got := trackerPlanJSON(t, tr, b.Now, "on the second world")
	for _, w := range []struct {
		name         string
		fresh, after *model.Scenario
	}{{"first", freshA, a}, {"second", freshB, b}} {
		if !reflect.DeepEqual(w.fresh, w.after) {
			t.Fatalf("the Tracker modified the objects of the %s world (-before +after):\n%s", w.name, cmp.Diff(w.fresh, w.after, cmp.Exporter(func(reflect.Type) bool { return true })))
		}
	}
	bb := *b // the Tracker names the objects b sets aside, as Plan does
	if uniqueNames(b) {
		want, err := clonesetcore.Plan(&bb)
		if err != nil {
			t.Fatalf("Plan: %v", err)
		}
		if jw := mustJSON(t, want); !bytes.Equal(jw, got) {
			t.Fatalf("Tracker.Plan after the events differs from Plan on the second world:\n%s", cmp.Diff(string(jw), string(got)))
		}
	}
}

// syncExceptNodes takes tr to the objects of b as a controller that keeps
// the nodes from events does: SyncExceptNodes on b with nodes of its own
// (none, a's or b's: they must not be read; the nodes tr holds must stay as
// they are), and the node events that lead from the nodes tr holds to b's,
// in a drawn order, before or after it.
func syncExceptNodes(t fatalf, src source, tr *clonesetcore.Tracker, a, b *model.Scenario, now time.Time) {
	t.Helper()
	listed := *b
	switch src.intn("listedNodes", 3) {
	case 0:
		listed.Nodes = nil
	case 1:
		listed.Nodes = a.Nodes
	}
	evs := converge(&model.Scenario{Nodes: tr.Scenario(now).Nodes}, &model.Scenario{Nodes: b.Nodes})
	nodeEvents := func() {
		for _, j := range drawPerm(src, "nodeEvents", len(evs)) {
			evs[j].apply(tr)
		}
	}
	before := src.intn("nodeEventsAfter", 2) == 0
	if before {
		nodeEvents()
	}
	held := tr.Scenario(now).Nodes
	tr.SyncExceptNodes(&listed)
	if after := tr.Scenario(now).Nodes; !slices.Equal(after, held) {
		t.Fatalf("SyncExceptNodes changed the nodes: %s, then %s", nodeNames(held), nodeNames(after))
	}
	if !before {
		nodeEvents()
	}
}

// nodeNames returns the names of nodes.
func nodeNames(nodes []*model.Node) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, n.Name)
	}
	return out
}

// uniqueNames reports whether no two objects of a kind share a name in s
// (the Tracker identifies objects by name).
func uniqueNames(s *model.Scenario) bool {
	seen := map[string]bool{}
	add := func(k string) bool {
		if seen[k] {
			return false
		}
		seen[k] = true
		return true
	}
	for _, p := range s.Pods {
		if !add("pod/" + p.Name) {
			return false
		}
	}
	for _, c := range s.PVCs {
		if !add("pvc/" + c.Name) {
			return false
		}
	}
	for _, r := range s.Revisions {
		if !add("rev/" + r.Name) {
			return false
		}
	}
	for _, n := range s.Nodes {
		if !add("node/" + n.Name) {
			return false
		}
	}
	return true
}

// drawPerm draws a permutation of n from src (a shuffle driven by its
// draws: all zeros is the identity).
func drawPerm(src source, label string, n int) []int {
	out := identity(label, n)
	for i := n - 1; i > 0; i-- {
		j := i - src.intn(label, i+1)
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// trackerRounds is how many times TestTrackerMatchesPlan runs rapid's 100
// checks (two thirds of them with the name order rebuilt on almost every
// event, one third with scattered slots renumbered);
// -short runs one.
const trackerRounds = 50

// TestTrackerMatchesPlan is the specification of the Tracker: on two random
// worlds a and b, a Tracker told of a's objects in a random order, then of
// random events (objects of b arriving, pods changing or going, gates
// changing, CloneSet
// changes of replicas, template, podsToDelete, minReadySeconds, strategy and
// selector, PVCs, revisions and nodes going, the clock moving), then of the
// differences that lead to b (Sync, events, or SyncExceptNodes and node
// events), plans at every step exactly as Plan on the
// same objects, and at the end exactly as Plan(b).
func TestTrackerMatchesPlan(t *testing.T) {
	rounds := trackerRounds
	if testing.Short() {
		rounds = 1
	}
	for i := range rounds {
		t.Run(fmt.Sprint("round", i), func(t *testing.T) {
			// Two rounds in three rebuild the name order on almost every
			// event; in one of them the Tracker also moves scattered pods
			// to slots in name order whatever their number.
			if i%3 > 0 {
				defer clonesetcore.SetCompactSlack(clonesetcore.SetCompactSlack(0))
			}
			if i%3 == 2 {
				defer clonesetcore.SetRenumberMin(clonesetcore.SetRenumberMin(0))
			}
			rapid.Check(t, func(rt *rapid.T) {
				src := rapidSource{rt}
				a := genWorld(src).build(identity)
				b := genWorld(src).build(identity)
				checkTrackerEvents(rt, src, a, b)
			})
		})
	}
}

// TestTrackerMatchesPlanOnGeneratedWorlds is the same property on the
// realistic worlds of package worldgen (the benchmarks' generator).
func TestTrackerMatchesPlanOnGeneratedWorlds(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		a := worldgen.Generate(drawWorldgenOptions(rt))
		b := worldgen.Generate(drawWorldgenOptions(rt))
		checkTrackerEvents(rt, rapidSource{rt}, a, b)
	})
}

// TestTrackerManyEvents tells a Tracker of more pod additions and deletions
// between two plans than it keeps unsorted (it then rebuilds its name order
// while absorbing events), deleted names coming back, and checks the plans.
func TestTrackerManyEvents(t *testing.T) {
	s := worldgen.Realistic(1, 400)
	tr := clonesetcore.NewTracker(s.Gates, s.Controller)
	tr.Sync(s)
	trackerPlanJSON(t, tr, s.Now, "after Sync")
	for i, p := range s.Pods {
		if i%3 != 0 {
			tr.DeletePod(p.Name)
		}
	}
	for i, p := range s.Pods {
		if i%3 == 1 {
			tr.SetPod(p)
		}
	}
	trackerPlanJSON(t, tr, s.Now, "after deleting two thirds and re-adding half of them")
	tr.Sync(s)
	if tr.Len() != len(s.Pods) {
		t.Fatalf("Len %d after Sync, want %d", tr.Len(), len(s.Pods))
	}
	trackerPlanJSON(t, tr, s.Now, "after Sync again")
}

// TestTrackerStrategyChanges changes the update priority and scatter
// strategies of the update world (whose plan orders hundreds of candidates)
// one after the other: the Tracker reads the priorities and scatter flags it
// keeps again, and plans as Plan does.
func TestTrackerStrategyChanges(t *testing.T) {
	s := worldgen.Update(1, 300)
	tr := clonesetcore.NewTracker(s.Gates, s.Controller)
	tr.Sync(s)
	trackerPlanJSON(t, tr, s.Now, "update world")
	change := func(name string, f func(ru *model.RollingUpdateStrategy)) {
		cs := tr.CloneSet().DeepCopy()
		f(cs.Spec.UpdateStrategy.RollingUpdate)
		tr.SetCloneSet(cs)
		trackerPlanJSON(t, tr, s.Now, name)
	}
	change("scatter on another rack", func(ru *model.RollingUpdateStrategy) {
		ru.ScatterStrategy = []model.ScatterTerm{{Key: worldgen.LabelRack, Value: "r0"}}
	})
	change("no scatter", func(ru *model.RollingUpdateStrategy) { ru.ScatterStrategy = nil })
	change("two scatter terms", func(ru *model.RollingUpdateStrategy) {
		ru.ScatterStrategy = []model.ScatterTerm{{Key: worldgen.LabelRack, Value: "r1"}, {Key: worldgen.LabelRack, Value: "r2"}}
	})
	change("no priority", func(ru *model.RollingUpdateStrategy) { ru.PriorityStrategy = nil })
	change("weight on a rack", func(ru *model.RollingUpdateStrategy) {
		ru.PriorityStrategy = &model.UpdatePriorityStrategy{WeightPriority: []model.UpdatePriorityWeightTerm{
			{Weight: 10, MatchSelector: model.LabelSelector{MatchLabels: map[string]string{worldgen.LabelRack: "r1"}}},
		}}
	})
	change("order on the rack", func(ru *model.RollingUpdateStrategy) {
		ru.PriorityStrategy = &model.UpdatePriorityStrategy{OrderPriority: []model.UpdatePriorityOrderTerm{{OrderedKey: worldgen.LabelRack}}}
	})
	// Every gate on, then off, one at a time.
	for _, name := range model.KnownFeatureGates() {
		for _, on := range []bool{true, false} {
			g := s.Gates
			if err := g.Set(name, on); err != nil {
				t.Fatal(err)
			}
			tr.SetGates(g)
			trackerPlanJSON(t, tr, s.Now, fmt.Sprintf("gate %s %v", name, on))
		}
	}
}

// TestTrackerKeptRefresh: the Tracker remembers the pods for which the
// refresh step had nothing to do; a change of what that was computed from
// other than the pod (the CloneSet's hooks, the update revision) must make
// the next plan refresh them again. A pod waits in PreparingNormal on a
// preNormal hook that is then removed; another waits in PreparingUpdate at
// a revision that then becomes the update revision again (a CloneSet
// change); a third at the revision name derived from the template, which
// becomes the update revision when the stored revision equal to the
// template goes (a revision event, the CloneSet unchanged).
func TestTrackerKeptRefresh(t *testing.T) {
	derivedA := derivedName(revA, 0)
	w := newWorld(5,
		pod("web-a", revB), pod("web-b", revB),
		pod("web-c", revB, state(model.StatePreparingNormal)),
		pod("web-d", revA, state(model.StatePreparingUpdate)),
		pod("web-e", derivedA, state(model.StatePreparingUpdate)),
	).atRest(revB)
	w.cs.Spec.Lifecycle = &model.Lifecycle{PreNormal: &model.LifecycleHook{FinalizersHandler: []string{hookFinalizer}}}
	tr := clonesetcore.NewTracker(w.s.Gates, w.s.Controller)
	tr.Sync(w.s)
	for i := range 2 { // the second plan is the one that uses what the first kept
		trackerPlanJSON(t, tr, w.s.Now, fmt.Sprint("plan ", i))
	}
	cs := tr.CloneSet().DeepCopy()
	cs.Spec.Lifecycle = &model.Lifecycle{}
	tr.SetCloneSet(cs)
	if got := trackerPlanJSON(t, tr, w.s.Now, "after the preNormal hook went"); !bytes.Contains(got, []byte(`"pod":"web-c"`)) {
		t.Fatalf("web-c is not refreshed once its preNormal hook went:\n%s", got)
	}
	cs = cs.DeepCopy()
	cs.Spec.Lifecycle.PreNormal = &model.LifecycleHook{FinalizersHandler: []string{hookFinalizer}}
	tr.SetCloneSet(cs)
	trackerPlanJSON(t, tr, w.s.Now, "after the hook came back")
	cs = cs.DeepCopy()
	cs.Spec.Template = podTemplate(revA) // web-d's revision is the update revision again
	tr.SetCloneSet(cs)
	if got := trackerPlanJSON(t, tr, w.s.Now, "after the template went back to web-d's revision"); !bytes.Contains(got, []byte(`"pod":"web-d"`)) {
		t.Fatalf("web-d is not refreshed once its revision is the update revision:\n%s", got)
	}
	tr.SetPod(tr.Pod("web-d").DeepCopy()) // web-d's transition done: the CloneSet stays
	for i := range 2 {
		trackerPlanJSON(t, tr, w.s.Now, fmt.Sprint("plan ", i, " before the revision goes"))
	}
	tr.DeleteRevision(revA)
	if got := trackerPlanJSON(t, tr, w.s.Now, "after the stored revision equal to the template went"); !bytes.Contains(got, []byte(`"pod":"web-e"`)) {
		t.Fatalf("web-e is not refreshed once its revision is the update revision:\n%s", got)
	}
}

// TestTrackerKeptRefreshGates: a pod Updating a resize whose completion
// depends on the InPlaceWorkloadVerticalScaling gate (on: the resources must
// show in the status, which they do not; off: they are not checked) waits
// while the gate is on, and is refreshed once it goes off.
func TestTrackerKeptRefreshGates(t *testing.T) {
	w := newWorld(3, pod("web-a", revB), pod("web-b", revB),
		pod("web-c", revB, state(model.StateUpdating),
			annotate(model.AnnotationInPlaceUpdateState, `{"revision":"`+revB+`","updateResources":true}`)),
	).atRest(revB)
	w.s.Gates.InPlaceWorkloadVerticalScaling = true
	tr := clonesetcore.NewTracker(w.s.Gates, w.s.Controller)
	tr.Sync(w.s)
	for i := range 2 {
		if got := trackerPlanJSON(t, tr, w.s.Now, fmt.Sprint("plan ", i)); bytes.Contains(got, []byte(`"pod":"web-c"`)) {
			t.Fatalf("web-c's resize is complete with the gate on:\n%s", got)
		}
	}
	gates := w.s.Gates
	gates.InPlaceWorkloadVerticalScaling = false
	tr.SetGates(gates)
	if got := trackerPlanJSON(t, tr, w.s.Now, "after the gate went off"); !bytes.Contains(got, []byte(`"pod":"web-c"`)) {
		t.Fatalf("web-c is not refreshed once the gate went off:\n%s", got)
	}
}
