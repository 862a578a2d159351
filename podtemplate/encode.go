package podtemplate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Error is a template member that the typed form of a pod template refuses
// (the Kubernetes API types would fail to read it): a value of the wrong JSON
// type, an integer out of range, a quantity or a time that does not parse.
type Error struct {
	// Path is the member's field path, list indexes and map keys in
	// brackets ("spec.containers[0].ports[0].containerPort",
	// "spec.containers[0].resources.limits[cpu]"), after the base the
	// caller gave.
	Path string
	// Value is the offending value as JSON (shortened when long).
	Value string
	// Reason says what the typed field wants.
	Reason string
}

// Error renders "path: value: reason".
func (e *Error) Error() string {
	return e.Path + ": " + e.Value + ": " + e.Reason
}

// RevisionData returns the data of the ControllerRevision upstream writes
// for a pod template, byte for byte: the template as the Kubernetes API types
// read and write it (members the types do not know dropped, members the types
// always write added, quantities in canonical form: see Encode), decoded into
// generic values and encoded again with encoding/json (object members sorted,
// numbers as float64, &, < and > escaped), with "$patch":"replace" added to
// the template, wrapped as {"spec":{"template":...}}.
//
// template is a JSON-like tree (map[string]any, []any, string, bool, nil,
// json.Number or Go numbers), for example a model.PodTemplate's Raw. A member
// the types refuse is an *Error whose path starts at the template.
func RevisionData(template map[string]any) ([]byte, error) {
	generic, err := RevisionTemplate(template)
	if err != nil {
		return nil, err
	}
	generic["$patch"] = "replace"
	return json.Marshal(map[string]any{"spec": map[string]any{"template": generic}})
}

// RevisionTemplate returns a pod template as upstream's revision data holds
// it before its "$patch" member is added: Encode's typed encoding decoded
// into generic values as encoding/json decodes any JSON (numbers as
// float64, so an integer beyond 2^53 is the float64 nearest to it). It is
// the form upstream's in-place update compares revisions in.
func RevisionTemplate(template map[string]any) (map[string]any, error) {
	typed, err := Encode(template)
	if err != nil {
		return nil, err
	}
	if err := genericNumbers(typed); err != nil {
		return nil, err
	}
	return typed, nil
}

// genericNumbers turns the integers of a typed encoding into float64 and
// its raw JSON (FieldsV1) into generic values, in place, as decoding the
// typed JSON into generic values does. A raw number beyond float64, which
// that decoding refuses, is an *Error naming its member.
func genericNumbers(v any) error {
	generic := func(item any) (any, error) {
		switch x := item.(type) {
		case int64:
			return float64(x), nil
		case json.RawMessage:
			var g any
			if err := json.Unmarshal(x, &g); err != nil {
				return nil, &Error{Value: shortText(x), Reason: "a number beyond float64"}
			}
			return g, nil
		}
		return item, genericNumbers(item)
	}
	switch x := v.(type) {
	case map[string]any:
		for k, item := range x {
			g, err := generic(item)
			if err != nil {
				for _, k := range sortedKeys(x) { // the first error in key order
					if _, err := generic(x[k]); err != nil {
						return inside(err, k)
					}
				}
			}
			x[k] = g
		}
	case []any:
		for i, item := range x {
			g, err := generic(item)
			if err != nil {
				return inside(err, "["+strconv.Itoa(i)+"]")
			}
			x[i] = g
		}
	}
	return nil
}

// Check reports the first member of a pod template that the typed form
// refuses, as an *Error whose path starts with base (for example
// "spec.template"); nil when the template is readable.
func Check(template map[string]any, base string) error {
	_, err := walker{}.value(template, podTemplateSpecType)
	if e, ok := err.(*Error); ok {
		return &Error{Path: joinPath(base, e.Path), Value: e.Value, Reason: e.Reason}
	}
	return err
}

