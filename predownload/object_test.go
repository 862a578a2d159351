package predownload

import (
	"testing"

	"github.com/clonecore/cloneset/model"
)

// TestNewObjectBytes pins the ImagePullJob of P7 byte for byte: the members
// in the order of OpenKruise's v1beta1 types, null creationTimestamp, the
// empty status, HTML characters escaped as encoding/json escapes them.
func TestNewObjectBytes(t *testing.T) {
	in := input()
	cs := in.CloneSet
	cs.Spec.Selector.MatchExpressions = []model.LabelSelectorRequirement{{Key: "tier", Operator: model.OpExists}}
	cs.Spec.Template.Labels["tier"] = "fe"
	cs.Spec.Template.Annotations = map[string]string{"note": "a<b"}
	cs.Spec.Template.Raw["spec"].(map[string]any)["imagePullSecrets"] = []any{map[string]any{"name": "reg"}, map[string]any{}}
	cs.Spec.UpdateStrategy.RollingUpdate.InPlaceUpdateStrategy = &model.InPlaceUpdateStrategy{
		ImagePreDownloadParallelism: ptr(model.FromInt(2)), ImagePreDownloadTimeoutSeconds: ptr(int32(60)),
	}
	labels := `{"app":"web","controller.kubernetes.io/hash":"2","tier":"fe"}`
	want := `{"kind":"ImagePullJob","apiVersion":"apps.kruise.io/v1beta1",` +
		`"metadata":{"name":"web-2-main","namespace":"ns","creationTimestamp":null,"labels":` + labels + `,` +
		`"ownerReferences":[{"apiVersion":"apps.kruise.io/v1beta1","kind":"CloneSet","name":"web","uid":"uid-web","controller":true,"blockOwnerDeletion":true}]},` +
		`"spec":{"image":"nginx:2","pullSecrets":["reg",""],` +
		`"podSelector":{"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"Exists"},{"key":"controller-revision-hash","operator":"NotIn","values":["web-2","2"]}]},` +
		`"parallelism":2,"pullPolicy":{"timeoutSeconds":60,"backoffLimit":1},"completionPolicy":{"type":"Always","ttlSecondsAfterFinished":600},` +
		`"sandboxConfig":{"labels":` + labels + `,"annotations":{"note":"a\u003cb"}}},` +
		`"status":{"desired":0,"active":0,"succeeded":0,"failed":0}}`
	got, err := NewObject(cs, in.Update, Job{"web-2-main", "main", "nginx:2"}).JSON()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("object:\n got  %s\n want %s", got, want)
	}
}

// TestNewObjectDefaults: without a strategy, pull secrets, annotations or
// hash label the object has the defaults (parallelism 1, timeout 300), no
// pullSecrets and no sandbox annotations, and the hash label's value "" in
// the labels and the selector, as upstream reads a missing label.
func TestNewObjectDefaults(t *testing.T) {
	in := input()
	delete(in.Update.Labels, model.LabelControllerRevisionHash)
	in.CloneSet.Spec.Template.Annotations = map[string]string{}
	labels := `{"app":"web","controller.kubernetes.io/hash":""}`
	want := `{"kind":"ImagePullJob","apiVersion":"apps.kruise.io/v1beta1",` +
		`"metadata":{"name":"web-2-main","namespace":"ns","creationTimestamp":null,"labels":` + labels + `,` +
		`"ownerReferences":[{"apiVersion":"apps.kruise.io/v1beta1","kind":"CloneSet","name":"web","uid":"uid-web","controller":true,"blockOwnerDeletion":true}]},` +
		`"spec":{"image":"nginx:2",` +
		`"podSelector":{"matchLabels":{"app":"web"},"matchExpressions":[{"key":"controller-revision-hash","operator":"NotIn","values":["web-2",""]}]},` +
		`"parallelism":1,"pullPolicy":{"timeoutSeconds":300,"backoffLimit":1},"completionPolicy":{"type":"Always","ttlSecondsAfterFinished":600},` +
		`"sandboxConfig":{"labels":` + labels + `}},` +
		`"status":{"desired":0,"active":0,"succeeded":0,"failed":0}}`
	got, err := NewObject(in.CloneSet, in.Update, Job{"web-2-main", "main", "nginx:2"}).JSON()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("object:\n got  %s\n want %s", got, want)
	}
	// A string parallelism is written as a string.
	in.CloneSet.Spec.UpdateStrategy.RollingUpdate.InPlaceUpdateStrategy = &model.InPlaceUpdateStrategy{ImagePreDownloadParallelism: ptr(model.FromString("3"))}
	o := NewObject(in.CloneSet, in.Update, Job{"web-2-main", "main", "nginx:2"})
	if b, _ := o.Spec.Parallelism.MarshalJSON(); string(b) != `"3"` {
		t.Errorf("string parallelism written %s, want \"3\"", b)
	}
}

// TestNewObjectSharesNothing: the object holds no map or slice of the
// CloneSet, which a caller may then change without changing the CloneSet.
func TestNewObjectSharesNothing(t *testing.T) {
	in := input()
	in.CloneSet.Spec.Selector.MatchExpressions = []model.LabelSelectorRequirement{{Key: "k", Operator: model.OpIn, Values: []string{"v"}}}
	in.CloneSet.Spec.Template.Annotations = map[string]string{"a": "b"}
	o := NewObject(in.CloneSet, in.Update, Job{"web-2-main", "main", "nginx:2"})
	o.Spec.PodSelector.MatchLabels["app"] = "changed"
	o.Spec.PodSelector.MatchExpressions[0].Values[0] = "changed"
	o.Spec.SandboxConfig.Annotations["a"] = "changed"
	o.Metadata.Labels["app"] = "changed"
	cs := in.CloneSet
	if cs.Spec.Selector.MatchLabels["app"] != "web" || cs.Spec.Selector.MatchExpressions[0].Values[0] != "v" ||
		cs.Spec.Template.Annotations["a"] != "b" || cs.Spec.Template.Labels["app"] != "web" {
		t.Fatal("the object shares memory with the CloneSet")
	}
}
