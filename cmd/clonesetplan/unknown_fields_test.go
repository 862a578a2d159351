package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clonecore/cloneset/manifest"
)

// The field tables know every field real objects carry: every scenario of
// the repository, every object the real controller left on the API server
// (the conformance records, before and after each round) and every object
// the library's own requests create (the goldens) loads without a single
// unknown-field warning. A field missing from the tables would be a false
// warning for every user with such an object.
func TestRealObjectsHaveNoUnknownFields(t *testing.T) {
	var warnings []string
	checked := 0
	check := func(source string, data []byte) {
		checked++
		opts := manifest.Options{Warn: func(w manifest.Warning) { warnings = append(warnings, w.String()) }}
		_, _ = opts.LoadAllBytes(data, source) // a stream of pods alone has no CloneSet: only the warnings count
	}
	for _, root := range []string{goldenDir, conformanceDir, "../../testdata/conformance-revnames/worlds", "../../testdata/manifests", "../../docs", "../../examples"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") || strings.Contains(path, "kubecontroller") {
				return err
			}
			data, err := os.ReadFile(path)
			if err == nil {
				check(path, data)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	objects := func(source string, list []json.RawMessage) {
		var stream bytes.Buffer
		for _, o := range list {
			if len(o) > 0 && string(o) != "null" {
				stream.Write(o)
				stream.WriteByte('\n')
			}
		}
		if stream.Len() > 0 {
			check(source, stream.Bytes())
		}
	}
	records, _ := filepath.Glob(filepath.Join(writesDir, "*.json"))
	more, _ := filepath.Glob(filepath.Join(revisionWritesDir, "*.json"))
	for _, f := range append(records, more...) {
		var rec struct {
			Writes []struct{ Before, After json.RawMessage }
		}
		data, err := os.ReadFile(f)
		if err == nil {
			err = json.Unmarshal(data, &rec)
		}
		if err != nil {
			continue // not a record (a world of the revision records)
		}
		var list []json.RawMessage
		for _, w := range rec.Writes {
			list = append(list, w.Before, w.After)
		}
		objects(f, list)
	}
	requestGoldens, _ := filepath.Glob(filepath.Join(goldenDir, "*", "*.requests*.json"))
	deeper, _ := filepath.Glob(filepath.Join(goldenDir, "*", "*", "*.requests*.json"))
	for _, f := range append(requestGoldens, deeper...) {
		var l struct {
			Items []struct{ Object json.RawMessage }
		}
		data, err := os.ReadFile(f)
		if err == nil {
			err = json.Unmarshal(data, &l)
		}
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var list []json.RawMessage
		for _, it := range l.Items {
			list = append(list, it.Object)
		}
		objects(f, list)
	}
	if checked < 700 {
		t.Errorf("checked %d inputs, expected the whole corpus (700 or more)", checked)
	}
	for _, w := range warnings[:min(len(warnings), 20)] {
		t.Errorf("unexpected warning: %s", w)
	}
}

// The CLI warns on standard error and goes on; --strict refuses.
func TestUnknownFieldsOnTheCommandLine(t *testing.T) {
	misplaced := strings.Replace(validScenario, "  replicas: 2\n", "  replicas: 2\n  updateStrategy:\n    maxUnavailable: \"20x%\"\n", 1)
	warning := `-:7: CloneSet default/sample: spec.updateStrategy.maxUnavailable: unknown field, ignored: did you mean spec.updateStrategy.rollingUpdate.maxUnavailable?`
	for _, cmd := range []string{"plan", "rank", "simulate"} {
		var stdout, stderr bytes.Buffer
		args := []string{cmd, "-f", "-"}
		if cmd == "simulate" {
			args = append(args, "--steps", "1")
		}
		if code := run(args, strings.NewReader(misplaced), &stdout, &stderr); code != exitOK {
			t.Fatalf("%s: exit %d: %s", cmd, code, stderr.String())
		}
		if !strings.Contains(stderr.String(), "clonesetplan "+cmd+": warning: "+warning) || stdout.Len() == 0 {
			t.Errorf("%s: no warning on stderr, or no output:\nstderr: %s", cmd, stderr.String())
		}
		stdout.Reset()
		stderr.Reset()
		if code := run([]string{cmd, "-f", "-", "--strict"}, strings.NewReader(misplaced), &stdout, &stderr); code != exitInput || stdout.Len() != 0 {
			t.Errorf("%s --strict: exit %d, stdout %q", cmd, code, stdout.String())
		}
		if want := "clonesetplan " + cmd + ": -:7: CloneSet default/sample: spec.updateStrategy.maxUnavailable: unknown field: did you mean"; !strings.Contains(stderr.String(), want) {
			t.Errorf("%s --strict: stderr lacks %q:\n%s", cmd, want, stderr.String())
		}
	}
}
