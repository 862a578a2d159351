package ordering

import (
	"math"
	"math/bits"
	"slices"
	"time"

	"github.com/clonecore/cloneset/model"
)

// LabelHostname is the topology key for which the spread-constraints ranker
// orders a topology without the same-node ranker (docs/spec/update-and-ordering.md 8.5).
const LabelHostname = "kubernetes.io/hostname"

// DeletionOptions are the inputs of RankForDeletion besides the group.
type DeletionOptions struct {
	// MinReadySeconds is spec.minReadySeconds, used by the availability key.
	MinReadySeconds int32
	// Now is the planner clock, used by the availability key.
	Now time.Time
	// TopologyKeys are the topologyKey of each topologySpreadConstraint of the
	// update revision's template, in order (a key listed twice counts twice).
	// When empty, key 5 is the same-node rank (8.4); otherwise it is the
	// spread-constraints rank (8.5).
	TopologyKeys []string
	// Nodes are the nodes by name. A pod whose node is absent (or nil) belongs
	// to no topology: the spread ranker gives it rank 0.
	Nodes map[string]*model.Node
	// NodeNames are the names of the node ids of the keys (PodKeys.SetNodeID):
	// NodeNames[id] is the spec.nodeName of every pod whose keys carry id.
	// Pods whose keys carry an id (within range) are grouped by node without
	// their node's name being looked up; the ranking is the same.
	NodeNames []string
	// Keys, when as long as the group, holds ReadKeys of each pod of the
	// group (same order): the pods are then not read for them. Otherwise it
	// is ignored.
	Keys []PodKeys
	// KeyIndex, when as long as the group, gives the index in Keys of the
	// keys of each pod of the group (Keys[KeyIndex[i]] for group[i]), so
	// that a caller keeping the keys of a larger set passes them without
	// copying them; Keys need not be as long as the group then.
	KeyIndex []int
	// Scratch, when not nil, lends its buffers to the ranking, which keeps
	// them (grown) for the next ranking given the same Scratch: a caller
	// ranking groups repeatedly (clonesetcore.Tracker) allocates less. The
	// result is the same with or without it.
	Scratch *DeletionScratch
}

// DeletionScratch holds the buffers of a deletion ranking between rankings
// (DeletionOptions.Scratch). The zero value is ready to use. A
// DeletionScratch must not be used by two rankings at the same time.
type DeletionScratch struct {
	keys      []delKey
	g         grouper
	nodeIDs   map[string]int32
	nodeNames []string
	// memo is the order of the last ranking's first topology sort, by
	// KeyIndex value: the next ranking reads its pods in that order, so
	// that its topology sorts start almost sorted.
	memo orderMemo
	// localOf[id] is 1 + the ranking's node number of the caller's node id
	// (DeletionOptions.NodeNames), 0 when not seen yet; seen lists the ids
	// set, to clear them.
	localOf []int32
	seen    []int32
}

// delKey holds the deletion keys of one pod, computed once and packed into
// unsigned integers whose ascending order is the deletion order ("lower is
// deleted first"), so that a comparison is a short run of integer
// comparisons. It holds no pointer (the pod is the group's entry idx), so the
// garbage collector never scans an array of keys.
type delKey struct {
	// pre packs keys 1-4 (see the pre* constants): scheduled, phase rank,
	// available, ready and the deletion cost.
	pre uint64
	// readyRec is the recency of the Ready transition, seconds (key 6); 0,
	// like the nanoseconds, for every pod that is not ready, which is
	// harmless: the ready bit of pre differs first, and two pods that are
	// both not ready tie on it as they should.
	readyRec uint64
	// readyNsRestarts packs the nanoseconds of the Ready transition (high
	// half, key 6) and the container restart count (low half, key 7), both
	// as descending 31-bit keys.
	readyNsRestarts uint64
	// createdRec and createdNs are the recency of the creation time (key 8).
	createdRec uint64
	createdNs  uint32
	idx        int32 // position in the input group (the pod; key 9 for pods sharing a name)
	node       int32 // node id; -1 when unscheduled
	sameNode   float64
	spread     float64
}

