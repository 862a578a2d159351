// Package fieldtable generates the library's table of the fields of every
// object the scenario loader reads (manifest/fields_table.go in the library
// module): the JSON members each API type has, so that the loader can name
// the members a manifest gives that the type does not have (kubectl's
// "unknown field" warning, and its refusal under --validate=strict).
//
// The roots are the kinds the loader reads, each in its API version:
// core/v1 Pod, PersistentVolumeClaim and Node and apps/v1 ControllerRevision
// (from k8s.io/api by reflection), and the CloneSet of apps.kruise.io
// v1alpha1 and v1beta1, each from its own Go types, read from kruise's source
// (github.com/openkruise/kruise v1.9.0, the version of the records' controller)
// with go/parser: the source is read for its facts, nothing of it is
// compiled or copied. A type the library's core/v1 table already holds
// (podtemplate: the types reachable from v1.PodTemplateSpec) is referred to
// by name instead of being written again. A type with a JSON encoding of its
// own (a quantity, a time, an int-or-string, runtime.RawExtension: a
// ControllerRevision's data) is a plain value whose inside is not checked,
// as the API server's field validation does not check it either.
package fieldtable

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/clonecore/cloneset/examples/kubecontroller/internal/corev1table"
	"github.com/clonecore/cloneset/podtemplate"
)

// KruiseModule and KruiseVersion are the module whose CloneSet types the
// table describes.
const (
	KruiseModule  = "github.com/openkruise/kruise"
	KruiseVersion = "v1.9.0"
)

// KruiseDir returns the directory of kruise's source in the module cache
// (`go env GOMODCACHE`); ok is false when it is not there. It is fetched
// with
//
//	GONOSUMDB=github.com/openkruise GOFLAGS=-mod=mod go mod download github.com/openkruise/kruise@v1.9.0
func KruiseDir() (dir string, ok bool) {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		return "", false
	}
	dir = filepath.Join(strings.TrimSpace(string(out)), KruiseModule+"@"+KruiseVersion)
	if _, err := os.Stat(filepath.Join(dir, "apis", "apps", "v1beta1", "cloneset_types.go")); err != nil {
		return dir, false
	}
	return dir, true
}

// root is one kind the loader reads.
type root struct {
	key string // "apiVersion kind", as the loader names it
	typ any    // a reflect.Type, or a kruiseType
}

// kruiseType names a type of kruise's source: its package directory under
// the module and its name.
type kruiseType struct {
	pkg  string // "apis/apps/v1beta1"
	name string // "CloneSet"
}

// roots are the kinds of the table, in the order of the generated map.
var roots = []root{
	{"v1 Pod", reflect.TypeFor[corev1.Pod]()},
	{"v1 PersistentVolumeClaim", reflect.TypeFor[corev1.PersistentVolumeClaim]()},
	{"v1 Node", reflect.TypeFor[corev1.Node]()},
	{"apps/v1 ControllerRevision", reflect.TypeFor[appsv1.ControllerRevision]()},
	{"apps.kruise.io/v1alpha1 CloneSet", kruiseType{"apis/apps/v1alpha1", "CloneSet"}},
	{"apps.kruise.io/v1beta1 CloneSet", kruiseType{"apis/apps/v1beta1", "CloneSet"}},
}

// k8sTypes are the k8s.io types kruise's CloneSet types use, by import path
// and name. A new one stops the generation (add it here).
var k8sTypes = map[string]reflect.Type{
	"k8s.io/api/core/v1.PodTemplateSpec":                   reflect.TypeFor[corev1.PodTemplateSpec](),
	"k8s.io/api/core/v1.PersistentVolumeClaim":             reflect.TypeFor[corev1.PersistentVolumeClaim](),
	"k8s.io/api/core/v1.ConditionStatus":                   reflect.TypeFor[corev1.ConditionStatus](),
	"k8s.io/apimachinery/pkg/apis/meta/v1.LabelSelector":   reflect.TypeFor[metav1.LabelSelector](),
	"k8s.io/apimachinery/pkg/apis/meta/v1.Time":            reflect.TypeFor[metav1.Time](),
	"k8s.io/apimachinery/pkg/apis/meta/v1.TypeMeta":        reflect.TypeFor[metav1.TypeMeta](),
	"k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta":      reflect.TypeFor[metav1.ObjectMeta](),
	"k8s.io/apimachinery/pkg/apis/meta/v1.ListMeta":        reflect.TypeFor[metav1.ListMeta](),
	"k8s.io/apimachinery/pkg/util/intstr.IntOrString":      reflect.TypeFor[intstr.IntOrString](),
	"k8s.io/apimachinery/pkg/apis/meta/v1.LabelSelectorOp": reflect.TypeFor[metav1.LabelSelectorOperator](),
}

