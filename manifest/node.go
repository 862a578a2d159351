package manifest

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/clonecore/cloneset/model"
	"gopkg.in/yaml.v3"
)

// Limits that keep hostile input (deep nesting, alias bombs) cheap.
const (
	maxDepth = 200
	// The loader visits at most baseValues + valuesPerByte × (input size)
	// values, aliases expanded: far more than any input without aliases
	// needs, while a YAML "billion laughs" stops early.
	baseValues    = 1 << 16
	valuesPerByte = 8
)

// decoder collects the errors of one document. Every accessor returns a zero
// value after reporting an error, so decoding always goes on to the end and
// reports every type mismatch of the document.
type decoder struct {
	source string
	object string // "CloneSet default/sample"
	errs   []error
	budget *int       // remaining values of the whole load (alias expansion guard)
	times  *time.Time // newest timestamp seen (nil: not recorded)
	seen   map[string]bool
	// quantities are the quantities parsed so far in the load, by text (nil:
	// none kept); a quantity is immutable, so pods share them.
	quantities map[string]model.Quantity
}

func (d *decoder) errorf(n *yaml.Node, path, format string, args ...any) {
	if len(d.errs) >= 20 {
		return
	}
	loc := d.source
	if n != nil && n.Line > 0 {
		loc = fmt.Sprintf("%s:%d", d.source, n.Line)
	}
	msg := fmt.Sprintf(format, args...)
	if path != "" {
		msg = path + ": " + msg
	}
	if d.seen == nil {
		d.seen = map[string]bool{}
	}
	if d.seen[msg] {
		return // the same complaint about the same node, from another accessor
	}
	d.seen[msg] = true
	if loc == d.object { // a tree decoded alone: its source is the object
		d.errs = append(d.errs, fmt.Errorf("%s: %s", loc, msg))
		return
	}
	d.errs = append(d.errs, fmt.Errorf("%s: %s: %s", loc, d.object, msg))
}

// noteTime records a timestamp for the default clock.
func (d *decoder) noteTime(t time.Time) {
	if d.times != nil && !t.IsZero() && t.After(*d.times) {
		*d.times = t
	}
}

// spend consumes k units of the value budget; false (after one error) when the
// document, with its aliases expanded, is too large.
func (d *decoder) spend(n *yaml.Node, path string, k int) bool {
	if *d.budget < 0 {
		return false
	}
	*d.budget -= k
	if *d.budget < 0 {
		d.errorf(n, path, "input too large once its YAML aliases are expanded")
		return false
	}
	return true
}

// pair is one key/value member of a mapping node.
type pair struct{ k, v *yaml.Node }

func isMergeKey(k *yaml.Node) bool {
	return k != nil && k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge"
}

// pairsOf returns the members of a mapping in order, with the members of YAML
// merge keys ("<<: *base", "<<: [*a, *b]") appended when the mapping does not
// set them itself; an earlier merge source wins over a later one.
func pairsOf(n *yaml.Node) []pair {
	p, _ := mergedPairs(n)
	return p
}

// mergedPairs is pairsOf, also reporting whether a merge key was left out
// because it lies beyond the bounds (maxMergeDepth, maxMergeWork): the
// members are then incomplete, which the decoder reports as an error.
func mergedPairs(n *yaml.Node) (pairs []pair, cut bool) {
	work := maxMergeWork
	pairs = collectPairs(n, 0, &work, &cut)
	return pairs, cut
}

// maxMergeWork bounds the members one pairsOf call visits through merge keys
// (a mapping merging itself several times would otherwise cost exponential
// time); maxMergeDepth bounds the merges of merges.
const (
	maxMergeWork  = 1 << 14
	maxMergeDepth = 16
)

// mergeCutMessage is the decoder's error for members left out by mergedPairs.
var mergeCutMessage = fmt.Sprintf("YAML merge keys (<<) beyond the loader's bounds (merges of merges %d deep, %d members visited): some members would be left out; write them out", maxMergeDepth, maxMergeWork)

