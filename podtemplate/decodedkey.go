package podtemplate

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DecodedKey returns a key of the Go value the Kubernetes API types read
// from a pod template (v1.PodTemplateSpec, as k8s.io/api's decoder fills
// it): two templates have the same key exactly when reflect.DeepEqual holds
// between their Go values. It is how kruise's mutating webhook decides that
// an update changed the template (reflect.DeepEqual of the old and the new
// typed templates), which sees more than the typed encoding (Encode) keeps:
//
//   - an empty list or map against an absent or null one ("volumes":[]
//     against no volumes: omitempty writes neither);
//   - a quantity's spelling: resource.Quantity holds the value as parsed
//     ("1" and "1000m" are the same quantity, held differently) and the text
//     it keeps when the text looks canonical;
//   - a time's fraction of a second (written to the second), and a time
//     written as the zero time against null (both written null);
//   - a FieldsV1's text as written, spaces included (written compacted).
//
// Members the types do not know, a member written null or left out or
// written as its zero value ("hostNetwork":false, "name":""), a string's
// escapes, a number's spelling ("-0") are not seen. The template is a
// JSON-like tree as Encode takes it (json.RawMessage as DecodeJSON gives
// it: a FieldsV1's text counts as written); a member the types refuse is
// Encode's *Error.
func DecodedKey(template map[string]any) (string, error) {
	key, err := appendDecodedKey(nil, template, podTemplateSpecType)
	return string(key), err
}

// The keys of the zero values by kind (see appendDecodedKey). A struct's
// key leaves out its members whose key is their zero key.
var zeroKeys = [...]string{
	kindString:      "s\x00",
	kindBool:        "f",
	kindInt:         "i\x00",
	kindStruct:      "{\x00",
	kindPointer:     "n",
	kindSlice:       "N",
	kindMap:         "N",
	kindQuantity:    "qZ",
	kindIntOrString: "Ii\x00",
	kindTime:        "T0",
	kindRawJSON:     "R\x00",
}

// appendDecodedKey appends the key of v read as table type t: a tag per
// kind, then its parts, each of which delimits itself (lengths and counts
// as uvarints), so that keys are equal exactly when the Go values are.
func appendDecodedKey(dst []byte, v any, t int) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok {
		var err error
		if v, err = readRaw(raw, t); err != nil {
			return nil, err
		}
	}
	ti := &corev1Types[t]
	switch ti.kind {
	case kindString:
		s, err := ReadString(v)
		if err != nil {
			return nil, err
		}
		return appendKeyString(append(dst, 's'), s), nil
	case kindBool:
		switch x := v.(type) {
		case nil:
			return append(dst, 'f'), nil
		case bool:
			if x {
				return append(dst, 't'), nil
			}
			return append(dst, 'f'), nil
		}
		return nil, typeError(v, "expected true or false")
	case kindInt:
		var n int64
		if v != nil {
			var err error
			if n, err = integer(v, ti.bits); err != nil {
				return nil, err
			}
		}
		return binary.AppendVarint(append(dst, 'i'), n), nil
	case kindPointer:
		if v == nil {
			return append(dst, 'n'), nil
		}
		return appendDecodedKey(append(dst, 'p'), v, ti.elem)
	case kindSlice:
		switch x := v.(type) {
		case nil:
			return append(dst, 'N'), nil
		case []any:
			dst = binary.AppendUvarint(append(dst, 'l'), uint64(len(x)))
			for i, item := range x {
				var err error
				if dst, err = appendDecodedKey(dst, item, ti.elem); err != nil {
					return nil, inside(err, "["+strconv.Itoa(i)+"]")
				}
			}
			return dst, nil
		}
		return nil, typeError(v, "expected a list")
	case kindMap:
		switch x := v.(type) {
		case nil:
			return append(dst, 'N'), nil
		case map[string]any:
			return appendMapKey(dst, x, ti.elem)
		}
		return nil, typeError(v, "expected an object")
	case kindStruct:
		members, ok := v.(map[string]any)
		if v != nil && !ok {
			return nil, typeError(v, "expected an object")
		}
		dst = append(dst, '{')
		for i, f := range ti.fields {
			mark := len(dst)
			dst = binary.AppendUvarint(dst, uint64(i+1))
			field := len(dst)
			var err error
			if dst, err = appendDecodedKey(dst, members[f.name], f.typ); err != nil {
				return nil, inside(err, f.name)
			}
			if string(dst[field:]) == zeroKeys[corev1Types[f.typ].kind] {
				dst = dst[:mark] // the zero value: as absent
			}
		}
		return append(dst, 0), nil
	case kindQuantity:
		return appendQuantityKey(dst, v)
	case kindIntOrString:
		switch x := v.(type) {
		case nil:
			return append(dst, "Ii\x00"...), nil
		case string:
			return appendKeyString(append(dst, "Is"...), validUTF8(x)), nil
		}
		n, err := integer(v, 32)
		if err != nil {
			return nil, &Error{Value: err.(*Error).Value, Reason: "expected a string or a 32-bit integer"}
		}
		return binary.AppendVarint(append(dst, "Ii"...), n), nil
	case kindTime:
		switch x := v.(type) {
		case nil:
			return append(dst, "T0"...), nil // the zero time.Time
		case string:
			// metav1.Time reads time.Parse(RFC3339, s).Local(): every time
			// read is in time.Local, the instant to the nanosecond.
			parsed, err := time.Parse(time.RFC3339, x)
			if err != nil {
				return nil, &Error{Value: shortJSON(v), Reason: "expected an RFC 3339 time"}
			}
			dst = binary.AppendVarint(append(dst, "T1"...), parsed.Unix())
			return binary.AppendVarint(dst, int64(parsed.Nanosecond())), nil
		}
		return nil, typeError(v, "expected an RFC 3339 time")
	case kindRawJSON:
		text, err := rawText(v)
		if err != nil {
			return nil, err
		}
		return appendKeyString(append(dst, 'R'), string(text)), nil
	}
	return nil, fmt.Errorf("podtemplate: type %s has no kind", ti.name) // a defect of the table
}

