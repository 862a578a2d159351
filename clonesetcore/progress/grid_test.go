package progress

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/internal/cisummary"
	"github.com/clonecore/cloneset/model"
)

// The exhaustive test enumerates every reachable combination of the decision's
// inputs for small replica counts and asserts each documented rule of LSV 2.4 as a
// named check. It is written against the rules, not against Evaluate's code: the
// expectations are derived from the grid point's parameters.

var gridNow = time.Date(2026, 7, 1, 12, 0, 0, 250_000_000, time.UTC)

const (
	revOld = "web-5d2a11"
	revNew = "web-7f9c6d"
)

// partitionOpt is a rollingUpdate.partition as written.
type partitionOpt struct {
	label   string
	absent  bool
	isStr   bool
	intVal  int
	percent string
}

var partitionOpts = []partitionOpt{
	{label: "none", absent: true},
	{label: "0", intVal: 0},
	{label: "1", intVal: 1},
	{label: "2", intVal: 2},
	{label: "5", intVal: 5},
	{label: `"0%"`, isStr: true, percent: "0%"},
	{label: `"50%"`, isStr: true, percent: "50%"},
	{label: `"99%"`, isStr: true, percent: "99%"},
	{label: `"100%"`, isStr: true, percent: "100%"},
	{label: `"7"`, isStr: true, percent: "7"}, // no '%': cannot be computed
}

// expectedUpdated computes expectedUpdatedReplicas from a partition the way LSV 2.2
// describes it (an independent test-side transcription): ok is false when the
// partition cannot be computed and the field stays 0.
func expectedUpdated(p partitionOpt, replicas int) (expected int32, ok bool) {
	count := 0
	switch {
	case p.absent:
	case !p.isStr:
		count = p.intVal
	default:
		num, found := strings.CutSuffix(p.percent, "%")
		if !found {
			return 0, false
		}
		f, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return 0, false
		}
		count = int(math.Ceil(f * float64(replicas) / 100))
		if replicas > 1 && count == replicas && p.percent != "100%" {
			count = replicas - 1
		}
	}
	count = max(0, min(count, replicas))
	return int32(replicas - count), true
}

// prevOpt is the Progressing condition found in the status under construction.
type prevOpt struct {
	label   string
	present bool
	status  string
	reason  string
	message string
	// offset is lastUpdateTime relative to the deadline boundary now - pds:
	// negative = deadline passed, 0 = exactly at it, positive = time remains.
	offset time.Duration
}

func prevOpts() []prevOpt {
	out := []prevOpt{{label: "absent"}}
	type kind struct {
		label, status, reason, message string
	}
	kinds := []kind{
		{"Available", StatusTrue, ReasonAvailable, MessageAvailable},
		{"Paused", StatusTrue, ReasonPaused, MessagePaused},
		{"PartitionAvailable", StatusTrue, ReasonPartitionAvailable, MessagePartitionAvailable},
		{"Updated", StatusTrue, ReasonUpdated, MessageUpdated},
		{"Exceeded(same revision)", StatusFalse, ReasonDeadlineExceeded, TimedOutMessage(revNew)},
		{"Exceeded(older revision)", StatusFalse, ReasonDeadlineExceeded, TimedOutMessage(revOld)},
	}
	offsets := []struct {
		label string
		d     time.Duration
	}{
		{"before boundary by 1s", -time.Second},
		{"at boundary", 0},
		{"after boundary by 0.5s", 500 * time.Millisecond},
		{"after boundary by 1s", time.Second},
	}
	for _, k := range kinds {
		for _, o := range offsets {
			out = append(out, prevOpt{
				label: k.label + ", LUT " + o.label, present: true,
				status: k.status, reason: k.reason, message: k.message, offset: o.d,
			})
		}
	}
	return out
}

type pdsOpt struct {
	label string
	v     *int32
}

func i32(v int32) *int32 { return &v }

