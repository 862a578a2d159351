package ordering

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
	"pgregory.net/rapid"
)

// genPod draws a pod from small domains so that ties on every key are common.
func genPod(t *rapid.T, name string) *model.Pod {
	p := newPod(name)
	p.Spec.NodeName = rapid.SampledFrom([]string{"", "n0", "n1", "n2", "n3", "n4"}).Draw(t, "node")
	p.Status.Phase = rapid.SampledFrom([]string{model.PodRunning, model.PodRunning, model.PodPending, model.PodUnknown, model.PodSucceeded, ""}).Draw(t, "phase")
	switch rapid.IntRange(0, 4).Draw(t, "ready") {
	case 0:
		p.Status.Conditions = nil
	case 1:
		p.Status.Conditions[0].Status = "False"
	}
	if len(p.Status.Conditions) > 0 {
		p.Status.Conditions[0].LastTransitionTime = rapid.SampledFrom([]time.Time{{}, t0, t0.Add(time.Second), t0.Add(2 * time.Second), t0.Add(20 * time.Second)}).Draw(t, "readyAt")
	}
	if rapid.IntRange(0, 5).Draw(t, "ipur") == 0 {
		p.Status.Conditions = append(p.Status.Conditions, model.PodCondition{Type: model.ConditionInPlaceUpdateReady, Status: "False"})
	}
	if s := rapid.SampledFrom([]string{"-", model.StateNormal, model.StatePreparingNormal, model.StatePreparingUpdate, model.StateUpdated, "Bogus"}).Draw(t, "state"); s == "-" {
		delete(p.Labels, model.LabelLifecycleState)
	} else {
		p.Labels[model.LabelLifecycleState] = s
	}
	if c := rapid.SampledFrom([]string{"-", "-5", "0", "3", "+1", "abc"}).Draw(t, "cost"); c != "-" {
		p.Annotations[model.AnnotationDeletionCost] = c
	}
	p.Status.ContainerStatuses[0].RestartCount = rapid.Int32Range(0, 2).Draw(t, "restarts")
	if n := rapid.Int32Range(-1, 2).Draw(t, "sidecar"); n >= 0 {
		sidecarRestarts(n)(p)
	}
	p.CreationTimestamp = rapid.SampledFrom([]time.Time{{}, t0.Add(-time.Hour), t0.Add(-2 * time.Hour)}).Draw(t, "created")
	for _, k := range []string{"foo", "zone-order", "canary"} {
		if v := rapid.SampledFrom([]string{"-", "bar", "baz", "", "1", "x-2", "true"}).Draw(t, "label-"+k); v != "-" {
			p.Labels[k] = v
		}
	}
	return p
}

// genGroup draws 0..maxN pods with unique names in random order.
func genGroup(t *rapid.T, maxN int) []*model.Pod {
	n := rapid.IntRange(0, maxN).Draw(t, "n")
	prefixes := []string{"a", "b", "web", "web-x", "z"}
	pods := make([]*model.Pod, n)
	for i := range pods {
		name := fmt.Sprintf("%s-%d", rapid.SampledFrom(prefixes).Draw(t, "prefix"), i)
		pods[i] = genPod(t, name)
	}
	return pods
}

