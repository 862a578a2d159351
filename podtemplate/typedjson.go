package podtemplate

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// AppendJSON appends a pod template as encoding/json writes the
// v1.PodTemplateSpec it stands for: members in the Go types' field order,
// map keys sorted, &, < and > escaped. The template is one that Encode
// returned (the typed form as generic values: only the members the types
// write, quantities canonical); anything else is an error naming what is out
// of place. AppendJSON(nil, t) and RevisionData agree on every member; they
// differ in member order (RevisionData sorts them, as upstream's generic
// round trip does, and its numbers are float64). Integers are exact; a
// managed fields entry's fieldsV1 is the text the typed form keeps (see
// DecodeJSON).
func AppendJSON(dst []byte, template map[string]any) ([]byte, error) {
	return appendTyped(dst, template, podTemplateSpecType, "")
}

// AppendClaimJSON appends a volume claim template that EncodeClaimTemplate
// (or DefaultClaimTemplate) returned as encoding/json writes the
// v1.PersistentVolumeClaim it stands for, with the rules of AppendJSON.
func AppendClaimJSON(dst []byte, claim map[string]any) ([]byte, error) {
	return appendTyped(dst, claim, persistentVolumeClaimType, "")
}

// appendTyped appends v, a value of Encode's output, as table type t; path
// names it in errors.
func appendTyped(dst []byte, v any, t int, path string) ([]byte, error) {
	ti := &corev1Types[t]
	var err error
	switch ti.kind {
	case kindStruct:
		m, ok := v.(map[string]any)
		if !ok && v != nil {
			return nil, notEncoded(path, v, ti)
		}
		dst = append(dst, '{')
		n := 0
		for _, f := range ti.fields {
			member, ok := m[f.name]
			if !ok {
				continue
			}
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			dst = appendJSONString(dst, f.name)
			dst = append(dst, ':')
			if dst, err = appendTyped(dst, member, f.typ, joinPath(path, f.name)); err != nil {
				return nil, err
			}
		}
		if n != len(m) {
			for k := range m {
				if !slices.ContainsFunc(ti.fields, func(f fieldInfo) bool { return f.name == k }) {
					return nil, fmt.Errorf("podtemplate: %s: %q is not a member of %s", path, k, ti.name)
				}
			}
		}
		return append(dst, '}'), nil
	case kindPointer:
		if v == nil {
			return append(dst, "null"...), nil
		}
		return appendTyped(dst, v, ti.elem, path)
	case kindSlice:
		if v == nil {
			return append(dst, "null"...), nil
		}
		l, ok := v.([]any)
		if !ok {
			return nil, notEncoded(path, v, ti)
		}
		dst = append(dst, '[')
		for i, item := range l {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = appendTyped(dst, item, ti.elem, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case kindMap:
		if v == nil {
			return append(dst, "null"...), nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, notEncoded(path, v, ti)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, k)
			dst = append(dst, ':')
			if dst, err = appendTyped(dst, m[k], ti.elem, path+"["+k+"]"); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	case kindString, kindQuantity:
		s, ok := v.(string)
		if !ok {
			return nil, notEncoded(path, v, ti)
		}
		return appendJSONString(dst, s), nil
	case kindBool:
		b, ok := v.(bool)
		if !ok {
			return nil, notEncoded(path, v, ti)
		}
		return strconv.AppendBool(dst, b), nil
	case kindInt:
		return appendInteger(dst, v, path, ti)
	case kindIntOrString:
		if s, ok := v.(string); ok {
			return appendJSONString(dst, s), nil
		}
		return appendInteger(dst, v, path, ti)
	case kindTime:
		if v == nil {
			return append(dst, "null"...), nil
		}
		s, ok := v.(string)
		if !ok {
			return nil, notEncoded(path, v, ti)
		}
		return appendJSONString(dst, s), nil
	case kindRawJSON:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("podtemplate: %s: %v", path, err)
		}
		return append(dst, b...), nil
	}
	return nil, fmt.Errorf("podtemplate: type %s has no kind", ti.name)
}

// appendInteger appends an integer of Encode's output (an int64; a Go int,
// a json.Number and a float64 holding an integer are taken too).
func appendInteger(dst []byte, v any, path string, ti *typeInfo) ([]byte, error) {
	switch x := v.(type) {
	case float64:
		switch {
		case x != math.Trunc(x):
		case x >= 1<<63: // 2^63-1 held as float64
			return strconv.AppendInt(dst, math.MaxInt64, 10), nil
		case x >= -(1 << 63):
			return strconv.AppendInt(dst, int64(x), 10), nil
		}
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return strconv.AppendInt(dst, n, 10), nil
		}
	}
	return nil, notEncoded(path, v, ti)
}

// notEncoded is a value that is not what Encode writes for its type.
func notEncoded(path string, v any, ti *typeInfo) error {
	return fmt.Errorf("podtemplate: %s: %s is not an encoded %s (AppendJSON takes what Encode returns)", path, shortJSON(v), ti.name)
}

// appendJSONString appends s as encoding/json writes a string.
func appendJSONString(dst []byte, s string) []byte {
	b, _ := json.Marshal(s) // a string always marshals
	return append(dst, b...)
}
