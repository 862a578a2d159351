package clonesetcore_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/internal/cisummary"
	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
)

// revisionConformanceDir holds, for worlds NNNN-newtemplate, NNNN-rollback and
// NNNN-history, what the real controller did with ControllerRevisions in one
// round, copied unchanged from the shared conformance-revisions folder (see its
// README).
const revisionConformanceDir = "../testdata/conformance-revisions"

// revisionRecord is the part of a record this replay reads.
type revisionRecord struct {
	CurrentRevision string `json:"currentRevision"`
	UpdateRevision  string `json:"updateRevision"`
	Writes          []struct {
		Resource string `json:"resource"`
		Name     string `json:"name"`
		Event    string `json:"event"`
		Before   *struct {
			Revision int64 `json:"revision"`
		} `json:"before"`
		After *struct {
			Revision int64 `json:"revision"`
		} `json:"after"`
	} `json:"writes"`
}

// recordedRevisionWrite is one ControllerRevision write of a record.
type recordedRevisionWrite struct {
	name   string
	number int64 // the `revision` field after the write (created, changed)
}

// TestRevisionConformance replays every world of testdata/conformance-revisions
// and compares the plan's revision decisions with the record (LSV 2.3, 2.7):
// the revisions created (number; the name is upstream's hash, so it is
// compared masked: the plan's update revision must be the name it creates),
// changed (name and new number) and deleted (names), and the round's update
// and current revisions. Object contents (labels, owner references, data) are
// compared at the requests level.
func TestRevisionConformance(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(revisionConformanceDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no revision conformance worlds in %s (%v)", revisionConformanceDir, err)
	}
	passed := 0
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		if t.Run(name, func(t *testing.T) { replayRevisionWorld(t, f) }) {
			passed++
		}
	}
	summary := fmt.Sprintf("conformance revisions: %d/%d", passed, len(files))
	cisummary.Print(t, summary)
}

func replayRevisionWorld(t *testing.T, file string) {
	raw, err := os.ReadFile(strings.TrimSuffix(file, ".yaml") + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var rec revisionRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var created, changed, deleted []recordedRevisionWrite
	for _, w := range rec.Writes {
		if w.Resource != "controllerrevisions" {
			continue
		}
		rw := recordedRevisionWrite{name: w.Name}
		if w.After != nil {
			rw.number = w.After.Revision
		}
		switch w.Event {
		case "created":
			created = append(created, rw)
		case "changed":
			changed = append(changed, rw)
		case "deleted":
			deleted = append(deleted, rw)
		default:
			t.Fatalf("%s: unknown event %q of ControllerRevision %s", file, w.Event, w.Name)
		}
	}
	s, err := manifest.LoadFiles([]string{file}, nil)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	res, err := clonesetcore.Plan(s)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if v := invariantViolations(s, res); len(v) > 0 {
		t.Errorf("%s: invariants broken: %q", file, v)
	}
	planCreate := ofType(res, model.ActionCreateRevision)
	planUpdate := ofType(res, model.ActionUpdateRevision)
	planDelete := ofType(res, model.ActionDeleteRevision)
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf("%s [LSV 2.3, 2.7]: %s\n  plan revision actions %q\n  notes %q", file, fmt.Sprintf(format, args...), revisionActs(res), res.Notes)
	}

	// Created: at most one, its number as recorded; its name is masked (the
	// library's hash) and must be the plan's update revision.
	mask := map[string]string{} // upstream's name -> the plan's
	switch {
	case len(created) != len(planCreate):
		fail("%d CreateRevision, the controller created %d", len(planCreate), len(created))
	case len(created) == 1:
		if planCreate[0].RevisionNumber != created[0].number {
			fail("CreateRevision %s with revision %d, the controller created %s with revision %d",
				planCreate[0].Revision, planCreate[0].RevisionNumber, created[0].name, created[0].number)
		}
		if res.UpdateRevision != planCreate[0].Revision {
			fail("update revision %s is not the created %s", res.UpdateRevision, planCreate[0].Revision)
		}
		mask[created[0].name] = planCreate[0].Revision
	}
	unmask := func(name string) string {
		if m, ok := mask[name]; ok {
			return m
		}
		return name
	}

	// Changed: the roll-back's new number.
	got := make([]string, 0, len(planUpdate))
	for _, a := range planUpdate {
		got = append(got, fmt.Sprintf("%s=%d", a.Revision, a.RevisionNumber))
	}
	want := make([]string, 0, len(changed))
	for _, c := range changed {
		want = append(want, fmt.Sprintf("%s=%d", c.name, c.number))
	}
	if !slices.Equal(got, want) {
		fail("UpdateRevision %q, the controller changed %q", got, want)
	}

	// Deleted: exactly the recorded names (the record lists them in name order).
	got = got[:0]
	for _, a := range planDelete {
		got = append(got, a.Revision)
	}
	slices.Sort(got)
	want = want[:0]
	for _, d := range deleted {
		want = append(want, d.name)
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		fail("DeleteRevision %q, the controller deleted %q", got, want)
	}

	// The round's revisions. The record's currentRevision is the revision the
	// round started with (upstream's getActiveRevisions result, the one history
	// truncation keeps), not the advanced status value: in the worlds where
	// every pod is at the update revision (0010-history, 0011-newtemplate, ...)
	// it stays at the old revision while LSV 2.3 advances the status.
	if w := unmask(rec.UpdateRevision); res.UpdateRevision != w || res.Status.UpdateRevision != w {
		fail("update revision %s (status %s), the controller's %s (masked %s)", res.UpdateRevision, res.Status.UpdateRevision, rec.UpdateRevision, w)
	}
	if w := unmask(rec.CurrentRevision); res.CurrentRevision != w {
		fail("current revision %s, the controller's %s (masked %s)", res.CurrentRevision, rec.CurrentRevision, w)
	}

	// What each kind of world is about happened.
	kind := filepath.Base(file)
	kind = strings.TrimSuffix(kind[strings.IndexByte(kind, '-')+1:], ".yaml")
	switch kind {
	case "newtemplate":
		if len(planCreate) != 1 {
			fail("a new template: want exactly one CreateRevision")
		}
	case "rollback":
		if len(planUpdate) != 1 || len(planCreate) != 0 {
			fail("a roll-back: want one UpdateRevision and no CreateRevision")
		}
	case "history":
		if len(planDelete) == 0 {
			fail("history beyond the limit: want DeleteRevision actions")
		}
	default:
		t.Fatalf("%s: unknown kind of world %q", file, kind)
	}
}