func genDeletionOptions(t *rapid.T) DeletionOptions {
	opts := DeletionOptions{
		MinReadySeconds: rapid.SampledFrom([]int32{0, 10}).Draw(t, "minReady"),
		Now:             t0.Add(15 * time.Second),
	}
	nk := rapid.IntRange(0, 3).Draw(t, "nkeys")
	for i := 0; i < nk; i++ {
		opts.TopologyKeys = append(opts.TopologyKeys, rapid.SampledFrom([]string{"zone", "rack", LabelHostname}).Draw(t, "tkey"))
	}
	opts.Nodes = map[string]*model.Node{}
	for _, n := range []string{"n0", "n1", "n2", "n3", "n4"} {
		if rapid.IntRange(0, 4).Draw(t, "node-present") == 0 {
			continue
		}
		// Most nodes carry their own hostname; some share one (a topology
		// of several nodes for the hostname key) or have none.
		var nd *model.Node
		switch h := rapid.SampledFrom([]string{"own", "own", "shared", "-"}).Draw(t, "hostname"); h {
		case "own":
			nd = node(n, LabelHostname, n)
		case "shared":
			nd = node(n, LabelHostname, "shared-host")
		default:
			nd = node(n)
		}
		if z := rapid.SampledFrom([]string{"-", "a", "b", ""}).Draw(t, "zone"); z != "-" {
			nd.Labels["zone"] = z
		}
		if r := rapid.SampledFrom([]string{"-", "r1", "r2"}).Draw(t, "rack"); r != "-" {
			nd.Labels["rack"] = r
		}
		opts.Nodes[n] = nd
	}
	return opts
}

func genRollingUpdate(t *rapid.T) *model.RollingUpdateStrategy {
	if rapid.IntRange(0, 5).Draw(t, "ru-nil") == 0 {
		return nil
	}
	ru := &model.RollingUpdateStrategy{}
	switch rapid.IntRange(0, 3).Draw(t, "prio") {
	case 1:
		ru.PriorityStrategy = &model.UpdatePriorityStrategy{WeightPriority: []model.UpdatePriorityWeightTerm{
			{Weight: 30, MatchSelector: model.LabelSelector{MatchLabels: map[string]string{"foo": "bar"}}},
			{Weight: rapid.Int32Range(0, 60).Draw(t, "w"), MatchSelector: model.LabelSelector{MatchExpressions: []model.LabelSelectorRequirement{{Key: "canary", Operator: model.OpExists}}}},
		}}
	case 2:
		ru.PriorityStrategy = &model.UpdatePriorityStrategy{OrderPriority: []model.UpdatePriorityOrderTerm{{OrderedKey: "zone-order"}, {OrderedKey: "foo"}}}
	case 3:
		ru.PriorityStrategy = &model.UpdatePriorityStrategy{}
	}
	nt := rapid.IntRange(0, 3).Draw(t, "nterms")
	for i := 0; i < nt; i++ {
		ru.ScatterStrategy = append(ru.ScatterStrategy, model.ScatterTerm{
			Key:   rapid.SampledFrom([]string{"foo", "canary", "zone-order"}).Draw(t, "skey"),
			Value: rapid.SampledFrom([]string{"bar", "baz", "", "true", "1"}).Draw(t, "sval"),
		})
	}
	return ru
}

// buildEnts computes the deletion keys the way rankGroup does and returns
// them as scale-in entries and as in-node entries (key 3a ignored), with a
// random key-5 rank from a small set (ties included).
func buildEnts(t *rapid.T, pods []*model.Pod, opts DeletionOptions) (r *ranker, full, grouped []ent) {
	r = newRanker(pods, len(pods))
	ids := map[string]int32{}
	for i, p := range pods {
		k := newDelKey(p, i, &opts)
		if nn := p.Spec.NodeName; nn != "" {
			if _, ok := ids[nn]; !ok {
				ids[nn] = int32(len(ids))
			}
			k.node = ids[nn]
		}
		r.keys = append(r.keys, k)
	}
	for i := range r.keys {
		k := &r.keys[i]
		cur := rapid.SampledFrom([]float64{0, 1, 2, 1.3862943611198906}).Draw(t, "cur")
		full = append(full, ent{pre: k.pre, rank: rankKey(cur), readyRec: k.readyRec, key: int32(i)})
		grouped = append(grouped, r.groupEnt(int32(i), cur))
	}
	return r, full, grouped
}

func sign(c int) int {
	switch {
	case c < 0:
		return -1
	case c > 0:
		return 1
	}
	return 0
}

