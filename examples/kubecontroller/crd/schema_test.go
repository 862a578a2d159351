package crd

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// The schema walkers of the tests: structuralErrors checks the rules of a
// structural schema node by node; valueErrors checks that a value (a
// CloneSet, a status) has only declared fields, each of its declared type.

// structuralErrors returns what keeps the schema at path from being
// structural: every node has a type, or is int-or-string, or keeps unknown
// fields; int-or-string nodes have no type and no anyOf but the
// {integer, string} pair; objects declare properties or
// additionalProperties, not both; arrays have items; scalars have neither;
// list types appear only on arrays, a map list names keys its items
// require; no other anyOf, oneOf, allOf or not.
func structuralErrors(path string, s *apiextensionsv1.JSONSchemaProps) []string {
	if s == nil {
		return []string{path + ": no schema"}
	}
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, path+": "+fmt.Sprintf(format, args...)) }
	preserve := s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields
	switch {
	case s.XIntOrString:
		if s.Type != "" {
			bad("int-or-string with type %q", s.Type)
		}
		if len(s.AnyOf) > 0 && !isIntOrStringAnyOf(s.AnyOf) {
			bad("int-or-string with an anyOf other than [integer, string]")
		}
	case s.Type == "" && !preserve:
		bad("no type (and neither int-or-string nor preserving unknown fields)")
	default:
		if len(s.AnyOf) > 0 {
			bad("anyOf outside an int-or-string node")
		}
	}
	if len(s.OneOf) > 0 || len(s.AllOf) > 0 || s.Not != nil {
		bad("oneOf, allOf or not")
	}
	if s.Type != "object" && (len(s.Properties) > 0 || s.AdditionalProperties != nil) {
		bad("properties on a node of type %q", s.Type)
	}
	if s.Type == "object" && len(s.Properties) > 0 && s.AdditionalProperties != nil {
		bad("both properties and additionalProperties")
	}
	if s.Type == "array" && (s.Items == nil || s.Items.Schema == nil) {
		bad("an array without items")
	}
	if s.Type != "array" && s.Items != nil {
		bad("items on a node of type %q", s.Type)
	}
	if s.XListType != nil {
		if s.Type != "array" {
			bad("list type on a node of type %q", s.Type)
		}
		if *s.XListType == "map" {
			if len(s.XListMapKeys) == 0 {
				bad("a map list without keys")
			}
			for _, k := range s.XListMapKeys {
				if s.Items == nil || s.Items.Schema == nil || !slices.Contains(s.Items.Schema.Required, k) {
					bad("map list key %q is not required by the items", k)
				}
			}
		}
	}
	for _, name := range sortedKeys(s.Properties) {
		p := s.Properties[name]
		errs = append(errs, structuralErrors(path+"."+name, &p)...)
	}
	if ap := s.AdditionalProperties; ap != nil {
		if ap.Schema == nil {
			bad("additionalProperties without a schema")
		} else {
			errs = append(errs, structuralErrors(path+".*", ap.Schema)...)
		}
	}
	if s.Items != nil && s.Items.Schema != nil {
		errs = append(errs, structuralErrors(path+"[]", s.Items.Schema)...)
	}
	return errs
}

func isIntOrStringAnyOf(l []apiextensionsv1.JSONSchemaProps) bool {
	return len(l) == 2 && l[0].Type == "integer" && l[1].Type == "string"
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// valueErrors returns the fields of v (at path) the schema s does not
// declare, and the values that do not have their declared type. Below a
// node that keeps unknown fields, only the declared fields are checked.
// Numbers are int64 or float64, as k8s.io/apimachinery/pkg/util/json decodes
// them.
func valueErrors(path string, v any, s *apiextensionsv1.JSONSchemaProps) []string {
	if v == nil {
		return nil // null: the API server drops it or keeps it as absent
	}
	bad := func(format string, args ...any) []string {
		return []string{path + ": " + fmt.Sprintf(format, args...)}
	}
	if s.XIntOrString {
		switch v.(type) {
		case int64, string:
			return nil
		}
		return bad("%v (%T) is neither an integer nor a string", v, v)
	}
	preserve := s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields
	switch s.Type {
	case "string":
		str, ok := v.(string)
		if !ok {
			return bad("%v (%T) is not a string", v, v)
		}
		if s.Format == "date-time" {
			if _, err := time.Parse(time.RFC3339, str); err != nil {
				return bad("%q is not a date-time", str)
			}
		}
	case "integer":
		if _, ok := v.(int64); !ok {
			return bad("%v (%T) is not an integer", v, v)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return bad("%v (%T) is not a boolean", v, v)
		}
	case "array":
		l, ok := v.([]any)
		if !ok {
			return bad("%v (%T) is not a list", v, v)
		}
		var errs []string
		for i, e := range l {
			errs = append(errs, valueErrors(path+"["+strconv.Itoa(i)+"]", e, s.Items.Schema)...)
		}
		return errs
	case "object", "":
		m, ok := v.(map[string]any)
		if !ok {
			if s.Type == "" && preserve {
				return nil
			}
			return bad("%v (%T) is not an object", v, v)
		}
		var errs []string
		for _, k := range sortedKeys(m) {
			switch p, declared := s.Properties[k]; {
			case declared:
				errs = append(errs, valueErrors(path+"."+k, m[k], &p)...)
			case s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
				errs = append(errs, valueErrors(path+"."+k, m[k], s.AdditionalProperties.Schema)...)
			case !preserve:
				errs = append(errs, path+"."+k+": not declared (the API server would prune it)")
			}
		}
		return errs
	default:
		return bad("schema type %q", s.Type)
	}
	return nil
}

// schemaAt returns the schema of the field at a JSON pointer (RFC 6901) in
// the object s describes, or an error naming the first step not declared.
// A "-" or a number steps into a list.
func schemaAt(s *apiextensionsv1.JSONSchemaProps, pointer string) (*apiextensionsv1.JSONSchemaProps, error) {
	if !strings.HasPrefix(pointer, "/") {
		return nil, fmt.Errorf("%q is not a JSON pointer", pointer)
	}
	for _, step := range strings.Split(pointer[1:], "/") {
		step = strings.ReplaceAll(strings.ReplaceAll(step, "~1", "/"), "~0", "~")
		switch {
		case s.Type == "array":
			s = s.Items.Schema
		case s.Properties != nil && hasProperty(s, step):
			p := s.Properties[step]
			s = &p
		case s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
			s = s.AdditionalProperties.Schema
		default:
			return nil, fmt.Errorf("%s: %q is not declared", pointer, step)
		}
	}
	return s, nil
}

func hasProperty(s *apiextensionsv1.JSONSchemaProps, name string) bool {
	_, ok := s.Properties[name]
	return ok
}
