package admission

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
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
	// only the members it writes; integers as int64 (the pod template's
	// as float64, as package podtemplate encodes it); see reader.
	tree map[string]any
}

// Parse reads one CloneSet of either API version from JSON (an admission
// request's object, or `kubectl get -o json`). A member the Go types refuse
// is a *TypeError naming the object and the field; a missing or unknown
// apiVersion or kind is an error too.
func Parse(data []byte) (*Object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("CloneSet: not a JSON object: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("CloneSet: trailing data after the JSON object")
	}
	tree, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("CloneSet: want a JSON object, got %s", describe(v))
	}
	return FromTree(tree)
}

// FromTree reads one CloneSet from a JSON-like tree (map[string]any,
// []any, string, bool, nil, json.Number or Go numbers: what encoding/json
// decodes, or a client library's unstructured object). The tree is only
// read.
func FromTree(tree map[string]any) (*Object, error) {
	name := objectName(tree)
	apiVersion, _ := tree["apiVersion"].(string)
	kind, _ := tree["kind"].(string)
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
	out, _, err := reader{}.read(tree, v.typeOf())
	if err != nil {
		if e, ok := err.(*TypeError); ok {
			return nil, &DecodeError{Object: name, TypeError: *e}
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &Object{version: v, tree: out.(map[string]any)}, nil
}

// DecodeError is a member of a CloneSet that the Go types refuse, with the
// object it belongs to.
type DecodeError struct {
	// Object names the CloneSet: "CloneSet NAMESPACE/NAME" (or less when
	// the metadata is missing).
	Object string
	TypeError
}

// Error renders "CloneSet ns/name: path: value: reason".
func (e *DecodeError) Error() string { return e.Object + ": " + e.TypeError.Error() }

// objectName names a CloneSet tree in errors, from whatever metadata it has.
func objectName(tree map[string]any) string {
	md, _ := tree["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	ns, _ := md["namespace"].(string)
	switch {
	case name == "" && ns == "":
		return "CloneSet"
	case ns == "":
		return "CloneSet " + name
	}
	return "CloneSet " + ns + "/" + name
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
// nil, int64 for integers (json.Number inside managed fields).
func (o *Object) Tree() map[string]any {
	return copyTree(o.tree).(map[string]any)
}

// copyTree deep-copies a canonical tree, with the pod template's float64
// integers as int64.
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
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<63 {
			return int64(x)
		}
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