// checkStrictTotalOrder verifies, on every triple, that cmp is irreflexive,
// antisymmetric, total on distinct elements and transitive.
func checkStrictTotalOrder[E any](t *rapid.T, xs []E, cmp func(a, b E) int) {
	for i := range xs {
		if c := cmp(xs[i], xs[i]); c != 0 {
			t.Fatalf("irreflexivity: cmp(x%d, x%d) = %d", i, i, c)
		}
		for j := range xs {
			if i == j {
				continue
			}
			cij, cji := sign(cmp(xs[i], xs[j])), sign(cmp(xs[j], xs[i]))
			if cij == 0 || cij != -cji {
				t.Fatalf("antisymmetry/totality: cmp(x%d,x%d)=%d cmp(x%d,x%d)=%d", i, j, cij, j, i, cji)
			}
			for k := range xs {
				if cij < 0 && cmp(xs[j], xs[k]) < 0 && cmp(xs[i], xs[k]) >= 0 {
					t.Fatalf("transitivity: x%d<x%d<x%d but not x%d<x%d", i, j, k, i, k)
				}
			}
		}
	}
}

func TestPropComparatorsAreStrictTotalOrders(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pods := genGroup(t, 7)
		opts := genDeletionOptions(t)
		r, full, grouped := buildEnts(t, pods, opts)
		checkStrictTotalOrder(t, full, r.cmp)
		checkStrictTotalOrder(t, grouped, r.cmp)
		// Pods sharing a name are still ordered by input position.
		if len(pods) > 1 {
			r, full, _ := buildEnts(t, append(slices.Clone(pods), pods[0]), opts)
			full[len(full)-1].rank = full[0].rank
			checkStrictTotalOrder(t, full, r.cmp)
		}
		uk := make([]*updKey, len(pods))
		for i, p := range pods {
			k := newUpdKey(p, i, p.LifecycleState())
			k.setPriority(rapid.Int32Range(-1, 1).Draw(t, "level"), rapid.Int64Range(-1, 2).Draw(t, "prio"), k.prefix())
			uk[i] = &k
		}
		checkStrictTotalOrder(t, uk, cmpUpdate)
		if len(pods) > 1 {
			dup := newUpdKey(pods[0], len(pods), pods[0].LifecycleState())
			dup.hi, dup.lo = uk[0].hi, uk[0].lo
			checkStrictTotalOrder(t, append(slices.Clone(uk), &dup), cmpUpdate)
		}
	})
}

func shuffled(t *rapid.T, pods []*model.Pod, label string) []*model.Pod {
	out := rapid.Permutation(pods).Draw(t, label)
	// Sprinkle nil entries, which must be ignored.
	if rapid.Bool().Draw(t, label+"-nil") {
		out = append(out, nil)
		out = rapid.Permutation(out).Draw(t, label+"-nilperm")
	}
	return out
}

func samePods(t *rapid.T, in []*model.Pod, got []Ranked) {
	var want, have []*model.Pod
	for _, p := range in {
		if p != nil {
			want = append(want, p)
		}
	}
	for _, r := range got {
		have = append(have, r.Pod)
	}
	key := func(a, b *model.Pod) int {
		if a.Name != b.Name {
			if a.Name < b.Name {
				return -1
			}
			return 1
		}
		return 0
	}
	slices.SortFunc(want, key)
	slices.SortFunc(have, key)
	if !slices.Equal(want, have) {
		t.Fatalf("output is not a permutation of the input: %d vs %d pods", len(have), len(want))
	}
}

// sameRanking compares two rankings of the same pods given in possibly
// different orders: everything but Index.
func sameRanking(a, b []Ranked) bool {
	return slices.EqualFunc(a, b, func(x, y Ranked) bool {
		return x.Pod == y.Pod && x.Why == y.Why && x.SpreadRank == y.SpreadRank
	})
}

