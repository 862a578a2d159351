package main

import (
	"os"
	"strings"
	"testing"

	"github.com/clonecore/cloneset/internal/exampletest"
)

func TestScaleDownByThree(t *testing.T) {
	var out strings.Builder
	if err := run(&out, nil, "scenario.yaml", 3); err != nil {
		t.Fatal(err)
	}
	want := `CloneSet default/web: replicas 6 -> 3

The next reconcile removes:
  - web-c (deleted: scale in)
  - web-d (deleted: scale in)
  - web-e (deleted: scale in)

Budget: 3 pods to remove, 0 of them from old revisions; ready pods that may be deleted now: 2
(pods that are not ready are never charged to that budget)

Deletion ranking (first = deleted first):
  1. web-c    it has no node yet and the next pod has one
  2. web-d    it is not available and the next pod is
  3. web-e    its pod-deletion-cost annotation is lower
  4. web-a    it shares its node (or topology domain) with more pods of the CloneSet
  5. web-f    it became ready more recently
  6. web-b    the last pod of the ranking
(each reason is the key that put the pod before the next one; with a partition,
 the planner ranks old-revision and updated pods separately)
`
	if got := out.String(); got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
}

// When pods are not yet available the ready budget shrinks: the plan deletes
// fewer pods than asked this round and says why.
func TestScaleDownWaitsForBudget(t *testing.T) {
	var out strings.Builder
	// Same pods, but minReadySeconds 5h: no ready pod counts as available yet,
	// so deleteReadyLimit is max(1 + 3 - 6, 0) = 0 and only unready pods go.
	in := strings.NewReader(strings.Replace(scenario(t), "  replicas: 6\n", "  replicas: 6\n  minReadySeconds: 18000\n", 1))
	if err := run(&out, in, "-", 3); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"replicas 6 -> 3",
		"removes:\n  - web-c (deleted: scale in)\n  - web-d (deleted: scale in)\n\n",
		"ready pods that may be deleted now: 0",
		"Why not more this round:\n",
		"  - scale-in waits for web-e: deleteReadyLimit is 0 because 6 pods are not yet available (maxUnavailable 1, minReadySeconds 18000)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

func TestScaleDownErrors(t *testing.T) {
	var out strings.Builder
	if err := run(&out, nil, "scenario.yaml", -1); err == nil {
		t.Error("-by -1 accepted")
	}
	if err := run(&out, nil, "missing.yaml", 1); err == nil {
		t.Error("a missing file is not an error")
	}
	if err := run(&out, nil, "scenario.yaml", 10); err != nil || !strings.Contains(out.String(), "replicas 6 -> 0") {
		t.Errorf("scaling below zero: err %v, output %q", err, out.String())
	}
}

func scenario(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	if err := readFile(&b, "scenario.yaml"); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func readFile(w *strings.Builder, name string) error {
	data, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	w.Write(data)
	return nil
}

// The example runs from the repository root as the README and its package
// doc show it, with the bundled scenario when -f is not given.
func TestRunsAsDocumented(t *testing.T) {
	outputs := exampletest.RunAsDocumented(t, "scaledown", realMain)
	if got := outputs["go run ./examples/scaledown"]; !strings.HasPrefix(got, "CloneSet default/web: replicas 6 -> 3\n") {
		t.Errorf("without -f:\n%s", got)
	}
}

func TestUsage(t *testing.T) {
	var out, errs strings.Builder
	if code := realMain([]string{"-by", "x"}, nil, &out, &errs); code != 2 || !strings.Contains(errs.String(), "invalid value") {
		t.Errorf("bad -by: exit %d, stderr %q", code, errs.String())
	}
	if code := realMain([]string{"-f", "missing.yaml"}, nil, &out, &errs); code != 1 || !strings.Contains(errs.String(), "scaledown: ") {
		t.Errorf("missing file: exit %d, stderr %q", code, errs.String())
	}
}
