package progress

import (
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
	"github.com/google/go-cmp/cmp"
)

// Table tests reproducing the worked examples of LSV 7.2 to 7.6.

var t0 = time.Date(2026, 7, 1, 10, 0, 0, 0, time.UTC)

func at(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// observation is what a round sees in the 7.2-7.4 examples (spec.replicas 3,
// partition 0, so expectedUpdatedReplicas 3).
type observation struct {
	replicas, updated, updatedAvailable int32
	current, update                     string
	paused                              bool
}

func roundInput(obs observation, pds int32, conds []model.CloneSetCondition, now time.Time) Input {
	return Input{
		HasRollingUpdate:         true,
		Paused:                   obs.paused,
		ProgressDeadlineSeconds:  i32(pds),
		SpecReplicas:             i32(3),
		Replicas:                 obs.replicas,
		UpdatedReplicas:          obs.updated,
		UpdatedAvailableReplicas: obs.updatedAvailable,
		ExpectedUpdatedReplicas:  3,
		CurrentRevision:          obs.current,
		UpdateRevision:           obs.update,
		Conditions:               conds,
		Now:                      now,
	}
}

// wantCond describes the Progressing condition after a round.
type wantCond struct {
	status, reason, message string
	lut, ltt                float64
}

func checkProgressing(t *testing.T, conds []model.CloneSetCondition, w wantCond) {
	t.Helper()
	got, ok := FindCondition(conds, model.ConditionProgressing)
	if !ok {
		t.Fatalf("no Progressing condition in %s", fmtConds(conds))
	}
	want := model.CloneSetCondition{Type: model.ConditionProgressing, Status: w.status, Reason: w.reason,
		Message: w.message, LastUpdateTime: at(w.lut), LastTransitionTime: at(w.ltt)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Progressing condition (-want +got):\n%s", diff)
	}
	if n := len(progressingOf(conds)); n != 1 {
		t.Errorf("%d Progressing conditions", n)
	}
}

type round struct {
	name     string
	t        float64
	obs      observation
	fresh    bool // start from a status without conditions (7.3's harness pitfall)
	row      Row
	want     wantCond
	requeue  time.Duration
	notePfx  []string
	fromPrev *[]model.CloneSetCondition // nil: carry the previous round's conditions
}

// runTimeline evaluates the rounds in order, each round starting from a copy of
// the previous round's conditions, as the controller does (LSV 2.0 step 1).
func runTimeline(t *testing.T, pds int32, start []model.CloneSetCondition, rounds []round) []model.CloneSetCondition {
	t.Helper()
	conds := start
	for _, r := range rounds {
		in := roundInput(r.obs, pds, conds, at(r.t))
		if r.fresh {
			in.Conditions = nil
		}
		res := Evaluate(in)
		if res.Row != r.row {
			t.Errorf("%s (t=%v): row %s, want %s", r.name, r.t, res.Row, r.row)
		}
		checkProgressing(t, res.Conditions, r.want)
		if res.Requeue != r.requeue {
			t.Errorf("%s (t=%v): requeue %v, want %v", r.name, r.t, res.Requeue, r.requeue)
		}
		checkNotes(t, r.name, res.Notes, r.notePfx)
		conds = res.Conditions
	}
	return conds
}

func checkNotes(t *testing.T, name string, notes, prefixes []string) {
	t.Helper()
	if len(notes) != len(prefixes) {
		t.Errorf("%s: notes %q, want %d notes with prefixes %q", name, notes, len(prefixes), prefixes)
		return
	}
	for i, p := range prefixes {
		if !strings.HasPrefix(notes[i], p) {
			t.Errorf("%s: note %d is %q, want prefix %q", name, i, notes[i], p)
		}
	}
}

const (
	v1 = "web-v1"
	v2 = "web-v2"
)

func TestLSV7_2Timeline(t *testing.T) {
	runTimeline(t, 120, nil, []round{
		{name: "created, 0 pods", t: 0, obs: observation{0, 0, 0, v1, v1, false},
			row: RowUpdated, want: wantCond{StatusTrue, ReasonUpdated, MessageUpdated, 0, 0}, requeue: secs(121)},
		{name: "3 pods updated and available", t: 45, obs: observation{3, 3, 3, v1, v1, false},
			row: RowAvailable, want: wantCond{StatusTrue, ReasonAvailable, MessageAvailable, 45, 0}},
		{name: "template changed, 0 of 3 updated", t: 100, obs: observation{3, 0, 0, v1, v2, false},
			row: RowUpdated, want: wantCond{StatusTrue, ReasonUpdated, MessageUpdated, 100, 0}, requeue: secs(121)},
		{name: "2 of 3 updated and available", t: 180, obs: observation{3, 2, 2, v1, v2, false},
			row: RowUpdated, want: wantCond{StatusTrue, ReasonUpdated, MessageUpdated, 100, 0}, requeue: secs(41)},
		{name: "still 2 of 3, deadline passed", t: 221, obs: observation{3, 2, 2, v1, v2, false},
			row: RowDeadlineExceeded, want: wantCond{StatusFalse, ReasonDeadlineExceeded, TimedOutMessage(v2), 221, 221}},
		{name: "3 of 3 updated and available", t: 300, obs: observation{3, 3, 3, v2, v2, false},
			row: RowAvailable, want: wantCond{StatusTrue, ReasonAvailable, MessageAvailable, 300, 300}},
	})
}

func TestLSV7_2MessageNamesUpdateRevision(t *testing.T) {
	res := Evaluate(roundInput(observation{3, 2, 2, v1, v2, false}, 120, []model.CloneSetCondition{
		{Type: model.ConditionProgressing, Status: StatusTrue, Reason: ReasonUpdated, Message: MessageUpdated, LastUpdateTime: at(100), LastTransitionTime: at(0)},
	}, at(221)))
	c, _ := FindCondition(res.Conditions, model.ConditionProgressing)
	if c.Message != "CloneSet revision web-v2 has timed out progressing" {
		t.Errorf("message %q", c.Message)
	}
	if len(res.Notes) != 0 {
		t.Errorf("a plain timeout of an Updated condition is no quirk; notes %q", res.Notes)
	}
}

func TestLSV7_3StaleLastUpdateTime(t *testing.T) {
	available := []model.CloneSetCondition{{Type: model.ConditionProgressing, Status: StatusTrue, Reason: ReasonAvailable,
		Message: MessageAvailable, LastUpdateTime: at(45), LastTransitionTime: at(0)}}
	t.Run("copied conditions: immediate timeout, then sticky", func(t *testing.T) {
		runTimeline(t, 120, available, []round{
			{name: "template change at t=1000", t: 1000, obs: observation{3, 0, 0, v1, v2, false},
				row: RowDeadlineExceeded, want: wantCond{StatusFalse, ReasonDeadlineExceeded, TimedOutMessage(v2), 1000, 1000},
				notePfx: []string{noteStalePrefix}},
			{name: "rollout progresses normally", t: 1050, obs: observation{3, 2, 2, v1, v2, false},
				row: RowDeadlineExceeded, want: wantCond{StatusFalse, ReasonDeadlineExceeded, TimedOutMessage(v2), 1000, 1000}},
			{name: "rollout completes", t: 1090, obs: observation{3, 3, 3, v2, v2, false},
				row: RowAvailable, want: wantCond{StatusTrue, ReasonAvailable, MessageAvailable, 1090, 1090}},
		})
	})
	t.Run("harness without copied conditions sees row 5", func(t *testing.T) {
		runTimeline(t, 120, available, []round{
			{name: "fresh status", t: 1000, obs: observation{3, 0, 0, v1, v2, false}, fresh: true,
				row: RowUpdated, want: wantCond{StatusTrue, ReasonUpdated, MessageUpdated, 1000, 1000}, requeue: secs(121)},
		})
	})
	t.Run("sticky across a new revision names the old one", func(t *testing.T) {
		runTimeline(t, 120, available, []round{
			{name: "template change at t=1000", t: 1000, obs: observation{3, 0, 0, v1, v2, false},
				row: RowDeadlineExceeded, want: wantCond{StatusFalse, ReasonDeadlineExceeded, TimedOutMessage(v2), 1000, 1000},
				notePfx: []string{noteStalePrefix}},
			{name: "another template change", t: 1010, obs: observation{3, 0, 0, v1, "web-v3", false},
				row: RowDeadlineExceeded, want: wantCond{StatusFalse, ReasonDeadlineExceeded, TimedOutMessage(v2), 1000, 1000},
				notePfx: []string{noteStickyPrefix}},
		})
	})
}

func TestLSV7_4PauseAndResume(t *testing.T) {
	paused := []round{
		{name: "rollout starts", t: 0, obs: observation{3, 0, 0, v1, v2, false},
			row: RowUpdated, want: wantCond{StatusTrue, ReasonUpdated, MessageUpdated, 0, 0}, requeue: secs(121)},
		{name: "paused at t=30", t: 30, obs: observation{3, 1, 0, v1, v2, true},
			row: RowPaused, want: wantCond{StatusTrue, ReasonPaused, MessagePaused, 30, 0}},
		{name: "still paused at t=200 (clock stopped)", t: 200, obs: observation{3, 1, 1, v1, v2, true},
			row: RowPaused, want: wantCond{StatusTrue, ReasonPaused, MessagePaused, 30, 0}},
	}
	t.Run("resume at t=90", func(t *testing.T) {
		runTimeline(t, 120, nil, append(paused[:2:2], round{
			name: "resumed", t: 90, obs: observation{3, 1, 1, v1, v2, false},
			row: RowUpdated, want: wantCond{StatusTrue, ReasonUpdated, MessageUpdated, 90, 0}, requeue: secs(121)}))
	})
	t.Run("resume at t=400", func(t *testing.T) {
		runTimeline(t, 120, nil, append(paused[:3:3], round{
			name: "resumed", t: 400, obs: observation{3, 1, 1, v1, v2, false},
			row: RowDeadlineExceeded, want: wantCond{StatusFalse, ReasonDeadlineExceeded, TimedOutMessage(v2), 400, 400},
			notePfx: []string{noteStalePrefix}}))
	})
	t.Run("available wins over paused", func(t *testing.T) {
		runTimeline(t, 120, nil, []round{paused[0], {
			name: "fully available and paused at t=30", t: 30, obs: observation{3, 3, 3, v2, v2, true},
			row: RowAvailable, want: wantCond{StatusTrue, ReasonAvailable, MessageAvailable, 30, 0}}})
	})
}

func TestLSV7_5PartitionAvailable(t *testing.T) {
	cases := []struct {
		name             string
		spec             *int32
		expected         int32
		unparsable       bool
		updatedAvailable int32
		row              Row
		notes            []string
	}{
		{"partition 3: expected 7, 6 available", i32(10), 7, false, 6, RowUpdated, nil},
		{"partition 3: expected 7, 7 available", i32(10), 7, false, 7, RowPartitionAvailable, nil},
		{`"30%": expected 7, 7 available`, i32(10), 7, false, 7, RowPartitionAvailable, nil},
		{`"95%": expected 1, 0 available`, i32(10), 1, false, 0, RowUpdated, nil},
		{`"95%": expected 1, 1 available`, i32(10), 1, false, 1, RowPartitionAvailable, nil},
		{`"100%": expected 0, always`, i32(10), 0, false, 0, RowPartitionAvailable, nil},
		{`"1%": expected 9, 8 available`, i32(10), 9, false, 8, RowUpdated, nil},
		{`"1%": expected 9, 9 available`, i32(10), 9, false, 9, RowPartitionAvailable, nil},
		{"12: clamped, expected 0", i32(10), 0, false, 0, RowPartitionAvailable, nil},
		{`"7": not computed, expected 0 [quirk]`, i32(10), 0, true, 0, RowPartitionAvailable, []string{notePartitionPrefix}},
		{`replicas 1, "50%": expected 0`, i32(1), 0, false, 0, RowPartitionAvailable, nil},
		{"no partition: expected 10 never matches row 3", i32(10), 10, false, 9, RowUpdated, nil},
		{"absent spec.replicas counts as 1", nil, 0, false, 0, RowPartitionAvailable, nil},
		{"spec.replicas 0: expected 0 is not below it", i32(0), 0, false, 0, RowUpdated, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{
				HasRollingUpdate: true, ProgressDeadlineSeconds: i32(600), SpecReplicas: tc.spec,
				Replicas: 10, UpdatedReplicas: tc.updatedAvailable, UpdatedAvailableReplicas: tc.updatedAvailable,
				ExpectedUpdatedReplicas: tc.expected, PartitionUnparsable: tc.unparsable,
				CurrentRevision: v1, UpdateRevision: v2, Now: at(0),
			}
			res := Evaluate(in)
			if res.Row != tc.row {
				t.Errorf("row %s, want %s", res.Row, tc.row)
			}
			if tc.row == RowPartitionAvailable {
				checkProgressing(t, res.Conditions, wantCond{StatusTrue, ReasonPartitionAvailable, MessagePartitionAvailable, 0, 0})
				if res.Requeue != 0 {
					t.Errorf("requeue %v while partition-available", res.Requeue)
				}
			}
			checkNotes(t, tc.name, res.Notes, tc.notes)
		})
	}
	t.Run("row 1 requires currentRevision == updateRevision", func(t *testing.T) {
		// Unreachable after advancement (LSV 2.3), but the decision tests it first.
		res := Evaluate(Input{HasRollingUpdate: true, ProgressDeadlineSeconds: i32(600), SpecReplicas: i32(10),
			Replicas: 10, UpdatedReplicas: 10, UpdatedAvailableReplicas: 10, ExpectedUpdatedReplicas: 10,
			CurrentRevision: v1, UpdateRevision: v2, Now: at(0)})
		if res.Row != RowUpdated {
			t.Errorf("row %s, want Updated", res.Row)
		}
	})
	t.Run("full availability wins over the partition", func(t *testing.T) {
		res := Evaluate(Input{HasRollingUpdate: true, ProgressDeadlineSeconds: i32(600), SpecReplicas: i32(10),
			Replicas: 10, UpdatedReplicas: 10, UpdatedAvailableReplicas: 10, ExpectedUpdatedReplicas: 0,
			CurrentRevision: v2, UpdateRevision: v2, Now: at(0)})
		if res.Row != RowAvailable {
			t.Errorf("row %s, want Available", res.Row)
		}
	})
}

