package manifest

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/clonecore/cloneset/podtemplate"
)

// Unknown fields: a member of an object that its API type does not have is
// dropped by the API server (kubectl warns about it, and refuses it with
// --validate=strict). The loader reads only the fields it needs, so without
// this check a misplaced field (a v1alpha1 spec.updateStrategy.maxUnavailable
// in a v1beta1 CloneSet) would pass silently and the object would be planned
// with the defaults. The fields of each API type are in fields_table.go,
// generated from k8s.io/api and kruise's source; the types of a pod template
// are those of podtemplate's table.

// Warning is something the loader ignored that a person should know: today a
// member of an object that its API type does not have (Options.Warn).
type Warning struct {
	// Where is "file.yaml:12": the source and the line of the member.
	Where string
	// Object names the object: "CloneSet default/web".
	Object string
	// Path is the member's field path: "spec.updateStrategy.maxUnavailable".
	Path string
	// Message says what is wrong and, where it can, what was meant.
	Message string
}

// String is the warning as one line: "file.yaml:12: CloneSet default/web:
// spec.updateStrategy.maxUnavailable: unknown field, ignored (...)".
func (w Warning) String() string {
	return w.Where + ": " + w.Object + ": " + w.Path + ": " + w.Message
}

// shapeKind is what a fieldShape is in JSON.
type shapeKind uint8

const (
	// shapeValue is a plain value (or one whose inside is not checked).
	shapeValue shapeKind = iota
	// shapeObject is a struct: an object with known members.
	shapeObject
	// shapeList is a list of elem.
	shapeList
	// shapeMap is an object whose members are all elem.
	shapeMap
	// shapeTemplate is the type of podtemplate's table named name.
	shapeTemplate
)

// fieldShape is one entry of fieldShapes.
type fieldShape struct {
	name    string // the Go type, for messages
	kind    shapeKind
	elem    int // shapeList, shapeMap
	members []fieldMember
}

// fieldMember is one member of a shapeObject.
type fieldMember struct {
	name  string
	shape int
}

// templateShapes are the podtemplate shapes of the shapeTemplate entries of
// fieldShapes, by index (TestFieldTableReferences checks they all resolve).
var templateShapes = func() []podtemplate.Shape {
	out := make([]podtemplate.Shape, len(fieldShapes))
	for i, s := range fieldShapes {
		if s.kind == shapeTemplate {
			out[i], _ = podtemplate.ShapeOf(s.name)
		}
	}
	return out
}()

// schema is a position in the field tables: a shape of fieldShapes, or a
// type of podtemplate's table.
type schema struct {
	local   int // index in fieldShapes (when !inTable)
	tmpl    podtemplate.Shape
	inTable bool // tmpl is the position
}

// schemaAt is the schema of fieldShapes[i], a reference followed.
func schemaAt(i int) schema {
	if fieldShapes[i].kind == shapeTemplate {
		return schema{tmpl: templateShapes[i], inTable: true}
	}
	return schema{local: i}
}

// rootSchema is the schema of the kind the loader reads ("v1 Pod"); ok is
// false for a kind it does not check.
func rootSchema(apiVersion, kind string) (schema, bool) {
	i, ok := fieldRoots[apiVersion+" "+kind]
	if !ok {
		return schema{}, false
	}
	return schemaAt(i), true
}

// kind says what the position is in JSON.
func (s schema) kind() shapeKind {
	if s.inTable {
		switch s.tmpl.Kind() {
		case podtemplate.ShapeObject:
			return shapeObject
		case podtemplate.ShapeList:
			return shapeList
		case podtemplate.ShapeMap:
			return shapeMap
		}
		return shapeValue
	}
	return fieldShapes[s.local].kind
}

// member is the schema of an object's member; ok is false when the type has
// no field of that name.
func (s schema) member(name string) (schema, bool) {
	if s.inTable {
		m, ok := s.tmpl.Member(name)
		return schema{tmpl: m, inTable: true}, ok
	}
	for _, m := range fieldShapes[s.local].members {
		if m.name == name {
			return schemaAt(m.shape), true
		}
	}
	return schema{}, false
}

// memberNames lists an object's members.
func (s schema) memberNames() []string {
	if s.inTable {
		return s.tmpl.Members()
	}
	names := make([]string, len(fieldShapes[s.local].members))
	for i, m := range fieldShapes[s.local].members {
		names[i] = m.name
	}
	return names
}

