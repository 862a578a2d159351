package ordering

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/clonecore/cloneset/internal/cisummary"
	"github.com/clonecore/cloneset/model"
)

// initContainer is the init container of an update shape: none, a sidecar
// (restartPolicy Always, key 5b) or a plain init container (ignored by the
// keys), with its restart count.
type initContainer struct {
	present  bool
	sidecar  bool
	restarts int32
}

var (
	noInit       = initContainer{}
	sidecarOnce  = initContainer{present: true, sidecar: true, restarts: 1}
	sidecarTwice = initContainer{present: true, sidecar: true, restarts: 2}
	plainInit    = initContainer{present: true, restarts: 3}
)

// Label keys of the priority strategies of the exhaustive update tests.
const (
	exOrderA  = "prio-a" // first ordered key
	exOrderB  = "prio-b" // second ordered key
	exWeightA = "wa"     // matchLabels wa=1 (weight 2); NotIn wa [2] (weight 1)
	exWeightB = "wb"     // Exists wb (weight 4)
)

// exOrderStrategy orders by exOrderA, then exOrderB.
var exOrderStrategy = &model.UpdatePriorityStrategy{OrderPriority: []model.UpdatePriorityOrderTerm{{OrderedKey: exOrderA}, {OrderedKey: exOrderB}}}

// exWeightStrategy has a matchLabels term, a NotIn term (which also selects
// pods without the label), an Exists term and a term with an unknown
// operator, which 6.1 ignores.
var exWeightStrategy = &model.UpdatePriorityStrategy{WeightPriority: []model.UpdatePriorityWeightTerm{
	{Weight: 2, MatchSelector: model.LabelSelector{MatchLabels: map[string]string{exWeightA: "1"}}},
	{Weight: 1, MatchSelector: model.LabelSelector{MatchExpressions: []model.LabelSelectorRequirement{{Key: exWeightA, Operator: model.OpNotIn, Values: []string{"2"}}}}},
	{Weight: 4, MatchSelector: model.LabelSelector{MatchExpressions: []model.LabelSelectorRequirement{{Key: exWeightB, Operator: model.OpExists}}}},
	{Weight: 8, MatchSelector: model.LabelSelector{MatchExpressions: []model.LabelSelectorRequirement{{Key: exWeightB, Operator: "Bogus"}}}},
}}

// updDomains are the values each attribute of an update shape takes; a shape
// is one element of their product.
type updDomains struct {
	nodes     []string
	phases    []string
	readiness []readiness
	restarts  []int32
	inits     []initContainer
	created   []time.Time
	states    []string // lifecycle state label, or exAbsent
	// revisions and grace are the revision label and the grace annotation:
	// candidate selection reads them (2.4, 2.5), the order must not.
	revisions []string
	grace     []string
	orderA    []string // exOrderA label value, or exAbsent
	orderB    []string
	weightA   []string
	weightB   []string
}

func (d *updDomains) sizes() []int {
	return []int{len(d.nodes), len(d.phases), len(d.readiness), len(d.restarts), len(d.inits), len(d.created),
		len(d.states), len(d.revisions), len(d.grace), len(d.orderA), len(d.orderB), len(d.weightA), len(d.weightB)}
}

// pods returns a pod of every shape, named in enumeration order.
func (d *updDomains) pods() []*model.Pod {
	var out []*model.Pod
	radix(d.sizes(), func(x []int) {
		p := newPod(fmt.Sprintf("u%06d", len(out)), onNode(d.nodes[x[0]]), phase(d.phases[x[1]]))
		setReadiness(p, d.readiness[x[2]])
		p.Status.ContainerStatuses[0].RestartCount = d.restarts[x[3]]
		if ic := d.inits[x[4]]; ic.present {
			c := model.Container{Name: "init"}
			if ic.sidecar {
				c.RestartPolicy = "Always"
			}
			p.Spec.InitContainers = []model.Container{c}
			p.Status.InitContainerStatuses = []model.ContainerStatus{{Name: "init", RestartCount: ic.restarts}}
		}
		p.CreationTimestamp = d.created[x[5]]
		setLabel(p, model.LabelLifecycleState, d.states[x[6]])
		setLabel(p, model.LabelRevisionHash, d.revisions[x[7]])
		if v := d.grace[x[8]]; v != exAbsent {
			p.Annotations[model.AnnotationInPlaceUpdateGrace] = v
		}
		setLabel(p, exOrderA, d.orderA[x[9]])
		setLabel(p, exOrderB, d.orderB[x[10]])
		setLabel(p, exWeightA, d.weightA[x[11]])
		setLabel(p, exWeightB, d.weightB[x[12]])
		out = append(out, p)
	})
	return out
}