func TestLSV7_6RequeueArithmetic(t *testing.T) {
	updated := []model.CloneSetCondition{{Type: model.ConditionProgressing, Status: StatusTrue, Reason: ReasonUpdated,
		Message: MessageUpdated, LastUpdateTime: at(0), LastTransitionTime: at(0)}}
	cases := []struct {
		now     float64
		row     Row
		requeue time.Duration
	}{
		{27.0, RowUpdated, secs(4)},
		{29.7, RowUpdated, secs(0.3)},
		{30.0, RowUpdated, 0},
		{30.6, RowDeadlineExceeded, 0},
		{31.0, RowDeadlineExceeded, 0},
	}
	for _, tc := range cases {
		res := Evaluate(roundInput(observation{3, 1, 0, v1, v2, false}, 30, updated, at(tc.now)))
		if res.Row != tc.row || res.Requeue != tc.requeue {
			t.Errorf("now=10:00:%04.1f: row %s requeue %v, want row %s requeue %v", tc.now, res.Row, res.Requeue, tc.row, tc.requeue)
		}
		if tc.row == RowDeadlineExceeded {
			// Written at the exact now, stored truncated to the second.
			checkProgressing(t, res.Conditions, wantCond{StatusFalse, ReasonDeadlineExceeded, TimedOutMessage(v2), float64(int(tc.now)), float64(int(tc.now))})
		}
	}
}

