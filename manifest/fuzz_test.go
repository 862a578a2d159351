package manifest

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad checks that no input makes the loader panic, and that what loads
// is consistent: one CloneSet, kept pods named and unique.
func FuzzLoad(f *testing.F) {
	seeds, _ := filepath.Glob("../testdata/manifests/*.yaml")
	for _, s := range seeds[:min(len(seeds), 8)] {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(beta(selTpl) + podDoc("p1", "sample") + podDoc("p2", "") + pvcDoc("c1", "kind: Pod, name: p1")))
	f.Add([]byte(alpha(selTpl+"  updateStrategy: {type: InPlaceOnly, partition: 50%, maxUnavailable: 1}\n") +
		"---\napiVersion: clonesetcore/v1alpha1\nkind: Scenario\nnow: \"2026-01-01T00:00:00Z\"\nfeatureGates: {CloneSetShortHash: true}\n"))
	f.Add([]byte(`{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "apps.kruise.io/v1beta1", "kind": "CloneSet", "metadata": {"name": "s"}}]}`))
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte(beta(selTpl) + "  x: &m {a: 1, <<: [*m, *m, *m]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opts := range []Options{{}, {SkipBudgetRule: true}} {
			s, err := opts.LoadBytes(data, "fuzz.yaml")
			if err != nil {
				if s != nil {
					t.Fatalf("scenario and error: %v", err)
				}
				continue
			}
			if s.CloneSet == nil || s.CloneSet.Spec.Replicas == nil {
				t.Fatal("loaded without a defaulted CloneSet")
			}
			seen := map[string]bool{}
			for _, p := range s.Pods {
				if p.Name == "" || seen[p.Name] {
					t.Fatalf("bad pod name %q", p.Name)
				}
				seen[p.Name] = true
			}
		}
	})
}
