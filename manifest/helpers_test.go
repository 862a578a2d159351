package manifest

import (
	"strings"
	"testing"

	"github.com/clonecore/cloneset/model"
)

// selTpl is a selector and a template that match each other.
const selTpl = `  selector:
    matchLabels: {app: sample}
  template:
    metadata:
      labels: {app: sample}
    spec:
      containers:
      - name: nginx
        image: nginx:v1
`

// cloneSetDoc returns a CloneSet document of the given version ("v1alpha1" or
// "v1beta1") named default/sample with uid uid-sample and the given spec body
// (lines indented by two spaces).
func cloneSetDoc(version, spec string) string {
	return "apiVersion: apps.kruise.io/" + version + `
kind: CloneSet
metadata:
  name: sample
  namespace: default
  uid: uid-sample
spec:
` + spec
}

func beta(spec string) string  { return cloneSetDoc("v1beta1", spec) }
func alpha(spec string) string { return cloneSetDoc("v1alpha1", spec) }

// podDoc returns a pod named name in default, owned by the CloneSet when owner
// is "sample", by a ReplicaSet when owner is "other", an orphan when "".
func podDoc(name, owner string, labels ...string) string {
	var b strings.Builder
	b.WriteString("---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\n  namespace: default\n  uid: uid-" + name + "\n")
	b.WriteString("  labels:\n    app: sample\n")
	for _, l := range labels {
		b.WriteString("    " + l + "\n")
	}
	switch owner {
	case "sample":
		b.WriteString("  ownerReferences:\n  - {apiVersion: apps.kruise.io/v1beta1, kind: CloneSet, name: sample, uid: uid-sample, controller: true}\n")
	case "other":
		b.WriteString("  ownerReferences:\n  - {apiVersion: apps/v1, kind: ReplicaSet, name: other, uid: uid-other, controller: true}\n")
	}
	b.WriteString("spec:\n  containers:\n  - {name: nginx, image: nginx:v1}\n")
	return b.String()
}

func mustLoad(t *testing.T, input string) *model.Scenario {
	t.Helper()
	s, err := LoadBytes([]byte(input), "test.yaml")
	if err != nil {
		t.Fatalf("load failed: %v\ninput:\n%s", err, input)
	}
	return s
}

func ptr32(v int32) *int32 { return &v }
