package requests_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/clonecore/cloneset/requests"
)

// TestKubectlQuoting: a value with quotes and shell characters stays one
// word of its kubectl command, the script is valid shell, and it stops
// before running anything.
func TestKubectlQuoting(t *testing.T) {
	reqs := []requests.Request{
		{Verb: requests.VerbPatch, Resource: requests.ResourcePods, Namespace: "prod", Name: "web-a",
			PatchType: requests.PatchMerge, Patch: json.RawMessage(`{"metadata":{"labels":{"note":"it's $(rm -rf /) ; done"}}}`),
			Preconditions: &requests.Preconditions{UID: "uid-a"}, Batch: -1, Action: -1},
		{Verb: requests.VerbCreate, Resource: requests.ResourcePods, Namespace: "prod", Name: "web-b",
			Object: json.RawMessage(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-b","namespace":"prod"}}`), Batch: 0, Action: -1},
		{Verb: requests.VerbDelete, Resource: requests.ResourcePersistentVolumeClaims, Namespace: "prod", Name: "data-web-c", Batch: -1, Action: -1},
	}
	out, err := requests.Kubectl(reqs, nil)
	if err != nil {
		t.Fatal(err)
	}
	script := string(out)
	for _, want := range []string{
		`kubectl patch pod web-a -n prod --type merge -p '{"metadata":{"labels":{"note":"it'\''s $(rm -rf /) ; done"}}}'`,
		"# precondition: uid uid-a",
		"kubectl create -n prod -f - <<'CLONESETPLAN_EOF'",
		"kubectl delete pvc data-web-c -n prod",
		"exit 1",
	} {
		if !strings.Contains(script, want) {
			t.Errorf("script lacks %q:\n%s", want, script)
		}
	}
	if strings.Index(script, "exit 1") > strings.Index(script, "\nkubectl ") {
		t.Error("the script does not stop before its first command")
	}
	if sh, err := exec.LookPath("sh"); err == nil {
		cmd := exec.Command(sh, "-n")
		cmd.Stdin = strings.NewReader(script)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("sh -n: %v: %s", err, b)
		}
	}
}