// Entry kinds, as the generated table names them.
const (
	kindValue    = "shapeValue"
	kindObject   = "shapeObject"
	kindList     = "shapeList"
	kindMap      = "shapeMap"
	kindTemplate = "shapeTemplate"
)

// entry is one shape of the table.
type entry struct {
	name    string
	kind    string
	elem    int
	members []member
}

// member is one JSON member of an object entry.
type member struct {
	name  string
	shape int
}

// generator builds the table: entries in the order they are first reached,
// depth first, each type once; entry 0 is the plain value.
type generator struct {
	kruise   string // kruise's source directory
	entries  []entry
	byKey    map[string]int
	packages map[string]*kruisePackage // by directory under the module
}

// Generate returns the Go source of the table (gofmt-formatted), reading
// kruise's CloneSet types from its source directory kruiseDir.
func Generate(kruiseDir string) ([]byte, error) {
	g := &generator{kruise: kruiseDir, byKey: map[string]int{}, packages: map[string]*kruisePackage{}}
	g.put("value", entry{name: "value", kind: kindValue})
	rootIndex := make([]int, len(roots))
	for i, r := range roots {
		var err error
		switch t := r.typ.(type) {
		case reflect.Type:
			rootIndex[i], err = g.addType(t)
		case kruiseType:
			rootIndex[i], err = g.addKruise(t.pkg, &ast.Ident{Name: t.name})
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", r.key, err)
		}
	}
	return g.source(rootIndex)
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

var jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()

// addType returns the entry of a k8s.io type.
func (g *generator) addType(rt reflect.Type) (int, error) {
	for rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
	}
	if rt.Implements(jsonUnmarshaler) || reflect.PointerTo(rt).Implements(jsonUnmarshaler) {
		return 0, nil // its own encoding: a plain value
	}
	switch rt.Kind() {
	case reflect.Slice:
		if rt.Elem().Kind() == reflect.Uint8 {
			return 0, nil // base64 text
		}
		elem, err := g.addType(rt.Elem())
		if err != nil {
			return 0, err
		}
		return g.container(kindList, elem), nil
	case reflect.Map:
		elem, err := g.addType(rt.Elem())
		if err != nil {
			return 0, err
		}
		return g.container(kindMap, elem), nil
	case reflect.Struct:
		name := corev1table.TypeName(rt)
		if _, ok := podtemplate.ShapeOf(name); ok {
			return g.put("template:"+name, entry{name: name, kind: kindTemplate}), nil
		}
		key := rt.PkgPath() + "." + rt.Name()
		if i, ok := g.byKey[key]; ok {
			return i, nil
		}
		i := g.put(key, entry{name: name, kind: kindObject})
		members, err := g.structMembers(rt)
		if err != nil {
			return 0, err
		}
		g.entries[i].members = members
		return i, nil
	case reflect.Interface, reflect.Func, reflect.Chan:
		return 0, fmt.Errorf("%s: a Go %s has no JSON shape", rt, rt.Kind())
	}
	return 0, nil // string, bool, number
}

// container returns the list or map entry of elem.
func (g *generator) container(kind string, elem int) int {
	name := g.entries[elem].name
	if kind == kindList {
		name = "[]" + name
	} else {
		name = "map[string]" + name
	}
	return g.put(fmt.Sprintf("%s/%d", kind, elem), entry{name: name, kind: kind, elem: elem})
}

// structMembers returns the JSON members of a struct as encoding/json sees
// them (embedded structs without a name flattened).
func (g *generator) structMembers(rt reflect.Type) ([]member, error) {
	var out []member
	for i := 0; i < rt.NumField(); i++ {
		f := rt.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			inner, err := g.structMembers(f.Type)
			if err != nil {
				return nil, err
			}
			out = append(out, inner...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		shape, err := g.addType(f.Type)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %v", rt, f.Name, err)
		}
		out = append(out, member{name, shape})
	}
	return out, nil
}

