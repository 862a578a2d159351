package apiserver

import (
	"strconv"
	"strings"
)

// ApplyJSONPatch applies a JSON patch (RFC 6902) body to an object and
// returns the result; obj is not modified. The operations apply in order to
// one copy, and the whole patch fails (with no effect) when one fails: a
// missing or malformed member, a path that does not exist where it must, an
// array index out of range, a move into the moved value's own children, a
// failing test, or a result that is not a JSON object.
func ApplyJSONPatch(obj Object, body []byte) (Object, error) {
	p, err := DecodeJSON(body)
	if err != nil {
		return nil, errorf(ReasonBadRequest, "json patch: %v", err)
	}
	ops, ok := p.([]any)
	if !ok {
		return nil, errorf(ReasonBadRequest, "json patch: the body must be a JSON array of operations, got %s", compactJSON(p))
	}
	var doc any = copyObject(obj)
	for i, raw := range ops {
		op, ok := raw.(map[string]any)
		if !ok {
			return nil, errorf(ReasonBadRequest, "json patch: operation %d is not an object", i)
		}
		doc, err = applyOperation(doc, op)
		if err != nil {
			return nil, errorf(ReasonBadRequest, "json patch: operation %d (%s): %v", i, compactJSON(op), err)
		}
	}
	out, ok := doc.(map[string]any)
	if !ok {
		return nil, errorf(ReasonBadRequest, "json patch: the result is not a JSON object")
	}
	return out, nil
}

// patchError is a failure of one JSON patch operation.
type patchError string

// Error implements error.
func (e patchError) Error() string { return string(e) }

func applyOperation(doc any, op map[string]any) (any, error) {
	name, ok := op["op"].(string)
	if !ok {
		return nil, patchError(`missing or non-string "op"`)
	}
	path, err := pointerMember(op, "path")
	if err != nil {
		return nil, err
	}
	switch name {
	case "add", "replace", "test":
		value, ok := op["value"]
		if !ok {
			return nil, patchError(`missing "value"`)
		}
		switch name {
		case "add":
			return addAt(doc, path, DeepCopy(value))
		case "replace":
			if len(path) == 0 {
				return DeepCopy(value), nil
			}
			if _, err := getAt(doc, path); err != nil {
				return nil, err
			}
			doc, _, err = removeAt(doc, path)
			if err != nil {
				return nil, err
			}
			return addAt(doc, path, DeepCopy(value))
		default:
			got, err := getAt(doc, path)
			if err != nil {
				return nil, err
			}
			if !Equal(got, value) {
				return nil, patchError("test failed: the value at " + pointerString(path) + " is " + compactJSON(got) + ", not " + compactJSON(value))
			}
			return doc, nil
		}
	case "remove":
		doc, _, err = removeAt(doc, path)
		return doc, err
	case "move", "copy":
		from, err := pointerMember(op, "from")
		if err != nil {
			return nil, err
		}
		value, err := getAt(doc, from)
		if err != nil {
			return nil, err
		}
		if name == "copy" {
			return addAt(doc, path, DeepCopy(value))
		}
		if isProperPrefix(from, path) {
			return nil, patchError("cannot move " + pointerString(from) + " into its own child " + pointerString(path))
		}
		doc, _, err = removeAt(doc, from)
		if err != nil {
			return nil, err
		}
		return addAt(doc, path, value)
	}
	return nil, patchError("unknown op " + strconv.Quote(name))
}

// pointerMember reads and parses a JSON pointer member of an operation.
func pointerMember(op map[string]any, member string) ([]string, error) {
	s, ok := op[member].(string)
	if !ok {
		return nil, patchError(`missing or non-string "` + member + `"`)
	}
	return parsePointer(s)
}

// parsePointer splits a JSON pointer (RFC 6901) into unescaped tokens; ""
// is the whole document.
func parsePointer(s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	if s[0] != '/' {
		return nil, patchError("JSON pointer " + strconv.Quote(s) + " does not start with /")
	}
	parts := strings.Split(s[1:], "/")
	for i, p := range parts {
		for j := 0; j < len(p); j++ {
			if p[j] == '~' && (j+1 == len(p) || (p[j+1] != '0' && p[j+1] != '1')) {
				return nil, patchError("JSON pointer " + strconv.Quote(s) + " has a bad escape")
			}
		}
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
	}
	return parts, nil
}