// indexesPoint checks that each Ranked.Index is the position of its pod in
// the input.
func indexesPoint(t *rapid.T, in []*model.Pod, got []Ranked) {
	for _, r := range got {
		if r.Index < 0 || r.Index >= len(in) || in[r.Index] != r.Pod {
			t.Fatalf("Index %d of %s does not point at it in the input", r.Index, r.Pod.Name)
		}
	}
}

func TestPropRankForDeletion(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pods := genGroup(t, 14)
		opts := genDeletionOptions(t)
		in := shuffled(t, pods, "in")
		before := slices.Clone(in)
		got := RankForDeletion(in, opts)
		if !slices.Equal(in, before) {
			t.Fatal("input modified")
		}
		samePods(t, in, got)
		indexesPoint(t, in, got)

		// Independent of input order, stable across runs.
		again := RankForDeletion(shuffled(t, pods, "in2"), opts)
		rerun := RankForDeletion(in, opts)
		for _, other := range [][]Ranked{again, rerun} {
			if !sameRanking(got, other) {
				t.Fatalf("differs:\n%v\n%v", names(got), names(other))
			}
		}

		// Same as the literal reference implementation.
		order, rank, why := refRankForDeletion(pods, opts)
		for i, r := range got {
			if r.Pod != order[i] {
				t.Fatalf("position %d: got %s, reference %s\n got %v", i, r.Pod.Name, order[i].Name, names(got))
			}
			if r.SpreadRank != rank[order[i]] {
				t.Fatalf("rank of %s: got %v, reference %v", r.Pod.Name, r.SpreadRank, rank[order[i]])
			}
			if r.Why != why[i] {
				t.Fatalf("why of %s: got %q, reference %q", r.Pod.Name, r.Why, why[i])
			}
			if !validWhy(r.Why, false) {
				t.Fatalf("invalid why %q", r.Why)
			}
		}
	})
}

func TestPropSortForUpdate(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		all := genGroup(t, 14)
		// Candidates: a random subset of P.
		var cands []*model.Pod
		for _, p := range all {
			if rapid.IntRange(0, 3).Draw(t, "cand") > 0 {
				cands = append(cands, p)
			}
		}
		ru := genRollingUpdate(t)
		in := shuffled(t, cands, "in")
		allIn := shuffled(t, all, "all")
		before, allBefore := slices.Clone(in), slices.Clone(allIn)
		got := SortForUpdate(in, UpdateOptions{RollingUpdate: ru, AllPods: allIn})
		if !slices.Equal(in, before) || !slices.Equal(allIn, allBefore) {
			t.Fatal("input modified")
		}
		samePods(t, in, got)

		again := SortForUpdate(shuffled(t, cands, "in2"), UpdateOptions{RollingUpdate: ru, AllPods: shuffled(t, all, "all2")})
		rerun := SortForUpdate(in, UpdateOptions{RollingUpdate: ru, AllPods: allIn})
		// States given by the caller are those of the labels; a list of
		// another length is ignored.
		states := make([]string, len(in))
		for i, p := range in {
			if p != nil {
				states[i] = p.LifecycleState()
			}
		}
		given := SortForUpdate(in, UpdateOptions{RollingUpdate: ru, AllPods: allIn, LifecycleStates: states})
		ignored := SortForUpdate(in, UpdateOptions{RollingUpdate: ru, AllPods: allIn, LifecycleStates: make([]string, len(in)+1)})
		indexesPoint(t, in, got)
		for _, other := range [][]Ranked{again, rerun, given, ignored} {
			if !sameRanking(got, other) {
				t.Fatalf("differs:\n%v\n%v", names(got), names(other))
			}
		}

		ref := refSortForUpdate(cands, UpdateOptions{RollingUpdate: ru, AllPods: all})
		for i, r := range got {
			if r.Pod != ref[i] {
				t.Fatalf("position %d: got %v, reference %v", i, names(got), podNames(ref))
			}
			if !validWhy(r.Why, true) {
				t.Fatalf("invalid why %q", r.Why)
			}
			// A default-order key as explanation is truthful: that order puts
			// the pod before its successor.
			switch r.Why {
			case WhyUnscheduled, WhyPhase, WhyNotReady, WhyReadyTime, WhyRestarts, WhySidecarRestarts, WhyCreationTime, WhyName:
				if !refDefaultLess(r.Pod, got[i+1].Pod) {
					t.Fatalf("why %q for %s before %s, but the default order says otherwise: %v", r.Why, r.Pod.Name, got[i+1].Pod.Name, names(got))
				}
			case WhyLast:
				if i != len(got)-1 {
					t.Fatalf("why last at %d", i)
				}
			}
			if r.SpreadRank != 0 {
				t.Fatal("SpreadRank must be 0")
			}
		}
	})
}