func collectPairs(n *yaml.Node, depth int, work *int, cut *bool) []pair {
	*work -= len(n.Content) / 2
	direct := make([]pair, 0, len(n.Content)/2)
	var merged []pair
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := resolve(n.Content[i])
		if !isMergeKey(k) {
			direct = append(direct, pair{n.Content[i], n.Content[i+1]})
			continue
		}
		if depth >= maxMergeDepth || *work <= 0 {
			*cut = true
			continue
		}
		src := resolve(n.Content[i+1])
		switch {
		case src == nil:
		case src.Kind == yaml.MappingNode:
			merged = append(merged, collectPairs(src, depth+1, work, cut)...)
		case src.Kind == yaml.SequenceNode:
			for _, c := range src.Content {
				if m := resolve(c); m != nil && m.Kind == yaml.MappingNode {
					merged = append(merged, collectPairs(m, depth+1, work, cut)...)
				}
			}
		}
	}
	if len(merged) == 0 {
		return direct
	}
	seen := make(map[string]bool, len(direct)+len(merged))
	for _, p := range direct {
		if k := resolve(p.k); k != nil {
			seen[k.Value] = true
		}
	}
	for _, p := range merged {
		if k := resolve(p.k); k != nil && !seen[k.Value] {
			seen[k.Value] = true
			direct = append(direct, p)
		}
	}
	return direct
}

// value is a node with its field path; n is nil when the field is absent.
type value struct {
	d    *decoder
	n    *yaml.Node
	path string
}

// resolve follows document wrappers and aliases.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && i < maxDepth; i++ {
		switch n.Kind {
		case yaml.DocumentNode:
			if len(n.Content) == 0 {
				return nil
			}
			n = n.Content[0]
		case yaml.AliasNode:
			n = n.Alias
		default:
			return n
		}
	}
	return nil
}

func (v value) child(n *yaml.Node, p string) value {
	return value{d: v.d, n: resolve(n), path: p}
}

func (v value) isNull() bool {
	return v.n == nil || (v.n.Kind == yaml.ScalarNode && v.n.ShortTag() == "!!null")
}

// present reports whether the field is given with a non-null value.
func (v value) present() bool { return !v.isNull() }

func joinPath(base, key string) string {
	if base == "" {
		return key
	}
	return base + "." + key
}

// describe renders a node for "got ..." in messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "an object"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		s := n.Value
		if len(s) > 40 {
			s = s[:40] + "..."
		}
		if n.ShortTag() == "!!str" {
			return strconv.Quote(s)
		}
		return s
	}
	return "an unexpected value"
}

// get returns the member key of an object ("" path key for lists of objects).
// A non-object value is an error; an absent or null object has absent members.
func (v value) get(key string) value {
	p := joinPath(v.path, key)
	if v.isNull() {
		return value{d: v.d, path: p}
	}
	if v.n.Kind != yaml.MappingNode {
		v.d.errorf(v.n, v.path, "expected an object, got %s", describe(v.n))
		return value{d: v.d, path: p}
	}
	var found *yaml.Node
	hasMerge := false
	for i := 0; i+1 < len(v.n.Content); i += 2 {
		k := resolve(v.n.Content[i])
		if isMergeKey(k) {
			hasMerge = true
			continue
		}
		if k == nil || k.Kind != yaml.ScalarNode || k.Value != key {
			continue
		}
		if found != nil {
			v.d.errorf(k, p, "field given twice")
			break
		}
		found = v.n.Content[i+1]
	}
	if found == nil && hasMerge {
		pairs, cut := mergedPairs(v.n)
		if cut {
			v.d.errorf(v.n, v.path, "%s", mergeCutMessage)
		}
		for _, pr := range pairs {
			if k := resolve(pr.k); k != nil && k.Value == key {
				found = pr.v
				break
			}
		}
	}
	return v.child(found, p)
}

