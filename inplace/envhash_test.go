package inplace

import (
	"testing"

	"github.com/clonecore/cloneset/model"
)

// TestEnvFromMetadataHashMatchesKruise compares EnvFromMetadataHash with the
// values kruise v1.9.0's own hasher (pkg/util/containermeta
// GetExpectHash) gave for the same containers and metadata, computed once
// in the peer module (examples/kubecontroller/kruisepeer).
func TestEnvFromMetadataHashMatchesKruise(t *testing.T) {
	labels := map[string]string{"app": "web<&>"}
	annotations := map[string]string{"config": "bar"}
	config := []model.EnvVar{
		{Name: "KRUISE_CONTAINER_PRIORITY", Value: "10", HasValue: true},
		{Name: "CONFIG", FieldPath: "metadata.annotations['config']"},
	}
	cases := []struct {
		name        string
		env         []model.EnvVar
		annotations map[string]string
		want        uint64
	}{
		{name: "no env", want: 86995377},
		{name: "literal env only", env: []model.EnvVar{{Name: "A", Value: "x", HasValue: true}}, want: 86995377},
		{name: "annotation config=bar", env: config, want: 1042303244},
		{name: "annotation config=foo", env: config, annotations: map[string]string{"config": "foo"}, want: 2466869200},
		{name: "label with HTML characters, missing annotation, excluded and other field paths", env: []model.EnvVar{
			{Name: "Z", FieldPath: "metadata.labels['app']"},
			{Name: "B", FieldPath: "metadata.annotations['missing']"},
			{Name: "SIDECARSET_VERSION", FieldPath: "metadata.labels['app']"},
			{Name: "N", FieldPath: "metadata.name"},
		}, want: 716072214},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := annotations
			if c.annotations != nil {
				a = c.annotations
			}
			if got := EnvFromMetadataHash(c.env, labels, a); got != c.want {
				t.Errorf("EnvFromMetadataHash = %d, want %d (kruise's)", got, c.want)
			}
		})
	}
}

func TestSplitSubscriptedPath(t *testing.T) {
	cases := []struct {
		in        string
		path, key string
		ok        bool
	}{
		{"metadata.labels['a']", "metadata.labels", "a", true},
		{"metadata.annotations['x['y']", "metadata.annotations", "x['y", true},
		{"['a']", "", "", false},
		{"metadata.labels", "", "", false},
		{"metadata.labels']", "", "", false},
	}
	for _, c := range cases {
		path, key, ok := splitSubscriptedPath(c.in)
		if path != c.path || key != c.key || ok != c.ok {
			t.Errorf("splitSubscriptedPath(%q) = %q, %q, %v; want %q, %q, %v", c.in, path, key, ok, c.path, c.key, c.ok)
		}
	}
}
