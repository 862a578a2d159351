package lifecycle

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
)

var now = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func decodeTree(s string) map[string]any {
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		panic(err)
	}
	return m
}

// revisions: web-1 (nginx:1), web-2 (nginx:2: image only, in place possible),
// web-3 (nginx:1 with an extra env var: recreate only).
func revisions() []*model.Revision {
	mk := func(name string, n int64, tmpl string) *model.Revision {
		return &model.Revision{Name: name, Revision: n, HasTemplate: true, Template: model.PodTemplate{Raw: decodeTree(tmpl)}}
	}
	return []*model.Revision{
		mk("web-1", 1, `{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"main","image":"nginx:1"}]}}`),
		mk("web-2", 2, `{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"main","image":"nginx:2"}]}}`),
		mk("web-3", 3, `{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"main","image":"nginx:1","env":[{"name":"B","value":"2"}]}]}}`),
	}
}

// cloneSet returns a CloneSet with the given pod update policy ("" = no
// rollingUpdate block), grace seconds and lifecycle.
func cloneSet(policy string, grace int32, l *model.Lifecycle) *model.CloneSet {
	cs := &model.CloneSet{Name: "web", Namespace: "default", UID: "uid-web"}
	cs.Spec.UpdateStrategy.Type = model.UpdateStrategyRollingUpdate
	if policy != "" {
		cs.Spec.UpdateStrategy.RollingUpdate = &model.RollingUpdateStrategy{PodUpdatePolicy: policy}
		if grace > 0 {
			cs.Spec.UpdateStrategy.RollingUpdate.InPlaceUpdateStrategy = &model.InPlaceUpdateStrategy{GracePeriodSeconds: grace}
		}
	}
	cs.Spec.Lifecycle = l
	return cs
}

type podOpt func(*model.Pod)

// pod returns a scheduled, ready pod of revision web-1 in the given state.
func pod(name, state string, opts ...podOpt) *model.Pod {
	p := &model.Pod{
		Name:      name,
		Namespace: "default",
		Labels: map[string]string{
			model.LabelRevisionHash:    "web-1",
			model.LabelPodTemplateHash: "1",
			model.LabelInstanceID:      strings.TrimPrefix(name, "web-"),
		},
		Annotations: map[string]string{},
		Spec: model.PodSpec{
			NodeName:       "node-a",
			Containers:     []model.Container{{Name: "main", Image: "nginx:1"}},
			ReadinessGates: []string{model.ConditionInPlaceUpdateReady},
		},
		Status: model.PodStatus{Phase: model.PodRunning, Conditions: []model.PodCondition{
			{Type: model.ConditionReady, Status: "True"},
			{Type: model.ConditionInPlaceUpdateReady, Status: "True"},
		}},
	}
	if state != "" {
		p.Labels[model.LabelLifecycleState] = state
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func withLabel(k, v string) podOpt { return func(p *model.Pod) { p.Labels[k] = v } }

func withoutLabel(k string) podOpt { return func(p *model.Pod) { delete(p.Labels, k) } }

func withRevision(r string) podOpt { return withLabel(model.LabelRevisionHash, r) }

func withFinalizers(fs ...string) podOpt {
	return func(p *model.Pod) { p.Finalizers = append(p.Finalizers, fs...) }
}

func unscheduled() podOpt { return func(p *model.Pod) { p.Spec.NodeName = "" } }

// withKruisePodReady adds the KruisePodReady readiness gate and a condition listing
// the given lifecycle keys (status True and empty message when none).
func withKruisePodReady(keys ...string) podOpt {
	return func(p *model.Pod) {
		p.Spec.ReadinessGates = append(p.Spec.ReadinessGates, model.ConditionKruisePodReady)
		c := model.PodCondition{Type: model.ConditionKruisePodReady, Status: "True"}
		if len(keys) > 0 {
			var parts []string
			for _, k := range keys {
				parts = append(parts, `{"userAgent":"Lifecycle","key":"`+k+`"}`)
			}
			c.Status, c.Message = "False", "["+strings.Join(parts, ",")+"]"
		}
		p.Status.Conditions = append(p.Status.Conditions, c)
	}
}

func hook(notReady bool, labels map[string]string, finalizers ...string) *model.LifecycleHook {
	return &model.LifecycleHook{LabelsHandler: labels, FinalizersHandler: finalizers, MarkPodNotReady: notReady}
}

func decide(t *testing.T, cs *model.CloneSet, p *model.Pod, target string, gates model.FeatureGates) UpdateDecision {
	t.Helper()
	return DecideUpdate(UpdateInput{CloneSet: cs, Pod: p, Target: target, Revisions: revisions(), Gates: gates, Now: now})
}

// lifecycleAction is a SetLifecycleState without its reason, for comparisons.
type lifecycleAction struct {
	Pod, From, To string
	NotReady      bool
}

func lifecycleActions(t *testing.T, acts []model.Action) []lifecycleAction {
	t.Helper()
	var out []lifecycleAction
	for _, a := range acts {
		if a.Type != model.ActionSetLifecycleState {
			continue
		}
		if a.Reason == "" {
			t.Errorf("SetLifecycleState %s without a reason", a.Pod)
		}
		out = append(out, lifecycleAction{a.Pod, a.From, a.To, a.MarkPodNotReady})
	}
	return out
}
