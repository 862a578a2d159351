package podtemplate

// Shape is one Go type of the core/v1 table (the types reachable from
// v1.PodTemplateSpec) as a JSON value has it: an object whose members are a
// struct's fields, a list or a map of one element shape, or a plain value
// (string, number, boolean, quantity, int-or-string, time, raw JSON). A
// pointer is the shape of what it points to. It lets a reader of manifests
// tell the members the Kubernetes API types know from the ones they drop.
// The zero Shape is no type: every method answers as for a plain value.
type Shape struct {
	// index is the table index + 1 (0: no type).
	index int
}

// ShapeKind is what a Shape is in JSON.
type ShapeKind uint8

// The kinds of a Shape.
const (
	// ShapeValue is a plain value: nothing to look into.
	ShapeValue ShapeKind = iota
	// ShapeObject is a struct: an object with known members.
	ShapeObject
	// ShapeList is a slice: a list of Elem.
	ShapeList
	// ShapeMap is a map with string keys: an object whose members are all
	// of Elem.
	ShapeMap
)

// ShapeOf returns the shape of a type of the table by its Go name as the
// table writes it ("v1.PodSpec", "v1.ObjectMeta", "v1.LabelSelector"); ok
// is false when the table has no such type.
func ShapeOf(goType string) (Shape, bool) {
	for i := range corev1Types {
		if corev1Types[i].name == goType {
			return shapeAt(i), true
		}
	}
	return Shape{}, false
}

// TemplateShape is the shape of v1.PodTemplateSpec, the table's root.
func TemplateShape() Shape { return shapeAt(0) }

// shapeAt is the shape of table index i, pointers followed.
func shapeAt(i int) Shape {
	for n := 0; corev1Types[i].kind == kindPointer && n < len(corev1Types); n++ {
		i = corev1Types[i].elem
	}
	return Shape{index: i + 1}
}

// info is the table entry of s, nil for the zero Shape.
func (s Shape) info() *typeInfo {
	if s.index <= 0 || s.index > len(corev1Types) {
		return nil
	}
	return &corev1Types[s.index-1]
}

// Name is the Go type ("v1.Container"); "" for the zero Shape.
func (s Shape) Name() string {
	if ti := s.info(); ti != nil {
		return ti.name
	}
	return ""
}

// Kind says what s is in JSON.
func (s Shape) Kind() ShapeKind {
	ti := s.info()
	switch {
	case ti == nil:
		return ShapeValue
	case ti.kind == kindStruct:
		return ShapeObject
	case ti.kind == kindSlice:
		return ShapeList
	case ti.kind == kindMap:
		return ShapeMap
	}
	return ShapeValue
}

// Member returns the shape of the member name of an object; ok is false
// when the struct has no field of that JSON name (exact names only, as the
// API server's field validation compares them). A shape that is not an
// object has no members.
func (s Shape) Member(name string) (member Shape, ok bool) {
	ti := s.info()
	if ti == nil || ti.kind != kindStruct {
		return Shape{}, false
	}
	for _, f := range ti.fields {
		if f.name == name {
			return shapeAt(f.typ), true
		}
	}
	return Shape{}, false
}

// Members lists the JSON names of an object's fields, in declaration order
// (nil for a shape that is not an object).
func (s Shape) Members() []string {
	ti := s.info()
	if ti == nil || ti.kind != kindStruct {
		return nil
	}
	names := make([]string, len(ti.fields))
	for i, f := range ti.fields {
		names[i] = f.name
	}
	return names
}

// Elem is the element shape of a list or a map (the zero Shape otherwise).
func (s Shape) Elem() Shape {
	ti := s.info()
	if ti == nil || (ti.kind != kindSlice && ti.kind != kindMap) {
		return Shape{}
	}
	return shapeAt(ti.elem)
}
