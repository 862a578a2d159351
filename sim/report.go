package sim

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// JSON renders the result as indented JSON (the `simulate -o json` output).
func (r *Result) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// elapsed renders a number of seconds since the start as "1m05.2s".
func elapsed(sec float64) string {
	d := time.Duration(sec * float64(time.Second)).Round(10 * time.Millisecond)
	if d == 0 {
		return "0s"
	}
	return d.String()
}

// relabel replaces revision names by their short labels in a line.
func (r *Result) relabel(s string) string {
	for i := len(r.Revisions) - 1; i >= 0; i-- {
		rev := r.Revisions[i]
		s = strings.ReplaceAll(s, rev.Name, rev.Label)
	}
	return s
}

// PodsText renders the pod counts of a round: "r1 3/2 [Normal 2, Updating 1] · r2 ...",
// each revision as total/available with its lifecycle states.
func (c PodCounts) PodsText() string {
	if c.Active == 0 && c.Terminating == 0 && c.Terminal == 0 {
		return "no pods"
	}
	var parts []string
	for _, rc := range c.Revisions {
		var sts []string
		for _, st := range rc.States {
			sts = append(sts, fmt.Sprintf("%s %d", st.State, st.Count))
		}
		parts = append(parts, fmt.Sprintf("%s %d/%d [%s]", rc.Label, rc.Total, rc.Available, strings.Join(sts, ", ")))
	}
	if c.Terminating > 0 {
		parts = append(parts, fmt.Sprintf("terminating %d", c.Terminating))
	}
	if c.Terminal > 0 {
		parts = append(parts, fmt.Sprintf("failed %d", c.Terminal))
	}
	return strings.Join(parts, " · ")
}

// WriteText writes the human-readable report: the outcome, the revisions, the
// timeline (per round: time, pods by revision and state, the changes and world
// events that led to it, the actions taken), the final state and the
// invariants. With verbose false, rounds in which nothing happened are
// summarized as a count.
func (r *Result) WriteText(w io.Writer, verbose bool) error {
	b := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("Simulation of CloneSet %s (seed %d): %s\n", r.CloneSet, r.Seed, r.Outcome)
	p("  %s\n", r.Reason)
	if !r.Start.IsZero() {
		p("  virtual time starts at %s\n", r.Start.UTC().Format(time.RFC3339Nano))
	}
	if r.Description != "" {
		p("  scenario: %s\n", r.Description)
	}
	p("\nRevisions\n")
	for _, rev := range r.Revisions {
		p("  %-3s %-22s %s\n", rev.Label, rev.Name, rev.Images)
	}
	p("\nTimeline (pods: revision total/available [lifecycle states])\n")
	quiet := 0
	flush := func() {
		if quiet > 0 {
			p("        ... %d quiet %s (requeues and watch events, nothing to do)\n", quiet, plural(quiet, "round", "rounds"))
			quiet = 0
		}
	}
	for _, s := range r.Steps {
		faults := faultLines(s.World)
		interesting := verbose || len(s.Events) > 0 || len(s.Actions) > 0 || len(s.Violations) > 0 || len(s.Failures) > 0 ||
			len(faults) > 0 || s.Index == 0 || progressChanged(r.Steps, s.Index)
		if !interesting {
			quiet++
			continue
		}
		flush()
		p("  %4d  %-9s %s\n", s.Index, elapsed(s.Elapsed), r.relabel(s.Pods.PodsText()))
		for _, e := range s.Events {
			p("        change: %s\n", e)
		}
		world := faults
		if verbose {
			world = s.World
		}
		for _, x := range world {
			p("        world:  %s\n", r.relabel(x))
		}
		for _, a := range s.Actions {
			p("        -> %s\n", r.relabel(a))
		}
		for _, f := range s.Failures {
			p("        !! %s\n", r.relabel(f))
		}
		for _, n := range s.Notes {
			if strings.Contains(n, "quirk") {
				p("        note: %s\n", r.relabel(n))
			}
		}
		if st := s.Status.Progressing; st != "" && (s.Index == 0 || progressChanged(r.Steps, s.Index)) {
			p("        Progressing %s\n", st)
		}
		for _, v := range s.Violations {
			p("        VIOLATION %s: %s\n", v.Invariant, v.Message)
		}
	}
	flush()

	f := r.Final
	p("\nFinal state at %s: spec.replicas %d\n", elapsed(f.Elapsed), f.Replicas)
	p("  %-22s %-8s %-16s %-8s %-6s %-9s %s\n", "POD", "REVISION", "STATE", "PHASE", "READY", "AVAILABLE", "NODE")
	for _, pod := range f.Pods {
		state := pod.State
		if state == "" {
			state = "-"
		}
		if pod.Deleting {
			state += " (deleting)"
		}
		p("  %-22s %-8s %-16s %-8s %-6v %-9v %s\n", pod.Name, pod.Revision, state, pod.Phase, pod.Ready, pod.Available, pod.Node)
	}
	st := f.Status
	p("  status: replicas %d, ready %d, available %d, updated %d (available %d), expected updated %d\n",
		st.Replicas, st.ReadyReplicas, st.AvailableReplicas, st.UpdatedReplicas, st.UpdatedAvailableReplicas, st.ExpectedUpdatedReplicas)
	p("  revisions: current %s, update %s", r.relabel(st.CurrentRevision), r.relabel(st.UpdateRevision))
	if st.Progressing != "" {
		p("; Progressing %s", st.Progressing)
	}
	p("\n")

	p("\nInvariants\n")
	for _, inv := range r.Invariants {
		switch {
		case len(inv.Violations) > 0:
			p("  FAILED  %-30s %d of %d checks\n", inv.Name, len(inv.Violations), inv.Checks)
			for _, v := range inv.Violations {
				p("          %s\n", r.relabel(v.String()))
			}
		case inv.Waived != "":
			p("  n/a     %-30s %s\n", inv.Name, r.relabel(inv.Waived))
		default:
			p("  ok      %-30s %d %s\n", inv.Name, inv.Checks, plural(inv.Checks, "check", "checks"))
		}
	}
	if len(r.Quirks) > 0 {
		p("\nUpstream quirks seen\n")
		for _, q := range r.Quirks {
			p("  - %s\n", r.relabel(q))
		}
	}
	p("\nDigest %s\n", r.Digest)
	return b.Flush()
}

