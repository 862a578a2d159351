package inplace

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/clonecore/cloneset/model"
	"github.com/google/go-cmp/cmp"
)

// barrier is the env OpenKruise's pod webhook injects for a launch priority.
func barrier(pod string, priority string) model.EnvVar {
	return model.EnvVar{Name: model.EnvLaunchBarrier, ConfigMapName: pod + "-barrier", ConfigMapKey: "p_" + priority}
}

// priorityPod is a pod of the given containers; each container named in
// priorities carries the launch barrier of that priority.
func priorityPod(containers []string, priorities map[string]string) *model.Pod {
	p := &model.Pod{Name: "web-a"}
	for _, name := range containers {
		c := model.Container{Name: name, Image: name + ":1"}
		if pr, ok := priorities[name]; ok {
			c.Env = []model.EnvVar{{Name: "A", Value: "1", HasValue: true}, barrier(p.Name, pr)}
		}
		p.Spec.Containers = append(p.Spec.Containers, c)
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, model.ContainerStatus{Name: name, Image: name + ":1", ImageID: name + "-id-1", Ready: true})
	}
	return p
}

func images(names ...string) map[string]string {
	m := map[string]string{}
	for _, n := range names {
		m[n] = n + ":2"
	}
	return m
}

// TestSplitBatchLaunchPriority is the batch rule of update-and-ordering 4.5
// (upstream defaultPatchUpdateSpecToPod): containers without a priority and
// those of the highest priority go now, the rest waits, metadata sharers
// join the batch. A regression test: the library once applied every
// changed container in one batch, and kruise's e2e spec "in-place update two
// container images with priorities successfully" saw nginx restarted with
// redis (both in one batch record).
func TestSplitBatchLaunchPriority(t *testing.T) {
	for _, tc := range []struct {
		name       string
		containers []string
		priorities map[string]string
		ch         Change
		wantNow    []string
		wantNext   Change
	}{
		{
			name:       "no priorities: one batch",
			containers: []string{"nginx", "redis"},
			ch:         Change{Images: images("nginx", "redis")},
			wantNow:    []string{"nginx", "redis"},
		},
		{
			name:       "a container without a barrier goes with the highest priority",
			containers: []string{"nginx", "redis"},
			priorities: map[string]string{"redis": "10"},
			ch:         Change{Images: images("nginx", "redis")},
			wantNow:    []string{"nginx", "redis"},
		},
		{
			name:       "e2e as injected: nginx p_0, redis p_10: redis first",
			containers: []string{"nginx", "redis"},
			priorities: map[string]string{"nginx": "0", "redis": "10"},
			ch:         Change{Images: images("nginx", "redis")},
			wantNow:    []string{"redis"},
			wantNext:   Change{Images: map[string]string{"nginx": "nginx:2"}},
		},
		{
			name:       "ordered: the first container first",
			containers: []string{"a", "b", "c"},
			priorities: map[string]string{"a": "0", "b": "-1", "c": "-2"},
			ch:         Change{Images: images("b", "c")},
			wantNow:    []string{"b"},
			wantNext:   Change{Images: map[string]string{"c": "c:2"}},
		},
		{
			name:       "equal highest priorities go together",
			containers: []string{"a", "b", "c"},
			priorities: map[string]string{"a": "5", "b": "5", "c": "1"},
			ch:         Change{Images: images("a", "b", "c")},
			wantNow:    []string{"a", "b"},
			wantNext:   Change{Images: map[string]string{"c": "c:2"}},
		},
		{
			name:       "negative priorities compare as integers",
			containers: []string{"a", "b"},
			priorities: map[string]string{"a": "-10", "b": "-2"},
			ch:         Change{Images: images("a", "b")},
			wantNow:    []string{"b"},
			wantNext:   Change{Images: map[string]string{"a": "a:2"}},
		},
		{
			name:       "a key that is no integer reads as priority 0",
			containers: []string{"a", "b"},
			priorities: map[string]string{"a": "x", "b": "-1"},
			ch:         Change{Images: images("a", "b")},
			wantNow:    []string{"a"},
			wantNext:   Change{Images: map[string]string{"b": "b:2"}},
		},
		{
			name:       "an unchanged high-priority container does not hold the batch",
			containers: []string{"a", "b", "c"},
			priorities: map[string]string{"a": "9", "b": "5", "c": "1"},
			ch:         Change{Images: images("b", "c")},
			wantNow:    []string{"b"},
			wantNext:   Change{Images: map[string]string{"c": "c:2"}},
		},
		{
			name:       "resources and metadata are split the same way",
			containers: []string{"a", "b"},
			priorities: map[string]string{"a": "2", "b": "1"},
			ch: Change{
				Resources:   map[string]Resources{"a": {Limits: map[string]QuantityText{"cpu": "1"}}, "b": {Limits: map[string]QuantityText{"cpu": "2"}}},
				RefMetadata: map[string]ObjectMeta{"b": {Annotations: map[string]string{"cfg": "v2"}}},
			},
			wantNow: []string{"a"},
			wantNext: Change{
				Resources:   map[string]Resources{"b": {Limits: map[string]QuantityText{"cpu": "2"}}},
				RefMetadata: map[string]ObjectMeta{"b": {Annotations: map[string]string{"cfg": "v2"}}},
			},
		},
		{
			name:       "a lower container reading a label of the batch joins it, and one sharing with that one too",
			containers: []string{"a", "b", "c", "d"},
			priorities: map[string]string{"a": "3", "b": "2", "c": "1", "d": "0"},
			ch: Change{
				Images: images("a", "d"),
				RefMetadata: map[string]ObjectMeta{
					"a": {Labels: map[string]string{"ver": "2"}},
					"b": {Labels: map[string]string{"ver": "2"}, Annotations: map[string]string{"cfg": "x"}},
					"c": {Annotations: map[string]string{"cfg": "x"}},
				},
			},
			wantNow:  []string{"a", "b", "c"},
			wantNext: Change{Images: map[string]string{"d": "d:2"}},
		},
		{
			name:       "an image of a name the pod has no container for is dropped",
			containers: []string{"a"},
			ch:         Change{Images: map[string]string{"a": "a:2", "gone": "gone:2"}},
			wantNow:    []string{"a"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := priorityPod(tc.containers, tc.priorities)
			now, next, names, err := SplitBatch(p, tc.ch)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantNow, names); diff != "" {
				t.Errorf("batch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantNext, next); diff != "" {
				t.Errorf("next (-want +got):\n%s", diff)
			}
			// Every change is either now or next, never both.
			for _, name := range tc.ch.Containers() {
				_, inNext := next.Images[name]
				_, inNow := now.Images[name]
				if inNow && inNext {
					t.Errorf("%s both now and next", name)
				}
			}
		})
	}
}

