package manifest

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/clonecore/cloneset/model"
)

// TestDecodeCloneSetTree: a CloneSet read from a JSON-like tree (numbers as
// encoding/json or a client's unstructured object give them) is the
// CloneSet the loader reads from the same object as text.
func TestDecodeCloneSetTree(t *testing.T) {
	for _, apiVersion := range []string{"v1alpha1", "v1beta1"} {
		doc := cloneSetDoc(apiVersion, selTpl+"  replicas: 3\n  minReadySeconds: 10\n  updateStrategy:\n    rollingUpdate: {maxUnavailable: 20%, partition: 1}\n")
		scn, err := Options{SkipBudgetRule: true}.LoadBytes([]byte(doc), "doc.yaml")
		if err != nil {
			t.Fatal(err)
		}
		// The same object as JSON, decoded into a tree.
		js, err := EncodeJSON(&model.Scenario{CloneSet: scn.CloneSet})
		if err != nil {
			t.Fatal(err)
		}
		var tree map[string]any
		for _, line := range splitLines(js) {
			var m map[string]any
			if json.Unmarshal(line, &m) == nil && m["kind"] == "CloneSet" {
				tree = m
			}
		}
		if tree == nil {
			t.Fatalf("no CloneSet in %s", js)
		}
		got, err := DecodeCloneSetTree(tree, "tree")
		if err != nil {
			t.Fatal(err)
		}
		model.SetDefaults(got)
		model.ConvertV1alpha1(got)
		if diff := cmp.Diff(scn.CloneSet, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s (-loader +tree):\n%s", apiVersion, diff)
		}
	}
	_, err := DecodeCloneSetTree(map[string]any{"apiVersion": "apps.kruise.io/v1beta1", "kind": "CloneSet", "metadata": map[string]any{"name": "bad"}, "spec": map[string]any{"replicas": "two"}}, "CloneSet default/bad")
	if want := `CloneSet default/bad: spec.replicas: expected an integer, got "two"`; err == nil || err.Error() != want {
		t.Errorf("a bad tree: error %v, want %s (the object named once)", err, want)
	}
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	start := 0
	for i, c := range b {
		if c == '\n' {
			out = append(out, b[start:i])
			start = i + 1
		}
	}
	return append(out, b[start:])
}