var (
	absentOnly = []string{exAbsent}

	// updDefaultPairs varies every key of section 5 and the attributes the
	// order must ignore, without priority labels.
	updDefaultPairs = updDomains{
		nodes:     []string{"", "n1"},
		phases:    []string{model.PodPending, model.PodUnknown, model.PodRunning},
		readiness: []readiness{notReadyLongAgo, readyZeroTime, readyLongAgo, readyRecent},
		restarts:  []int32{0, 1},
		inits:     []initContainer{noInit, sidecarOnce, plainInit},
		created:   []time.Time{{}, exOlder, exNewer},
		states:    []string{exAbsent, model.StatePreparingUpdate, model.StateUpdated},
		revisions: []string{exUpdateRevision, exOldRevision},
		grace:     []string{exAbsent, "{}"},
		orderA:    absentOnly, orderB: absentOnly, weightA: absentOnly, weightB: absentOnly,
	}
	updDefaultPairsLarge = updDomains{
		nodes:     []string{"", "n1"},
		phases:    []string{model.PodPending, model.PodUnknown, model.PodRunning, ""},
		readiness: []readiness{readyNone, notReadyLongAgo, notReadyRecent, readyZeroTime, readyLongAgo, readyRecent},
		restarts:  []int32{0, 1},
		inits:     []initContainer{noInit, sidecarOnce, sidecarTwice, plainInit},
		created:   []time.Time{{}, exOlder, exNewer},
		states:    []string{exAbsent, model.StateNormal, model.StatePreparingUpdate, model.StateUpdated},
		revisions: []string{exUpdateRevision, exOldRevision},
		grace:     []string{exAbsent, "{}"},
		orderA:    absentOnly, orderB: absentOnly, weightA: absentOnly, weightB: absentOnly,
	}
	// updOrderPairs varies the order priority labels (missing, present
	// empty, equal suffixes "1" and "x-1", higher "2", no suffix "v") over
	// a few default keys.
	updOrderPairs = updDomains{
		nodes:     []string{"", "n1"},
		phases:    []string{model.PodRunning},
		readiness: []readiness{notReadyLongAgo, readyLongAgo, readyRecent},
		restarts:  []int32{0},
		inits:     []initContainer{noInit},
		created:   []time.Time{exOlder, exNewer},
		states:    []string{exAbsent, model.StatePreparingUpdate},
		revisions: []string{exUpdateRevision}, grace: absentOnly,
		orderA:  []string{exAbsent, "", "1", "x-1", "2", "v"},
		orderB:  []string{exAbsent, "3"},
		weightA: absentOnly, weightB: absentOnly,
	}
	updOrderPairsLarge = updDomains{
		nodes:     []string{"", "n1"},
		phases:    []string{model.PodPending, model.PodRunning},
		readiness: []readiness{notReadyLongAgo, readyLongAgo, readyRecent},
		restarts:  []int32{0, 1},
		inits:     []initContainer{noInit},
		created:   []time.Time{exOlder, exNewer},
		states:    []string{exAbsent, model.StatePreparingUpdate},
		revisions: []string{exUpdateRevision}, grace: absentOnly,
		orderA:  []string{exAbsent, "", "1", "x-1", "2", "v", "99999999999999999999"},
		orderB:  []string{exAbsent, "3", "0"},
		weightA: absentOnly, weightB: absentOnly,
	}
	// updWeightPairs varies which weight terms match.
	updWeightPairs = updDomains{
		nodes:     []string{"", "n1"},
		phases:    []string{model.PodRunning},
		readiness: []readiness{notReadyLongAgo, readyLongAgo, readyRecent},
		restarts:  []int32{0},
		inits:     []initContainer{noInit},
		created:   []time.Time{exOlder, exNewer},
		states:    []string{exAbsent, model.StatePreparingUpdate},
		revisions: []string{exUpdateRevision}, grace: absentOnly,
		orderA: absentOnly, orderB: absentOnly,
		weightA: []string{exAbsent, "1", "2"},
		weightB: []string{exAbsent, ""},
	}
	updWeightPairsLarge = updDomains{
		nodes:     []string{"", "n1"},
		phases:    []string{model.PodPending, model.PodRunning},
		readiness: []readiness{notReadyLongAgo, readyLongAgo, readyRecent},
		restarts:  []int32{0, 1},
		inits:     []initContainer{noInit},
		created:   []time.Time{exOlder, exNewer},
		states:    []string{exAbsent, model.StatePreparingUpdate},
		revisions: []string{exUpdateRevision}, grace: absentOnly,
		orderA: absentOnly, orderB: absentOnly,
		weightA: []string{exAbsent, "1", "2", "3"},
		weightB: []string{exAbsent, "", "x"},
	}
	// updTriples: three values per relative key and three priority
	// levels, under the order strategy.
	updTriples = updDomains{
		nodes:     []string{"", "n1"},
		phases:    []string{model.PodPending, model.PodUnknown, model.PodRunning},
		readiness: []readiness{notReadyLongAgo, readyLongAgo, readyRecent},
		restarts:  []int32{0, 1},
		inits:     []initContainer{noInit},
		created:   []time.Time{exOlder, exNewer},
		states:    absentOnly, revisions: []string{exUpdateRevision}, grace: absentOnly,
		orderA:  []string{exAbsent, "1", "2"},
		orderB:  absentOnly,
		weightA: absentOnly, weightB: absentOnly,
	}
	updTriplesLarge = updDomains{
		nodes:     []string{"", "n1"},
		phases:    []string{model.PodPending, model.PodUnknown, model.PodRunning},
		readiness: []readiness{notReadyLongAgo, readyZeroTime, readyLongAgo, readyRecent},
		restarts:  []int32{0, 1},
		inits:     []initContainer{noInit, sidecarOnce},
		created:   []time.Time{exOlder, exNewer},
		states:    absentOnly, revisions: []string{exUpdateRevision}, grace: absentOnly,
		orderA:  []string{exAbsent, "1", "2"},
		orderB:  []string{exAbsent, "3"},
		weightA: absentOnly, weightB: absentOnly,
	}
)

