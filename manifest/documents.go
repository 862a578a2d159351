package manifest

import (
	"errors"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/clonecore/cloneset/model"
)

// Document is one object of a stream as a JSON-like tree.
type Document struct {
	// Tree is the object: map[string]any, []any, string, bool, nil and
	// json.Number, members as written (YAML read as 1.2, as the loader reads
	// it).
	Tree map[string]any
	// Where names it in messages: "FILE:LINE" of its first member.
	Where string
	// APIVersion and Kind are the object's: as written, or for a list item
	// that says neither, the list's apiVersion and the kind its kind names
	// ("PodList": "Pod"; "" for a List).
	APIVersion, Kind string
}

// DecodeDocuments reads a stream (YAML documents separated by "---", or JSON
// values) into its objects, as JSON-like trees in input order, with the
// loader's limits; each item of a List (kind List, or a kind ending in List
// with items) is an object of its own. Empty documents are skipped; a
// document that is not an object is an error naming it. source names the
// stream in messages.
func DecodeDocuments(data []byte, source string) ([]Document, error) {
	in := input{source, data}
	var nodes []*yaml.Node
	var err error
	if looksLikeJSON(data) {
		nodes, err = parseJSONInput(in)
	} else {
		nodes, err = parseStream(in)
		if err == errJSONStream {
			nodes, err = parseJSONInput(in)
		}
	}
	if err != nil {
		return nil, err
	}
	budget := baseValues + valuesPerByte*len(data)
	c := &collector{source: source, budget: &budget}
	for i, n := range nodes {
		c.document(n, fmt.Sprintf("document %d", i+1), "", "", 0)
	}
	if len(c.errs) > 0 {
		return nil, errors.Join(c.errs...)
	}
	return c.docs, nil
}

// collector gathers the objects of DecodeDocuments.
type collector struct {
	source string
	budget *int
	docs   []Document
	errs   []error
}

// document collects one document (or the items of a list); defAPI and
// defKind are the apiVersion and kind of a list's items that say neither
// (as the loader reads them).
func (c *collector) document(root *yaml.Node, label, defAPI, defKind string, nesting int) {
	n := resolve(root)
	if n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null") {
		return
	}
	loc := where(c.source, n)
	if n.Kind != yaml.MappingNode {
		c.errs = append(c.errs, fmt.Errorf("%s: %s: expected a Kubernetes object (apiVersion, kind, metadata, ...), got %s", loc, label, describe(n)))
		return
	}
	d := &decoder{source: c.source, budget: c.budget, object: label, quantities: map[string]model.Quantity{}}
	v := value{d: d, n: n}
	apiVersion, kind := v.get("apiVersion").str(), v.get("kind").str()
	if kind == kindList || (strings.HasSuffix(kind, kindList) && v.get("items").present()) {
		if nesting >= maxListNesting {
			c.errs = append(c.errs, fmt.Errorf("%s: %s: lists nested more than %d levels deep", loc, label, maxListNesting))
			return
		}
		for i, it := range v.get("items").items() {
			c.document(it.n, fmt.Sprintf("%s item %d", label, i+1), apiVersion, strings.TrimSuffix(kind, kindList), nesting+1)
		}
		c.errs = append(c.errs, d.errs...)
		return
	}
	if apiVersion == "" && kind == "" {
		apiVersion, kind = defAPI, defKind
	}
	tree := v.treeMap()
	c.errs = append(c.errs, d.errs...)
	if len(d.errs) == 0 {
		c.docs = append(c.docs, Document{Tree: tree, Where: loc, APIVersion: apiVersion, Kind: kind})
	}
}

// DecodePodTree reads a Pod from a JSON-like tree with the loader's field
// rules: the model the loader gives for the same object. source names it in
// errors.
func DecodePodTree(tree map[string]any, source string) (*model.Pod, error) {
	v, d, err := treeValue(tree, source)
	if err != nil {
		return nil, err
	}
	p := decodePod(v)
	if len(d.errs) > 0 {
		return nil, errors.Join(d.errs...)
	}
	return p, nil
}

// ReadFile reads a file within the size limit (Options.MaxInputBytes),
// refusing a larger one before reading it.
func (o Options) ReadFile(path string) ([]byte, error) { return o.readFile(path) }
