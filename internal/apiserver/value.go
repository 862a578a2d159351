package apiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"gopkg.in/yaml.v3"
)

// Object is one API object as a JSON tree: maps, lists, strings, float64
// numbers, booleans and nil, as encoding/json decodes into any.
type Object = map[string]any

// DecodeJSON decodes JSON into a tree of the shape encoding/json gives, and
// fails on trailing data.
func DecodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return v, nil
}

// yamlToJSON converts a YAML node into a JSON tree. Scalars follow their
// resolved tags; a timestamp stays the string it was written as (the API
// server's JSON carries times as RFC 3339 strings).
func yamlToJSON(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return yamlToJSON(n.Content[0])
	case yaml.AliasNode:
		return yamlToJSON(n.Alias)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: a map key must be a scalar", k.Line)
			}
			v, err := yamlToJSON(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			m[k.Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := yamlToJSON(c)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		return l, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return nil, fmt.Errorf("line %d: %v", n.Line, err)
			}
			return b, nil
		case "!!int", "!!float":
			var f float64
			if err := n.Decode(&f); err != nil {
				return nil, fmt.Errorf("line %d: %v", n.Line, err)
			}
			if math.IsInf(f, 0) || math.IsNaN(f) {
				return nil, fmt.Errorf("line %d: %s is not a JSON number", n.Line, n.Value)
			}
			return f, nil
		default:
			return n.Value, nil
		}
	}
	return nil, fmt.Errorf("line %d: unsupported YAML node", n.Line)
}

// DeepCopy copies a JSON tree.
func DeepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, x := range t {
			m[k] = DeepCopy(x)
		}
		return m
	case []any:
		l := make([]any, len(t))
		for i, x := range t {
			l[i] = DeepCopy(x)
		}
		return l
	default:
		return v
	}
}

// copyObject deep-copies an object.
func copyObject(o Object) Object {
	if o == nil {
		return nil
	}
	return DeepCopy(o).(map[string]any)
}

// Equal reports whether two JSON trees are equal (numbers by value, maps by
// content, lists in order).
func Equal(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !Equal(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return false
}

// compactJSON renders a JSON tree on one line, with sorted map keys.
func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

// metadata returns the object's metadata map, or nil.
func metadata(o Object) map[string]any {
	m, _ := o["metadata"].(map[string]any)
	return m
}

// metaString returns a string field of the object's metadata.
func metaString(o Object, field string) string {
	s, _ := metadata(o)[field].(string)
	return s
}

// setMeta sets a metadata field, creating metadata if needed.
func setMeta(o Object, field string, v any) {
	m := metadata(o)
	if m == nil {
		m = map[string]any{}
		o["metadata"] = m
	}
	m[field] = v
}

// finalizers returns the object's metadata.finalizers.
func finalizers(o Object) []any {
	l, _ := metadata(o)["finalizers"].([]any)
	return l
}

// itoa formats a counter.
func itoa(n int) string { return strconv.Itoa(n) }
