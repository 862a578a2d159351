package admission

import (
	"strings"
	"testing"

	"github.com/clonecore/cloneset/model"
)

// defaulted is a CloneSet after the mutating webhook of its create.
func defaulted(t *testing.T, doc string) *Object {
	t.Helper()
	d, err := Default(parse(t, doc), nil, Gates{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// verdict renders refusals as "path: rule" lines.
func verdict(errs FieldErrors) string {
	var l []string
	for _, e := range errs {
		l = append(l, e.Path+": "+e.Rule)
	}
	return strings.Join(l, "; ")
}

// TestValidateCreate: the create rules of each version, as the model
// states them (model's tests hold every rule; these show the wiring: the
// object's version, the template, the paths).
func TestValidateCreate(t *testing.T) {
	for _, c := range []struct {
		name    string
		version Version
		spec    string
		want    string
	}{
		{"a valid v1alpha1 CloneSet", V1alpha1, ``, ""},
		{"a valid v1beta1 CloneSet", V1beta1, ``, ""},
		{"v1alpha1 OnDelete is refused", V1alpha1, `"updateStrategy":{"type":"OnDelete"}`, "spec.updateStrategy.type: A11"},
		{"v1beta1 OnDelete is fine", V1beta1, `"updateStrategy":{"type":"OnDelete"}`, ""},
		{"v1alpha1 budget both 0", V1alpha1, `"updateStrategy":{"maxUnavailable":0}`, "spec.updateStrategy.maxUnavailable: A17"},
		{"v1beta1 budget: maxSurge does not rescue it", V1beta1, `"updateStrategy":{"rollingUpdate":{"maxUnavailable":0,"maxSurge":1}}`, "spec.updateStrategy.rollingUpdate.maxUnavailable: B17"},
		{"v1beta1 OnDelete with a hand-written rollingUpdate: partition required", V1beta1, `"updateStrategy":{"type":"OnDelete","rollingUpdate":{"maxUnavailable":1}}`, "spec.updateStrategy.rollingUpdate.partition: B12"},
		{"a claim template named like a volume", V1beta1, `"template":{"metadata":{"labels":{"app":"web"}},"spec":{"volumes":[{"name":"data","emptyDir":{}}],"containers":[{"name":"c","image":"nginx"}]}},"volumeClaimTemplates":[{"metadata":{"name":"data"}}]`, "spec.template.spec.volumes[1].name: B6"},
		{"negative replicas", V1alpha1, `"replicas":-1`, "spec.replicas: A2"},
		{"v1alpha1 progressDeadlineSeconds below minReadySeconds", V1alpha1, `"minReadySeconds":10,"progressDeadlineSeconds":5`, "spec.progressDeadlineSeconds: A18"},
		{"v1beta1 does not check progressDeadlineSeconds", V1beta1, `"minReadySeconds":10,"progressDeadlineSeconds":5`, ""},
	} {
		errs, err := Validate(Create, defaulted(t, cloneSet(c.version, c.spec)), nil, Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := verdict(errs); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

// TestValidateUpdate: the update rules: what must not change, InPlaceOnly's
// image-only changes (v1alpha1 only, on the templates as received), and
// podsToDelete names looked up only when new.
func TestValidateUpdate(t *testing.T) {
	withMarkedTemplates(t) // the checked template is defaulted, the received ones are not
	base := func(v Version, spec string) *Object {
		d, err := Default(parse(t, cloneSet(v, spec)), nil, Gates{TemplateNoDefaults: true})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	inPlaceOnly := `"updateStrategy":{"type":"InPlaceOnly","maxUnavailable":1}`
	newImage := func(v Version, spec string) *Object {
		d, err := Default(parse(t, strings.Replace(cloneSet(v, spec), "nginx:1.25", "nginx:1.26", 1)), nil, Gates{TemplateNoDefaults: true})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	newEnv := func(v Version, spec string) *Object {
		d, err := Default(parse(t, strings.Replace(cloneSet(v, spec), `"image":"nginx:1.25"`, `"image":"nginx:1.25","env":[{"name":"A","value":"1"}]`, 1)), nil, Gates{TemplateNoDefaults: true})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	owned := &model.Pod{Name: "web-a", OwnerReferences: []model.OwnerReference{{Kind: "CloneSet", Name: "web", UID: "", Controller: true}}}
	for _, c := range []struct {
		name     string
		obj, old *Object
		find     func(string) *model.Pod
		want     string
	}{
		{"nothing changed", base(V1alpha1, ""), base(V1alpha1, ""), nil, ""},
		{"the selector changed", base(V1beta1, ""), parse(t, strings.Replace(cloneSet(V1beta1, ""), `"matchLabels":{"app":"web"}`, `"matchLabels":{"app":"web"},"matchExpressions":[{"key":"app","operator":"Exists"}]`, 1)), nil, "spec: A20"},
		{"the name changed", base(V1beta1, ""), parse(t, strings.Replace(cloneSet(V1beta1, ""), `"name":"web"`, `"name":"api"`, 1)), nil, "metadata.name: A19"},
		{"InPlaceOnly, a new image", newImage(V1alpha1, inPlaceOnly), base(V1alpha1, inPlaceOnly), nil, ""},
		{"InPlaceOnly, a new env", newEnv(V1alpha1, inPlaceOnly), base(V1alpha1, inPlaceOnly), nil, "spec: A21"},
		{"v1beta1 has no InPlaceOnly update rule", newEnv(V1beta1, `"updateStrategy":{"rollingUpdate":{"podUpdatePolicy":"InPlaceOnly","maxUnavailable":1}}`), base(V1beta1, `"updateStrategy":{"rollingUpdate":{"podUpdatePolicy":"InPlaceOnly","maxUnavailable":1}}`), nil, ""},
		{"a new podsToDelete name of no pod", base(V1alpha1, `"scaleStrategy":{"podsToDelete":["web-a","web-b"]}`), base(V1alpha1, `"scaleStrategy":{"podsToDelete":["web-a"]}`), nil, "spec.scaleStrategy.podsToDelete: A10"},
		{"a new podsToDelete name of an owned pod", base(V1alpha1, `"scaleStrategy":{"podsToDelete":["web-a"]}`), base(V1alpha1, ""), func(n string) *model.Pod {
			if n == "web-a" {
				return owned
			}
			return nil
		}, ""},
	} {
		errs, err := Validate(Update, c.obj, c.old, Options{FindPod: c.find})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := verdict(errs); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

// TestValidateDelete: deletion protection, only with its gate, Always at
// once, Cascading while replicas > 0, never for an object being deleted.
func TestValidateDelete(t *testing.T) {
	obj := func(label, replicas, deletion string) *Object {
		md := `"name":"web","namespace":"default"`
		if label != "" {
			md += `,"labels":{"policy.kruise.io/delete-protection":"` + label + `"}`
		}
		if deletion != "" {
			md += `,"deletionTimestamp":"` + deletion + `"`
		}
		spec := `"selector":{"matchLabels":{"app":"web"}}`
		if replicas != "" {
			spec += `,"replicas":` + replicas
		}
		return parse(t, `{"apiVersion":"apps.kruise.io/v1beta1","kind":"CloneSet","metadata":{`+md+`},"spec":{`+spec+`}}`)
	}
	on := Gates{ResourcesDeletionProtection: true}
	for _, c := range []struct {
		name  string
		old   *Object
		gates Gates
		want  string
	}{
		{"Always, gate off (kruise's default)", obj("Always", "1", ""), Gates{}, ""},
		{"Always", obj("Always", "0", ""), on, "forbidden by ResourcesProtectionDeletion for policy.kruise.io/delete-protection=Always"},
		{"Cascading with replicas", obj("Cascading", "2", ""), on, "forbidden by ResourcesProtectionDeletion for policy.kruise.io/delete-protection=Cascading and replicas 2>0"},
		{"Cascading at 0 replicas", obj("Cascading", "0", ""), on, ""},
		{"Cascading without replicas (not defaulted: nil)", obj("Cascading", "", ""), on, ""},
		{"Always, already being deleted", obj("Always", "1", "2024-01-01T00:00:00Z"), on, ""},
		{"another value", obj("always", "1", ""), on, ""},
		{"no label", obj("", "1", ""), on, ""},
	} {
		errs, err := Validate(Delete, nil, c.old, Options{Gates: c.gates})
		if err != nil {
			t.Fatal(err)
		}
		var got string
		if len(errs) == 1 {
			got = errs[0].Message
			if errs[0].Path != "metadata.labels[policy.kruise.io/delete-protection]" || errs[0].Type != model.ErrorTypeForbidden {
				t.Errorf("%s: %v", c.name, errs[0])
			}
		} else if len(errs) > 1 {
			t.Errorf("%s: %d errors", c.name, len(errs))
		}
		if got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
	if errs, err := Validate(Delete, nil, nil, Options{Gates: on}); err != nil || errs != nil {
		t.Errorf("a delete without the old object is admitted (as upstream): %v, %v", errs, err)
	}
}

// TestValidateRefusesBadRequests: what the webhook cannot judge is an error.
func TestValidateRefusesBadRequests(t *testing.T) {
	a, b := parse(t, cloneSet(V1alpha1, "")), parse(t, cloneSet(V1beta1, ""))
	for _, c := range []struct {
		op       Operation
		obj, old *Object
	}{{Create, nil, nil}, {Update, a, nil}, {Update, a, b}, {"CONNECT", a, nil}} {
		if _, err := Validate(c.op, c.obj, c.old, Options{}); err == nil {
			t.Errorf("%s: no error", c.op)
		}
	}
}
