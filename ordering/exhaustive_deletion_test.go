package ordering

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/clonecore/cloneset/internal/cisummary"
	"github.com/clonecore/cloneset/model"
)

// delDomains are the values each attribute of a deletion shape takes. A
// shape is one element of their product; the values are chosen so that every
// key of 8.2 can compare below, equal and above between two shapes.
type delDomains struct {
	nodes     []string    // spec.nodeName; "" is unscheduled
	phases    []string    // status.phase
	readiness []readiness // the Ready condition
	// blockers are the causes, besides phase, readiness and
	// minReadySeconds, that can make a ready pod unavailable.
	blockers []blocker
	// specifiedDelete is the specified-delete label (the ranking must
	// ignore it: scale-in never sees such pods, 4.3 S6).
	specifiedDelete []bool
	costs           []string // the pod-deletion-cost annotation, or exAbsent
	restarts        []int32  // restart count of the only container
	created         []time.Time
	ranks           []float64 // injected key-5 ranks (pairs and triples only)
}

func (d *delDomains) sizes() []int {
	return []int{len(d.nodes), len(d.phases), len(d.readiness), len(d.blockers),
		len(d.specifiedDelete), len(d.costs), len(d.restarts), len(d.created), len(d.ranks)}
}

// blocker is the InPlaceUpdateReady condition status (exAbsent for none)
// and the lifecycle state label (exAbsent for none) of a shape.
type blocker struct {
	inPlaceReady string
	state        string
}

var (
	noBlocker       = blocker{exAbsent, exAbsent}
	inPlaceNotReady = blocker{"False", exAbsent}
	preparingDelete = blocker{exAbsent, model.StatePreparingDelete}
)

// blockerProduct returns every combination of an InPlaceUpdateReady status
// and a lifecycle state.
func blockerProduct(inPlaceReady, states []string) []blocker {
	var out []blocker
	for _, c := range inPlaceReady {
		for _, s := range states {
			out = append(out, blocker{c, s})
		}
	}
	return out
}

// delShape is a pod of one shape and its injected key-5 rank.
type delShape struct {
	pod  *model.Pod
	rank float64
}

// shapes returns every shape of the product, named in enumeration order so
// that the name tie-break follows it ("s000000", "s000001", ...).
func (d *delDomains) shapes() []delShape {
	var out []delShape
	radix(d.sizes(), func(x []int) {
		p := newPod(fmt.Sprintf("s%06d", len(out)), onNode(d.nodes[x[0]]), phase(d.phases[x[1]]))
		setReadiness(p, d.readiness[x[2]])
		b := d.blockers[x[3]]
		if b.inPlaceReady != exAbsent {
			p.Status.Conditions = append(p.Status.Conditions, model.PodCondition{Type: model.ConditionInPlaceUpdateReady, Status: b.inPlaceReady})
		}
		setLabel(p, model.LabelLifecycleState, b.state)
		if d.specifiedDelete[x[4]] {
			p.Labels[model.LabelSpecifiedDelete] = "true"
		}
		if v := d.costs[x[5]]; v != exAbsent {
			p.Annotations[model.AnnotationDeletionCost] = v
		}
		p.Status.ContainerStatuses[0].RestartCount = d.restarts[x[6]]
		p.CreationTimestamp = d.created[x[7]]
		out = append(out, delShape{pod: p, rank: d.ranks[x[8]]})
	})
	return out
}