func pointerString(p []string) string {
	var b strings.Builder
	for _, t := range p {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

func isProperPrefix(a, b []string) bool {
	if len(a) >= len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// arrayIndex parses an array index token: digits without a leading zero,
// at most max.
func arrayIndex(tok string, max int) (int, error) {
	if tok == "" || (len(tok) > 1 && tok[0] == '0') {
		return 0, patchError("bad array index " + strconv.Quote(tok))
	}
	for _, c := range tok {
		if c < '0' || c > '9' {
			return 0, patchError("bad array index " + strconv.Quote(tok))
		}
	}
	i, err := strconv.Atoi(tok)
	if err != nil || i > max {
		return 0, patchError("array index " + tok + " out of range")
	}
	return i, nil
}

// getAt returns the value at a pointer.
func getAt(doc any, path []string) (any, error) {
	cur := doc
	for n, tok := range path {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, patchError("path " + pointerString(path[:n+1]) + " does not exist")
			}
			cur = v
		case []any:
			i, err := arrayIndex(tok, len(c)-1)
			if err != nil {
				return nil, err
			}
			cur = c[i]
		default:
			return nil, patchError("path " + pointerString(path[:n+1]) + " does not exist")
		}
	}
	return cur, nil
}

// addAt adds (RFC 6902 "add") a value at a pointer and returns the new
// document: a member is set, an array element inserted ("-" appends).
func addAt(doc any, path []string, value any) (any, error) {
	if len(path) == 0 {
		return value, nil
	}
	parent, err := getAt(doc, path[:len(path)-1])
	if err != nil {
		return nil, err
	}
	last := path[len(path)-1]
	switch p := parent.(type) {
	case map[string]any:
		p[last] = value
		return doc, nil
	case []any:
		i := len(p)
		if last != "-" {
			if i, err = arrayIndex(last, len(p)); err != nil {
				return nil, err
			}
		}
		l := make([]any, 0, len(p)+1)
		l = append(l, p[:i]...)
		l = append(l, value)
		l = append(l, p[i:]...)
		return replaceParent(doc, path[:len(path)-1], l)
	}
	return nil, patchError("the parent of " + pointerString(path) + " is not an object or array")
}

// removeAt removes the value at a pointer and returns the new document and
// the removed value.
func removeAt(doc any, path []string) (any, any, error) {
	if len(path) == 0 {
		return nil, nil, patchError("cannot remove the whole document")
	}
	parent, err := getAt(doc, path[:len(path)-1])
	if err != nil {
		return nil, nil, err
	}
	last := path[len(path)-1]
	switch p := parent.(type) {
	case map[string]any:
		v, ok := p[last]
		if !ok {
			return nil, nil, patchError("path " + pointerString(path) + " does not exist")
		}
		delete(p, last)
		return doc, v, nil
	case []any:
		i, err := arrayIndex(last, len(p)-1)
		if err != nil {
			return nil, nil, err
		}
		v := p[i]
		l := make([]any, 0, len(p)-1)
		l = append(l, p[:i]...)
		l = append(l, p[i+1:]...)
		doc, err = replaceParent(doc, path[:len(path)-1], l)
		return doc, v, err
	}
	return nil, nil, patchError("path " + pointerString(path) + " does not exist")
}

// replaceParent stores a new array at a pointer (arrays change length, so
// their holder must be updated).
func replaceParent(doc any, path []string, l []any) (any, error) {
	if len(path) == 0 {
		return l, nil
	}
	holder, err := getAt(doc, path[:len(path)-1])
	if err != nil {
		return nil, err
	}
	last := path[len(path)-1]
	switch h := holder.(type) {
	case map[string]any:
		h[last] = l
	case []any:
		i, err := arrayIndex(last, len(h)-1)
		if err != nil {
			return nil, err
		}
		h[i] = l
	}
	return doc, nil
}
