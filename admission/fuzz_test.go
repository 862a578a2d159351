package admission

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzAdmission: any bytes are either refused with an error or read; a read
// CloneSet goes through the mutating webhook (create and update), the
// validating webhook (create, update, delete) and both conversions without
// a panic; the defaults are idempotent and deterministic, every output
// reads back as itself, and a v1beta1 object converted to v1alpha1 and back
// is itself where upstream's conversion is lossless (losslessV1beta1). The seeds are testdata/conformance-admission's
// worlds.
func FuzzAdmission(f *testing.F) {
	worlds, _ := filepath.Glob(filepath.Join(recordDir, "worlds", "*.json"))
	for _, w := range worlds {
		data, err := os.ReadFile(w)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"apiVersion":"apps.kruise.io/v1beta1","kind":"CloneSet","spec":{"replicas":"x"}}`))
	f.Add([]byte(`{"apiVersion":"apps.kruise.io/v1alpha1","kind":"CloneSet","metadata":{"annotations":{"apps.kruise.io/image-predownload-parallelism":"99999999999"}},"spec":{"updateStrategy":{"type":"OnDelete","partition":"1e400%"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, err := Parse(data)
		if err != nil {
			return
		}
		for _, gates := range []Gates{{}, {TemplateNoDefaults: true, ResourcesDeletionProtection: true, DefaultHostNetworkHostPortsInPodTemplates: true}} {
			d, err := Default(obj, nil, gates)
			if err != nil {
				t.Fatalf("%s: Default: %v", data, err)
			}
			out := jsonOf(t, d)
			if again, err := Default(d, nil, gates); err != nil || jsonOf(t, again) != out {
				t.Fatalf("%s: Default is not idempotent (%v)", data, err)
			}
			if again, err := Default(obj, nil, gates); err != nil || jsonOf(t, again) != out {
				t.Fatalf("%s: Default is not deterministic (%v)", data, err)
			}
			if back := jsonOf(t, parse(t, out)); back != out {
				t.Fatalf("%s: the defaulted object reads back otherwise", data)
			}
			upd, err := Default(obj, d, gates)
			if err != nil {
				t.Fatalf("%s: Default on update: %v", data, err)
			}
			for _, c := range []struct {
				op       Operation
				obj, old *Object
			}{{Create, d, nil}, {Update, upd, d}, {Delete, nil, d}} {
				if _, err := Validate(c.op, c.obj, c.old, Options{Gates: gates}); err != nil {
					t.Fatalf("%s: Validate %s: %v", data, c.op, err)
				}
			}
			converted := map[Version]*Object{}
			for _, v := range []Version{V1alpha1, V1beta1} {
				c, err := Convert(d, v)
				if err != nil {
					t.Fatalf("%s: Convert to %s: %v", data, v, err)
				}
				if b := jsonOf(t, c); jsonOf(t, parse(t, b)) != b {
					t.Fatalf("%s: the %s conversion reads back otherwise", data, v)
				}
				converted[v] = c
			}
			// Through v1alpha1 and back: itself where upstream is lossless.
			hub := converted[V1beta1]
			if losslessV1beta1(hub) {
				back, err := Convert(converted[V1alpha1], V1beta1)
				if err != nil {
					t.Fatal(err)
				}
				if hub.version == V1beta1 && d.version == V1beta1 && jsonOf(t, back) != jsonOf(t, hub) {
					t.Fatalf("%s: lost in a lossless round trip:\n%s\n%s", data, jsonOf(t, hub), jsonOf(t, back))
				}
			}
		}
	})
}