// appendMapKey appends the key of a map: its entries in key order, keys as
// they read back (two keys reading back alike: the later counts, as in the
// JSON encoding/json writes).
func appendMapKey(dst []byte, m map[string]any, elem int) ([]byte, error) {
	keys := sortedKeys(m)
	read := make([]string, 0, len(keys))
	last := make(map[string]string, len(keys))
	for _, k := range keys {
		r := validUTF8(k)
		if _, seen := last[r]; !seen {
			read = append(read, r)
		}
		last[r] = k
	}
	slices.Sort(read)
	dst = binary.AppendUvarint(append(dst, 'm'), uint64(len(read)))
	for _, r := range read {
		dst = appendKeyString(dst, r)
		var err error
		if dst, err = appendDecodedKey(dst, m[last[r]], elem); err != nil {
			return nil, inside(err, "["+last[r]+"]")
		}
	}
	return dst, nil
}

// appendQuantityKey appends the key of a resource.Quantity: the zero
// Quantity for null, else how it holds what it parsed (heldQuantity), its
// format and its kept text.
func appendQuantityKey(dst []byte, v any) ([]byte, error) {
	if v == nil {
		return append(dst, "qZ"...), nil // UnmarshalJSON of null: the zero Quantity
	}
	text, err := quantityText(v)
	if err != nil {
		return nil, err
	}
	q, err := parseQuantity(strings.TrimSpace(text))
	if err != nil {
		return nil, &Error{Value: shortJSON(v), Reason: "not a quantity: " + err.Error()}
	}
	h := q.held
	if h.dec {
		dst = append(dst, 'q', 'D', boolByte(h.neg))
		dst = appendKeyString(dst, h.unscaled)
	} else {
		dst = binary.AppendVarint(append(dst, 'q', 'I'), h.value)
	}
	dst = binary.AppendVarint(dst, h.scale)
	dst = append(dst, byte(q.format))
	return appendKeyString(dst, q.text), nil
}

// rawText is the text metav1.FieldsV1 holds for a member: a
// json.RawMessage's as written (without the spaces around it), a tree's as
// encoding/json writes it.
func rawText(v any) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok {
		if !json.Valid(raw) {
			return nil, &Error{Value: shortText(raw), Reason: "not JSON"}
		}
		return bytes.TrimSpace(raw), nil
	}
	return rawJSON(v)
}

// appendKeyString appends a string's length and bytes.
func appendKeyString(dst []byte, s string) []byte {
	return append(binary.AppendUvarint(dst, uint64(len(s))), s...)
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}
