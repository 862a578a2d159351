package admission

import (
	"os"
	"testing"
)

// BenchmarkParse: reading a CloneSet of the admission record (world 0001:
// a template with containers, probes, volumes and resources) from its JSON.
func BenchmarkParse(b *testing.B) {
	doc, err := os.ReadFile("../testdata/conformance-admission/worlds/0001.json")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(doc); err != nil {
			b.Fatal(err)
		}
	}
}
