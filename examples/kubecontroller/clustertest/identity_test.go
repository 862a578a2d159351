package clustertest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/clonecore/cloneset/examples/kubecontroller/clustertest"
	"github.com/clonecore/cloneset/examples/kubecontroller/controlplane"
	"github.com/clonecore/cloneset/internal/cisummary"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Issue 29's checks on the control plane: revisions as upstream writes
// them, and pod names that never come back.

// richTemplateCloneSet has a template with what the typed encoding of
// core/v1 writes differently from the text a user gives: a quantity in
// another form ("0.5" cpu is "500m"), fields the typed form always writes
// (resources of a container, creationTimestamp), an int-or-string port,
// characters encoding/json escapes.
const richTemplateCloneSet = `{
  "apiVersion": "apps.kruise.io/v1beta1", "kind": "CloneSet",
  "metadata": {"name": "web", "labels": {"team": "a"}, "annotations": {"owner": "team-a"}},
  "spec": {
    "replicas": 2,
    "selector": {"matchLabels": {"app": "web"}},
    "template": {
      "metadata": {"labels": {"app": "web", "tier": "front"}, "annotations": {"note": "a<b & \"c\""}},
      "spec": {
        "terminationGracePeriodSeconds": 30,
        "nodeSelector": {"type": "kwok"},
        "containers": [{"name": "main", "image": "web:1",
          "ports": [{"name": "http", "containerPort": 8080}],
          "env": [{"name": "GREETING", "value": "h\u00e9llo <world>"}],
          "resources": {"requests": {"cpu": "0.5", "memory": "64Mi"}},
          "readinessProbe": {"httpGet": {"path": "/ready", "port": "http"}, "periodSeconds": 5}},
          {"name": "side", "image": "side:1"}]
      }
    },
    "updateStrategy": ` + clustertest.InPlace + `
  }
}`

// TestRevisionBytesOnKubeAPIServer (issue 29): the revisions the
// controller wrote, read back from kube-apiserver, hold data byte-equal to
// the typed round trip through k8s.io/api of the template of the CloneSet
// at each version (what upstream would write).
func TestRevisionBytesOnKubeAPIServer(t *testing.T) {
	c := clustertest.Shared(t)
	var problems []string
	c.RunScenario(t, clustertest.Scenario{
		Name:     "revision-bytes",
		CloneSet: richTemplateCloneSet,
		Changes:  []clustertest.Change{clustertest.SetImage("web:2")},
		Check: func(t *testing.T, r *clustertest.Run) {
			var revs appsv1.ControllerRevisionList
			if err := r.Cluster.Client.List(t.Context(), &revs, client.InNamespace(r.Namespace)); err != nil {
				t.Fatal(err)
			}
			stored := map[string]bool{}
			for _, v := range revs.Items {
				stored[string(v.Data.Raw)] = true
			}
			for i, cs := range r.CloneSets() {
				want, err := typedRevisionData(cs)
				if err != nil {
					t.Fatal(err)
				}
				if stored[string(want)] {
					continue
				}
				problems = append(problems, fmt.Sprintf("version %d of the CloneSet: no revision on the server holds the typed round trip's data\n  want %s\n  have %s", i, want, firstDifference(want, revs.Items)))
			}
			t.Logf("revision data compared: %d revisions on the server, %d templates", len(revs.Items), len(r.CloneSets()))
		},
	})
	if len(problems) == 0 {
		return
	}
	t.Errorf("revision data differs from the typed round trip:\n%s", strings.Join(problems, "\n"))
}

// typedRevisionData is the revision data upstream writes for the
// CloneSet's template: the template through corev1.PodTemplateSpec
// (json.Unmarshal, json.Marshal), to a generic map, "$patch": "replace"
// added, wrapped in {"spec": {"template": ...}}, json.Marshal, with
// upstream's null creationTimestamp (below).
func typedRevisionData(cs *unstructured.Unstructured) ([]byte, error) {
	tmpl, ok, err := unstructured.NestedMap(cs.Object, "spec", "template")
	if err != nil || !ok {
		return nil, fmt.Errorf("the CloneSet has no template: %v", err)
	}
	text, err := json.Marshal(tmpl)
	if err != nil {
		return nil, err
	}
	var typed corev1.PodTemplateSpec
	if err := json.Unmarshal(text, &typed); err != nil {
		return nil, err
	}
	if text, err = json.Marshal(typed); err != nil {
		return nil, err
	}
	var generic map[string]any
	if err := json.Unmarshal(text, &generic); err != nil {
		return nil, err
	}
	// Upstream (kruise 07169cfac) is built on an apimachinery whose
	// ObjectMeta writes a zero creationTimestamp as null; v0.37, which this
	// module uses, leaves it out (omitzero). Put upstream's null back.
	if md, ok := generic["metadata"].(map[string]any); ok {
		if _, ok := md["creationTimestamp"]; !ok {
			md["creationTimestamp"] = nil
		}
	}
	generic["$patch"] = "replace"
	return json.Marshal(map[string]any{"spec": map[string]any{"template": generic}})
}

