package kruisee2e

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// KruiseVersion is the version of OpenKruise whose e2e suite is run: the
// peer module (../kruisepeer) requires exactly it.
const KruiseVersion = "v1.9.0"

// LabelFilter is the ginkgo label filter that selects the suite's CloneSet
// specs.
const LabelFilter = "CloneSet && workload"

// WantSpecs is how many specs LabelFilter selects in kruise v1.9.0's suite:
// 21 in test/e2e/apps/v1alpha1 and 22 in test/e2e/apps/v1beta1.
const WantSpecs = 43

// FlakeAttempts is how many times ginkgo runs a spec that fails
// (--flake-attempts) before it counts as failed. A spec that passes on a
// later attempt is counted as passed and named in the summary as such,
// with its first failure. Some of the suite's checks race the
// controller's writes: "specific scale down with lifecycle and then scale
// up, when scalingExcludePreparingDelete is enabled" reads a pod's
// lifecycle label, then the CloneSet's Progressing condition, which any
// controller writes in two requests (the pod, then the status); a
// controller that answers within the milliseconds of the spec's first
// poll is sometimes read between the two (docs/kruise-e2e.md).
const FlakeAttempts = 2

// Outcome is how a spec ended, as ginkgo reports it.
type Outcome string

// The outcomes a summary counts. Ginkgo's other states (panicked,
// interrupted, aborted, timedout) count as failed.
const (
	Passed  Outcome = "passed"
	Failed  Outcome = "failed"
	Skipped Outcome = "skipped"
)

// Spec is one CloneSet spec's result.
type Spec struct {
	// Name is "[<api version>] <container texts> <spec text>", e.g.
	// "[v1beta1] CloneSet Scaling scales in normal cases".
	Name string
	// State is ginkgo's state for the spec: passed, failed, skipped,
	// panicked, interrupted, aborted, timedout.
	State string
	// Failure is the failure's message and location (empty unless the spec
	// failed).
	Failure string
	// Seconds is the spec's run time.
	Seconds float64
	// Attempts is how many times ginkgo ran the spec (at most
	// FlakeAttempts; 1 when it passed at once).
	Attempts int
	// EarlierFailures are the failures of the attempts before the last,
	// as Failure.
	EarlierFailures []string
}

// PassedOnARetry reports whether the spec passed after failing first.
func (s Spec) PassedOnARetry() bool { return s.Outcome() == Passed && s.Attempts > 1 }

// Outcome folds the spec's state into the three a summary counts.
func (s Spec) Outcome() Outcome {
	switch s.State {
	case "passed":
		return Passed
	case "skipped", "pending":
		return Skipped
	}
	return Failed
}

// The parts of ginkgo's JSON report (--json-report) read here.
type (
	suiteReport struct {
		SpecReports []specReport
	}
	specReport struct {
		ContainerHierarchyTexts  []string
		ContainerHierarchyLabels [][]string
		LeafNodeType             string
		LeafNodeText             string
		LeafNodeLabels           []string
		LeafNodeLocation         struct{ FileName string }
		State                    string
		RunTime                  int64 // nanoseconds
		NumAttempts              int
		Failure                  *reportedFailure
		AdditionalFailures       []struct{ Failure reportedFailure }
	}
	reportedFailure struct {
		Message  string
		Location struct {
			FileName   string
			LineNumber int
		}
	}
)

// String is the failure's message and location.
func (f reportedFailure) String() string {
	return fmt.Sprintf("%s (%s:%d)", strings.TrimSpace(f.Message), shortPath(f.Location.FileName), f.Location.LineNumber)
}

// ReadReport reads a ginkgo JSON report and returns the CloneSet specs
// (those whose labels include both CloneSet and workload), in the
// report's order. Specs the label filter left out are not returned; a
// report without the labels' specs is an error.
func ReadReport(r io.Reader) ([]Spec, error) {
	var suites []suiteReport
	dec := json.NewDecoder(r)
	if err := dec.Decode(&suites); err != nil {
		return nil, fmt.Errorf("kruisee2e: ginkgo report: %w", err)
	}
	var specs []Spec
	for _, suite := range suites {
		for _, rep := range suite.SpecReports {
			if rep.LeafNodeType != "It" || !rep.hasLabels("CloneSet", "workload") {
				continue
			}
			s := Spec{Name: rep.name(), State: rep.State, Seconds: float64(rep.RunTime) / 1e9, Attempts: max(rep.NumAttempts, 1)}
			if rep.Failure != nil && s.Outcome() == Failed {
				s.Failure = rep.Failure.String()
			}
			// Ginkgo keeps an earlier attempt's failure among the
			// additional ones, its message starting "Failure recorded
			// during attempt N".
			for _, f := range rep.AdditionalFailures {
				if strings.HasPrefix(f.Failure.Message, "Failure recorded during attempt") {
					s.EarlierFailures = append(s.EarlierFailures, f.Failure.String())
				}
			}
			specs = append(specs, s)
		}
	}
	if len(specs) == 0 {
		return nil, fmt.Errorf("kruisee2e: the ginkgo report holds no spec labelled CloneSet and workload")
	}
	return specs, nil
}

func (r specReport) hasLabels(want ...string) bool {
	var all []string
	for _, l := range r.ContainerHierarchyLabels {
		all = append(all, l...)
	}
	all = append(all, r.LeafNodeLabels...)
	for _, w := range want {
		if !slices.Contains(all, w) {
			return false
		}
	}
	return true
}

// name is the spec's name with the API version of its file.
func (r specReport) name() string {
	parts := append(slices.Clone(r.ContainerHierarchyTexts), r.LeafNodeText)
	version := "?"
	for _, v := range []string{"v1alpha1", "v1beta1"} {
		if strings.Contains(r.LeafNodeLocation.FileName, "/apps/"+v+"/") {
			version = v
		}
	}
	return "[" + version + "] " + strings.Join(parts, " ")
}

// shortPath keeps a source path from the module's root on (the module
// cache's directories say nothing).
func shortPath(p string) string {
	if i := strings.Index(p, "/test/e2e/"); i >= 0 {
		return p[i+1:]
	}
	return p
}

// Summary counts specs by outcome.
type Summary struct {
	Passed, Failed, Skipped int
	// Failures are the failed specs, in the report's order.
	Failures []Spec
	// Retried are the specs that passed on a later attempt (counted in
	// Passed), in the report's order.
	Retried []Spec
}

// Summarize counts the specs.
func Summarize(specs []Spec) Summary {
	var s Summary
	for _, spec := range specs {
		switch spec.Outcome() {
		case Passed:
			s.Passed++
			if spec.PassedOnARetry() {
				s.Retried = append(s.Retried, spec)
			}
		case Skipped:
			s.Skipped++
		default:
			s.Failed++
			s.Failures = append(s.Failures, spec)
		}
	}
	return s
}

// Line is the summary line CI prints:
// "kruise e2e CloneSet specs (v1.9.0): P passed, F failed, S skipped of 43",
// with "P passed (R on a retry)" when R specs passed on a later attempt.
func (s Summary) Line() string {
	passed := fmt.Sprintf("%d passed", s.Passed)
	if len(s.Retried) > 0 {
		passed += fmt.Sprintf(" (%d on a retry)", len(s.Retried))
	}
	return fmt.Sprintf("kruise e2e CloneSet specs (%s): %s, %d failed, %d skipped of %d",
		KruiseVersion, passed, s.Failed, s.Skipped, WantSpecs)
}
