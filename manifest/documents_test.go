package manifest

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestDecodeDocuments: every object of a stream as a tree, in order, a
// list's items as objects of their own (with the list's apiVersion and item
// kind when they say neither), empty documents skipped, JSON streams too.
func TestDecodeDocuments(t *testing.T) {
	yamlStream := `apiVersion: apps.kruise.io/v1beta1
kind: CloneSet
metadata: {name: web, labels: {on: "yes"}}
spec: {replicas: 3}
---
---
apiVersion: v1
kind: PodList
items:
- metadata: {name: web-1}
- apiVersion: v1
  kind: Pod
  metadata: {name: web-2}
`
	docs, err := DecodeDocuments([]byte(yamlStream), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		md, _ := d.Tree["metadata"].(map[string]any)
		got = append(got, d.Where+" "+d.APIVersion+" "+d.Kind+" "+md["name"].(string))
	}
	want := []string{"s.yaml:1 apps.kruise.io/v1beta1 CloneSet web", "s.yaml:10 v1 Pod web-1", "s.yaml:11 v1 Pod web-2"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if r := docs[0].Tree["spec"].(map[string]any)["replicas"]; r != json.Number("3") {
		t.Errorf("replicas %#v, want json.Number 3", r)
	}
	if on := docs[0].Tree["metadata"].(map[string]any)["labels"].(map[string]any)["on"]; on != "yes" {
		t.Errorf("a quoted YAML 1.1 boolean: %#v", on)
	}

	jsonStream := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"}} {"apiVersion":"v1","kind":"Pod","metadata":{"name":"b"}}`
	if docs, err := DecodeDocuments([]byte(jsonStream), "j.json"); err != nil || len(docs) != 2 {
		t.Fatalf("a JSON stream: %d documents, %v", len(docs), err)
	}
	for _, c := range []struct{ in, want string }{
		{"- 1\n- 2\n", "s.yaml:1: document 1: expected a Kubernetes object"},
		{"a: [", "s.yaml: invalid YAML"},
	} {
		if _, err := DecodeDocuments([]byte(c.in), "s.yaml"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.in, err, c.want)
		}
	}
}

// TestDecodePodTree: a Pod read from a tree is the Pod DecodeObject reads
// from the same JSON.
func TestDecodePodTree(t *testing.T) {
	const doc = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-1","namespace":"default","labels":{"app":"web"},"ownerReferences":[{"apiVersion":"apps.kruise.io/v1beta1","kind":"CloneSet","name":"web","uid":"u1","controller":true}]},"spec":{"containers":[{"name":"c","image":"nginx"}]},"status":{"phase":"Running"}}`
	want, err := DecodeObject([]byte(doc), "pod.json")
	if err != nil {
		t.Fatal(err)
	}
	docs, err := DecodeDocuments([]byte(doc), "pod.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodePodTree(docs[0].Tree, "pod.json")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if _, err := DecodePodTree(map[string]any{"metadata": map[string]any{"name": 5}}, "Pod x"); err == nil || !strings.Contains(err.Error(), "metadata.name") {
		t.Fatalf("a name of the wrong type: %v", err)
	}
}
