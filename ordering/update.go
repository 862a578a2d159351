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
	// LifecycleStates, when as long as the candidates, holds the lifecycle
	// state label of each candidate (same order), for a caller that has read
	// it already (model.Pod.LifecycleState); the pods' labels are then not read
	// for it. Otherwise it is ignored.
	LifecycleStates []string
	// Keys, when as long as the candidates, holds ReadKeys of each candidate
	// (same order): the pods are then not read for them. Otherwise it is
	// ignored.
	Keys []PodKeys
	// KeyIndex, when as long as the candidates, gives the index in Keys of
	// the keys of each candidate (Keys[KeyIndex[i]] for candidate i), so
	// that a caller keeping the keys of every pod passes them without
	// copying them; Keys need not be as long as the candidates then.
	KeyIndex []int
	// AllKeys, when as long as AllPods, holds the keys of each pod of
	// AllPods (same order); the scatter densities read the terms' flags
	// from those read by PodKeys.ReadScatter for the same terms. Otherwise
	// it is ignored.
	AllKeys []PodKeys
	// AllKeyIndex, when as long as AllPods, gives the index in AllKeys of
	// the keys of each pod of AllPods (AllKeys[AllKeyIndex[j]] for
	// AllPods[j]); AllKeys need not be as long as AllPods then.
	AllKeyIndex []int
	// Scratch, when not nil, lends its buffers to the sort, which keeps them
	// (grown) for the next sort given the same Scratch, and remembers the
	// order it found, by KeyIndex value: a caller whose KeyIndex values
	// name the same pods from call to call (clonesetcore.Tracker's slots)
	// hands the next sort its candidates almost sorted, which it then
	// orders in close to linear time. The result is the same with or
	// without it, whatever the KeyIndex values mean; with a Scratch, the
	// returned slice is the Scratch's and is valid until its next use.
	Scratch *UpdateScratch
}

// UpdateScratch holds the buffers of SortForUpdate between sorts, and the
// order the last sort found (UpdateOptions.Scratch). The zero value is ready
// to use. An UpdateScratch must not be used by two sorts at the same time,
// and keeps the pods of the last sort reachable until the next one.
type UpdateScratch struct {
	keys  []updKey
	ents  []uent
	seq   []*updKey
	bufs  [4][]*updKey // scatter's m, u and spare, preparingFirst's result
	flags []uint8
	out   []Ranked
	// memo is the last sorted order (before the scatter and PreparingUpdate
	// passes) by KeyIndex value.
	memo orderMemo
}

// updKey holds every update-order key of one pod, computed once, the sort
// keys packed into unsigned integers whose ascending order is the update
// order ("lower is updated first"), like delKey.
type updKey struct {
	pod *model.Pod
	// hi and lo pack, from the most significant bit of hi to the least of
	// lo, the priority level (32 bits, biased: lower first), the priority
	// value (64 bits, descKey: higher first) and the default-order prefix (32
	// bits, see the upd* constants). Without a priority strategy, level and
	// value are 0 for every pod.
	hi, lo uint64
	// readyRec, readyNsRestarts, sidecar, createdRec and createdNs are keys
	// 4-7 of section 5 as in delKey: the ready time's seconds, its
	// nanoseconds with the restart count, the sidecar restart count
	// (descending), the creation time's seconds and nanoseconds. The ready
	// parts are 0 for every pod that is not ready.
	readyRec        uint64
	readyNsRestarts uint64
	createdRec      uint64
	createdNs       uint32
	sidecar         uint32

	idx       int32 // input position, for pods sharing a name
	ki        int32 // index in the keys array (row of the scatter flags)
	pos       int32 // position before the current pass
	scatter   int32 // index of the last scatter pass that moved the pod; -1
	preparing bool  // lifecycle state PreparingUpdate
	puMoved   bool  // moved forward by the PreparingUpdate-first pass
}

// Layout of the default-order prefix, the low 32 bits of updKey.lo.
const (
	updReady       = 1 << 0 // ready (not ready goes first)
	updPhaseShift  = 1      // the phase rank, 2 bits
	updScheduled   = 1 << 3 // scheduled (unscheduled goes first)
	updPrefixWidth = 32
)