// Pair shapes. Every key of 8.2 gets values that compare below, equal and
// above; availability is reached through every one of its conditions
// (phase, state, readiness, minReadySeconds, InPlaceUpdateReady).
var (
	delPairDomains = delDomains{
		nodes:           []string{"", "n1"},
		phases:          []string{model.PodPending, model.PodUnknown, model.PodRunning},
		readiness:       []readiness{notReadyLongAgo, readyLongAgo, readyAtBoundary, readyRecent},
		blockers:        []blocker{noBlocker, inPlaceNotReady, preparingDelete},
		specifiedDelete: []bool{false, true},
		costs:           []string{"-1", exAbsent, "1"},
		restarts:        []int32{0, 1},
		created:         []time.Time{{}, exOlder, exNewer},
		ranks:           []float64{0, 1},
	}
	delPairDomainsLarge = delDomains{
		nodes:           []string{"", "n1"},
		phases:          []string{model.PodPending, model.PodUnknown, model.PodRunning, ""},
		readiness:       []readiness{readyNone, notReadyLongAgo, notReadyRecent, readyZeroTime, readyLongAgo, readyAtBoundary, readyRecent},
		blockers:        blockerProduct([]string{exAbsent, "False", "True"}, []string{exAbsent, model.StateNormal, model.StatePreparingDelete}),
		specifiedDelete: []bool{false, true},
		costs:           []string{"-1", exAbsent, "1"},
		restarts:        []int32{0, 1},
		created:         []time.Time{{}, exOlder, exNewer},
		ranks:           []float64{0, 1},
	}
	// Triple shapes: three values for every relative key, so that chains
	// a < b < c exist on each key and across keys.
	delTripleDomains = delDomains{
		nodes:           []string{"", "n1"},
		phases:          []string{model.PodPending, model.PodUnknown, model.PodRunning},
		readiness:       []readiness{notReadyLongAgo, readyLongAgo, readyRecent},
		blockers:        []blocker{noBlocker},
		specifiedDelete: []bool{false},
		costs:           []string{"-1", exAbsent, "1"},
		restarts:        []int32{0, 1},
		created:         []time.Time{exNewer},
		ranks:           []float64{0, 1, 2},
	}
	delTripleDomainsLarge = delDomains{
		nodes:           []string{"", "n1"},
		phases:          []string{model.PodPending, model.PodUnknown, model.PodRunning},
		readiness:       []readiness{notReadyLongAgo, readyLongAgo, readyAtBoundary, readyRecent},
		blockers:        []blocker{noBlocker},
		specifiedDelete: []bool{false},
		costs:           []string{"-1", exAbsent, "1"},
		restarts:        []int32{0, 1},
		created:         []time.Time{exOlder, exNewer},
		ranks:           []float64{0, 1, 2},
	}
)

// delEnts returns the ranker over the shapes' pods and, per shape, its
// scale-in entry (key 3a used) and its in-node entry (key 3a ignored, as the
// sorts inside a node or a topology use), both with the shape's rank as key
// 5: the comparator RankForDeletion and FirstForDeletion sort with.
func delEnts(shapes []delShape, opts DeletionOptions) (r *ranker, full, grouped []ent) {
	pods := make([]*model.Pod, len(shapes))
	for i, s := range shapes {
		pods[i] = s.pod
	}
	r = newRanker(pods, len(pods))
	for i, p := range pods {
		r.keys = append(r.keys, newDelKey(p, i, &opts))
	}
	for i, s := range shapes {
		k := &r.keys[i]
		full = append(full, ent{pre: k.pre, rank: rankKey(s.rank), readyRec: k.readyRec, key: int32(i)})
		grouped = append(grouped, r.groupEnt(int32(i), s.rank))
	}
	return r, full, grouped
}

// litSign turns litDeletionCompare's answer into a comparison sign.
func litSign(key string, aFirst bool) int {
	switch {
	case key == "":
		return 0
	case aFirst:
		return -1
	}
	return 1
}

