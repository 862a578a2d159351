package apiserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mergeDiff returns a JSON merge patch that turns before into after.
func mergeDiff(before, after map[string]any) map[string]any {
	p := map[string]any{}
	for k, b := range before {
		a, ok := after[k]
		if !ok {
			p[k] = nil
			continue
		}
		bm, bok := b.(map[string]any)
		am, aok := a.(map[string]any)
		if bok && aok {
			if d := mergeDiff(bm, am); len(d) > 0 {
				p[k] = d
			}
			continue
		}
		if !Equal(a, b) {
			p[k] = a
		}
	}
	for k, a := range after {
		if _, ok := before[k]; !ok {
			p[k] = a
		}
	}
	return p
}

// replayRecord carries out a record's own writes on its world (changes as
// merge patches of the main resource, status as a status patch) and returns
// the comparison.
func replayRecord(t *testing.T, base, file string, edit func(*Record)) Report {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := ParseRecord(data)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	world, err := os.ReadFile(filepath.Join(base, rec.World))
	if err != nil {
		t.Fatal(err)
	}
	store, err := Load(world)
	if err != nil {
		t.Fatalf("%s: %v", rec.World, err)
	}
	before := store.Snapshot()
	apply := rec
	if edit != nil {
		var cp Record
		if err := json.Unmarshal(data, &cp); err != nil {
			t.Fatal(err)
		}
		edit(&cp)
		apply = &cp
	}
	for _, w := range apply.Writes {
		switch w.Event {
		case EventCreated:
			body, _ := json.Marshal(w.After)
			if _, err := store.Create(w.Resource, "default", body); err != nil {
				t.Fatalf("%s: create %s %s: %v", file, w.Resource, w.Name, err)
			}
		case EventDeleted:
			if _, err := store.Delete(w.Resource, "default", w.Name, nil); err != nil {
				t.Fatalf("%s: delete %s %s: %v", file, w.Resource, w.Name, err)
			}
		case EventChanged:
			p := mergeDiff(w.Before, w.After)
			status, hasStatus := p["status"]
			delete(p, "status")
			if len(p) > 0 {
				body, _ := json.Marshal(p)
				if _, err := store.Patch(w.Resource, "default", w.Name, "", MergePatchType, body, nil); err != nil {
					t.Fatalf("%s: patch %s %s: %v", file, w.Resource, w.Name, err)
				}
			}
			if hasStatus {
				sub := "status"
				if !statusSubresource[w.Resource] {
					sub = ""
				}
				body, _ := json.Marshal(map[string]any{"status": status})
				if _, err := store.Patch(w.Resource, "default", w.Name, sub, MergePatchType, body, nil); err != nil {
					t.Fatalf("%s: status patch %s %s: %v", file, w.Resource, w.Name, err)
				}
			}
		}
	}
	return Compare(before, store, rec, nil)
}

// TestRecordsReplayThemselves checks the store and the comparison on the
// records: carrying out each record's own writes on its world must compare
// equal, for the whole-reconcile records and the revision records. It also
// checks that each deleted object with an after ends as recorded.
func TestRecordsReplayThemselves(t *testing.T) {
	for _, set := range []struct{ records, base string }{
		{"../../testdata/conformance-writes", "../../testdata/conformance"},
		{"../../testdata/conformance-revisions", "../../testdata/conformance-revisions"},
	} {
		files, _ := filepath.Glob(filepath.Join(set.records, "*.json"))
		if len(files) == 0 {
			t.Fatalf("no records in %s", set.records)
		}
		for _, f := range files {
			if rep := replayRecord(t, set.base, f, nil); !rep.OK() {
				t.Errorf("%s: its own writes do not compare equal:\n%s", f, rep)
			}
		}
	}
}