// newUpdKey reads the keys of candidate p, at input position idx, in
// lifecycle state state.
func newUpdKey(p *model.Pod, idx int, state string) updKey {
	pre := uint64(phaseRank(p.Status.Phase)) << updPhaseShift
	if p.Spec.NodeName != "" {
		pre |= updScheduled
	}
	var readyRec uint64 // not ready: 0, see updKey.readyRec
	var readyNs uint32
	if c := p.Condition(model.ConditionReady); c != nil && c.Status == "True" {
		pre |= updReady
		readyRec, readyNs = recencyKeys(c.LastTransitionTime)
	}
	createdRec, createdNs := recencyKeys(p.CreationTimestamp)
	k := updKey{
		pod:             p,
		readyRec:        readyRec,
		readyNsRestarts: uint64(readyNs)<<32 | uint64(maxKey31-p.MaxRestarts()),
		createdRec:      createdRec,
		createdNs:       createdNs,
		sidecar:         uint32(maxKey31 - p.MaxSidecarRestarts()),
		idx:             int32(idx),
		scatter:         -1,
		preparing:       state == model.StatePreparingUpdate,
	}
	k.setPriority(0, 0, pre)
	return k
}

// setPriority packs the priority level and value into hi and lo, in front of
// the default-order prefix pre.
func (k *updKey) setPriority(level int32, prio int64, pre uint64) {
	v := descKey(prio)
	k.hi = uint64(uint32(level)^1<<31)<<32 | v>>32
	k.lo = v<<32 | pre
}

// prefix returns the default-order prefix packed in lo.
func (k *updKey) prefix() uint64 { return k.lo & (1<<updPrefixWidth - 1) }

// cmpPriority compares priorities only: lower level first, then higher
// priority value first; 0 when equal.
func cmpPriority(a, b *updKey) int {
	if a.hi != b.hi {
		return cmpU64(a.hi, b.hi)
	}
	return cmpU64(a.lo>>updPrefixWidth, b.lo>>updPrefixWidth)
}

// cmpUpdate compares two candidates by priority (section 6), then with the
// keys of section 5 (Kubernetes ActivePods) and the name tie-break; negative:
// a is updated first. A stable sort by priority of the candidates sorted by
// section 5 is exactly a sort by this comparison, which is a strict total
// order (the input position breaks the last ties).
func cmpUpdate(a, b *updKey) int {
	switch {
	case a.hi != b.hi:
		return cmpU64(a.hi, b.hi)
	case a.lo != b.lo:
		return cmpU64(a.lo, b.lo)
	case a.readyRec != b.readyRec:
		return cmpU64(a.readyRec, b.readyRec)
	case a.readyNsRestarts != b.readyNsRestarts:
		return cmpU64(a.readyNsRestarts, b.readyNsRestarts)
	case a.sidecar != b.sidecar:
		return cmpU64(uint64(a.sidecar), uint64(b.sidecar))
	case a.createdRec != b.createdRec:
		return cmpU64(a.createdRec, b.createdRec)
	case a.createdNs != b.createdNs:
		return cmpU64(uint64(a.createdNs), uint64(b.createdNs))
	}
	return cmpName(a.pod.Name, a.idx, b.pod.Name, b.idx)
}

// whyDefault returns the first key of section 5 (name included) on which a
// and b differ, whichever goes first.
func whyDefault(a, b *updKey) keyID {
	if d := a.prefix() ^ b.prefix(); d != 0 {
		switch {
		case d&updScheduled != 0:
			return keyUnscheduled
		case d&(3<<updPhaseShift) != 0:
			return keyPhase
		}
		return keyNotReady
	}
	switch {
	case a.readyRec != b.readyRec, a.readyNsRestarts>>32 != b.readyNsRestarts>>32:
		return keyReadyTime
	case a.readyNsRestarts != b.readyNsRestarts:
		return keyRestarts
	case a.sidecar != b.sidecar:
		return keySidecarRestarts
	case a.createdRec != b.createdRec, a.createdNs != b.createdNs:
		return keyCreationTime
	}
	return keyName
}

// uent is a candidate's entry in the sort: three words of its sort keys, by
// value, and the index of its updKey for the rest. (Four fields: two entries
// fit in the integer argument registers of a comparison.)
type uent struct {
	w0, w1, w2 uint64
	key        int32
}

