package admissionrecord

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestComparable: the README's comparison: status and the root's
// creationTimestamp dropped, nulls and empty objects and lists dropped at
// any depth (list elements too), numbers as their text whatever their Go
// type.
func TestComparable(t *testing.T) {
	a := map[string]any{
		"metadata": map[string]any{"name": "web", "creationTimestamp": nil, "labels": map[string]any{}},
		"spec": map[string]any{"replicas": json.Number("3"), "selector": nil, "scaleStrategy": map[string]any{},
			"template": map[string]any{"metadata": map[string]any{"creationTimestamp": nil}, "spec": map[string]any{"readinessGates": []any{map[string]any{}}, "x": []any{}}}},
		"status": map[string]any{"replicas": json.Number("0")},
	}
	b := map[string]any{"metadata": map[string]any{"name": "web"}, "spec": map[string]any{"replicas": int64(3)}}
	if ga, gb := Comparable(a), Comparable(b); !reflect.DeepEqual(ga, gb) {
		t.Fatalf("%v\n%v", ga, gb)
	}
	c := map[string]any{"metadata": map[string]any{"name": "web"}, "spec": map[string]any{"replicas": 3.5}}
	if reflect.DeepEqual(Comparable(b), Comparable(c)) {
		t.Fatal("3 and 3.5 compare equal")
	}
}
