package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// webOptions shape the CloneSet of webScenario.
type webOptions struct {
	replicas  int32
	policy    string
	partition *model.IntOrPercent
	maxSurge  *model.IntOrPercent
	maxUnav   *model.IntOrPercent
	grace     int32
	pds       int32 // 0: no progressDeadlineSeconds
	minReady  int32
	lifecycle *model.Lifecycle
	labels    map[string]string // extra template labels
	vct       bool
}

// webScenario is a v1beta1 CloneSet "web" (image web:v1) with no pods yet.
func webScenario(o webOptions) *model.Scenario {
	if o.policy == "" {
		o.policy = model.PolicyInPlaceIfPossible
	}
	labels := map[string]string{"app": "web"}
	for k, v := range o.labels {
		labels[k] = v
	}
	tmpl := model.PodTemplate{Labels: labels, Spec: model.PodSpec{Containers: []model.Container{{Name: "main", Image: "web:v1"}}}}
	tmpl.Raw = model.TemplateTree(tmpl)
	r := o.replicas
	cs := &model.CloneSet{
		APIVersion: model.APIVersionV1beta1, Name: "web", Namespace: "default", UID: "uid-web", Generation: 1,
		Spec: model.CloneSetSpec{
			Replicas: &r, Selector: &model.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, Template: tmpl,
			MinReadySeconds: o.minReady, Lifecycle: o.lifecycle,
			UpdateStrategy: model.UpdateStrategy{Type: model.UpdateStrategyRollingUpdate, RollingUpdate: &model.RollingUpdateStrategy{
				PodUpdatePolicy: o.policy, Partition: o.partition, MaxSurge: o.maxSurge, MaxUnavailable: o.maxUnav,
			}},
		},
	}
	if o.grace > 0 {
		cs.Spec.UpdateStrategy.RollingUpdate.InPlaceUpdateStrategy = &model.InPlaceUpdateStrategy{GracePeriodSeconds: o.grace}
	}
	if o.pds > 0 {
		p := o.pds
		cs.Spec.ProgressDeadlineSeconds = &p
	}
	if o.vct {
		cs.Spec.VolumeClaimTemplates = []model.VolumeClaimTemplate{{Name: "data", StorageRequest: "1Gi",
			Raw: map[string]any{"metadata": map[string]any{"name": "data"}, "spec": map[string]any{}}}}
	}
	model.SetDefaults(cs)
	return &model.Scenario{Now: t0, Gates: model.DefaultFeatureGates(), CloneSet: cs}
}

func int32p(v int32) *int32 { return &v }

func intOrPct(s string) *model.IntOrPercent {
	if strings.HasSuffix(s, "%") {
		v := model.FromString(s)
		return &v
	}
	n := int32(0)
	for _, c := range s {
		n = n*10 + int32(c-'0')
	}
	v := model.FromInt(n)
	return &v
}

func at(sec int, ch Change) Event { return Event{At: time.Duration(sec) * time.Second, Change: ch} }

// mustRun runs a simulation and fails the test on an error or a violated
// invariant.
func mustRun(t *testing.T, scn *model.Scenario, cfg Config) *Result {
	t.Helper()
	res, err := Verify(scn, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range res.Violations() {
		t.Errorf("violation: %v", v)
	}
	return res
}

// countActions counts the actions of a type over a run.
func countActions(res *Result, typ model.ActionType) int {
	n := 0
	for _, s := range res.Steps {
		for _, a := range s.Plan.Actions {
			if a.Type == typ {
				n++
			}
		}
	}
	return n
}

// finalByRevision counts the active pods of the final state by revision label.
func finalByRevision(res *Result) map[string]int {
	out := map[string]int{}
	for _, p := range res.Final.Pods {
		if !p.Deleting && p.Phase != model.PodFailed {
			out[p.Revision]++
		}
	}
	return out
}

// lookupPod returns a pod of the cluster by name or fails.
func lookupPod(t *testing.T, c *Cluster, name string) *model.Pod {
	t.Helper()
	p := c.Pod(name)
	if p == nil {
		t.Fatalf("pod %s not found", name)
	}
	return p
}