var pdsOpts = []pdsOpt{
	{"absent", nil},
	{"30", i32(30)},
	{"2147483646", i32(math.MaxInt32 - 1)},
	{"2147483647", i32(math.MaxInt32)},
}

// gridPoint is one point of the grid with the parameters the checks reason about.
type gridPoint struct {
	spec        *int32
	partition   string
	partitionOK bool
	prev        prevOpt
	pds         pdsOpt
	in          Input
	// prevCond is the Progressing condition placed in in.Conditions (if present).
	prevCond model.CloneSetCondition
	// others are the non-Progressing conditions of in.Conditions, in order.
	others []model.CloneSetCondition
}

func (p *gridPoint) String() string {
	spec := "absent"
	if p.spec != nil {
		spec = strconv.Itoa(int(*p.spec))
	}
	return fmt.Sprintf("{spec.replicas=%s replicas=%d updated=%d updatedAvailable=%d expectedUpdated=%d partition=%s current=%s update=%s rollingUpdate=%t paused=%t pds=%s prev=%s}",
		spec, p.in.Replicas, p.in.UpdatedReplicas, p.in.UpdatedAvailableReplicas, p.in.ExpectedUpdatedReplicas,
		p.partition, p.in.CurrentRevision, p.in.UpdateRevision, p.in.HasRollingUpdate, p.in.Paused, p.pds.label, p.prev.label)
}

// forEachGridPoint calls f for every grid point.
func forEachGridPoint(f func(p *gridPoint)) {
	specs := []*int32{nil, i32(0), i32(1), i32(2), i32(3)}
	prevs := prevOpts()
	others := []model.CloneSetCondition{
		{Type: model.ConditionFailedScale, Status: StatusTrue, Message: "spec.Replicas is nil",
			LastTransitionTime: time.Date(2026, 6, 30, 8, 0, 0, 0, time.UTC)},
		{Type: model.ConditionFailedUpdate, Status: StatusTrue, Message: "in-place update impossible",
			LastTransitionTime: time.Date(2026, 6, 30, 9, 0, 0, 0, time.UTC)},
	}
	for _, spec := range specs {
		eff := 1
		if spec != nil {
			eff = int(*spec)
		}
		for replicas := 0; replicas <= 3; replicas++ {
			for updated := 0; updated <= replicas; updated++ {
				for updAvail := 0; updAvail <= updated; updAvail++ {
					for _, sameRev := range []bool{true, false} {
						// Advancement (LSV 2.3) forces current == update here.
						if !sameRev && updated == replicas && replicas == eff {
							continue
						}
						for _, rolling := range []bool{true, false} {
							parts := partitionOpts
							if !rolling {
								parts = []partitionOpt{{label: "n/a (no rollingUpdate)", absent: true}}
							}
							for _, part := range parts {
								exp, ok := expectedUpdated(part, eff)
								for _, paused := range []bool{false, true} {
									for _, pds := range pdsOpts {
										for _, prev := range prevs {
											p := &gridPoint{spec: spec, partition: part.label, partitionOK: ok, prev: prev, pds: pds}
											cur := revNew
											if !sameRev {
												cur = revOld
											}
											p.in = Input{
												HasRollingUpdate:         rolling,
												Paused:                   paused,
												ProgressDeadlineSeconds:  pds.v,
												SpecReplicas:             spec,
												Replicas:                 int32(replicas),
												UpdatedReplicas:          int32(updated),
												UpdatedAvailableReplicas: int32(updAvail),
												ExpectedUpdatedReplicas:  exp,
												PartitionUnparsable:      !ok,
												CurrentRevision:          cur,
												UpdateRevision:           revNew,
												Now:                      gridNow,
											}
											p.others = others
											conds := []model.CloneSetCondition{others[0]}
											if prev.present {
												boundary := gridNow.Add(-30 * time.Second)
												if pds.v != nil && *pds.v != math.MaxInt32 {
													boundary = gridNow.Add(-time.Duration(*pds.v) * time.Second)
												}
												lut := boundary.Add(prev.offset)
												p.prevCond = model.CloneSetCondition{
													Type: model.ConditionProgressing, Status: prev.status, Reason: prev.reason,
													Message: prev.message, LastUpdateTime: lut, LastTransitionTime: lut.Add(-7 * time.Second),
												}
												conds = append(conds, p.prevCond)
											}
											conds = append(conds, others[1])
											p.in.Conditions = conds
											f(p)
										}
									}
								}
							}
						}
					}
				}
			}
		}
	}
}

