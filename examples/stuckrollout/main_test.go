package main

import (
	"os"
	"strings"
	"testing"

	"github.com/clonecore/cloneset/internal/exampletest"
)

func explain(t *testing.T, file string, edit func(string) string) string {
	t.Helper()
	var out strings.Builder
	if edit == nil {
		if err := run(&out, nil, file); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := run(&out, strings.NewReader(edit(string(data))), "-"); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// A crash-looping new pod holds the whole budget.
func TestUnreadyNewPod(t *testing.T) {
	got := explain(t, "unready.yaml", nil)
	want := `CloneSet prod/api: rolling update from api-5f6d7c8b9 to api-7c8d9f6b5
  pods: 5, of which 1 at the update revision (0 of them available)
  still to update: 4 pods (partition 0)
  unavailability budget of the update: 1 pod (maxUnavailable 1 + 5 pods - 5 replicas)
  unavailable now:
    - api-n1 (update revision): not ready, 14 restarts
  actions this round: none
  condition: Progressing=False (ProgressDeadlineExceeded): CloneSet revision api-7c8d9f6b5 has timed out progressing
  requeue: none; only a change to a pod or to the CloneSet wakes the controller

Why, according to the plan:
  - update budget used up: 1 of updateMaxUnavailable 1 taken by pods already unavailable at api-7c8d9f6b5 or started this round; 4 pods wait

Verdict: STUCK. 4 pods wait for the update and nothing moves this round; fix the pods named above (or the CloneSet) to unblock it.
`
	if got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
}

// Once the new pod is ready, the rollout moves again (one old pod per round).
func TestUnreadyNewPodRecovers(t *testing.T) {
	got := explain(t, "unready.yaml", func(s string) string {
		return strings.Replace(s, `status: "False", lastTransitionTime: "2026-03-01T11:00:05Z"`, `status: "True", lastTransitionTime: "2026-03-01T11:50:00Z"`, 1)
	})
	for _, want := range []string{
		"  unavailable now:\n    none\n",
		"    - RecreatePod api-o1: rolling update: recreate (policy ReCreate)\n",
		"Verdict: moving. 1 action this round, 4 pods still wait.\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

// A preDelete hook that is never released holds the budget.
func TestPreDeleteHookNeverReleased(t *testing.T) {
	got := explain(t, "prehook.yaml", nil)
	want := `CloneSet prod/api: rolling update from api-5f6d7c8b9 to api-7c8d9f6b5
  pods: 4, of which 0 at the update revision (0 of them available)
  still to update: 3 pods (partition 0)
  unavailability budget of the update: 1 pod (maxUnavailable 1 + 4 pods - 4 replicas)
  unavailable now:
    - api-o1 (old revision): PreparingDelete, held by the preDelete hook (finalizer example.com/drain still on the pod)
  actions this round: none
  requeue: none; only a change to a pod or to the CloneSet wakes the controller

Why, according to the plan:
  - 1 pod in PreparingDelete still hooked by lifecycle.preDelete: waiting for the hook to be released
  - update budget used up: 1 pod unavailable, updateMaxUnavailable 1; 3 pods wait

Verdict: STUCK. 3 pods wait for the update and nothing moves this round; fix the pods named above (or the CloneSet) to unblock it.
`
	if got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
}

// When the drainer removes its finalizer, the pod is deleted.
func TestPreDeleteHookReleased(t *testing.T) {
	got := explain(t, "prehook.yaml", func(s string) string {
		return strings.Replace(s, "    finalizers: [example.com/drain]\n", "", 1) // the first pod, api-o1
	})
	if !strings.Contains(got, "    - DeletePod api-o1: PreparingDelete pod: preDelete hook released") {
		t.Errorf("api-o1 is not deleted:\n%s", got)
	}
	if !strings.Contains(got, "Verdict: moving.") {
		t.Errorf("no progress:\n%s", got)
	}
}

func TestMissingFile(t *testing.T) {
	var out strings.Builder
	if err := run(&out, nil, "missing.yaml"); err == nil {
		t.Error("a missing file is not an error")
	}
}

// The example runs from the repository root as the README and its package
// doc show it, with the bundled scenario when -f is not given.
func TestRunsAsDocumented(t *testing.T) {
	outputs := exampletest.RunAsDocumented(t, "stuckrollout", realMain)
	if got := outputs["go run ./examples/stuckrollout"]; got != outputs["go run ./examples/stuckrollout -f examples/stuckrollout/unready.yaml"] || !strings.Contains(got, "Verdict: STUCK.") {
		t.Errorf("without -f, not the bundled unready.yaml:\n%s", got)
	}
	if got := outputs["go run ./examples/stuckrollout -f examples/stuckrollout/prehook.yaml"]; !strings.Contains(got, "held by the preDelete hook") {
		t.Errorf("prehook.yaml:\n%s", got)
	}
}
