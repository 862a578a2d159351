package model

import (
	"testing"
	"time"
)

// Readiness answers as IsStatusReady and IsUpdateReady for every phase,
// minReadySeconds and list of up to three conditions drawn from: type Ready,
// InPlaceUpdateReady or another; status True, False or Unknown; transition
// time absent, old or recent (repeated types included). Exhaustive: 306,600
// cases.
func TestReadinessMatchesPredicates(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	var options []PodCondition
	for _, typ := range []string{ConditionReady, ConditionInPlaceUpdateReady, "Other"} {
		for _, status := range []string{"True", "False", "Unknown"} {
			for _, at := range []time.Time{{}, now.Add(-time.Hour), now.Add(-5 * time.Second)} {
				options = append(options, PodCondition{Type: typ, Status: status, LastTransitionTime: at})
			}
		}
	}
	var lists [][]PodCondition
	var grow func(prefix []PodCondition)
	grow = func(prefix []PodCondition) {
		lists = append(lists, prefix)
		if len(prefix) == 3 {
			return
		}
		for _, c := range options {
			grow(append(append([]PodCondition(nil), prefix...), c))
		}
	}
	grow(nil)
	cases, readyAndUpdateReady, readyOnly := 0, 0, 0
	for _, phase := range []string{PodRunning, PodPending, PodUnknown, PodFailed, ""} {
		for _, m := range []int32{0, 10, 7200} {
			for _, conds := range lists {
				p := &Pod{Status: PodStatus{Phase: phase, Conditions: conds}}
				statusReady, updateReady := p.Readiness(m, now)
				if want := p.IsStatusReady(); statusReady != want {
					t.Fatalf("phase %q, minReadySeconds %d, %+v: statusReady = %v, IsStatusReady = %v", phase, m, conds, statusReady, want)
				}
				if want := p.IsUpdateReady(m, now); updateReady != want {
					t.Fatalf("phase %q, minReadySeconds %d, %+v: updateReady = %v, IsUpdateReady = %v", phase, m, conds, updateReady, want)
				}
				cases++
				switch {
				case statusReady && updateReady:
					readyAndUpdateReady++
				case statusReady:
					readyOnly++
				}
			}
		}
	}
	if cases != 306600 || readyAndUpdateReady == 0 || readyOnly == 0 {
		t.Fatalf("%d cases, %d ready and update-ready, %d ready only: the table does not reach every answer", cases, readyAndUpdateReady, readyOnly)
	}
}
