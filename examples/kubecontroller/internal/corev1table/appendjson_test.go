package corev1table

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/clonecore/cloneset/podtemplate"
)

// TestAppendJSONMatchesTypedMarshal: for generated templates the library's
// typed JSON of a template (podtemplate.AppendJSON of Encode's output) is
// byte for byte what encoding/json writes for the v1.PodTemplateSpec
// k8s.io/api reads from it: members in Go field order, map keys sorted, the
// same escaping and quantities. Two differences are taken out before
// comparing: the zero creationTimestamp, which the library writes as null
// as upstream's apimachinery does (v0.37 leaves it out); and integers beyond
// 2^53, which Encode holds as float64, and the raw JSON of a managed fields
// entry's fieldsV1, which Encode holds as generic values (such a template is
// compared as decoded values).
func TestAppendJSONMatchesTypedMarshal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := &templateGen{t: t, budget: 150}
		doc, err := json.Marshal(g.template())
		if err != nil {
			t.Fatal(err)
		}
		var typed corev1.PodTemplateSpec
		if err := json.Unmarshal(doc, &typed); err != nil {
			t.Skip("k8s.io/api refuses the template")
		}
		want, err := json.Marshal(&typed)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader(doc))
		dec.UseNumber()
		var tree map[string]any
		if err := dec.Decode(&tree); err != nil {
			t.Fatal(err)
		}
		encoded, err := podtemplate.Encode(tree)
		if err != nil {
			t.Fatalf("template %s: the library refuses what k8s.io/api reads: %v", doc, err)
		}
		got, err := podtemplate.AppendJSON(nil, encoded)
		if err != nil {
			t.Fatal(err)
		}
		got = withoutNullCreationTimestamps(got)
		if hasIntegerBeyond53(want) || bytes.Contains(want, []byte(`"fieldsV1":`)) {
			var w, g any
			_ = json.Unmarshal(want, &w)
			_ = json.Unmarshal(got, &g)
			if !reflect.DeepEqual(w, g) {
				t.Fatalf("template %s\nk8s.io/api: %s\nlibrary:    %s", doc, want, got)
			}
			return
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("template %s\nk8s.io/api: %s\nlibrary:    %s", doc, want, got)
		}
	})
}

// withoutNullCreationTimestamps drops the "creationTimestamp":null members
// of a typed encoding (a string member's quotes are escaped, so the text
// only matches a member).
func withoutNullCreationTimestamps(b []byte) []byte {
	s := string(b)
	for _, m := range []string{`"creationTimestamp":null,`, `,"creationTimestamp":null`, `"creationTimestamp":null`} {
		s = strings.ReplaceAll(s, m, "")
	}
	return []byte(s)
}

// hasIntegerBeyond53 reports whether a JSON document holds an integer that
// float64 does not hold exactly.
func hasIntegerBeyond53(doc []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if n, ok := tok.(json.Number); ok {
			if i, err := n.Int64(); err == nil && (i > 1<<53 || i < -(1<<53)) {
				return true
			}
			if f, err := n.Float64(); err == nil && math.Abs(f) > 1<<53 {
				return true
			}
		}
	}
}