// elem is the element schema of a list or a map.
func (s schema) elem() schema {
	if s.inTable {
		return schema{tmpl: s.tmpl.Elem(), inTable: true}
	}
	if k := fieldShapes[s.local].kind; k == shapeList || k == shapeMap {
		return schemaAt(fieldShapes[s.local].elem)
	}
	return schema{}
}

// maxUnknownFields bounds the unknown fields one load reports; the rest are
// counted in one last warning.
const maxUnknownFields = 100

// unknownField is one unknown member found: its warning (without the
// message) and the hint of what was meant.
type unknownField struct {
	Warning
	hint string
}

// fieldCheck finds the unknown fields of the documents of one load.
type fieldCheck struct {
	budget  int // nodes left to visit (alias expansion guard)
	found   []unknownField
	dropped int // unknown fields beyond maxUnknownFields
	cut     bool
	path    []pathSegment // where the walk is
}

// document checks one object of the given kind; alt, when set, is the
// schema of the same kind in its other API version (CloneSets), for the
// hint that a field belongs to that version.
func (c *fieldCheck) document(n *yaml.Node, apiVersion, kind, source, object string) {
	root, ok := rootSchema(apiVersion, kind)
	if !ok {
		return
	}
	var alt *altSchema
	if kind == kindCloneSet {
		other := "apps.kruise.io/v1alpha1"
		if apiVersion == other {
			other = "apps.kruise.io/v1beta1"
		}
		if s, ok := rootSchema(other, kind); ok {
			alt = &altSchema{schema: s, apiVersion: other}
		}
	}
	c.path = c.path[:0]
	c.walk(n, root, alt, 0, func(line int, path, hint string) {
		if len(c.found) >= maxUnknownFields {
			c.dropped++
			return
		}
		c.found = append(c.found, unknownField{Warning{Where: fmt.Sprintf("%s:%d", source, line), Object: object, Path: path}, hint})
	})
}

// altSchema is the position in the other API version of the object, walked
// along with the object's own.
type altSchema struct {
	schema     schema
	apiVersion string
}

// pathSegment is one step of the field path the walk is at: a member name,
// a list index (index >= 0), or a map key (isKey).
type pathSegment struct {
	name  string
	index int
	isKey bool
}

// renderPath writes a field path: "spec.containers[0].env[1]",
// "metadata.labels[app]".
func renderPath(segs []pathSegment) string {
	path := ""
	for _, seg := range segs {
		switch {
		case seg.index >= 0:
			path += "[" + strconv.Itoa(seg.index) + "]"
		case seg.isKey:
			path += "[" + seg.name + "]"
		default:
			path = memberPath(path, seg.name)
		}
	}
	return path
}

// members calls f with each key and value of a mapping node, YAML merge keys
// expanded (pairsOf) only when the mapping has one.
func members(n *yaml.Node, f func(k, v *yaml.Node)) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if isMergeKey(resolve(n.Content[i])) {
			for _, p := range pairsOf(n) {
				f(p.k, p.v)
			}
			return
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		f(n.Content[i], n.Content[i+1])
	}
}

// walk checks node n against schema s at the field path c.path; report is
// called for each unknown member, with a hint of what was meant.
func (c *fieldCheck) walk(n *yaml.Node, s schema, alt *altSchema, depth int, report func(line int, path, hint string)) {
	n = resolve(n)
	if n == nil || depth > maxDepth || c.cut {
		return
	}
	if c.budget--; c.budget < 0 {
		c.cut = true
		return
	}
	switch s.kind() {
	case shapeObject:
		if n.Kind != yaml.MappingNode {
			return
		}
		members(n, func(kn, v *yaml.Node) {
			k := resolve(kn)
			if k == nil || k.Kind != yaml.ScalarNode {
				return
			}
			var altChild *altSchema
			if alt != nil {
				if a, ok := alt.schema.member(k.Value); ok {
					altChild = &altSchema{schema: a, apiVersion: alt.apiVersion}
				}
			}
			m, ok := s.member(k.Value)
			switch {
			case !ok:
				parent := renderPath(c.path)
				report(k.Line, memberPath(parent, k.Value), unknownHint(s, parent, k.Value, altChild))
			case m.kind() != shapeValue:
				c.descend(pathSegment{name: k.Value, index: -1}, v, m, altChild, depth, report)
			}
		})
	case shapeList:
		elem := s.elem()
		if n.Kind != yaml.SequenceNode || elem.kind() == shapeValue {
			return
		}
		var altElem *altSchema
		if alt != nil && alt.schema.kind() == shapeList {
			altElem = &altSchema{schema: alt.schema.elem(), apiVersion: alt.apiVersion}
		}
		for i, item := range n.Content {
			c.descend(pathSegment{index: i}, item, elem, altElem, depth, report)
		}
	case shapeMap:
		elem := s.elem()
		if n.Kind != yaml.MappingNode || elem.kind() == shapeValue {
			return
		}
		members(n, func(kn, v *yaml.Node) {
			if k := resolve(kn); k != nil {
				c.descend(pathSegment{name: k.Value, index: -1, isKey: true}, v, elem, nil, depth, report)
			}
		})
	}
}

