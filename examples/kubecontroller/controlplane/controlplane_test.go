package controlplane

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// The tests of this file share one control plane, started by the first test
// that needs it and stopped by TestMain.
var sharedPlane struct {
	once sync.Once
	cp   *ControlPlane
	err  error
}

const sharedNodes, sharedZones = 3, 3

func TestMain(m *testing.M) {
	if os.Getenv(hygieneChildEnv) != "" {
		hygieneChild() // never returns: the parent kills this process
	}
	code := m.Run()
	if cp := sharedPlane.cp; cp != nil {
		if code != 0 {
			fmt.Println(cp.LogTails(40))
		}
		start := time.Now()
		if err := cp.Stop(); err != nil {
			fmt.Println(err)
			code = 1
		}
		fmt.Printf("controlplane: shared control plane stopped in %s\n", time.Since(start).Round(time.Millisecond))
	}
	os.Exit(code)
}

// shared returns the shared control plane (nodes in three zones, the audit
// policy of pod writes), starting it on first use.
func shared(t *testing.T) *ControlPlane {
	t.Helper()
	sharedPlane.once.Do(func() {
		start := time.Now()
		sharedPlane.cp, sharedPlane.err = Start(context.Background(), Options{Nodes: sharedNodes, Zones: sharedZones, AuditPolicy: AuditPolicyWrites, ImageAliases: sharedAliases})
		if sharedPlane.err == nil {
			fmt.Printf("controlplane: shared control plane started in %s\n", time.Since(start).Round(time.Millisecond))
		}
	})
	if sharedPlane.err != nil {
		t.Fatal(sharedPlane.err)
	}
	return sharedPlane.cp
}

// newNamespace creates a namespace for t (with its default service
// account) and returns its name.
func newNamespace(t *testing.T, cp *ControlPlane) string {
	t.Helper()
	name, err := cp.NewNamespace(t.Context(), t.Name())
	if err != nil {
		t.Fatal(err)
	}
	return name
}

// sharedNamespace returns the shared control plane, its clientset and a new
// namespace for t.
func sharedNamespace(t *testing.T) (*ControlPlane, kubernetes.Interface, string) {
	t.Helper()
	cp := shared(t)
	return cp, cp.Clientset(), newNamespace(t, cp)
}

// testPod is a pod with one container of image.
func testPod(ns, name, image string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": "test"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: image}}},
	}
}

