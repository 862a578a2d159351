package main

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/clonecore/cloneset/internal/exampletest"
)

func TestControllerLoopRollsOutInPlace(t *testing.T) {
	data, err := os.ReadFile("scenario.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := run(&out, data, "scenario.yaml", "web:2", 60); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		"user: image web:2",
		"update web-a in place to ",
		"update web-b in place to ",
		"update web-c in place to ",
		"web-a: container main restarted with web:2",
		"web-a: Updating -> Normal",
		"done: 3 of 3 pods run web:2",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	// maxUnavailable 1: one pod at a time, so each pod is updated in a round
	// of its own.
	if n := strings.Count(got, "in place to "); n != 3 {
		t.Errorf("%d in-place updates, want 3", n)
	}
	for _, line := range strings.Split(got, "\n") {
		if strings.HasPrefix(line, "round") && strings.Count(line, "not ready") > 1 {
			t.Errorf("two pods unavailable at once: %s", line)
		}
	}
	// The same seed gives the same run.
	var again strings.Builder
	if err := run(&again, data, "scenario.yaml", "web:2", 60); err != nil || again.String() != got {
		t.Errorf("second run differs (%v)", err)
	}
}

func TestControllerLoopGivesUp(t *testing.T) {
	data, _ := os.ReadFile("scenario.yaml")
	var out strings.Builder
	if err := run(&out, data, "scenario.yaml", "web:2", 3); err == nil || !strings.Contains(err.Error(), "no rest after 3 rounds") {
		t.Errorf("error %v", err)
	}
	if err := run(&out, []byte("kind: Pod"), "bad.yaml", "web:2", 3); err == nil {
		t.Error("a scenario without a CloneSet was accepted")
	}
}

// The example runs from the repository root as the README and its package
// doc show it, with the bundled scenario when -f is not given.
func TestRunsAsDocumented(t *testing.T) {
	outputs := exampletest.RunAsDocumented(t, "controllerloop", func(args []string, _ io.Reader, stdout, stderr io.Writer) int {
		return realMain(args, stdout, stderr)
	})
	if got := outputs["go run ./examples/controllerloop"]; !strings.Contains(got, "done: 3 of 3 pods run web:2") {
		t.Errorf("without -f:\n%s", got)
	}
	if got := outputs["go run ./examples/controllerloop -f examples/controllerloop/scenario.yaml -image web:3"]; !strings.Contains(got, "done: 3 of 3 pods run web:3") {
		t.Errorf("with -image web:3:\n%s", got)
	}
}
