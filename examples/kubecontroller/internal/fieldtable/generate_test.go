package fieldtable

import (
	"os"
	"strings"
	"testing"

	"github.com/clonecore/cloneset/examples/kubecontroller/internal/gentest"
)

// committedTable is the library's generated table.
const committedTable = "../../../../manifest/fields_table.go"

// TestFieldTableMatchesSources fails when the library's committed table and
// its sources disagree: a field added to or removed from k8s.io/api's Pod,
// PersistentVolumeClaim, Node or ControllerRevision, or from kruise's
// CloneSet types of either version. Regenerate with
// `go run ./cmd/genfieldtable -o ../../manifest/fields_table.go` (from
// examples/kubecontroller) and review what changed. kruise's source comes
// from the module cache: without it the test says how to fetch it and skips.
func TestFieldTableMatchesSources(t *testing.T) {
	dir, ok := KruiseDir()
	if !ok {
		t.Skipf("%s@%s is not in the module cache (%s); fetch it with\n  GONOSUMDB=github.com/openkruise GOFLAGS=-mod=mod go mod download %s@%s",
			KruiseModule, KruiseVersion, dir, KruiseModule, KruiseVersion)
	}
	want, err := Generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	gentest.MatchesCommitted(t, committedTable, want, "(cd examples/kubecontroller && go run ./cmd/genfieldtable -o ../../manifest/fields_table.go)")
}

// The CloneSet of each version has exactly the spec fields of its own
// version: the table is read per version, not as a union.
func TestFieldTablePerVersion(t *testing.T) {
	dir, ok := KruiseDir()
	if !ok {
		t.Skip("kruise's source is not in the module cache (see TestFieldTableMatchesSources)")
	}
	src, err := Generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	table := string(src)
	for _, want := range []string{
		`{name: "v1alpha1.CloneSetUpdateStrategy", kind: shapeObject, members: []fieldMember{` + "\n\t\t{\"type\", 0},\n\t\t{\"partition\", 0},",
		`{name: "v1beta1.CloneSetUpdateStrategy", kind: shapeObject, members: []fieldMember{` + "\n\t\t{\"type\", 0},\n\t\t{\"rollingUpdate\", ",
		`{name: "v1alpha1.CloneSetScaleStrategy", kind: shapeObject, members: []fieldMember{`,
		`{"disablePVCReuse", 0}`,
		`{"enablePVCReuse", 0}`,
		`{name: "v1.PodTemplateSpec", kind: shapeTemplate}`,
		`{"data", 0}`, // runtime.RawExtension: not looked into
	} {
		if !strings.Contains(table, want) {
			t.Errorf("the table lacks %q", want)
		}
	}
}

// A kruise type the generator cannot resolve stops it, naming the type.
func TestGenerateRefusesUnknownTypes(t *testing.T) {
	dir := t.TempDir()
	pkg := dir + "/apis/apps/v1beta1"
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	src := "package v1beta1\n\nimport other \"example.com/other\"\n\ntype CloneSet struct {\n\tSpec other.Spec `json:\"spec\"`\n}\n"
	if err := os.WriteFile(pkg+"/cloneset_types.go", []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir+"/apis/apps/v1alpha1", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/apis/apps/v1alpha1/cloneset_types.go", []byte("package v1alpha1\n\ntype CloneSet struct{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Generate(dir)
	if err == nil || !strings.Contains(err.Error(), "example.com/other.Spec is not in fieldtable.k8sTypes") {
		t.Errorf("error %v", err)
	}
}
