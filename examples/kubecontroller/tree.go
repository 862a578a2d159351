package kubecontroller

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/clonecore/cloneset/model"
)

// The CloneSet (an unstructured object) and the template stored in a
// ControllerRevision (JSON bytes) are read as JSON-like trees: map[string]any,
// []any, string, bool, nil and numbers. A tree node reads its members with
// the same rules as the library's manifest loader, so that both give the same
// model for the same object; type errors are collected, not fatal.

// treeDecoder collects the type errors of one object.
type treeDecoder struct {
	object string // "CloneSet default/web"
	errs   []error
	// quantities are the quantities parsed so far, by text.
	quantities map[string]model.Quantity
}

func (d *treeDecoder) errorf(path, format string, args ...any) {
	if len(d.errs) >= 20 {
		return
	}
	d.errs = append(d.errs, fmt.Errorf("%s: %s: %s", d.object, path, fmt.Sprintf(format, args...)))
}

func (d *treeDecoder) err() error { return errors.Join(d.errs...) }

// node is one value of a tree with its field path; v is nil when absent.
type node struct {
	d    *treeDecoder
	v    any
	path string
}

func (n node) present() bool { return n.v != nil }

func (n node) get(key string) node {
	p := key
	if n.path != "" {
		p = n.path + "." + key
	}
	if n.v == nil {
		return node{d: n.d, path: p}
	}
	m, ok := n.v.(map[string]any)
	if !ok {
		n.d.errorf(n.path, "expected an object, got %s", describeTree(n.v))
		return node{d: n.d, path: p}
	}
	return node{d: n.d, v: m[key], path: p}
}

// object reports whether the node is an object (an error unless absent).
func (n node) object() (map[string]any, bool) {
	if n.v == nil {
		return nil, false
	}
	m, ok := n.v.(map[string]any)
	if !ok {
		n.d.errorf(n.path, "expected an object, got %s", describeTree(n.v))
	}
	return m, ok
}

func (n node) items() []node {
	if n.v == nil {
		return nil
	}
	l, ok := n.v.([]any)
	if !ok {
		n.d.errorf(n.path, "expected a list, got %s", describeTree(n.v))
		return nil
	}
	out := make([]node, len(l))
	for i, x := range l {
		out[i] = node{d: n.d, v: x, path: n.path + "[" + strconv.Itoa(i) + "]"}
	}
	return out
}

func (n node) str() string {
	if n.v == nil {
		return ""
	}
	s, ok := n.v.(string)
	if !ok {
		n.d.errorf(n.path, "expected a string, got %s", describeTree(n.v))
	}
	return s
}

func (n node) boolean() bool {
	if n.v == nil {
		return false
	}
	b, ok := n.v.(bool)
	if !ok {
		n.d.errorf(n.path, "expected true or false, got %s", describeTree(n.v))
	}
	return b
}

func (n node) integer(bits int) (int64, bool) {
	if n.v == nil {
		return 0, false
	}
	num, ok := n.v.(json.Number)
	if !ok {
		n.d.errorf(n.path, "expected an integer, got %s", describeTree(n.v))
		return 0, false
	}
	x, err := strconv.ParseInt(string(num), 10, bits)
	if err != nil {
		n.d.errorf(n.path, "expected an integer of %d bits, got %s", bits, num)
		return 0, false
	}
	return x, true
}

func (n node) int32() int32 {
	x, _ := n.integer(32)
	return int32(x)
}

func (n node) int32Ptr() *int32 {
	x, ok := n.integer(32)
	if !ok {
		return nil
	}
	r := int32(x)
	return &r
}

func (n node) int64() int64 {
	x, _ := n.integer(64)
	return x
}

func (n node) int64Ptr() *int64 {
	x, ok := n.integer(64)
	if !ok {
		return nil
	}
	return &x
}

func (n node) timestamp() time.Time {
	s := n.str()
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		n.d.errorf(n.path, "expected an RFC 3339 time, got %q", s)
		return time.Time{}
	}
	return t.UTC()
}

func (n node) stringMap() map[string]string {
	m, ok := n.object()
	if !ok {
		return nil
	}
	out := make(map[string]string, len(m))
	for k := range m {
		out[k] = n.get(k).str()
	}
	return out
}

func (n node) stringList() []string {
	its := n.items()
	if its == nil {
		return nil
	}
	out := make([]string, len(its))
	for i, it := range its {
		out[i] = it.str()
	}
	return out
}

func (n node) intOrPercent() *model.IntOrPercent {
	switch x := n.v.(type) {
	case nil:
		return nil
	case string:
		r := model.FromString(x)
		return &r
	case json.Number:
		v, ok := n.integer(32)
		if !ok {
			return nil
		}
		r := model.FromInt(int32(v))
		return &r
	}
	n.d.errorf(n.path, "expected an integer or a string such as \"20%%\", got %s", describeTree(n.v))
	return nil
}

// quantityText returns a quantity as written ("" when absent).
func (n node) quantityText() string {
	var text string
	switch x := n.v.(type) {
	case nil:
		return ""
	case string:
		text = x
	case json.Number:
		text = string(x)
	default:
		n.d.errorf(n.path, "expected a quantity such as \"500m\" or \"2Gi\", got %s", describeTree(n.v))
		return ""
	}
	if _, err := n.d.quantity(text); err != nil {
		n.d.errorf(n.path, "expected a quantity such as \"500m\" or \"2Gi\", got %q", text)
		return ""
	}
	return text
}

func (d *treeDecoder) quantity(text string) (model.Quantity, error) {
	if q, ok := d.quantities[text]; ok {
		return q, nil
	}
	q, err := model.ParseQuantity(text)
	if err == nil && d.quantities != nil {
		d.quantities[text] = q
	}
	return q, err
}

func (n node) quantityMap() map[string]model.Quantity {
	m, ok := n.object()
	if !ok {
		return nil
	}
	out := make(map[string]model.Quantity, len(m))
	for k := range m {
		c := n.get(k)
		if text := c.quantityText(); text != "" {
			q, _ := n.d.quantity(text)
			out[k] = q
		}
	}
	return out
}

func describeTree(v any) string {
	switch x := v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		if len(x) > 40 {
			x = x[:40] + "..."
		}
		return strconv.Quote(x)
	case json.Number:
		return string(x)
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprintf("%T", v)
}

// jsonTree returns a copy of an unstructured value (as client libraries hold
// it: int64 and float64 numbers) with every number as the json.Number of its
// JSON text, the form the library's templates use. Maps and lists are
// copied, so the result shares nothing with the input.
func jsonTree(v any) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			c, err := jsonTree(e)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			m[k] = c
		}
		return m, nil
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			c, err := jsonTree(e)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			l[i] = c
		}
		return l, nil
	case nil, string, bool, json.Number:
		return x, nil
	case int64:
		return json.Number(strconv.FormatInt(x, 10)), nil
	case int:
		return json.Number(strconv.Itoa(x)), nil
	case int32:
		return json.Number(strconv.FormatInt(int64(x), 10)), nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, fmt.Errorf("number %v cannot be represented in JSON", x)
		}
		b, err := json.Marshal(x) // the JSON text a client would send
		if err != nil {
			return nil, err
		}
		return json.Number(b), nil
	}
	return nil, fmt.Errorf("unexpected value of type %T", v)
}
