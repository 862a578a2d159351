package inplace

import (
	"encoding/json"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// opKind is the RFC 6902 operation a difference would be written as.
type opKind string

const (
	opAdd     opKind = "add"
	opRemove  opKind = "remove"
	opReplace opKind = "replace"
)

// seg is one step of a path into a tree: an object member or a list index.
type seg struct {
	key   string
	index int
	isIdx bool
}

// op is one difference between two trees: what happens at which path, and the new
// value (nil for a removal).
type op struct {
	kind  opKind
	path  []seg
	value any
}

// at reports whether the path of o is exactly the given member names, where "#"
// matches any list index.
func (o op) at(names ...string) bool {
	if len(o.path) != len(names) {
		return false
	}
	for i, n := range names {
		s := o.path[i]
		if n == "#" {
			if !s.isIdx {
				return false
			}
			continue
		}
		if s.isIdx || s.key != n {
			return false
		}
	}
	return true
}

// under reports whether the path of o starts with the given member names ("#" as in at)
// and is strictly longer.
func (o op) under(names ...string) bool {
	if len(o.path) <= len(names) {
		return false
	}
	return op{path: o.path[:len(names)]}.at(names...)
}

// fieldPath renders a path the way Kubernetes names fields:
// spec.containers[0].env[1], metadata.labels['example.io/x'].
func fieldPath(path []seg) string {
	var b strings.Builder
	for i, s := range path {
		switch {
		case s.isIdx:
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
		case s.key == "" || strings.ContainsAny(s.key, "./[]'"):
			b.WriteString("['" + s.key + "']")
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.key)
		}
	}
	if b.Len() == 0 {
		return "template"
	}
	return b.String()
}

// describe is a short sentence naming the path and what happened to it.
func (o op) describe() string {
	switch o.kind {
	case opAdd:
		return fieldPath(o.path) + " added"
	case opRemove:
		return fieldPath(o.path) + " removed"
	}
	return fieldPath(o.path) + " changed"
}

// diffTrees lists the differences that turn tree a into tree b, in a deterministic
// order: object members by sorted key, list elements by index (common indexes first,
// then surplus removals and additions).
func diffTrees(a, b map[string]any) []op {
	var ops []op
	diffObjects(a, b, nil, &ops)
	return ops
}

func appendPath(path []seg, s seg) []seg {
	out := make([]seg, len(path)+1)
	copy(out, path)
	out[len(path)] = s
	return out
}

func diffObjects(a, b map[string]any, path []seg, ops *[]op) {
	keys := make(map[string]struct{}, len(a)+len(b))
	for k := range a {
		keys[k] = struct{}{}
	}
	for k := range b {
		keys[k] = struct{}{}
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		p := appendPath(path, seg{key: k})
		av, inA := a[k]
		bv, inB := b[k]
		switch {
		case inA && inB:
			diffValues(av, bv, p, ops)
		case inB:
			*ops = append(*ops, op{kind: opAdd, path: p, value: bv})
		default:
			*ops = append(*ops, op{kind: opRemove, path: p})
		}
	}
}

func diffValues(a, b any, path []seg, ops *[]op) {
	a, b = canonValue(a), canonValue(b)
	ka, kb := kindOf(a), kindOf(b)
	if ka == "null" && kb == "null" {
		return
	}
	if ka != kb {
		*ops = append(*ops, op{kind: opReplace, path: path, value: b})
		return
	}
	switch ka {
	case "object":
		diffObjects(a.(map[string]any), b.(map[string]any), path, ops)
	case "array":
		la, lb := a.([]any), b.([]any)
		n := min(len(la), len(lb))
		for i := 0; i < n; i++ {
			diffValues(la[i], lb[i], appendPath(path, seg{index: i, isIdx: true}), ops)
		}
		for i := n; i < len(la); i++ {
			*ops = append(*ops, op{kind: opRemove, path: appendPath(path, seg{index: i, isIdx: true})})
		}
		for i := n; i < len(lb); i++ {
			*ops = append(*ops, op{kind: opAdd, path: appendPath(path, seg{index: i, isIdx: true}), value: lb[i]})
		}
	default:
		if !scalarEqual(a, b) {
			*ops = append(*ops, op{kind: opReplace, path: path, value: b})
		}
	}
}

// kindOf classifies a tree value as a JSON type.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "bool"
	case json.Number, float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return "number"
	}
	return "other"
}

// canonValue turns maps with string keys and slices of any element type, which
// templates built in code may hold, into map[string]any and []any.
func canonValue(v any) any {
	switch v.(type) {
	case nil, map[string]any, []any, string, bool, json.Number:
		return v
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return v
		}
		if rv.IsNil() {
			return nil
		}
		out := make(map[string]any, rv.Len())
		iter := rv.MapRange()
		for iter.Next() {
			out[iter.Key().String()] = iter.Value().Interface()
		}
		return out
	case reflect.Slice:
		if rv.IsNil() {
			return nil
		}
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = rv.Index(i).Interface()
		}
		return out
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return nil
		}
		return canonValue(rv.Elem().Interface())
	}
	return v
}

// numberValue converts a number of any representation to float64, the type upstream
// decodes JSON numbers into before comparing them.
func numberValue(v any) (float64, bool) {
	switch t := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		return f, err == nil
	case float64:
		return t, true
	case float32:
		return float64(t), true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(rv.Uint()), true
	}
	return 0, false
}

func scalarEqual(a, b any) bool {
	if kindOf(a) == "number" {
		fa, okA := numberValue(a)
		fb, okB := numberValue(b)
		if okA && okB {
			return fa == fb
		}
		return scalarText(a) == scalarText(b)
	}
	if kindOf(a) == "other" {
		return reflect.DeepEqual(a, b)
	}
	return a == b
}

// scalarText renders a scalar tree value as text (strings unquoted, numbers as
// written).
func scalarText(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case json.Number:
		return string(t)
	case nil:
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// member returns m[key] as an object, or nil.
func member(m map[string]any, key string) map[string]any {
	if m == nil {
		return nil
	}
	v, _ := canonValue(m[key]).(map[string]any)
	return v
}

// list returns m[key] as a list, or nil.
func list(m map[string]any, key string) []any {
	if m == nil {
		return nil
	}
	v, _ := canonValue(m[key]).([]any)
	return v
}

// text returns m[key] as a string ("" when absent or not a string).
func text(m map[string]any, key string) string {
	if m == nil {
		return ""
	}
	v, _ := m[key].(string)
	return v
}