// TestSplitBatchMalformedBarrier: a barrier env upstream's controller
// panics on is an error naming the pod, the container and the env.
func TestSplitBatchMalformedBarrier(t *testing.T) {
	for _, env := range []model.EnvVar{
		{Name: model.EnvLaunchBarrier, Value: "p_1", HasValue: true},
		{Name: model.EnvLaunchBarrier, ConfigMapName: "web-a-barrier", ConfigMapKey: "p"},
	} {
		p := priorityPod([]string{"a", "b"}, nil)
		p.Spec.Containers[1].Env = []model.EnvVar{env}
		_, _, _, err := SplitBatch(p, Change{Images: images("a", "b")})
		if err == nil || !strings.Contains(err.Error(), "pod web-a: container b: env[0] KRUISE_CONTAINER_BARRIER") {
			t.Errorf("%+v: error %v, want one naming pod web-a, container b and the env", env, err)
		}
	}
}

// TestRecordBatch: the state after the first batch of a split update, as
// upstream writes it.
func TestRecordBatch(t *testing.T) {
	p := priorityPod([]string{"nginx", "redis"}, map[string]string{"nginx": "0", "redis": "10"})
	now, next, names, err := SplitBatch(p, Change{Images: images("nginx", "redis")})
	if err != nil {
		t.Fatal(err)
	}
	s := State{Revision: "web-2", UpdateTimestamp: Time{ts("2026-01-01T12:00:00Z")}, UpdateImages: true}
	s.RecordBatch(p, now, next, names, ts("2026-01-01T12:00:00Z"))
	b, _ := json.Marshal(s)
	want := `{"revision":"web-2","updateTimestamp":"2026-01-01T12:00:00Z","lastContainerStatuses":{"redis":{"imageID":"redis-id-1"}},"updateImages":true,` +
		`"nextContainerImages":{"nginx":"nginx:2"},"preCheckBeforeNext":{"containersRequiredReady":["redis"]},` +
		`"containerBatchesRecord":[{"timestamp":"2026-01-01T12:00:00Z","containers":["redis"]}]}`
	if string(b) != want {
		t.Errorf("state\n got %s\nwant %s", b, want)
	}
}

