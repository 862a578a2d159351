package inplace

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
)

// tree decodes a JSON template the way the manifest reader does (json.Number).
func tree(t testing.TB, s string) map[string]any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatalf("bad test template: %v\n%s", err, s)
	}
	return m
}

// deepCopy copies a JSON-like tree.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

// get walks a tree by member names and list indexes.
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			v = v.(map[string]any)[k]
		case int:
			v = v.([]any)[k]
		}
	}
	return v
}

func rev(name string, n int64, raw map[string]any, annotations map[string]string) *model.Revision {
	return &model.Revision{Name: name, Revision: n, Annotations: annotations, HasTemplate: raw != nil,
		Template: model.PodTemplate{Raw: raw}}
}

func ts(s string) time.Time {
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return v
}

func q(s string) model.Quantity { return model.MustParseQuantity(s) }
