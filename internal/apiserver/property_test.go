package apiserver

import (
	"encoding/json"
	"testing"

	"pgregory.net/rapid"
)

// jsonValue draws a small JSON tree over a few keys, so that patches and
// objects overlap; with directives and list fields the rules know.
func jsonValue(depth int) *rapid.Generator[any] {
	keys := rapid.SampledFrom([]string{"metadata", "labels", "finalizers", "spec", "containers", "name", "image", "status",
		"conditions", "type", "$patch", "$setElementOrder/containers", "$deleteFromPrimitiveList/finalizers", "$retainKeys", "a", "b"})
	return rapid.Custom(func(t *rapid.T) any {
		kind := rapid.IntRange(0, 7).Draw(t, "kind")
		if depth <= 0 && kind >= 5 {
			kind = 0
		}
		switch kind {
		case 0:
			return rapid.SampledFrom([]string{"x", "y", "replace", "delete", "merge", "c1", ""}).Draw(t, "s")
		case 1:
			return float64(rapid.IntRange(-2, 3).Draw(t, "n"))
		case 2:
			return rapid.Bool().Draw(t, "b")
		case 3:
			return nil
		case 4, 5:
			m := map[string]any{}
			for i, n := 0, rapid.IntRange(0, 4).Draw(t, "len"); i < n; i++ {
				m[keys.Draw(t, "k")] = jsonValue(depth-1).Draw(t, "v")
			}
			return m
		default:
			var l []any
			for i, n := 0, rapid.IntRange(0, 3).Draw(t, "len"); i < n; i++ {
				l = append(l, jsonValue(depth-1).Draw(t, "e"))
			}
			return l
		}
	})
}

// TestPatchPropertiesNeverPanic: any body of any patch type on any object
// yields a result or an error, leaves the input alone, and a successful
// store patch keeps name and namespace.
func TestPatchPropertiesNeverPanic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		obj, _ := jsonValue(3).Draw(t, "obj").(map[string]any)
		if obj == nil {
			obj = map[string]any{}
		}
		body := jsonValue(4).Draw(t, "body")
		if rapid.Bool().Draw(t, "ops") {
			var ops []any
			for i, n := 0, rapid.IntRange(1, 3).Draw(t, "nops"); i < n; i++ {
				ops = append(ops, map[string]any{
					"op":    rapid.SampledFrom([]string{"add", "remove", "replace", "move", "copy", "test"}).Draw(t, "op"),
					"path":  rapid.SampledFrom([]string{"", "/a", "/spec", "/spec/containers/0", "/spec/containers/-", "/metadata/labels/x", "/b/1"}).Draw(t, "path"),
					"from":  rapid.SampledFrom([]string{"/a", "/spec", "/b/0"}).Draw(t, "from"),
					"value": jsonValue(2).Draw(t, "value"),
				})
			}
			body = ops
		}
		raw, _ := json.Marshal(body)
		keep := copyObject(obj)
		_, _ = ApplyMergePatch(obj, raw)
		_, _ = ApplyStrategicMergePatch("pods", obj, raw)
		_, _ = ApplyJSONPatch(obj, raw)
		if !Equal(obj, keep) {
			t.Fatalf("a patch modified its input")
		}
		s := NewStore("2026-01-01T00:00:00Z")
		full := copyObject(obj)
		full["kind"] = "Pod"
		full["metadata"] = map[string]any{"name": "p", "namespace": "default", "finalizers": []any{"f"}}
		if err := s.Add(full); err != nil {
			t.Fatal(err)
		}
		for _, pt := range []string{MergePatchType, StrategicMergePatchType, JSONPatchType} {
			for _, sub := range []string{"", "status"} {
				o, err := s.Patch("pods", "default", "p", sub, pt, raw, nil)
				if err == nil && o != nil && (metaString(o, "name") != "p" || metaString(o, "namespace") != "default") {
					t.Fatalf("a patch renamed the object: %s", compactJSON(o))
				}
			}
		}
	})
}

// TestMergePatchOfDiff: a merge patch built as the difference of two
// null-free objects turns the first into the second.
func TestMergePatchOfDiff(t *testing.T) {
	var noNulls func(v any) any
	noNulls = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, y := range x {
				if y == nil {
					delete(x, k)
				} else {
					x[k] = noNulls(y)
				}
			}
		case []any:
			for i, y := range x {
				x[i] = noNulls(y)
			}
		}
		return v
	}
	rapid.Check(t, func(t *rapid.T) {
		a, _ := noNulls(jsonValue(3).Draw(t, "a")).(map[string]any)
		b, _ := noNulls(jsonValue(3).Draw(t, "b")).(map[string]any)
		if a == nil || b == nil {
			return
		}
		if got := MergePatch(a, mergeDiff(a, b)); !Equal(got, b) {
			t.Fatalf("merge(%s, diff) = %s, want %s", compactJSON(a), compactJSON(got), compactJSON(b))
		}
	})
}
