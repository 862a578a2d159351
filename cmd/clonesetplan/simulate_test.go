package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateSimulateDocs = flag.Bool("update-simulate", false, "rewrite docs/simulate-rollout.svg from the current simulator output")

const simDoc = `---
apiVersion: clonesetcore/v1alpha1
kind: Simulation
seed: 7
steps: 200
events:
- {at: 30, image: "nginx:v2"}
`

func runSimCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func writeSimFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSimulateReadsTheSimulationDocument(t *testing.T) {
	dir := t.TempDir()
	f := writeSimFile(t, dir, "s.yaml", validScenario+simDoc)
	code, out, errOut := runSimCLI(t, "simulate", "-f", f)
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	for _, want := range []string{"(seed 7): converged", "change: image nginx:v2", "recreate sample-", "r2 ", "ok      determinism"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Flags given a value override the document.
	_, out, _ = runSimCLI(t, "simulate", "-f", f, "--seed", "3", "--steps", "4")
	if !strings.Contains(out, "(seed 3): step-limit") || !strings.Contains(out, "step limit (4 rounds)") {
		t.Errorf("flags did not override the document:\n%s", out)
	}
	// The document may come in its own file.
	g := writeSimFile(t, dir, "sim.yaml", simDoc)
	p := writeSimFile(t, dir, "cs.yaml", validScenario)
	code, out2, _ := runSimCLI(t, "simulate", "-f", p, "-f", g)
	if code != exitOK || !strings.Contains(out2, "change: image nginx:v2") {
		t.Errorf("two files: exit %d\n%s", code, out2)
	}
}

func TestSimulateSVG(t *testing.T) {
	dir := t.TempDir()
	f := writeSimFile(t, dir, "s.yaml", validScenario+simDoc)
	svg := filepath.Join(dir, "out.svg")
	if code, _, errOut := runSimCLI(t, "simulate", "-f", f, "--svg", svg, "-o", "json"); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{`<svg xmlns="http://www.w3.org/2000/svg"`, "Legend", "r1  nginx:v1", "r2  nginx:v2", "image nginx:v2", "spec.replicas", "</svg>"} {
		if !strings.Contains(s, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if code, _, errOut := runSimCLI(t, "simulate", "-f", f, "--svg", filepath.Join(dir, "no", "such", "dir.svg")); code != exitInput || !strings.Contains(errOut, "no such file") {
		t.Errorf("unwritable --svg: exit %d, %s", code, errOut)
	}
}

func TestSimulateBadDocument(t *testing.T) {
	dir := t.TempDir()
	f := writeSimFile(t, dir, "s.yaml", validScenario+"---\napiVersion: clonesetcore/v1alpha1\nkind: Simulation\nevents:\n- {at: 5, replica: 3}\n")
	code, out, errOut := runSimCLI(t, "simulate", "-f", f)
	if code != exitInput || out != "" || !strings.Contains(errOut, "s.yaml:14: Simulation (document 2): events[0].replica: unknown field") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	g := writeSimFile(t, dir, "t.yaml", simDoc)
	h := writeSimFile(t, dir, "u.yaml", simDoc)
	code, _, errOut = runSimCLI(t, "simulate", "-f", g, "-f", h, "-f", writeSimFile(t, dir, "c.yaml", validScenario))
	if code != exitInput || !strings.Contains(errOut, "two Simulation documents") {
		t.Errorf("two documents: exit %d, %s", code, errOut)
	}
}

// TestSimulateReadmeExample runs the simulate example of the README (its
// output is checked by TestREADMEOutputs) and checks that docs/simulate-rollout.svg is the picture
// it draws (go test ./cmd/clonesetplan -run ReadmeExample -update-simulate
// rewrites it).
func TestSimulateReadmeExample(t *testing.T) {
	root := filepath.Join("..", "..")
	scenario := filepath.Join(root, "docs", "simulate-rollout.yaml")
	svgPath := filepath.Join(root, "docs", "simulate-rollout.svg")
	out := filepath.Join(t.TempDir(), "out.svg")
	code, text, errOut := runSimCLI(t, "simulate", "-f", scenario, "--svg", out)
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"(seed 7): converged", "change: image web:1.1", "change: partition 0", "change: replicas 8", "change: env MODE=fast"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if *updateSimulateDocs {
		if err := os.WriteFile(svgPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(svgPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not the picture the simulator draws now; review the change and rerun with -update-simulate", svgPath)
	}
}

// TestSimulateReadsSimulationFromStdin checks that a Simulation document given
// on standard input is honoured: the run equals the one from the same file.
func TestSimulateReadsSimulationFromStdin(t *testing.T) {
	const file = "../../docs/simulate-rollout.yaml"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var fromFile, fromStdin, errb bytes.Buffer
	if code := run([]string{"simulate", "-f", file, "-o", "json"}, strings.NewReader(""), &fromFile, &errb); code != 0 {
		t.Fatalf("from file: exit %d: %s", code, errb.String())
	}
	if code := run([]string{"simulate", "-f", "-", "-o", "json"}, bytes.NewReader(data), &fromStdin, &errb); code != 0 {
		t.Fatalf("from stdin: exit %d: %s", code, errb.String())
	}
	if !bytes.Equal(fromFile.Bytes(), fromStdin.Bytes()) {
		t.Fatalf("simulate -f - differs from simulate -f %s: the Simulation document on standard input was not read", file)
	}
}

// A run stopped by its step limit says so and how to raise it: at the end of
// the text output, on standard error with a document output; a run that came
// to rest says nothing of the kind.
func TestSimulateStepLimitHint(t *testing.T) {
	quickstart := filepath.Join(goldenDir, "quickstart.yaml")
	hint := "The run stopped at the step limit (10 rounds) before the CloneSet came to rest: raise it with --steps N"
	code, out, errOut := runSimCLI(t, "simulate", "-f", quickstart)
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	if !strings.HasSuffix(strings.TrimSpace(out), "--steps 0 runs up to 500 rounds.") || !strings.Contains(out, hint) {
		t.Errorf("text output does not end with the hint:\n%s", out)
	}
	code, out, errOut = runSimCLI(t, "simulate", "-f", quickstart, "-o", "json")
	if code != exitOK || strings.Contains(out, hint) || !strings.Contains(errOut, "clonesetplan simulate: "+hint) {
		t.Errorf("-o json: exit %d, the hint not (only) on stderr:\nstdout %.200s\nstderr %s", code, out, errOut)
	}
	code, out, errOut = runSimCLI(t, "simulate", "-f", quickstart, "--steps", "0")
	if code != exitOK || errOut != "" || strings.Contains(out, "step limit") || !strings.Contains(out, "converged") {
		t.Errorf("--steps 0: exit %d, stderr %q, a hint or no convergence:\n%s", code, errOut, out)
	}
}

// Every action of the timeline names its object: a revision created, renumbered
// or deleted is named by its label (r2), never a bare "CreateRevision ".
func TestSimulateNamesRevisionActions(t *testing.T) {
	code, out, errOut := runSimCLI(t, "simulate", "-f", "../../docs/simulate-rollout.yaml")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	if !strings.Contains(out, "-> create revision r2 (revision number 2)") {
		t.Errorf("the timeline does not name the revision created:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if a, ok := strings.CutPrefix(strings.TrimSpace(line), "-> "); ok && (strings.HasSuffix(a, " ") || strings.Contains(a, "Revision ")) {
			t.Errorf("an action line without its object: %q", line)
		}
	}
}