// faultLines picks the world events that are faults: lost nodes, evictions,
// failures, crashes.
func faultLines(world []string) []string {
	var out []string
	for _, w := range world {
		if strings.HasSuffix(w, " lost") || strings.Contains(w, "evicted") || strings.Contains(w, "failed (node") ||
			strings.Contains(w, "crashed") || strings.Contains(w, "garbage collector removes") {
			out = append(out, w)
		}
	}
	return out
}

func progressChanged(steps []Step, i int) bool {
	return i > 0 && steps[i].Status.Progressing != steps[i-1].Status.Progressing
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// KeyEvents lists the moments worth marking on a timeline: the scripted
// changes, changes of the Progressing condition, faults, and violations, in
// time order.
func (r *Result) KeyEvents() []KeyEvent {
	var out []KeyEvent
	for i, s := range r.Steps {
		for _, e := range s.Events {
			out = append(out, KeyEvent{Elapsed: s.Elapsed, Kind: "change", Text: e})
		}
		for _, w := range s.World {
			if strings.HasPrefix(w, "node ") && strings.HasSuffix(w, " lost") {
				out = append(out, KeyEvent{Elapsed: s.Elapsed, Kind: "fault", Text: w})
			}
		}
		if i > 0 && progressChanged(r.Steps, i) && s.Status.Progressing != "" {
			kind := "progress"
			if strings.HasPrefix(s.Status.Progressing, "False/") {
				kind = "alarm"
			}
			out = append(out, KeyEvent{Elapsed: s.Elapsed, Kind: kind, Text: progressLabel(s.Status.Progressing)})
		}
		for _, v := range s.Violations {
			out = append(out, KeyEvent{Elapsed: s.Elapsed, Kind: "alarm", Text: "violation: " + v.Invariant})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Elapsed < out[j].Elapsed })
	return out
}

// KeyEvent is a marked moment of a run.
type KeyEvent struct {
	// Elapsed is the time since the start, in seconds.
	Elapsed float64 `json:"elapsedSeconds"`
	// Kind is "change", "progress", "fault" or "alarm".
	Kind string `json:"kind"`
	// Text describes it.
	Text string `json:"text"`
}

// progressLabel shortens a Progressing "status/reason" for a timeline marker.
func progressLabel(s string) string {
	switch s {
	case "True/CloneSetAvailable":
		return "available"
	case "True/CloneSetUpdated":
		return "progressing"
	case "True/ProgressPartitionAvailable":
		return "partition available"
	case "True/CloneSetPaused":
		return "paused"
	case "False/ProgressDeadlineExceeded":
		return "ProgressDeadlineExceeded"
	}
	return "Progressing " + s
}
