package podtemplate

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRevisionData: any JSON object is either refused with an *Error or
// encoded; the encoding is a fixed point (the revision data of the written
// template is the same bytes again: upstream's stored revisions read back
// equal to themselves); nothing panics. The seeds are the templates of
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
	f.Fuzz(func(t *testing.T, doc []byte) {
		dec := json.NewDecoder(bytes.NewReader(doc))
		dec.UseNumber()
		var tpl map[string]any
		if err := dec.Decode(&tpl); err != nil {
			return
		}
		data, err := RevisionData(tpl)
		if checked := Check(tpl, ""); (checked == nil) != (err == nil) || (err != nil && checked.Error() != err.Error()) {
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
