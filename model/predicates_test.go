package model

import (
	"testing"
	"time"

	"pgregory.net/rapid"
)

// Readiness answers as IsStatusReady and IsUpdateReady, whatever the
// conditions (repeated types, absent or zero transition times), the phase and
// minReadySeconds.
func TestPropReadinessMatchesPredicates(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	rapid.Check(t, func(t *rapid.T) {
		p := &Pod{}
		p.Status.Phase = rapid.SampledFrom([]string{PodRunning, PodPending, PodUnknown, PodFailed, ""}).Draw(t, "phase")
		for i, n := 0, rapid.IntRange(0, 4).Draw(t, "conditions"); i < n; i++ {
			c := PodCondition{
				Type:   rapid.SampledFrom([]string{ConditionReady, ConditionInPlaceUpdateReady, "Other"}).Draw(t, "type"),
				Status: rapid.SampledFrom([]string{"True", "False", "Unknown"}).Draw(t, "status"),
			}
			if off := rapid.IntRange(-1, 40).Draw(t, "ago"); off >= 0 {
				c.LastTransitionTime = now.Add(-time.Duration(off) * time.Second)
			}
			p.Status.Conditions = append(p.Status.Conditions, c)
		}
		m := int32(rapid.IntRange(0, 30).Draw(t, "minReadySeconds"))
		statusReady, updateReady := p.Readiness(m, now)
		if want := p.IsStatusReady(); statusReady != want {
			t.Fatalf("statusReady = %v, IsStatusReady = %v", statusReady, want)
		}
		if want := p.IsUpdateReady(m, now); updateReady != want {
			t.Fatalf("updateReady = %v, IsUpdateReady = %v", updateReady, want)
		}
	})
}
