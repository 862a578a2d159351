package clonesetcore

import (
	"testing"

	"github.com/clonecore/cloneset/model"
)

// TestVolumeClaimTemplatesHashIsUpstreams: the values upstream wrote on the
// revisions of the recorded worlds (testdata/conformance-revisions: every
// newtemplate record's created revision carries 2951860893 for the claim
// template below).
func TestVolumeClaimTemplatesHashIsUpstreams(t *testing.T) {
	data := model.VolumeClaimTemplate{Name: "data", Raw: map[string]any{
		"metadata": map[string]any{"name": "data", "creationTimestamp": nil},
		"spec":     map[string]any{"accessModes": []any{"ReadWriteOnce"}, "resources": map[string]any{}},
		"status":   map[string]any{},
	}}
	noResources := data
	noResources.Raw = map[string]any{"spec": map[string]any{"accessModes": []any{"ReadWriteOnce"}}}
	for _, c := range []struct {
		name string
		in   []model.VolumeClaimTemplate
		want string
	}{
		{"none", nil, ""},
		{"recorded", []model.VolumeClaimTemplate{data}, "2951860893"},
		// resources is a struct: encoded even when absent.
		{"resources absent", []model.VolumeClaimTemplate{noResources}, "2951860893"},
	} {
		if got := VolumeClaimTemplatesHash(c.in); got != c.want {
			t.Errorf("%s: %q, want %q (JSON %s)", c.name, got, c.want, vctJSON(c.in))
		}
	}
	// Sorted by name: the order of the templates does not matter.
	a, b := data, data
	b.Name = "aaa"
	if VolumeClaimTemplatesHash([]model.VolumeClaimTemplate{a, b}) != VolumeClaimTemplatesHash([]model.VolumeClaimTemplate{b, a}) {
		t.Error("the hash depends on the order of the templates")
	}
}
