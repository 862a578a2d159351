package predownload_test

import (
	"fmt"

	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/predownload"
)

// Decide on a rollout of five pods from nginx:1 to nginx:2 in place: an
// ImagePullJob for the new image, then the revision's mark; NewObject is the
// job upstream creates.
func ExampleDecide() {
	tmpl := func(image string) model.PodTemplate {
		return model.PodTemplate{
			Labels: map[string]string{"app": "web"},
			Spec:   model.PodSpec{Containers: []model.Container{{Name: "main", Image: image}}},
			Raw: map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "main", "image": image}}}},
		}
	}
	replicas := int32(5)
	cs := &model.CloneSet{Name: "web", Namespace: "prod", UID: "uid-web"}
	cs.Spec.Replicas = &replicas
	cs.Spec.Selector = &model.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	cs.Spec.Template = tmpl("nginx:2")
	cs.Spec.UpdateStrategy.RollingUpdate = &model.RollingUpdateStrategy{PodUpdatePolicy: model.PolicyInPlaceIfPossible}
	current := &model.Revision{Name: "web-1", Template: tmpl("nginx:1"), HasTemplate: true}
	update := &model.Revision{Name: "web-2", Template: tmpl("nginx:2"), HasTemplate: true,
		Labels: map[string]string{model.LabelControllerRevisionHash: "2"}}

	d := predownload.Decide(predownload.Input{CloneSet: cs, Current: current, Update: update,
		Gates: model.FeatureGates{PreDownloadImageForInPlaceUpdate: true}})
	fmt.Println(d.Outcome, d.Create, d.Label)
	o := predownload.NewObject(cs, update, d.Create[0])
	fmt.Println(o.Metadata.Name, o.Spec.Image, o.Spec.Parallelism.String(), o.Spec.PullPolicy.TimeoutSeconds)
	// Output:
	// Created [{web-2-main main nginx:2}] apps.kruise.io/pre-predownload-created
	// web-2-main nginx:2 1 300
}