func createPod(t *testing.T, cs kubernetes.Interface, pod *corev1.Pod) *corev1.Pod {
	t.Helper()
	p, err := cs.CoreV1().Pods(pod.Namespace).Create(t.Context(), pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// waitPod polls the pod until ok holds (30 s at most) and returns it.
func waitPod(t *testing.T, cs kubernetes.Interface, ns, name, what string, ok func(*corev1.Pod) bool) *corev1.Pod {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		p, err := cs.CoreV1().Pods(ns).Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("pod %s/%s: %v", ns, name, err)
		}
		if ok(p) {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("pod %s/%s: not %s after 30s; status: %s", ns, name, what, describeStatus(p))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitPodGone polls until the pod does not exist (30 s at most).
func waitPodGone(t *testing.T, cs kubernetes.Interface, ns, name string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		p, err := cs.CoreV1().Pods(ns).Get(t.Context(), name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("pod %s/%s still exists after 30s (deletionTimestamp %v, finalizers %v)", ns, name, p.DeletionTimestamp, p.Finalizers)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func describeStatus(p *corev1.Pod) string {
	var b strings.Builder
	fmt.Fprintf(&b, "phase %s node %q", p.Status.Phase, p.Spec.NodeName)
	for _, c := range p.Status.Conditions {
		fmt.Fprintf(&b, " %s=%s", c.Type, c.Status)
	}
	for _, c := range p.Status.ContainerStatuses {
		fmt.Fprintf(&b, " [%s image %s imageID %s ready %v restarts %d resources %v]", c.Name, c.Image, c.ImageID, c.Ready, c.RestartCount, c.Resources)
	}
	return b.String()
}

func condition(p *corev1.Pod, typ corev1.PodConditionType) corev1.ConditionStatus {
	for _, c := range p.Status.Conditions {
		if c.Type == typ {
			return c.Status
		}
	}
	return ""
}

func running(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning }

func runningAndReady(p *corev1.Pod) bool {
	return running(p) && condition(p, corev1.PodReady) == corev1.ConditionTrue
}

// assertStable checks that the pod's resourceVersion does not change for d:
// no stage keeps firing on it.
func assertStable(t *testing.T, cs kubernetes.Interface, p *corev1.Pod, d time.Duration) {
	t.Helper()
	time.Sleep(d)
	now, err := cs.CoreV1().Pods(p.Namespace).Get(t.Context(), p.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if now.ResourceVersion != p.ResourceVersion {
		t.Errorf("pod %s/%s changed again without a change of its spec (resourceVersion %s -> %s): %s", p.Namespace, p.Name, p.ResourceVersion, now.ResourceVersion, describeStatus(now))
	}
}

func TestVersionIsPinned(t *testing.T) {
	cp := shared(t)
	tools, err := toolsModuleDir()
	if err != nil {
		t.Fatal(err)
	}
	want, err := requiredVersion(filepath.Join(tools, "go.mod"), kubernetesModule)
	if err != nil {
		t.Fatal(err)
	}
	if want != "v1.37.2" {
		t.Errorf("tools/go.mod requires %s %s; this test expects v1.37.2", kubernetesModule, want)
	}
	got := cp.Version()
	if got.GitVersion != want || got.Major != "1" || got.Minor != "37" {
		t.Errorf("/version = %+v, want gitVersion %s, major 1, minor 37", got, want)
	}
	// What a controller reads from discovery.
	info, err := cp.Clientset().Discovery().ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	if info.GitVersion != want {
		t.Errorf("discovery server version = %s, want %s", info.GitVersion, want)
	}
}

func TestPodScheduledRunningReady(t *testing.T) {
	cp, cs, ns := sharedNamespace(t)
	createPod(t, cs, testPod(ns, "web", "nginx:1.25"))
	p := waitPod(t, cs, ns, "web", "Running and Ready", runningAndReady)
	if !slices.Contains(cp.NodeNames(), p.Spec.NodeName) {
		t.Fatalf("pod scheduled on %q, not on a kwok node %v", p.Spec.NodeName, cp.NodeNames())
	}
	node, err := cs.CoreV1().Nodes().Get(t.Context(), p.Spec.NodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if node.Labels[LabelZone] == "" || node.Labels[LabelHostname] != node.Name {
		t.Errorf("node %s labels %v: want a zone and its hostname", node.Name, node.Labels)
	}
	if condition(p, corev1.ContainersReady) != corev1.ConditionTrue || condition(p, corev1.PodInitialized) != corev1.ConditionTrue {
		t.Errorf("conditions: %s", describeStatus(p))
	}
	if len(p.Status.ContainerStatuses) != 1 {
		t.Fatalf("container statuses: %s", describeStatus(p))
	}
	st := p.Status.ContainerStatuses[0]
	if st.Image != "nginx:1.25" || !strings.HasPrefix(st.ImageID, "nginx@sha256:") || !st.Ready || st.State.Running == nil || st.RestartCount != 0 {
		t.Errorf("container status %+v", st)
	}
	_, podNet, _ := net.ParseCIDR(PodCIDR)
	if ip := net.ParseIP(p.Status.PodIP); ip == nil || !podNet.Contains(ip) {
		t.Errorf("podIP %q not in %s", p.Status.PodIP, PodCIDR)
	}
	if p.Status.HostIP == "" || p.Status.HostIP != node.Status.Addresses[0].Address {
		t.Errorf("hostIP %q, node addresses %v", p.Status.HostIP, node.Status.Addresses)
	}
	assertStable(t, cs, p, 500*time.Millisecond)
}

// TestScheduledAcrossZones: pods spread by a topology constraint land in
// every zone, so the nodes' zone labels reach the scheduler.
func TestScheduledAcrossZones(t *testing.T) {
	_, cs, ns := sharedNamespace(t)
	for i := range sharedZones {
		p := testPod(ns, fmt.Sprintf("spread-%d", i), "nginx")
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: LabelZone, WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "test"}},
		}}
		createPod(t, cs, p)
		waitPod(t, cs, ns, p.Name, "Running and Ready", runningAndReady)
	}
	zones := map[string]bool{}
	pods, err := cs.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		node, err := cs.CoreV1().Nodes().Get(t.Context(), p.Spec.NodeName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		zones[node.Labels[LabelZone]] = true
	}
	if len(zones) != sharedZones {
		t.Errorf("pods in zones %v, want %d zones", zones, sharedZones)
	}
}

// TestBoundPodReadyInTensOfMs measures the time from the create of a pod
// already bound to a kwok node to the Ready it reports.
func TestBoundPodReadyInTensOfMs(t *testing.T) {
	cp, cs, ns := sharedNamespace(t)
	const n = 20
	var took []time.Duration
	for i := range n {
		p := testPod(ns, fmt.Sprintf("bound-%d", i), "nginx:1.25")
		p.Spec.NodeName = cp.NodeNames()[i%len(cp.NodeNames())]
		start := time.Now()
		createPod(t, cs, p)
		waitPod(t, cs, ns, p.Name, "Running and Ready", runningAndReady)
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	t.Logf("bound pod Running and Ready after (create included, polled every 10ms): min %s, median %s, max %s over %d pods",
		took[0].Round(time.Millisecond), took[n/2].Round(time.Millisecond), took[n-1].Round(time.Millisecond), n)
	if took[n/2] > time.Second {
		t.Errorf("median %s: a bound pod should be Ready in tens of milliseconds", took[n/2])
	}
}

func TestNeverReadyPod(t *testing.T) {
	_, cs, ns := sharedNamespace(t)
	pod := testPod(ns, "never", "nginx:1.25")
	pod.Labels[LabelNeverReady] = "true"
	createPod(t, cs, pod)
	p := waitPod(t, cs, ns, "never", "Running", func(p *corev1.Pod) bool {
		return running(p) && len(p.Status.ContainerStatuses) == 1
	})
	st := p.Status.ContainerStatuses[0]
	if condition(p, corev1.PodReady) != corev1.ConditionFalse || condition(p, corev1.ContainersReady) != corev1.ConditionFalse || st.Ready || st.State.Running == nil || st.Started == nil || !*st.Started {
		t.Fatalf("never-ready pod: %s", describeStatus(p))
	}
	assertStable(t, cs, p, time.Second)
	// Without the label it becomes ready.
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:null}}}`, LabelNeverReady)
	if _, err := cs.CoreV1().Pods(ns).Patch(t.Context(), "never", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPod(t, cs, ns, "never", "Ready once the label is gone", runningAndReady)
}

// setCondition writes a pod condition through the status subresource, as
// the CloneSet controller writes InPlaceUpdateReady.
func setCondition(t *testing.T, cs kubernetes.Interface, ns, name string, typ corev1.PodConditionType, status corev1.ConditionStatus) {
	t.Helper()
	patch := fmt.Sprintf(`{"status":{"conditions":[{"type":%q,"status":%q}]}}`, typ, status)
	if _, err := cs.CoreV1().Pods(ns).Patch(t.Context(), name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}, "status"); err != nil {
		t.Fatal(err)
	}
}

func TestReadinessGates(t *testing.T) {
	_, cs, ns := sharedNamespace(t)
	const gate corev1.PodConditionType = "InPlaceUpdateReady"
	pod := testPod(ns, "gated", "nginx:1.25")
	pod.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: gate}, {ConditionType: "example.com/other"}}
	createPod(t, cs, pod)
	p := waitPod(t, cs, ns, "gated", "Running with ready containers", func(p *corev1.Pod) bool {
		return running(p) && condition(p, corev1.ContainersReady) == corev1.ConditionTrue
	})
	if condition(p, corev1.PodReady) != corev1.ConditionFalse || condition(p, gate) != "" {
		t.Fatalf("no gate condition yet: want Ready False and no %s condition written by kwok: %s", gate, describeStatus(p))
	}
	setCondition(t, cs, ns, "gated", gate, corev1.ConditionTrue)
	time.Sleep(300 * time.Millisecond)
	if p := waitPod(t, cs, ns, "gated", "read", func(*corev1.Pod) bool { return true }); condition(p, corev1.PodReady) != corev1.ConditionFalse {
		t.Fatalf("one gate of two True: want Ready False: %s", describeStatus(p))
	}
	setCondition(t, cs, ns, "gated", "example.com/other", corev1.ConditionTrue)
	p = waitPod(t, cs, ns, "gated", "Ready with every gate True", runningAndReady)
	assertStable(t, cs, p, 500*time.Millisecond)
	setCondition(t, cs, ns, "gated", gate, corev1.ConditionFalse)
	waitPod(t, cs, ns, "gated", "not Ready again with a gate False", func(p *corev1.Pod) bool {
		return condition(p, corev1.PodReady) == corev1.ConditionFalse && condition(p, corev1.ContainersReady) == corev1.ConditionTrue
	})
}

func TestInPlaceImageUpdate(t *testing.T) {
	_, cs, ns := sharedNamespace(t)
	createPod(t, cs, testPod(ns, "img", "registry.example:5000/team/web"))
	before := waitPod(t, cs, ns, "img", "Running and Ready", runningAndReady)
	old := before.Status.ContainerStatuses[0]
	if old.Image != "registry.example:5000/team/web:latest" || !strings.HasPrefix(old.ImageID, "registry.example:5000/team/web@sha256:") {
		t.Fatalf("untagged image: status image %q imageID %q", old.Image, old.ImageID)
	}
	assertStable(t, cs, before, 300*time.Millisecond)
	patch := `{"spec":{"containers":[{"name":"main","image":"registry.example:5000/team/web:v2"}]}}`
	if _, err := cs.CoreV1().Pods(ns).Patch(t.Context(), "img", types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	p := waitPod(t, cs, ns, "img", "showing the new image", func(p *corev1.Pod) bool {
		return len(p.Status.ContainerStatuses) == 1 && p.Status.ContainerStatuses[0].Image == "registry.example:5000/team/web:v2"
	})
	st := p.Status.ContainerStatuses[0]
	if st.ImageID == old.ImageID || !strings.HasPrefix(st.ImageID, "registry.example:5000/team/web@sha256:") {
		t.Errorf("imageID %q after the update, %q before: want a new one of the same repository", st.ImageID, old.ImageID)
	}
	if st.RestartCount != 1 || st.LastTerminationState.Terminated == nil || st.ContainerID == old.ContainerID || !st.Ready {
		t.Errorf("want a restarted, ready container: %+v", st)
	}
	if p.Status.ObservedGeneration != p.Generation {
		t.Errorf("observedGeneration %d, generation %d", p.Status.ObservedGeneration, p.Generation)
	}
	if !runningAndReady(p) {
		t.Errorf("not Ready after the update: %s", describeStatus(p))
	}
	assertStable(t, cs, p, 500*time.Millisecond)
}

// sharedAliases are the shared control plane's image aliases: one tag of
// an image that names another.
var sharedAliases = map[string]string{"registry.example:5000/team/web:stable": "registry.example:5000/team/web:v3"}

// TestImageAliasesShareImageID: an in-place update to a tag that names the
// same image (Options.ImageAliases) restarts the container with the new
// image name and the same imageID, as a registry's two tags of one image
// do; a tag that is no alias gets an imageID of its own.
func TestImageAliasesShareImageID(t *testing.T) {
	_, cs, ns := sharedNamespace(t)
	createPod(t, cs, testPod(ns, "alias", "registry.example:5000/team/web:v3"))
	before := waitPod(t, cs, ns, "alias", "Running and Ready", runningAndReady)
	old := before.Status.ContainerStatuses[0]
	patch := `{"spec":{"containers":[{"name":"main","image":"registry.example:5000/team/web:stable"}]}}`
	if _, err := cs.CoreV1().Pods(ns).Patch(t.Context(), "alias", types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	p := waitPod(t, cs, ns, "alias", "showing the alias", func(p *corev1.Pod) bool {
		return len(p.Status.ContainerStatuses) == 1 && p.Status.ContainerStatuses[0].Image == "registry.example:5000/team/web:stable"
	})
	st := p.Status.ContainerStatuses[0]
	if st.ImageID != old.ImageID || st.RestartCount != 1 || st.ContainerID == old.ContainerID {
		t.Errorf("after the update to an alias: imageID %q (before %q), restarts %d, containerID %q (before %q): want the same imageID, a restarted container",
			st.ImageID, old.ImageID, st.RestartCount, st.ContainerID, old.ContainerID)
	}
}

func TestInPlaceResize(t *testing.T) {
	_, cs, ns := sharedNamespace(t)
	pod := testPod(ns, "resize", "nginx:1.25")
	pod.Spec.Containers[0].Resources = corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("200m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
	}
	pod.Spec.Containers[0].ResizePolicy = []corev1.ContainerResizePolicy{
		{ResourceName: corev1.ResourceCPU, RestartPolicy: corev1.NotRequired},
		{ResourceName: corev1.ResourceMemory, RestartPolicy: corev1.RestartContainer},
	}
	createPod(t, cs, pod)
	p := waitPod(t, cs, ns, "resize", "Running and Ready", runningAndReady)
	if r := p.Status.ContainerStatuses[0].Resources; r == nil || !r.Requests.Cpu().Equal(resource.MustParse("100m")) {
		t.Fatalf("status resources %v, want the spec's", r)
	}
	resize := func(cpu, memory string) *corev1.Pod {
		t.Helper()
		patch := fmt.Sprintf(`{"spec":{"containers":[{"name":"main","resources":{"requests":{"cpu":%q,"memory":%q},"limits":{"cpu":"400m","memory":"128Mi"}}}]}}`, cpu, memory)
		if _, err := cs.CoreV1().Pods(ns).Patch(t.Context(), "resize", types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}, "resize"); err != nil {
			t.Fatal(err)
		}
		return waitPod(t, cs, ns, "resize", "showing the new resources", func(p *corev1.Pod) bool {
			r := p.Status.ContainerStatuses[0].Resources
			return r != nil && r.Requests.Cpu().Equal(resource.MustParse(cpu)) && r.Requests.Memory().Equal(resource.MustParse(memory))
		})
	}
	// CPU only: NotRequired, no restart.
	p = resize("150m", "64Mi")
	st := p.Status.ContainerStatuses[0]
	if st.RestartCount != 0 || !st.AllocatedResources.Cpu().Equal(resource.MustParse("150m")) || !st.Resources.Limits.Cpu().Equal(resource.MustParse("400m")) {
		t.Errorf("after a CPU resize: %+v", st)
	}
	if p.Status.ObservedGeneration != p.Generation || !runningAndReady(p) {
		t.Errorf("after a CPU resize: observedGeneration %d generation %d; %s", p.Status.ObservedGeneration, p.Generation, describeStatus(p))
	}
	assertStable(t, cs, p, 300*time.Millisecond)
	// Memory: RestartContainer.
	p = resize("150m", "96Mi")
	if st := p.Status.ContainerStatuses[0]; st.RestartCount != 1 || st.Image != "nginx:1.25" {
		t.Errorf("after a memory resize with RestartContainer: %+v", st)
	}
	assertStable(t, cs, p, 300*time.Millisecond)
}

func TestGarbageCollection(t *testing.T) {
	_, cs, ns := sharedNamespace(t)
	owner, err := cs.CoreV1().ConfigMaps(ns).Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod := testPod(ns, "owned", "nginx")
	pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID}}
	createPod(t, cs, pod)
	waitPod(t, cs, ns, "owned", "Running and Ready", runningAndReady)
	start := time.Now()
	if err := cs.CoreV1().ConfigMaps(ns).Delete(t.Context(), "owner", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPodGone(t, cs, ns, "owned")
	t.Logf("owned pod collected %s after its owner's delete", time.Since(start).Round(time.Millisecond))
}

func TestGracefulDelete(t *testing.T) {
	_, cs, ns := sharedNamespace(t)
	createPod(t, cs, testPod(ns, "plain", "nginx"))
	pod := testPod(ns, "finalized", "nginx")
	pod.Finalizers = []string{"example.com/hold"}
	createPod(t, cs, pod)
	for _, name := range []string{"plain", "finalized"} {
		waitPod(t, cs, ns, name, "Running and Ready", runningAndReady)
		if err := cs.CoreV1().Pods(ns).Delete(t.Context(), name, metav1.DeleteOptions{}); err != nil { // default grace period: 30s
			t.Fatal(err)
		}
	}
	start := time.Now()
	waitPodGone(t, cs, ns, "plain")
	t.Logf("graceful delete completed in %s", time.Since(start).Round(time.Millisecond))
	p := waitPod(t, cs, ns, "finalized", "read", func(*corev1.Pod) bool { return true })
	if p.DeletionTimestamp == nil {
		t.Fatalf("finalized pod not being deleted")
	}
	assertStable(t, cs, p, 500*time.Millisecond)
	patch := `{"metadata":{"finalizers":null}}`
	if _, err := cs.CoreV1().Pods(ns).Patch(t.Context(), "finalized", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPodGone(t, cs, ns, "finalized")
}

func TestAuditLogRecordsPodWrites(t *testing.T) {
	cp, cs, ns := sharedNamespace(t)
	createPod(t, cs, testPod(ns, "audited", "nginx"))
	if _, err := cs.CoreV1().Pods(ns).Patch(t.Context(), "audited", types.MergePatchType, []byte(`{"metadata":{"labels":{"x":"y"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().Pods(ns).Delete(t.Context(), "audited", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []string{"create 201", "patch 200", "delete 200"}
	var got []string
	deadline := time.Now().Add(10 * time.Second)
	for {
		events, err := cp.AuditEvents()
		if err != nil {
			t.Fatal(err)
		}
		got = nil
		for _, e := range events {
			if e.ObjectRef != nil && e.ObjectRef.Namespace == ns && e.ObjectRef.Name == "audited" && e.ObjectRef.Subresource == "" && e.User.Username == AdminUser {
				got = append(got, fmt.Sprintf("%s %d", e.Verb, e.Code()))
			}
		}
		if slices.Equal(got, want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !slices.Equal(got, want) {
		t.Errorf("admin's writes of the pod in the audit log: %v, want %v", got, want)
	}
}

// TestRestartAPIServerAndEtcd stops and starts kube-apiserver, then etcd:
// the objects survive, and the other components carry on (a new pod is
// scheduled and becomes Ready afterwards).
func TestRestartAPIServerAndEtcd(t *testing.T) {
	cp, cs, ns := sharedNamespace(t)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kept"}, Data: map[string]string{"k": "v"}}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(t.Context(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kept := func(stage string) {
		t.Helper()
		got, err := cs.CoreV1().ConfigMaps(ns).Get(t.Context(), "kept", metav1.GetOptions{})
		if err != nil || got.Data["k"] != "v" {
			t.Fatalf("%s: configmap %v, %v", stage, got, err)
		}
	}
	timed := func(what string, f func() error) {
		t.Helper()
		start := time.Now()
		if err := f(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		t.Logf("%s in %s", what, time.Since(start).Round(time.Millisecond))
	}
	timed("kube-apiserver stopped", cp.StopAPIServer)
	if _, err := cs.CoreV1().ConfigMaps(ns).Get(t.Context(), "kept", metav1.GetOptions{}); err == nil {
		t.Fatal("a request succeeded with kube-apiserver stopped")
	}
	timed("kube-apiserver started again", func() error { return cp.StartAPIServer(t.Context()) })
	kept("after the kube-apiserver restart")
	timed("etcd stopped", cp.StopEtcd)
	timed("etcd started again", func() error { return cp.StartEtcd(t.Context()) })
	timed("kube-apiserver ready again on etcd", func() error { return cp.waitReady(t.Context(), APIServer) })
	kept("after the etcd restart")
	createPod(t, cs, testPod(ns, "after", "nginx"))
	waitPod(t, cs, ns, "after", "Running and Ready after the restarts", runningAndReady)
}