// object reports an error unless the value is absent, null or an object.
func (v value) object() bool {
	if v.isNull() {
		return false
	}
	if v.n.Kind != yaml.MappingNode {
		v.d.errorf(v.n, v.path, "expected an object, got %s", describe(v.n))
		return false
	}
	return true
}

// items returns the elements of a list (nil for absent or null).
func (v value) items() []value {
	if v.isNull() {
		return nil
	}
	if v.n.Kind != yaml.SequenceNode {
		v.d.errorf(v.n, v.path, "expected a list, got %s", describe(v.n))
		return nil
	}
	if !v.d.spend(v.n, v.path, len(v.n.Content)) {
		return nil
	}
	out := make([]value, len(v.n.Content))
	for i, c := range v.n.Content {
		out[i] = v.child(c, v.path+"["+strconv.Itoa(i)+"]")
	}
	return out
}

type entry struct {
	key string
	val value
}

// entries returns the members of an object in order (nil for absent or null).
func (v value) entries() []entry {
	if !v.object() {
		return nil
	}
	pairs := directPairs(v.n)
	if pairs == nil {
		var cut bool
		if pairs, cut = mergedPairs(v.n); cut {
			v.d.errorf(v.n, v.path, "%s", mergeCutMessage)
		}
	}
	if !v.d.spend(v.n, v.path, len(pairs)) {
		return nil
	}
	out := make([]entry, 0, len(pairs))
	var seen map[string]bool // only for large objects: small ones scan out
	if len(pairs) > 16 {
		seen = make(map[string]bool, len(pairs))
	}
	for _, pr := range pairs {
		k := resolve(pr.k)
		if k == nil || k.Kind != yaml.ScalarNode {
			v.d.errorf(pr.k, v.path, "expected a string key")
			continue
		}
		if seen != nil && seen[k.Value] || seen == nil && hasEntry(out, k.Value) {
			v.d.errorf(k, v.path+"["+k.Value+"]", "field given twice")
			continue
		}
		if seen != nil {
			seen[k.Value] = true
		}
		out = append(out, entry{k.Value, v.child(pr.v, v.path+"["+k.Value+"]")})
	}
	return out
}

// directPairs returns the members of a mapping without merge keys, in
// order, as pairsOf does; nil when the mapping has a merge key (or no member),
// for pairsOf to handle.
func directPairs(n *yaml.Node) []pair {
	if len(n.Content) < 2 {
		return nil
	}
	out := make([]pair, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		if isMergeKey(resolve(n.Content[i])) {
			return nil
		}
		out = append(out, pair{n.Content[i], n.Content[i+1]})
	}
	return out
}

func hasEntry(list []entry, key string) bool {
	for _, e := range list {
		if e.key == key {
			return true
		}
	}
	return false
}

func quoteHint(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode && n.ShortTag() != "!!str" && n.ShortTag() != "!!null" {
		return fmt.Sprintf(" (quote it: %q)", n.Value)
	}
	return ""
}

// str returns a string value ("" when absent or null). Unquoted timestamps are
// strings too, as in Kubernetes' YAML-to-JSON conversion.
func (v value) str() string {
	if v.isNull() {
		return ""
	}
	if v.n.Kind == yaml.ScalarNode {
		switch v.n.ShortTag() {
		case "!!str", "!!timestamp", "!!binary":
			return v.n.Value
		}
	}
	v.d.errorf(v.n, v.path, "expected a string, got %s%s", describe(v.n), quoteHint(v.n))
	return ""
}

func (v value) integer(bits int) (int64, bool) {
	if v.isNull() {
		return 0, false
	}
	if v.n.Kind != yaml.ScalarNode || v.n.ShortTag() != "!!int" {
		v.d.errorf(v.n, v.path, "expected an integer, got %s", describe(v.n))
		return 0, false
	}
	var x int64
	if err := v.n.Decode(&x); err != nil {
		v.d.errorf(v.n, v.path, "integer %s out of range", v.n.Value)
		return 0, false
	}
	if bits == 32 && (x < math.MinInt32 || x > math.MaxInt32) {
		v.d.errorf(v.n, v.path, "integer %s out of range for a 32-bit integer", v.n.Value)
		return 0, false
	}
	return x, true
}