// checkDeletionPairs compares every ordered pair of shapes with the
// comparator and with litDeletionCompare, with and without key 3a, and
// checks antisymmetry and the Why key. It returns the number of pairs.
func checkDeletionPairs(t *testing.T, shapes []delShape, opts DeletionOptions) int {
	t.Helper()
	r, full, grouped := delEnts(shapes, opts)
	rank := make(map[*model.Pod]float64, len(shapes))
	for _, s := range shapes {
		rank[s.pod] = s.rank
	}
	withAvail := litDeletionContext{withAvailability: true, rank: rank, minReadySeconds: opts.MinReadySeconds, now: opts.Now}
	withoutAvail := withAvail
	withoutAvail.withAvailability = false
	failures := 0
	fail := func(format string, args ...any) {
		t.Helper()
		if failures++; failures <= 10 {
			t.Errorf(format, args...)
		}
	}
	for i, a := range shapes {
		for j, b := range shapes {
			key, aFirst := litDeletionCompare(a.pod, b.pod, withAvail)
			want := litSign(key, aFirst)
			got := sign(r.cmp(full[i], full[j]))
			if got != want {
				fail("minReadySeconds %d: cmp(%s, %s) = %d, reference %d (key %q)\n a: %s\n b: %s",
					opts.MinReadySeconds, a.pod.Name, b.pod.Name, got, want, key, describeDelShape(a), describeDelShape(b))
				continue
			}
			if back := sign(r.cmp(full[j], full[i])); back != -got {
				fail("antisymmetry: cmp(%s, %s) = %d but cmp back = %d", a.pod.Name, b.pod.Name, got, back)
			}
			if got != 0 {
				if why := whyNames[r.why(full[i], full[j])]; why != key {
					fail("minReadySeconds %d: why(%s, %s) = %q, reference %q\n a: %s\n b: %s",
						opts.MinReadySeconds, a.pod.Name, b.pod.Name, why, key, describeDelShape(a), describeDelShape(b))
				}
			}
			// Without key 3a the answer only changes when 3a decided.
			gkey, gFirst := key, aFirst
			if key == WhyUnavailable {
				gkey, gFirst = litDeletionCompare(a.pod, b.pod, withoutAvail)
			}
			if got, want := sign(r.cmp(grouped[i], grouped[j])), litSign(gkey, gFirst); got != want {
				fail("without key 3a, minReadySeconds %d: cmp(%s, %s) = %d, reference %d (key %q)\n a: %s\n b: %s",
					opts.MinReadySeconds, a.pod.Name, b.pod.Name, got, want, gkey, describeDelShape(a), describeDelShape(b))
			}
		}
	}
	if failures > 10 {
		t.Errorf("... %d failures in all", failures)
	}
	return len(shapes) * len(shapes)
}

// checkTransitive checks, with a table of the comparator's signs over n
// elements, that a < b and b < c imply a < c for every triple. It returns
// the number of triples.
func checkTransitive(t *testing.T, what string, n int, cmp func(i, j int) int) int {
	t.Helper()
	less := make([]bool, n*n)
	for i := range n {
		for j := range n {
			less[i*n+j] = cmp(i, j) < 0
		}
	}
	for a := range n {
		for b := range n {
			if !less[a*n+b] {
				continue
			}
			row := less[b*n : b*n+n]
			for c, bc := range row {
				if bc && !less[a*n+c] {
					t.Fatalf("%s: transitivity: %d < %d < %d but not %d < %d", what, a, b, c, a, c)
				}
			}
		}
	}
	return n * n * n
}

// describeDelShape is a one-line account of a shape for failure messages.
func describeDelShape(s delShape) string {
	p := s.pod
	return fmt.Sprintf("node=%q phase=%q conds=%v state=%q sd=%v cost=%q restarts=%d created=%v rank=%v",
		p.Spec.NodeName, p.Status.Phase, p.Status.Conditions, p.Labels[model.LabelLifecycleState],
		p.HasSpecifiedDeleteLabel(), p.Annotations[model.AnnotationDeletionCost],
		p.Status.ContainerStatuses[0].RestartCount, p.CreationTimestamp, s.rank)
}

// delWorldShape is a world pod shape: a node and a kind.
type delWorldShape struct {
	node string
	kind func(*model.Pod)
}

// The nodes of the worlds: n1 and n2 share zone a and hostname h12 (a
// hostname topology of two nodes), n3 is alone in zone b with hostname h3,
// n4 has no Node object (no topology, rank 0 from the spread ranker).
var exNodes = nodeMap(
	node("n1", "zone", "a", LabelHostname, "h12"),
	node("n2", "zone", "a", LabelHostname, "h12"),
	node("n3", "zone", "b", LabelHostname, "h3"),
)

// exTopologies are the constraint lists of the worlds: none (the same-node
// ranker), the hostname key alone (no same-node rank inside), a zone key
// with the hostname key; at the large size also a key alone and a key
// listed twice.
var (
	exTopologies      = [][]string{nil, {LabelHostname}, {"zone", LabelHostname}}
	exTopologiesLarge = [][]string{nil, {LabelHostname}, {"zone", LabelHostname}, {"zone"}, {"zone", "zone"}}
)

