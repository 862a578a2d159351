package manifest

import (
	"errors"
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/clonecore/cloneset/model"
)

// DecodeObject reads one Kubernetes object (JSON or YAML) into its model
// type: a Pod into *model.Pod, a PersistentVolumeClaim into *model.PVC, a
// ControllerRevision into *model.Revision, a Node into *model.Node, a
// CloneSet of either API version into *model.CloneSet (as read, before
// defaulting). It applies the field rules of the loader (the same model as
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
	}
	return nil, fmt.Errorf("%s: not a Pod, PersistentVolumeClaim, ControllerRevision, Node or CloneSet", source)
}
