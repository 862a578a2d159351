package ordering

import (
	"math"
	"slices"

	"github.com/clonecore/cloneset/model"
)

// UpdateOptions are the inputs of SortForUpdate besides the candidates.
type UpdateOptions struct {
	// RollingUpdate is spec.updateStrategy.rollingUpdate; its PriorityStrategy
	// and ScatterStrategy are used. When nil, the priority and scatter steps
	// are skipped (2.6).
	RollingUpdate *model.RollingUpdateStrategy
	// AllPods is P, every observed active pod of the CloneSet (candidates
	// included). The scatter strategy's densities tM and tU count over it
	// (7.2). Nil entries are skipped.
	AllPods []*model.Pod
}

// updKey holds every update-order key of one pod, computed once.
type updKey struct {
	pod        *model.Pod
	name       string
	readySec   int64
	createdSec int64
	prio       int64 // weight, or IntSuffix of the order label

	readyNsec   int32
	createdNsec int32
	level       int32 // order priority level (-1: none of the keys); 0 for weights
	restarts    int32
	sidecar     int32
	idx         int32 // input position, for pods sharing a name
	ki          int32 // index in the keys array (row of the scatter flags)
	pos         int32 // position before the current pass
	scatter     int32 // index of the last scatter pass that moved the pod; -1
	phase       int8
	unscheduled bool
	ready       bool
	preparing   bool // lifecycle state PreparingUpdate
	puMoved     bool // moved forward by the PreparingUpdate-first pass
}

func newUpdKey(p *model.Pod, idx int) updKey {
	k := updKey{
		pod:         p,
		name:        p.Name,
		restarts:    p.MaxRestarts(),
		sidecar:     p.MaxSidecarRestarts(),
		idx:         int32(idx),
		scatter:     -1,
		phase:       phaseRank(p.Status.Phase),
		unscheduled: p.Spec.NodeName == "",
		preparing:   p.LifecycleState() == model.StatePreparingUpdate,
	}
	if c := p.Condition(model.ConditionReady); c != nil && c.Status == "True" {
		k.ready = true
		k.readySec, k.readyNsec = recency(c.LastTransitionTime)
	}
	k.createdSec, k.createdNsec = recency(p.CreationTimestamp)
	return k
}

// cmpDefaultUpdate compares two candidates with the keys of section 5
// (Kubernetes ActivePods) and the name tie-break; negative: a is updated first.
func cmpDefaultUpdate(a, b *updKey) (int, keyID) {
	if a.unscheduled != b.unscheduled {
		if a.unscheduled {
			return -1, keyUnscheduled
		}
		return 1, keyUnscheduled
	}
	if a.phase != b.phase {
		if a.phase < b.phase {
			return -1, keyPhase
		}
		return 1, keyPhase
	}
	if a.ready != b.ready {
		if !a.ready {
			return -1, keyNotReady
		}
		return 1, keyNotReady
	}
	if a.ready { // both ready
		if c := cmpRecent(a.readySec, a.readyNsec, b.readySec, b.readyNsec); c != 0 {
			return c, keyReadyTime
		}
	}
	if a.restarts != b.restarts {
		if a.restarts > b.restarts {
			return -1, keyRestarts
		}
		return 1, keyRestarts
	}
	if a.sidecar != b.sidecar {
		if a.sidecar > b.sidecar {
			return -1, keySidecarRestarts
		}
		return 1, keySidecarRestarts
	}
	if c := cmpRecent(a.createdSec, a.createdNsec, b.createdSec, b.createdNsec); c != 0 {
		return c, keyCreationTime
	}
	return cmpName(a.name, a.idx, b.name, b.idx), keyName
}

func cmpDefaultUpdateSign(a, b *updKey) int {
	c, _ := cmpDefaultUpdate(a, b)
	return c
}

// cmpPriority compares priorities only: lower level first, then higher
// priority value first; 0 when equal.
func cmpPriority(a, b *updKey) int {
	if a.level != b.level {
		if a.level < b.level {
			return -1
		}
		return 1
	}
	if a.prio != b.prio {
		if a.prio > b.prio {
			return -1
		}
		return 1
	}
	return 0
}

