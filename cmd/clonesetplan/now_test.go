package main

import (
	"bytes"
	"strings"
	"testing"
)

// podAt is a pod of validScenario's CloneSet created at ts.
func podAt(name, ts string) string {
	return "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: default, labels: {app: sample}, creationTimestamp: \"" + ts + "\"}\nspec: {containers: [{name: nginx, image: nginx:v1}]}\n"
}

// The clock of a plan is printed in the text and the JSON plan, with where it
// comes from; --now sets it for every command, over a Scenario document's now.
func TestNowFlag(t *testing.T) {
	dump := validScenario + podAt("sample-a", "2026-03-01T10:00:00Z") + podAt("sample-b", "2026-03-01T10:05:00Z")
	withDoc := dump + "---\napiVersion: clonesetcore/v1alpha1\nkind: Scenario\nnow: \"2026-03-01T11:00:00Z\"\n"
	cases := []struct {
		name  string
		args  []string
		input string
		code  int
		want  []string
	}{
		{"newest timestamp, text", []string{"plan"}, dump, 0, []string{"  clock: 2026-03-01T10:05:00Z (the newest timestamp in the input; set another with --now or a Scenario document's now)\n"}},
		{"newest timestamp, json", []string{"plan", "-o", "json"}, dump, 0, []string{`"now": "2026-03-01T10:05:00Z",`}},
		{"the document's now", []string{"plan"}, withDoc, 0, []string{"  clock: 2026-03-01T11:00:00Z\n"}},
		{"--now over the document", []string{"plan", "--now", "2026-04-01T00:00:00.5+02:00"}, withDoc, 0, []string{"  clock: 2026-03-31T22:00:00.5Z\n"}},
		{"--now, yaml", []string{"plan", "-o", "yaml", "--now", "2026-04-01T00:00:00Z"}, dump, 0, []string{"now: \"2026-04-01T00:00:00Z\"\n"}},
		{"no clock at all", []string{"plan"}, validScenario, 0, []string{"  clock: none (no timestamp in the input; set one with --now"}},
		{"no clock, json", []string{"plan", "-o", "json"}, validScenario, 0, []string{`"cloneSet"`}},
		{"rank takes --now", []string{"rank", "--now", "2026-04-01T00:00:00Z"}, dump, 0, []string{"deletion order"}},
		{"simulate starts at --now", []string{"simulate", "--steps", "1", "--now", "2026-04-01T00:00:00Z"}, dump, 0, []string{"  virtual time starts at 2026-04-01T00:00:00Z\n"}},
		{"bad --now", []string{"plan", "--now", "2026-04-01"}, dump, 2, []string{`--now "2026-04-01": want an RFC 3339 time such as 2026-01-01T00:00:30Z`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{c.args[0], "-f", "-"}, c.args[1:]...)
			code := run(args, strings.NewReader(c.input), &stdout, &stderr)
			if code != c.code {
				t.Fatalf("exit %d, want %d: %s", code, c.code, stderr.String())
			}
			out := stdout.String() + stderr.String()
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if c.name == "no clock, json" && strings.Contains(out, `"now"`) {
				t.Errorf("a plan without a clock has a now member:\n%s", out)
			}
		})
	}
}

// The clock decides: the same dump planned at two clocks gives two plans
// (the instance ids of new pods are seeded by it).
func TestNowChangesThePlan(t *testing.T) {
	plan := func(now string) string {
		var stdout, stderr bytes.Buffer
		if code := run([]string{"plan", "-f", "-", "-o", "json", "--now", now}, strings.NewReader(validScenario), &stdout, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		_, after, _ := strings.Cut(stdout.String(), `"actions"`)
		return after
	}
	if a, b := plan("2026-04-01T00:00:00Z"), plan("2026-04-01T00:00:01Z"); a == b {
		t.Errorf("two clocks, one plan:\n%s", a)
	}
}
