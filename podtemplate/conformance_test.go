package podtemplate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
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
	f, err := os.Open(filepath.Join(admissionDir, "oracle.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var worlds []admissionWorld
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var line struct {
			ID        string         `json:"id"`
			Defaulted map[string]any `json:"defaulted"`
		}
		if err := decodeJSON(sc.Bytes(), &line); err != nil {
			t.Fatalf("oracle.jsonl: %v", err)
		}
		raw, err := os.ReadFile(filepath.Join(admissionDir, "worlds", line.ID+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var written map[string]any
		if err := decodeJSON(raw, &written); err != nil {
			t.Fatalf("world %s: %v", line.ID, err)
		}
		worlds = append(worlds, admissionWorld{id: line.ID, written: written, defaulted: line.Defaulted})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return worlds
}

func decodeJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}

// comparable is a tree as the record's README compares it: through JSON
// (numbers as float64), without metadata.creationTimestamp at its root, null
// values, and empty objects and lists (at any depth, repeatedly: an object
// left empty by dropping goes too). The CloneSet's own status, which the
// README also drops, is not in a template or a claim template; a claim
// template's status is compared.
func comparable(t testing.TB, tree map[string]any) any {
	t.Helper()
	b, err := json.Marshal(tree)
	if err != nil {
		t.Fatal(err)
	}
	var plain map[string]any
	if err := json.Unmarshal(b, &plain); err != nil {
		t.Fatal(err)
	}
	if meta, ok := plain["metadata"].(map[string]any); ok {
		delete(meta, "creationTimestamp")
	}
	return dropEmpty(plain)
}

// dropEmpty removes nulls and empty objects and lists; nil when v itself is
// one of them.
func dropEmpty(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, item := range x {
			if kept := dropEmpty(item); kept != nil {
				out[k] = kept
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		out := []any{}
		for _, item := range x {
			if kept := dropEmpty(item); kept != nil {
				out = append(out, kept)
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	}
	return v
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