// updKeys returns the update keys of pods as SortForUpdate computes them
// under priority strategy ps (nil for none).
func updKeys(pods []*model.Pod, ps *model.UpdatePriorityStrategy) []updKey {
	prio := newPrioritySpec(ps)
	keys := make([]updKey, len(pods))
	for i, p := range pods {
		keys[i] = newUpdKey(p, i, p.LifecycleState())
		keys[i].ki = int32(i)
		prio.apply(&keys[i])
	}
	return keys
}

// litUpdateCompare is sections 6 and 5 for a pair: priority first, then
// the default order; the deciding key (WhyPriority for the priority) and
// whether a goes first.
func litUpdateCompare(a, b *model.Pod, ps *model.UpdatePriorityStrategy) (string, bool) {
	if first := litPriorityFirst(ps); first != nil {
		switch {
		case first(a, b):
			return WhyPriority, true
		case first(b, a):
			return WhyPriority, false
		}
	}
	return litUpdateDefaultCompare(a, b)
}

// checkUpdatePairs compares every ordered pair of pods under priority
// strategy ps: cmpUpdate (priority and section 5, the comparison of the
// sort) against litUpdateCompare, its antisymmetry and, when the priority
// ties, whyDefault against the deciding key. When pipeline is set, it also
// runs SortForUpdate on the two pods, in that input order, and compares
// the order and the Why keys with litUpdateOrder (which adds the
// PreparingUpdate pass). It returns the number of pairs.
func checkUpdatePairs(t *testing.T, what string, pods []*model.Pod, ps *model.UpdatePriorityStrategy, pipeline bool) int {
	t.Helper()
	keys := updKeys(pods, ps)
	var opts UpdateOptions // without a strategy, no rolling-update block at all
	if ps != nil {
		opts.RollingUpdate = &model.RollingUpdateStrategy{PriorityStrategy: ps}
	}
	failures := 0
	fail := func(format string, args ...any) {
		t.Helper()
		if failures++; failures <= 10 {
			t.Errorf(what+": "+format, args...)
		}
	}
	for i, a := range pods {
		for j, b := range pods {
			key, aFirst := litUpdateCompare(a, b, ps)
			want := litSign(key, aFirst)
			got := sign(cmpUpdate(&keys[i], &keys[j]))
			if got != want {
				fail("cmpUpdate(%s, %s) = %d, reference %d (key %q)\n a: %s\n b: %s", a.Name, b.Name, got, want, key, describeUpdPod(a), describeUpdPod(b))
				continue
			}
			if back := sign(cmpUpdate(&keys[j], &keys[i])); back != -got {
				fail("antisymmetry: cmpUpdate(%s, %s) = %d, back %d", a.Name, b.Name, got, back)
			}
			if got != 0 && key != WhyPriority {
				if why := whyNames[whyDefault(&keys[i], &keys[j])]; why != key {
					fail("whyDefault(%s, %s) = %q, reference %q\n a: %s\n b: %s", a.Name, b.Name, why, key, describeUpdPod(a), describeUpdPod(b))
				}
			}
			if pipeline && i != j {
				in := []*model.Pod{a, b}
				wantOrder, wantWhy := litUpdateOrder(in, opts)
				gotRanked := SortForUpdate(in, opts)
				if !slices.Equal(names(gotRanked), podNames(wantOrder)) || gotRanked[0].Why != wantWhy[0] || gotRanked[1].Why != wantWhy[1] {
					fail("SortForUpdate(%s, %s) = %v %v, reference %v %v\n a: %s\n b: %s", a.Name, b.Name,
						names(gotRanked), whys(gotRanked), podNames(wantOrder), wantWhy, describeUpdPod(a), describeUpdPod(b))
				}
			}
		}
	}
	if failures > 10 {
		t.Errorf("%s: ... %d failures in all", what, failures)
	}
	return len(pods) * len(pods)
}

