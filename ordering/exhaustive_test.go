package ordering

import (
	"flag"
	"time"

	"github.com/clonecore/cloneset/model"
)

// exhaustive selects the large sizes of the exhaustive tests
// (TestExhaustiveDeletion, TestExhaustiveUpdate): go test -run Exhaustive
// ./ordering/ -args -ordering.exhaustive. The default sizes run in seconds.
var exhaustive = flag.Bool("ordering.exhaustive", false, "run the exhaustive ordering tests at their large sizes")

// exNow is the planner clock of the exhaustive tests. The ready times are
// placed around now - 10s, so that minReadySeconds 10 separates them:
// exLongAgo is past it, exBoundary is exactly at it (not available: the end
// of minReadySeconds must be strictly before now), exRecent is before it.
var (
	exNow      = t0.Add(time.Hour)
	exLongAgo  = exNow.Add(-30 * time.Second)
	exBoundary = exNow.Add(-10 * time.Second)
	exRecent   = exNow.Add(-5 * time.Second)
	exOlder    = exNow.Add(-2 * time.Hour)
	exNewer    = exNow.Add(-1 * time.Hour)
)

// exMinReadySeconds are the minReadySeconds values the exhaustive tests run
// with: without, and with a value that the ready times straddle.
var exMinReadySeconds = []int32{0, 10}

// readiness is the Ready condition of a shape: none (no condition at all),
// or a condition with a status and a lastTransitionTime.
type readiness struct {
	none   bool
	status string
	at     time.Time
}

// The readiness values of the shapes.
var (
	readyNone       = readiness{none: true}
	notReadyLongAgo = readiness{status: "False", at: exLongAgo}
	notReadyRecent  = readiness{status: "False", at: exRecent}
	readyZeroTime   = readiness{status: "True"}
	readyLongAgo    = readiness{status: "True", at: exLongAgo}
	readyAtBoundary = readiness{status: "True", at: exBoundary}
	readyRecent     = readiness{status: "True", at: exRecent}
)

// exAbsent, as a label or annotation value of a shape, means "not set".
const exAbsent = "\x00absent"

// The revision labels of the update shapes (the order must ignore them).
const (
	exOldRevision    = "web-old"
	exUpdateRevision = "web-new"
)

// radix enumerates the mixed-radix numbers with the given digit sizes, in
// increasing order, calling f with the digits (reused between calls). Zero
// sizes give no number.
func radix(sizes []int, f func(digits []int)) {
	for _, s := range sizes {
		if s == 0 {
			return
		}
	}
	d := make([]int, len(sizes))
	for {
		f(d)
		i := len(d) - 1
		for ; i >= 0; i-- {
			d[i]++
			if d[i] < sizes[i] {
				break
			}
			d[i] = 0
		}
		if i < 0 {
			return
		}
	}
}

// multisets calls f with every non-decreasing sequence of at most maxLen
// indexes below n (the multisets of up to maxLen elements of n), the empty
// one included.
func multisets(n, maxLen int, f func(idx []int)) {
	var rec func(cur []int, from int)
	rec = func(cur []int, from int) {
		f(cur)
		if len(cur) == maxLen {
			return
		}
		for i := from; i < n; i++ {
			rec(append(cur, i), i)
		}
	}
	rec(make([]int, 0, maxLen), 0)
}

// permutations calls f with every order of s (Heap's algorithm; s is
// permuted in place and restored to some order at the end).
func permutations[T any](s []T, f func([]T)) {
	c := make([]int, len(s))
	f(s)
	for i := 0; i < len(s); {
		if c[i] < i {
			if i%2 == 0 {
				s[0], s[i] = s[i], s[0]
			} else {
				s[c[i]], s[i] = s[i], s[c[i]]
			}
			f(s)
			c[i]++
			i = 0
		} else {
			c[i] = 0
			i++
		}
	}
}

// setLabel sets label k to v, or removes it when v is exAbsent.
func setLabel(p *model.Pod, k, v string) {
	if v == exAbsent {
		delete(p.Labels, k)
		return
	}
	p.Labels[k] = v
}

// setReadiness replaces the Ready condition of p.
func setReadiness(p *model.Pod, r readiness) {
	var conds []model.PodCondition
	for _, c := range p.Status.Conditions {
		if c.Type != model.ConditionReady {
			conds = append(conds, c)
		}
	}
	if !r.none {
		conds = append([]model.PodCondition{{Type: model.ConditionReady, Status: r.status, LastTransitionTime: r.at}}, conds...)
	}
	p.Status.Conditions = conds
}
