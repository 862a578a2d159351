package podtemplate

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzRevisionData: any JSON object (read by DecodeJSON, which refuses
// exactly what encoding/json refuses) is either
// refused with an *Error or encoded; Check refuses exactly what
// RevisionData refuses, but for a FieldsV1 number beyond float64 (the typed
// form keeps its text, upstream's generic round trip cannot read it); the
// encoding is a fixed point (the revision data of the written template is
// the same bytes again: upstream's stored revisions read back equal to
// themselves); nothing panics. The seeds are the templates of
// testdata/conformance-revnames.
func FuzzRevisionData(f *testing.F) {
	worlds, _ := filepath.Glob("../testdata/conformance-revnames/worlds/*.json")
	for _, w := range worlds {
		raw, err := os.ReadFile(w)
		if err != nil {
			f.Fatal(err)
		}
		var doc struct {
			Spec struct {
				Template json.RawMessage `json:"template"`
			} `json:"spec"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			f.Fatal(err)
		}
		f.Add([]byte(doc.Spec.Template))
	}
	f.Add([]byte(`{"spec":{"containers":[{"name":"c","ports":[{"containerPort":"80"}]}]}}`))
	f.Add([]byte(`{"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":".e-10","memory":"1.e-3"}}}]}}`))
	f.Add([]byte(`{"metadata":{"managedFields":[{"fieldsV1":{"n":1e400}}]}}`))
	f.Add([]byte(`{"metadata":{"labels":{"a":"1","a":"2"}}}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		var plain map[string]any
		dec := json.NewDecoder(bytes.NewReader(doc))
		dec.UseNumber()
		plainErr := dec.Decode(&plain)
		if plainErr == nil && !json.Valid(doc) {
			plainErr = errors.New("trailing data")
		}
		tpl, err := DecodeJSON(doc)
		switch {
		case err != nil && plainErr == nil:
			t.Fatalf("%s: DecodeJSON refuses what encoding/json reads: %v", doc, err)
		case err == nil && plainErr != nil:
			t.Fatalf("%s: DecodeJSON reads what encoding/json refuses (%v)", doc, plainErr)
		case err != nil:
			return
		}
		data, err := RevisionData(tpl)
		checked := Check(tpl, "")
		switch {
		case checked == nil && err != nil:
			if e, ok := err.(*Error); !ok || !strings.Contains(e.Path, "fieldsV1") || e.Reason != "a number beyond float64" {
				t.Fatalf("%s: Check says nil, RevisionData %v", doc, err)
			}
		case checked != nil && (err == nil || checked.Error() != err.Error()):
			t.Fatalf("%s: Check says %v, RevisionData %v", doc, checked, err)
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%s: an error that names no field: %v", doc, err)
			}
			return
		}
		again, err := RevisionData(templateOf(t, data))
		if err != nil || !bytes.Equal(again, data) {
			t.Fatalf("%s: not a fixed point\nfirst:  %s\nsecond: %s (%v)", doc, data, again, err)
		}
	})
}

// templateOf reads the template back out of revision data.
func templateOf(t *testing.T, data []byte) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var rev struct {
		Spec struct {
			Template map[string]any `json:"template"`
		} `json:"spec"`
	}
	if err := dec.Decode(&rev); err != nil {
		t.Fatalf("revision data is not JSON: %v\n%s", err, data)
	}
	return rev.Spec.Template
}

// FuzzDefault: any JSON object, read as a pod template and as a volume
// claim template, is either refused with an *Error or defaulted; defaulting
// is deterministic, leaves its input alone, is idempotent (the defaults of
// a defaulted tree are that tree) and writes a typed encoding (Encode of a
// defaulted template is itself); nothing panics. The seeds are the
// templates and claim templates of testdata/conformance-admission.
func FuzzDefault(f *testing.F) {
	worlds, _ := filepath.Glob("../testdata/conformance-admission/worlds/*.json")
	for _, w := range worlds {
		raw, err := os.ReadFile(w)
		if err != nil {
			f.Fatal(err)
		}
		var doc struct {
			Spec struct {
				Template json.RawMessage   `json:"template"`
				Claims   []json.RawMessage `json:"volumeClaimTemplates"`
			} `json:"spec"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			f.Fatal(err)
		}
		f.Add([]byte(doc.Spec.Template))
		for _, c := range doc.Spec.Claims {
			f.Add([]byte(c))
		}
	}
	f.Add([]byte(`{"spec":{"initContainers":[{"name":"i","image":"Nginx:latest@sha256:0"}],"volumes":[{"name":"v"},{"name":"h","hostPath":null}]}}`))
	f.Add([]byte(`{"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"1023.9999999Ki","memory":-1e-7}}}],"overhead":{"cpu":null}}}`))
	f.Add([]byte(`{"spec":{"resources":{"requests":{"storage":"0.0001"}}},"status":{"capacity":{"storage":"1.5Ki"}}}`))
	check := func(t *testing.T, doc []byte, kind string, def, encode func(map[string]any) (map[string]any, error)) {
		in := decodeTree(doc)
		out, err := def(in)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%s %s: an error that names no field: %v", kind, doc, err)
			}
			return
		}
		if !bytes.Equal(mustJSON(t, in), mustJSON(t, decodeTree(doc))) {
			t.Fatalf("%s %s: defaulting changed its input", kind, doc)
		}
		first := mustJSON(t, out)
		again, err := def(decodeTree(doc))
		if err != nil || !bytes.Equal(mustJSON(t, again), first) {
			t.Fatalf("%s %s: two results\nfirst:  %s\nsecond: %s (%v)", kind, doc, first, mustJSON(t, again), err)
		}
		twice, err := def(out)
		if err != nil || !bytes.Equal(mustJSON(t, twice), first) {
			t.Fatalf("%s %s: not idempotent\nonce:  %s\ntwice: %s (%v)", kind, doc, first, mustJSON(t, twice), err)
		}
		encoded, err := encode(out)
		if err != nil || !bytes.Equal(mustJSON(t, encoded), first) {
			t.Fatalf("%s %s: not a typed encoding\ndefaulted: %s\nencoded:   %s (%v)", kind, doc, first, mustJSON(t, encoded), err)
		}
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if decodeTree(doc) == nil {
			return
		}
		check(t, doc, "template", Default, Encode)
		check(t, doc, "claim template", DefaultClaimTemplate, EncodeClaimTemplate)
	})
}

// decodeTree reads a JSON object as the library's loaders do (numbers as
// json.Number); nil when doc is not one.
func decodeTree(doc []byte) map[string]any {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil
	}
	return m
}

// mustJSON writes a tree as JSON (members sorted).
func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%v: %v", v, err)
	}
	return b
}