// Layout of delKey.pre, from the most significant key to the least: bit 36
// key 1, scheduled (unscheduled goes first); bits 34-35 key 2, the phase rank;
// bit 33 key 3a, available (unavailable goes first); bit 32 key 3b, ready (not
// ready goes first); bits 0-31 key 4, the cost as a biased uint32.
const (
	preReadyBit     = 32
	preAvailableBit = 33
	prePhaseShift   = 34
	preScheduledBit = 36

	preReady     = 1 << preReadyBit
	preAvailable = 1 << preAvailableBit
	preScheduled = 1 << preScheduledBit
)

// maxKey31 bounds the 31-bit descending keys (nanoseconds, restart counts,
// which are never negative).
const maxKey31 = math.MaxInt32

// descKey maps an int64 to a uint64 whose ascending order is the descending
// order of the int64.
func descKey(v int64) uint64 { return ^(uint64(v) ^ 1<<63) }

// recencyKeys returns the ascending keys of recency(t): seconds (descKey) and
// nanoseconds (descending, 31 bits).
func recencyKeys(t time.Time) (uint64, uint32) {
	s, ns := recency(t)
	return descKey(s), uint32(maxKey31 - ns)
}

func newDelKey(p *model.Pod, idx int, opts *DeletionOptions) delKey {
	pre := uint64(phaseRank(p.Status.Phase))<<prePhaseShift | uint64(uint32(DeletionCost(p))^1<<31)
	if p.Spec.NodeName != "" {
		pre |= preScheduled
	}
	var readyRec uint64 // not ready: 0, see delKey.readyRec
	var readyNs uint32
	if c := p.Condition(model.ConditionReady); c != nil && c.Status == "True" {
		pre |= preReady
		readyRec, readyNs = recencyKeys(c.LastTransitionTime)
		// Available implies ready, so it is only asked of ready pods.
		if p.IsAvailable(opts.MinReadySeconds, opts.Now) {
			pre |= preAvailable
		}
	}
	createdRec, createdNs := recencyKeys(p.CreationTimestamp)
	return delKey{
		pre:             pre,
		readyRec:        readyRec,
		readyNsRestarts: uint64(readyNs)<<32 | uint64(maxKey31-p.MaxRestarts()),
		createdRec:      createdRec,
		createdNs:       createdNs,
		idx:             int32(idx),
		node:            -1,
	}
}

// ent is a pod's entry in one sort: the keys most comparisons decide on, by
// value (no pointer to follow), and the index of the pod's delKey for the
// rest. Every sort of this file sorts ents with ranker.cmp.
type ent struct {
	// pre is delKey.pre for the scale-in order, delKey.pre without the
	// available bit for the orders inside a node or topology (8.4, 8.5,
	// which ignore key 3a).
	pre uint64
	// rank is rankKey of the key-5 rank of this sort (0, same-node or final
	// rank).
	rank     uint64
	readyRec uint64
	key      int32 // index in ranker.keys
	// No more fields: two entries fill 8 of the 9 integer argument
	// registers of a comparison; a fifth field would pass them on the
	// stack, which makes sorting about 30% slower.
}

// ranker holds the keys of one ranking.
type ranker struct {
	pods      []*model.Pod // the input group; a key's idx indexes it
	keys      []delKey     // the non-nil pods, in the order read
	useSpread bool         // key 5 is the spread rank (topology keys given)
	cmp       func(a, b ent) int
	// memo, when set, records the order of the first topology sort by the
	// KeyIndex values keyIndex (DeletionScratch); recorded once done.
	memo     *orderMemo
	keyIndex []int
	recorded bool
}

// rankKey maps a key-5 rank to a uint64 whose ascending order is the
// descending order of the rank (the higher rank goes first). Ranks are sums of
// non-negative terms starting from +0, never negative, -0 or NaN, and the bits
// of such float64 values are ordered like the values; comparing integers
// instead of floats makes the comparison about twice as fast.
func rankKey(r float64) uint64 { return ^math.Float64bits(r) }

// cmpU64 is cmp.Compare for uint64, spelled out so that it inlines.
func cmpU64(a, b uint64) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