func (v value) int32() int32 {
	x, _ := v.integer(32)
	return int32(x)
}

func (v value) int32Ptr() *int32 {
	x, ok := v.integer(32)
	if !ok {
		return nil
	}
	r := int32(x)
	return &r
}

func (v value) int64() int64 {
	x, _ := v.integer(64)
	return x
}

func (v value) int64Ptr() *int64 {
	x, ok := v.integer(64)
	if !ok {
		return nil
	}
	return &x
}

func (v value) boolean() bool {
	if v.isNull() {
		return false
	}
	if v.n.Kind != yaml.ScalarNode || v.n.ShortTag() != "!!bool" {
		v.d.errorf(v.n, v.path, "expected true or false, got %s", describe(v.n))
		return false
	}
	var b bool
	if err := v.n.Decode(&b); err != nil {
		v.d.errorf(v.n, v.path, "expected true or false, got %s", describe(v.n))
	}
	return b
}

// timestamp parses an RFC 3339 time (zero when absent or null) and records it
// for the default clock.
func (v value) timestamp() time.Time {
	s := v.str()
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		v.d.errorf(v.n, v.path, "expected an RFC 3339 time, got %q", s)
		return time.Time{}
	}
	t = t.UTC()
	v.d.noteTime(t)
	return t
}

func (v value) stringMap() map[string]string {
	ents := v.entries()
	if ents == nil {
		return nil
	}
	m := make(map[string]string, len(ents))
	for _, e := range ents {
		m[e.key] = e.val.str()
	}
	return m
}

func (v value) stringList() []string {
	its := v.items()
	if its == nil {
		return nil
	}
	out := make([]string, len(its))
	for i, it := range its {
		out[i] = it.str()
	}
	return out
}

// intOrPercent reads an IntOrString: an integer or a string (nil when absent).
func (v value) intOrPercent() *model.IntOrPercent {
	if v.isNull() {
		return nil
	}
	if v.n.Kind == yaml.ScalarNode {
		switch v.n.ShortTag() {
		case "!!int":
			x, ok := v.integer(32)
			if !ok {
				return nil
			}
			r := model.FromInt(int32(x))
			return &r
		case "!!str":
			r := model.FromString(v.n.Value)
			return &r
		}
	}
	v.d.errorf(v.n, v.path, "expected an integer or a string such as \"20%%\", got %s", describe(v.n))
	return nil
}

// quantity reads a resource quantity written as a string or a number.
func (v value) quantity() (model.Quantity, bool) {
	if v.isNull() {
		return model.Quantity{}, false
	}
	if v.n.Kind == yaml.ScalarNode {
		switch v.n.ShortTag() {
		case "!!str", "!!int", "!!float":
			if q, ok := v.d.quantities[v.n.Value]; ok {
				return q, true
			}
			q, err := model.ParseQuantity(v.n.Value)
			if err == nil && v.d.quantities != nil {
				v.d.quantities[v.n.Value] = q
			}
			if err != nil {
				v.d.errorf(v.n, v.path, "expected a quantity such as \"500m\" or \"2Gi\", got %s", describe(v.n))
				return model.Quantity{}, false
			}
			return q, true
		}
	}
	v.d.errorf(v.n, v.path, "expected a quantity such as \"500m\" or \"2Gi\", got %s", describe(v.n))
	return model.Quantity{}, false
}

// quantityText is a quantity kept as written ("" when absent).
func (v value) quantityText() string {
	if _, ok := v.quantity(); !ok {
		return ""
	}
	return v.n.Value
}

func (v value) quantityMap() map[string]model.Quantity {
	ents := v.entries()
	if ents == nil {
		return nil
	}
	m := make(map[string]model.Quantity, len(ents))
	for _, e := range ents {
		if q, ok := e.val.quantity(); ok {
			m[e.key] = q
		}
	}
	return m
}