// describeUpdPod is a one-line account of a pod for failure messages.
func describeUpdPod(p *model.Pod) string {
	return fmt.Sprintf("node=%q phase=%q conds=%v restarts=%d init=%v/%v created=%v labels=%v annotations=%v",
		p.Spec.NodeName, p.Status.Phase, p.Status.Conditions, p.Status.ContainerStatuses[0].RestartCount,
		p.Spec.InitContainers, p.Status.InitContainerStatuses, p.CreationTimestamp, p.Labels, p.Annotations)
}

// Scatter worlds. T1 matches the pods labelled zone=a. T2 has an empty
// value: pods without the rack label match it (7.2) but are not counted
// for the term order (7.1), pods with rack="" are both, rack=x neither.
var (
	exT1 = model.ScatterTerm{Key: "zone", Value: "a"}
	exT2 = model.ScatterTerm{Key: "rack", Value: ""}
)

// scatterConfig is one family of update worlds: a scatter term list, a
// priority strategy, the per-pod label alphabets (exAbsent for no label)
// and the largest world.
type scatterConfig struct {
	terms    []model.ScatterTerm
	priority *model.UpdatePriorityStrategy
	zone     []string // label zone
	rack     []string // label rack
	order    []string // label exOrderA
	states   []string // lifecycle state
	maxPods  int
}

var (
	zoneValues  = []string{"a", exAbsent}
	rackValues  = []string{exAbsent, "", "x"}
	orderValues = []string{exAbsent, "1", "2"}
	puValues    = []string{exAbsent, model.StatePreparingUpdate}
)

