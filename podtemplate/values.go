package podtemplate

import "encoding/json"

// The readers of single values that the typed encoding of a template uses,
// for other typed encodings built the same way (package admission's
// CloneSet): each reads a JSON-like value as the Go type named reads it and
// gives back what encoding/json writes for it, or an *Error whose path is
// empty (InError adds the member's).

// ReadString reads a string member (null is ""), as the Go string the JSON
// encoding/json writes for it reads back: a byte that is not UTF-8 is
// U+FFFD.
func ReadString(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return validUTF8(x), nil
	}
	return "", typeError(v, "expected a string")
}

// ReadKey is a map key as it reads back from the JSON encoding/json writes
// (ReadString's rule; when two keys read back alike, the later in order
// counts).
func ReadKey(k string) string { return validUTF8(k) }

// ReadInteger reads a JSON number written as an integer that fits bits
// bits (32 or 64), as encoding/json reads one into a Go integer.
func ReadInteger(v any, bits int) (int64, error) { return integer(v, bits) }

// ReadQuantity reads a resource.Quantity member (a string, or a number in
// the quantity syntax; null is the zero quantity) and gives its canonical
// text.
func ReadQuantity(v any) (string, error) {
	q, err := readQuantity(v)
	if err != nil {
		return "", err
	}
	return q.String(), nil
}

// ReadTime reads a metav1.Time member (null, or an RFC 3339 string): nil
// for the zero time, else the time in UTC to the second.
func ReadTime(v any) (any, error) {
	e, err := encodeTime(v)
	return e.out, err
}

// ReadRawJSON reads a metav1.FieldsV1 member: any JSON value, given back as
// the text the typed form writes (a json.RawMessage: the text it was read
// from, compacted, &, < and > escaped; see DecodeJSON).
func ReadRawJSON(v any) (json.RawMessage, error) { return rawJSON(v) }

// ReadJSONValue is the value a reader of a single value sees: v itself,
// or for a json.RawMessage (DecodeJSON's) nil when its text is null, the
// json.RawMessage itself when keepText is set (a quantity and a FieldsV1
// member read the text: give it to ReadQuantity or ReadRawJSON as it is),
// else the value its text holds.
func ReadJSONValue(v any, keepText bool) (any, error) {
	raw, ok := v.(json.RawMessage)
	switch {
	case !ok:
		return v, nil
	case isNullJSON(raw):
		return nil, nil
	case keepText:
		return raw, nil
	}
	return resolveRaw(raw)
}

// WrongType is the *Error of a value of the wrong JSON type; want says what
// the field takes ("expected a string").
func WrongType(v any, want string) *Error { return typeError(v, want) }

// InError prefixes the path of an *Error with the member or index it was
// found in ("spec", "[0]"); other errors are returned as they are.
func InError(err error, seg string) error { return inside(err, seg) }
