package admission

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clonecore/cloneset/podtemplate"
)

// TypeError is a member of a CloneSet that kruise's Go types refuse to read
// (the webhook's decoder fails on it, and the webhook answers 400 Bad
// Request): a value of the wrong JSON type, an integer out of range, a
// quantity or a time that does not parse.
type TypeError struct {
	// Path is the member's field path, list indexes and map keys in
	// brackets ("spec.replicas", "spec.template.spec.containers[0].ports[0].containerPort").
	Path string
	// Value is the offending value as JSON (shortened when long).
	Value string
	// Reason says what the typed field wants.
	Reason string
}

// Error renders "path: value: reason".
func (e *TypeError) Error() string {
	return e.Path + ": " + e.Value + ": " + e.Reason
}

// reader reads a JSON-like tree into the table's types and gives back what
// the typed encoding writes: the canonical tree (see Object).
type reader struct{}

// read reads v (a JSON-like value; nil is null or absent) as type t: out is
// the value written back, empty whether omitempty leaves its member out.
// The error's path is relative to v.
func (r reader) read(v any, t *typeInfo) (out any, empty bool, err error) {
	switch t.kind {
	case kindString:
		switch x := v.(type) {
		case nil:
			return "", true, nil
		case string:
			return x, x == "", nil
		}
		return nil, false, typeError(v, "expected a string")
	case kindBool:
		switch x := v.(type) {
		case nil:
			return false, true, nil
		case bool:
			return x, !x, nil
		}
		return nil, false, typeError(v, "expected true or false")
	case kindInt:
		if v == nil {
			return int64(0), true, nil
		}
		n, err := integer(v, t.bits)
		if err != nil {
			return nil, false, err
		}
		return n, n == 0, nil
	case kindPointer:
		if v == nil {
			return nil, true, nil
		}
		out, _, err := r.read(v, t.elem)
		return out, false, err
	case kindSlice:
		return r.slice(v, t)
	case kindMap:
		return r.mapOf(v, t)
	case kindStruct:
		return r.structOf(v, t)
	case kindIntOrString:
		switch x := v.(type) {
		case nil:
			return int64(0), false, nil
		case string:
			return x, false, nil
		}
		n, err := integer(v, 32)
		if err != nil {
			return nil, false, &TypeError{Value: err.(*TypeError).Value, Reason: "expected a string or a 32-bit integer"}
		}
		return n, false, nil
	case kindQuantity:
		return quantity(v)
	case kindTime:
		return readTime(v)
	case kindRawJSON:
		return rawJSON(v)
	case kindPodTemplate:
		return podTemplate(v)
	}
	return nil, false, fmt.Errorf("admission: type %s has no kind", t.name) // a defect of the table
}

func (r reader) slice(v any, t *typeInfo) (any, bool, error) {
	switch x := v.(type) {
	case nil:
		return nil, true, nil
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			o, _, err := r.read(item, t.elem)
			if err != nil {
				return nil, false, inside(err, "["+strconv.Itoa(i)+"]")
			}
			out[i] = o
		}
		return out, len(x) == 0, nil
	}
	return nil, false, typeError(v, "expected a list")
}

func (r reader) mapOf(v any, t *typeInfo) (any, bool, error) {
	switch x := v.(type) {
	case nil:
		return nil, true, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for _, k := range sortedKeys(x) { // the first error in key order, whatever the map's order
			o, _, err := r.read(x[k], t.elem)
			if err != nil {
				return nil, false, inside(err, "["+k+"]")
			}
			out[k] = o
		}
		return out, len(x) == 0, nil
	}
	return nil, false, typeError(v, "expected an object")
}

func (r reader) structOf(v any, t *typeInfo) (any, bool, error) {
	members, ok := v.(map[string]any)
	if v != nil && !ok {
		return nil, false, typeError(v, "expected an object")
	}
	out := make(map[string]any, len(t.fields))
	for _, f := range t.fields {
		o, empty, err := r.read(members[f.name], f.typ) // absent: the zero value
		if err != nil {
			return nil, false, inside(err, f.name)
		}
		if f.omitEmpty && empty {
			continue
		}
		out[f.name] = o
	}
	return out, false, nil
}

