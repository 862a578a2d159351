package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// admitCloneSet is a small v1alpha1 CloneSet in YAML, as a user writes it
// (no namespace).
const admitCloneSet = `apiVersion: apps.kruise.io/v1alpha1
kind: CloneSet
metadata:
  name: web
  uid: u-web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.25
`

// runArgs runs the CLI with files written into a temporary folder
// (name -> content; args name them as @name).
func runArgs(t *testing.T, files map[string]string, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i, a := range args {
		if strings.HasPrefix(a, "@") {
			args[i] = filepath.Join(dir, a[1:])
		}
	}
	var out, errOut bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestAdmitCommand: admit prints the defaulted object always, and refuses
// with one line per refusal on standard error, each starting with its path.
func TestAdmitCommand(t *testing.T) {
	refused := strings.Replace(admitCloneSet, "  replicas: 2\n", "  replicas: 2\n  updateStrategy: {type: OnDelete, maxUnavailable: 0}\n", 1)
	for _, c := range []struct {
		name           string
		files          map[string]string
		args           []string
		code           int
		stdout, stderr []string // substrings; stderr lines' prefixes
	}{
		{"accepted, YAML", map[string]string{"cs.yaml": admitCloneSet}, []string{"admit", "-f", "@cs.yaml"}, 0,
			[]string{"kind: CloneSet\napiVersion: apps.kruise.io/v1alpha1\nmetadata:\n  name: web\n  namespace: default\n", "    type: ReCreate\n    partition: 0\n    maxUnavailable: 20%\n", "  revisionHistoryLimit: 10\n"}, nil},
		{"accepted, JSON", map[string]string{"cs.yaml": admitCloneSet}, []string{"admit", "-f", "@cs.yaml", "-o", "json"}, 0,
			[]string{"{\n  \"kind\": \"CloneSet\",\n  \"apiVersion\": \"apps.kruise.io/v1alpha1\",\n"}, nil},
		{"refused: printed anyway, one line per refusal", map[string]string{"cs.yaml": refused}, []string{"admit", "-f", "@cs.yaml"}, 1,
			[]string{"type: OnDelete"}, []string{"spec.updateStrategy.type: Invalid value: \"OnDelete\": ", "spec.updateStrategy.maxUnavailable: Invalid value: 0: maxUnavailable and maxSurge"}},
		{"standard input", nil, []string{"admit", "-f", "-"}, 0, []string{"kind: CloneSet"}, nil},
		{"a misplaced member: dropped, with a warning", map[string]string{"cs.yaml": strings.Replace(admitCloneSet, "  replicas: 2\n", "  replicas: 2\n  scaleStrategy: {enablePVCReuse: true}\n", 1)},
			[]string{"admit", "-f", "@cs.yaml"}, 0, []string{"  scaleStrategy: {}\n"}, []string{`Warning: unknown field "spec.scaleStrategy.enablePVCReuse"`}},
		{"an update of a selector", map[string]string{"cs.yaml": admitCloneSet, "old.yaml": strings.Replace(admitCloneSet, "{app: web}\n  template", "{app: web, tier: a}\n  template", 1)},
			[]string{"admit", "-f", "@cs.yaml", "--old", "@old.yaml"}, 1, nil, []string{"spec: Forbidden: updates to cloneset spec for fields other than"}},
		{"a podsToDelete name of no pod", map[string]string{"cs.yaml": admitCloneSet + "  scaleStrategy: {podsToDelete: [web-a]}\n"},
			[]string{"admit", "-f", "@cs.yaml"}, 1, nil, []string{`spec.scaleStrategy.podsToDelete: Invalid value: "web-a": find pod web-a failed: pods "web-a" not found`}},
		{"a podsToDelete name of a pod in the file", map[string]string{"cs.yaml": admitCloneSet + "  scaleStrategy: {podsToDelete: [web-a]}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: web-a, namespace: default, ownerReferences: [{apiVersion: apps.kruise.io/v1alpha1, kind: CloneSet, name: web, uid: u-web, controller: true}]}\n"},
			[]string{"admit", "-f", "@cs.yaml"}, 0, nil, nil},
		{"a protected delete, gate off", map[string]string{"cs.yaml": strings.Replace(admitCloneSet, "  uid: u-web\n", "  uid: u-web\n  labels: {policy.kruise.io/delete-protection: Always}\n", 1)},
			[]string{"admit", "-f", "@cs.yaml", "--delete"}, 0, nil, nil},
		{"a protected delete", map[string]string{"cs.yaml": strings.Replace(admitCloneSet, "  uid: u-web\n", "  uid: u-web\n  labels: {policy.kruise.io/delete-protection: Cascading}\n", 1)},
			[]string{"admit", "-f", "@cs.yaml", "--delete", "--feature-gates", "ResourcesDeletionProtection=true"}, 1, nil,
			[]string{"metadata.labels[policy.kruise.io/delete-protection]: Forbidden: forbidden by ResourcesProtectionDeletion for policy.kruise.io/delete-protection=Cascading and replicas 2>0"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runArgs(t, c.files, admitCloneSet, c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, c.code, stderr)
			}
			for _, s := range c.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if len(c.stderr) == 0 && stderr != "" {
				t.Errorf("stderr: %s", stderr)
			}
			if len(c.stderr) > 0 && len(lines) != len(c.stderr) {
				t.Errorf("%d lines on stderr, want %d: %s", len(lines), len(c.stderr), stderr)
			}
			for i, s := range c.stderr {
				if i < len(lines) && !strings.HasPrefix(lines[i], s) {
					t.Errorf("stderr line %d: %q, want it to start with %q", i+1, lines[i], s)
				}
			}
		})
	}
}