// newRanker returns a ranker for group with room for n keys.
func newRanker(group []*model.Pod, n int) *ranker {
	r := &ranker{pods: group, keys: make([]delKey, 0, n)}
	// cmp compares two entries with the keys of 8.2 (with or without key
	// 3a, as their pre says) and key 5 from rank; negative: a goes first. It
	// is a strict total order: the input position breaks the last ties.
	//
	// Keys 6 and 7 are compared as they are packed. Two pods reach them only
	// with equal pre, so both ready or both not ready; pods that are not
	// ready share the readiness part, which is "compare the ready times when
	// both are ready".
	//
	// It is a closure rather than a method: slices.SortFunc calls it
	// directly instead of through a method-value wrapper (10% faster).
	r.cmp = func(a, b ent) int {
		if c := cmpWords(&a, &b); c != 0 {
			return c
		}
		return r.cmpTail(a.key, b.key)
	}
	return r
}

// cmpWords compares the three words of two entries; 0 when all three tie,
// then r.cmpTail decides. It inlines, so the hottest loops call r.cmp's two
// halves themselves.
func cmpWords(a, b *ent) int {
	if a.pre != b.pre {
		return cmpU64(a.pre, b.pre)
	}
	if a.rank != b.rank {
		return cmpU64(a.rank, b.rank)
	}
	return cmpU64(a.readyRec, b.readyRec)
}

// less reports whether a goes before b: r.cmp(a, b) < 0, with cmpWords
// inlined.
func (r *ranker) less(a, b *ent) bool {
	c := cmpWords(a, b)
	if c == 0 {
		c = r.cmpTail(a.key, b.key)
	}
	return c < 0
}

// cmpTail compares the rest of keys 6-9 of keys i and j, whose ready time
// seconds are equal.
func (r *ranker) cmpTail(i, j int32) int {
	ka, kb := &r.keys[i], &r.keys[j]
	switch {
	case ka.readyNsRestarts != kb.readyNsRestarts:
		return cmpU64(ka.readyNsRestarts, kb.readyNsRestarts)
	case ka.createdRec != kb.createdRec:
		return cmpU64(ka.createdRec, kb.createdRec)
	case ka.createdNs != kb.createdNs:
		if ka.createdNs < kb.createdNs {
			return -1
		}
		return 1
	}
	return cmpName(r.pods[ka.idx].Name, ka.idx, r.pods[kb.idx].Name, kb.idx)
}

// why returns the key that decides r.cmp(a, b) for two scale-in entries.
func (r *ranker) why(a, b ent) keyID {
	if d := a.pre ^ b.pre; d != 0 {
		// The most significant differing bit names the key.
		switch top := bits.Len64(d) - 1; {
		case top >= preScheduledBit:
			return keyUnscheduled
		case top >= prePhaseShift:
			return keyPhase
		case top == preAvailableBit:
			return keyUnavailable
		case top == preReadyBit:
			return keyNotReady
		}
		return keyDeletionCost
	}
	ka, kb := &r.keys[a.key], &r.keys[b.key]
	switch {
	case a.rank != b.rank:
		return keyRank
	case a.readyRec != b.readyRec, ka.readyNsRestarts>>32 != kb.readyNsRestarts>>32:
		return keyReadyTime
	case ka.readyNsRestarts != kb.readyNsRestarts:
		return keyRestarts
	case ka.createdRec != kb.createdRec, ka.createdNs != kb.createdNs:
		return keyCreationTime
	}
	return keyName
}

