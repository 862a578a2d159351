package inplace_test

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/clonecore/cloneset/inplace"
	"github.com/clonecore/cloneset/model"
)

func decode(s string) map[string]any {
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		panic(err)
	}
	return m
}

// Two rows of update-and-ordering Example 7: an image change plus a label that a
// container's env refers to is possible in place; appending an env var is not.
func ExampleCalculate() {
	old := &model.Revision{Name: "web-1", Revision: 1, HasTemplate: true, Template: model.PodTemplate{Raw: decode(`{
	  "metadata": {"labels": {"app": "x"}},
	  "spec": {"containers": [
	    {"name": "main", "image": "nginx:1"},
	    {"name": "side", "image": "busybox:1", "env": [
	      {"name": "LBL", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['ver']"}}}]}]}}`)}}
	imageAndLabel := &model.Revision{Name: "web-2", Revision: 2, HasTemplate: true, Template: model.PodTemplate{Raw: decode(`{
	  "metadata": {"labels": {"app": "x", "ver": "v3"}},
	  "spec": {"containers": [
	    {"name": "main", "image": "nginx:2"},
	    {"name": "side", "image": "busybox:1", "env": [
	      {"name": "LBL", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['ver']"}}}]}]}}`)}}
	envAppended := &model.Revision{Name: "web-3", Revision: 3, HasTemplate: true, Template: model.PodTemplate{Raw: decode(`{
	  "metadata": {"labels": {"app": "x"}},
	  "spec": {"containers": [
	    {"name": "main", "image": "nginx:1"},
	    {"name": "side", "image": "busybox:1", "env": [
	      {"name": "LBL", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['ver']"}}},
	      {"name": "B", "value": "2"}]}]}}`)}}

	opts := inplace.Options{Policy: model.PolicyInPlaceIfPossible, Gates: model.DefaultFeatureGates()}
	s := inplace.Calculate(old, imageAndLabel, opts)
	fmt.Println(s.Feasible, s.Summary())
	fmt.Println("plain metadata patch empty:", s.Metadata.Empty())

	s = inplace.Calculate(old, envAppended, opts)
	fmt.Println(s.Feasible, s.Reason)
	// Output:
	// true images main=nginx:2; env from metadata side label ver=v3
	// plain metadata patch empty: true
	// false spec.containers[1].env[1] added
}
