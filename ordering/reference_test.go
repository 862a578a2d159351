package ordering

// A slow, literal reference implementation of docs/spec/update-and-ordering.md sections
// 5-8, written straight from the spec text with time.Time values, model
// predicates, sort.SliceStable over the canonical (name) order and maps, so
// that the optimized implementation can be compared against it on random
// inputs. It shares nothing with the package code except DeletionCost and
// IntSuffix, which have their own tables.

import (
	"math"
	"sort"
	"strings"
	"time"

	"github.com/clonecore/cloneset/model"
)

// afterOrZero is Kubernetes' helper: a zero time first, else the later one.
func afterOrZero(t1, t2 time.Time) bool {
	if t1.IsZero() || t2.IsZero() {
		return t1.IsZero()
	}
	return t1.After(t2)
}

// refDeletionKey returns the 8.2 key deciding between a and b and whether a
// goes first ("" when every key ties, names included).
func refDeletionKey(a, b *model.Pod, withAvail bool, rank map[*model.Pod]float64, opts DeletionOptions) (string, bool) {
	an, bn := a.Spec.NodeName, b.Spec.NodeName
	if an != bn && (an == "" || bn == "") {
		return WhyUnscheduled, an == ""
	}
	if pa, pb := model.PhaseRank(a.Status.Phase), model.PhaseRank(b.Status.Phase); pa != pb {
		return WhyPhase, pa < pb
	}
	if withAvail {
		aa, ba := a.IsAvailable(opts.MinReadySeconds, opts.Now), b.IsAvailable(opts.MinReadySeconds, opts.Now)
		if aa != ba {
			return WhyUnavailable, !aa
		}
	}
	if a.IsReady() != b.IsReady() {
		return WhyNotReady, !a.IsReady()
	}
	if ca, cb := DeletionCost(a), DeletionCost(b); ca != cb {
		return WhyDeletionCost, ca < cb
	}
	if rank[a] != rank[b] {
		return WhyRank, rank[a] > rank[b]
	}
	if a.IsReady() && b.IsReady() && !a.ReadyTime().Equal(b.ReadyTime()) {
		return WhyReadyTime, afterOrZero(a.ReadyTime(), b.ReadyTime())
	}
	if ra, rb := a.MaxRestarts(), b.MaxRestarts(); ra != rb {
		return WhyRestarts, ra > rb
	}
	if !a.CreationTimestamp.Equal(b.CreationTimestamp) {
		return WhyCreationTime, afterOrZero(a.CreationTimestamp, b.CreationTimestamp)
	}
	if a.Name != b.Name {
		return WhyName, a.Name < b.Name
	}
	return "", false
}

