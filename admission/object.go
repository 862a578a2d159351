package admission

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/podtemplate"
)

// Version is an API version of the CloneSet: V1alpha1 or V1beta1.
type Version string

// The two API versions of the CloneSet. V1beta1 is the storage version and
// the hub of conversion.
const (
	V1alpha1 Version = "v1alpha1"
	V1beta1  Version = "v1beta1"
)

// group is the CloneSet's API group; kindCloneSet its kind.
const (
	group        = "apps.kruise.io"
	kindCloneSet = "CloneSet"
)

// APIVersion is the apiVersion of an object of this version
// ("apps.kruise.io/v1beta1").
func (v Version) APIVersion() string { return group + "/" + string(v) }

// ParseVersion reads a version as an admission request's resource names it
// ("v1alpha1") or as an object's apiVersion ("apps.kruise.io/v1alpha1").
func ParseVersion(s string) (Version, error) {
	switch s {
	case "v1alpha1", "apps.kruise.io/v1alpha1":
		return V1alpha1, nil
	case "v1beta1", "apps.kruise.io/v1beta1":
		return V1beta1, nil
	}
	return "", fmt.Errorf("version %q: want v1alpha1 or v1beta1 (of %s)", s, group)
}

// typeOf is the table type of a version's CloneSet.
func (v Version) typeOf() *typeInfo {
	if v == V1alpha1 {
		return tCloneSetV1alpha1
	}
	return tCloneSetV1beta1
}

// Object is one CloneSet exactly as kruise's Go types of its API version
// hold it after reading it: members the types do not know are gone; members
// they always write are there ("creationTimestamp":null, "scaleStrategy":{},
// a zero status, "selector":null when absent); quantities are in canonical
// form; an int-or-string is a number or a string; times are in UTC to the
// second. Its JSON (MarshalJSON) is the bytes encoding/json writes for the
// typed object: members in Go field order, map keys sorted.
//
// An Object never changes: Default and Convert return new ones. The zero
// Object is not valid; get one from Parse or FromTree.
type Object struct {
	version Version
	// tree is the canonical tree: the typed encoding as generic values,
	// only the members it writes; integers as int64; see reader.
	tree map[string]any
	// unknown are the paths of the members the types dropped (see
	// UnknownFields).
	unknown []string
	// asRead says that readTemplate and readClaims hold the pod template
	// and the claim templates as read (the input's members, before the
	// typed encoding): kruise's decoder holds more of them than their
	// encoding keeps (a quantity's suffix family, an empty list...). An
	// object Default or Convert made is read from its JSON, which is its
	// tree.
	asRead       bool
	readTemplate map[string]any
	readClaims   []any
}

// templateAsRead is the pod template as kruise's decoder read it: as read,
// or the canonical tree's (what the JSON of an object Default or Convert
// made reads back as).
func (o *Object) templateAsRead() map[string]any {
	if o.asRead {
		return o.readTemplate
	}
	t, _ := o.tree["spec"].(map[string]any)["template"].(map[string]any)
	return t
}

// claimAsRead is the i-th claim template as read (see templateAsRead).
func (o *Object) claimAsRead(i int) map[string]any {
	claims := o.readClaims
	if !o.asRead {
		claims, _ = o.tree["spec"].(map[string]any)["volumeClaimTemplates"].([]any)
	}
	if i >= len(claims) {
		return nil
	}
	c, _ := podtemplate.ReadJSONValue(claims[i], false)
	m, _ := c.(map[string]any)
	return m
}

// UnknownFields are the paths of the members of the object as read that
// its version's types do not know and dropped ("spec.updateStrategy.partition"
// in v1beta1), members in the types' order and unknown ones sorted within
// an object, outside the pod template and the claim
// templates: the API server drops them too and warns about them
// (kubectl's "unknown field" warnings), while the CloneSet's CRD keeps the
// template's and claims' unknown members for the webhook to drop. Default
// and Convert give objects without any.
func (o *Object) UnknownFields() []string { return slices.Clone(o.unknown) }

