package corev1table

import (
	"bytes"
	"encoding/json"
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
// same escaping and quantities, integers exact (int64 beyond 2^53 and to
// the ends of its range), a managed fields entry's fieldsV1 as the text it
// was read from (members in their order, numbers as written). One
// difference is taken out before comparing: the zero creationTimestamp,
// which the library writes as null as upstream's apimachinery does (v0.37
// leaves it out). The library reads the document with
// podtemplate.DecodeJSON.
func TestAppendJSONMatchesTypedMarshal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := &templateGen{t: t, budget: 150}
		doc, err := json.Marshal(g.template())
		if err != nil {
			t.Fatal(err)
		}
		compareAppended[corev1.PodTemplateSpec](t, doc, podtemplate.Encode, podtemplate.AppendJSON)
	})
}

// TestAppendClaimJSONMatchesTypedMarshal: the same for volume claim
// templates (podtemplate.AppendClaimJSON of EncodeClaimTemplate's output
// and v1.PersistentVolumeClaim).
func TestAppendClaimJSONMatchesTypedMarshal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := &templateGen{t: t, budget: 80}
		doc, err := json.Marshal(g.object(ClaimRoot, 0, "claim"))
		if err != nil {
			t.Fatal(err)
		}
		compareAppended[corev1.PersistentVolumeClaim](t, doc, podtemplate.EncodeClaimTemplate, podtemplate.AppendClaimJSON)
	})
}

// compareAppended compares the library's typed JSON of doc (encode, then
// appendJSON) with encoding/json on the k8s.io/api type T, as
// TestAppendJSONMatchesTypedMarshal says.
func compareAppended[T any](t *rapid.T, doc []byte, encode func(map[string]any) (map[string]any, error), appendJSON func([]byte, map[string]any) ([]byte, error)) {
	var typed T
	if err := json.Unmarshal(doc, &typed); err != nil {
		t.Skip("k8s.io/api refuses the object")
	}
	want, err := json.Marshal(&typed)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := podtemplate.DecodeJSON(doc)
	if err != nil {
		t.Fatal(err)
	}
	encoded, err := encode(tree)
	if err != nil {
		t.Fatalf("object %s: the library refuses what k8s.io/api reads: %v", doc, err)
	}
	got, err := appendJSON(nil, encoded)
	if err != nil {
		t.Fatal(err)
	}
	got = withoutNullCreationTimestamps(got)
	if !bytes.Equal(got, want) {
		t.Fatalf("object %s\nk8s.io/api: %s\nlibrary:    %s", doc, want, got)
	}
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