// scatterConfigs returns the world families. The default sizes keep the
// families with six-letter alphabets at five pods and the eighteen-letter
// one at three; large goes to six pods (five for the eighteen letters).
func scatterConfigs(large bool) []scatterConfig {
	six, five, three := 6, 5, 3
	if large {
		five, three = 6, 5
	}
	return []scatterConfig{
		{terms: []model.ScatterTerm{exT1}, zone: zoneValues, rack: absentOnly, order: absentOnly, states: puValues, maxPods: six},
		{terms: []model.ScatterTerm{exT2}, zone: absentOnly, rack: rackValues, order: absentOnly, states: puValues, maxPods: five},
		{terms: []model.ScatterTerm{exT1, exT2}, zone: zoneValues, rack: rackValues, order: absentOnly, states: absentOnly, maxPods: five},
		{terms: []model.ScatterTerm{exT2, exT1}, zone: zoneValues, rack: rackValues, order: absentOnly, states: absentOnly, maxPods: five},
		{terms: []model.ScatterTerm{exT1}, priority: exOrderStrategy, zone: zoneValues, rack: absentOnly, order: orderValues, states: absentOnly, maxPods: five},
		{terms: []model.ScatterTerm{exT1, exT2}, priority: exOrderStrategy, zone: zoneValues, rack: rackValues, order: orderValues, states: absentOnly, maxPods: three},
	}
}

// exExtras are the pods of P that are not candidates, as (zone, rack)
// labels: none; three that match neither term (the density branch of 7.2
// for dense candidates); two that match both.
var exExtras = [][][2]string{
	nil,
	{{"b", "x"}, {"b", "x"}, {"b", "x"}},
	{{"a", ""}, {"a", ""}},
}

// checkScatterConfig runs SortForUpdate on every world of c: every
// assignment of the alphabets to 0..maxPods candidates, with each set of
// extra pods, given in reversed and in rotated name order, against
// litUpdateOrder (order and Why). It returns the number of worlds.
func checkScatterConfig(t *testing.T, c scatterConfig) int {
	t.Helper()
	alphabet := [][]string{c.zone, c.rack, c.order, c.states}
	letters := 1
	for _, a := range alphabet {
		letters *= len(a)
	}
	worlds := 0
	ru := &model.RollingUpdateStrategy{ScatterStrategy: c.terms, PriorityStrategy: c.priority}
	for n := 0; n <= c.maxPods; n++ {
		sizes := make([]int, n)
		for i := range sizes {
			sizes[i] = letters
		}
		radix(sizes, func(word []int) {
			cands := make([]*model.Pod, n)
			for i, l := range word {
				p := newPod(fmt.Sprintf("c%d", i), created(exOlder))
				x := l // a mixed-radix number over the four alphabets
				setLabel(p, "zone", c.zone[x%len(c.zone)])
				x /= len(c.zone)
				setLabel(p, "rack", c.rack[x%len(c.rack)])
				x /= len(c.rack)
				setLabel(p, exOrderA, c.order[x%len(c.order)])
				x /= len(c.order)
				setLabel(p, model.LabelLifecycleState, c.states[x%len(c.states)])
				cands[i] = p
			}
			for _, extra := range exExtras {
				all := slices.Clone(cands)
				for i, zr := range extra {
					p := newPod(fmt.Sprintf("x%d", i))
					setLabel(p, "zone", zr[0])
					setLabel(p, "rack", zr[1])
					all = append(all, p)
				}
				opts := UpdateOptions{RollingUpdate: ru, AllPods: all}
				wantOrder, wantWhy := litUpdateOrder(cands, opts)
				for _, in := range [][]*model.Pod{reversed(cands), rotated(cands, worlds)} {
					got := SortForUpdate(in, opts)
					ok := len(got) == len(wantOrder)
					for i := 0; ok && i < len(got); i++ {
						ok = got[i].Pod == wantOrder[i] && got[i].Why == wantWhy[i] && in[got[i].Index] == got[i].Pod
					}
					if !ok {
						t.Fatalf("terms %v, priority %v, extra pods %v, candidates %s:\n got %v %v\nwant %v %v",
							c.terms, c.priority != nil, extra, describeWorld(cands), names(got), whyList(got), podNames(wantOrder), wantWhy)
					}
				}
				worlds++
			}
		})
	}
	return worlds
}

// rotated returns s rotated left by k.
func rotated[T any](s []T, k int) []T {
	if len(s) == 0 {
		return nil
	}
	k %= len(s)
	return append(slices.Clone(s[k:]), s[:k]...)
}

func whyList(rs []Ranked) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Why
	}
	return out
}

// describeWorld lists the candidates with their relevant labels.
func describeWorld(pods []*model.Pod) string {
	s := ""
	for _, p := range pods {
		l := func(k string) string {
			if v, ok := p.Labels[k]; ok {
				return fmt.Sprintf("%q", v)
			}
			return "-"
		}
		s += fmt.Sprintf(" %s{zone=%s rack=%s prio=%s state=%s}", p.Name, l("zone"), l("rack"), l(exOrderA), l(model.LabelLifecycleState))
	}
	return s
}

