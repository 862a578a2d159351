package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/clonecore/cloneset/internal/admissionrecord"
	"github.com/clonecore/cloneset/internal/cisummary"
)

// admissionDir holds what kruise's CloneSet webhooks made of 100 CloneSets
// (copied unchanged from ../shared/conformance-admission; its README says
// how to compare, and this test compares exactly so).
const admissionDir = "../../testdata/conformance-admission"

// admissionResult is what one world's replay matched.
type admissionResult struct {
	defaulted, verdict, converted bool
	// templateRefusals counts the record's refusals under
	// spec.template.spec (Kubernetes' core validation of the pod template)
	// and those the CLI named.
	templateRefusals, templateNamed int
}

// TestConformanceAdmission replays testdata/conformance-admission through
// the CLI as its README says: `clonesetplan admit -f worlds/NNNN.json -o
// json` prints the defaulted object and refuses (exit 1, one line per
// refusal on standard error starting with the field path) exactly the
// refused worlds, naming each refused field path; `clonesetplan convert
// --to OTHER` on that output prints the converted object. Trees compare as
// the README says (status, metadata.creationTimestamp, nulls and empty
// objects and lists dropped). It prints "conformance admission: defaulted
// N/100, verdicts N/100, conversions N/100" and "pod template refusals N/M".
func TestConformanceAdmission(t *testing.T) {
	lines, err := admissionrecord.Read(admissionDir)
	if err != nil {
		t.Fatal(err)
	}
	var total admissionResult
	var defaulted, verdicts, conversions int
	for _, o := range lines {
		var r admissionResult
		t.Run(o.ID, func(t *testing.T) { r = replayAdmission(t, o) })
		defaulted += b2i(r.defaulted)
		verdicts += b2i(r.verdict)
		conversions += b2i(r.converted)
		total.templateRefusals += r.templateRefusals
		total.templateNamed += r.templateNamed
	}
	n := len(lines)
	for _, line := range []string{
		fmt.Sprintf("conformance admission: defaulted %d/%d, verdicts %d/%d, conversions %d/%d", defaulted, n, verdicts, n, conversions, n),
		fmt.Sprintf("pod template refusals %d/%d", total.templateNamed, total.templateRefusals),
	} {
		cisummary.Print(t, line)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// replayAdmission runs one world through admit and convert and compares.
func replayAdmission(t *testing.T, o admissionrecord.Line) (r admissionResult) {
	world := filepath.Join(admissionDir, "worlds", o.ID+".json")
	var stdout, stderr bytes.Buffer
	code := run([]string{"admit", "-f", world, "-o", "json"}, nil, &stdout, &stderr)
	if code != exitOK && code != exitInput {
		t.Fatalf("admit -f %s exited %d: %s", world, code, stderr.String())
	}
	if g, w := admissionrecord.Comparable(decodeJSONTree(t, stdout.Bytes(), "admit's output")), admissionrecord.Comparable(o.Defaulted); reflect.DeepEqual(g, w) {
		r.defaulted = true
	} else {
		t.Errorf("defaulted object differs from the webhook's:\n got  %s\n want %s", jsonText(g), jsonText(w))
	}

	// The verdict: refused exactly when the record refuses, naming each
	// refused field path at the start of a line.
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	named := func(path string) bool {
		for _, l := range lines {
			if strings.HasPrefix(l, path+": ") {
				return true
			}
		}
		return false
	}
	r.verdict = (code == exitInput) == (len(o.Errors) > 0)
	if !r.verdict {
		t.Errorf("admit exited %d, the webhook refused %d fields: %s", code, len(o.Errors), stderr.String())
	}
	for _, e := range o.Errors {
		inTemplate := strings.HasPrefix(e.Field, "spec.template.spec.")
		if inTemplate {
			r.templateRefusals++
		}
		if named(e.Field) {
			r.templateNamed += b2i(inTemplate)
			continue
		}
		r.verdict = false
		t.Errorf("the webhook refused %s, admit did not name it: %q", e.Field, stderr.String())
	}

	// The conversion of the defaulted object to the other version.
	to := "v1beta1"
	if o.Version == "v1beta1" {
		to = "v1alpha1"
	}
	conv := runCLI(t, []string{"convert", "-f", "-", "--to", to, "-o", "json"}, stdout.Bytes())
	if g, w := admissionrecord.Comparable(decodeJSONTree(t, conv, "convert's output")), admissionrecord.Comparable(o.Converted); reflect.DeepEqual(g, w) {
		r.converted = true
	} else {
		t.Errorf("converted object differs from the webhook's:\n got  %s\n want %s", jsonText(g), jsonText(w))
	}
	return r
}

// decodeJSONTree decodes one JSON object with numbers as json.Number.
func decodeJSONTree(t *testing.T, b []byte, what string) map[string]any {
	t.Helper()
	m, err := admissionrecord.DecodeJSON(b)
	if err != nil {
		t.Fatalf("%s is not a JSON object: %v\n%s", what, err, b)
	}
	return m
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