// sort sorts the entries with r.cmp: by insertion when there are few (the
// pods of one node), else with slices.SortFunc.
func (r *ranker) sort(s []ent) {
	if len(s) > 12 {
		slices.SortFunc(s, r.cmp)
		return
	}
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && r.less(&s[j], &s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// RankForDeletion orders a scale-in group, first = deleted first, with the keys
// of docs/spec/update-and-ordering.md 8.2 (docs/spec/scale-and-budgets.md 4.6):
//
//  1. exactly one pod unscheduled: the unscheduled one;
//  2. lower phase rank (Pending 0, Unknown 1, Running 2, others 0);
//  3. not available (model.Pod.IsAvailable with MinReadySeconds and Now), then
//     not ready;
//  4. lower pod-deletion-cost (DeletionCost);
//  5. higher rank: the spread-constraints rank when opts.TopologyKeys is
//     non-empty, else the same-node rank, both built over this group only;
//  6. both ready: zero ready time, else the more recently ready;
//  7. higher container restart count (sidecars not considered);
//  8. zero creation time, else the newer;
//  9. name ascending (library tie-break).
//
// The result holds every non-nil pod of group exactly once. Ranked.Why names
// the key that separated each pod from the next one (WhyLast for the final
// pod) and Ranked.SpreadRank the key-5 rank. The input slice and the pods are
// not modified. FirstForDeletion returns a prefix of this order faster.
func RankForDeletion(group []*model.Pod, opts DeletionOptions) []Ranked {
	r, seq := rankGroup(group, &opts)
	n := len(seq)
	if n == 0 {
		return []Ranked{}
	}
	r.sort(seq)
	out := make([]Ranked, n)
	for i, e := range seq {
		why := WhyLast
		if i+1 < n {
			why = whyNames[r.why(e, seq[i+1])]
		}
		idx := int(r.keys[e.key].idx)
		out[i] = Ranked{Pod: group[idx], Why: why, SpreadRank: r.finalRank(e.key), Index: idx}
	}
	return out
}

// FirstForDeletion returns the first k pods of the deletion order of group:
// the Pod fields of RankForDeletion(group, opts)[:min(k, n)], n being the
// number of non-nil pods of group (nil pods are skipped). A k of 0 or less
// gives an empty slice; the result is never nil. The input slice and the pods
// are not modified.
//
// The key-5 ranks still look at every pod (see rankGroup), but the final
// order is a selection of the first k pods, O(n) expected and O(n log n) at
// worst, followed by a sort of those k only, O(k log k), instead of a sort of
// all n pods.
func FirstForDeletion(group []*model.Pod, opts DeletionOptions, k int) []*model.Pod {
	at := FirstIndexesForDeletion(group, opts, k)
	out := make([]*model.Pod, len(at))
	for i, j := range at {
		out[i] = group[j]
	}
	return out
}

// FirstIndexesForDeletion is FirstForDeletion returning the positions in
// group of the pods (Ranked.Index) instead of the pods, for a caller that
// keeps facts about the pods in a slice parallel to the group. The result is
// never nil.
func FirstIndexesForDeletion(group []*model.Pod, opts DeletionOptions, k int) []int {
	r, seq := rankGroup(group, &opts)
	k = max(min(k, len(seq)), 0)
	if k == 0 {
		return []int{}
	}
	if k < len(seq) {
		r.selectFirst(seq, k, 2*bits.Len(uint(len(seq))))
	}
	r.sort(seq[:k])
	out := make([]int, k)
	for i, e := range seq[:k] {
		out[i] = int(r.keys[e.key].idx)
	}
	return out
}

// rankGroup computes the keys of the non-nil pods of group and their key-5
// ranks, and returns their scale-in entries, in the order read (input
// order, or the order a DeletionScratch remembers).
//
// Cost: O(n) to read the keys and group the pods; the same-node ranks sort
// each node's pods, O(n log b) for b pods per node; each topology key sorts
// each topology's pods, except the hostname key when every hostname is a
// single node, which costs O(n).
func rankGroup(group []*model.Pod, opts *DeletionOptions) (*ranker, []ent) {
	// Every key is read here, in input order (the pods' memory is visited
	// once, sequentially); node ids are assigned on the way.
	r := newRanker(group, 0)
	var nodeIDs map[string]int32
	var nodeNames []string
	var g *grouper
	if sc := opts.Scratch; sc != nil {
		r.keys = slices.Grow(sc.keys[:0], len(group))
		if sc.nodeIDs == nil {
			sc.nodeIDs = make(map[string]int32, len(group)/4)
		}
		clear(sc.nodeIDs)
		nodeIDs, nodeNames = sc.nodeIDs, sc.nodeNames[:0]
		sc.g.reset()
		g = &sc.g
		defer func() { sc.keys, sc.nodeNames = r.keys, nodeNames }()
	} else {
		r.keys = make([]delKey, 0, len(group))
		nodeIDs = make(map[string]int32, len(group)/4) // growing it would rehash every name
	}
	keys, keyIndex := opts.Keys, opts.KeyIndex
	if len(keyIndex) != len(group) || keys == nil {
		keyIndex = nil
		if len(keys) != len(group) {
			keys = nil
		}
	}
	// With a scratch and keys by index, the pods are read in the order the
	// last ranking's topology sort found them (the order read changes no
	// result: every comparison is a strict total order).
	var visit []int32
	if sc := opts.Scratch; sc != nil && keyIndex != nil {
		visit = sc.memo.order(len(group), func(i int) int { return keyIndex[i] })
		sc.memo.reset()
		r.memo, r.keyIndex = &sc.memo, keyIndex
	}
	// Node numbers of the caller's node ids (DeletionOptions.NodeNames).
	var localOf []int32
	if len(opts.NodeNames) > 0 && keys != nil {
		if sc := opts.Scratch; sc != nil {
			// Zero on entry: the ids set are cleared on the way out.
			if cap(sc.localOf) < len(opts.NodeNames) {
				sc.localOf = make([]int32, len(opts.NodeNames))
			}
			localOf = sc.localOf[:len(opts.NodeNames)]
			defer func() {
				for _, id := range sc.seen {
					sc.localOf[id] = 0
				}
				sc.seen = sc.seen[:0]
			}()
		} else {
			localOf = make([]int32, len(opts.NodeNames))
		}
	}
	for j := range group {
		i := j
		if visit != nil {
			i = int(visit[j])
		}
		p := group[i]
		if p == nil {
			continue
		}
		var k delKey
		var nn string
		var nid int32 // 1 + the caller's node id, 0 for none
		if keys != nil {
			var pk *PodKeys
			if keyIndex != nil {
				pk = &keys[keyIndex[i]]
			} else {
				pk = &keys[i]
			}
			k, nn = pk.delKey(i, opts), pk.node
			if localOf != nil && int(pk.nodeID) <= len(localOf) {
				nid = pk.nodeID
			}
		} else {
			k, nn = newDelKey(p, i, opts), p.Spec.NodeName
		}
		switch {
		case nn == "":
		case nid > 0 && localOf[nid-1] > 0:
			k.node = localOf[nid-1] - 1
		default:
			id, ok := nodeIDs[nn]
			if !ok {
				id = int32(len(nodeNames))
				nodeIDs[nn] = id
				nodeNames = append(nodeNames, nn)
			}
			k.node = id
			if nid > 0 {
				localOf[nid-1] = id + 1
				if sc := opts.Scratch; sc != nil {
					sc.seen = append(sc.seen, nid-1)
				}
			}
		}
		r.keys = append(r.keys, k)
	}

	if g == nil {
		g = newGrouper(len(r.keys))
	} else {
		g.grow(len(r.keys))
	}
	r.sameNodeRanks(g, len(nodeNames))
	r.useSpread = len(opts.TopologyKeys) > 0
	if r.useSpread {
		r.spreadRanks(g, nodeNames, opts)
	}

	seq := g.in[:len(r.keys)] // the grouper is done: reuse its buffer
	for i := range r.keys {
		k := &r.keys[i]
		seq[i] = ent{pre: k.pre, rank: rankKey(r.finalRank(int32(i))), readyRec: k.readyRec, key: int32(i)}
	}
	return r, seq
}

// finalRank is the key-5 rank of key i in the scale-in order.
func (r *ranker) finalRank(i int32) float64 {
	if r.useSpread {
		return r.keys[i].spread
	}
	return r.keys[i].sameNode
}

// groupEnt is the entry of key i in a sort inside a node or topology (8.2
// without key 3a) with key-5 rank rank.
func (r *ranker) groupEnt(i int32, rank float64) ent {
	k := &r.keys[i]
	return ent{pre: k.pre &^ preAvailable, rank: rankKey(rank), readyRec: k.readyRec, key: i}
}

// sameNodeRanks sets sameNode for the scheduled pods (8.4): per node holding k
// pods, sorted by 8.2 without availability and without rank, the first k-1 get
// k-1 ... 1 and the last one (the most worth keeping) 0.
//
// The pods are first distributed by node with a counting sort, O(n), so that
// only each node's few pods are sorted together.
func (r *ranker) sameNodeRanks(g *grouper, nodes int) {
	g.reset()
	for i := range r.keys {
		if node := r.keys[i].node; node >= 0 {
			g.add(r.groupEnt(int32(i), 0), node)
		}
	}
	g.each(nodes, func(run []ent) {
		r.sort(run)
		last := len(run) - 1
		for i, e := range run {
			r.keys[e.key].sameNode = float64(last - i)
		}
	})
}

// spreadRanks sets spread for the scheduled pods (8.5): for each topology key
// in order, the pods of each topology value, sorted by 8.2 without
// availability and with the same-node rank as key 5 (no rank for the hostname
// key), receive (n-i)·ln(D+2), D being the number of distinct values.
//
// The pods are distributed by topology value with a counting sort and each
// topology is sorted separately. For the hostname key, a topology made of a
// single node (the usual case: every node has its own hostname) needs no sort:
// its order is the one sameNodeRanks used, the same comparison without rank,
// so the pod at position i of n has sameNode = n-1-i and receives
// (sameNode+1)·ln(D+2), the same float64 product.
func (r *ranker) spreadRanks(g *grouper, nodeNames []string, opts *DeletionOptions) {
	if len(nodeNames) == 0 {
		return
	}
	nodes := make([]*model.Node, len(nodeNames))
	for i, nn := range nodeNames {
		nodes[i] = opts.Nodes[nn]
	}
	nodeTopo := make([]int32, len(nodes))
	var nodesPerTopo []int32
	values := make(map[string]int32)
	for _, key := range opts.TopologyKeys {
		clear(values)
		for i, node := range nodes {
			nodeTopo[i] = -1
			if node == nil {
				continue
			}
			v, ok := node.Labels[key]
			if !ok {
				continue
			}
			id, seen := values[v]
			if !seen {
				id = int32(len(values))
				values[v] = id
			}
			nodeTopo[i] = id
		}
		if len(values) == 0 {
			continue
		}
		w := math.Log(float64(len(values) + 2))
		hostname := key == LabelHostname
		if hostname {
			nodesPerTopo = slices.Grow(nodesPerTopo[:0], len(values))[:len(values)]
			clear(nodesPerTopo)
			for _, t := range nodeTopo {
				if t >= 0 {
					nodesPerTopo[t]++
				}
			}
		}
		g.reset()
		for i := range r.keys {
			k := &r.keys[i]
			if k.node < 0 {
				continue
			}
			t := nodeTopo[k.node]
			switch {
			case t < 0:
			case !hostname:
				g.add(r.groupEnt(int32(i), k.sameNode), t)
			case nodesPerTopo[t] == 1:
				k.spread += (k.sameNode + 1) * w
			default:
				g.add(r.groupEnt(int32(i), 0), t)
			}
		}
		g.each(len(values), func(run []ent) {
			r.sort(run)
			size := len(run)
			for i, e := range run {
				r.keys[e.key].spread += float64(size-i) * w
			}
		})
		if r.memo != nil && !r.recorded && len(g.in) > 0 {
			// The entries grouped by topology, each topology sorted.
			for _, e := range g.out[:len(g.in)] {
				r.memo.add(r.keyIndex[r.keys[e.key].idx])
			}
			r.recorded = true
		}
	}
}

// grouper distributes entries by group id with a counting sort, reusing its
// buffers across groupings.
type grouper struct {
	in     []ent   // the entries added since reset
	ids    []int32 // their group ids
	out    []ent   // the entries grouped by id
	starts []int32
}

func newGrouper(n int) *grouper {
	return &grouper{in: make([]ent, 0, n), ids: make([]int32, 0, n), out: make([]ent, n)}
}

// grow makes room for n entries (out holds n).
func (g *grouper) grow(n int) {
	g.in, g.ids = slices.Grow(g.in[:0], n), slices.Grow(g.ids[:0], n)
	if len(g.out) < n {
		g.out = make([]ent, n)
	}
}

// reset forgets the entries added.
func (g *grouper) reset() {
	g.in, g.ids = g.in[:0], g.ids[:0]
}

// add adds entry e to group id (0 <= id < the groups argument of each).
func (g *grouper) add(e ent, id int32) {
	g.in = append(g.in, e)
	g.ids = append(g.ids, id)
}

// each calls f for each non-empty group, in id order (ids in [0, groups)),
// with the group's entries in the order they were added; f may reorder its
// run. It is O(entries + groups).
func (g *grouper) each(groups int, f func(run []ent)) {
	if len(g.in) == 0 {
		return
	}
	g.starts = slices.Grow(g.starts[:0], groups+1)[:groups+1]
	clear(g.starts)
	for _, id := range g.ids {
		g.starts[id+1]++
	}
	for i := 1; i <= groups; i++ {
		g.starts[i] += g.starts[i-1]
	}
	// starts[id] is the next free slot of group id; after the loop it is
	// the end of group id, the start of group id+1.
	out := g.out[:len(g.in)]
	for j, id := range g.ids {
		out[g.starts[id]] = g.in[j]
		g.starts[id]++
	}
	start := int32(0)
	for _, end := range g.starts[:groups] {
		if end > start {
			f(out[start:end])
		}
		start = end
	}
}

// selectFirst reorders s so that s[:k] holds the k first entries of s under
// r.cmp (in any order), 0 < k <= len(s). It is an introselect: quickselect
// with median-of-three pivots, O(n) expected, which switches to a heap
// selection, O(n log k), after budget partitions (2·log2(n) bounds the worst
// case by O(n log n)). r.cmp is a strict total order, so the selected set is
// unique and the result deterministic.
func (r *ranker) selectFirst(s []ent, k, budget int) {
	lo, hi := 0, len(s)
	for hi-lo > 12 {
		if budget == 0 {
			r.heapSelect(s[lo:hi], k-lo)
			return
		}
		budget--
		m := lo + r.partition(s[lo:hi])
		switch {
		case m == k || m+1 == k:
			return
		case m > k:
			hi = m
		default:
			lo = m + 1
		}
	}
	// Few entries left around position k: sort them.
	r.sort(s[lo:hi])
}

// partition partitions s (at least 3 entries) around a pivot chosen as the
// median of three entries, or of three medians of three for long slices, and
// returns the pivot's final index: the entries before it come first, the
// entries after it come after.
func (r *ranker) partition(s []ent) int {
	n := len(s)
	a, b, c := 0, n/2, n-1
	if n >= 64 {
		d := n / 8
		a = r.median3(s, a, a+d, a+2*d)
		b = r.median3(s, b-d, b, b+d)
		c = r.median3(s, c-2*d, c-d, c)
	}
	p := r.median3(s, a, b, c)
	s[0], s[p] = s[p], s[0]
	pivot := s[0]
	// Entries are pairwise distinct under r.cmp: none but the pivot itself
	// compares equal to the pivot.
	i, j := 1, n-1
	for {
		for i <= j && r.less(&s[i], &pivot) {
			i++
		}
		for i <= j && r.less(&pivot, &s[j]) {
			j--
		}
		if i > j {
			break
		}
		s[i], s[j] = s[j], s[i]
		i++
		j--
	}
	s[0], s[j] = s[j], s[0]
	return j
}

// median3 returns the index, among a, b and c, of the median entry.
func (r *ranker) median3(s []ent, a, b, c int) int {
	if r.cmp(s[b], s[a]) < 0 {
		a, b = b, a
	}
	if r.cmp(s[c], s[b]) < 0 {
		b = c
		if r.cmp(s[b], s[a]) < 0 {
			b = a
		}
	}
	return b
}

// heapSelect moves the k first entries of s to s[:k] with a max-heap of k
// entries: O(len(s) log k).
func (r *ranker) heapSelect(s []ent, k int) {
	h := s[:k]
	for i := k/2 - 1; i >= 0; i-- {
		r.siftDown(h, i)
	}
	for i := k; i < len(s); i++ {
		if r.cmp(s[i], h[0]) < 0 {
			s[i], h[0] = h[0], s[i]
			r.siftDown(h, 0)
		}
	}
}

// siftDown restores the max-heap property of h below position i.
func (r *ranker) siftDown(h []ent, i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && r.cmp(h[c], h[c+1]) < 0 {
			c++
		}
		if r.cmp(h[i], h[c]) > 0 {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}
