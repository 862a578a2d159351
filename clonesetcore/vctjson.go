package clonesetcore

import (
	"bytes"
	"encoding/json"

	"github.com/clonecore/cloneset/model"
)

// vctJSON encodes claim templates reduced to {metadata: {name}, spec} as the
// Kubernetes API types encode a list of PersistentVolumeClaims: members in
// the order of the Go struct fields, empty optional members left out,
// metadata.creationTimestamp null and status {} always present. Members the
// API type does not have are dropped, as decoding into it drops them.
func vctJSON(vcts []model.VolumeClaimTemplate) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, t := range vcts {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"metadata":{`)
		if t.Name != "" {
			b.WriteString(`"name":`)
			writeJSON(&b, t.Name)
			b.WriteByte(',')
		}
		b.WriteString(`"creationTimestamp":null},"spec":`)
		var spec map[string]any
		if t.Raw != nil {
			spec, _ = t.Raw["spec"].(map[string]any)
		}
		writeFields(&b, spec, pvcSpecFields)
		b.WriteString(`,"status":{}}`)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// field is one member of an API type: its JSON name and, for an object, its
// own members (nil: written as a plain JSON value).
type field struct {
	name   string
	fields []field
	list   bool // a list of objects with fields
	// always: a struct member, which encoding/json writes even when empty
	// (omitempty does not apply to structs).
	always bool
}

// The members of the types under a PersistentVolumeClaimSpec, in Go struct
// order (k8s.io/api core/v1).
var (
	labelSelectorFields = []field{{name: "matchLabels"}, {name: "matchExpressions", list: true, fields: []field{{name: "key"}, {name: "operator"}, {name: "values"}}}}
	pvcSpecFields       = []field{
		{name: "accessModes"},
		{name: "selector", fields: labelSelectorFields},
		{name: "resources", always: true, fields: []field{{name: "limits"}, {name: "requests"}}},
		{name: "volumeName"},
		{name: "storageClassName"},
		{name: "volumeMode"},
		{name: "dataSource", fields: []field{{name: "apiGroup"}, {name: "kind"}, {name: "name"}}},
		{name: "dataSourceRef", fields: []field{{name: "apiGroup"}, {name: "kind"}, {name: "name"}, {name: "namespace"}}},
		{name: "volumeAttributesClassName"},
	}
)

// writeFields writes an object with the given members, in their order,
// leaving out absent and empty ones (every member here is optional).
func writeFields(b *bytes.Buffer, m map[string]any, fields []field) {
	b.WriteByte('{')
	n := 0
	for _, f := range fields {
		v, ok := m[f.name]
		if (!ok || isEmpty(v)) && !f.always {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		writeJSON(b, f.name)
		b.WriteByte(':')
		switch {
		case f.list:
			items, _ := v.([]any)
			b.WriteByte('[')
			for i, it := range items {
				if i > 0 {
					b.WriteByte(',')
				}
				obj, _ := it.(map[string]any)
				writeFields(b, obj, f.fields)
			}
			b.WriteByte(']')
		case f.fields != nil:
			obj, _ := v.(map[string]any)
			writeFields(b, obj, f.fields)
		default:
			writeJSON(b, model.NormalizeTree(v))
		}
	}
	b.WriteByte('}')
}

// isEmpty is encoding/json's omitempty test on a decoded value.
func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// writeJSON writes v as encoding/json does for the API types: map keys
// sorted, HTML characters escaped.
func writeJSON(b *bytes.Buffer, v any) {
	out, err := json.Marshal(v)
	if err != nil {
		b.WriteString("null")
		return
	}
	b.Write(out)
}