// Encode returns a pod template as the Kubernetes API types give it back
// after reading it (v1.PodTemplateSpec through encoding/json), as a tree of
// map[string]any, []any, string, bool, int64 and nil: integers exactly as
// the typed fields hold them (int64 and int32 alike); the members of the types only (exact names; unknown members are
// dropped); a member the types always write is written (a struct member is
// never left out: "resources":{}, "creationTimestamp":null; a member without
// omitempty is written even when empty or null); an omitempty member that is
// empty is left out; a quantity in its canonical form (CanonicalQuantity); an
// int-or-string as a number or a string; a time in UTC to the second. JSON
// null reads as the zero value of its member's type, as absence does.
func Encode(template map[string]any) (map[string]any, error) {
	v, err := walker{build: true}.value(template, podTemplateSpecType)
	if err != nil {
		return nil, err
	}
	m, _ := v.out.(map[string]any)
	return m, nil
}

// encoded is one typed value written back: out is its generic form; empty
// and zero say whether omitempty and omitzero leave its member out.
type encoded struct {
	out   any
	empty bool
	zero  bool
}

// walker reads values into the table's types; with build set it also
// writes them back (Encode), else it only checks them (Check).
type walker struct{ build bool }

// value reads v (a generic JSON value; nil is null or absent) into the
// table's type t and writes it back. The error's path is relative to v.
func (w walker) value(v any, t int) (encoded, error) {
	if raw, ok := v.(json.RawMessage); ok {
		var err error
		if v, err = readRaw(raw, t); err != nil {
			return encoded{}, err
		}
	}
	if v == nil && !w.build {
		return encoded{}, nil // null reads as the zero value, which is always readable
	}
	ti := &corev1Types[t]
	switch ti.kind {
	case kindString:
		switch x := v.(type) {
		case nil:
			return encoded{out: "", empty: true, zero: true}, nil
		case string:
			if !utf8.ValidString(x) {
				v = validUTF8(x)
			}
			return encoded{out: v, empty: x == "", zero: x == ""}, nil // v: the string already boxed
		}
		return encoded{}, typeError(v, "expected a string")
	case kindBool:
		switch x := v.(type) {
		case nil:
			return encoded{out: false, empty: true, zero: true}, nil
		case bool:
			return encoded{out: x, empty: !x, zero: !x}, nil
		}
		return encoded{}, typeError(v, "expected true or false")
	case kindInt:
		if v == nil {
			return encoded{out: int64(0), empty: true, zero: true}, nil
		}
		n, err := integer(v, ti.bits)
		if err != nil {
			return encoded{}, err
		}
		e := encoded{empty: n == 0, zero: n == 0}
		if w.build {
			e.out = n
		}
		return e, nil
	case kindPointer:
		if v == nil {
			return encoded{out: nil, empty: true, zero: true}, nil
		}
		e, err := w.value(v, ti.elem)
		if err != nil {
			return encoded{}, err
		}
		return encoded{out: e.out}, nil
	case kindSlice:
		return w.slice(v, ti)
	case kindMap:
		return w.mapOf(v, ti)
	case kindStruct:
		return w.structOf(v, ti)
	case kindQuantity:
		return w.quantity(v)
	case kindIntOrString:
		switch v.(type) {
		case nil:
			return encoded{out: int64(0), zero: true}, nil
		case string:
			return encoded{out: v}, nil
		}
		n, err := integer(v, 32)
		if err != nil {
			return encoded{}, &Error{Value: err.(*Error).Value, Reason: "expected a string or a 32-bit integer"}
		}
		e := encoded{zero: n == 0}
		if w.build {
			e.out = n
		}
		return e, nil
	case kindTime:
		return encodeTime(v)
	case kindRawJSON:
		out, err := rawJSON(v)
		if err != nil {
			return encoded{}, err
		}
		return encoded{out: out}, nil
	}
	return encoded{}, fmt.Errorf("podtemplate: type %s has no kind", ti.name) // a defect of the table
}

func (w walker) slice(v any, ti *typeInfo) (encoded, error) {
	switch x := v.(type) {
	case nil:
		return encoded{out: nil, empty: true, zero: true}, nil
	case []any:
		var out []any
		if w.build {
			out = make([]any, len(x))
		}
		for i, item := range x {
			e, err := w.value(item, ti.elem)
			if err != nil {
				return encoded{}, inside(err, "["+strconv.Itoa(i)+"]")
			}
			if w.build {
				out[i] = e.out
			}
		}
		return encoded{out: out, empty: len(x) == 0}, nil
	}
	return encoded{}, typeError(v, "expected a list")
}