// TestExhaustiveUpdate checks the update order (docs/spec/update-and-ordering.md
// 2.6, 5, 6, 7) over every shape its keys can tell apart, against the
// literal reference of exhaustive_reference_test.go:
//
//   - pairs: every ordered pair of shapes of updDefaultPairs (no priority;
//     every key of section 5, lifecycle states, revision label and grace
//     annotation, which the order must ignore), of updOrderPairs under the
//     order strategy (missing, empty, equal, numeric and suffix-less
//     values) and of updWeightPairs under the weight strategy (every
//     combination of matching terms, an ignored term): cmpUpdate has the
//     sign of the reference, is antisymmetric and whyDefault names the
//     deciding key; for the priority pairs, and for the pairs of
//     updTriples without a rolling-update block, SortForUpdate on the two
//     pods (which adds the PreparingUpdate pass) equals the reference, Why
//     keys included;
//   - triples: every triple of updTriples (three priority levels, three
//     values per relative key) under the order strategy: cmpUpdate is
//     transitive;
//   - worlds: for each family of scatterConfigs (one or two scatter terms,
//     in both orders, with and without order priority labels and
//     PreparingUpdate states), every assignment of the labels to 0..6
//     candidates (fewer for the largest alphabets), with three sets of
//     non-candidate pods shaping the densities: SortForUpdate, given the
//     candidates in two input orders, equals litUpdateOrder (the scatter
//     procedure of 7.1 and 7.2 written literally), Why keys included.
//
// Sizes (2 cores shared with other jobs, so wall times vary; CPU time is
// the process's user time with the test run alone):
//
//	default:                update pairs: 27024192, triples: 10077696, worlds: 146880; about 2 s CPU
//	-ordering.exhaustive:   update pairs: 346457088, triples: 1528823808, worlds: 6690384; 95 s CPU, 433 s wall (run once, 2026-11-24)
func TestExhaustiveUpdate(t *testing.T) {
	t.Parallel()
	defaultD, orderD, weightD, tripleD := updDefaultPairs, updOrderPairs, updWeightPairs, updTriples
	if *exhaustive {
		defaultD, orderD, weightD, tripleD = updDefaultPairsLarge, updOrderPairsLarge, updWeightPairsLarge, updTriplesLarge
	}
	start := time.Now()
	pairs, triples, worlds := 0, 0, 0

	defaultPods, orderPods, weightPods, triplePods := defaultD.pods(), orderD.pods(), weightD.pods(), tripleD.pods()
	if len(defaultPods) == 0 || len(orderPods) == 0 || len(weightPods) == 0 || len(triplePods) == 0 {
		t.Fatal("a domain is empty: no shapes")
	}
	pairs += checkUpdatePairs(t, "default order", defaultPods, nil, false)
	pairs += checkUpdatePairs(t, "order priority", orderPods, exOrderStrategy, true)
	pairs += checkUpdatePairs(t, "weight priority", weightPods, exWeightStrategy, true)
	pairs += checkUpdatePairs(t, "default order, whole pipeline", triplePods, nil, true)
	if t.Failed() {
		t.FailNow()
	}
	pairTime := time.Since(start)

	tripleKeys := updKeys(triplePods, exOrderStrategy)
	triples += checkTransitive(t, "update order", len(tripleKeys), func(i, j int) int { return cmpUpdate(&tripleKeys[i], &tripleKeys[j]) })
	tripleTime := time.Since(start) - pairTime

	for _, c := range scatterConfigs(*exhaustive) {
		worlds += checkScatterConfig(t, c)
	}

	total := time.Since(start)
	summary := fmt.Sprintf("update pairs: %d, triples: %d, worlds: %d; exhaustive=%v; %.1fs (pairs %.1fs, triples %.1fs, worlds %.1fs)",
		pairs, triples, worlds, *exhaustive, total.Seconds(), pairTime.Seconds(), tripleTime.Seconds(), (total - pairTime - tripleTime).Seconds())
	cisummary.Print(t, summary)
}