// sortUpdate sorts keys with cmpUpdate and returns them in that order.
//
// The entries hold the first three words of the key sequence hi, lo,
// readyRec, readyNsRestarts, ... that can differ: hi (priority level and the
// high half of the priority value) is usually the same for every candidate,
// and is then skipped, so that readyNsRestarts joins the entry: the ready
// times often tie at second granularity, and a tie on the three words costs
// a full cmpUpdate on the keys.
//
// The entries are built in the order of hint (positions in keys) when it is
// given: the sort is fastest on input it finds almost sorted. The result
// does not depend on it (cmpUpdate is a strict total order). *entsBuf and
// seq are buffers to reuse (nil: allocated); *entsBuf is set to the one
// used.
func sortUpdate(keys []updKey, hint []int32, entsBuf *[]uent, seq []*updKey) []*updKey {
	skipHi := true
	for i := range keys {
		if keys[i].hi != keys[0].hi {
			skipHi = false
			break
		}
	}
	ents := slices.Grow((*entsBuf)[:0], len(keys))[:len(keys)]
	*entsBuf = ents
	for j := range keys {
		i := int32(j)
		if hint != nil {
			i = hint[j]
		}
		k := &keys[i]
		if skipHi {
			ents[j] = uent{k.lo, k.readyRec, k.readyNsRestarts, i}
		} else {
			ents[j] = uent{k.hi, k.lo, k.readyRec, i}
		}
	}
	slices.SortFunc(ents, func(a, b uent) int {
		switch {
		case a.w0 != b.w0:
			return cmpU64(a.w0, b.w0)
		case a.w1 != b.w1:
			return cmpU64(a.w1, b.w1)
		case a.w2 != b.w2:
			return cmpU64(a.w2, b.w2)
		}
		return cmpUpdate(&keys[a.key], &keys[b.key])
	})
	seq = slices.Grow(seq[:0], len(keys))[:len(keys)]
	for i, e := range ents {
		seq[i] = &keys[e.key]
	}
	return seq
}

// SortForUpdate orders update candidates, first = updated first, with the
// pipeline of docs/spec/update-and-ordering.md 2.6:
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
	sc := opts.Scratch
	if sc == nil {
		sc = &UpdateScratch{}
	}
	keys := slices.Grow(sc.keys[:0], len(candidates))
	var flags scatterFlags
	if len(terms) > 0 {
		flags = scatterFlags{stride: len(candidates), bits: slices.Grow(sc.flags[:0], len(terms)*len(candidates))[:len(terms)*len(candidates)]}
		sc.flags = flags.bits
	}
	states := opts.LifecycleStates
	if len(states) != len(candidates) {
		states = nil
	}
	pk, keyIndex := opts.Keys, opts.KeyIndex
	if len(keyIndex) != len(candidates) || pk == nil {
		keyIndex = nil
		if len(pk) != len(candidates) {
			pk = nil
		}
	}
	for i, p := range candidates {
		if p == nil {
			continue
		}
		var kp *PodKeys // the candidate's keys, when given
		switch {
		case keyIndex != nil:
			kp = &pk[keyIndex[i]]
		case pk != nil:
			kp = &pk[i]
		}
		var state string
		if states != nil {
			state = states[i]
		} else {
			state = p.LifecycleState()
		}
		var k updKey
		if kp != nil {
			k = kp.updKey(p, i, state)
		} else {
			k = newUpdKey(p, i, state)
		}
		k.ki = int32(len(keys))
		if kp != nil && kp.prioRead && prio.on {
			k.setPriority(kp.level, kp.prio, k.prefix())
		} else {
			prio.apply(&k)
		}
		if kp != nil && kp.scatterRead {
			for t := range terms {
				flags.bits[t*flags.stride+int(k.ki)] = kp.scatterFlags(t)
			}
		} else {
			for t := range terms {
				flags.set(t, int(k.ki), p.Labels, terms[t])
			}
		}
		keys = append(keys, k)
	}
	sc.keys = keys
	n := len(keys)
	if n == 0 {
		return []Ranked{}
	}

	// 1. Default order and 2. priority, in one sort (see cmpUpdate).
	var hint []int32
	if keyIndex != nil {
		hint = sc.memo.order(len(keys), func(j int) int { return keyIndex[keys[j].idx] })
	}
	seq := sortUpdate(keys, hint, &sc.ents, sc.seq)
	sc.seq = seq
	sc.memo.reset()
	if keyIndex != nil {
		for _, k := range seq {
			sc.memo.add(keyIndex[k.idx])
		}
	}
	setPositions(seq)
	// 3. Scatter.
	var termWhy []string
	if len(terms) > 0 {
		all := allKeys{keys: opts.AllKeys, index: opts.AllKeyIndex}
		if len(all.index) != len(opts.AllPods) || all.keys == nil {
			all.index = nil
			if len(all.keys) != len(opts.AllPods) {
				all.keys = nil
			}
		}
		seq, termWhy = scatter(seq, terms, &flags, opts.AllPods, all, &sc.bufs)
		sc.seq = seq[:0] // scatter's arrays alternate
	}
	// 4. PreparingUpdate first.
	if moved := preparingFirst(seq, sc.bufs[3][:0]); &moved[0] != &seq[0] {
		sc.bufs[3], seq = moved[:0], moved
	}

	var out []Ranked
	if opts.Scratch != nil {
		out = slices.Grow(sc.out[:0], n)[:n]
		sc.out = out
	} else {
		out = make([]Ranked, n)
	}
	for i, k := range seq {
		var next *updKey
		if i+1 < n {
			next = seq[i+1]
		}
		out[i] = Ranked{Pod: k.pod, Why: updateWhy(k, next, prio.on, termWhy), Index: int(k.idx)}
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
	return whyNames[whyDefault(k, next)]
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

// apply packs k's priority level and value into its sort keys.
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
	if !s.on {
		return
	}
	level, prio := s.of(k.pod.Labels)
	k.setPriority(level, prio, k.prefix())
}

