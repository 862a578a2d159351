package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/clonecore/cloneset/model"
)

// DecodeObject reads one Kubernetes object (JSON or YAML) into its model
// type: a Pod into *model.Pod, a PersistentVolumeClaim into *model.PVC, a
// ControllerRevision into *model.Revision, a Node into *model.Node, a
// CloneSet of either API version into *model.CloneSet (as read, before
// defaulting), an ImagePullJob of either API version into
// *model.ImagePullJob. It applies the field rules of the loader (the same model as
// LoadBytes gives for the object); source names the object in errors. Any
// other kind, or more than one object, is an error.
func DecodeObject(data []byte, source string) (any, error) {
	l := &loader{budget: baseValues + valuesPerByte*len(data), quantities: map[string]model.Quantity{}}
	in := input{source, data}
	var docs []*yaml.Node
	var err error
	if looksLikeJSON(data) {
		docs, err = parseJSONInput(in) // the fast reader
	} else {
		docs, err = parseStream(in)
		if err == errJSONStream {
			docs, err = parseJSONInput(in)
		}
	}
	if err != nil {
		return nil, err
	}
	if len(docs) != 1 {
		return nil, fmt.Errorf("%s: want one object, got %d documents", source, len(docs))
	}
	l.document(source, "document 1", docs[0], "", "", maxListNesting)
	if len(l.errs) > 0 {
		return nil, errors.Join(l.errs...)
	}
	switch {
	case len(l.pods) == 1:
		return l.pods[0].obj, nil
	case len(l.pvcs) == 1:
		return l.pvcs[0].obj, nil
	case len(l.revs) == 1:
		return l.revs[0].obj, nil
	case len(l.nodes) == 1:
		return l.nodes[0].obj, nil
	case len(l.clone) == 1:
		return l.clone[0].obj, nil
	case len(l.jobs) == 1:
		return l.jobs[0].obj, nil
	}
	return nil, fmt.Errorf("%s: not a Pod, PersistentVolumeClaim, ControllerRevision, Node, CloneSet or ImagePullJob", source)
}

// DecodeCloneSetTree reads a CloneSet of either API version from a JSON-like
// tree (the Object of a client library's unstructured object, or what
// encoding/json decodes) with the loader's field rules: the same model as
// LoadBytes gives for the same object, before defaulting and validation.
// source names the object in errors.
func DecodeCloneSetTree(tree map[string]any, source string) (*model.CloneSet, error) {
	v, d, err := treeValue(tree, source)
	if err != nil {
		return nil, err
	}
	apiVersion := v.get("apiVersion").str()
	if apiVersion != model.APIVersionV1alpha1 && apiVersion != model.APIVersionV1beta1 {
		return nil, fmt.Errorf("%s: apiVersion %q (want %s or %s)", source, apiVersion, model.APIVersionV1alpha1, model.APIVersionV1beta1)
	}
	cs := decodeCloneSet(v, apiVersion)
	if cs.Name == "" {
		d.errorf(nil, "metadata.name", "required")
	}
	if len(d.errs) > 0 {
		return nil, errors.Join(d.errs...)
	}
	return cs, nil
}

// DecodeTemplateTree reads a pod template (a CloneSet's spec.template, or
// the data.spec.template of a ControllerRevision) from a JSON-like tree with
// the loader's rules; a "$patch" member is dropped from the raw tree, as the
// loader drops it.
func DecodeTemplateTree(tree map[string]any, source string) (model.PodTemplate, error) {
	v, d, err := treeValue(tree, source)
	if err != nil {
		return model.PodTemplate{}, err
	}
	t := decodeTemplate(v)
	if len(d.errs) > 0 {
		return model.PodTemplate{}, errors.Join(d.errs...)
	}
	return t, nil
}

// treeValue turns a JSON-like tree into the loader's document nodes (no text
// is written or parsed), with a decoder whose budget is sized by the tree.
func treeValue(tree map[string]any, source string) (value, *decoder, error) {
	n, err := treeNode(tree, 0)
	if err != nil {
		return value{}, nil, fmt.Errorf("%s: %v", source, err)
	}
	budget := baseValues + countNodes(n, 0)
	d := &decoder{source: source, object: source, budget: &budget, quantities: map[string]model.Quantity{}}
	return value{d: d, n: n}, d, nil
}

// treeNode is the document node of a JSON-like value, the node the YAML
// text of the value would parse into (object members sorted, numbers tagged
// as their text resolves), built directly. A value of another Go type is
// encoded by yaml.v3.
func treeNode(v any, depth int) (*yaml.Node, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested more than %d levels deep", maxDepth)
	}
	scalar := func(tag, text string) *yaml.Node {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: text}
	}
	switch x := v.(type) {
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: make([]*yaml.Node, 0, 2*len(x))}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			c, err := treeNode(x[k], depth+1)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, scalar("!!str", k), c)
		}
		return n, nil
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: make([]*yaml.Node, len(x))}
		for i, e := range x {
			c, err := treeNode(e, depth+1)
			if err != nil {
				return nil, err
			}
			n.Content[i] = c
		}
		return n, nil
	case nil:
		return scalar("!!null", "null"), nil
	case string:
		return scalar("!!str", x), nil
	case bool:
		return scalar("!!bool", strconv.FormatBool(x)), nil
	case int:
		return scalar("!!int", strconv.Itoa(x)), nil
	case int32:
		return scalar("!!int", strconv.FormatInt(int64(x), 10)), nil
	case int64:
		return scalar("!!int", strconv.FormatInt(x, 10)), nil
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return scalar("!!int", strconv.FormatInt(i, 10)), nil
		}
		if f, err := x.Float64(); err == nil {
			return floatNode(f), nil
		}
		return scalar("!!str", string(x)), nil
	case float64:
		return floatNode(x), nil
	}
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return nil, err
	}
	return &n, nil
}

// floatNode is the node of a float64 as its YAML text reads back: an
// integer when the text is one ("8080"), else a float.
func floatNode(f float64) *yaml.Node {
	text := strconv.FormatFloat(f, 'g', -1, 64)
	tag := "!!float"
	switch {
	case math.IsInf(f, 1):
		text = ".inf"
	case math.IsInf(f, -1):
		text = "-.inf"
	case math.IsNaN(f):
		text = ".nan"
	case !strings.ContainsAny(text, ".eE"):
		tag = "!!int"
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: text}
}

// countNodes counts the nodes of a tree (for the decoder's budget); depth is
// bounded as the loader bounds it.
func countNodes(n *yaml.Node, depth int) int {
	if n == nil || depth > maxDepth {
		return 0
	}
	c := 1
	for _, k := range n.Content {
		c += countNodes(k, depth+1)
	}
	return c
}
