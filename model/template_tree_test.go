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
	got, err := RevisionData(typed) // Raw is nil: the tree is TemplateTree's
	want, errM := RevisionData(PodTemplate{Raw: manifest})
	if err != nil || errM != nil || string(got) != string(want) {
		t.Fatalf("TemplateTree gives %s (%v)\nwant the manifest shape %s (%v)", got, err, want, errM)
	}
	typed.Spec.Containers[0].Image = "nginx:2"
	if TemplatesEqual(typed, PodTemplate{Raw: manifest}) {
		t.Fatal("an image change must show in the tree")
	}
}
