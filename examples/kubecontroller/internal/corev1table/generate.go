// Package corev1table generates the library's table of the core/v1 shapes a
// pod template and a volume claim template can hold
// (podtemplate/corev1_table.go in the library module) from k8s.io/api by
// reflection: every Go type reachable from v1.PodTemplateSpec or
// v1.PersistentVolumeClaim (the Roots), with its JSON kind, the JSON name and the omitempty and
// omitzero options of every struct field (embedded structs flattened as
// encoding/json flattens them), and the element type of every pointer, slice
// and map. The types with their own JSON encoding (resource.Quantity,
// intstr.IntOrString, metav1.Time, metav1.FieldsV1) are kinds of their own;
// any other type with its own encoding, or a Go kind the library does not
// encode, stops the generation with an error, so that a new k8s.io/api
// cannot change the shapes unnoticed.
//
// Its tests are the library's drift guards: the committed table against
// k8s.io/api, the library's typed encoding against the typed round trip,
// and the library's template defaults (podtemplate.Default,
// DefaultClaimTemplate) against k8s.io/kubernetes' defaulting functions
// composed as kruise's CloneSet webhook composes them.
package corev1table

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"go/format"
	"reflect"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Root is the type the table starts from: its entry is the first (index 0).
var Root = reflect.TypeFor[corev1.PodTemplateSpec]()

// ClaimRoot is the table's second root: a CloneSet's volume claim template.
var ClaimRoot = reflect.TypeFor[corev1.PersistentVolumeClaim]()

// RootConst names a root of the table and the Go constant the generated
// source gives its index under.
type RootConst struct {
	Type  reflect.Type
	Const string
}

// Roots are the types the table starts from, in order: the types reachable
// from the first come first (so adding a root leaves the indexes of the
// earlier ones' types as they were).
var Roots = []RootConst{
	{Type: Root, Const: "podTemplateSpecType"},
	{Type: ClaimRoot, Const: "persistentVolumeClaimType"},
}

// Override is a difference between the table and k8s.io/api that upstream's
// own build makes: the tag option the real controller's k8s.io/apimachinery
// has for a field, where the one the example module compiles against differs.
type Override struct {
	// OmitZero is the omitzero option upstream has.
	OmitZero bool
	// Why says where the difference comes from (written into the table).
	Why string
}

// Overrides are keyed "<package path>.<type>.<json name>".
//
// ObjectMeta.creationTimestamp: k8s.io/apimachinery v0.37 tags it
// `omitempty,omitzero`, so that encoding/json (Go 1.24 and later) leaves a
// zero time out; the real controller (kruise 07169cfac) writes
// "creationTimestamp":null in every revision it builds
// (testdata/conformance-revnames/oracle.jsonl), so its apimachinery has no
// omitzero there.
var Overrides = map[string]Override{
	"k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta.creationTimestamp": {
		OmitZero: false,
		Why:      "upstream (kruise 07169cfac) writes null: its apimachinery has no omitzero here",
	},
}

// special are the types with their own JSON encoding that the library
// reproduces, by their kind name in the table.
var special = map[reflect.Type]string{
	reflect.TypeFor[resource.Quantity]():  "kindQuantity",
	reflect.TypeFor[intstr.IntOrString](): "kindIntOrString",
	reflect.TypeFor[metav1.Time]():        "kindTime",
	reflect.TypeFor[metav1.FieldsV1]():    "kindRawJSON",
}

