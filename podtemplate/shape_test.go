package podtemplate

import (
	"slices"
	"testing"
)

// Shapes answer what the core/v1 types hold, pointers followed.
func TestShapes(t *testing.T) {
	tmpl := TemplateShape()
	if tmpl.Name() != "v1.PodTemplateSpec" || tmpl.Kind() != ShapeObject || !slices.Equal(tmpl.Members(), []string{"metadata", "spec"}) {
		t.Fatalf("template: %q %v %v", tmpl.Name(), tmpl.Kind(), tmpl.Members())
	}
	spec, ok := tmpl.Member("spec")
	if !ok || spec.Name() != "v1.PodSpec" {
		t.Fatalf("spec: %q %v", spec.Name(), ok)
	}
	containers, _ := spec.Member("containers")
	if containers.Kind() != ShapeList || containers.Elem().Name() != "v1.Container" {
		t.Errorf("containers: %v of %q", containers.Kind(), containers.Elem().Name())
	}
	// A pointer field is its element: *v1.PodSecurityContext is an object.
	if sc, ok := spec.Member("securityContext"); !ok || sc.Kind() != ShapeObject || sc.Name() != "v1.PodSecurityContext" {
		t.Errorf("securityContext: %q %v", sc.Name(), sc.Kind())
	}
	if sel, _ := spec.Member("nodeSelector"); sel.Kind() != ShapeMap || sel.Elem().Kind() != ShapeValue {
		t.Errorf("nodeSelector: %v", sel.Kind())
	}
	if _, ok := spec.Member("Containers"); ok {
		t.Error("member names are exact: Containers is not containers")
	}
	if _, ok := ShapeOf("v1.NoSuchType"); ok {
		t.Error("ShapeOf found a type the table does not hold")
	}
	var zero Shape
	if zero.Kind() != ShapeValue || zero.Name() != "" || zero.Members() != nil || zero.Elem() != (Shape{}) {
		t.Error("the zero Shape is not a plain value")
	}
	if _, ok := zero.Member("x"); ok {
		t.Error("the zero Shape has members")
	}
	if ls, ok := ShapeOf("v1.LabelSelector"); !ok || ls.Kind() != ShapeObject {
		t.Errorf("v1.LabelSelector: %v", ok)
	}
}