// cmpPriorityStable is cmpPriority with the previous position as tie-break,
// which makes an unstable sort behave as the stable sort of 6 (D3).
func cmpPriorityStable(a, b *updKey) int {
	if c := cmpPriority(a, b); c != 0 {
		return c
	}
	return int(a.pos) - int(b.pos)
}

// SortForUpdate orders update candidates, first = updated first, with the
// pipeline of update-and-ordering.md 2.6:
//
//  1. the default order of section 5: exactly one unscheduled pod first, lower
//     phase rank, not ready, both ready: zero or more recent ready time, higher
//     container restart count, higher sidecar restart count, zero or newer
//     creation time, then name ascending;
//  2. when opts.RollingUpdate has a priority strategy with at least one term,
//     a stable sort by priority (section 6): by weight (higher first) when
//     weight terms exist, else by order terms (pods with none of the ordered
//     keys first, then level ascending, then IntSuffix of the value
//     descending);
//  3. when opts.RollingUpdate has scatter terms, one scatter pass per term
//     (section 7), densities counted over opts.AllPods;
//  4. a stable partition putting PreparingUpdate candidates first.
//
// The result holds every non-nil candidate exactly once; Ranked.Why explains
// each position (9.1): WhyPreparingUpdate for a pod step 4 moved forward,
// else the scatter term whose pass last changed its position, else WhyLast for
// the final pod, else WhyPriority when its priority is higher than its
// successor's, else the section 5 key that separates it from its successor.
// Candidates are not filtered here: choosing them (2.5) is the caller's job.
// The input slices and the pods are not modified.
func SortForUpdate(candidates []*model.Pod, opts UpdateOptions) []Ranked {
	ru := opts.RollingUpdate
	var prio prioritySpec
	var terms []model.ScatterTerm
	if ru != nil {
		prio = newPrioritySpec(ru.PriorityStrategy)
		terms = ru.ScatterStrategy
	}
	// Every key, the priority and the scatter matches are read here, in input
	// order: visiting the pods' label maps in sorted order would be a cache
	// miss per lookup.
	keys := make([]updKey, 0, len(candidates))
	var flags scatterFlags
	if len(terms) > 0 {
		flags = scatterFlags{stride: len(candidates), bits: make([]uint8, len(terms)*len(candidates))}
	}
	for i, p := range candidates {
		if p == nil {
			continue
		}
		k := newUpdKey(p, i)
		k.ki = int32(len(keys))
		prio.apply(&k)
		for t := range terms {
			flags.set(t, int(k.ki), p.Labels, terms[t])
		}
		keys = append(keys, k)
	}
	n := len(keys)
	if n == 0 {
		return []Ranked{}
	}
	seq := make([]*updKey, n)
	for i := range keys {
		seq[i] = &keys[i]
	}

	// 1. Default order.
	slices.SortFunc(seq, cmpDefaultUpdateSign)
	setPositions(seq)
	// 2. Priority.
	if prio.on {
		slices.SortFunc(seq, cmpPriorityStable)
		setPositions(seq)
	}
	// 3. Scatter.
	var termWhy []string
	if len(terms) > 0 {
		seq, termWhy = scatter(seq, terms, &flags, opts.AllPods)
	}
	// 4. PreparingUpdate first.
	seq = preparingFirst(seq)

	out := make([]Ranked, n)
	for i, k := range seq {
		var next *updKey
		if i+1 < n {
			next = seq[i+1]
		}
		out[i] = Ranked{Pod: k.pod, Why: updateWhy(k, next, prio.on, termWhy)}
	}
	return out
}

// updateWhy explains why k precedes next (nil for the final pod).
//
// When k was moved by neither the scatter passes nor step 4, the pods before
// it are the same set as after the priority pass (a scatter pass that leaves a
// pod in place leaves the set of pods before it unchanged, and step 4 can only
// put a non-PreparingUpdate pod behind a pod it moves forward). So next
// followed k after the priority pass too, and the priority or the default
// order separates them in k's favour.
func updateWhy(k, next *updKey, prioOn bool, termWhy []string) string {
	switch {
	case k.puMoved:
		return WhyPreparingUpdate
	case k.scatter >= 0:
		return termWhy[k.scatter]
	case next == nil:
		return WhyLast
	case prioOn && cmpPriority(k, next) < 0:
		return WhyPriority
	}
	_, id := cmpDefaultUpdate(k, next)
	return whyNames[id]
}

