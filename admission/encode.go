package admission

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/clonecore/cloneset/podtemplate"
)

// appendValue appends the JSON of a canonical value of type t, as
// encoding/json writes the Go value it stands for: struct members in Go
// field order (the canonical tree holds only the members written), map keys
// sorted, &, < and > escaped.
func appendValue(dst []byte, v any, t *typeInfo) ([]byte, error) {
	switch t.kind {
	case kindStruct:
		m, ok := v.(map[string]any)
		if !ok && v != nil {
			return nil, canonicalError(v, t)
		}
		dst = append(dst, '{')
		first := true
		for _, f := range t.fields {
			member, ok := m[f.name]
			if !ok {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = appendString(dst, f.name)
			dst = append(dst, ':')
			var err error
			if dst, err = appendValue(dst, member, f.typ); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	case kindPointer:
		if v == nil {
			return append(dst, "null"...), nil
		}
		return appendValue(dst, v, t.elem)
	case kindSlice:
		if v == nil {
			return append(dst, "null"...), nil
		}
		l, ok := v.([]any)
		if !ok {
			return nil, canonicalError(v, t)
		}
		dst = append(dst, '[')
		for i, item := range l {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendValue(dst, item, t.elem); err != nil {
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
			return nil, canonicalError(v, t)
		}
		dst = append(dst, '{')
		for i, k := range sortedKeys(m) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, k)
			dst = append(dst, ':')
			var err error
			if dst, err = appendValue(dst, m[k], t.elem); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	case kindString, kindQuantity:
		s, ok := v.(string)
		if !ok {
			return nil, canonicalError(v, t)
		}
		return appendString(dst, s), nil
	case kindBool:
		b, ok := v.(bool)
		if !ok {
			return nil, canonicalError(v, t)
		}
		return strconv.AppendBool(dst, b), nil
	case kindInt:
		n, ok := canonicalInt(v)
		if !ok {
			return nil, canonicalError(v, t)
		}
		return strconv.AppendInt(dst, n, 10), nil
	case kindIntOrString:
		if s, ok := v.(string); ok {
			return appendString(dst, s), nil
		}
		n, ok := canonicalInt(v)
		if !ok {
			return nil, canonicalError(v, t)
		}
		return strconv.AppendInt(dst, n, 10), nil
	case kindTime:
		if v == nil {
			return append(dst, "null"...), nil
		}
		s, ok := v.(string)
		if !ok {
			return nil, canonicalError(v, t)
		}
		return appendString(dst, s), nil
	case kindRawJSON:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		return append(dst, b...), nil
	case kindPodTemplate:
		m, ok := v.(map[string]any)
		if !ok && v != nil {
			return nil, canonicalError(v, t)
		}
		return podtemplate.AppendJSON(dst, m)
	case kindClaimTemplate:
		m, ok := v.(map[string]any)
		if !ok && v != nil {
			return nil, canonicalError(v, t)
		}
		return podtemplate.AppendClaimJSON(dst, m)
	}
	return nil, fmt.Errorf("admission: type %s has no kind", t.name)
}

// canonicalInt is an integer of the canonical tree (int64; float64 as the
// pod template's encoding holds numbers).
func canonicalInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		switch {
		case x != math.Trunc(x):
			return 0, false
		case x >= 1<<63: // 2^63-1 held as float64
			return math.MaxInt64, true
		case x < -(1 << 63):
			return 0, false
		}
		return int64(x), true
	case json.Number:
		n, err := x.Int64()
		return n, err == nil
	}
	return 0, false
}

// canonicalError is a value that is not in the canonical form of its type:
// a defect of this package, never of the input.
func canonicalError(v any, t *typeInfo) error {
	return fmt.Errorf("admission: internal error: %T is not a canonical %s", v, t.name)
}

// appendString appends s as encoding/json writes a string (HTML-escaped).
func appendString(dst []byte, s string) []byte {
	b, _ := json.Marshal(s) // a string always marshals
	return append(dst, b...)
}
