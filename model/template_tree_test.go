package model

import (
	"encoding/json"
	"testing"
)

// TestTemplateTreeMatchesManifestShape checks that a template built in code
// renders as the tree a manifest with the same content decodes to, so the
// revision hash and in-place diffs treat both alike.
func TestTemplateTreeMatchesManifestShape(t *testing.T) {
	typed := PodTemplate{
		Labels: map[string]string{"app": "web"},
		Spec: PodSpec{
			Containers: []Container{{
				Name: "main", Image: "nginx:1",
				Env:       []EnvVar{{Name: "A", Value: "1", HasValue: true}, {Name: "V", FieldPath: "metadata.labels['ver']"}},
				Resources: ResourceRequirements{Limits: map[string]Quantity{"cpu": MustParseQuantity("500m")}},
			}},
			ReadinessGates: []string{ConditionInPlaceUpdateReady},
			RestartPolicy:  "Always",
		},
	}
	var manifest map[string]any
	if err := json.Unmarshal([]byte(`{"metadata":{"labels":{"app":"web"}},"spec":{"restartPolicy":"Always",
		"readinessGates":[{"conditionType":"InPlaceUpdateReady"}],
		"containers":[{"name":"main","image":"nginx:1","resources":{"limits":{"cpu":"500m"}},
		"env":[{"name":"A","value":"1"},{"name":"V","valueFrom":{"fieldRef":{"fieldPath":"metadata.labels['ver']"}}}]}]}}`), &manifest); err != nil {
		t.Fatal(err)
	}
	got := TemplateTree(typed)
	if !TemplatesEqual(got, manifest) {
		t.Fatalf("TemplateTree = %s\nwant the manifest shape %s", CanonicalJSON(got), CanonicalJSON(manifest))
	}
	if TemplateHash(got, 0) != TemplateHash(manifest, 0) {
		t.Fatal("equal templates must hash equally")
	}
	typed.Spec.Containers[0].Image = "nginx:2"
	if TemplatesEqual(TemplateTree(typed), manifest) {
		t.Fatal("an image change must show in the tree")
	}
}
