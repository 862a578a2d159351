package ordering

import (
	"strconv"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
	"github.com/google/go-cmp/cmp"
)

// t0 is the reference instant of the hand-written tests.
var t0 = time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)

type podOpt func(*model.Pod)

// newPod returns a Running pod, ready since t0, created at t0-1h, Normal,
// scheduled on its own node "node-<name>", with one container and no restart.
func newPod(name string, opts ...podOpt) *model.Pod {
	p := &model.Pod{
		Name:              name,
		Namespace:         "default",
		Labels:            map[string]string{"app": "web", model.LabelLifecycleState: model.StateNormal},
		Annotations:       map[string]string{},
		CreationTimestamp: t0.Add(-time.Hour),
		Spec:              model.PodSpec{NodeName: "node-" + name, Containers: []model.Container{{Name: "main"}}},
		Status: model.PodStatus{
			Phase:             model.PodRunning,
			Conditions:        []model.PodCondition{{Type: model.ConditionReady, Status: "True", LastTransitionTime: t0}},
			ContainerStatuses: []model.ContainerStatus{{Name: "main", Ready: true}},
		},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func onNode(n string) podOpt     { return func(p *model.Pod) { p.Spec.NodeName = n } }
func unscheduled() podOpt        { return onNode("") }
func phase(ph string) podOpt     { return func(p *model.Pod) { p.Status.Phase = ph } }
func state(s string) podOpt      { return func(p *model.Pod) { p.Labels[model.LabelLifecycleState] = s } }
func created(t time.Time) podOpt { return func(p *model.Pod) { p.CreationTimestamp = t } }
func cost(v string) podOpt       { return annotation(model.AnnotationDeletionCost, v) }
func readyAt(t time.Time) podOpt {
	return func(p *model.Pod) { p.Status.Conditions[0].LastTransitionTime = t }
}
func restarts(n int32) podOpt {
	return func(p *model.Pod) { p.Status.ContainerStatuses[0].RestartCount = n }
}
func notReady() podOpt              { return func(p *model.Pod) { p.Status.Conditions[0].Status = "False" } }
func noReadyCondition() podOpt      { return func(p *model.Pod) { p.Status.Conditions = nil } }
func annotation(k, v string) podOpt { return func(p *model.Pod) { p.Annotations[k] = v } }

func labels(kv ...string) podOpt {
	return func(p *model.Pod) {
		for i := 0; i+1 < len(kv); i += 2 {
			p.Labels[kv[i]] = kv[i+1]
		}
	}
}

// sidecarRestarts adds a sidecar init container (restartPolicy Always) with n restarts.
func sidecarRestarts(n int32) podOpt {
	return func(p *model.Pod) {
		p.Spec.InitContainers = append(p.Spec.InitContainers, model.Container{Name: "side", RestartPolicy: "Always"})
		p.Status.InitContainerStatuses = append(p.Status.InitContainerStatuses, model.ContainerStatus{Name: "side", RestartCount: n})
	}
}

// initRestarts adds a plain init container (not a sidecar) with n restarts.
func initRestarts(n int32) podOpt {
	return func(p *model.Pod) {
		p.Spec.InitContainers = append(p.Spec.InitContainers, model.Container{Name: "init"})
		p.Status.InitContainerStatuses = append(p.Status.InitContainerStatuses, model.ContainerStatus{Name: "init", RestartCount: n})
	}
}

func names(rs []Ranked) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Pod.Name
	}
	return out
}

func whys(rs []Ranked) map[string]string {
	out := make(map[string]string, len(rs))
	for _, r := range rs {
		out[r.Pod.Name] = r.Why
	}
	return out
}

func ranksOf(rs []Ranked) map[string]float64 {
	out := make(map[string]float64, len(rs))
	for _, r := range rs {
		out[r.Pod.Name] = r.SpreadRank
	}
	return out
}

func assertOrder(t *testing.T, got []Ranked, want ...string) {
	t.Helper()
	if d := cmp.Diff(want, names(got)); d != "" {
		t.Fatalf("order (-want +got):\n%s", d)
	}
}

func reversed[T any](s []T) []T {
	out := make([]T, len(s))
	for i, x := range s {
		out[len(s)-1-i] = x
	}
	return out
}

func node(name string, kv ...string) *model.Node {
	n := &model.Node{Name: name, Labels: map[string]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		n.Labels[kv[i]] = kv[i+1]
	}
	return n
}

func nodeMap(ns ...*model.Node) map[string]*model.Node {
	m := make(map[string]*model.Node, len(ns))
	for _, n := range ns {
		m[n.Name] = n
	}
	return m
}

func secs(n int) time.Time { return t0.Add(time.Duration(n) * time.Second) }

func itoa(i int) string { return strconv.Itoa(i) }