// tree converts the value into a JSON-like tree: map[string]any, []any,
// string, bool, nil and json.Number.
func (v value) tree() any {
	return v.d.tree(v.n, v.path)
}

// treeMap is tree for an object (nil when absent or null).
func (v value) treeMap() map[string]any {
	if !v.object() {
		return nil
	}
	m, _ := v.tree().(map[string]any)
	return m
}

// treeSeg is one step of the path of a raw tree value (key, or index when key
// is empty and isIndex is set); paths are only rendered for error messages.
type treeSeg struct {
	key     string
	idx     int
	isIndex bool
}

func (d *decoder) treePath(base string, segs []treeSeg) string {
	p := base
	for _, s := range segs {
		if s.isIndex {
			p = fmt.Sprintf("%s[%d]", p, s.idx)
		} else {
			p = joinPath(p, s.key)
		}
	}
	return p
}

func (d *decoder) tree(n *yaml.Node, path string) any {
	var segs []treeSeg
	return d.treeRec(n, path, &segs)
}

func (d *decoder) treeRec(n *yaml.Node, base string, segs *[]treeSeg) any {
	n = resolve(n)
	if n == nil {
		return nil
	}
	if !d.spend(n, base, 1) {
		return nil
	}
	if len(*segs) > maxDepth {
		d.errorf(n, d.treePath(base, *segs), "nested more than %d levels deep", maxDepth)
		*d.budget = -1
		return nil
	}
	switch n.Kind {
	case yaml.MappingNode:
		pairs, cut := mergedPairs(n)
		if cut {
			d.errorf(n, d.treePath(base, *segs), "%s", mergeCutMessage)
		}
		m := make(map[string]any, len(pairs))
		for _, pr := range pairs {
			k := resolve(pr.k)
			if k == nil || k.Kind != yaml.ScalarNode {
				d.errorf(pr.k, d.treePath(base, *segs), "expected a string key")
				continue
			}
			*segs = append(*segs, treeSeg{key: k.Value})
			if _, dup := m[k.Value]; dup {
				d.errorf(k, d.treePath(base, *segs), "field given twice")
			} else {
				m[k.Value] = d.treeRec(pr.v, base, segs)
			}
			*segs = (*segs)[:len(*segs)-1]
		}
		return m
	case yaml.SequenceNode:
		l := make([]any, len(n.Content))
		for i, c := range n.Content {
			*segs = append(*segs, treeSeg{idx: i, isIndex: true})
			l[i] = d.treeRec(c, base, segs)
			*segs = (*segs)[:len(*segs)-1]
		}
		return l
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return n.Value
			}
			return b
		case "!!int", "!!float":
			num, ok := jsonNumber(n)
			if !ok {
				d.errorf(n, d.treePath(base, *segs), "number %s cannot be represented in JSON", n.Value)
				return nil
			}
			return num
		default:
			return n.Value
		}
	}
	return nil
}

// jsonNumber returns the JSON form of a YAML number: its text when that is
// already a JSON number, else the decimal rendering of its value.
func jsonNumber(n *yaml.Node) (json.Number, bool) {
	if isJSONNumber(n.Value) {
		return json.Number(n.Value), true
	}
	if n.ShortTag() == "!!int" {
		var x int64
		if err := n.Decode(&x); err == nil {
			return json.Number(strconv.FormatInt(x, 10)), true
		}
		var u uint64
		if err := n.Decode(&u); err == nil {
			return json.Number(strconv.FormatUint(u, 10)), true
		}
		if b, ok := new(big.Int).SetString(strings.ReplaceAll(n.Value, "_", ""), 0); ok {
			return json.Number(b.String()), true
		}
		return "", false
	}
	var f float64
	if err := n.Decode(&f); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return "", false
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), true
}

// isJSONNumber reports whether s is a number in JSON syntax.
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	if i >= len(s) {
		return false
	}
	if s[i] == '0' {
		i++
	} else if s[i] >= '1' && s[i] <= '9' {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	} else {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	return i == len(s)
}