// checker runs named checks and remembers how often each one was asserted.
type checker struct {
	t      *testing.T
	runs   map[string]int
	fails  map[string]int
	total  int
	failed int
}

func (c *checker) check(name string, ok bool, p *gridPoint, r Result, format string, args ...any) {
	c.runs[name]++
	c.total++
	if ok {
		return
	}
	c.failed++
	c.fails[name]++
	if c.fails[name] <= 3 {
		c.t.Errorf("check %q failed: %s\n  grid point: %s\n  result: row=%s requeue=%v notes=%q\n  conditions: %s",
			name, fmt.Sprintf(format, args...), p, r.Row, r.Requeue, r.Notes, fmtConds(r.Conditions))
	}
}

func fmtConds(cs []model.CloneSetCondition) string {
	var b strings.Builder
	for i, c := range cs {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s/%s/%s %q LUT=%s LTT=%s", c.Type, c.Status, c.Reason, c.Message,
			c.LastUpdateTime.Format(time.RFC3339Nano), c.LastTransitionTime.Format(time.RFC3339Nano))
	}
	return "[" + b.String() + "]"
}

func condEqual(a, b model.CloneSetCondition) bool {
	return a.Type == b.Type && a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message &&
		a.LastUpdateTime.Equal(b.LastUpdateTime) && a.LastTransitionTime.Equal(b.LastTransitionTime)
}

func condsEqual(a, b []model.CloneSetCondition) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !condEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

func resultsEqual(a, b Result) bool {
	if a.Row != b.Row || a.Requeue != b.Requeue || len(a.Notes) != len(b.Notes) || !condsEqual(a.Conditions, b.Conditions) {
		return false
	}
	for i := range a.Notes {
		if a.Notes[i] != b.Notes[i] {
			return false
		}
	}
	return true
}

func progressingOf(cs []model.CloneSetCondition) []model.CloneSetCondition {
	var out []model.CloneSetCondition
	for _, c := range cs {
		if c.Type == model.ConditionProgressing {
			out = append(out, c)
		}
	}
	return out
}

func nonProgressing(cs []model.CloneSetCondition) []model.CloneSetCondition {
	return RemoveCondition(cs, model.ConditionProgressing)
}

func countNotes(notes []string, prefix string) int {
	n := 0
	for _, s := range notes {
		if strings.HasPrefix(s, prefix) {
			n++
		}
	}
	return n
}

// rowShape is the status and reason each tracked row writes.
func rowShape(r Row) (status, reason string) {
	switch r {
	case RowAvailable:
		return StatusTrue, ReasonAvailable
	case RowPaused:
		return StatusTrue, ReasonPaused
	case RowPartitionAvailable:
		return StatusTrue, ReasonPartitionAvailable
	case RowDeadlineExceeded:
		return StatusFalse, ReasonDeadlineExceeded
	case RowUpdated:
		return StatusTrue, ReasonUpdated
	}
	return "", ""
}

func rowMessage(r Row, updateRevision string) string {
	switch r {
	case RowAvailable:
		return MessageAvailable
	case RowPaused:
		return MessagePaused
	case RowPartitionAvailable:
		return MessagePartitionAvailable
	case RowDeadlineExceeded:
		return TimedOutMessage(updateRevision)
	case RowUpdated:
		return MessageUpdated
	}
	return ""
}

