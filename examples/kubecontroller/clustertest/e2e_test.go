package clustertest_test

import (
	"os"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/clonecore/cloneset/examples/kubecontroller/clustertest"
	"github.com/clonecore/cloneset/examples/kubecontroller/controlplane"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/sim"
)

// One control plane for the package's tests, each scenario in a namespace
// of its own.
func TestMain(m *testing.M) {
	os.Exit(clustertest.Main(m, clustertest.DefaultOptions()))
}

// neverReadyImage is the image of the never-ready scenario's update: the
// simulator's NeverReady fault picks its containers, as the control plane's
// kubelet stage picks the pods labelled never-ready (the same update sets
// both).
const neverReadyImage = "web:never"

// scenarios are the rollouts of TestEndToEnd (the same CloneSets and
// changes), an in-place vertical resize, an in-place image update and a
// rollout to pods that never become ready.
var scenarios = []clustertest.Scenario{
	{
		Name: "scale-out-vct",
		CloneSet: clustertest.CloneSet(3, clustertest.InPlace, `,
    "volumeClaimTemplates": [{"metadata": {"name": "data"},
      "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]`),
	},
	{
		Name:     "inplace-partition",
		CloneSet: clustertest.CloneSet(4, clustertest.InPlace, ""),
		Changes:  []clustertest.Change{clustertest.Combine(clustertest.SetImage("web:2"), clustertest.SetPartition(2)), clustertest.SetPartition(0)},
		InPlace:  true,
	},
	{
		Name:     "recreate-maxsurge",
		CloneSet: clustertest.CloneSet(3, clustertest.RecreateSurge, ""),
		Changes:  []clustertest.Change{clustertest.SetImage("web:2")},
	},
	{
		Name:     "scale-in-predelete",
		CloneSet: clustertest.CloneSet(4, clustertest.InPlace, `, "lifecycle": {"preDelete": {"finalizersHandler": ["example.com/hook"]}}`),
		Changes:  []clustertest.Change{clustertest.ScaleInDeletingFirst(2)},
	},
	{
		Name:     "partition-rollback",
		CloneSet: clustertest.CloneSet(4, clustertest.InPlace, ""),
		Gates:    []string{model.GateCloneSetPartitionRollback},
		Changes:  []clustertest.Change{clustertest.Combine(clustertest.SetImage("web:2"), clustertest.SetPartition(1)), clustertest.SetPartition(3)},
		InPlace:  true,
	},
	{
		Name: "inplace-vertical-resize",
		CloneSet: `{
  "apiVersion": "apps.kruise.io/v1beta1", "kind": "CloneSet",
  "metadata": {"name": "web"},
  "spec": {
    "replicas": 3,
    "selector": {"matchLabels": {"app": "web"}},
    "template": {"metadata": {"labels": {"app": "web"}},
      "spec": {"containers": [{"name": "main", "image": "web:1",
        "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"cpu": "200m", "memory": "256Mi"}}}]}},
    "updateStrategy": ` + clustertest.InPlace + `
  }
}`,
		Gates:   []string{model.GateInPlaceWorkloadVerticalScaling},
		Changes: []clustertest.Change{clustertest.SetResources("200m", "256Mi", "400m", "512Mi")},
		InPlace: true,
		Check:   checkResized,
	},
	{
		Name:     "inplace-image",
		CloneSet: clustertest.CloneSet(4, `{"type": "RollingUpdate", "rollingUpdate": {"podUpdatePolicy": "InPlaceIfPossible", "maxUnavailable": 2}}`, ""),
		Changes:  []clustertest.Change{clustertest.SetImage("web:2")},
		InPlace:  true,
		Check:    checkRestartedOnce("web:2"),
	},
	{
		Name:     "never-ready",
		CloneSet: clustertest.CloneSet(4, clustertest.InPlace, ""),
		Changes: []clustertest.Change{clustertest.Combine(clustertest.SetImage(neverReadyImage),
			clustertest.SetTemplateLabel(controlplane.LabelNeverReady, "true"))},
		Faults:  sim.Faults{NeverReady: sim.Selection{Images: []string{neverReadyImage}}},
		Outcome: sim.Stalled,
		InPlace: true,
	},
}

// TestOnKubeAPIServer runs each scenario with the Reconciler in a manager
// on the shared control plane and compares its end with the simulator's.
func TestOnKubeAPIServer(t *testing.T) {
	c := clustertest.Shared(t)
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			sc.VerifyTracker = true
			c.RunScenario(t, sc)
		})
	}
}

// checkResized checks the vertical resize: each pod got its new resources
// through pods/resize (the audit log: one accepted resize patch for each
// pod), the kubelet stage reports them, and no container restarted.
func checkResized(t *testing.T, r *clustertest.Run) {
	want := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("200m"), corev1.ResourceMemory: resource.MustParse("256Mi")}
	pods := r.Pods()
	for _, p := range pods {
		c, s := p.Spec.Containers[0], p.Status.ContainerStatuses[0]
		if !equalResources(c.Resources.Requests, want) || s.Resources == nil || !equalResources(s.Resources.Requests, want) || s.RestartCount != 0 {
			t.Errorf("pod %s: requests %v, reported %v, restarts %d; want %v reported, no restart", p.Name, c.Resources.Requests, s.Resources, s.RestartCount, want)
		}
	}
	events, err := r.Cluster.ControlPlane.AuditEvents()
	if err != nil {
		t.Fatal(err)
	}
	resized := map[string]int{}
	for _, e := range events {
		if o := e.ObjectRef; o != nil && o.Namespace == r.Namespace && o.Resource == "pods" && o.Subresource == "resize" && e.Code() == 200 {
			resized[o.Name]++
		}
	}
	if len(resized) != len(pods) {
		t.Errorf("pods/resize accepted for %d pods (%v), want each of the %d pods", len(resized), resized, len(pods))
	}
	for name, n := range resized {
		if n != 1 {
			t.Errorf("pod %s: %d resize patches accepted, want one", name, n)
		}
	}
	t.Logf("pods/resize requests accepted: %v", resized)
}

func equalResources(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for k, q := range a {
		if w, ok := b[k]; !ok || q.Cmp(w) != 0 {
			return false
		}
	}
	return true
}

// checkRestartedOnce checks an in-place image update: every pod runs image
// (as kwok's kubelet reports it) after exactly one container restart.
func checkRestartedOnce(image string) func(*testing.T, *clustertest.Run) {
	return func(t *testing.T, r *clustertest.Run) {
		for _, p := range r.Pods() {
			s := p.Status.ContainerStatuses[0]
			if s.Image != image || s.RestartCount != 1 {
				t.Errorf("pod %s: runs %s after %d restarts, want %s after 1", p.Name, s.Image, s.RestartCount, image)
			}
		}
	}
}