func TestRequeueEdgeCases(t *testing.T) {
	obs := observation{3, 1, 0, v1, v2, false}
	t.Run("fresh condition requests the full deadline plus one second", func(t *testing.T) {
		res := Evaluate(roundInput(obs, 30, nil, at(12.75)))
		if res.Requeue != secs(31) {
			t.Errorf("requeue %v, want 31s", res.Requeue)
		}
		checkProgressing(t, res.Conditions, wantCond{StatusTrue, ReasonUpdated, MessageUpdated, 12, 12})
	})
	t.Run("pds 0: nothing requested, next round exceeded", func(t *testing.T) {
		res := Evaluate(roundInput(obs, 0, nil, at(5)))
		if res.Row != RowUpdated || res.Requeue != 0 {
			t.Errorf("row %s requeue %v, want Updated 0", res.Row, res.Requeue)
		}
		next := Evaluate(roundInput(obs, 0, res.Conditions, at(5.5)))
		if next.Row != RowDeadlineExceeded {
			t.Errorf("next round row %s, want DeadlineExceeded", next.Row)
		}
	})
	t.Run("negative pds (v1beta1): negative request, next round exceeded", func(t *testing.T) {
		res := Evaluate(roundInput(obs, -10, nil, at(5)))
		if res.Row != RowUpdated || res.Requeue != secs(-10) {
			t.Errorf("row %s requeue %v, want Updated -10s", res.Row, res.Requeue)
		}
		next := Evaluate(roundInput(obs, -10, res.Conditions, at(5)))
		if next.Row != RowDeadlineExceeded {
			t.Errorf("next round row %s, want DeadlineExceeded", next.Row)
		}
	})
	t.Run("missing lastUpdateTime times out at once", func(t *testing.T) {
		res := Evaluate(roundInput(obs, 30, []model.CloneSetCondition{{Type: model.ConditionProgressing, Status: StatusTrue,
			Reason: ReasonUpdated, Message: MessageUpdated}}, at(5)))
		if res.Row != RowDeadlineExceeded {
			t.Errorf("row %s, want DeadlineExceeded", res.Row)
		}
		checkNotes(t, "missing LUT", res.Notes, []string{noteStalePrefix})
	})
}

