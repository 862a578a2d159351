package manifest_test

import (
	"fmt"
	"testing"

	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/worldgen"
)

// BenchmarkLoad reads the manifest stream of a 10k-pod worldgen.Realistic
// world (10k pods, their PVCs, nodes and revisions) from JSON (one document a
// line, as EncodeJSON writes it) and from YAML (EncodeYAML), without and
// with the unknown-field check (Options.Warn, as the CLI loads).
func BenchmarkLoad(b *testing.B) {
	const pods = 10_000
	for _, enc := range []struct {
		name string
		fn   func(*model.Scenario) ([]byte, error)
	}{
		{"json", manifest.EncodeJSON},
		{"yaml", manifest.EncodeYAML},
	} {
		b.Run(fmt.Sprintf("%s/pods=%d", enc.name, pods), func(b *testing.B) {
			data, err := enc.fn(worldgen.Realistic(1, pods))
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := manifest.LoadBytes(data, "bench"); err != nil {
					b.Fatal(err)
				}
			}
		})
		// With the unknown-field check the CLI runs (Options.Warn).
		b.Run(fmt.Sprintf("%s/pods=%d/warn", enc.name, pods), func(b *testing.B) {
			data, err := enc.fn(worldgen.Realistic(1, pods))
			if err != nil {
				b.Fatal(err)
			}
			opts := manifest.Options{Warn: func(w manifest.Warning) { b.Fatalf("unexpected warning: %s", w) }}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := opts.LoadBytes(data, "bench"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
