package inplace

import (
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
)

// benchNow is the clock of the benchmarks.
var benchNow = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)

// benchPod returns a pod shaped like the pods of worldgen's update world: two
// containers, five conditions, the InPlaceUpdateReady readiness gate, seven
// labels and the lifecycle timestamp annotation. kind picks its in-place
// state: "none" (no state annotation), "completed" (a finished in-place
// update of the main container), "unfinished" (the main container still runs
// its old image) or "grace" (a pending update whose grace period runs).
func benchPod(kind string) *model.Pod {
	const (
		oldImage = "registry.example.com/shop/web:1.2.0"
		newImage = "registry.example.com/shop/web:1.3.0"
		oldID    = "registry.example.com/shop/web@sha256:4e6d08e3d241ce247f34139675f7f65c"
		newID    = "registry.example.com/shop/web@sha256:57092be3d71eaceb8a1c50970cb6f075"
		sidecar  = "registry.example.com/log-agent:1.4.2"
	)
	at := benchNow.Add(-time.Hour)
	p := &model.Pod{
		Name:      "sample-ztw5z",
		Namespace: "default",
		Labels: map[string]string{
			"app":                      "sample",
			model.LabelInstanceID:      "ztw5z",
			model.LabelRevisionHash:    "sample-786c854bb5",
			"example.com/rack":         "r2",
			"example.com/warmed-up":    "true",
			model.LabelLifecycleState:  model.StateNormal,
			model.LabelPodTemplateHash: "786c854bb5",
		},
		Annotations: map[string]string{model.AnnotationLifecycleTimestamp: "2026-03-01T06:04:54Z"},
		Spec: model.PodSpec{
			NodeName:       "node-00001",
			Containers:     []model.Container{{Name: "main", Image: newImage}, {Name: "log-agent", Image: sidecar}},
			ReadinessGates: []string{model.ConditionInPlaceUpdateReady},
		},
		Status: model.PodStatus{
			Phase: model.PodRunning,
			Conditions: []model.PodCondition{
				{Type: model.ConditionInPlaceUpdateReady, Status: "True", LastTransitionTime: at},
				{Type: "Initialized", Status: "True", LastTransitionTime: at},
				{Type: model.ConditionReady, Status: "True", LastTransitionTime: at},
				{Type: model.ConditionContainersReady, Status: "True", LastTransitionTime: at},
				{Type: "PodScheduled", Status: "True", LastTransitionTime: at},
			},
			ContainerStatuses: []model.ContainerStatus{
				{Name: "main", Image: newImage, ImageID: newID, ContainerID: "containerd://00000000000000", Ready: true},
				{Name: "log-agent", Image: sidecar, ImageID: "registry.example.com/log-agent@sha256:0adde907", ContainerID: "containerd://00000000000001", Ready: true},
			},
		},
	}
	state := `{"revision":"sample-786c854bb5","updateTimestamp":"2026-03-02T11:48:32Z","lastContainerStatuses":{"main":{"imageID":"` + oldID + `"}},"updateImages":true}`
	switch kind {
	case "none":
	case "completed":
		p.Annotations[model.AnnotationInPlaceUpdateState] = state
	case "unfinished":
		p.Annotations[model.AnnotationInPlaceUpdateState] = state
		p.Labels[model.LabelLifecycleState] = model.StateUpdating
		p.Status.ContainerStatuses[0].Image, p.Status.ContainerStatuses[0].ImageID = oldImage, oldID
		p.Status.Conditions[0].Status, p.Status.Conditions[0].Reason = "False", "StartInPlaceUpdate"
	case "grace":
		p.Annotations[model.AnnotationInPlaceUpdateState] = `{"revision":"sample-786c854bb5","updateTimestamp":"2026-03-02T11:59:50Z","lastContainerStatuses":{}}`
		p.Annotations[model.AnnotationInPlaceUpdateGrace] = `{"revision":"sample-786c854bb5","containerImages":{"main":"` + newImage + `"},"graceSeconds":30}`
		p.Spec.Containers[0].Image = oldImage
	default:
		panic("benchPod: unknown kind " + kind)
	}
	return p
}

// Sinks keep the benchmarked results alive, as a caller would.
var (
	sinkActions []model.Action
	sinkState   *State
)

var benchKinds = []string{"none", "completed", "unfinished", "grace"}

// BenchmarkRefresh is the in-place bookkeeping of the refresh step on the
// common kinds of pods.
func BenchmarkRefresh(b *testing.B) {
	for _, kind := range benchKinds {
		b.Run(kind, func(b *testing.B) {
			p := benchPod(kind)
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if sinkActions, _, err = Refresh(p, model.FeatureGates{}, benchNow); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCompleted is the completion check of an Updating pod.
func BenchmarkCompleted(b *testing.B) {
	for _, kind := range benchKinds {
		b.Run(kind, func(b *testing.B) {
			p := benchPod(kind)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Completed(p, model.FeatureGates{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParseState reads the state annotation of a finished update.
func BenchmarkParseState(b *testing.B) {
	p := benchPod("completed")
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if sinkState, _, err = ParseState(p); err != nil {
			b.Fatal(err)
		}
	}
}