func (w walker) mapOf(v any, ti *typeInfo) (encoded, error) {
	switch x := v.(type) {
	case nil:
		return encoded{out: nil, empty: true, zero: true}, nil
	case map[string]any:
		var out map[string]any
		if w.build {
			out = make(map[string]any, len(x))
		}
		for k, item := range x {
			e, err := w.value(item, ti.elem)
			if err != nil {
				return encoded{}, firstError(x, func(item any) error { _, err := w.value(item, ti.elem); return err })
			}
			if w.build {
				out[k] = e.out
			}
		}
		if w.build && !validKeys(x) {
			out = make(map[string]any, len(x))
			for _, k := range sortedKeys(x) { // a later key wins, as in the JSON encoding/json writes
				e, _ := w.value(x[k], ti.elem)
				out[validUTF8(k)] = e.out
			}
		}
		return encoded{out: out, empty: len(x) == 0}, nil
	}
	return encoded{}, typeError(v, "expected an object")
}

func (w walker) structOf(v any, ti *typeInfo) (encoded, error) {
	members, ok := v.(map[string]any)
	if v != nil && !ok {
		return encoded{}, typeError(v, "expected an object")
	}
	var out map[string]any
	if w.build {
		out = make(map[string]any, len(ti.fields))
	}
	zero := true
	for _, f := range ti.fields {
		e, err := w.value(members[f.name], f.typ) // absent: the zero value
		if err != nil {
			return encoded{}, inside(err, f.name)
		}
		zero = zero && e.zero
		if !w.build || (f.omitEmpty && e.empty) || (f.omitZero && e.zero) {
			continue
		}
		out[f.name] = e.out
	}
	return encoded{out: out, zero: zero}, nil
}

func (w walker) quantity(v any) (encoded, error) {
	if v == nil {
		return encoded{out: "0", zero: true}, nil // the zero quantity
	}
	if !w.build {
		text, err := quantityText(v)
		if err != nil {
			return encoded{}, err
		}
		if err := checkQuantity(strings.TrimSpace(text)); err != nil {
			return encoded{}, &Error{Value: shortJSON(v), Reason: "not a quantity: " + err.Error()}
		}
		return encoded{}, nil
	}
	q, err := readQuantity(v)
	if err != nil {
		return encoded{}, err
	}
	return encoded{out: q.String(), zero: q.mant.Sign() == 0}, nil
}

// quantityText is the text of a quantity member that resource.Quantity
// parses: the JSON text between a string's quotes, not unescaped (a
// json.RawMessage's as written; a Go string's as encoding/json writes it, so
// a string holding a character JSON escapes is refused), a number's text.
func quantityText(v any) (string, error) {
	switch x := v.(type) {
	case string:
		if needsEscape(x) {
			b, _ := json.Marshal(x) // a string always marshals
			return string(b[1 : len(b)-1]), nil
		}
		return x, nil
	case json.RawMessage:
		text := bytes.TrimSpace(x)
		if len(text) >= 2 && text[0] == '"' && text[len(text)-1] == '"' {
			return string(text[1 : len(text)-1]), nil
		}
		resolved, err := resolveRaw(x)
		if err != nil {
			return "", err
		}
		v = resolved
	}
	text, ok := numberText(v)
	if !ok {
		return "", typeError(v, "expected a quantity such as \"500m\" or \"2Gi\"")
	}
	return text, nil
}

// validUTF8 is s as a Go string reads back from the JSON encoding/json
// writes for it: each byte that is not UTF-8 is U+FFFD.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// validKeys says whether every key of m is UTF-8 (it is its own JSON
// key read back).
func validKeys(m map[string]any) bool {
	for k := range m {
		if !utf8.ValidString(k) {
			return false
		}
	}
	return true
}

// needsEscape says whether encoding/json writes a string with an escape:
// a control character, a quote, a backslash, &, <, >, U+2028, U+2029 or a
// byte that is not UTF-8.
func needsEscape(s string) bool {
	return !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool {
		return r < 0x20 || r == '"' || r == '\\' || r == '&' || r == '<' || r == '>' || r == '\u2028' || r == '\u2029'
	})
}