// Parse reads one CloneSet of either API version from JSON (an admission
// request's object, or `kubectl get -o json`), as kruise's decoder reads
// those bytes (podtemplate.DecodeJSON: a managed fields entry's fieldsV1
// keeps its text, a quantity written with a JSON escape is refused, a
// member written twice is an error). A member the Go types refuse is a
// *DecodeError naming the object and the field; a missing or unknown
// apiVersion or kind is an error too.
func Parse(data []byte) (*Object, error) {
	tree, err := podtemplate.DecodeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("CloneSet: %v", err)
	}
	return fromTree(tree, false)
}

// FromTree reads one CloneSet from a JSON-like tree (map[string]any,
// []any, string, bool, nil, json.Number or Go numbers: what encoding/json
// decodes, or a client library's unstructured object; json.RawMessage as
// podtemplate.DecodeJSON gives it) as kruise's decoder reads the JSON that
// encoding/json writes for the tree. The tree is only read.
func FromTree(tree map[string]any) (*Object, error) { return fromTree(tree, true) }

// fromTree reads a CloneSet from a tree; with keep it copies the templates
// as read (the caller's tree may change later), else it keeps them.
func fromTree(tree map[string]any, keep bool) (*Object, error) {
	name := objectName(tree)
	apiVersion, kind := stringMember(tree, "apiVersion"), stringMember(tree, "kind")
	if apiVersion == "" || kind == "" {
		return nil, fmt.Errorf("%s: apiVersion and kind are required (%s/v1alpha1 or %s/v1beta1, CloneSet)", name, group, group)
	}
	v, err := ParseVersion(apiVersion)
	if err != nil || apiVersion != v.APIVersion() {
		return nil, fmt.Errorf("%s: apiVersion %q: want %s or %s", name, apiVersion, V1alpha1.APIVersion(), V1beta1.APIVersion())
	}
	if kind != kindCloneSet {
		return nil, fmt.Errorf("%s: kind %q: want %s", name, kind, kindCloneSet)
	}
	var unknown []string
	out, _, err := reader{unknown: &unknown}.read(tree, v.typeOf(), "")
	if err != nil {
		if e, ok := err.(*podtemplate.Error); ok {
			return nil, &DecodeError{Object: name, Path: e.Path, Value: e.Value, Reason: e.Reason}
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	o := &Object{version: v, tree: out.(map[string]any), unknown: unknown, asRead: true}
	spec, _ := podtemplate.ReadJSONValue(tree["spec"], false)
	template, _ := podtemplate.ReadJSONValue(member(spec, "template"), false)
	claims, _ := podtemplate.ReadJSONValue(member(spec, "volumeClaimTemplates"), false)
	o.readTemplate, _ = template.(map[string]any)
	o.readClaims, _ = claims.([]any)
	if keep {
		o.readTemplate, _ = copyRead(o.readTemplate).(map[string]any)
		o.readClaims, _ = copyRead(o.readClaims).([]any)
	}
	return o, nil
}

// DecodeError is a member of a CloneSet that kruise's Go types refuse to
// read (the webhook's decoder fails on it, and the webhook answers 400 Bad
// Request): a value of the wrong JSON type, an integer out of range, a
// quantity or a time that does not parse.
type DecodeError struct {
	// Object names the CloneSet: "CloneSet NAMESPACE/NAME" (or less when
	// the metadata is missing).
	Object string
	// Path is the member's field path, list indexes and map keys in
	// brackets ("spec.replicas", "spec.template.spec.containers[0].ports[0].containerPort").
	Path string
	// Value is the offending value as JSON (shortened when long).
	Value string
	// Reason says what the typed field wants.
	Reason string
}

// Error renders "CloneSet ns/name: path: value: reason".
func (e *DecodeError) Error() string {
	return e.Object + ": " + e.Path + ": " + e.Value + ": " + e.Reason
}

// objectName names a CloneSet tree in errors, from whatever metadata it has.
func objectName(tree map[string]any) string {
	md, _ := tree["metadata"].(map[string]any)
	name, ns := stringMember(md, "name"), stringMember(md, "namespace")
	switch {
	case name == "" && ns == "":
		return "CloneSet"
	case ns == "":
		return "CloneSet " + name
	}
	return "CloneSet " + ns + "/" + name
}

// stringMember is m[key] when it is a string ("" when not), a
// json.RawMessage string read.
func stringMember(m map[string]any, key string) string {
	v, _ := podtemplate.ReadJSONValue(m[key], false)
	s, _ := v.(string)
	return s
}

// errNotRead is the error for an Object that Parse or FromTree did not make.
var errNotRead = errors.New("admission: an Object that Parse or FromTree did not make")

// check refuses a nil or zero Object (the operations need a read one).
func (o *Object) check() error {
	if o == nil || o.tree == nil {
		return errNotRead
	}
	return nil
}

// Version is the object's API version.
func (o *Object) Version() Version { return o.version }

// Name is metadata.name ("" when absent).
func (o *Object) Name() string { s, _ := o.metadata()["name"].(string); return s }

// Namespace is metadata.namespace ("" when absent).
func (o *Object) Namespace() string { s, _ := o.metadata()["namespace"].(string); return s }

// String names the object: "CloneSet NAMESPACE/NAME".
func (o *Object) String() string { return objectName(o.tree) }

func (o *Object) metadata() map[string]any { m, _ := o.tree["metadata"].(map[string]any); return m }

// MarshalJSON is the object as encoding/json writes the typed object
// (compact).
func (o *Object) MarshalJSON() ([]byte, error) { return o.AppendJSON(nil) }

// AppendJSON appends the object's JSON (see MarshalJSON) to dst.
func (o *Object) AppendJSON(dst []byte) ([]byte, error) {
	return appendValue(dst, o.tree, o.version.typeOf())
}

// Tree is a deep copy of the object as a JSON-like tree, the shape a client
// library's unstructured object holds: map[string]any, []any, string, bool,
// nil, int64 for integers; a managed fields entry's fieldsV1 as decoded
// values, as apimachinery decodes JSON into an unstructured object (a
// number without a point that fits int64 an int64, any other a float64, one
// beyond float64 a json.Number).
func (o *Object) Tree() map[string]any {
	return unstructured(o.tree).(map[string]any)
}

// unstructured is a deep copy of a canonical tree with its raw JSON
// decoded (see Tree).
func unstructured(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = unstructured(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = unstructured(e)
		}
		return out
	case json.RawMessage:
		dec := json.NewDecoder(bytes.NewReader(x))
		dec.UseNumber()
		var d any
		if dec.Decode(&d) != nil {
			return nil // never: the canonical tree holds valid JSON
		}
		return unstructured(d)
	case json.Number:
		if !strings.Contains(string(x), ".") {
			if n, err := x.Int64(); err == nil {
				return n
			}
		}
		if f, err := x.Float64(); err == nil {
			return f
		}
	}
	return v
}

// member is m[key] when v is an object m.
func member(v any, key string) any {
	m, _ := v.(map[string]any)
	return m[key]
}

// copyRead deep-copies a tree as read (json.RawMessage's bytes too).
func copyRead(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return x
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = copyRead(e)
		}
		return out
	case []any:
		if x == nil {
			return x
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = copyRead(e)
		}
		return out
	case json.RawMessage:
		return bytes.Clone(x)
	}
	return v
}

// copyTree deep-copies a canonical tree.
func copyTree(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = copyTree(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = copyTree(e)
		}
		return out
	}
	return v
}

// CloneSet is the object in the library's model (manifest.DecodeCloneSetTree:
// as written, before model.SetDefaults and model.ConvertV1alpha1).
func (o *Object) CloneSet() (*model.CloneSet, error) {
	tree := o.Tree() // integers as int64 throughout
	name := o.Name()
	if name == "" {
		// The model reader wants a name; the nameless object is read under a
		// stand-in and given back nameless (validation refuses it, A1).
		tree = shallowWith(tree, "metadata", shallowWith(o.metadata(), "name", "unnamed"))
	}
	cs, err := manifest.DecodeCloneSetTree(tree, o.String())
	if err != nil {
		return nil, err
	}
	cs.Name = name
	return cs, nil
}

// shallowWith is a shallow copy of m with key set to v.
func shallowWith(m map[string]any, key string, v any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, e := range m {
		out[k] = e
	}
	out[key] = v
	return out
}