func canonical(pods []*model.Pod) []*model.Pod {
	var out []*model.Pod
	for _, p := range pods {
		if p != nil {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// refRankForDeletion returns the deletion order, the key-5 ranks and the whys.
func refRankForDeletion(group []*model.Pod, opts DeletionOptions) ([]*model.Pod, map[*model.Pod]float64, []string) {
	pods := canonical(group)
	less := func(list []*model.Pod, avail bool, rank map[*model.Pod]float64) func(i, j int) bool {
		return func(i, j int) bool {
			_, first := refDeletionKey(list[i], list[j], avail, rank, opts)
			return first
		}
	}
	// 8.4 same-node ranks.
	sm := map[*model.Pod]float64{}
	byNode := map[string][]*model.Pod{}
	for _, p := range pods {
		if p.Spec.NodeName != "" {
			byNode[p.Spec.NodeName] = append(byNode[p.Spec.NodeName], p)
		}
	}
	for _, list := range byNode {
		if len(list) < 2 {
			continue
		}
		sort.SliceStable(list, less(list, false, nil))
		for i := 0; i < len(list)-1; i++ {
			sm[list[i]] = float64(len(list) - 1 - i)
		}
	}
	rank := sm
	if len(opts.TopologyKeys) > 0 {
		// 8.5 spread ranks.
		rank = map[*model.Pod]float64{}
		for _, key := range opts.TopologyKeys {
			topo := map[string][]*model.Pod{}
			for _, p := range pods {
				if p.Spec.NodeName == "" {
					continue
				}
				n := opts.Nodes[p.Spec.NodeName]
				if n == nil {
					continue
				}
				if v, ok := n.Labels[key]; ok {
					topo[v] = append(topo[v], p)
				}
			}
			w := math.Log(float64(len(topo) + 2))
			inner := sm
			if key == LabelHostname {
				inner = nil
			}
			for _, list := range topo {
				sort.SliceStable(list, less(list, false, inner))
				for i, p := range list {
					rank[p] += float64(len(list)-i) * w
				}
			}
		}
	}
	sort.SliceStable(pods, less(pods, true, rank))
	whys := make([]string, len(pods))
	for i := range pods {
		whys[i] = WhyLast
		if i+1 < len(pods) {
			whys[i], _ = refDeletionKey(pods[i], pods[i+1], true, rank, opts)
			if whys[i] == "" {
				whys[i] = WhyName
			}
		}
	}
	return pods, rank, whys
}

func refSidecarRestarts(p *model.Pod) int32 {
	var m int32
	for _, c := range p.Spec.InitContainers {
		if c.RestartPolicy != "Always" {
			continue
		}
		for _, s := range p.Status.InitContainerStatuses {
			if s.Name == c.Name && s.RestartCount > m {
				m = s.RestartCount
			}
		}
	}
	return m
}

// refDefaultLess is section 5 plus the name tie-break.
func refDefaultLess(a, b *model.Pod) bool {
	an, bn := a.Spec.NodeName, b.Spec.NodeName
	if an != bn && (an == "" || bn == "") {
		return an == ""
	}
	if pa, pb := model.PhaseRank(a.Status.Phase), model.PhaseRank(b.Status.Phase); pa != pb {
		return pa < pb
	}
	if a.IsReady() != b.IsReady() {
		return !a.IsReady()
	}
	if a.IsReady() && b.IsReady() && !a.ReadyTime().Equal(b.ReadyTime()) {
		return afterOrZero(a.ReadyTime(), b.ReadyTime())
	}
	if ra, rb := a.MaxRestarts(), b.MaxRestarts(); ra != rb {
		return ra > rb
	}
	if ra, rb := refSidecarRestarts(a), refSidecarRestarts(b); ra != rb {
		return ra > rb
	}
	if !a.CreationTimestamp.Equal(b.CreationTimestamp) {
		return afterOrZero(a.CreationTimestamp, b.CreationTimestamp)
	}
	return a.Name < b.Name
}

// refSelectorValid mirrors 6.1: only a selector with an unknown operator is
// ignored; values are not validated.
func refSelectorValid(s *model.LabelSelector) bool {
	for _, e := range s.MatchExpressions {
		switch e.Operator {
		case model.OpIn, model.OpNotIn, model.OpExists, model.OpDoesNotExist:
		default:
			return false
		}
	}
	return true
}

func refSortForUpdate(cands []*model.Pod, opts UpdateOptions) []*model.Pod {
	pods := canonical(cands)
	sort.SliceStable(pods, func(i, j int) bool { return refDefaultLess(pods[i], pods[j]) })
	ru := opts.RollingUpdate
	if ru == nil {
		return refPreparingFirst(pods)
	}
	if ps := ru.PriorityStrategy; ps != nil {
		if len(ps.WeightPriority) > 0 {
			weight := func(p *model.Pod) int64 {
				var w int64
				for _, t := range ps.WeightPriority {
					if refSelectorValid(&t.MatchSelector) && t.MatchSelector.Matches(p.Labels) {
						w += int64(t.Weight)
					}
				}
				return w
			}
			sort.SliceStable(pods, func(i, j int) bool { return weight(pods[i]) > weight(pods[j]) })
		} else if len(ps.OrderPriority) > 0 {
			lo := func(p *model.Pod) (int, int64) {
				for i, t := range ps.OrderPriority {
					if v, ok := p.Labels[t.OrderedKey]; ok {
						return i, IntSuffix(v)
					}
				}
				return -1, 0
			}
			sort.SliceStable(pods, func(i, j int) bool {
				li, oi := lo(pods[i])
				lj, oj := lo(pods[j])
				if li != lj {
					return li < lj
				}
				return oi > oj
			})
		}
	}
	if len(ru.ScatterStrategy) > 0 && len(pods) > 1 {
		terms := ru.ScatterStrategy
		if len(terms) > 1 {
			type tc struct {
				t model.ScatterTerm
				c int
			}
			var list []tc
			for _, t := range terms {
				c := 0
				for _, p := range pods {
					if v, ok := p.Labels[t.Key]; ok && v == t.Value {
						c++
					}
				}
				if c > 0 {
					list = append(list, tc{t, c})
				}
			}
			sort.SliceStable(list, func(i, j int) bool { return list[i].c > list[j].c })
			terms = nil
			for _, x := range list {
				terms = append(terms, x.t)
			}
		}
		for _, t := range terms {
			pods = refScatterPass(pods, t, opts.AllPods)
		}
	}
	return refPreparingFirst(pods)
}

func refScatterPass(seq []*model.Pod, t model.ScatterTerm, all []*model.Pod) []*model.Pod {
	var M, U []*model.Pod
	for _, p := range seq {
		if p.Labels[t.Key] == t.Value {
			M = append(M, p)
		} else {
			U = append(U, p)
		}
	}
	if len(M) <= 1 || len(U) <= 1 {
		return seq
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
	z := M[len(M)-1]
	M = M[:len(M)-1]
	tM--
	uM, uU := len(M), len(U)
	round := func(x float64) int {
		if x < 0 {
			return -int(math.Floor(-x + 0.5))
		}
		return int(math.Floor(x + 0.5))
	}
	shapeOf := func(m, u int) (int, int, int) {
		g := m
		if u < g {
			g = u
		}
		return g, round(float64(m) / float64(g)), round(float64(u) / float64(g))
	}
	var groupNum, mSize, uSize, uHead int
	var r1, r2 float32 = float32(tU), float32(uU)
	r1 /= float32(tM)
	r2 /= float32(uM)
	if r1 >= r2 {
		groupNum, mSize, uSize = shapeOf(uM, uU)
	} else {
		_, mSize, uSize = shapeOf(tM, tU)
		groupNum = uM / mSize
		if x := uU / uSize; x < groupNum {
			groupNum = x
		}
		uHead = uU - groupNum*uSize
	}
	var out []*model.Pod
	out = append(out, U[:uHead]...)
	U = U[uHead:]
	take := func(src *[]*model.Pod, n int) {
		if n > len(*src) {
			n = len(*src)
		}
		out = append(out, (*src)[:n]...)
		*src = (*src)[n:]
	}
	for i := 0; i < groupNum; i++ {
		take(&M, mSize)
		take(&U, uSize)
	}
	out = append(out, M...)
	out = append(out, U...)
	return append(out, z)
}

func refPreparingFirst(pods []*model.Pod) []*model.Pod {
	var a, b []*model.Pod
	for _, p := range pods {
		if p.LifecycleState() == model.StatePreparingUpdate {
			a = append(a, p)
		} else {
			b = append(b, p)
		}
	}
	return append(a, b...)
}

// validWhy reports whether w is an explanation key of 9.1.
func validWhy(w string, forUpdate bool) bool {
	switch w {
	case WhyUnscheduled, WhyPhase, WhyNotReady, WhyReadyTime, WhyRestarts, WhyCreationTime, WhyName, WhyLast:
		return true
	case WhyUnavailable, WhyDeletionCost, WhyRank:
		return !forUpdate
	case WhySidecarRestarts, WhyPriority, WhyPreparingUpdate:
		return forUpdate
	}
	return forUpdate && strings.HasPrefix(w, WhyScatterPrefix)
}
