package podtemplate

// kind is what a Go type of k8s.io/api is to encoding/json: how a JSON value
// decodes into it and how it encodes again.
type kind uint8

// The kinds of the core/v1 table. Every named type is reduced to its kind:
// v1.Protocol is a string, v1.ResourceList a map of quantities.
const (
	// kindString is a Go string (named or not): JSON strings only.
	kindString kind = iota + 1
	// kindBool is a Go bool: JSON true and false only.
	kindBool
	// kindInt is a signed integer of bits bits: a JSON number written as an
	// integer in range ("1.0" and "1e3" are refused, as encoding/json
	// refuses them).
	kindInt
	// kindStruct is a Go struct: a JSON object whose members are its fields
	// (unknown members are dropped, exact names only).
	kindStruct
	// kindPointer is a pointer to elem: null or absent is a nil pointer.
	kindPointer
	// kindSlice is a slice of elem: a JSON list.
	kindSlice
	// kindMap is a map with string keys and elem values: a JSON object.
	kindMap
	// kindQuantity is resource.Quantity: a string or a number in the
	// quantity syntax, written back in its canonical form (quantity.go).
	kindQuantity
	// kindIntOrString is intstr.IntOrString: a JSON string stays a string,
	// anything else must be a 32-bit integer.
	kindIntOrString
	// kindTime is metav1.Time: null or an RFC 3339 string, written back in
	// UTC to the second (null when zero).
	kindTime
	// kindRawJSON is metav1.FieldsV1: any JSON value, kept as it is.
	kindRawJSON
)

// typeInfo is one Go type of the table: its kind, the element type of a
// pointer, slice or map, the fields of a struct (embedded structs already
// flattened as encoding/json flattens them).
type typeInfo struct {
	// name is the Go type (for example "v1.Container"), for error messages.
	name string
	kind kind
	// bits is the size of a kindInt.
	bits int
	// elem is the index of the element type (kindPointer, kindSlice, kindMap).
	elem int
	// fields are the JSON members of a kindStruct.
	fields []fieldInfo
}

// fieldInfo is one JSON member of a struct: its name, its type (an index into
// the table) and the options of its json tag.
type fieldInfo struct {
	name string
	typ  int
	// omitEmpty is the omitempty option: the member is left out when its
	// value is false, 0, "", a nil pointer, or an empty slice or map (never
	// for a struct, as encoding/json never thinks a struct empty).
	omitEmpty bool
	// omitZero is the omitzero option: the member is left out when its value
	// is the zero value of its type (or its IsZero method says so).
	omitZero bool
}

//go:generate sh -c "cd ../examples/kubecontroller && go run ./cmd/gencorev1table -o ../../podtemplate/corev1_table.go"