// descend walks a child node at the path segment seg.
func (c *fieldCheck) descend(seg pathSegment, n *yaml.Node, s schema, alt *altSchema, depth int, report func(line int, path, hint string)) {
	c.path = append(c.path, seg)
	c.walk(n, s, alt, depth+1, report)
	c.path = c.path[:len(c.path)-1]
}

// memberPath appends a member name to a field path; a name that is empty or
// would not read back as one path element is quoted in brackets.
func memberPath(path, name string) string {
	if name == "" || !utf8.ValidString(name) || strings.ContainsAny(name, ".[]\"") || strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) || unicode.IsSpace(r) }) >= 0 {
		return path + "[" + strconv.Quote(name) + "]"
	}
	return joinPath(path, name)
}

// unknownHint says what was probably meant by the unknown member name of the
// object at path (whose schema is s): a member of another case, within two
// edits, or containing the name (or contained in it), a member of that name
// one level down, the other API version's field ("" when nothing comes to
// mind).
func unknownHint(s schema, path, name string, alt *altSchema) string {
	var hints []string
	suggest := func(p, m string) {
		h := "did you mean " + joinPath(p, m) + "?"
		if m != name && strings.EqualFold(m, name) {
			h += " (field names are case-sensitive)"
		}
		hints = append(hints, h)
	}
	found := false
	for _, m := range s.memberNames() {
		if strings.EqualFold(m, name) {
			suggest(path, m)
			found = true
			break
		}
	}
	for _, m := range s.memberNames() {
		if !found && len(name) > 4 && editDistance(strings.ToLower(m), strings.ToLower(name), 2) <= 2 {
			suggest(path, m)
			found = true
		}
	}
	for _, m := range s.memberNames() {
		lm, ln := strings.ToLower(m), strings.ToLower(name)
		if !found && len(name) > 4 && (strings.Contains(lm, ln) || strings.Contains(ln, lm) && len(m) > 4) {
			suggest(path, m)
			found = true
		}
	}
	for _, m := range s.memberNames() {
		if found {
			break
		}
		ms, _ := s.member(m)
		if ms.kind() != shapeObject {
			continue
		}
		for _, inner := range ms.memberNames() {
			if strings.EqualFold(inner, name) {
				suggest(joinPath(path, m), inner)
				found = true
				break
			}
		}
	}
	if alt != nil {
		hints = append(hints, "("+memberPath(path, name)+" is a field of "+alt.apiVersion+" CloneSets)")
	}
	return strings.Join(hints, " ")
}

// editDistance is the Levenshtein distance of a and b, or limit+1 as soon
// as it is known to exceed limit.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			best = min(best, cur[j])
		}
		if best > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// reportFields hands the unknown fields found to Options.Warn, or makes them
// errors under Options.StrictFields.
func (l *loader) reportFields() {
	c := l.fields
	if c == nil {
		return
	}
	found := c.found
	if c.dropped > 0 {
		found = append(found, unknownField{Warning{Where: l.sourceList(), Object: "the input", Path: "(more)",
			Message: fmt.Sprintf("%d more unknown fields not listed", c.dropped)}, ""})
	}
	if c.cut {
		found = append(found, unknownField{Warning{Where: l.sourceList(), Object: "the input", Path: "(rest)",
			Message: "too large to check for unknown fields once its YAML aliases are expanded: the rest was not checked"}, ""})
	}
	for _, f := range found {
		w := f.Warning
		if w.Message == "" {
			w.Message = "unknown field"
			if !l.opts.StrictFields {
				w.Message += ", ignored"
			}
			if f.hint != "" {
				w.Message += ": " + f.hint
			}
		}
		if l.opts.StrictFields {
			l.errs = append(l.errs, errors.New(w.String()))
		} else {
			l.opts.Warn(w)
		}
	}
	c.found, c.dropped, c.cut = nil, 0, false
}

// sourceList names the inputs read: "a.yaml, b.yaml".
func (l *loader) sourceList() string {
	return strings.Join(l.sources, ", ")
}
