package inplace

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
	"github.com/google/go-cmp/cmp"
)

// gracePod is the pod of update-and-ordering Example 9 right after the in-place
// update issued at start with the given grace: revision label web-2, state
// Updating, InPlaceUpdateReady False, the state and grace annotations, image not
// yet changed.
func gracePod(start string, grace int) *model.Pod {
	return &model.Pod{
		Name: "web-a",
		Labels: map[string]string{
			model.LabelRevisionHash:    "web-2",
			model.LabelPodTemplateHash: "2",
			model.LabelLifecycleState:  model.StateUpdating,
		},
		Annotations: map[string]string{
			model.AnnotationInPlaceUpdateState: `{"revision":"web-2","updateTimestamp":"` + start + `","lastContainerStatuses":null,"updateImages":true}`,
			model.AnnotationInPlaceUpdateGrace: `{"revision":"web-2","containerImages":{"main":"nginx:2"},"graceSeconds":` + itoa(grace) + `}`,
		},
		Spec: model.PodSpec{
			Containers:     []model.Container{{Name: "main", Image: "nginx:1"}},
			ReadinessGates: []string{model.ConditionInPlaceUpdateReady},
		},
		Status: model.PodStatus{
			Phase:             model.PodRunning,
			Conditions:        []model.PodCondition{{Type: model.ConditionInPlaceUpdateReady, Status: "False", Reason: "StartInPlaceUpdate"}},
			ContainerStatuses: []model.ContainerStatus{{Name: "main", Image: "nginx:1", ImageID: "sha-1", ContainerID: "c1"}},
		},
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func mustRefresh(t *testing.T, p *model.Pod, gates model.FeatureGates, now time.Time) ([]model.Action, time.Duration) {
	t.Helper()
	acts, d, err := Refresh(p, gates, now)
	if err != nil {
		t.Fatalf("Refresh: %v", err)
	}
	return acts, d
}

// TestGraceTimelineExample9 is update-and-ordering Example 9 (gracePeriodSeconds 10,
// image change at 12:00:00).
func TestGraceTimelineExample9(t *testing.T) {
	gates := model.DefaultFeatureGates()
	p := gracePod("2026-01-01T12:00:00Z", 10)

	// 12:00:04: 4 s elapsed < 10 → requeue after 6 s, nothing written; not completed.
	acts, d := mustRefresh(t, p, gates, ts("2026-01-01T12:00:04Z"))
	if len(acts) != 0 || d != 6*time.Second {
		t.Errorf("12:00:04: actions %v, requeue %v; want none, 6s", acts, d)
	}
	if done, err := Completed(p, gates); done || err != nil {
		t.Errorf("12:00:04: Completed = %v, %v; want false", done, err)
	}
	if left, in, err := GraceRemaining(p, ts("2026-01-01T12:00:04Z")); !in || left != 6*time.Second || err != nil {
		t.Errorf("GraceRemaining = %v %v %v", left, in, err)
	}
	// 12:00:04.3: 5.7 s rounded up to 6 s.
	if _, d := mustRefresh(t, p, gates, ts("2026-01-01T12:00:04.3Z")); d != 6*time.Second {
		t.Errorf("12:00:04.3: requeue %v, want 6s", d)
	}
	// A newer template revision changes nothing: the pod's label still equals the
	// grace revision (Refresh does not even look at the update revision).

	// 12:00:10: the image is applied and the grace annotation dropped.
	acts, d = mustRefresh(t, p, gates, ts("2026-01-01T12:00:10Z"))
	if d != 0 || len(acts) != 1 {
		t.Fatalf("12:00:10: actions %v, requeue %v; want one PatchPod", acts, d)
	}
	a := acts[0]
	wantState := `{"revision":"web-2","updateTimestamp":"2026-01-01T12:00:00Z","lastContainerStatuses":{"main":{"imageID":"sha-1"}},"updateImages":true,"containerBatchesRecord":[{"timestamp":"2026-01-01T12:00:10Z","containers":["main"]}]}`
	want := model.Action{
		Type:              model.ActionPatchPod,
		Pod:               "web-a",
		SetAnnotations:    map[string]string{model.AnnotationInPlaceUpdateState: wantState},
		RemoveAnnotations: []string{model.AnnotationInPlaceUpdateGrace},
		SetImages:         map[string]string{"main": "nginx:2"},
		Reason:            "in-place grace period over (10s): apply the pending update to revision web-2: set image main=nginx:2",
	}
	if diff := cmp.Diff(want, a); diff != "" {
		t.Errorf("12:00:10 PatchPod (-want +got):\n%s", diff)
	}

	// After the adapter applied it (grace removed, state rewritten, spec image
	// nginx:2): not completed until the kubelet reports a new imageID.
	applied := gracePod("2026-01-01T12:00:00Z", 10)
	delete(applied.Annotations, model.AnnotationInPlaceUpdateGrace)
	applied.Annotations[model.AnnotationInPlaceUpdateState] = wantState
	applied.Spec.Containers[0].Image = "nginx:2"
	if done, _ := Completed(applied, gates); done {
		t.Errorf("completed before the kubelet reported the new image")
	}
	if acts, _ := mustRefresh(t, applied, gates, ts("2026-01-01T12:00:11Z")); len(acts) != 0 {
		t.Errorf("refresh before completion wrote %v", acts)
	}
	applied.Status.ContainerStatuses[0].Image, applied.Status.ContainerStatuses[0].ImageID = "nginx:2", "sha-2"
	if done, _ := Completed(applied, gates); !done {
		t.Errorf("not completed after the kubelet reported the new image")
	}
	// Then the refresh sets InPlaceUpdateReady True.
	acts, _ = mustRefresh(t, applied, gates, ts("2026-01-01T12:00:20Z"))
	if len(acts) != 1 || len(acts[0].SetConditions) != 1 || acts[0].SetConditions[0] != (model.ConditionPatch{Type: model.ConditionInPlaceUpdateReady, Status: "True"}) {
		t.Errorf("refresh after completion: %+v", acts)
	}
}

// TestGraceDroppedWhenRevisionChanged: only if something rewrote the pod's revision
// label is the grace annotation dropped, without applying anything (4.6 step 1).
func TestGraceDroppedWhenRevisionChanged(t *testing.T) {
	p := gracePod("2026-01-01T12:00:00Z", 10)
	p.Labels[model.LabelRevisionHash] = "web-3"
	p.Annotations[model.AnnotationInPlaceUpdateGraceLegacy] = "{}"
	acts, d := mustRefresh(t, p, model.DefaultFeatureGates(), ts("2026-01-01T12:00:04Z"))
	want := []model.Action{{
		Type:              model.ActionPatchPod,
		Pod:               "web-a",
		RemoveAnnotations: []string{model.AnnotationInPlaceUpdateGrace, model.AnnotationInPlaceUpdateGraceLegacy},
		Reason:            `drop the in-place grace period: pod no longer belongs to revision web-2 (revision label "web-3"); nothing applied`,
	}}
	if diff := cmp.Diff(want, acts); diff != "" || d != 0 {
		t.Errorf("(-want +got):\n%s requeue %v", diff, d)
	}
	// The short form of the revision label still belongs to the grace revision.
	p.Labels[model.LabelRevisionHash] = "2"
	if acts, d := mustRefresh(t, p, model.DefaultFeatureGates(), ts("2026-01-01T12:00:04Z")); len(acts) != 0 || d != 6*time.Second {
		t.Errorf("short-form label: %v %v", acts, d)
	}
}

// TestRequeueTableLSV76 is the R3 column of lifecycle-status-validation 7.6: grace 5 s,
// updateTimestamp 10:00:26, now with fractions.
func TestRequeueTableLSV76(t *testing.T) {
	cases := []struct {
		now     string
		requeue time.Duration
		applied bool
	}{
		{"2026-01-01T10:00:27.0Z", 4 * time.Second, false},
		{"2026-01-01T10:00:29.7Z", 2 * time.Second, false},
		{"2026-01-01T10:00:30.0Z", 1 * time.Second, false},
		{"2026-01-01T10:00:30.6Z", 1 * time.Second, false},
		{"2026-01-01T10:00:31.0Z", 0, true},
	}
	for _, c := range cases {
		p := gracePod("2026-01-01T10:00:26Z", 5)
		acts, d := mustRefresh(t, p, model.DefaultFeatureGates(), ts(c.now))
		if d != c.requeue || (len(acts) == 1) != c.applied {
			t.Errorf("now %s: requeue %v applied %v; want %v %v", c.now, d, len(acts) == 1, c.requeue, c.applied)
		}
		if c.applied && !strings.Contains(acts[0].Reason, "set image main=nginx:2") {
			t.Errorf("now %s: %v", c.now, acts[0].Reason)
		}
	}
}

func TestRefreshErrors(t *testing.T) {
	now := ts("2026-01-01T12:00:04Z")
	cases := []struct {
		name   string
		mutate func(p *model.Pod)
		want   string
	}{
		{"unparsable grace", func(p *model.Pod) { p.Annotations[model.AnnotationInPlaceUpdateGrace] = "{" }, "unparsable in-place update grace"},
		{"state missing while in grace", func(p *model.Pod) { delete(p.Annotations, model.AnnotationInPlaceUpdateState) }, "state not found"},
		{"unparsable state while in grace", func(p *model.Pod) { p.Annotations[model.AnnotationInPlaceUpdateState] = "nope" }, "unparsable in-place update state"},
		{"unparsable state out of grace", func(p *model.Pod) {
			delete(p.Annotations, model.AnnotationInPlaceUpdateGrace)
			p.Annotations[model.AnnotationInPlaceUpdateState] = `{"revision": 3}`
		}, "unparsable in-place update state"},
		{"unparsable metadata patch at the end of grace", func(p *model.Pod) {
			p.Annotations[model.AnnotationInPlaceUpdateGrace] = `{"revision":"web-2","metaDataPatch":"bm90IGpzb24="}`
		}, "unparsable metaDataPatch"},
	}
	for _, c := range cases {
		p := gracePod("2026-01-01T12:00:00Z", 3)
		c.mutate(p)
		acts, d, err := Refresh(p, model.DefaultFeatureGates(), now)
		if err == nil || !strings.Contains(err.Error(), c.want) || acts != nil || d != 0 {
			t.Errorf("%s: %v %v %v; want error containing %q", c.name, acts, d, err, c.want)
		}
	}
}

func TestRefreshGraceAppliesMetadata(t *testing.T) {
	p := gracePod("2026-01-01T12:00:00Z", 1)
	patch := `{"metadata":{"labels":{"new":"y","old":null},"annotations":{"a":"1","gone":null},"finalizers":["f"]}}`
	pending := map[string]any{
		"revision":             "web-2",
		"containerRefMetadata": map[string]any{"main": map[string]any{"labels": map[string]string{"ver": "v2"}}},
		"containerResources":   map[string]any{"main": map[string]any{"limits": map[string]any{"cpu": "2"}}},
		"metaDataPatch":        []byte(patch), // base64, as upstream writes it
		"graceSeconds":         1,
	}
	b, _ := json.Marshal(pending)
	p.Annotations[model.AnnotationInPlaceUpdateGrace] = string(b)
	acts, _ := mustRefresh(t, p, model.DefaultFeatureGates(), ts("2026-01-01T12:00:05Z"))
	if len(acts) != 1 {
		t.Fatalf("actions %v", acts)
	}
	a := acts[0]
	if diff := cmp.Diff(map[string]string{"new": "y", "ver": "v2"}, a.SetLabels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	if a.SetAnnotations["a"] != "1" || len(a.SetAnnotations) != 2 {
		t.Errorf("annotations %v", a.SetAnnotations)
	}
	if diff := cmp.Diff([]string{model.AnnotationInPlaceUpdateGrace, "gone"}, a.RemoveAnnotations); diff != "" {
		t.Errorf("removed annotations (-want +got):\n%s", diff)
	}
	for _, w := range []string{"remove label old", "patch metadata finalizers", "set resources main limits.cpu=2"} {
		if !strings.Contains(a.Reason, w) {
			t.Errorf("reason %q lacks %q", a.Reason, w)
		}
	}
	// The same patch written as a plain object is accepted too.
	pending["metaDataPatch"] = json.RawMessage(patch)
	b, _ = json.Marshal(pending)
	p.Annotations[model.AnnotationInPlaceUpdateGrace] = string(b)
	acts2, _ := mustRefresh(t, p, model.DefaultFeatureGates(), ts("2026-01-01T12:00:05Z"))
	if diff := cmp.Diff(acts, acts2); diff != "" {
		t.Errorf("plain-object patch differs (-base64 +object):\n%s", diff)
	}
}

func TestRefreshNextBatch(t *testing.T) {
	base := func(state string) *model.Pod {
		p := updatingPod(state)
		p.Status.ContainerStatuses[0].ImageID, p.Status.ContainerStatuses[0].Image = "sha-2", "nginx:2"
		p.Spec.ReadinessGates = []string{model.ConditionInPlaceUpdateReady}
		return p
	}
	next := `{"revision":"web-2","updateTimestamp":"2026-01-01T12:00:00Z","lastContainerStatuses":{"main":{"imageID":"sha-1"}},` +
		`"nextContainerImages":{"side":"busybox:2"},"preCheckBeforeNext":{"containersRequiredReady":["main"]},` +
		`"containerBatchesRecord":[{"timestamp":"2026-01-01T12:00:00Z","containers":["main"]}]}`
	now := ts("2026-01-01T12:01:00Z")

	// main not ready yet: nothing.
	if acts, _ := mustRefresh(t, base(next), model.DefaultFeatureGates(), now); len(acts) != 0 {
		t.Errorf("pre-check not passed: %v", acts)
	}
	// main ready: the next batch is applied.
	p := base(next)
	p.Status.ContainerStatuses[0].Ready = true
	acts, _ := mustRefresh(t, p, model.DefaultFeatureGates(), now)
	if len(acts) != 1 || !strings.HasPrefix(acts[0].Reason, "apply the next in-place update batch: set image side=busybox:2") {
		t.Fatalf("next batch: %+v", acts)
	}
	wantState := `{"revision":"web-2","updateTimestamp":"2026-01-01T12:00:00Z","lastContainerStatuses":{"main":{"imageID":"sha-1"},"side":{"imageID":"sha-b"}},` +
		`"containerBatchesRecord":[{"timestamp":"2026-01-01T12:00:00Z","containers":["main"]},{"timestamp":"2026-01-01T12:01:00Z","containers":["side"]}]}`
	if got := acts[0].SetAnnotations[model.AnnotationInPlaceUpdateState]; got != wantState {
		t.Errorf("state\n got %s\nwant %s", got, wantState)
	}
	if acts[0].RemoveAnnotations != nil {
		t.Errorf("next batch removed %v", acts[0].RemoveAnnotations)
	}
	// Containers of the first batch not finished: nothing, even when ready.
	p = base(next)
	p.Status.ContainerStatuses[0].ImageID, p.Status.ContainerStatuses[0].Image = "sha-1", "nginx:1"
	p.Status.ContainerStatuses[0].Ready = true
	if acts, _ := mustRefresh(t, p, model.DefaultFeatureGates(), now); len(acts) != 0 {
		t.Errorf("first batch not finished: %v", acts)
	}
	// Resources-only next batch is never applied (UO 11.6): the refresh goes on to
	// the readiness condition.
	resOnly := `{"revision":"web-2","nextContainerResources":{"side":{"limits":{"cpu":"1"}}}}`
	acts, _ = mustRefresh(t, base(resOnly), model.DefaultFeatureGates(), now)
	if len(acts) != 1 || len(acts[0].SetConditions) != 1 {
		t.Errorf("resources-only next batch: %+v", acts)
	}
	if done, _ := Completed(base(resOnly), model.DefaultFeatureGates()); done {
		t.Errorf("resources-only next batch counted as completed")
	}
}

func TestRefreshReadinessCondition(t *testing.T) {
	cases := []struct {
		name  string
		gate  bool
		conds []model.PodCondition
		want  bool
	}{
		{"gate, no condition", true, nil, true},
		{"gate, condition False", true, []model.PodCondition{{Type: model.ConditionInPlaceUpdateReady, Status: "False"}}, true},
		{"gate, condition True with a reason", true, []model.PodCondition{{Type: model.ConditionInPlaceUpdateReady, Status: "True", Reason: "x"}}, true},
		{"gate, condition True with a message", true, []model.PodCondition{{Type: model.ConditionInPlaceUpdateReady, Status: "True", Message: "x"}}, true},
		{"gate, condition already True", true, []model.PodCondition{{Type: model.ConditionInPlaceUpdateReady, Status: "True"}}, false},
		{"no gate", false, []model.PodCondition{{Type: model.ConditionInPlaceUpdateReady, Status: "False"}}, false},
	}
	for _, c := range cases {
		p := updatingPod("")
		p.Status.Conditions = c.conds
		if c.gate {
			p.Spec.ReadinessGates = []string{model.ConditionInPlaceUpdateReady}
		}
		acts, d := mustRefresh(t, p, model.DefaultFeatureGates(), ts("2026-01-01T12:00:00Z"))
		if (len(acts) == 1) != c.want || d != 0 {
			t.Errorf("%s: %v", c.name, acts)
		}
	}
}

// TestRefreshNextBatchWaitsForEnvFromMetadataRestart is kruise's e2e spec
// "in-place update two container image and env from metadata with
// priorities": redis (the higher priority, env CONFIG from the annotation
// config) was updated first by the annotation config foo -> bar, nginx's
// image waits for the next batch. Until the node agent has restarted redis
// with the new value (its runtime-containers-meta reports the hash of
// config=bar), the first batch is not finished, even though the old redis,
// still running with the same containerID, is ready: the next batch waits.
func TestRefreshNextBatchWaitsForEnvFromMetadataRestart(t *testing.T) {
	redisEnv := []model.EnvVar{
		{Name: "KRUISE_CONTAINER_PRIORITY", Value: "10", HasValue: true},
		{Name: "CONFIG", FieldPath: "metadata.annotations['config']"},
	}
	state := `{"revision":"web-2","updateTimestamp":"2026-01-01T12:00:00Z","updateEnvFromMetadata":true,` +
		`"nextContainerImages":{"nginx":"nginx:2"},"preCheckBeforeNext":{"containersRequiredReady":["redis"]},` +
		`"containerBatchesRecord":[{"timestamp":"2026-01-01T12:00:00Z","containers":["redis"]}]}`
	pod := func(redisID string, redisHash uint64) *model.Pod {
		p := &model.Pod{
			Name:        "p",
			Labels:      map[string]string{model.LabelRevisionHash: "web-2"},
			Annotations: map[string]string{"config": "bar", model.AnnotationInPlaceUpdateState: state},
			Spec: model.PodSpec{Containers: []model.Container{
				{Name: "nginx", Image: "nginx:1"},
				{Name: "redis", Image: "redis:7", Env: redisEnv},
			}, ReadinessGates: []string{model.ConditionInPlaceUpdateReady}},
			Status: model.PodStatus{Phase: model.PodRunning, ContainerStatuses: []model.ContainerStatus{
				{Name: "nginx", Image: "nginx:1", ImageID: "sha-n1", ContainerID: "c-nginx", Ready: true},
				{Name: "redis", Image: "redis:7", ImageID: "sha-r", ContainerID: redisID, Ready: true},
			}},
		}
		p.Annotations[model.AnnotationRuntimeContainersMeta] = fmt.Sprintf(
			`{"containers":[{"name":"nginx","containerID":"c-nginx","hashes":{"plainHash":0,"extractedEnvFromMetadataHash":%d}},`+
				`{"name":"redis","containerID":%q,"hashes":{"plainHash":0,"extractedEnvFromMetadataHash":%d}}]}`,
			EnvFromMetadataHash(nil, nil, nil), redisID, redisHash)
		return p
	}
	now := ts("2026-01-01T12:00:01Z")
	foo := EnvFromMetadataHash(redisEnv, nil, map[string]string{"config": "foo"})
	bar := EnvFromMetadataHash(redisEnv, nil, map[string]string{"config": "bar"})

	// The agent has not restarted redis yet: same containerID, the hash of config=foo.
	if acts, _ := mustRefresh(t, pod("c-redis-0", foo), model.DefaultFeatureGates(), now); len(acts) != 0 {
		t.Errorf("next batch applied before redis was restarted with the new env: %+v", acts)
	}
	// Restarted and ready: the next batch (nginx's image) is applied.
	acts, _ := mustRefresh(t, pod("c-redis-1", bar), model.DefaultFeatureGates(), now)
	if len(acts) != 1 || !strings.HasPrefix(acts[0].Reason, "apply the next in-place update batch: set image nginx=nginx:2") {
		t.Errorf("next batch after the restart: %+v", acts)
	}
}
