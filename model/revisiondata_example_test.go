package model_test

import (
	"fmt"

	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
)

// The revision data upstream stores for a CloneSet's template, byte for
// byte, and the name of the revision: what a test on a real control plane
// compares with the ControllerRevision the server holds (its data.Raw).
func ExampleRevisionData() {
	cs, err := manifest.DecodeCloneSetTree(map[string]any{
		"apiVersion": "apps.kruise.io/v1beta1", "kind": "CloneSet",
		"metadata": map[string]any{"name": "web", "namespace": "default"},
		"spec": map[string]any{"template": map[string]any{
			"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
			"spec": map[string]any{"containers": []any{map[string]any{
				"name": "main", "image": "nginx:1.25",
				"resources": map[string]any{"limits": map[string]any{"cpu": "1000m", "memory": "0.5Gi"}},
			}}},
		}},
	}, "example")
	if err != nil {
		fmt.Println(err)
		return
	}
	data, err := model.RevisionData(cs.Spec.Template)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(data))
	fmt.Println(model.RevisionName(cs.Name, model.TemplateHash(data, 0)))
	// Output:
	// {"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null,"labels":{"app":"web"}},"spec":{"containers":[{"image":"nginx:1.25","name":"main","resources":{"limits":{"cpu":"1","memory":"512Mi"}}}]}}}}
	// web-7ffbb78d78
}
