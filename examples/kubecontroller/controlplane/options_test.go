package controlplane

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestUsersAndRBAC: RBAC is on (a user outside system:masters with no
// binding is refused), and the audit log names the user of each write,
// the components' included.
func TestUsersAndRBAC(t *testing.T) {
	cp, cs, ns := sharedNamespace(t)
	nobody, err := cp.UserConfig("nobody")
	if err != nil {
		t.Fatal(err)
	}
	_, err = kubernetes.NewForConfigOrDie(nobody).CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{})
	if !apierrors.IsForbidden(err) {
		t.Errorf("a user with no role lists pods: %v, want Forbidden", err)
	}
	ctrlConfig, err := cp.UserConfig("test-controller", MastersGroup)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(ctrlConfig, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Create(t.Context(), testPod(ns, "by-controller", "nginx")); err != nil {
		t.Fatal(err)
	}
	waitPod(t, cs, ns, "by-controller", "Running and Ready", runningAndReady)
	want := []string{"create by test-controller", "create binding by " + SchedulerUser, "patch status by " + KwokUser}
	var got []string
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Equal(got, want) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		events, err := cp.AuditEvents()
		if err != nil {
			t.Fatal(err)
		}
		got = nil
		for _, e := range events {
			if e.ObjectRef != nil && e.ObjectRef.Namespace == ns && e.ObjectRef.Name == "by-controller" && e.Verb != "update" {
				got = append(got, strings.Join(strings.Fields(e.Verb+" "+e.ObjectRef.Subresource+" by "+e.User.Username), " "))
			}
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("audit log of the pod: %q, want %q", got, want)
	}
}

// TestControllerRuntimeClient: Client with the default scheme reads what
// the control plane made.
func TestControllerRuntimeClient(t *testing.T) {
	cp := shared(t)
	c, err := cp.Client(nil)
	if err != nil {
		t.Fatal(err)
	}
	var nodes corev1.NodeList
	if err := c.List(t.Context(), &nodes, client.HasLabels{LabelZone}); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range nodes.Items {
		names = append(names, n.Name)
	}
	if !slices.Equal(names, cp.NodeNames()) {
		t.Errorf("nodes with a zone %v, want %v", names, cp.NodeNames())
	}
}

// TestAPIServerOnly: the components left out do not run (no default
// service account, so pods are refused), and extra API server flags reach
// its command line.
func TestAPIServerOnly(t *testing.T) {
	start := time.Now()
	cp := StartForTest(t, Options{
		WithoutScheduler: true, WithoutControllerManager: true, WithoutKwok: true,
		APIServerFlags: []string{"--max-mutating-requests-inflight=3"},
	})
	t.Logf("etcd and kube-apiserver alone started in %s", time.Since(start).Round(time.Millisecond))
	for _, c := range []Component{Scheduler, ControllerManager, Kwok} {
		if cp.Process(c) != nil {
			t.Errorf("%s runs", c)
		}
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", cp.Process(APIServer).Pid()))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cmdline), "--max-mutating-requests-inflight=3") {
		t.Errorf("kube-apiserver command line lacks the extra flag: %s", cmdline)
	}
	_, err = cp.Clientset().CoreV1().Pods("default").Create(t.Context(), testPod("default", "p", "nginx"), metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), "serviceaccount") {
		t.Errorf("pod create without kube-controller-manager: %v, want a refusal for the missing service account", err)
	}
	if err := cp.StartComponent(t.Context(), Scheduler); err == nil {
		t.Error("StartComponent started a component left out")
	}
}

// customStage plays the kubelet of the pods labelled LabelCustomKubelet:
// they fail at once.
const customStage = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: test-pod-fail
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchLabels:
      controlplane.cloneset.dev/custom-kubelet: "true"
    matchExpressions:
    - jq:
        key: '.status.phase'
        operator: In
        values: ["Pending"]
  steps:
  - patch:
      subresource: status
      root: status
      template: |
        phase: Failed
        reason: TestFailure
`

// TestExtraStage: a stage of the test's own plays the kubelet of the pods
// labelled LabelCustomKubelet, and the built-in stage leaves them alone.
func TestExtraStage(t *testing.T) {
	cp := StartForTest(t, Options{Nodes: 1, Stages: []string{customStage}})
	cs := cp.Clientset()
	pod := testPod("default", "custom", "nginx")
	pod.Labels[LabelCustomKubelet] = "true"
	createPod(t, cs, pod)
	p := waitPod(t, cs, "default", "custom", "Failed", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodFailed })
	if p.Status.Reason != "TestFailure" || len(p.Status.ContainerStatuses) != 0 {
		t.Errorf("custom pod: reason %q, %s", p.Status.Reason, describeStatus(p))
	}
	assertStable(t, cs, p, 500*time.Millisecond)
	createPod(t, cs, testPod("default", "plain", "nginx"))
	waitPod(t, cs, "default", "plain", "Running and Ready", runningAndReady)
}

// TestImageAliasesOption: the aliases fill the kubelet stage's table (in
// key order, as template string literals) and malformed ones are refused
// before anything starts.
func TestImageAliasesOption(t *testing.T) {
	config := kwokConfig(nil, map[string]string{"web:b": "web:a", "api:2": "api@sha256:0123"})
	want := `{{- $aliases := dict "api:2" "api@sha256:0123" "web:b" "web:a" }}`
	if !strings.Contains(config, want) || strings.Contains(config, aliasesLine) {
		t.Errorf("the kubelet stage lacks %s", want)
	}
	if plain := kwokConfig(nil, nil); !strings.Contains(plain, aliasesLine) {
		t.Errorf("without aliases the stage should keep %s", aliasesLine)
	}
	for _, bad := range []map[string]string{
		{"web": "web:a"},     // no tag: the runtime reports web:latest
		{"web:b": ""},        // empty
		{"web:b": `web:"a"`}, // a quote
		{"web:b c": "web:a"}, // a space
	} {
		if _, err := Start(t.Context(), Options{ImageAliases: bad, BinDir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "ImageAliases") {
			t.Errorf("aliases %q: err %v, want one naming Options.ImageAliases", bad, err)
		}
	}
}