func setPositions(seq []*updKey) {
	for i, k := range seq {
		k.pos = int32(i)
	}
}

// prioritySpec is the active part of a priority strategy (section 6): the
// weight terms when there are any, else the order terms.
type prioritySpec struct {
	on     bool
	weight []model.UpdatePriorityWeightTerm
	order  []model.UpdatePriorityOrderTerm
}

func newPrioritySpec(ps *model.UpdatePriorityStrategy) prioritySpec {
	switch {
	case ps == nil:
		return prioritySpec{}
	case len(ps.WeightPriority) > 0:
		return prioritySpec{on: true, weight: ps.WeightPriority}
	case len(ps.OrderPriority) > 0:
		return prioritySpec{on: true, order: ps.OrderPriority}
	}
	return prioritySpec{}
}

// apply fills k.level and k.prio.
//
// Weights: upstream builds each selector without validation; only an unknown
// operator fails, and the term is then skipped. model's Matches never matches
// an expression with an unknown operator, which is the same, and otherwise has
// the Kubernetes requirement semantics (NotIn without values matches every
// pod, Exists ignores values).
//
// Order: level is the index of the first ordered key present among the labels
// (-1 when none is), prio the IntSuffix of its value.
func (s *prioritySpec) apply(k *updKey) {
	switch {
	case !s.on:
	case s.weight != nil:
		var w int64
		for i := range s.weight {
			if s.weight[i].MatchSelector.Matches(k.pod.Labels) {
				w += int64(s.weight[i].Weight)
			}
		}
		k.level, k.prio = 0, w
	default:
		k.level, k.prio = -1, 0
		for i, t := range s.order {
			if v, ok := k.pod.Labels[t.OrderedKey]; ok {
				k.level, k.prio = int32(i), IntSuffix(v)
				break
			}
		}
	}
}

// scatterFlags holds, per scatter term (in strategy order) and candidate
// (keys index), two bits read once from the labels: flagMatch, the value read
// with an absent label as "" equals the term's value (7.2), and flagCarry, the
// label is present with exactly that value (7.1).
type scatterFlags struct {
	stride int
	bits   []uint8
}

const (
	flagMatch uint8 = 1 << iota
	flagCarry
)

func (f *scatterFlags) set(term, ki int, labels map[string]string, t model.ScatterTerm) {
	v, ok := labels[t.Key]
	var b uint8
	if v == t.Value {
		b |= flagMatch
		if ok {
			b |= flagCarry
		}
	}
	f.bits[term*f.stride+ki] = b
}

func (f *scatterFlags) has(term int, k *updKey, flag uint8) bool {
	return f.bits[term*f.stride+int(k.ki)]&flag != 0
}