// Pod kinds of the worlds; the base is newPod's: Running, Normal, one
// container, created at exOlder.
var (
	kindAvailable = func(p *model.Pod) { setReadiness(p, readyLongAgo) }
	// kindRecent is ready, available only without minReadySeconds, and
	// restarted once.
	kindRecent = func(p *model.Pod) {
		setReadiness(p, readyRecent)
		p.Status.ContainerStatuses[0].RestartCount = 1
	}
	// kindPendingCostly is pending, not ready and has a deletion cost.
	kindPendingCostly = func(p *model.Pod) {
		p.Status.Phase = model.PodPending
		setReadiness(p, notReadyLongAgo)
		p.Annotations[model.AnnotationDeletionCost] = "1"
	}
	// kindNewer is available and created later than the others.
	kindNewer = func(p *model.Pod) {
		setReadiness(p, readyLongAgo)
		p.CreationTimestamp = exNewer
	}
)

// worldShapes returns the products of nodes and kinds, then extra.
func worldShapes(nodes []string, kinds []func(*model.Pod), extra ...delWorldShape) []delWorldShape {
	var out []delWorldShape
	for _, k := range kinds {
		for _, n := range nodes {
			out = append(out, delWorldShape{n, k})
		}
	}
	return append(out, extra...)
}

var (
	delWorlds      = worldShapes([]string{"", "n1", "n2", "n3"}, []func(*model.Pod){kindAvailable, kindRecent})
	delWorldsLarge = worldShapes([]string{"", "n1", "n2", "n3", "n4"}, []func(*model.Pod){kindAvailable, kindRecent},
		delWorldShape{"", kindPendingCostly}, delWorldShape{"n1", kindPendingCostly}, delWorldShape{"n3", kindNewer})
)

// pod returns a pod of shape s named name.
func (s delWorldShape) pod(name string) *model.Pod {
	p := newPod(name, onNode(s.node), created(exOlder))
	s.kind(p)
	return p
}

// checkDeletionWorld compares RankForDeletion and FirstForDeletion on every
// order of pods with litDeletionRanking. allK asks for every k in every
// order; otherwise each order checks one k, cycling through 0..n+1. It
// returns the number of orders checked.
func checkDeletionWorld(t *testing.T, pods []*model.Pod, opts DeletionOptions, allK bool) int {
	t.Helper()
	want, rank, why := litDeletionRanking(pods, opts)
	n := len(pods)
	orders := 0
	in := slices.Clone(pods)
	permutations(in, func(in []*model.Pod) {
		orders++
		got := RankForDeletion(in, opts)
		ok := len(got) == n
		for i := 0; ok && i < n; i++ {
			g := got[i]
			ok = g.Pod == want[i] && g.Why == why[i] && g.SpreadRank == rank[want[i]] && in[g.Index] == g.Pod
		}
		if !ok {
			t.Fatalf("RankForDeletion(%v, minReadySeconds %d, topology %q):\n got %v %v %v\nwant %v %v %v",
				podNames(in), opts.MinReadySeconds, opts.TopologyKeys,
				names(got), whyList(got), ranksOf(got), podNames(want), why, rankNames(rank))
		}
		check := func(k int) {
			first := FirstForDeletion(in, opts, k)
			if w := want[:max(0, min(k, n))]; !slices.Equal(first, w) {
				t.Fatalf("FirstForDeletion(%v, minReadySeconds %d, topology %q, k=%d) = %v, want %v",
					podNames(in), opts.MinReadySeconds, opts.TopologyKeys, k, podNames(first), podNames(w))
			}
		}
		if allK {
			for k := -1; k <= n+1; k++ {
				check(k)
			}
		} else {
			check(orders % (n + 2))
		}
	})
	return orders
}

// rankNames maps a rank table to names, for failure messages.
func rankNames(rank map[*model.Pod]float64) map[string]float64 {
	out := make(map[string]float64, len(rank))
	for p, r := range rank {
		out[p.Name] = r
	}
	return out
}