// TestCompareCatchesDeviations damages a record's writes before replaying
// them and expects a finding naming the object.
func TestCompareCatchesDeviations(t *testing.T) {
	const base = "../../testdata/conformance"
	cases := []struct {
		name, file, object, problem string
		edit                        func(*Record)
	}{
		{"missing delete", "0000.json", "sample-p001", "upstream deletes it", func(r *Record) {
			r.Writes = r.Writes[1:]
		}},
		{"wrong lifecycle state", "0004.json", "sample-p002", "fields differ", func(r *Record) {
			for _, w := range r.Writes {
				if w.Name == "sample-p002" {
					w.After["metadata"].(map[string]any)["labels"].(map[string]any)["lifecycle.apps.kruise.io/state"] = "Normal"
				}
			}
		}},
		{"extra label", "0004.json", "sample-p002", "metadata.labels.extra", func(r *Record) {
			for _, w := range r.Writes {
				if w.Name == "sample-p002" {
					w.After["metadata"].(map[string]any)["labels"].(map[string]any)["extra"] = "x"
				}
			}
		}},
		{"created pod image", "0001.json", "", "differs", func(r *Record) {
			for _, w := range r.Writes {
				if w.Event == EventCreated && w.Resource == "pods" {
					w.After["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"] = "nginx:bad"
					return
				}
			}
		}},
		{"missing create", "0001.json", "", "creates no such object", func(r *Record) {
			for i, w := range r.Writes {
				if w.Event == EventCreated && w.Resource == "persistentvolumeclaims" {
					r.Writes = append(r.Writes[:i:i], r.Writes[i+1:]...)
					return
				}
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := replayRecord(t, base, filepath.Join("../../testdata/conformance-writes", c.file), c.edit)
			if rep.OK() {
				t.Fatal("no finding")
			}
			s := rep.String()
			if !strings.Contains(s, c.object) || !strings.Contains(s, c.problem) {
				t.Errorf("findings do not name %q / %q:\n%s", c.object, c.problem, s)
			}
		})
	}
}

// renameStrings replaces exact string values in a JSON tree (JSON-valued
// strings included, by substring).
func renameStrings(v any, from, to string) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = renameStrings(x, from, to)
		}
	case []any:
		for i, x := range t {
			t[i] = renameStrings(x, from, to)
		}
	case string:
		if t == from {
			return to
		}
		return strings.ReplaceAll(t, `"`+from+`"`, `"`+to+`"`)
	}
	return v
}

// TestCreatedRevisionIsMasked replays a newtemplate record whose created
// revision the writer names differently (another hash, another
// volume-claim-template hash): the comparison must not care.
func TestCreatedRevisionIsMasked(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/conformance-revisions/*-newtemplate.json")
	if len(files) == 0 {
		t.Fatal("no newtemplate records")
	}
	for _, f := range files {
		rep := replayRecord(t, "../../testdata/conformance-revisions", f, func(r *Record) {
			for _, w := range r.Writes {
				if w.Resource == "controllerrevisions" && w.Event == EventCreated {
					name := w.Name
					hash := revisionHash(w.After, name)
					metadata(w.After)["annotations"].(map[string]any)[annotationVCT] = "123"
					for _, x := range r.Writes {
						if x.After != nil {
							renameStrings(x.After, name, "sample-otherhash")
							renameStrings(x.After, hash, "otherhash")
						}
					}
				}
			}
		})
		if !rep.OK() {
			t.Errorf("%s: renaming the created revision matters:\n%s", f, rep)
		}
	}
	// Without the mask, a pod's revision label would differ: check that a
	// created revision with other content is caught.
	rep := replayRecord(t, "../../testdata/conformance-revisions", files[0], func(r *Record) {
		for _, w := range r.Writes {
			if w.Resource == "controllerrevisions" && w.Event == EventCreated {
				w.After["revision"] = 99.0
			}
		}
	})
	if rep.OK() || !strings.Contains(rep.String(), "revision: want") {
		t.Errorf("a created revision with another number is not caught:\n%s", rep)
	}
}
