package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const validScenario = `apiVersion: apps.kruise.io/v1beta1
kind: CloneSet
metadata: {name: sample, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: sample}}
  template:
    metadata: {labels: {app: sample}}
    spec: {containers: [{name: nginx, image: nginx:v1}]}
`

// b17Scenario breaks only the both-below-1 rule (rejected unless
// --skip-budget-rule).
const b17Scenario = `apiVersion: apps.kruise.io/v1beta1
kind: CloneSet
metadata: {name: sample, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: sample}}
  template:
    metadata: {labels: {app: sample}}
    spec: {containers: [{name: nginx, image: nginx:v1}]}
  updateStrategy:
    rollingUpdate: {maxUnavailable: 0, maxSurge: 1}
`

func TestRun(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.yaml", validScenario)
	b17 := write("b17.yaml", b17Scenario)
	both0 := write("both0.yaml", strings.Replace(b17Scenario, "maxSurge: 1", "maxSurge: 0", 1))
	bad := write("bad.yaml", strings.Replace(validScenario, "replicas: 2", "replicas: -1", 1))
	badType := write("badtype.yaml", strings.Replace(validScenario, "replicas: 2", "replicas: two", 1))
	pods := write("pods.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p1, labels: {app: sample}}\n")
	missing := filepath.Join(dir, "missing.yaml")
	resize := filepath.Join(goldenDir, "vertical-resize", "gate-on-inplace.yaml")

	cases := []struct {
		name       string
		args       []string
		stdin      string
		code       int
		wantOut    []string
		wantErr    []string
		wantNoLoad bool // stderr must not mention loading
	}{
		// Help and usage.
		{"no arguments", nil, "", 2, nil, []string{"Usage:\n  clonesetplan plan ", "rank", "simulate"}, false},
		{"--help", []string{"--help"}, "", 0, []string{"Usage:\n  clonesetplan plan ", "plan", "rank", "simulate", "version", "Commands:", "Run 'clonesetplan <command> -h'"}, nil, false},
		{"-h", []string{"-h"}, "", 0, []string{"Usage:\n"}, nil, false},
		{"help", []string{"help"}, "", 0, []string{"Commands:"}, nil, false},
		{"plan -h", []string{"plan", "-h"}, "", 0, []string{"Usage: clonesetplan plan -f FILE", "  -f FILE\n", "  -o FORMAT\n", "  --server-version V\n", "  --skip-budget-rule\n", "  --now TIME\n", "  --strict\n"}, nil, false},
		{"rank --help", []string{"rank", "--help"}, "", 0, []string{"Usage: clonesetplan rank", "  --for deletion\n"}, nil, false},
		{"simulate -h", []string{"simulate", "-h"}, "", 0, []string{"  --seed N\n", "  --steps N\n", "  --svg FILE\n"}, nil, false},
		{"unknown command", []string{"apply", "-f", good}, "", 2, nil, []string{`unknown command "apply"`, "Usage:"}, false},
		{"unknown flag", []string{"plan", "-f", good, "--bogus"}, "", 2, nil, []string{"flag provided but not defined: -bogus", "Usage: clonesetplan plan"}, false},
		{"no -f", []string{"plan"}, "", 2, nil, []string{"no scenario: give -f FILE"}, false},
		{"empty -f", []string{"plan", "-f", ""}, "", 2, nil, []string{"empty file name"}, false},
		{"bad -o", []string{"plan", "-f", good, "-o", "xml"}, "", 2, nil, []string{`-o "xml": want json, yaml, text, requests or kubectl`}, false},
		{"rank -o requests", []string{"rank", "-f", good, "-o", "requests"}, "", 2, nil, []string{"only plan prints requests"}, false},
		{"plan -o requests", []string{"plan", "-f", good, "-o", "requests"}, "", 0, []string{`"kind": "RequestList"`, `"verb": "create"`, `"resource": "pods"`}, nil, false},
		{"plan -o kubectl", []string{"plan", "-f", good, "-o", "kubectl"}, "", 0, []string{"DRY RUN FOR READING", "exit 1", "kubectl create -n default -f - <<'CLONESETPLAN_EOF'"}, nil, false},
		{"bad --server-version", []string{"plan", "-f", good, "-o", "requests", "--server-version", "1.x"}, "", 2, nil, []string{`--server-version "1.x": want a Kubernetes version`}, false},
		{"--server-version on rank", []string{"rank", "-f", good, "--server-version", "1.31"}, "", 2, nil, []string{"flag provided but not defined: -server-version"}, false},
		{"plan -o kubectl, a resize", []string{"plan", "-f", resize, "-o", "kubectl"}, "", 0, []string{"# patch pods/resize sample-ns85c: action 0, UpdatePodInPlace", "kubectl patch pod sample-ns85c -n default --subresource resize --type strategic -p '{\"spec\":{\"containers\":[{\"name\":\"nginx\",\"resources\":"}, nil, false},
		{"plan -o kubectl, a resize on 1.31", []string{"plan", "-f", resize, "-o", "kubectl", "--server-version", "v1.31.4"}, "", 0, []string{"kubectl patch pod sample-ns85c -n default --type strategic -p '{\"metadata\":"}, nil, false},
		{"bad --for", []string{"rank", "-f", good, "--for", "fun"}, "", 2, nil, []string{`--for "fun": want deletion or update`}, false},
		{"--for on plan", []string{"plan", "-f", good, "--for", "update"}, "", 2, nil, []string{"flag provided but not defined: -for"}, false},
		{"negative --steps", []string{"simulate", "-f", good, "--steps", "-1"}, "", 2, nil, []string{"--steps -1: must not be negative"}, false},
		{"bad --seed", []string{"simulate", "-f", good, "--seed", "x"}, "", 2, nil, []string{`invalid value "x" for flag -seed`}, false},
		{"stray argument", []string{"plan", "-f", good, "extra.yaml"}, "", 2, nil, []string{`unexpected argument "extra.yaml"`}, false},

		// Bad input: exit 1, message on stderr naming the object and field.
		{"invalid spec", []string{"plan", "-f", bad}, "", 1, nil, []string{"clonesetplan plan: ", "bad.yaml:5: CloneSet default/sample: spec.replicas: Invalid value: -1"}, false},
		{"type error", []string{"rank", "-f", badType}, "", 1, nil, []string{"clonesetplan rank: ", `CloneSet default/sample: spec.replicas: expected an integer, got "two"`}, false},
		{"missing file", []string{"simulate", "-f", missing}, "", 1, nil, []string{"clonesetplan simulate: ", "missing.yaml", "no such file"}, false},
		{"no CloneSet", []string{"plan", "-f", pods}, "", 1, nil, []string{"pods.yaml: no CloneSet: the input holds Pod (1)"}, false},
		{"empty stdin", []string{"rank", "-f", "-"}, "", 1, nil, []string{"clonesetplan rank: -: no CloneSet: the input is empty"}, false},
		{"kind mistyped", []string{"plan", "-f", "-"}, strings.Replace(validScenario, "kind: CloneSet", "kind: Cloneset", 1), 1, nil, []string{`kind "Cloneset" is not "CloneSet"`}, false},
		{"bad stdin", []string{"plan", "-f", "-"}, "kind: [", 1, nil, []string{"-: invalid YAML"}, false},
		{"B17 rejected by default", []string{"plan", "-f", b17}, "", 1, nil, []string{"b17.yaml:", "CloneSet default/sample: spec.updateStrategy.rollingUpdate.maxUnavailable", "maxUnavailable and maxSurge should not both be less than 1"}, false},
		{"B17 with --strict", []string{"plan", "--strict", "-f", b17}, "", 1, nil, []string{"maxUnavailable and maxSurge should not both be less than 1"}, false},
		{"both 0 rejected", []string{"plan", "-f", both0}, "", 1, nil, []string{"CloneSet default/sample: spec.updateStrategy.rollingUpdate.maxUnavailable", "should not both be less than 1"}, false},

		// Loaded and planned.
		{"plan", []string{"plan", "-f", good}, "", 0, []string{"CloneSet default/sample", "Budget", "Actions"}, nil, false},
		{"plan -o json, two files", []string{"plan", "-o", "json", "-f", good, "-f", pods}, "", 0, []string{`"kind": "Plan"`, `"budget"`}, nil, false},
		{"plan from stdin", []string{"plan", "-f", "-", "-o", "yaml"}, validScenario, 0, []string{"kind: Plan", "budget:"}, nil, false},
		{"rank --for update", []string{"rank", "-f", good, "--for", "update", "-o", "json"}, "", 0, []string{`"for": "update"`}, nil, false},
		{"rank default --for", []string{"rank", "-f", good}, "", 0, []string{"deletion order"}, nil, false},
		{"simulate", []string{"simulate", "-f", good, "--seed", "7", "--steps", "3", "--svg", filepath.Join(dir, "out.svg")}, "", 0, []string{"Simulation of CloneSet default/sample (seed 7): step-limit", "Timeline", "Final state", "Invariants", "ok      max-pods"}, nil, false},
		{"simulate -o json", []string{"simulate", "-f", good, "--steps", "0", "-o", "json"}, "", 0, []string{`"outcome": "converged"`, `"invariants"`}, nil, false},
		{"simulate from stdin", []string{"simulate", "-f", "-", "-o", "yaml", "--steps", "0"}, validScenario, 0, []string{"outcome: converged"}, nil, false},
		{"B17 accepted with --skip-budget-rule", []string{"plan", "--skip-budget-rule", "-f", b17, "-o", "json"}, "", 0, []string{`"kind": "Plan"`, "the v1beta1 webhook would reject this CloneSet (maxUnavailable below 1"}, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(c.args, strings.NewReader(c.stdin), &stdout, &stderr)
			if code != c.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, c.code, stdout.String(), stderr.String())
			}
			for _, w := range c.wantOut {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout.String())
				}
			}
			for _, w := range c.wantErr {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr.String())
				}
			}
			if c.code == 0 && stderr.Len() != 0 {
				t.Errorf("stderr on success: %s", stderr.String())
			}
			if c.wantNoLoad && strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("stderr: %q", stderr.String())
			}
		})
	}
}

func TestParseFlags(t *testing.T) {
	var out, errb bytes.Buffer
	opts, _, ok := parseFlags("simulate", []string{"-f", "a", "--f", "b", "-o", "yaml", "--seed", "42", "--steps", "0", "--svg", "x.svg", "--skip-budget-rule"}, &out, &errb)
	if !ok || strings.Join(opts.files, ",") != "a,b" || opts.output != "yaml" || opts.seed != 42 || opts.steps != 0 || opts.svg != "x.svg" || !opts.skipBudgetRule {
		t.Errorf("opts = %+v, ok %v, stderr %s", opts, ok, errb.String())
	}
	opts, _, ok = parseFlags("rank", []string{"-f", "a"}, &out, &errb)
	if !ok || opts.forWhat != "deletion" || opts.output != "text" {
		t.Errorf("rank defaults: %+v", opts)
	}
	opts, _, ok = parseFlags("simulate", []string{"-f", "a"}, &out, &errb)
	if !ok || opts.seed != 1 || opts.steps != 10 || opts.svg != "" {
		t.Errorf("simulate defaults: %+v", opts)
	}
}
