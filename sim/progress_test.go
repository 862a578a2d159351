package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
	"pgregory.net/rapid"
)

// Issue 12, the simulation half: progressDeadlineSeconds over whole rollouts.
//
// "The rollout started" is measured as upstream measures it: the instant the
// Progressing condition entered reason CloneSetUpdated after the template
// change (its lastUpdateTime), because that is what the deadline counts from
// (LSV 2.4). A CloneSet that has rested (Available, Paused, PartitionAvailable)
// for longer than the deadline times out at once when it leaves that reason:
// upstream's stale-lastUpdateTime quirk (LSV 7.3, 7.4), which the plan names
// in its notes.

const (
	reasonUpdated  = "True/CloneSetUpdated"
	reasonExceeded = "False/ProgressDeadlineExceeded"
	staleNote      = "stale lastUpdateTime: "
)

// progressing returns the Progressing condition of a step's plan.
func progressing(s Step) (reason string, lut time.Time) {
	for _, c := range s.Plan.Status.Conditions {
		if c.Type == model.ConditionProgressing {
			return c.Status + "/" + c.Reason, parseTime(c.LastUpdateTime)
		}
	}
	return "", time.Time{}
}

func hasNote(s Step, prefix string) bool {
	for _, n := range s.Notes {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	return false
}

// rolloutTimes finds, after the change at `change` seconds, the round the
// rollout started (Progressing entered CloneSetUpdated), the first round
// reporting ProgressDeadlineExceeded, and the first round at rest again
// (Available or PartitionAvailable). -1 when not found.
func rolloutTimes(res *Result, change float64) (start, exceeded, done int) {
	start, exceeded, done = -1, -1, -1
	for i, s := range res.Steps {
		if s.Elapsed < change {
			continue
		}
		r, _ := progressing(s)
		switch {
		case r == reasonUpdated && start < 0:
			start = i
		case r == reasonExceeded && exceeded < 0:
			exceeded = i
		case (r == "True/CloneSetAvailable" || r == "True/ProgressPartitionAvailable") && (start >= 0 || exceeded >= 0) && done < 0:
			done = i
		}
	}
	return start, exceeded, done
}

// checkNeverReady states the first property: a rollout whose new pods never
// become ready reports ProgressDeadlineExceeded no earlier than the deadline
// after the rollout started, and promptly after it; or at once, through the
// stale-lastUpdateTime quirk named in the notes, when the CloneSet had rested
// longer than the deadline.
// stickyNote starts the planner's note for a ProgressDeadlineExceeded kept across
// a new update revision.
const stickyNote = "sticky ProgressDeadlineExceeded"

func checkNeverReady(t interface {
	Helper()
	Fatalf(string, ...any)
	Errorf(string, ...any)
}, res *Result, change float64, pds int32, reconcile time.Duration) {
	t.Helper()
	start, exceeded, done := rolloutTimes(res, change)
	if exceeded < 0 {
		t.Fatalf("no ProgressDeadlineExceeded in %d rounds (outcome %s: %s)", len(res.Steps), res.Outcome, res.Reason)
	}
	if done >= 0 && done < exceeded {
		t.Errorf("the never-ready rollout came to rest at step %d", done)
	}
	ex := res.Steps[exceeded]
	if start < 0 || start > exceeded {
		prev := res.Steps[exceeded-1]
		if r, _ := progressing(prev); r == "False/ProgressDeadlineExceeded" {
			// The rollout before the change had already timed out: the
			// condition is sticky across the new revision (LSV 2.4, 8.1), and
			// the plan says so.
			if !hasNote(ex, stickyNote) {
				t.Errorf("sticky ProgressDeadlineExceeded at %vs not named in the notes: %v", ex.Elapsed, ex.Notes)
			}
			return
		}
		if r, lut := progressing(prev); r == "True/CloneSetUpdated" {
			// The rollout before the change (for example the CloneSet's first
			// one) was still in progress and its own deadline passed: an
			// ordinary timeout (LSV 2.4 row 4), not the stale-time quirk.
			if !lut.Add(time.Duration(pds) * time.Second).Before(ex.Time) {
				t.Errorf("timeout at %s although the rollout in progress (lastUpdateTime %s) is within the %ds deadline", ex.Time, lut, pds)
			}
			if hasNote(ex, staleNote) {
				t.Errorf("an ordinary timeout is named as the stale-lastUpdateTime quirk: %v", ex.Notes)
			}
			return
		}
		// Timed out at once after a resting reason: only the quirk may do
		// that, at the change.
		if ex.Elapsed != change && !hasNote(ex, staleNote) {
			t.Errorf("ProgressDeadlineExceeded at %vs without a rollout start and without the stale-lastUpdateTime note: %v", ex.Elapsed, ex.Notes)
		}
		if !hasNote(ex, staleNote) {
			t.Errorf("immediate timeout at %vs not named in the notes: %v", ex.Elapsed, ex.Notes)
		}
		r, lut := progressing(prev)
		if !lut.Add(time.Duration(pds) * time.Second).Before(ex.Time) {
			t.Errorf("immediate timeout although the previous condition %s (lastUpdateTime %s) is within the %ds deadline of %s", r, lut, pds, ex.Time)
		}
		return
	}
	_, lut := progressing(res.Steps[start])
	deadline := lut.Add(time.Duration(pds) * time.Second)
	if !ex.Time.After(deadline) {
		t.Errorf("ProgressDeadlineExceeded at %s, not after the deadline %s (rollout started %s)", ex.Time, deadline, lut)
	}
	if late := ex.Time.Sub(deadline); late > time.Second+reconcile+time.Second {
		t.Errorf("ProgressDeadlineExceeded only %s after the deadline", late)
	}
	if !strings.Contains(condMessage(ex), res.Steps[start].Status.UpdateRevision) {
		t.Errorf("message %q does not name the update revision %s", condMessage(ex), res.Steps[start].Status.UpdateRevision)
	}
}

func condMessage(s Step) string {
	for _, c := range s.Plan.Status.Conditions {
		if c.Type == model.ConditionProgressing {
			return c.Message
		}
	}
	return ""
}

func TestProgressNeverReadyRollout(t *testing.T) {
	for _, policy := range []string{model.PolicyReCreate, model.PolicyInPlaceIfPossible} {
		t.Run(policy, func(t *testing.T) {
			scn := webScenario(webOptions{replicas: 3, policy: policy, pds: 90, maxUnav: intOrPct("1")})
			cfg := DefaultConfig()
			cfg.Events = []Event{at(40, Change{Image: "web:broken"})}
			cfg.Faults.NeverReady.Images = []string{"web:broken"}
			cfg.MaxSteps = 400
			res := mustRun(t, scn, cfg)
			start, exceeded, _ := rolloutTimes(res, 40)
			if start < 0 || exceeded < 0 || res.Steps[start].Elapsed != 40 {
				t.Fatalf("rollout start %d, exceeded %d", start, exceeded)
			}
			// Deadline 40 + 90 s; the R1 requeue (d + 1 s) brings the round at
			// 131 s, plus the work-queue latency.
			if got := res.Steps[exceeded].Elapsed; got != 131.01 {
				t.Errorf("ProgressDeadlineExceeded at %vs, want 131.01 s", got)
			}
			checkNeverReady(t, res, 40, 90, cfg.Delays.Reconcile)
		})
	}
}

func TestProgressStaleAvailableTimesOutAtOnce(t *testing.T) {
	// Available at about 10 s; the template changes at 400 s, more than the
	// 60 s deadline later: upstream times out at the first round (LSV 7.3).
	scn := webScenario(webOptions{replicas: 2, pds: 60})
	cfg := DefaultConfig()
	cfg.Events = []Event{at(400, Change{Image: "web:v2"})}
	res := mustRun(t, scn, cfg)
	var first Step
	for _, s := range res.Steps {
		if s.Elapsed >= 400 {
			first = s
			break
		}
	}
	if r, _ := progressing(first); r != reasonExceeded || !hasNote(first, staleNote) {
		t.Errorf("at the change: %s, notes %v; want %s named as the stale-lastUpdateTime quirk", r, first.Notes, reasonExceeded)
	}
	// Sticky until the rollout completes, then Available again.
	last := res.Steps[len(res.Steps)-1]
	if r, _ := progressing(last); r != "True/CloneSetAvailable" {
		t.Errorf("final Progressing %s", r)
	}
}

func TestProgressPauseResume(t *testing.T) {
	const pds = 60
	base := webScenario(webOptions{replicas: 4, pds: pds, maxUnav: intOrPct("1"), grace: 10})
	run := func(resume int) *Result {
		cfg := DefaultConfig()
		paused, resumed := true, false
		cfg.Events = []Event{
			at(30, Change{Image: "web:v2"}),
			at(40, Change{Paused: &paused}),
			at(resume, Change{Paused: &resumed}),
		}
		return mustRun(t, base, cfg)
	}
	stepAt := func(res *Result, sec float64) Step {
		for _, s := range res.Steps {
			if s.Elapsed >= sec {
				return s
			}
		}
		t.Fatalf("no step at %vs", sec)
		return Step{}
	}

	// Paused at 40 s (mid-rollout); resumed more than the deadline later.
	late := run(40 + pds + 50)
	if r, _ := progressing(stepAt(late, 41)); r != "True/CloneSetPaused" {
		t.Errorf("while paused: %s", r)
	}
	at := stepAt(late, 40+pds+50)
	if r, _ := progressing(at); r != reasonExceeded {
		t.Errorf("resumed after the deadline: %s, want %s at once", r, reasonExceeded)
	}
	found := false
	for _, n := range at.Notes {
		if strings.HasPrefix(n, staleNote) && strings.Contains(n, `"CloneSetPaused"`) {
			found = true
		}
	}
	if !found {
		t.Errorf("the immediate timeout is not named in the notes: %v", at.Notes)
	}

	// Resumed within the deadline: the deadline restarts in full, no timeout.
	early := run(70)
	if r, lut := progressing(stepAt(early, 70)); r != reasonUpdated || !lut.Equal(t0.Add(70*time.Second)) {
		t.Errorf("resumed in time: %s since %s, want %s since 70 s", r, lut, reasonUpdated)
	}
	for _, s := range early.Steps {
		if r, _ := progressing(s); r == reasonExceeded {
			t.Errorf("step %d (%vs): %s although the rollout completed in time", s.Index, s.Elapsed, r)
		}
	}
}

// TestPropertyProgressDeadline runs random never-ready rollouts and random
// healthy ones against the two deadline properties.
func TestPropertyProgressDeadline(t *testing.T) {
	runs := 0
	rapid.Check(t, func(rt *rapid.T) {
		replicas := int32(rapid.IntRange(1, 5).Draw(rt, "replicas"))
		pds := int32(rapid.IntRange(20, 240).Draw(rt, "pds"))
		policy := rapid.SampledFrom([]string{model.PolicyReCreate, model.PolicyInPlaceIfPossible}).Draw(rt, "policy")
		surge := rapid.IntRange(0, 1).Draw(rt, "maxSurge")
		o := webOptions{replicas: replicas, policy: policy, pds: pds, maxSurge: intOrPct(string(rune('0' + surge))), maxUnav: intOrPct("1")}
		o.minReady = int32(rapid.IntRange(0, 5).Draw(rt, "minReady"))
		if o.minReady >= pds {
			o.minReady = 0
		}
		scn := webScenario(o)
		cfg := DefaultConfig()
		cfg.Seed = rapid.Uint64().Draw(rt, "seed")
		cfg.Delays.Ready = Seconds(rapid.IntRange(0, 10).Draw(rt, "ready.min"), rapid.IntRange(0, 20).Draw(rt, "ready.max"))
		cfg.Delays.Reconcile = time.Duration(rapid.IntRange(0, 2).Draw(rt, "reconcile")) * time.Second
		change := rapid.IntRange(1, 400).Draw(rt, "change")
		broken := rapid.Bool().Draw(rt, "broken")
		img := "web:v2"
		if broken {
			img = "web:broken"
			cfg.Faults.NeverReady.Images = []string{img}
		}
		cfg.Events = []Event{at(change, Change{Image: img})}
		cfg.MaxSteps = 1500
		res, err := Verify(scn, cfg)
		if err != nil {
			rt.Fatal(err)
		}
		runs++
		for _, v := range res.Violations() {
			rt.Errorf("violation: %v", v)
		}
		if broken {
			checkNeverReady(rt, res, float64(change), pds, cfg.Delays.Reconcile)
			return
		}
		// A rollout that completes in time never reports the deadline exceeded.
		start, exceeded, done := rolloutTimes(res, float64(change))
		if start < 0 || done < 0 {
			return // timed out at once (stale quirk), checked by the other branch's rules
		}
		_, lut := progressing(res.Steps[start])
		if res.Steps[done].Time.After(lut.Add(time.Duration(pds) * time.Second)) {
			return // it did not complete in time
		}
		if exceeded >= 0 && exceeded < done {
			rt.Errorf("rollout started %s, done %s within the %ds deadline, but ProgressDeadlineExceeded at step %d (%s)",
				lut, res.Steps[done].Time, pds, exceeded, res.Steps[exceeded].Time)
		}
	})
	t.Logf("%d progress-deadline rollouts simulated (each twice, for determinism)", runs)
}

// parseTime reads an RFC 3339 plan time; the zero time when empty.
func parseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339, s)
	return t
}