// TestExhaustiveDeletion checks the deletion order (docs/spec/update-and-ordering.md
// 8, docs/spec/scale-and-budgets.md 4.6) over every shape its keys can tell
// apart, against the literal reference of exhaustive_reference_test.go:
//
//   - pairs: every ordered pair of shapes (delPairDomains: scheduled or
//     not, each phase rank, ready or not at times around minReadySeconds,
//     the other causes of unavailability, specified-delete, deletion cost
//     below, equal, above, restart count, creation time, key-5 rank), for
//     both minReadySeconds values: the comparator RankForDeletion and
//     FirstForDeletion sort with, with key 3a and without it (the order
//     inside a node or topology), has the sign of the reference, is
//     antisymmetric, and names the reference's deciding key;
//   - triples: every triple of a reduced set (delTripleDomains) with three
//     values per relative key: the comparator is transitive, with and
//     without key 3a, for both minReadySeconds values;
//   - worlds: every multiset of up to 5 pods over the world shapes
//     (delWorlds: nodes of different topologies × pod kinds), under each
//     constraint list of exTopologies and both minReadySeconds values, in
//     every input order: RankForDeletion equals the reference (order, Why,
//     SpreadRank, Index) and FirstForDeletion(k) is its prefix. At the
//     default size each input order checks one k (cycling through 0..n+1
//     over the orders of a world); with -ordering.exhaustive every order
//     checks every k from -1 to n+1.
//
// Sizes (2 cores shared with other jobs, so wall times vary; CPU time is
// the process's user time with the test run alone):
//
//	default:                deletion pairs: 53747712, triples: 68024448, worlds: 7722 (622566 input orders); about 3.5 s CPU
//	-ordering.exhaustive:   deletion pairs: 2633637888, triples: 1289945088, worlds: 85680 (7891660 input orders); 202 s CPU, 538 s wall (run once, 2026-11-24)
func TestExhaustiveDeletion(t *testing.T) {
	t.Parallel()
	pairD, tripleD, worldD, topologies := delPairDomains, delTripleDomains, delWorlds, exTopologies
	if *exhaustive {
		pairD, tripleD, worldD, topologies = delPairDomainsLarge, delTripleDomainsLarge, delWorldsLarge, exTopologiesLarge
	}
	start := time.Now()
	pairs, triples, worlds, orders := 0, 0, 0, 0

	pairShapes, tripleShapes := pairD.shapes(), tripleD.shapes()
	if len(pairShapes) == 0 || len(tripleShapes) == 0 || len(worldD) == 0 {
		t.Fatal("a domain is empty: no shapes")
	}
	for _, m := range exMinReadySeconds {
		pairs += checkDeletionPairs(t, pairShapes, DeletionOptions{MinReadySeconds: m, Now: exNow})
	}
	if t.Failed() {
		t.FailNow()
	}
	pairTime := time.Since(start)

	for _, m := range exMinReadySeconds {
		r, full, grouped := delEnts(tripleShapes, DeletionOptions{MinReadySeconds: m, Now: exNow})
		triples += checkTransitive(t, "scale-in order", len(full), func(i, j int) int { return r.cmp(full[i], full[j]) })
		checkTransitive(t, "in-node order", len(grouped), func(i, j int) int { return r.cmp(grouped[i], grouped[j]) })
	}

	tripleTime := time.Since(start) - pairTime
	multisets(len(worldD), 5, func(idx []int) {
		n := len(idx)
		pods := make([]*model.Pod, n)
		for i, s := range idx {
			// Rotate the names so that the name tie-break does not
			// always follow the shape order.
			pods[i] = worldD[s].pod(fmt.Sprintf("p%d", (i+worlds)%max(n, 1)))
		}
		for _, m := range exMinReadySeconds {
			for _, keys := range topologies {
				opts := DeletionOptions{MinReadySeconds: m, Now: exNow, TopologyKeys: keys, Nodes: exNodes}
				orders += checkDeletionWorld(t, pods, opts, *exhaustive)
				worlds++
			}
		}
	})

	total := time.Since(start)
	summary := fmt.Sprintf("deletion pairs: %d, triples: %d, worlds: %d (%d input orders); exhaustive=%v; %.1fs (pairs %.1fs, triples %.1fs, worlds %.1fs)",
		pairs, triples, worlds, orders, *exhaustive, total.Seconds(), pairTime.Seconds(), tripleTime.Seconds(), (total - pairTime - tripleTime).Seconds())
	cisummary.Print(t, summary)
}