// of returns the priority level and value of a pod with the given labels.
func (s *prioritySpec) of(labels map[string]string) (level int32, prio int64) {
	switch {
	case !s.on:
	case s.weight != nil:
		for i := range s.weight {
			if s.weight[i].MatchSelector.Matches(labels) {
				prio += int64(s.weight[i].Weight)
			}
		}
	default:
		level = -1
		for i, t := range s.order {
			if v, ok := labels[t.OrderedKey]; ok {
				level, prio = int32(i), IntSuffix(v)
				break
			}
		}
	}
	return level, prio
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
// out is an empty buffer to reuse.
func preparingFirst(seq []*updKey, out []*updKey) []*updKey {
	out = slices.Grow(out, len(seq))
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

// allKeys are UpdateOptions.AllKeys and AllKeyIndex, checked: keys is nil
// when not given, index nil when the keys are parallel to AllPods.
type allKeys struct {
	keys  []PodKeys
	index []int
}

// of returns the keys of AllPods[j], or nil.
func (a allKeys) of(j int) *PodKeys {
	switch {
	case a.keys == nil:
		return nil
	case a.index != nil:
		return &a.keys[a.index[j]]
	}
	return &a.keys[j]
}

// scatter applies the scatter strategy (section 7) to seq and returns the new
// sequence and the Why string of each applied term (indexed like updKey.scatter).
func scatter(seq []*updKey, terms []model.ScatterTerm, flags *scatterFlags, all []*model.Pod, allKeys allKeys, bufs *[4][]*updKey) ([]*updKey, []string) {
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
	m := slices.Grow(bufs[0][:0], n)
	u := slices.Grow(bufs[1][:0], n)
	cur, spare := seq, slices.Grow(bufs[2][:0], n)
	bufs[0], bufs[1] = m, u
	// The array not returned is the next call's spare (the caller keeps
	// the returned one).
	defer func() { bufs[2] = spare[:0] }()
	for pass, ti := range order {
		res, changed := scatterPass(cur, ti, terms[ti], flags, all, allKeys, m[:0], u[:0], spare[:0])
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
func scatterPass(seq []*updKey, ti int, t model.ScatterTerm, flags *scatterFlags, all []*model.Pod, allKeys allKeys, m, u, out []*updKey) ([]*updKey, bool) {
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
	for j, p := range all {
		if p == nil {
			continue
		}
		var match bool
		if k := allKeys.of(j); k != nil && k.scatterRead {
			match = k.scatterFlags(ti)&flagMatch != 0
		} else {
			match = p.Labels[t.Key] == t.Value
		}
		if match {
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
