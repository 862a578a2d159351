package kruisee2e

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller"
	"github.com/clonecore/cloneset/inplace"
	"github.com/clonecore/cloneset/model"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// hookedTestPod is a running pod with two containers: web (nginx, no hook)
// and cache (redis, a postStart hook sleep 10), both started at t0.
func hookedTestPod() *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "uid-1", Labels: map[string]string{"env": "foo"}},
		Spec: corev1.PodSpec{NodeName: "n", Containers: []corev1.Container{
			{Name: "web", Image: "nginx:1"},
			{Name: "cache", Image: "redis:6", Lifecycle: &corev1.Lifecycle{PostStart: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sleep", "10"}}}}},
		}},
	}
	for _, c := range p.Spec.Containers {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: ImageID(c.Image, nil), Ready: true, ContainerID: ContainerID(p, c.Name, 0),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(t0)}},
		})
	}
	return p
}

func statusOf(t *testing.T, st corev1.PodStatus, name string) corev1.ContainerStatus {
	t.Helper()
	for _, s := range st.ContainerStatuses {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no status for %s", name)
	return corev1.ContainerStatus{}
}

// TestKubeletHookDelaysReadiness: a container restarted on a new image is
// running at once and ready only after its postStart hook's sleep; one
// without a hook is ready at once.
func TestKubeletHookDelaysReadiness(t *testing.T) {
	p := hookedTestPod()
	p.Spec.Containers[0].Image, p.Spec.Containers[1].Image = "nginx:2", "redis:7"
	st, again := kubeletStatus(p, nil, noConfigMaps, t0.Add(time.Minute))
	web, cache := statusOf(t, st, "web"), statusOf(t, st, "cache")
	if !web.Ready || web.RestartCount != 1 || web.Image != "nginx:2" || web.LastTerminationState.Terminated == nil {
		t.Errorf("web: %+v", web)
	}
	if cache.Ready || cache.RestartCount != 1 || cache.State.Running == nil || !cache.State.Running.StartedAt.Time.Equal(t0.Add(time.Minute)) {
		t.Errorf("cache right after its restart: %+v", cache)
	}
	if again < 10*time.Second || again > 11*time.Second {
		t.Errorf("look again after %s, want the hook's 10 s", again)
	}
	if conditionIs(st.Conditions, corev1.PodReady, corev1.ConditionTrue) {
		t.Error("the pod is Ready while a hook runs")
	}
	p.Status = st
	st, again = kubeletStatus(p, nil, noConfigMaps, t0.Add(time.Minute+10*time.Second))
	if c := statusOf(t, st, "cache"); !c.Ready || c.RestartCount != 1 || again != 0 {
		t.Errorf("cache after its hook: %+v (again %s)", c, again)
	}
	if !conditionIs(st.Conditions, corev1.PodReady, corev1.ConditionTrue) {
		t.Error("the pod is not Ready after the hook")
	}
}

// TestKubeletCrashLoop: busybox without a command exits at once: waiting in
// CrashLoopBackOff, lastState terminated, not ready; with a command it runs.
func TestKubeletCrashLoop(t *testing.T) {
	p := hookedTestPod()
	p.Spec.Containers[1].Image = "registry.k8s.io/e2e-test-images/busybox:1.36.1-1"
	st, _ := kubeletStatus(p, nil, noConfigMaps, t0.Add(time.Minute))
	c := statusOf(t, st, "cache")
	if c.State.Waiting == nil || c.State.Waiting.Reason != "CrashLoopBackOff" || c.LastTerminationState.Terminated == nil || c.Ready {
		t.Errorf("busybox without a command: %+v", c)
	}
	p.Spec.Containers[1].Command = []string{"sleep", "999"}
	st, _ = kubeletStatus(p, nil, noConfigMaps, t0.Add(time.Minute))
	if c := statusOf(t, st, "cache"); c.State.Running == nil {
		t.Errorf("busybox with a command: %+v", c)
	}
}

// TestKubeletKeepsASettledPod: a pod whose status is what the kubelet
// reports is left as it is (the stand-in writes nothing).
func TestKubeletKeepsASettledPod(t *testing.T) {
	p := hookedTestPod()
	st, _ := kubeletStatus(p, nil, noConfigMaps, t0.Add(time.Hour))
	p.Status = st
	again, _ := kubeletStatus(p, nil, noConfigMaps, t0.Add(2*time.Hour))
	if a, b := mustJSON(t, st), mustJSON(t, again); a != b {
		t.Errorf("a settled pod changed:\n%s\n%s", a, b)
	}
}

// TestImageIDAliases: an alias reports the imageID of the image it names.
func TestImageIDAliases(t *testing.T) {
	aliases := map[string]string{"nginx:mainline": "nginx:alpine"}
	if ImageID("nginx:mainline", aliases) != ImageID("nginx:alpine", nil) || ImageID("nginx:1", nil) == ImageID("nginx:2", nil) {
		t.Error("imageIDs do not follow the aliases")
	}
	if got := ImageID("nginx@sha256:ab", nil); got != "nginx@sha256:ab" {
		t.Errorf("a digest's imageID: %s", got)
	}
	if RuntimeImage("nginx") != "nginx:latest" || RuntimeImage("host:5000/nginx") != "host:5000/nginx:latest" || RuntimeImage("nginx:1") != "nginx:1" {
		t.Error("RuntimeImage")
	}
}

// TestNodeAgentRestartsOnEnvChange: the agent reports every container's
// containerID; while InPlaceUpdateReady is False, a container whose env
// from a label changed (and whose image is the spec's) is restarted once,
// and the annotation then names its new containerID.
func TestNodeAgentRestartsOnEnvChange(t *testing.T) {
	p := hookedTestPod()
	p.Spec.Containers[1].Env = []corev1.EnvVar{{Name: "E", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels['env']"}}}}
	a := &nodeAgent{started: map[string]uint64{}}
	res := a.sync(p, t0)
	if res.status != nil || !strings.Contains(res.annotation, ContainerID(p, "cache", 0)) || !strings.Contains(res.annotation, ContainerID(p, "web", 0)) {
		t.Fatalf("first look: %+v", res)
	}
	p.Annotations = map[string]string{runtimeContainersMeta: res.annotation}
	p.Labels["env"] = "bar"
	if res := a.sync(p, t0); res.status != nil || res.annotation != "" {
		t.Errorf("no in-place update under way, yet: %+v", res)
	}
	p.Status.Conditions = []corev1.PodCondition{{Type: inPlaceUpdateReady, Status: corev1.ConditionFalse}}
	res = a.sync(p, t0.Add(time.Second))
	if res.status == nil {
		t.Fatal("the container was not restarted")
	}
	c := statusOf(t, *res.status, "cache")
	if c.RestartCount != 1 || c.ContainerID != ContainerID(p, "cache", 1) || c.Ready || c.LastTerminationState.Terminated == nil {
		t.Errorf("restarted container: %+v", c)
	}
	if w := statusOf(t, *res.status, "web"); w.RestartCount != 0 {
		t.Errorf("web has no env from metadata, yet restarted: %+v", w)
	}
	if !strings.Contains(res.annotation, c.ContainerID) {
		t.Errorf("the annotation does not name the new container: %s", res.annotation)
	}
	var meta struct {
		Containers []containerMeta `json:"containers"`
	}
	if err := json.Unmarshal([]byte(res.annotation), &meta); err != nil || len(meta.Containers) != 2 || meta.Containers[1].Hashes.ExtractedEnvFromMetadataHash == 0 {
		t.Errorf("annotation %s: %v", res.annotation, err)
	}
	// The controller's completion check (kruise's) compares the agent's hashes
	// with those of the pod's metadata as it is: not completed before the
	// restart is reported in the status, completed after.
	p.Annotations[model.AnnotationInPlaceUpdateState] = `{"revision":"r","updateEnvFromMetadata":true}`
	if done, err := inplace.Completed(kubecontroller.PodFromObject(p), model.DefaultFeatureGates()); done || err != nil {
		t.Errorf("completed before the restart: %v %v", done, err)
	}
	p.Status = *res.status
	p.Annotations[runtimeContainersMeta] = res.annotation
	if done, err := inplace.Completed(kubecontroller.PodFromObject(p), model.DefaultFeatureGates()); !done || err != nil {
		t.Errorf("not completed after the restart (the agent's hashes are not the controller's): %v %v, annotation %s", done, err, res.annotation)
	}
	if res := a.sync(p, t0.Add(2*time.Second)); res.status != nil || res.annotation != "" {
		t.Errorf("restarted twice: %+v", res)
	}
}

// TestNodeAgentLeavesImageChangesToTheKubelet: a container whose image
// changes too is the kubelet's restart: the agent does not restart it.
func TestNodeAgentLeavesImageChangesToTheKubelet(t *testing.T) {
	p := hookedTestPod()
	p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "E", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.annotations['cfg']"}}}}
	a := &nodeAgent{started: map[string]uint64{}}
	a.sync(p, t0)
	p.Annotations = map[string]string{"cfg": "new"}
	p.Spec.Containers[0].Image = "nginx:2"
	p.Status.Conditions = []corev1.PodCondition{{Type: inPlaceUpdateReady, Status: corev1.ConditionFalse}}
	if res := a.sync(p, t0); res.status != nil {
		t.Errorf("restarted a container whose image changes: %+v", res.status)
	}
}

// TestReadReport: the CloneSet specs of a ginkgo report (a dry run of the
// suite's 337 specs, 43 of them CloneSet's), named by API version.
func TestReadReport(t *testing.T) {
	f, err := os.Open("testdata/dry-run-report.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	specs, err := ReadReport(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != WantSpecs {
		t.Fatalf("%d CloneSet specs, want %d", len(specs), WantSpecs)
	}
	alpha := 0
	for _, s := range specs {
		if strings.HasPrefix(s.Name, "[v1alpha1] CloneSet ") {
			alpha++
		} else if !strings.HasPrefix(s.Name, "[v1beta1] CloneSet ") {
			t.Errorf("spec name %q", s.Name)
		}
	}
	if alpha != 21 {
		t.Errorf("%d v1alpha1 specs, want 21", alpha)
	}
	specs[0].State, specs[1].State, specs[2].State = "failed", "timedout", "skipped"
	sum := Summarize(specs)
	if got, want := sum.Line(), "kruise e2e CloneSet specs (v1.9.0): 40 passed, 2 failed, 1 skipped of 43"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
	if len(sum.Failures) != 2 || sum.Failures[1].Name != specs[1].Name {
		t.Errorf("failures %+v", sum.Failures)
	}
	if _, err := ReadReport(strings.NewReader(`[{"SpecReports": []}]`)); err == nil {
		t.Error("a report without CloneSet specs was accepted")
	}
}

// TestReadReportRetries: a spec that passed on its second attempt counts
// as passed, is named in the summary with its first failure; one that
// failed every attempt is failed.
func TestReadReportRetries(t *testing.T) {
	spec := func(text, state string, attempts int, earlier string) map[string]any {
		rep := map[string]any{
			"ContainerHierarchyTexts": []string{"CloneSet", "CloneSet Scaling"}, "ContainerHierarchyLabels": [][]string{{"CloneSet"}, {"workload"}},
			"LeafNodeType": "It", "LeafNodeText": text, "LeafNodeLocation": map[string]any{"FileName": "/m/kruise@v1.9.0/test/e2e/apps/v1alpha1/cloneset.go"},
			"State": state, "NumAttempts": attempts, "MaxFlakeAttempts": FlakeAttempts,
		}
		if earlier != "" {
			rep["AdditionalFailures"] = []any{map[string]any{"State": "failed", "Failure": map[string]any{
				"Message": "Failure recorded during attempt 1:\n" + earlier, "Location": map[string]any{"FileName": "/m/kruise@v1.9.0/test/e2e/apps/v1alpha1/cloneset.go", "LineNumber": 650}}}}
		}
		if state == "failed" {
			rep["Failure"] = map[string]any{"Message": "still wrong", "Location": map[string]any{"FileName": "/m/kruise@v1.9.0/test/e2e/apps/v1alpha1/cloneset.go", "LineNumber": 700}}
		}
		return rep
	}
	report := mustJSON(t, []any{map[string]any{"SpecReports": []any{
		spec("at once", "passed", 1, ""),
		spec("on a retry", "passed", 2, "Expected CloneSetAvailable to equal CloneSetUpdated"),
		spec("never", "failed", 2, "wrong"),
	}}})
	specs, err := ReadReport(strings.NewReader(report))
	if err != nil {
		t.Fatal(err)
	}
	sum := Summarize(specs)
	if got, want := sum.Line(), "kruise e2e CloneSet specs (v1.9.0): 2 passed (1 on a retry), 1 failed, 0 skipped of 43"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
	if len(sum.Retried) != 1 || sum.Retried[0].Name != "[v1alpha1] CloneSet CloneSet Scaling on a retry" || sum.Retried[0].Attempts != 2 {
		t.Fatalf("retried %+v", sum.Retried)
	}
	if want := []string{"Failure recorded during attempt 1:\nExpected CloneSetAvailable to equal CloneSetUpdated (test/e2e/apps/v1alpha1/cloneset.go:650)"}; !slices.Equal(sum.Retried[0].EarlierFailures, want) {
		t.Errorf("earlier failures %q, want %q", sum.Retried[0].EarlierFailures, want)
	}
	if len(sum.Failures) != 1 || sum.Failures[0].Failure != "still wrong (test/e2e/apps/v1alpha1/cloneset.go:700)" {
		t.Errorf("failures %+v", sum.Failures)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// noConfigMaps is a cluster without config maps.
func noConfigMaps(string, string) (map[string]string, bool) { return nil, false }

// TestKubeletWaitsForLaunchBarrier: containers whose launch barrier key is
// missing wait (CreateContainerConfigError, not ready, the pod Pending
// while none has started) and start once the key is there: redis (p_10)
// first, nginx (p_0) when its key follows, as the launch priority
// reconciler writes them.
func TestKubeletWaitsForLaunchBarrier(t *testing.T) {
	barrier := func(key string) []corev1.EnvVar {
		return []corev1.EnvVar{{Name: "KRUISE_CONTAINER_BARRIER", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: "p-barrier"}, Key: key}}}}
	}
	p := hookedTestPod()
	p.Status = corev1.PodStatus{}
	p.Spec.Containers[0].Env, p.Spec.Containers[1].Env = barrier("p_0"), barrier("p_10")
	if !customPod(p) {
		t.Fatal("a pod with launch barriers is not the custom kubelet's")
	}
	data := map[string]map[string]string{}
	configMaps := func(ns, name string) (map[string]string, bool) {
		d, ok := data[ns+"/"+name]
		return d, ok
	}
	st, _ := kubeletStatus(p, nil, configMaps, t0)
	web := statusOf(t, st, "web")
	if web.State.Waiting == nil || web.State.Waiting.Reason != "CreateContainerConfigError" || web.State.Waiting.Message != `configmap "p-barrier" not found` || web.Ready || st.Phase != corev1.PodPending {
		t.Errorf("no config map: web %+v, phase %s", web, st.Phase)
	}
	data["ns/p-barrier"] = map[string]string{}
	p.Status = st
	st, _ = kubeletStatus(p, nil, configMaps, t0.Add(time.Second))
	if w := statusOf(t, st, "web").State.Waiting; w == nil || w.Message != "couldn't find key p_0 in ConfigMap ns/p-barrier" {
		t.Errorf("no key: web waiting %+v", w)
	}
	data["ns/p-barrier"]["p_10"] = "true"
	p.Status = st
	st, _ = kubeletStatus(p, nil, configMaps, t0.Add(2*time.Second))
	web, cache := statusOf(t, st, "web"), statusOf(t, st, "cache")
	if web.State.Waiting == nil || cache.State.Running == nil || cache.RestartCount != 0 || cache.ContainerID == "" || st.Phase != corev1.PodRunning {
		t.Errorf("p_10: web %+v, cache %+v, phase %s", web, cache, st.Phase)
	}
	data["ns/p-barrier"]["p_0"] = "true"
	p.Status = st
	st, _ = kubeletStatus(p, nil, configMaps, t0.Add(13*time.Second))
	web, cache = statusOf(t, st, "web"), statusOf(t, st, "cache")
	if web.State.Running == nil || !web.Ready || web.RestartCount != 0 || web.LastTerminationState.Terminated != nil || !cache.Ready {
		t.Errorf("p_0: web %+v, cache %+v", web, cache)
	}
}

// TestKubeletRelist: a pod's next sync waits for the first relist after
// its last sync ended, and a sync that starts a container with a postStart
// hook ends when the hook returns: the ready report of a container whose
// hook `sleep 10` started at T comes at a relist after T+10, and a change
// upon it at the relist after that, more than 11 s after T.
func TestKubeletRelist(t *testing.T) {
	if !relistAfter(time.Time{}).IsZero() {
		t.Error("a pod never synced waits")
	}
	start := t0.Add(300 * time.Millisecond)
	if got := relistAfter(start); !got.Equal(t0.Add(time.Second)) {
		t.Errorf("relistAfter(%s) = %s", start, got)
	}
	if got := relistAfter(t0); !got.Equal(t0.Add(time.Second)) {
		t.Errorf("relistAfter on a relist = %s, want the next one", got)
	}
	p := hookedTestPod()
	p.Spec.Containers[1].Image = "redis:7" // cache restarts, hook sleep 10
	st, _ := kubeletStatus(p, nil, noConfigMaps, start)
	end := syncEnd(p, st, start)
	if !end.Equal(start.Add(10 * time.Second)) {
		t.Errorf("the sync that started cache ends at %s, want its hook's end %s", end, start.Add(10*time.Second))
	}
	ready := relistAfter(end)
	killed := relistAfter(ready)
	if killed.Sub(start) <= 11*time.Second || killed.Truncate(time.Second).Sub(start.Truncate(time.Second)) <= 10*time.Second {
		t.Errorf("started %s, ready reported %s, next change %s: want more than 10 whole seconds", start, ready, killed)
	}
	if e := syncEnd(p, st, start.Add(time.Second)); !e.Equal(start.Add(time.Second)) {
		t.Errorf("a later sync that starts nothing ends at %s", e)
	}
}
