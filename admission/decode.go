package admission

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/clonecore/cloneset/podtemplate"
)

// reader reads a JSON-like tree into the table's types and gives back what
// the typed encoding writes: the canonical tree (see Object). Its errors are
// *podtemplate.Error, their path relative to the value read; the single
// values are read by package podtemplate's readers, which the pod
// template's encoding uses too. The members it drops (unknown to the types)
// are listed in unknown, by path, outside the pod template and the claim
// templates (which the CloneSet's CRD keeps unknown members of: the API
// server neither drops nor warns about those).
type reader struct {
	unknown *[]string
}

// read reads v (a JSON-like value; nil is null or absent) at path as type
// t: out is the value written back, empty whether omitempty leaves its
// member out.
func (r reader) read(v any, t *typeInfo, path string) (out any, empty bool, err error) {
	if v, err = podtemplate.ReadJSONValue(v, readsText(t)); err != nil {
		return nil, false, err
	}
	switch t.kind {
	case kindString:
		s, err := podtemplate.ReadString(v)
		return s, s == "", err
	case kindBool:
		switch x := v.(type) {
		case nil:
			return false, true, nil
		case bool:
			return x, !x, nil
		}
		return nil, false, podtemplate.WrongType(v, "expected true or false")
	case kindInt:
		if v == nil {
			return int64(0), true, nil
		}
		n, err := podtemplate.ReadInteger(v, t.bits)
		return n, n == 0, err
	case kindPointer:
		if v == nil {
			return nil, true, nil
		}
		out, _, err := r.read(v, t.elem, path)
		return out, false, err
	case kindSlice:
		return r.slice(v, t, path)
	case kindMap:
		return r.mapOf(v, t, path)
	case kindStruct:
		return r.structOf(v, t, path)
	case kindIntOrString:
		switch x := v.(type) {
		case nil:
			return int64(0), false, nil
		case string:
			return x, false, nil
		}
		n, err := podtemplate.ReadInteger(v, 32)
		if e, ok := err.(*podtemplate.Error); ok {
			return nil, false, &podtemplate.Error{Value: e.Value, Reason: "expected a string or a 32-bit integer"}
		}
		return n, false, err
	case kindQuantity:
		q, err := podtemplate.ReadQuantity(v)
		return q, false, err
	case kindTime:
		t, err := podtemplate.ReadTime(v)
		return t, false, err
	case kindRawJSON:
		raw, err := podtemplate.ReadRawJSON(v)
		return raw, false, err
	case kindPodTemplate:
		return podtemplateEncoding(v, podtemplate.Encode)
	case kindClaimTemplate:
		return podtemplateEncoding(v, podtemplate.EncodeClaimTemplate)
	}
	return nil, false, fmt.Errorf("admission: type %s has no kind", t.name) // a defect of the table
}

func (r reader) slice(v any, t *typeInfo, path string) (any, bool, error) {
	switch x := v.(type) {
	case nil:
		return nil, true, nil
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			seg := "[" + strconv.Itoa(i) + "]"
			o, _, err := r.read(item, t.elem, path+seg)
			if err != nil {
				return nil, false, podtemplate.InError(err, seg)
			}
			out[i] = o
		}
		return out, len(x) == 0, nil
	}
	return nil, false, podtemplate.WrongType(v, "expected a list")
}

func (r reader) mapOf(v any, t *typeInfo, path string) (any, bool, error) {
	switch x := v.(type) {
	case nil:
		return nil, true, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for _, k := range sortedKeys(x) { // the first error in key order, whatever the map's order
			o, _, err := r.read(x[k], t.elem, path+"["+k+"]")
			if err != nil {
				return nil, false, podtemplate.InError(err, "["+k+"]")
			}
			out[podtemplate.ReadKey(k)] = o // sorted: a later key wins, as in the JSON
		}
		return out, len(x) == 0, nil
	}
	return nil, false, podtemplate.WrongType(v, "expected an object")
}

func (r reader) structOf(v any, t *typeInfo, path string) (any, bool, error) {
	members, ok := v.(map[string]any)
	if v != nil && !ok {
		return nil, false, podtemplate.WrongType(v, "expected an object")
	}
	out := make(map[string]any, len(t.fields))
	known := 0
	for _, f := range t.fields {
		member, present := members[f.name] // absent: the zero value
		if present {
			known++
		}
		o, empty, err := r.read(member, f.typ, joinPath(path, f.name))
		if err != nil {
			return nil, false, podtemplate.InError(err, f.name)
		}
		if f.omitEmpty && empty {
			continue
		}
		out[f.name] = o
	}
	if known < len(members) && r.unknown != nil {
		for _, k := range sortedKeys(members) {
			if !slices.ContainsFunc(t.fields, func(f fieldInfo) bool { return f.name == k }) {
				*r.unknown = append(*r.unknown, joinPath(path, k))
			}
		}
	}
	return out, false, nil // encoding/json never leaves a struct out
}

// readsText says whether a type reads a value's JSON text rather than the
// value (a quantity, a FieldsV1, through pointers).
func readsText(t *typeInfo) bool {
	for t.kind == kindPointer {
		t = t.elem
	}
	switch t.kind {
	case kindQuantity, kindRawJSON:
		return true
	}
	return false
}

// joinPath is path's member name: "spec" + "replicas" is "spec.replicas".
func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// podtemplateEncoding is the typed encoding of a pod template or a claim
// template, by package podtemplate (encode).
func podtemplateEncoding(v any, encode func(map[string]any) (map[string]any, error)) (any, bool, error) {
	m, ok := v.(map[string]any)
	if v != nil && !ok {
		return nil, false, podtemplate.WrongType(v, "expected an object")
	}
	out, err := encode(m)
	return out, false, err
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