// allChecks lists every named check; each must be asserted at least once.
var allChecks = []string{
	"input-not-mutated", "deterministic", "others-keep-order",
	"off/row-off", "off/progressing-removed", "off/no-requeue", "off/no-notes",
	"on/exactly-one-progressing",
	"row1/available-iff-complete", "row1/available-wins-over-paused",
	"row2/paused", "row2/paused-needs-rollingupdate",
	"row3/partition-available", "row3/only-when-partition-reached",
	"clock-stops/no-requeue-when-resting",
	"row4/exceeded-only-after-deadline", "row4/exceeded-when-deadline-passed",
	"row4/not-exceeded-at-boundary", "row4/sticky", "row4/sticky-keeps-old-message",
	"row4/cleared-by-resting-row",
	"row5/updated-by-default",
	"requeue/only-for-updated", "requeue/remaining-time", "requeue/none-at-boundary",
	"requeue/full-deadline-when-fresh",
	"write/condition-shape", "write/kept-unchanged-same-status-reason",
	"write/ltt-kept-reason-change", "write/times-reset-status-change",
	"write/appended-at-end",
	"note/stale-present", "note/stale-absent",
	"note/sticky-new-revision-present", "note/sticky-new-revision-absent",
	"note/ondelete-present", "note/ondelete-absent",
	"note/partition-present", "note/partition-absent",
	"note/no-other-notes",
}