// TestAdmitAndConvertBadInput: bad input exits 1 with a message naming the
// file, the object and the field; bad usage exits 2; nothing panics.
func TestAdmitAndConvertBadInput(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		args  []string
		code  int
		want  string
	}{
		{"a field of the wrong type", map[string]string{"cs.yaml": strings.Replace(admitCloneSet, "replicas: 2", "replicas: two", 1)},
			[]string{"admit", "-f", "@cs.yaml"}, 1, `cs.yaml:1: CloneSet default/web: spec.replicas: "two": expected an integer (int32), got a string`},
		{"an empty file", map[string]string{"cs.yaml": ""}, []string{"admit", "-f", "@cs.yaml"}, 1, "cs.yaml: no CloneSet (apps.kruise.io/v1alpha1 or v1beta1): the input is empty"},
		{"another kind", map[string]string{"cs.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n"}, []string{"convert", "-f", "@cs.yaml", "--to", "v1beta1"}, 1, "no CloneSet (apps.kruise.io/v1alpha1 or v1beta1): it holds Deployment ("},
		{"a misspelled kind", map[string]string{"cs.yaml": strings.Replace(admitCloneSet, "kind: CloneSet", "kind: Cloneset", 1)}, []string{"admit", "-f", "@cs.yaml"}, 1, "it holds Cloneset ("},
		{"an unknown version", map[string]string{"cs.yaml": strings.Replace(admitCloneSet, "v1alpha1", "v2", 1)}, []string{"admit", "-f", "@cs.yaml"}, 1, `apiVersion "apps.kruise.io/v2"`},
		{"two CloneSets", map[string]string{"cs.yaml": admitCloneSet + "---\n" + admitCloneSet}, []string{"admit", "-f", "@cs.yaml"}, 1, "a second CloneSet"},
		{"a missing file", nil, []string{"admit", "-f", "/nonexistent/cs.yaml"}, 1, "/nonexistent/cs.yaml"},
		{"invalid YAML", map[string]string{"cs.yaml": "a: ["}, []string{"convert", "-f", "@cs.yaml", "--to", "v1alpha1"}, 1, "invalid YAML"},
		{"no -f", nil, []string{"admit"}, 2, "no CloneSet: give -f FILE"},
		{"--old and --delete", map[string]string{"cs.yaml": admitCloneSet}, []string{"admit", "-f", "@cs.yaml", "--old", "@cs.yaml", "--delete"}, 2, "--old and --delete"},
		{"an unknown gate", map[string]string{"cs.yaml": admitCloneSet}, []string{"admit", "-f", "@cs.yaml", "--feature-gates", "CloneSetShortHash=true"}, 2, "not one that changes the CloneSet webhooks"},
		{"-o text", map[string]string{"cs.yaml": admitCloneSet}, []string{"admit", "-f", "@cs.yaml", "-o", "text"}, 2, `-o "text": want yaml or json`},
		{"convert without --to", map[string]string{"cs.yaml": admitCloneSet}, []string{"convert", "-f", "@cs.yaml"}, 2, `--to "": want v1alpha1 or v1beta1`},
		{"convert to an apiVersion", map[string]string{"cs.yaml": admitCloneSet}, []string{"convert", "-f", "@cs.yaml", "--to", "apps.kruise.io/v1beta1"}, 2, "want v1alpha1 or v1beta1"},
		{"a stray argument", nil, []string{"convert", "x"}, 2, `unexpected argument "x"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runArgs(t, c.files, "", c.args...)
			if code != c.code || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, stderr, c.code, c.want)
			}
		})
	}
}

// TestConvertCommand: convert prints the object in the other version; the
// same version gives the object as the typed API writes it.
func TestConvertCommand(t *testing.T) {
	code, stdout, stderr := runArgs(t, map[string]string{"cs.yaml": admitCloneSet}, "", "convert", "-f", "@cs.yaml", "--to", "v1beta1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"apiVersion: apps.kruise.io/v1beta1\n", "  scaleStrategy:\n    enablePVCReuse: true\n", "  updateStrategy:\n    type: RollingUpdate\n    rollingUpdate:\n      podUpdatePolicy: ReCreate\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("lacks %q:\n%s", want, stdout)
		}
	}
	// admit | convert: the stored object's conversion.
	_, admitted, _ := runArgs(t, map[string]string{"cs.yaml": admitCloneSet}, "", "admit", "-f", "@cs.yaml")
	code, stdout, stderr = runArgs(t, nil, admitted, "convert", "-f", "-", "--to", "v1beta1", "-o", "json")
	if code != 0 || !strings.Contains(stdout, `"maxUnavailable": "20%"`) {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
}

// TestAdmitHelp: -h prints the command's help on standard output.
func TestAdmitHelp(t *testing.T) {
	for _, cmd := range []string{"admit", "convert"} {
		code, stdout, _ := runArgs(t, nil, "", cmd, "-h")
		if code != 0 || !strings.HasPrefix(stdout, "Usage: clonesetplan "+cmd+" -f FILE") {
			t.Errorf("%s -h: exit %d:\n%s", cmd, code, stdout)
		}
	}
}