// kruisePackage is one parsed package of kruise's source.
type kruisePackage struct {
	path  string                   // import path
	types map[string]*ast.TypeSpec // by name
	// imports maps the names a file uses for its imports to their paths,
	// per type (files may name one import differently).
	imports map[*ast.TypeSpec]map[string]string
}

// kruisePackageAt parses the package in directory dir (under the module).
func (g *generator) kruisePackageAt(dir string) (*kruisePackage, error) {
	if p, ok := g.packages[dir]; ok {
		return p, nil
	}
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(g.kruise, dir, "*.go"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no Go files in %s", filepath.Join(g.kruise, dir))
	}
	p := &kruisePackage{path: KruiseModule + "/" + dir, types: map[string]*ast.TypeSpec{}, imports: map[*ast.TypeSpec]map[string]string{}}
	sort.Strings(files)
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		imports := map[string]string{}
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			name := path[strings.LastIndexByte(path, '/')+1:]
			if im.Name != nil {
				name = im.Name.Name
			}
			imports[name] = path
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, s := range gd.Specs {
				ts := s.(*ast.TypeSpec)
				p.types[ts.Name.Name] = ts
				p.imports[ts] = imports
			}
		}
	}
	g.packages[dir] = p
	return p, nil
}

// addKruise returns the entry of a type expression of kruise's package dir.
func (g *generator) addKruise(dir string, expr ast.Expr) (int, error) {
	p, err := g.kruisePackageAt(dir)
	if err != nil {
		return 0, err
	}
	return g.addExpr(p, nil, expr)
}

// addExpr returns the entry of a type expression of package p, written in
// the file of spec (nil: p's own scope, as for a root).
func (g *generator) addExpr(p *kruisePackage, spec *ast.TypeSpec, expr ast.Expr) (int, error) {
	switch x := expr.(type) {
	case *ast.StarExpr:
		return g.addExpr(p, spec, x.X)
	case *ast.ArrayType:
		if id, ok := x.Elt.(*ast.Ident); ok && id.Name == "byte" {
			return 0, nil
		}
		elem, err := g.addExpr(p, spec, x.Elt)
		if err != nil {
			return 0, err
		}
		return g.container(kindList, elem), nil
	case *ast.MapType:
		elem, err := g.addExpr(p, spec, x.Value)
		if err != nil {
			return 0, err
		}
		return g.container(kindMap, elem), nil
	case *ast.Ident:
		if ts, ok := p.types[x.Name]; ok {
			return g.addSpec(p, ts)
		}
		switch x.Name {
		case "string", "bool", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float32", "float64":
			return 0, nil
		}
		return 0, fmt.Errorf("%s: type %s not found", p.path, x.Name)
	case *ast.SelectorExpr:
		pkgName, ok := x.X.(*ast.Ident)
		if !ok || spec == nil {
			return 0, fmt.Errorf("%s: cannot resolve %T", p.path, x.X)
		}
		path := p.imports[spec][pkgName.Name]
		if rest, ok := strings.CutPrefix(path, KruiseModule+"/"); ok {
			q, err := g.kruisePackageAt(rest)
			if err != nil {
				return 0, err
			}
			return g.addExpr(q, nil, x.Sel)
		}
		rt, ok := k8sTypes[path+"."+x.Sel.Name]
		if !ok {
			return 0, fmt.Errorf("%s: %s.%s is not in fieldtable.k8sTypes: add it", p.path, path, x.Sel.Name)
		}
		return g.addType(rt)
	}
	return 0, fmt.Errorf("%s: type expression %T is not one the table describes", p.path, expr)
}

// addSpec returns the entry of a named type of kruise's source.
func (g *generator) addSpec(p *kruisePackage, ts *ast.TypeSpec) (int, error) {
	st, ok := ts.Type.(*ast.StructType)
	if !ok {
		return g.addExpr(p, ts, ts.Type)
	}
	key := p.path + "." + ts.Name.Name
	if i, ok := g.byKey[key]; ok {
		return i, nil
	}
	i := g.put(key, entry{name: p.path[strings.LastIndexByte(p.path, '/')+1:] + "." + ts.Name.Name, kind: kindObject})
	members, err := g.astMembers(p, ts, st)
	if err != nil {
		return 0, fmt.Errorf("%s: %v", ts.Name.Name, err)
	}
	g.entries[i].members = members
	return i, nil
}