// podTemplate is the typed encoding of a pod template, by package
// podtemplate; its errors keep their path under the template.
func podTemplate(v any) (any, bool, error) {
	m, ok := v.(map[string]any)
	if v != nil && !ok {
		return nil, false, typeError(v, "expected an object")
	}
	out, err := podtemplate.Encode(m)
	if err != nil {
		if e, ok := err.(*podtemplate.Error); ok {
			return nil, false, &TypeError{Path: e.Path, Value: e.Value, Reason: e.Reason}
		}
		return nil, false, err
	}
	return out, false, nil
}

func quantity(v any) (any, bool, error) {
	var text string
	switch x := v.(type) {
	case nil:
		return "0", false, nil // the zero quantity
	case string:
		text = x
	default:
		t, ok := numberText(x)
		if !ok {
			return nil, false, typeError(v, "expected a quantity such as \"500m\" or \"2Gi\"")
		}
		text = t
	}
	q, err := podtemplate.CanonicalQuantity(text)
	if err != nil {
		return nil, false, &TypeError{Value: shortJSON(v), Reason: "not a quantity: " + err.Error()}
	}
	return q, false, nil
}

func readTime(v any) (any, bool, error) {
	switch x := v.(type) {
	case nil:
		return nil, false, nil
	case string:
		t, err := time.Parse(time.RFC3339, x)
		if err != nil {
			return nil, false, &TypeError{Value: shortJSON(v), Reason: "expected an RFC 3339 time"}
		}
		if t.IsZero() {
			return nil, false, nil
		}
		return t.UTC().Format(time.RFC3339), false, nil
	}
	return nil, false, typeError(v, "expected an RFC 3339 time")
}

// rawJSON keeps any JSON value as it is (numbers as json.Number).
func rawJSON(v any) (any, bool, error) {
	switch x := v.(type) {
	case nil, string, bool:
		return x, v == nil, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for _, k := range sortedKeys(x) {
			o, _, err := rawJSON(x[k])
			if err != nil {
				return nil, false, inside(err, "["+k+"]")
			}
			out[k] = o
		}
		return out, false, nil
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			o, _, err := rawJSON(item)
			if err != nil {
				return nil, false, inside(err, "["+strconv.Itoa(i)+"]")
			}
			out[i] = o
		}
		return out, false, nil
	}
	text, ok := numberText(v)
	if !ok {
		return nil, false, typeError(v, "expected a JSON value")
	}
	return json.Number(text), false, nil
}

// integer reads a JSON number written as an integer that fits bits bits, as
// encoding/json reads one into a Go integer.
func integer(v any, bits int) (int64, error) {
	text, ok := numberText(v)
	if !ok {
		return 0, typeError(v, fmt.Sprintf("expected an integer (int%d)", bits))
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil || (bits == 32 && (n < math.MinInt32 || n > math.MaxInt32)) {
		return 0, &TypeError{Value: text, Reason: fmt.Sprintf("expected an integer (int%d)", bits)}
	}
	return n, nil
}

// numberText is a JSON number's text, for the number types a tree may hold.
func numberText(v any) (string, bool) {
	switch x := v.(type) {
	case json.Number:
		return string(x), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return strconv.FormatFloat(x, 'g', -1, 64), true // no integer reads it
		}
		b, _ := json.Marshal(x)
		return string(b), true
	case int:
		return strconv.Itoa(x), true
	case int32:
		return strconv.FormatInt(int64(x), 10), true
	case int64:
		return strconv.FormatInt(x, 10), true
	}
	return "", false
}

// typeError is a value of the wrong JSON type.
func typeError(v any, want string) *TypeError {
	return &TypeError{Value: shortJSON(v), Reason: want + ", got " + describe(v)}
}

// describe names the JSON type of a value.
func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	}
	if _, ok := numberText(v); ok {
		return "a number"
	}
	return fmt.Sprintf("a Go %T", v)
}

// shortJSON renders a value as JSON, cut to 64 bytes.
func shortJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	if len(b) > 64 {
		return string(b[:61]) + "..."
	}
	return string(b)
}

// inside prefixes an error's path with the member it was found in.
func inside(err error, seg string) error {
	e, ok := err.(*TypeError)
	if !ok {
		return err
	}
	return &TypeError{Path: joinPath(seg, e.Path), Value: e.Value, Reason: e.Reason}
}

// joinPath joins field path segments: "a" + "b" is "a.b", "a" + "[0]" is
// "a[0]".
func joinPath(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	case strings.HasPrefix(b, "["):
		return a + b
	}
	return a + "." + b
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