// preparingFirst is 2.6 step 4: a stable partition with PreparingUpdate pods
// first. It marks the PreparingUpdate pods it moves forward.
func preparingFirst(seq []*updKey) []*updKey {
	out := make([]*updKey, 0, len(seq))
	for _, k := range seq {
		if k.preparing {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		return seq
	}
	for _, k := range seq {
		if !k.preparing {
			out = append(out, k)
		}
	}
	for i, k := range out {
		if k.preparing && int32(i) < k.pos {
			k.puMoved = true
		}
	}
	return out
}

// scatter applies the scatter strategy (section 7) to seq and returns the new
// sequence and the Why string of each applied term (indexed like updKey.scatter).
func scatter(seq []*updKey, terms []model.ScatterTerm, flags *scatterFlags, all []*model.Pod) ([]*updKey, []string) {
	if len(seq) <= 1 {
		return seq, nil
	}
	order := scatterTermOrder(seq, terms, flags)
	if len(order) == 0 {
		return seq, nil
	}
	termWhy := make([]string, len(order))
	for i, ti := range order {
		termWhy[i] = WhyScatterPrefix + terms[ti].Key + "=" + terms[ti].Value
	}
	n := len(seq)
	m := make([]*updKey, 0, n)
	u := make([]*updKey, 0, n)
	cur, spare := seq, make([]*updKey, 0, n)
	for pass, ti := range order {
		res, changed := scatterPass(cur, ti, terms[ti], flags, all, m[:0], u[:0], spare[:0])
		if !changed {
			continue
		}
		for i, k := range res {
			if k.pos != int32(i) {
				k.pos = int32(i)
				k.scatter = int32(pass)
			}
		}
		// seq is owned by SortForUpdate, so the two arrays alternate.
		cur, spare = res, cur
	}
	return cur, termWhy
}

// scatterTermOrder is 7.1; it returns indexes into terms. One term is used as
// is; with two or more, terms no candidate carries (label present with exactly
// that value) are dropped and the rest ordered by that count, descending, ties
// in strategy order.
func scatterTermOrder(seq []*updKey, terms []model.ScatterTerm, flags *scatterFlags) []int {
	if len(terms) == 1 {
		return []int{0}
	}
	type counted struct{ term, n int }
	cs := make([]counted, 0, len(terms))
	for t := range terms {
		c := 0
		for _, k := range seq {
			if flags.has(t, k, flagCarry) {
				c++
			}
		}
		if c > 0 {
			cs = append(cs, counted{t, c})
		}
	}
	slices.SortStableFunc(cs, func(a, b counted) int { return b.n - a.n })
	out := make([]int, len(cs))
	for i, c := range cs {
		out[i] = c.term
	}
	return out
}

// scatterPass is 7.2 for term number ti. m, u and out are empty scratch
// slices with enough capacity; the result is built in out. changed is false
// when the pass returns seq unchanged (step 1).
func scatterPass(seq []*updKey, ti int, t model.ScatterTerm, flags *scatterFlags, all []*model.Pod, m, u, out []*updKey) ([]*updKey, bool) {
	for _, k := range seq {
		if flags.has(ti, k, flagMatch) {
			m = append(m, k)
		} else {
			u = append(u, k)
		}
	}
	if len(m) <= 1 || len(u) <= 1 {
		return seq, false
	}
	tM, tU := 0, 0
	for _, p := range all {
		if p == nil {
			continue
		}
		if p.Labels[t.Key] == t.Value {
			tM++
		} else {
			tU++
		}
	}
	// P contains the candidates; if the caller's AllPods does not, count at
	// least the candidates so that no divisor can be zero.
	tM = max(tM, len(m))
	tU = max(tU, len(u))

	z := m[len(m)-1]
	m = m[:len(m)-1]
	tM--

	groupNum, mSize, uSize, uHead := scatterShape(tM, tU, len(m), len(u))

	out = append(out, u[:uHead]...)
	u = u[uHead:]
	for i := 0; i < groupNum && (len(m) > 0 || len(u) > 0); i++ {
		c := min(mSize, len(m))
		out = append(out, m[:c]...)
		m = m[c:]
		c = min(uSize, len(u))
		out = append(out, u[:c]...)
		u = u[c:]
	}
	out = append(out, m...)
	out = append(out, u...)
	out = append(out, z)
	return out, true
}

// scatterShape computes (groupNum, mSize, uSize, uHead) of 7.2 step 4. The
// density test divides in IEEE-754 single precision (D5). All arguments are at
// least 1.
func scatterShape(tM, tU, uM, uU int) (groupNum, mSize, uSize, uHead int) {
	totalRatio := float32(float32(tU) / float32(tM))
	updateRatio := float32(float32(uU) / float32(uM))
	if totalRatio >= updateRatio {
		groupNum, mSize, uSize = shape(uM, uU)
		return groupNum, mSize, uSize, 0
	}
	_, mSize, uSize = shape(tM, tU)
	groupNum = min(uM/mSize, uU/uSize)
	return groupNum, mSize, uSize, uU - groupNum*uSize
}

// shape is 7.2's shape(m, u): groupNum = min(m, u) and the two group sizes
// rounded half away from zero.
func shape(m, u int) (groupNum, mSize, uSize int) {
	groupNum = min(m, u)
	mSize = int(math.Round(float64(m) / float64(groupNum)))
	uSize = int(math.Round(float64(u) / float64(groupNum)))
	return groupNum, mSize, uSize
}
