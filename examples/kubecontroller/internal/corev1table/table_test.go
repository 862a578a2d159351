package corev1table

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	k8sjson "sigs.k8s.io/json"

	corev1 "k8s.io/api/core/v1"

	"github.com/clonecore/cloneset/examples/kubecontroller/internal/gentest"
	"github.com/clonecore/cloneset/podtemplate"
)

// committedTable is the library's generated table.
const committedTable = "../../../../podtemplate/corev1_table.go"

// TestTableMatchesK8sAPI fails when the library's committed table and
// k8s.io/api disagree: a field added, renamed or retagged, a type changed,
// a new type with its own encoding. Regenerate with
// `go run ./cmd/gencorev1table -o ../../podtemplate/corev1_table.go` (from
// examples/kubecontroller) and review what changed.
func TestTableMatchesK8sAPI(t *testing.T) {
	want, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	gentest.MatchesCommitted(t, committedTable, want, "(cd examples/kubecontroller && go run ./cmd/gencorev1table -o ../../podtemplate/corev1_table.go)")
}

// TestGenerateRefusesUnknownEncodings: a type with a JSON encoding of its
// own that the library does not reproduce stops the generation.
func TestGenerateRefusesUnknownEncodings(t *testing.T) {
	type withRaw struct {
		Raw json.RawMessage `json:"raw"`
	}
	g := &generator{byKey: map[string]int{}, used: map[string]bool{}}
	if _, err := g.add(reflectTypeOf(withRaw{})); err == nil || !strings.Contains(err.Error(), "own encoding") {
		t.Fatalf("a json.RawMessage field: got %v, want an error naming its own encoding", err)
	}
	type withFloat struct {
		F float64 `json:"f"`
	}
	if _, err := g.add(reflectTypeOf(withFloat{})); err == nil {
		t.Fatal("a float64 field: no error")
	}
	type withString struct {
		N int32 `json:"n,string"`
	}
	if _, err := g.add(reflectTypeOf(withString{})); err == nil {
		t.Fatal("the ,string option: no error")
	}
}

// TestMemberNamesAreCaseSensitive: the library reads members by their exact
// names, as Kubernetes' decoder (sigs.k8s.io/json, case-sensitive) does and
// as upstream's client reads the CloneSet; encoding/json alone would also
// take "Image" for "image".
func TestMemberNamesAreCaseSensitive(t *testing.T) {
	doc := []byte(`{"metadata":{"Labels":{"a":"b"}},"spec":{"containers":[{"name":"c","Image":"nginx"}],"NodeName":"n"}}`)
	var typed corev1.PodTemplateSpec
	if err := k8sjson.UnmarshalCaseSensitivePreserveInts(doc, &typed); err != nil {
		t.Fatal(err)
	}
	enc, _ := json.Marshal(&typed)
	var tree map[string]any
	_ = json.Unmarshal(enc, &tree)
	nullCreationTimestamps(tree, Root)
	tree["$patch"] = "replace"
	want, _ := json.Marshal(map[string]any{"spec": map[string]any{"template": tree}})
	got, err := libraryRevisionData(doc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("case-variant members:\nKubernetes' decoder: %s\nlibrary:             %s", want, got)
	}
	var loose corev1.PodTemplateSpec
	_ = json.Unmarshal(doc, &loose)
	if loose.Spec.Containers[0].Image != "nginx" {
		t.Fatal("encoding/json no longer folds case: the property test's reference may use it for case-variant names too")
	}
	if strings.Contains(string(got), "nginx") {
		t.Fatalf("the library read a case-variant member: %s", got)
	}
}

// TestRevisionDataErrorsNameTheField: a value the typed form refuses is an
// error naming its field path.
func TestRevisionDataErrorsNameTheField(t *testing.T) {
	doc := map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "ports": []any{map[string]any{"containerPort": "80"}}}}}}
	err := podtemplate.Check(doc, "spec.template")
	if err == nil || !strings.HasPrefix(err.Error(), "spec.template.spec.containers[0].ports[0].containerPort: ") {
		t.Fatalf("got %v", err)
	}
}

func reflectTypeOf(v any) reflect.Type { return reflect.TypeOf(v) }