// firstDifference shows the stored revision data closest to want (the
// longest common prefix) from the first byte that differs.
func firstDifference(want []byte, revs []appsv1.ControllerRevision) string {
	best, at := "", -1
	for _, v := range revs {
		n := 0
		for n < len(want) && n < len(v.Data.Raw) && want[n] == v.Data.Raw[n] {
			n++
		}
		if n > at {
			best, at = fmt.Sprintf("%s: ...%s", v.Name, clip(v.Data.Raw[max(0, n-20):])), n
		}
	}
	return best
}

func clip(b []byte) []byte {
	if len(b) > 120 {
		return append(bytes.Clone(b[:120]), "..."...)
	}
	return b
}

// TestPodNamesNotReusedOnKubeAPIServer (issue 29): 200 pods with a volume
// claim template through an in-place image update, a recreate (env
// change), a scale-in and a scale-out; the pod creations the API server
// accepted (its audit log) name no pod twice, except a pod that gets the
// claim of the earlier pod of that name back (no claim of that name was
// created in between: upstream reuses a kept claim's instance id on
// purpose). In these steps the library, as upstream, deletes a pod's
// claims with it (recreate, scale-in: docs/spec/scale-and-budgets.md 5.8),
// so no claim is carried over; a pod deleted by someone else under
// enablePVCReuse would be.
func TestPodNamesNotReusedOnKubeAPIServer(t *testing.T) {
	c := clustertest.Shared(t)
	var reused, claimReuse int
	var examples []string
	c.RunScenario(t, clustertest.Scenario{
		Name: "pod-names-200",
		CloneSet: clustertest.CloneSet(200, `{"type": "RollingUpdate", "rollingUpdate": {"podUpdatePolicy": "InPlaceIfPossible", "maxUnavailable": "50%"}}`, `,
    "volumeClaimTemplates": [{"metadata": {"name": "data"},
      "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]`),
		Changes: []clustertest.Change{clustertest.SetImage("web:2"), clustertest.SetEnv("MODE", "b"), clustertest.Scale(120), clustertest.Scale(200)},
		Check: func(t *testing.T, r *clustertest.Run) {
			events, err := r.Cluster.ControlPlane.AuditEvents()
			if err != nil {
				t.Fatal(err)
			}
			var created int
			created, reused, claimReuse, examples = countPodNameReuse(events, r.Namespace, "data")
			t.Logf("%d pod creations accepted", created)
			// 200 at first, 200 recreated, 80 scaled out again: a log that
			// shows fewer counted nothing.
			if created < 480 {
				t.Errorf("%d pod creations in the audit log, want at least 480", created)
			}
		},
	})
	cisummary.Print(t, fmt.Sprintf("pod names reused on kube-apiserver: %d (PVC reuse: %d)", reused, claimReuse))
	if reused != 0 {
		t.Errorf("%d pod names created again without their claim: %v", reused, examples)
	}
	if claimReuse != 0 {
		t.Errorf("%d pods got the claim of an earlier pod back: no step here keeps a claim", claimReuse)
	}
}

// countPodNameReuse walks the audit log's accepted creations of pods and
// claims in namespace: a pod name created again is a claim reuse when no
// claim <template>-<pod name> was created since the earlier pod of that
// name, else a reuse (with up to 5 examples).
func countPodNameReuse(events []controlplane.AuditEvent, namespace, claimTemplate string) (created, reused, claimReuse int, examples []string) {
	podAt := map[string]int{}   // pod name -> index of its latest creation
	claimAt := map[string]int{} // claim name -> index of its latest creation
	for i, e := range events {
		o := e.ObjectRef
		if o == nil || o.Namespace != namespace || e.Verb != "create" || o.Subresource != "" || e.Code() != 201 {
			continue
		}
		switch o.Resource {
		case "persistentvolumeclaims":
			claimAt[o.Name] = i
		case "pods":
			created++
			if prev, seen := podAt[o.Name]; seen {
				if at, ok := claimAt[claimTemplate+"-"+o.Name]; ok && at < prev {
					claimReuse++
				} else {
					reused++
					if len(examples) < 5 {
						examples = append(examples, o.Name)
					}
				}
			}
			podAt[o.Name] = i
		}
	}
	return created, reused, claimReuse, examples
}