// astMembers returns the JSON members of a struct of kruise's source.
func (g *generator) astMembers(p *kruisePackage, ts *ast.TypeSpec, st *ast.StructType) ([]member, error) {
	var out []member
	for _, f := range st.Fields.List {
		tag := ""
		if f.Tag != nil {
			raw, _ := strconv.Unquote(f.Tag.Value)
			tag = reflect.StructTag(raw).Get("json")
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if len(f.Names) == 0 && name == "" { // embedded, flattened
			inner, err := g.embedded(p, ts, f.Type)
			if err != nil {
				return nil, err
			}
			out = append(out, inner...)
			continue
		}
		if len(f.Names) == 0 { // embedded under a JSON name
			shape, err := g.addExpr(p, ts, f.Type)
			if err != nil {
				return nil, err
			}
			out = append(out, member{name, shape})
			continue
		}
		for _, n := range f.Names {
			if !n.IsExported() {
				continue
			}
			fieldName := name
			if fieldName == "" {
				fieldName = n.Name
			}
			shape, err := g.addExpr(p, ts, f.Type)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", n.Name, err)
			}
			out = append(out, member{fieldName, shape})
		}
	}
	return out, nil
}

// embedded returns the members of an embedded struct of kruise's source
// (TypeMeta: apiVersion and kind), flattened as encoding/json flattens them.
func (g *generator) embedded(p *kruisePackage, spec *ast.TypeSpec, expr ast.Expr) ([]member, error) {
	if sel, ok := expr.(*ast.SelectorExpr); ok {
		if pkgName, ok := sel.X.(*ast.Ident); ok {
			if rt, ok := k8sTypes[p.imports[spec][pkgName.Name]+"."+sel.Sel.Name]; ok {
				return g.structMembers(rt)
			}
		}
	}
	shape, err := g.addExpr(p, spec, expr)
	if err != nil {
		return nil, err
	}
	if e := g.entries[shape]; e.kind == kindObject {
		return e.members, nil
	}
	return nil, fmt.Errorf("embedded %s is not a struct of kruise's source or of fieldtable.k8sTypes", g.entries[shape].name)
}

// source writes the table as Go source.
func (g *generator) source(rootIndex []int) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated by genfieldtable from k8s.io/api as examples/kubecontroller/go.mod pins it\n")
	fmt.Fprintf(&b, "// and from the source of %s %s; DO NOT EDIT.\n", KruiseModule, KruiseVersion)
	b.WriteString("// Regenerate: (cd examples/kubecontroller && go run ./cmd/genfieldtable -o ../../manifest/fields_table.go)\n\n")
	b.WriteString("package manifest\n\n")
	b.WriteString("// fieldShapes are the JSON shapes of the objects the loader reads, by index\n")
	b.WriteString("// (fieldRoots gives each kind's): plain values, objects with their\n")
	b.WriteString("// members, lists and maps of an element shape, and references by name to\n")
	b.WriteString("// the types of podtemplate's core/v1 table.\n")
	b.WriteString("var fieldShapes = [...]fieldShape{\n")
	for i, e := range g.entries {
		fmt.Fprintf(&b, "\t%d: {name: %q, kind: %s", i, e.name, e.kind)
		switch e.kind {
		case kindList, kindMap:
			fmt.Fprintf(&b, ", elem: %d", e.elem)
		case kindObject:
			b.WriteString(", members: []fieldMember{\n")
			for _, m := range e.members {
				fmt.Fprintf(&b, "\t\t{%q, %d},\n", m.name, m.shape)
			}
			b.WriteString("\t}")
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n\n")
	b.WriteString("// fieldRoots are the root shapes of the kinds the loader reads, by\n")
	b.WriteString("// \"apiVersion kind\".\n")
	b.WriteString("var fieldRoots = map[string]int{\n")
	for i, r := range roots {
		fmt.Fprintf(&b, "\t%q: %d,\n", r.key, rootIndex[i])
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}
