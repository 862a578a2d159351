package ordering

import (
	"math"
	"slices"
	"time"

	"github.com/clonecore/cloneset/model"
)

// LabelHostname is the topology key for which the spread-constraints ranker
// orders a topology without the same-node ranker (update-and-ordering.md 8.5).
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
}

// delKey holds every deletion key of one pod, computed once.
type delKey struct {
	pod  *model.Pod
	name string
	// readySec/readyNsec: recency of the Ready transition (meaningful only
	// when ready); createdSec/createdNsec: recency of the creation time.
	readySec   int64
	createdSec int64
	// cur is the key-5 rank the current sort uses (0, same-node or final).
	cur      float64
	sameNode float64
	spread   float64

	readyNsec   int32
	createdNsec int32
	cost        int32
	restarts    int32
	idx         int32 // input position, for pods sharing a name
	node        int32 // node id; -1 when unscheduled
	group       int32 // node or topology id of the current grouping sort
	phase       int8
	available   bool
	ready       bool
}

func newDelKey(p *model.Pod, idx int, opts *DeletionOptions) delKey {
	k := delKey{
		pod:       p,
		name:      p.Name,
		cost:      DeletionCost(p),
		restarts:  p.MaxRestarts(),
		idx:       int32(idx),
		node:      -1,
		phase:     phaseRank(p.Status.Phase),
		available: p.IsAvailable(opts.MinReadySeconds, opts.Now),
	}
	if c := p.Condition(model.ConditionReady); c != nil && c.Status == "True" {
		k.ready = true
		k.readySec, k.readyNsec = recency(c.LastTransitionTime)
	}
	k.createdSec, k.createdNsec = recency(p.CreationTimestamp)
	return k
}

// cmpDeletion compares two pods with the keys of 8.2 and returns the sign
// (negative: a is deleted first) and the deciding key. withAvail enables key
// 3a; key 5 compares the cur fields.
func cmpDeletion(a, b *delKey, withAvail bool) (int, keyID) {
	if au, bu := a.node < 0, b.node < 0; au != bu {
		if au {
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
	if withAvail && a.available != b.available {
		if !a.available {
			return -1, keyUnavailable
		}
		return 1, keyUnavailable
	}
	if a.ready != b.ready {
		if !a.ready {
			return -1, keyNotReady
		}
		return 1, keyNotReady
	}
	if a.cost != b.cost {
		if a.cost < b.cost {
			return -1, keyDeletionCost
		}
		return 1, keyDeletionCost
	}
	if a.cur != b.cur {
		if a.cur > b.cur {
			return -1, keyRank
		}
		return 1, keyRank
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
	if c := cmpRecent(a.createdSec, a.createdNsec, b.createdSec, b.createdNsec); c != 0 {
		return c, keyCreationTime
	}
	return cmpName(a.name, a.idx, b.name, b.idx), keyName
}

// cmpDeletionFull is the scale-in order (keys 1-10, availability included).
func cmpDeletionFull(a, b *delKey) int {
	c, _ := cmpDeletion(a, b, true)
	return c
}

// cmpGrouped orders by group id, then by 8.2 without key 3a: the order used
// inside a node (8.4) and inside a topology (8.5).
func cmpGrouped(a, b *delKey) int {
	if a.group != b.group {
		if a.group < b.group {
			return -1
		}
		return 1
	}
	c, _ := cmpDeletion(a, b, false)
	return c
}

// RankForDeletion orders a scale-in group, first = deleted first, with the keys
// of update-and-ordering.md 8.2 (scale-and-budgets.md 4.6):
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
// not modified.
func RankForDeletion(group []*model.Pod, opts DeletionOptions) []Ranked {
	// Every key is read here, in input order (the pods' memory is visited
	// once, sequentially); node ids are assigned on the way.
	keys := make([]delKey, 0, len(group))
	nodeIDs := make(map[string]int32)
	var nodeNames []string
	for i, p := range group {
		if p == nil {
			continue
		}
		k := newDelKey(p, i, &opts)
		if nn := p.Spec.NodeName; nn != "" {
			id, ok := nodeIDs[nn]
			if !ok {
				id = int32(len(nodeNames))
				nodeIDs[nn] = id
				nodeNames = append(nodeNames, nn)
			}
			k.node = id
		}
		keys = append(keys, k)
	}
	n := len(keys)
	if n == 0 {
		return []Ranked{}
	}
	seq := make([]*delKey, n)
	for i := range keys {
		seq[i] = &keys[i]
	}

	// The scheduled pods, the only ones any ranker looks at.
	sched := make([]*delKey, 0, n)
	for _, k := range seq {
		if k.node >= 0 {
			sched = append(sched, k)
		}
	}
	sameNodeRanks(sched)
	if len(opts.TopologyKeys) > 0 {
		spreadRanks(sched, nodeNames, &opts)
		for _, k := range seq {
			k.cur = k.spread
		}
	} else {
		for _, k := range seq {
			k.cur = k.sameNode
		}
	}

	slices.SortFunc(seq, cmpDeletionFull)

	out := make([]Ranked, n)
	for i, k := range seq {
		why := WhyLast
		if i+1 < n {
			_, id := cmpDeletion(k, seq[i+1], true)
			why = whyNames[id]
		}
		out[i] = Ranked{Pod: k.pod, Why: why, SpreadRank: k.cur}
	}
	return out
}

// sameNodeRanks sets sameNode for the scheduled pods (8.4): per node holding k
// pods, sorted by 8.2 without availability and without rank, the first k-1 get
// k-1 ... 1 and the last one (the most worth keeping) 0.
func sameNodeRanks(sched []*delKey) {
	if len(sched) < 2 {
		return
	}
	buf := slices.Clone(sched)
	for _, k := range buf {
		k.group = k.node
		k.cur = 0
	}
	slices.SortFunc(buf, cmpGrouped)
	forRuns(buf, func(run []*delKey) {
		last := len(run) - 1
		for i, k := range run {
			k.sameNode = float64(last - i)
		}
	})
}

// spreadRanks sets spread for the scheduled pods (8.5): for each topology key
// in order, the pods of each topology value, sorted by 8.2 without
// availability and with the same-node rank as key 5 (no rank for the hostname
// key), receive (n-i)·ln(D+2), D being the number of distinct values.
func spreadRanks(sched []*delKey, nodeNames []string, opts *DeletionOptions) {
	if len(sched) == 0 {
		return
	}
	nodes := make([]*model.Node, len(nodeNames))
	for i, nn := range nodeNames {
		nodes[i] = opts.Nodes[nn]
	}
	nodeTopo := make([]int32, len(nodes))
	buf := make([]*delKey, 0, len(sched))
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
		buf = buf[:0]
		for _, k := range sched {
			if t := nodeTopo[k.node]; t >= 0 {
				k.group = t
				if key == LabelHostname {
					k.cur = 0
				} else {
					k.cur = k.sameNode
				}
				buf = append(buf, k)
			}
		}
		slices.SortFunc(buf, cmpGrouped)
		forRuns(buf, func(run []*delKey) {
			size := len(run)
			for i, k := range run {
				k.spread += float64(size-i) * w
			}
		})
	}
}

// forRuns calls f for each maximal run of equal group ids in s.
func forRuns(s []*delKey, f func(run []*delKey)) {
	for i := 0; i < len(s); {
		j := i + 1
		for j < len(s) && s[j].group == s[i].group {
			j++
		}
		f(s[i:j])
		i = j
	}
}
