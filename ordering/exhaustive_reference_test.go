package ordering

// A second literal reference for the exhaustive tests (exhaustive_*_test.go),
// written from the text of docs/spec/update-and-ordering.md sections 0, 5-8
// and docs/spec/scale-and-budgets.md 4.6. Unlike reference_test.go it does not
// use the model predicates either (IsReady, IsAvailable, MaxRestarts, ...):
// every predicate the orderings read is spelled out here from section 0, so
// that a mistake shared by the model and the package cannot hide. Sorting is
// a naive stable insertion sort; nothing is packed or precomputed.

import (
	"math"
	"strconv"
	"time"

	"github.com/clonecore/cloneset/model"
)

// litFirstCondition is "the first pod condition of type typ" (section 0), nil
// when there is none.
func litFirstCondition(p *model.Pod, typ string) *model.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == typ {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// litReady is Ready(p): the first Ready condition exists and is True.
func litReady(p *model.Pod) bool {
	c := litFirstCondition(p, "Ready")
	return c != nil && c.Status == "True"
}

// litReadyTime is ReadyTime(p): the Ready condition's lastTransitionTime when
// Ready(p), else the zero time.
func litReadyTime(p *model.Pod) time.Time {
	if !litReady(p) {
		return time.Time{}
	}
	return litFirstCondition(p, "Ready").LastTransitionTime
}

// litState is state(p): the lifecycle label, "" when absent.
func litState(p *model.Pod) string {
	return p.Labels["lifecycle.apps.kruise.io/state"]
}

// litAvailable is Available(p) of section 0, its five conditions in order.
func litAvailable(p *model.Pod, minReadySeconds int32, now time.Time) bool {
	if s := litState(p); s != "" && s != "Normal" {
		return false
	}
	if p.Status.Phase != "Running" {
		return false
	}
	if !litReady(p) {
		return false
	}
	if minReadySeconds != 0 {
		ltt := litFirstCondition(p, "Ready").LastTransitionTime
		if ltt.IsZero() || !ltt.Add(time.Duration(minReadySeconds)*time.Second).Before(now) {
			return false
		}
	}
	c := litFirstCondition(p, "InPlaceUpdateReady")
	return c == nil || c.Status == "True"
}

// litPhaseRank is the phase rank of section 5: Pending 0, Unknown 1, Running
// 2, any other phase (empty included) 0.
func litPhaseRank(p *model.Pod) int {
	switch p.Status.Phase {
	case "Unknown":
		return 1
	case "Running":
		return 2
	}
	return 0
}

// litMaxRestarts is the highest restartCount over status.containerStatuses.
func litMaxRestarts(p *model.Pod) int32 {
	var m int32
	for _, s := range p.Status.ContainerStatuses {
		m = max(m, s.RestartCount)
	}
	return m
}

// litSidecarRestarts is key 5b of section 5: the highest restartCount over
// the init container statuses whose spec init container has restartPolicy
// Always.
func litSidecarRestarts(p *model.Pod) int32 {
	var m int32
	for _, s := range p.Status.InitContainerStatuses {
		for _, c := range p.Spec.InitContainers {
			if c.Name == s.Name && c.RestartPolicy == "Always" {
				m = max(m, s.RestartCount)
			}
		}
	}
	return m
}

// litDeletionCost is 8.3: absent 0; a value that is non-empty and starts with
// '-', with a digit 1-9, or is exactly "0", parsed as a base-10 int32; any
// other value or failure 0.
func litDeletionCost(p *model.Pod) int32 {
	v, ok := p.Annotations["controller.kubernetes.io/pod-deletion-cost"]
	if !ok || v == "" {
		return 0
	}
	if v[0] != '-' && (v[0] < '1' || v[0] > '9') && v != "0" {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0
	}
	return int32(n)
}

// litZeroOrLater reports whether a goes first on a time key whose rule is "a
// zero time first, otherwise the later (more recent) one"; decided reports
// whether the key separates a and b at all.
func litZeroOrLater(a, b time.Time) (aFirst, decided bool) {
	switch {
	case a.Equal(b):
		return false, false
	case a.IsZero():
		return true, true
	case b.IsZero():
		return false, true
	}
	return a.After(b), true
}

// litDeletionContext is what one 8.2 comparison needs besides the two pods:
// whether key 3a is used (the caller supplies availability), the key-5 rank
// of each pod (a missing entry is rank 0) and the availability inputs.
type litDeletionContext struct {
	withAvailability bool
	rank             map[*model.Pod]float64
	minReadySeconds  int32
	now              time.Time
}

// litDeletionCompare is the table of 8.2 plus the library tie-break (name
// ascending): the key that decides between a and b (one of the Why*
// constants; "" when even the names are equal) and whether a goes first.
func litDeletionCompare(a, b *model.Pod, ctx litDeletionContext) (key string, aFirst bool) {
	// 1. Scheduling, only when exactly one has an empty nodeName.
	if (a.Spec.NodeName == "") != (b.Spec.NodeName == "") {
		return WhyUnscheduled, a.Spec.NodeName == ""
	}
	// 2. Lower phase rank.
	if ra, rb := litPhaseRank(a), litPhaseRank(b); ra != rb {
		return WhyPhase, ra < rb
	}
	// 3a. The unavailable pod.
	if ctx.withAvailability {
		aa := litAvailable(a, ctx.minReadySeconds, ctx.now)
		ba := litAvailable(b, ctx.minReadySeconds, ctx.now)
		if aa != ba {
			return WhyUnavailable, !aa
		}
	}
	// 3b. The not-ready pod.
	if litReady(a) != litReady(b) {
		return WhyNotReady, !litReady(a)
	}
	// 4. The lower deletion cost.
	if ca, cb := litDeletionCost(a), litDeletionCost(b); ca != cb {
		return WhyDeletionCost, ca < cb
	}
	// 5. The higher rank.
	if ra, rb := ctx.rank[a], ctx.rank[b]; ra != rb {
		return WhyRank, ra > rb
	}
	// 6. Only when both are ready: zero ready time first, else the more recent.
	if litReady(a) && litReady(b) {
		if first, ok := litZeroOrLater(litReadyTime(a), litReadyTime(b)); ok {
			return WhyReadyTime, first
		}
	}
	// 7. The higher restart count (sidecars not considered).
	if ra, rb := litMaxRestarts(a), litMaxRestarts(b); ra != rb {
		return WhyRestarts, ra > rb
	}
	// 8. Zero creation time first, else the newer.
	if first, ok := litZeroOrLater(a.CreationTimestamp, b.CreationTimestamp); ok {
		return WhyCreationTime, first
	}
	// Library rule: name ascending.
	if a.Name != b.Name {
		return WhyName, a.Name < b.Name
	}
	return "", false
}

// litStableSort sorts pods in place by first, an insertion sort that moves a
// pod before another only when first says so: a stable sort.
func litStableSort(pods []*model.Pod, first func(a, b *model.Pod) bool) {
	for i := 1; i < len(pods); i++ {
		for j := i; j > 0 && first(pods[j], pods[j-1]); j-- {
			pods[j], pods[j-1] = pods[j-1], pods[j]
		}
	}
}

// litCanonical is D1: the non-nil pods in ascending name order (stable, so
// pods sharing a name keep their input order).
func litCanonical(in []*model.Pod) []*model.Pod {
	var out []*model.Pod
	for _, p := range in {
		if p != nil {
			out = append(out, p)
		}
	}
	litStableSort(out, func(a, b *model.Pod) bool { return a.Name < b.Name })
	return out
}

// litDeletionRanking is the scale-in order of a group: 8.4 or 8.5 for key 5,
// then 8.2 over the group. It returns the order, the key-5 rank of each pod
// and, per position, the key that separates the pod from the next one (9.1;
// WhyLast for the final pod).
func litDeletionRanking(group []*model.Pod, opts DeletionOptions) ([]*model.Pod, map[*model.Pod]float64, []string) {
	pods := litCanonical(group)
	ctx := func(avail bool, rank map[*model.Pod]float64) litDeletionContext {
		return litDeletionContext{withAvailability: avail, rank: rank, minReadySeconds: opts.MinReadySeconds, now: opts.Now}
	}
	firstBy := func(c litDeletionContext) func(a, b *model.Pod) bool {
		return func(a, b *model.Pod) bool {
			_, first := litDeletionCompare(a, b, c)
			return first
		}
	}

	// 8.4: group by nodeName (unscheduled pods ignored); on each node with
	// at least two pods, sort without 3a and without rank, remove the last,
	// give the remaining m pods m, m-1, ..., 1.
	sameNode := map[*model.Pod]float64{}
	var nodeOrder []string
	onNode := map[string][]*model.Pod{}
	for _, p := range pods {
		if n := p.Spec.NodeName; n != "" {
			if _, seen := onNode[n]; !seen {
				nodeOrder = append(nodeOrder, n)
			}
			onNode[n] = append(onNode[n], p)
		}
	}
	for _, n := range nodeOrder {
		list := onNode[n]
		if len(list) < 2 {
			continue
		}
		litStableSort(list, firstBy(ctx(false, nil)))
		m := len(list) - 1
		for i := 0; i < m; i++ {
			sameNode[list[i]] = float64(m - i)
		}
	}

	rank := sameNode
	if len(opts.TopologyKeys) > 0 {
		// 8.5: for each constraint in order, the pods of each topology
		// value, sorted without 3a with the same-node rank as key 5 (no
		// rank for the hostname key), receive (n-i)·ln(D+2).
		rank = map[*model.Pod]float64{}
		for _, key := range opts.TopologyKeys {
			var values []string
			byValue := map[string][]*model.Pod{}
			for _, p := range pods {
				if p.Spec.NodeName == "" {
					continue
				}
				node := opts.Nodes[p.Spec.NodeName]
				if node == nil {
					continue
				}
				v, ok := node.Labels[key]
				if !ok {
					continue
				}
				if _, seen := byValue[v]; !seen {
					values = append(values, v)
				}
				byValue[v] = append(byValue[v], p)
			}
			w := math.Log(float64(len(values) + 2))
			inner := sameNode
			if key == "kubernetes.io/hostname" {
				inner = nil
			}
			for _, v := range values {
				list := byValue[v]
				litStableSort(list, firstBy(ctx(false, inner)))
				for i, p := range list {
					rank[p] += float64(len(list)-i) * w
				}
			}
		}
	}

	final := ctx(true, rank)
	litStableSort(pods, firstBy(final))
	why := make([]string, len(pods))
	for i := range pods {
		why[i] = WhyLast
		if i+1 < len(pods) {
			why[i], _ = litDeletionCompare(pods[i], pods[i+1], final)
		}
	}
	return pods, rank, why
}

// litUpdateDefaultCompare is the table of section 5 plus the library
// tie-break: the deciding key ("" when even the names are equal) and whether
// a is updated first.
func litUpdateDefaultCompare(a, b *model.Pod) (key string, aFirst bool) {
	if (a.Spec.NodeName == "") != (b.Spec.NodeName == "") {
		return WhyUnscheduled, a.Spec.NodeName == ""
	}
	if ra, rb := litPhaseRank(a), litPhaseRank(b); ra != rb {
		return WhyPhase, ra < rb
	}
	if litReady(a) != litReady(b) {
		return WhyNotReady, !litReady(a)
	}
	if litReady(a) && litReady(b) {
		if first, ok := litZeroOrLater(litReadyTime(a), litReadyTime(b)); ok {
			return WhyReadyTime, first
		}
	}
	if ra, rb := litMaxRestarts(a), litMaxRestarts(b); ra != rb {
		return WhyRestarts, ra > rb
	}
	if ra, rb := litSidecarRestarts(a), litSidecarRestarts(b); ra != rb {
		return WhySidecarRestarts, ra > rb
	}
	if first, ok := litZeroOrLater(a.CreationTimestamp, b.CreationTimestamp); ok {
		return WhyCreationTime, first
	}
	if a.Name != b.Name {
		return WhyName, a.Name < b.Name
	}
	return "", false
}

// litSelects is a label selector of 6.1 applied to a label map: every
// matchLabels pair present with that value, and every expression true (In:
// present with a listed value; NotIn: absent or not a listed value; Exists;
// DoesNotExist). ok is false when an expression has an unknown operator:
// 6.1 then ignores the term.
func litSelects(s model.LabelSelector, labels map[string]string) (selected, ok bool) {
	selected = true
	for k, v := range s.MatchLabels {
		if got, has := labels[k]; !has || got != v {
			selected = false
		}
	}
	for _, e := range s.MatchExpressions {
		v, has := labels[e.Key]
		listed := false
		for _, x := range e.Values {
			listed = listed || (has && v == x)
		}
		switch e.Operator {
		case "In":
			selected = selected && listed
		case "NotIn":
			selected = selected && !listed
		case "Exists":
			selected = selected && has
		case "DoesNotExist":
			selected = selected && !has
		default:
			return false, false
		}
	}
	return selected, true
}

// litIntSuffix is IntSuffix of 6.2: the longest run of ASCII digits ending v,
// parsed as a signed 64-bit integer; no run or out of range: 0.
func litIntSuffix(v string) int64 {
	start := len(v)
	for start > 0 && '0' <= v[start-1] && v[start-1] <= '9' {
		start--
	}
	n, err := strconv.ParseInt(v[start:], 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// litPriorityFirst returns section 6's comparison for a strategy, or nil when
// the strategy does not run (absent, or no term at all): a goes first when
// its priority is higher; equal priorities say false (a stable sort keeps
// their order).
func litPriorityFirst(ps *model.UpdatePriorityStrategy) func(a, b *model.Pod) bool {
	switch {
	case ps == nil:
		return nil
	case len(ps.WeightPriority) > 0:
		weight := func(p *model.Pod) int64 {
			var w int64
			for _, t := range ps.WeightPriority {
				if sel, ok := litSelects(t.MatchSelector, p.Labels); ok && sel {
					w += int64(t.Weight)
				}
			}
			return w
		}
		return func(a, b *model.Pod) bool { return weight(a) > weight(b) }
	case len(ps.OrderPriority) > 0:
		levelOrder := func(p *model.Pod) (int, int64) {
			for i, t := range ps.OrderPriority {
				if v, ok := p.Labels[t.OrderedKey]; ok {
					return i, litIntSuffix(v)
				}
			}
			return -1, 0
		}
		return func(a, b *model.Pod) bool {
			la, oa := levelOrder(a)
			lb, ob := levelOrder(b)
			if la != lb {
				return la < lb
			}
			return oa > ob
		}
	}
	return nil
}

// litRound rounds half away from zero (7.2).
func litRound(x float64) int {
	if x < 0 {
		return -litRound(-x)
	}
	return int(math.Floor(x + 0.5))
}

// litShape is shape(m, u) of 7.2.
func litShape(m, u int) (groupNum, mSize, uSize int) {
	groupNum = min(m, u)
	return groupNum, litRound(float64(m) / float64(groupNum)), litRound(float64(u) / float64(groupNum))
}

// litScatterPass is 7.2 for one term, step by step.
func litScatterPass(seq []*model.Pod, term model.ScatterTerm, all []*model.Pod) []*model.Pod {
	matches := func(p *model.Pod) bool { return p.Labels[term.Key] == term.Value } // absent reads ""
	// 1.
	var mSeq, uSeq []*model.Pod
	for _, p := range seq {
		if matches(p) {
			mSeq = append(mSeq, p)
		} else {
			uSeq = append(uSeq, p)
		}
	}
	if len(mSeq) <= 1 || len(uSeq) <= 1 {
		return seq
	}
	// 2.
	tM, tU := 0, 0
	for _, p := range all {
		if p == nil {
			continue
		}
		if matches(p) {
			tM++
		} else {
			tU++
		}
	}
	// 3.
	z := mSeq[len(mSeq)-1]
	mSeq = mSeq[:len(mSeq)-1]
	tM--
	// 4.
	uM, uU := len(mSeq), len(uSeq)
	var groupNum, mSize, uSize, uHead int
	totalRatio := float32(tU) / float32(tM)
	updateRatio := float32(uU) / float32(uM)
	if totalRatio >= updateRatio {
		groupNum, mSize, uSize = litShape(uM, uU)
	} else {
		_, mSize, uSize = litShape(tM, tU)
		groupNum = min(uM/mSize, uU/uSize)
		uHead = uU - groupNum*uSize
	}
	// 5.
	var out []*model.Pod
	next := func(from *[]*model.Pod, n int) {
		for ; n > 0 && len(*from) > 0; n-- {
			out = append(out, (*from)[0])
			*from = (*from)[1:]
		}
	}
	next(&uSeq, uHead)
	for range groupNum {
		next(&mSeq, mSize)
		next(&uSeq, uSize)
	}
	out = append(out, mSeq...)
	out = append(out, uSeq...)
	return append(out, z)
}

// litScatter is section 7: the term order of 7.1, then one pass per term.
// moved maps each pod to the term of the last pass that changed its
// position (9.1).
func litScatter(seq []*model.Pod, terms []model.ScatterTerm, all []*model.Pod) (out []*model.Pod, moved map[*model.Pod]model.ScatterTerm) {
	moved = map[*model.Pod]model.ScatterTerm{}
	if len(terms) == 0 || len(seq) <= 1 {
		return seq, moved
	}
	if len(terms) > 1 {
		count := func(t model.ScatterTerm) int {
			n := 0
			for _, p := range seq {
				if v, ok := p.Labels[t.Key]; ok && v == t.Value {
					n++
				}
			}
			return n
		}
		var kept []model.ScatterTerm
		for _, t := range terms {
			if count(t) > 0 {
				kept = append(kept, t)
			}
		}
		// Count descending, equal counts in strategy order (stable).
		for i := 1; i < len(kept); i++ {
			for j := i; j > 0 && count(kept[j]) > count(kept[j-1]); j-- {
				kept[j], kept[j-1] = kept[j-1], kept[j]
			}
		}
		terms = kept
	}
	for _, t := range terms {
		next := litScatterPass(seq, t, all)
		for i, p := range next {
			if seq[i] != p {
				moved[p] = t
			}
		}
		seq = next
	}
	return seq, moved
}

// litUpdateOrder is the sort of 2.6 (canonical order, default order of
// section 5, stable; priority of section 6, stable; scatter of section 7;
// the stable partition with PreparingUpdate candidates first) and the
// explanation of each position (9.1).
func litUpdateOrder(candidates []*model.Pod, opts UpdateOptions) ([]*model.Pod, []string) {
	seq := litCanonical(candidates)
	litStableSort(seq, func(a, b *model.Pod) bool {
		_, first := litUpdateDefaultCompare(a, b)
		return first
	})
	var priorityFirst func(a, b *model.Pod) bool
	moved := map[*model.Pod]model.ScatterTerm{}
	if ru := opts.RollingUpdate; ru != nil {
		if priorityFirst = litPriorityFirst(ru.PriorityStrategy); priorityFirst != nil {
			litStableSort(seq, priorityFirst)
		}
		seq, moved = litScatter(seq, ru.ScatterStrategy, opts.AllPods)
	}
	before := map[*model.Pod]int{}
	var preparing, rest []*model.Pod
	for i, p := range seq {
		before[p] = i
		if litState(p) == "PreparingUpdate" {
			preparing = append(preparing, p)
		} else {
			rest = append(rest, p)
		}
	}
	out := append(preparing, rest...)
	why := make([]string, len(out))
	for i, p := range out {
		t, scattered := moved[p]
		switch {
		case i < before[p]:
			why[i] = WhyPreparingUpdate
		case scattered:
			why[i] = WhyScatterPrefix + t.Key + "=" + t.Value
		case i+1 == len(out):
			why[i] = WhyLast
		case priorityFirst != nil && priorityFirst(p, out[i+1]):
			why[i] = WhyPriority
		default:
			why[i], _ = litUpdateDefaultCompare(p, out[i+1])
		}
	}
	return out, why
}
