package lifecycle_test

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/clonecore/cloneset/lifecycle"
	"github.com/clonecore/cloneset/model"
)

func revision(name string, n int64, image string) *model.Revision {
	d := json.NewDecoder(bytes.NewReader([]byte(`{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"main","image":"` + image + `"}]}}`)))
	d.UseNumber()
	var raw map[string]any
	if err := d.Decode(&raw); err != nil {
		panic(err)
	}
	return &model.Revision{Name: name, Revision: n, HasTemplate: true, Template: model.PodTemplate{Raw: raw}}
}

// An image-only change under InPlaceIfPossible with an inPlaceUpdate hook
// (update-and-ordering Example 8): the hooked pod first enters PreparingUpdate; once
// the hook controller removed the label, the pod is updated in place, with a grace
// period.
func ExampleDecideUpdate() {
	cs := &model.CloneSet{Name: "web"}
	cs.Spec.UpdateStrategy = model.UpdateStrategy{Type: model.UpdateStrategyRollingUpdate, RollingUpdate: &model.RollingUpdateStrategy{
		PodUpdatePolicy:       model.PolicyInPlaceIfPossible,
		InPlaceUpdateStrategy: &model.InPlaceUpdateStrategy{GracePeriodSeconds: 10},
	}}
	cs.Spec.Lifecycle = &model.Lifecycle{InPlaceUpdate: &model.LifecycleHook{
		LabelsHandler: map[string]string{"example.io/block": "true"}, MarkPodNotReady: true}}
	p := &model.Pod{
		Name: "web-q",
		Labels: map[string]string{model.LabelRevisionHash: "web-1", model.LabelLifecycleState: model.StateNormal,
			"example.io/block": "true"},
		Spec: model.PodSpec{ReadinessGates: []string{model.ConditionInPlaceUpdateReady, model.ConditionKruisePodReady}},
	}
	in := lifecycle.UpdateInput{CloneSet: cs, Pod: p, Target: "web-2", Gates: model.DefaultFeatureGates(),
		Revisions: []*model.Revision{revision("web-1", 1, "nginx:1"), revision("web-2", 2, "nginx:2")}}

	d := lifecycle.DecideUpdate(in)
	b, _ := json.Marshal(d.Actions)
	fmt.Println(d.Rule, string(b))

	// The adapter applied the state; the hook controller removed the label.
	p.Labels[model.LabelLifecycleState] = model.StatePreparingUpdate
	delete(p.Labels, "example.io/block")
	d = lifecycle.DecideUpdate(in)
	b, _ = json.Marshal(d.Actions)
	fmt.Println(d.Rule, string(b), d.RequeueAfter)
	// Output:
	// T3 [{"type":"SetLifecycleState","pod":"web-q","from":"Normal","to":"PreparingUpdate","markPodNotReady":true,"reason":"in-place update: inPlaceUpdate hook present (markers labels example.io/block=true), wait in PreparingUpdate; adds not-ready key preUpdateHook"}]
	// T5 [{"type":"UpdatePodInPlace","pod":"web-q","fromRevision":"web-1","toRevision":"web-2","gracePeriodSeconds":10,"reason":"rolling update in place: images main=nginx:2; grace period 10s"}] 10s
}
