package podtemplate

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/clonecore/cloneset/internal/admissionrecord"
)

// admissionDir is the record of kruise's CloneSet webhooks (a byte copy of
// /work/shared/conformance-admission; its README says how to compare).
const admissionDir = "../testdata/conformance-admission"

// admissionWorld is one world of the record: the CloneSet as written
// (worlds/NNNN.json) and what the mutating webhook made of it (the
// oracle's "defaulted").
type admissionWorld struct {
	id        string
	written   map[string]any
	defaulted map[string]any
}

// admissionWorlds reads the record, numbers as json.Number (as the
// library's loaders read JSON).
func admissionWorlds(t testing.TB) []admissionWorld {
	t.Helper()
	lines, err := admissionrecord.Read(admissionDir)
	if err != nil {
		t.Fatal(err)
	}
	var worlds []admissionWorld
	for _, line := range lines {
		raw, err := os.ReadFile(filepath.Join(admissionDir, "worlds", line.ID+".json"))
		if err != nil {
			t.Fatal(err)
		}
		written, err := admissionrecord.DecodeJSON(raw)
		if err != nil {
			t.Fatalf("world %s: %v", line.ID, err)
		}
		worlds = append(worlds, admissionWorld{id: line.ID, written: written, defaulted: line.Defaulted})
	}
	return worlds
}

// comparable is a tree as the record's README compares it
// (admissionrecord.DropEmpty), without metadata.creationTimestamp at its
// root. The CloneSet's own status, which the README also drops, is not in a
// template or a claim template; a claim template's status is compared.
func comparable(t testing.TB, tree map[string]any) any {
	t.Helper()
	if meta, ok := tree["metadata"].(map[string]any); ok {
		trimmed := make(map[string]any, len(tree))
		for k, v := range tree {
			trimmed[k] = v
		}
		md := make(map[string]any, len(meta))
		for k, v := range meta {
			if k != "creationTimestamp" {
				md[k] = v
			}
		}
		trimmed["metadata"] = md
		tree = trimmed
	}
	return admissionrecord.DropEmpty(tree)
}

// TestDefaultConformance replays the admission record: for every world,
// Default of the template as written is the template kruise's mutating
// webhook left (the oracle's defaulted.spec.template), and DefaultClaimTemplate
// of each volume claim template is the webhook's, under the README's
// comparison. Refused worlds count too: their "defaulted" is still the
// mutating webhook's output.
func TestDefaultConformance(t *testing.T) {
	worlds := admissionWorlds(t)
	if len(worlds) != 100 {
		t.Fatalf("%d worlds in the record, want 100", len(worlds))
	}
	templates, claims, claimsMatched := 0, 0, 0
	for _, w := range worlds {
		written, defaulted := object(w.written["spec"]), object(w.defaulted["spec"])
		if ok := t.Run(w.id+"/template", func(t *testing.T) {
			got, err := Default(object(written["template"]))
			if err != nil {
				t.Fatal(err)
			}
			expectSameTree(t, comparable(t, got), comparable(t, object(defaulted["template"])))
		}); ok {
			templates++
		}
		writtenClaims, defaultedClaims := list(written["volumeClaimTemplates"]), list(defaulted["volumeClaimTemplates"])
		if len(writtenClaims) != len(defaultedClaims) {
			t.Errorf("%s: %d claim templates written, %d defaulted", w.id, len(writtenClaims), len(defaultedClaims))
			continue
		}
		for i := range writtenClaims {
			claims++
			if ok := t.Run(fmt.Sprintf("%s/volumeClaimTemplates[%d]", w.id, i), func(t *testing.T) {
				got, err := DefaultClaimTemplate(object(writtenClaims[i]))
				if err != nil {
					t.Fatal(err)
				}
				expectSameTree(t, comparable(t, got), comparable(t, object(defaultedClaims[i])))
			}); ok {
				claimsMatched++
			}
		}
	}
	t.Logf("conformance admission templates: defaulted %d/%d, claim templates %d/%d", templates, len(worlds), claimsMatched, claims)
	if claims == 0 {
		t.Fatal("the record has no claim template: the claim check checks nothing")
	}
}

// expectSameTree fails with both trees as JSON when they differ.
func expectSameTree(t *testing.T, got, want any) {
	t.Helper()
	if reflect.DeepEqual(got, want) {
		return
	}
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	t.Fatalf("\ngot:  %s\nwant: %s", g, w)
}