func TestOnDeleteTimesOut(t *testing.T) {
	in := Input{
		HasRollingUpdate: false, Paused: true, ProgressDeadlineSeconds: i32(60), SpecReplicas: i32(3),
		Replicas: 3, UpdatedReplicas: 0, UpdatedAvailableReplicas: 0, ExpectedUpdatedReplicas: 3,
		CurrentRevision: v1, UpdateRevision: v2, Now: at(0),
	}
	first := Evaluate(in)
	if first.Row != RowUpdated || first.Requeue != secs(61) {
		t.Fatalf("row %s requeue %v, want Updated 61s (paused is ignored without rollingUpdate)", first.Row, first.Requeue)
	}
	in.Conditions, in.Now = first.Conditions, at(61)
	res := Evaluate(in)
	if res.Row != RowDeadlineExceeded {
		t.Fatalf("row %s, want DeadlineExceeded", res.Row)
	}
	checkNotes(t, "OnDelete", res.Notes, []string{noteOnDeletePrefix})
}

func TestTrackingOff(t *testing.T) {
	conds := []model.CloneSetCondition{
		{Type: model.ConditionProgressing, Status: StatusTrue, Reason: ReasonUpdated, LastUpdateTime: at(0)},
		{Type: model.ConditionFailedScale, Status: StatusTrue, Message: "boom"},
		{Type: model.ConditionProgressing, Status: StatusFalse, Reason: ReasonDeadlineExceeded},
	}
	for _, pds := range []*int32{nil, i32(NoDeadline)} {
		in := roundInput(observation{3, 0, 0, v1, v2, false}, 0, conds, at(1000))
		in.ProgressDeadlineSeconds = pds
		res := Evaluate(in)
		want := []model.CloneSetCondition{conds[1]}
		if diff := cmp.Diff(want, res.Conditions); diff != "" || res.Row != RowOff || res.Requeue != 0 || res.Notes != nil {
			t.Errorf("pds %v: row %s requeue %v notes %q conditions (-want +got):\n%s", pds, res.Row, res.Requeue, res.Notes, diff)
		}
	}
	if !Tracking(i32(NoDeadline-1)) || !Tracking(i32(0)) || !Tracking(i32(-1)) || Tracking(nil) || Tracking(i32(NoDeadline)) {
		t.Error("Tracking disagrees with LSV 2.4 Activation")
	}
}

func TestRowString(t *testing.T) {
	want := map[Row]string{RowOff: "Off", RowAvailable: "Available", RowPaused: "Paused",
		RowPartitionAvailable: "PartitionAvailable", RowDeadlineExceeded: "DeadlineExceeded", RowUpdated: "Updated", Row(9): "Row(9)"}
	for r, s := range want {
		if r.String() != s {
			t.Errorf("Row(%d).String() = %q, want %q", int(r), r.String(), s)
		}
	}
	if RowAvailable != 1 || RowUpdated != 5 {
		t.Error("row numbers must match the LSV 2.4 table")
	}
}