func TestEvaluateExhaustiveGrid(t *testing.T) {
	start := time.Now()
	c := &checker{t: t, runs: map[string]int{}, fails: map[string]int{}}
	points := 0
	rows := map[Row]int{}
	nowSec := gridNow.Truncate(time.Second)

	forEachGridPoint(func(p *gridPoint) {
		points++
		in := p.in
		snapshot := append([]model.CloneSetCondition(nil), in.Conditions...)
		r := Evaluate(in)
		rows[r.Row]++

		c.check("input-not-mutated", condsEqual(in.Conditions, snapshot), p, r, "input conditions changed to %s", fmtConds(in.Conditions))
		c.check("deterministic", resultsEqual(r, Evaluate(in)), p, r, "second evaluation differs")
		c.check("others-keep-order", condsEqual(nonProgressing(r.Conditions), p.others), p, r,
			"non-Progressing conditions %s, want %s", fmtConds(nonProgressing(r.Conditions)), fmtConds(p.others))

		on := p.pds.v != nil && *p.pds.v != math.MaxInt32
		if !on {
			c.check("off/row-off", r.Row == RowOff, p, r, "row %s, want Off", r.Row)
			c.check("off/progressing-removed", len(progressingOf(r.Conditions)) == 0, p, r, "a Progressing condition remains")
			c.check("off/no-requeue", r.Requeue == 0, p, r, "requeue %v", r.Requeue)
			c.check("off/no-notes", len(r.Notes) == 0, p, r, "notes %q", r.Notes)
			return
		}

		pds := time.Duration(*p.pds.v) * time.Second
		eff := int32(1)
		if p.spec != nil {
			eff = *p.spec
		}
		complete := in.CurrentRevision == in.UpdateRevision && in.Replicas == eff && in.UpdatedReplicas == eff && in.UpdatedAvailableReplicas == eff
		pausedEff := in.HasRollingUpdate && in.Paused
		partReached := in.ExpectedUpdatedReplicas < eff && in.ExpectedUpdatedReplicas <= in.UpdatedAvailableReplicas
		resting := complete || pausedEff || partReached
		prev := p.prevCond
		sticky := p.prev.present && prev.Reason == ReasonDeadlineExceeded
		timePassed := p.prev.present && prev.LastUpdateTime.Add(pds).Before(in.Now)

		progs := progressingOf(r.Conditions)
		c.check("on/exactly-one-progressing", len(progs) == 1, p, r, "%d Progressing conditions", len(progs))
		if len(progs) != 1 {
			return
		}
		got := progs[0]

		// Row selection.
		c.check("row1/available-iff-complete", (r.Row == RowAvailable) == complete, p, r, "complete=%t row=%s", complete, r.Row)
		if complete && pausedEff {
			c.check("row1/available-wins-over-paused", r.Row == RowAvailable, p, r, "row %s", r.Row)
		}
		if !complete && pausedEff {
			c.check("row2/paused", r.Row == RowPaused, p, r, "row %s", r.Row)
		}
		if in.Paused && !in.HasRollingUpdate {
			c.check("row2/paused-needs-rollingupdate", r.Row != RowPaused, p, r, "paused without rollingUpdate")
		}
		if !complete && !pausedEff && partReached {
			c.check("row3/partition-available", r.Row == RowPartitionAvailable, p, r, "row %s", r.Row)
		}
		if r.Row == RowPartitionAvailable {
			c.check("row3/only-when-partition-reached", partReached, p, r, "partition not reached")
		}
		if r.Row == RowAvailable || r.Row == RowPaused || r.Row == RowPartitionAvailable {
			c.check("clock-stops/no-requeue-when-resting", r.Requeue <= 0, p, r, "requeue %v", r.Requeue)
		}
		if r.Row == RowDeadlineExceeded {
			c.check("row4/exceeded-only-after-deadline", sticky || timePassed, p, r,
				"exceeded although LUT %s + %v is not before now", prev.LastUpdateTime, pds)
		}
		if !resting && timePassed {
			c.check("row4/exceeded-when-deadline-passed", r.Row == RowDeadlineExceeded, p, r, "row %s", r.Row)
		}
		if p.prev.present && !sticky && prev.LastUpdateTime.Add(pds).Equal(in.Now) {
			c.check("row4/not-exceeded-at-boundary", r.Row != RowDeadlineExceeded, p, r, "exceeded exactly at the deadline")
		}
		if !resting && sticky {
			c.check("row4/sticky", r.Row == RowDeadlineExceeded, p, r, "row %s", r.Row)
			c.check("row4/sticky-keeps-old-message", got.Message == prev.Message, p, r, "message %q, want %q", got.Message, prev.Message)
		}
		if resting && sticky {
			c.check("row4/cleared-by-resting-row", r.Row != RowDeadlineExceeded, p, r, "still exceeded")
		}
		if !resting && !sticky && !timePassed {
			c.check("row5/updated-by-default", r.Row == RowUpdated, p, r, "row %s", r.Row)
		}

		// Requeue.
		if r.Row != RowUpdated {
			c.check("requeue/only-for-updated", r.Requeue == 0, p, r, "requeue %v for row %s", r.Requeue, r.Row)
		}
		if r.Row == RowUpdated {
			kept := p.prev.present && prev.Status == StatusTrue && prev.Reason == ReasonUpdated
			base := in.Now
			if kept {
				base = prev.LastUpdateTime
			}
			d := base.Add(pds).Sub(in.Now)
			want := d
			if d >= time.Second {
				want = d + time.Second
			}
			c.check("requeue/remaining-time", r.Requeue == want, p, r, "requeue %v, want %v (d=%v)", r.Requeue, want, d)
			if kept && d == 0 {
				c.check("requeue/none-at-boundary", r.Requeue <= 0, p, r, "requeue %v at the deadline", r.Requeue)
			}
			if !kept {
				c.check("requeue/full-deadline-when-fresh", r.Requeue == pds+time.Second, p, r, "requeue %v, want %v", r.Requeue, pds+time.Second)
			}
		}

		// The written condition.
		status, reason := rowShape(r.Row)
		kept := p.prev.present && prev.Status == status && prev.Reason == reason
		wantMsg := rowMessage(r.Row, in.UpdateRevision)
		if kept {
			wantMsg = prev.Message
		}
		c.check("write/condition-shape", got.Status == status && got.Reason == reason && got.Message == wantMsg, p, r,
			"condition %s/%s %q, want %s/%s %q", got.Status, got.Reason, got.Message, status, reason, wantMsg)
		switch {
		case kept:
			c.check("write/kept-unchanged-same-status-reason", condsEqual(r.Conditions, in.Conditions), p, r,
				"list changed from %s", fmtConds(in.Conditions))
		case p.prev.present && prev.Status == status:
			c.check("write/ltt-kept-reason-change", got.LastTransitionTime.Equal(prev.LastTransitionTime) && got.LastUpdateTime.Equal(nowSec), p, r,
				"LTT %s LUT %s, want LTT %s LUT %s", got.LastTransitionTime, got.LastUpdateTime, prev.LastTransitionTime, nowSec)
		default:
			c.check("write/times-reset-status-change", got.LastTransitionTime.Equal(nowSec) && got.LastUpdateTime.Equal(nowSec), p, r,
				"LTT %s LUT %s, want both %s", got.LastTransitionTime, got.LastUpdateTime, nowSec)
		}
		if !kept {
			last := r.Conditions[len(r.Conditions)-1]
			c.check("write/appended-at-end", last.Type == model.ConditionProgressing &&
				condsEqual(r.Conditions[:len(r.Conditions)-1], p.others), p, r, "not appended at the end")
		}

		// Notes.
		wantStale := r.Row == RowDeadlineExceeded && p.prev.present && !sticky && prev.Reason != ReasonUpdated
		wantSticky := r.Row == RowDeadlineExceeded && sticky && prev.Message != TimedOutMessage(in.UpdateRevision)
		wantOnDelete := r.Row == RowDeadlineExceeded && !in.HasRollingUpdate && in.CurrentRevision != in.UpdateRevision
		wantPartition := r.Row == RowPartitionAvailable && !p.partitionOK
		noteCheck := func(name, prefix string, want bool) {
			n := countNotes(r.Notes, prefix)
			if want {
				c.check("note/"+name+"-present", n == 1, p, r, "%d notes with prefix %q, want 1", n, prefix)
			} else {
				c.check("note/"+name+"-absent", n == 0, p, r, "%d notes with prefix %q, want 0", n, prefix)
			}
		}
		noteCheck("stale", noteStalePrefix, wantStale)
		noteCheck("sticky-new-revision", noteStickyPrefix, wantSticky)
		noteCheck("ondelete", noteOnDeletePrefix, wantOnDelete)
		noteCheck("partition", notePartitionPrefix, wantPartition)
		wantN := 0
		for _, b := range []bool{wantStale, wantSticky, wantOnDelete, wantPartition} {
			if b {
				wantN++
			}
		}
		c.check("note/no-other-notes", len(r.Notes) == wantN, p, r, "%d notes, want %d", len(r.Notes), wantN)
	})

	elapsed := time.Since(start)
	cisummary.Print(t, fmt.Sprintf("grid: %d points, %d checks run, %d failed, %v", points, c.total, c.failed, elapsed.Round(time.Millisecond)))
	names := make([]string, 0, len(c.runs))
	for n := range c.runs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Logf("  %-45s %8d", n, c.runs[n])
	}
	for r := RowOff; r <= RowUpdated; r++ {
		t.Logf("  row %-18s %8d points", r, rows[r])
	}

	const minPoints = 300_000
	if points < minPoints {
		t.Errorf("grid unexpectedly small: %d points, want at least %d", points, minPoints)
	}
	for _, n := range allChecks {
		if c.runs[n] == 0 {
			t.Errorf("check %q was never asserted: the grid does not reach its premise", n)
		}
	}
	if len(c.runs) != len(allChecks) {
		t.Errorf("%d distinct checks ran, allChecks lists %d: keep the list in sync", len(c.runs), len(allChecks))
	}
	for r := RowOff; r <= RowUpdated; r++ {
		if rows[r] == 0 {
			t.Errorf("row %s never reached", r)
		}
	}
}