// readQuantity reads a quantity member as resource.Quantity reads it (null
// is the zero quantity).
func readQuantity(v any) (quantity, error) {
	if v == nil {
		return parseQuantity("0")
	}
	text, err := quantityText(v)
	if err != nil {
		return quantity{}, err
	}
	q, err := parseQuantity(strings.TrimSpace(text))
	if err != nil {
		return quantity{}, &Error{Value: shortJSON(v), Reason: "not a quantity: " + err.Error()}
	}
	return q, nil
}

func encodeTime(v any) (encoded, error) {
	switch x := v.(type) {
	case nil:
		return encoded{out: nil, zero: true}, nil
	case string:
		t, err := time.Parse(time.RFC3339, x)
		if err != nil {
			return encoded{}, &Error{Value: shortJSON(v), Reason: "expected an RFC 3339 time"}
		}
		if t.IsZero() {
			return encoded{out: nil, zero: true}, nil
		}
		return encoded{out: t.UTC().Format(time.RFC3339)}, nil
	}
	return encoded{}, typeError(v, "expected an RFC 3339 time")
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
		return 0, &Error{Value: text, Reason: fmt.Sprintf("expected an integer (int%d)", bits)}
	}
	return n, nil
}

// numberText is a JSON number's text, for the number types a tree may hold.
func numberText(v any) (string, bool) {
	switch x := v.(type) {
	case json.Number:
		return string(x), true
	case float64:
		return floatText(x), true
	case float32:
		return floatText(float64(x)), true
	case int:
		return strconv.Itoa(x), true
	case int32:
		return strconv.FormatInt(int64(x), 10), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case uint32:
		return strconv.FormatUint(uint64(x), 10), true
	case uint64:
		return strconv.FormatUint(x, 10), true
	}
	return "", false
}

// floatText is a float64 as encoding/json writes it (NaN and infinities,
// which JSON cannot hold, as Go prints them: no number reads them).
func floatText(f float64) string {
	b, err := json.Marshal(f)
	if err != nil {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return string(b)
}

// readRaw is what a reader of table type t reads for a json.RawMessage
// (ReadJSONValue): the text itself for a quantity or a FieldsV1 (through
// pointers).
func readRaw(raw json.RawMessage, t int) (any, error) {
	for corev1Types[t].kind == kindPointer {
		t = corev1Types[t].elem
	}
	k := corev1Types[t].kind
	return ReadJSONValue(raw, k == kindQuantity || k == kindRawJSON)
}

// rawJSON is a metav1.FieldsV1 member as the typed form writes it: the JSON
// text it was read from (a json.RawMessage as written; a tree of values as
// encoding/json writes it), compacted and with &, < and > escaped as
// encoding/json writes a Marshaler's text. A value no JSON holds is an
// *Error.
func rawJSON(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		if _, ok := v.(json.RawMessage); ok {
			return nil, &Error{Value: shortText(v.(json.RawMessage)), Reason: "not JSON"}
		}
		return nil, firstRawError(v)
	}
	return b, nil
}

// firstRawError is the *Error of the first value in a tree that JSON
// cannot hold (in key order), for rawJSON.
func firstRawError(v any) error {
	fails := func(item any) error {
		if _, err := json.Marshal(item); err != nil {
			return firstRawError(item)
		}
		return nil
	}
	switch x := v.(type) {
	case map[string]any:
		return firstError(x, fails)
	case []any:
		for i, item := range x {
			if err := fails(item); err != nil {
				return inside(err, "["+strconv.Itoa(i)+"]")
			}
		}
	}
	return typeError(v, "expected a JSON value")
}

// sortedKeys are a map's keys in order.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// firstError is the error of the first member of m, in key order, that read
// refuses: the same error whatever order the map is walked in.
func firstError(m map[string]any, read func(any) error) error {
	for _, k := range sortedKeys(m) {
		if err := read(m[k]); err != nil {
			return inside(err, "["+k+"]")
		}
	}
	return nil
}

// typeError is a value of the wrong JSON type.
func typeError(v any, want string) *Error {
	return &Error{Value: shortJSON(v), Reason: want + ", got " + describe(v)}
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
	e, ok := err.(*Error)
	if !ok {
		return err
	}
	return &Error{Path: joinPath(seg, e.Path), Value: e.Value, Reason: e.Reason}
}

// joinPath joins field path segments: "a" + "b" is "a.b", "a" + "[0]" is
// "a[0]".
func joinPath(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	case b[0] == '[':
		return a + b
	}
	return a + "." + b
}
