package progress

import (
	"math"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
	"pgregory.net/rapid"
)

var (
	genStatus = rapid.SampledFrom([]string{StatusTrue, StatusFalse, "Unknown"})
	genReason = rapid.SampledFrom([]string{ReasonAvailable, ReasonPaused, ReasonPartitionAvailable,
		ReasonDeadlineExceeded, ReasonUpdated, "", "SomethingElse"})
	genMessage = rapid.SampledFrom([]string{"", MessageUpdated, TimedOutMessage(v1), TimedOutMessage(v2), "free text"})
	genRev     = rapid.SampledFrom([]string{v1, v2, "web-v3"})
	genPDS     = rapid.OneOf(
		rapid.Just[*int32](nil),
		rapid.Just(i32(NoDeadline)),
		rapid.Just(i32(NoDeadline-1)),
		rapid.Map(rapid.Int32Range(-5, 100_000), func(v int32) *int32 { return &v }),
	)
	genCount = rapid.OneOf(rapid.Int32Range(0, 5), rapid.Int32Range(-2, 12), rapid.Int32())
)

// genTime returns an instant within a few days of t0 (with sub-second parts), or
// the zero time.
func genTime(t *rapid.T, label string) time.Time {
	if rapid.IntRange(0, 20).Draw(t, label+"Zero") == 0 {
		return time.Time{}
	}
	return t0.Add(time.Duration(rapid.Int64Range(-3*24*3600e9, 3*24*3600e9).Draw(t, label)))
}

func genCondition(t *rapid.T, typ string) model.CloneSetCondition {
	return model.CloneSetCondition{
		Type: typ, Status: genStatus.Draw(t, "status"), Reason: genReason.Draw(t, "reason"),
		Message: genMessage.Draw(t, "message"), LastUpdateTime: genTime(t, "lut"), LastTransitionTime: genTime(t, "ltt"),
	}
}

// genInput draws an arbitrary Input, reachable or not. maxProgressing bounds the
// number of Progressing conditions in the list.
func genInput(t *rapid.T, maxProgressing int) Input {
	var conds []model.CloneSetCondition
	nProg := 0
	for range rapid.IntRange(0, 5).Draw(t, "nConds") {
		typ := rapid.SampledFrom([]string{model.ConditionProgressing, model.ConditionFailedScale,
			model.ConditionFailedUpdate, "Other"}).Draw(t, "type")
		if typ == model.ConditionProgressing {
			if nProg == maxProgressing {
				continue
			}
			nProg++
		}
		conds = append(conds, genCondition(t, typ))
	}
	return Input{
		HasRollingUpdate:         rapid.Bool().Draw(t, "rolling"),
		Paused:                   rapid.Bool().Draw(t, "paused"),
		ProgressDeadlineSeconds:  genPDS.Draw(t, "pds"),
		SpecReplicas:             rapid.Ptr(genCount, true).Draw(t, "spec"),
		Replicas:                 genCount.Draw(t, "replicas"),
		UpdatedReplicas:          genCount.Draw(t, "updated"),
		UpdatedAvailableReplicas: genCount.Draw(t, "updatedAvailable"),
		ExpectedUpdatedReplicas:  genCount.Draw(t, "expected"),
		PartitionUnparsable:      rapid.Bool().Draw(t, "unparsable"),
		CurrentRevision:          genRev.Draw(t, "current"),
		UpdateRevision:           genRev.Draw(t, "update"),
		Conditions:               conds,
		Now:                      t0.Add(time.Duration(rapid.Int64Range(-24*3600e9, 24*3600e9).Draw(t, "now"))),
	}
}

func TestPropertyEvaluate(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := genInput(t, 1)
		snapshot := append([]model.CloneSetCondition(nil), in.Conditions...)
		r1 := Evaluate(in)
		copied := in
		copied.Conditions = append([]model.CloneSetCondition(nil), in.Conditions...)
		r2 := Evaluate(copied)
		if !resultsEqual(r1, r2) {
			t.Fatalf("not deterministic:\n%+v\n%+v", r1, r2)
		}
		if !condsEqual(in.Conditions, snapshot) {
			t.Fatalf("input modified: %s, was %s", fmtConds(in.Conditions), fmtConds(snapshot))
		}
		n := len(progressingOf(r1.Conditions))
		if n > 1 {
			t.Fatalf("%d Progressing conditions: %s", n, fmtConds(r1.Conditions))
		}
		if on := Tracking(in.ProgressDeadlineSeconds); (n == 1) != on || (r1.Row == RowOff) == on {
			t.Fatalf("tracking %t but %d Progressing conditions, row %s", on, n, r1.Row)
		}
		if r1.Requeue > 0 && r1.Row != RowUpdated {
			t.Fatalf("requeue %v for row %s", r1.Requeue, r1.Row)
		}
		// Unless the kept condition's lastUpdateTime lies in the future (clock skew),
		// the request never exceeds the full deadline plus one second.
		prev, hasPrev := FindCondition(in.Conditions, model.ConditionProgressing)
		if r1.Row == RowUpdated && (!hasPrev || !prev.LastUpdateTime.After(in.Now)) {
			if limit := time.Duration(*in.ProgressDeadlineSeconds)*time.Second + time.Second; r1.Requeue > limit {
				t.Fatalf("requeue %v exceeds the deadline + 1s (%v)", r1.Requeue, limit)
			}
		}
		if !condsEqual(nonProgressing(r1.Conditions), nonProgressing(in.Conditions)) {
			t.Fatalf("other conditions changed: %s -> %s", fmtConds(in.Conditions), fmtConds(r1.Conditions))
		}
	})
}

// With duplicate Progressing conditions in the input (not produced by the
// controller), a write leaves exactly one and a kept condition leaves the list as
// it was.
func TestPropertyEvaluateDuplicates(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := genInput(t, math.MaxInt)
		r := Evaluate(in)
		nIn, nOut := len(progressingOf(in.Conditions)), len(progressingOf(r.Conditions))
		if !Tracking(in.ProgressDeadlineSeconds) {
			if nOut != 0 {
				t.Fatalf("tracking off left %d Progressing conditions", nOut)
			}
			return
		}
		if nOut != 1 && !(nOut == nIn && condsEqual(in.Conditions, r.Conditions)) {
			t.Fatalf("%d Progressing conditions in, %d out: %s", nIn, nOut, fmtConds(r.Conditions))
		}
	})
}