var (
	jsonMarshaler   = reflect.TypeFor[json.Marshaler]()
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textMarshaler   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// entry is one type of the table being built.
type entry struct {
	name   string
	kind   string
	bits   int
	elem   int
	fields []field
}

// field is one JSON member of a struct entry.
type field struct {
	name      string
	typ       int
	omitEmpty bool
	omitZero  bool
	note      string
}

// generator builds the table: entries in the order they are first reached
// from the Roots (one root after the other, depth first, fields in
// declaration order), each type once.
type generator struct {
	entries []entry
	byKey   map[string]int
	used    map[string]bool // overrides applied
	roots   []int           // the entry of each of Roots
}

// Generate returns the Go source of the table (gofmt-formatted).
func Generate() ([]byte, error) {
	g := &generator{byKey: map[string]int{}, used: map[string]bool{}}
	for _, r := range Roots {
		i, err := g.add(r.Type)
		if err != nil {
			return nil, err
		}
		g.roots = append(g.roots, i)
	}
	for key := range Overrides {
		if !g.used[key] {
			return nil, fmt.Errorf("override %s matches no field any more: drop it", key)
		}
	}
	return g.source()
}

// add returns the index of rt's entry, adding it (and what it reaches).
func (g *generator) add(rt reflect.Type) (int, error) {
	if k, ok := special[rt]; ok {
		return g.put(k, entry{name: typeName(rt), kind: k}), nil
	}
	// A pointer's encoding is its element's (checked when it is added).
	if rt.Kind() != reflect.Pointer {
		if err := checkOwnEncoding(rt); err != nil {
			return 0, err
		}
	}
	switch rt.Kind() {
	case reflect.String:
		return g.put("kindString", entry{name: "string", kind: "kindString"}), nil
	case reflect.Bool:
		return g.put("kindBool", entry{name: "bool", kind: "kindBool"}), nil
	case reflect.Int32, reflect.Int64:
		bits := rt.Bits()
		return g.put(fmt.Sprintf("kindInt%d", bits), entry{name: fmt.Sprintf("int%d", bits), kind: "kindInt", bits: bits}), nil
	case reflect.Pointer, reflect.Slice:
		if rt.Kind() == reflect.Slice && rt.Elem().Kind() == reflect.Uint8 {
			return 0, fmt.Errorf("%s: a byte slice (base64 in JSON) is not a kind the library encodes", rt)
		}
		elem, err := g.add(rt.Elem())
		if err != nil {
			return 0, err
		}
		k := "kindPointer"
		if rt.Kind() == reflect.Slice {
			k = "kindSlice"
		}
		return g.put(fmt.Sprintf("%s/%d", k, elem), entry{name: prefix(rt) + g.entries[elem].name, kind: k, elem: elem}), nil
	case reflect.Map:
		if rt.Key().Kind() != reflect.String {
			return 0, fmt.Errorf("%s: map keys of kind %s are not a kind the library encodes", rt, rt.Key().Kind())
		}
		if err := checkOwnEncoding(rt.Key()); err != nil {
			return 0, err
		}
		elem, err := g.add(rt.Elem())
		if err != nil {
			return 0, err
		}
		return g.put(fmt.Sprintf("kindMap/%d", elem), entry{name: "map[string]" + g.entries[elem].name, kind: "kindMap", elem: elem}), nil
	case reflect.Struct:
		key := rt.PkgPath() + "." + rt.Name()
		if i, ok := g.byKey[key]; ok {
			return i, nil
		}
		i := g.put(key, entry{name: typeName(rt), kind: "kindStruct"})
		fields, err := g.structFields(rt)
		if err != nil {
			return 0, err
		}
		g.entries[i].fields = fields
		return i, nil
	}
	return 0, fmt.Errorf("%s: Go kind %s is not a kind the library encodes", rt, rt.Kind())
}

// put returns the entry of key, adding e when there is none.
func (g *generator) put(key string, e entry) int {
	if i, ok := g.byKey[key]; ok {
		return i
	}
	g.entries = append(g.entries, e)
	g.byKey[key] = len(g.entries) - 1
	return len(g.entries) - 1
}

// checkOwnEncoding refuses a type with a JSON or text encoding of its own
// that is not one of the special types.
func checkOwnEncoding(rt reflect.Type) error {
	for _, iface := range []reflect.Type{jsonMarshaler, jsonUnmarshaler, textMarshaler, textUnmarshaler} {
		if rt.Implements(iface) || reflect.PointerTo(rt).Implements(iface) {
			return fmt.Errorf("%s implements %s: a type with its own encoding the library does not reproduce", rt, iface)
		}
	}
	return nil
}

// candidate is a JSON member found while flattening a struct, with the
// depth of embedding it comes from.
type candidate struct {
	field
	goType reflect.Type
	depth  int
	order  int
}

// structFields returns the JSON members of a struct as encoding/json sees
// them: exported fields by their json name (the Go name when the tag has
// none), "-" left out, embedded structs without a name flattened, the
// shallowest member winning a name.
func (g *generator) structFields(rt reflect.Type) ([]field, error) {
	var found []candidate
	if err := g.collect(rt, rt, 0, &found); err != nil {
		return nil, err
	}
	best := map[string][]candidate{}
	for _, c := range found {
		best[c.name] = append(best[c.name], c)
	}
	var out []candidate
	for name, cs := range best {
		sort.SliceStable(cs, func(i, j int) bool { return cs[i].depth < cs[j].depth })
		if len(cs) > 1 && cs[0].depth == cs[1].depth {
			return nil, fmt.Errorf("%s: two fields named %q at the same depth (encoding/json would drop both)", rt, name)
		}
		out = append(out, cs[0])
	}
	sort.Slice(out, func(i, j int) bool { return out[i].order < out[j].order })
	fields := make([]field, len(out))
	for i, c := range out {
		fields[i] = c.field
	}
	return fields, nil
}

// collect appends the members of rt (embedded in owner at depth) to found.
func (g *generator) collect(owner, rt reflect.Type, depth int, found *[]candidate) error {
	for i := 0; i < rt.NumField(); i++ {
		f := rt.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			if f.Type.Kind() != reflect.Struct {
				return fmt.Errorf("%s.%s: an embedded %s is not a kind the library encodes", owner, f.Name, f.Type.Kind())
			}
			if err := checkOwnEncoding(f.Type); err != nil {
				return err
			}
			if err := g.collect(owner, f.Type, depth+1, found); err != nil {
				return err
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fl := field{name: name}
		for _, o := range strings.Split(opts, ",") {
			switch o {
			case "", "inline":
			case "omitempty":
				fl.omitEmpty = true
			case "omitzero":
				fl.omitZero = true
			default:
				return fmt.Errorf("%s.%s: json option %q is not one the library reproduces", owner, f.Name, o)
			}
		}
		key := rt.PkgPath() + "." + rt.Name() + "." + name
		if ov, ok := Overrides[key]; ok {
			fl.omitZero = ov.OmitZero
			fl.note = ov.Why
			g.used[key] = true
		}
		if fl.omitZero {
			if err := checkOmitZero(f.Type); err != nil {
				return fmt.Errorf("%s.%s: %v", owner, f.Name, err)
			}
		}
		typ, err := g.add(f.Type)
		if err != nil {
			return err
		}
		fl.typ = typ
		*found = append(*found, candidate{field: fl, goType: f.Type, depth: depth, order: len(*found)})
	}
	return nil
}

// checkOmitZero refuses omitzero on a type whose zero value the library does
// not compute: it knows the zero of a pointer, slice or map (nil), a string,
// a bool, an integer, and a metav1.Time (its IsZero method).
func checkOmitZero(rt reflect.Type) error {
	switch rt.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.String, reflect.Bool, reflect.Int32, reflect.Int64:
		return nil
	}
	if rt == reflect.TypeFor[metav1.Time]() {
		return nil
	}
	return fmt.Errorf("omitzero on a %s, whose zero value the library does not compute", rt)
}

// TypeName is the name the table gives a Go type: "v1.Container" for a
// named type (its package's last path element and its name), the Go
// spelling otherwise. Other tables that refer to this one by name use it.
func TypeName(rt reflect.Type) string { return typeName(rt) }

// typeName is "v1.Container" for a named type.
func typeName(rt reflect.Type) string {
	if rt.Name() == "" {
		return rt.String()
	}
	pkg := rt.PkgPath()
	if i := strings.LastIndexByte(pkg, '/'); i >= 0 {
		pkg = pkg[i+1:]
	}
	return pkg + "." + rt.Name()
}

func prefix(rt reflect.Type) string {
	if rt.Kind() == reflect.Pointer {
		return "*"
	}
	return "[]"
}

// source writes the table as Go source.
func (g *generator) source() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated by gencorev1table from k8s.io/api as examples/kubecontroller/go.mod pins it; DO NOT EDIT.\n")
	b.WriteString("// Regenerate: (cd examples/kubecontroller && go run ./cmd/gencorev1table -o ../../podtemplate/corev1_table.go)\n\n")
	b.WriteString("package podtemplate\n\n")
	names := make([]string, len(Roots))
	for i, r := range Roots {
		names[i] = typeName(r.Type)
	}
	b.WriteString("// The roots of the table: the index of the type each typed encoding starts from.\n")
	b.WriteString("const (\n")
	for i, r := range Roots {
		fmt.Fprintf(&b, "\t// %s is the index of %s.\n", r.Const, names[i])
		fmt.Fprintf(&b, "\t%s = %d\n", r.Const, g.roots[i])
	}
	b.WriteString(")\n\n")
	b.WriteString("// corev1Types are the Go types of k8s.io/api reachable from the roots, by\n")
	fmt.Fprintf(&b, "// index (%s): the shapes the typed encoding\n", strings.Join(names, ", then "))
	b.WriteString("// of a pod template or a volume claim template knows.\n")
	b.WriteString("var corev1Types = [...]typeInfo{\n")
	for i, e := range g.entries {
		fmt.Fprintf(&b, "\t%d: {name: %q, kind: %s", i, e.name, e.kind)
		if e.bits != 0 {
			fmt.Fprintf(&b, ", bits: %d", e.bits)
		}
		switch e.kind {
		case "kindPointer", "kindSlice", "kindMap":
			fmt.Fprintf(&b, ", elem: %d", e.elem)
		}
		if e.kind == "kindStruct" {
			b.WriteString(", fields: []fieldInfo{\n")
			for _, f := range e.fields {
				if f.note != "" {
					fmt.Fprintf(&b, "\t\t// %s\n", f.note)
				}
				fmt.Fprintf(&b, "\t\t{name: %q, typ: %d", f.name, f.typ)
				if f.omitEmpty {
					b.WriteString(", omitEmpty: true")
				}
				if f.omitZero {
					b.WriteString(", omitZero: true")
				}
				b.WriteString("},\n")
			}
			b.WriteString("\t}")
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}
