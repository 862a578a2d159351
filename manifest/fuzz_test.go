package manifest

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
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
	f.Add([]byte(beta(selTpl+"  updateStrategy: {maxUnavailable: 20x%, rollingUpdate: {Partition: 1}}\n") + podDoc("p1", "sample", "x: y") +
		"---\napiVersion: v1\nkind: PodList\nitems:\n- metadata: {name: p2, bogus: 1}\n  spec: {containers: [{name: c, imagePullPolicyy: Always}]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkUnknownFields(t, data)
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

// checkUnknownFields holds the unknown-field check to its promises on any
// input: warnings never change what loads (the same scenario, or the same
// error), each names a place, an object and a field, and StrictFields
// refuses exactly the inputs that load with warnings.
func checkUnknownFields(t *testing.T, data []byte) {
	t.Helper()
	plain, plainErr := LoadBytes(data, "fuzz.yaml")
	var warnings []Warning
	warned, warnErr := Options{Warn: func(w Warning) { warnings = append(warnings, w) }}.LoadBytes(data, "fuzz.yaml")
	if (plainErr == nil) != (warnErr == nil) || (plainErr != nil && plainErr.Error() != warnErr.Error()) {
		t.Fatalf("warnings changed the outcome: %v, then %v", plainErr, warnErr)
	}
	if plainErr == nil && !reflect.DeepEqual(plain, warned) {
		t.Fatal("warnings changed the scenario")
	}
	for _, w := range warnings {
		if !strings.HasPrefix(w.Where, "fuzz.yaml") || w.Object == "" || w.Path == "" || !strings.Contains(w.Message, "ignored") && !strings.Contains(w.Message, "not") {
			t.Fatalf("a warning that does not say where or what: %+v", w)
		}
	}
	_, strictErr := Options{StrictFields: true}.LoadBytes(data, "fuzz.yaml")
	switch {
	case plainErr == nil && len(warnings) == 0 && strictErr != nil:
		t.Fatalf("StrictFields refused an input without unknown fields: %v", strictErr)
	case plainErr == nil && len(warnings) > 0 && strictErr == nil:
		t.Fatalf("StrictFields accepted %d unknown fields (%s)", len(warnings), warnings[0])
	}
}
