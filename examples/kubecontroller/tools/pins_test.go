package tools

import (
	"os"
	"regexp"
	"testing"
)

// kubernetesRequire finds the k8s.io/kubernetes requirement of a go.mod.
var kubernetesRequire = regexp.MustCompile(`(?m)^\s*(?:require\s+)?k8s\.io/kubernetes (v\S+)`)

// kubernetesVersion reads the version of k8s.io/kubernetes that the go.mod
// at path requires.
func kubernetesVersion(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := kubernetesRequire.FindSubmatch(data)
	if m == nil {
		t.Fatalf("%s requires no k8s.io/kubernetes", path)
	}
	return string(m[1])
}

// TestControllerPinsTheTestedKubernetes: the controller module uses
// k8s.io/kubernetes (Kubernetes' own pod validation in its webhook) at
// the version this module pins for the control plane its tests run, so the
// validation served is that of the API server tested against.
func TestControllerPinsTheTestedKubernetes(t *testing.T) {
	tools, controller := kubernetesVersion(t, "go.mod"), kubernetesVersion(t, "../go.mod")
	if tools != controller {
		t.Errorf("the control plane is built from k8s.io/kubernetes %s, the controller module requires %s", tools, controller)
	}
}