func podNames(ps []*model.Pod) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

// genGroupWithDuplicates is genGroup with up to maxN pods, some of which share
// a name with another pod, or are the same pod listed twice.
func genGroupWithDuplicates(t *rapid.T, maxN int) []*model.Pod {
	pods := genGroup(t, maxN)
	for i := range pods {
		if i == 0 {
			continue
		}
		switch rapid.IntRange(0, 9).Draw(t, "dup") {
		case 0: // another pod with an earlier pod's name
			pods[i].Name = pods[rapid.IntRange(0, i-1).Draw(t, "dup-of")].Name
		case 1: // the same pod twice
			pods[i] = pods[rapid.IntRange(0, i-1).Draw(t, "dup-of")]
		}
	}
	return pods
}

// FirstForDeletion is the prefix of RankForDeletion, for every k, with and
// without topology keys, duplicate names and pods, ties and nil pods.
func TestPropFirstForDeletion(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pods := genGroupWithDuplicates(t, 80)
		opts := genDeletionOptions(t)
		in := pods
		if rapid.Bool().Draw(t, "nils") {
			in = slices.Insert(slices.Clone(pods), rapid.IntRange(0, len(pods)).Draw(t, "nil-at"), nil)
			in = append(in, nil)
		}
		before := slices.Clone(in)
		full := RankForDeletion(in, opts)
		// Every k from -1 to n+2.
		for k := -1; k <= len(full)+2; k++ {
			got := FirstForDeletion(in, opts, k)
			if !slices.Equal(in, before) {
				t.Fatal("input modified")
			}
			if got == nil {
				t.Fatal("nil result")
			}
			want := make([]*model.Pod, 0, len(full))
			for _, r := range full[:max(min(k, len(full)), 0)] {
				want = append(want, r.Pod)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("k=%d:\n got %v\nwant %v", k, podNames(got), podNames(want))
			}
		}
	})
}

// selectFirst selects the first k entries with any partition budget, so
// also when it falls back to the heap selection.
func TestPropSelectFirst(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pods := genGroupWithDuplicates(t, 120)
		opts := genDeletionOptions(t)
		r, seq := rankGroup(pods, &opts)
		if len(seq) == 0 {
			return
		}
		sorted := slices.Clone(seq)
		r.sort(sorted)
		byKey := func(a, b ent) int { return int(a.key) - int(b.key) }
		slices.SortFunc(seq, byKey)
		order := rapid.Permutation(seq).Draw(t, "order")
		budget := rapid.IntRange(0, 3).Draw(t, "budget")
		// Every k, from the same input order.
		for k := 1; k <= len(seq); k++ {
			s := slices.Clone(order)
			r.selectFirst(s, k, budget)
			r.sort(s[:k])
			if !slices.Equal(s[:k], sorted[:k]) {
				t.Fatalf("k=%d budget=%d: selection differs from the sorted prefix", k, budget)
			}
			slices.SortFunc(s, byKey)
			if !slices.Equal(s, seq) {
				t.Fatal("selection is not a permutation")
			}
		}
	})
}