// TestRefreshAppliesNextBatchAfterPreCheck: the deferred batch of a launch
// priority split waits until the first batch's containers are ready, then
// is applied with a second batch record and no next batch.
func TestRefreshAppliesNextBatchAfterPreCheck(t *testing.T) {
	gates := model.DefaultFeatureGates()
	p := priorityPod([]string{"nginx", "redis"}, map[string]string{"nginx": "0", "redis": "10"})
	p.Spec.Containers[1].Image = "redis:2"
	p.Spec.ReadinessGates = []string{model.ConditionInPlaceUpdateReady}
	p.Labels = map[string]string{model.LabelRevisionHash: "web-2", model.LabelLifecycleState: model.StateUpdating}
	p.Annotations = map[string]string{model.AnnotationInPlaceUpdateState: `{"revision":"web-2","updateTimestamp":"2026-01-01T12:00:00Z",` +
		`"lastContainerStatuses":{"redis":{"imageID":"redis-id-1"}},"updateImages":true,"nextContainerImages":{"nginx":"nginx:2"},` +
		`"preCheckBeforeNext":{"containersRequiredReady":["redis"]},"containerBatchesRecord":[{"timestamp":"2026-01-01T12:00:00Z","containers":["redis"]}]}`}
	// redis restarted on its new image but its hook still runs: not ready.
	p.Status.ContainerStatuses[1] = model.ContainerStatus{Name: "redis", Image: "redis:2", ImageID: "redis-id-2", Ready: false}
	if acts := mustRefreshActions(t, p, gates, "2026-01-01T12:00:05Z"); len(acts) != 0 {
		t.Fatalf("redis not ready: actions %v, want none", acts)
	}
	p.Status.ContainerStatuses[1].Ready = true
	acts := mustRefreshActions(t, p, gates, "2026-01-01T12:00:12Z")
	if len(acts) != 1 || acts[0].SetImages["nginx"] != "nginx:2" || len(acts[0].SetImages) != 1 {
		t.Fatalf("redis ready: actions %+v, want one patch setting nginx:2", acts)
	}
	var st State
	if err := json.Unmarshal([]byte(acts[0].SetAnnotations[model.AnnotationInPlaceUpdateState]), &st); err != nil {
		t.Fatal(err)
	}
	if st.HasNextBatch() || st.PreCheckBeforeNext != nil || len(st.ContainerBatchesRecord) != 2 ||
		!cmp.Equal(st.ContainerBatchesRecord[1].Containers, []string{"nginx"}) ||
		st.LastContainerStatuses["nginx"].ImageID != "nginx-id-1" || st.LastContainerStatuses["redis"].ImageID != "redis-id-1" {
		t.Errorf("state after the second batch: %+v", st)
	}
}

func mustRefreshActions(t *testing.T, p *model.Pod, gates model.FeatureGates, at string) []model.Action {
	t.Helper()
	acts, _ := mustRefresh(t, p, gates, ts(at))
	return acts
}
