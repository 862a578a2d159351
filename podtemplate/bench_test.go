package podtemplate

import (
	"encoding/json"
	"os"
	"testing"
)

// benchTemplate is the template of testdata/conformance-revnames world 0001
// (two containers, an init container, probes, volumes, resources).
func benchTemplate(b *testing.B) map[string]any {
	raw, err := os.ReadFile("../testdata/conformance-revnames/worlds/0001.json")
	if err != nil {
		b.Fatal(err)
	}
	var doc struct {
		Spec struct {
			Template json.RawMessage `json:"template"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		b.Fatal(err)
	}
	return tree(b, string(doc.Spec.Template))
}

// BenchmarkRevisionData: upstream's revision data of a rich template.
func BenchmarkRevisionData(b *testing.B) {
	tpl := benchTemplate(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := RevisionData(tpl); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheck: the typed checks of the same template (what validation
// runs every round).
func BenchmarkCheck(b *testing.B) {
	tpl := benchTemplate(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := Check(tpl, "spec.template"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDefault: the webhook's defaults of the same template (the typed
// encoding and the defaults on it).
func BenchmarkDefault(b *testing.B) {
	tpl := benchTemplate(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Default(tpl); err != nil {
			b.Fatal(err)
		}
	}
}
