package podtemplate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// DecodeJSON reads a JSON object into the tree the typed encodings read,
// keeping what the Kubernetes API types read from the JSON text itself,
// which a tree of decoded values would lose:
//
//   - a number is a json.Number holding its text;
//   - the value of every member named "fieldsV1" is a json.RawMessage
//     holding its text as written (metav1.FieldsV1 keeps its raw bytes:
//     members in their order, numbers as written);
//   - a string whose text is not the one encoding/json writes for it (one
//     written with an escape, "\u0031" or "\t", or holding a character
//     encoding/json escapes, U+2028 or "<") is a json.RawMessage holding its
//     JSON text, quotes included: resource.Quantity parses a string's text
//     as written, without unescaping it. Any other string is a Go string,
//     whose text is what encoding/json writes for it.
//
// Every reader of the package (Encode, Check, Default, RevisionData...)
// reads a json.RawMessage as the JSON value its text holds. A member
// written twice in one object counts once, with its last value, as
// encoding/json and the API server read it (the API server warns about it
// or, with fieldValidation=Strict, refuses the request; it never sends one
// to a webhook, and kruise's decoder, given such bytes, would merge two
// objects written for one member). Nesting is limited as encoding/json
// limits it (10000 levels). A text that is not one JSON object is an error
// saying so.
func DecodeJSON(data []byte) (map[string]any, error) {
	v, err := decodeJSONValue(data)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want a JSON object, got %s", describe(v))
	}
	return m, nil
}

// maxJSONDepth is the nesting encoding/json accepts.
const maxJSONDepth = 10000

// decodeJSONValue reads one JSON value with DecodeJSON's rules.
func decodeJSONValue(data []byte) (any, error) {
	r := &jsonReader{data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	r.dec.UseNumber()
	v, err := r.value("")
	if err != nil {
		return nil, err
	}
	if _, err := r.dec.Token(); err != io.EOF {
		return nil, errors.New("not a JSON object: trailing data after the JSON value")
	}
	return v, nil
}

// jsonReader reads JSON tokens, with the text they were read from.
type jsonReader struct {
	data  []byte
	dec   *json.Decoder
	depth int
}

// value reads the next value; path names it in errors.
func (r *jsonReader) value(path string) (any, error) {
	start := r.dec.InputOffset()
	tok, err := r.dec.Token()
	if err != nil {
		return nil, r.syntaxError(path, err)
	}
	switch t := tok.(type) {
	case json.Delim:
		if r.depth++; r.depth > maxJSONDepth {
			return nil, fmt.Errorf("%s: nested deeper than %d levels", pathOrTop(path), maxJSONDepth)
		}
		defer func() { r.depth-- }()
		if t == '{' {
			return r.object(path)
		}
		return r.array(path)
	case string:
		text := r.data[start:r.dec.InputOffset()] // separators, then the string
		if bytes.IndexByte(text, '\\') >= 0 || needsEscape(t) {
			return json.RawMessage(bytes.Clone(text[bytes.IndexByte(text, '"'):])), nil
		}
		return t, nil
	}
	return tok, nil // json.Number, bool or nil
}

func (r *jsonReader) object(path string) (map[string]any, error) {
	m := map[string]any{}
	for r.dec.More() {
		tok, err := r.dec.Token()
		if err != nil {
			return nil, r.syntaxError(path, err)
		}
		key, _ := tok.(string) // More and Token allow only a string here
		at := joinPath(path, key)
		if key == "fieldsV1" {
			var raw json.RawMessage
			if err := r.dec.Decode(&raw); err != nil {
				return nil, r.syntaxError(at, err)
			}
			m[key] = raw
			continue
		}
		if m[key], err = r.value(at); err != nil {
			return nil, err
		}
	}
	if _, err := r.dec.Token(); err != nil {
		return nil, r.syntaxError(path, err)
	}
	return m, nil
}

func (r *jsonReader) array(path string) ([]any, error) {
	l := []any{}
	for r.dec.More() {
		v, err := r.value(path + "[" + strconv.Itoa(len(l)) + "]")
		if err != nil {
			return nil, err
		}
		l = append(l, v)
	}
	if _, err := r.dec.Token(); err != nil {
		return nil, r.syntaxError(path, err)
	}
	return l, nil
}

// syntaxError is a JSON syntax error found at path.
func (r *jsonReader) syntaxError(path string, err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("not a JSON object: %s: %v", pathOrTop(path), err)
}

// pathOrTop names the top value when path is empty.
func pathOrTop(path string) string {
	if path == "" {
		return "the JSON value"
	}
	return path
}

// resolveRaw is the JSON value a json.RawMessage holds: a string as a Go
// string, anything else read with DecodeJSON's rules (null is nil).
func resolveRaw(raw json.RawMessage) (any, error) {
	var v any
	var err error
	if text := bytes.TrimSpace(raw); len(text) > 0 && text[0] == '"' {
		var s string
		err = json.Unmarshal(text, &s)
		v = s
	} else {
		v, err = decodeJSONValue(raw)
	}
	if err != nil {
		return nil, &Error{Value: shortText(raw), Reason: "not JSON: " + err.Error()}
	}
	return v, nil
}

// isNullJSON says whether raw JSON text is null.
func isNullJSON(raw []byte) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

// shortText is JSON text cut to 64 bytes.
func shortText(b []byte) string {
	if len(b) > 64 {
		return string(b[:61]) + "..."
	}
	return string(b)
}
