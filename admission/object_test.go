package admission

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestTypedEncoding: an object reads and writes as kruise's Go types do:
// members in Go field order, unknown members (and the other version's)
// dropped, members always written, quantities canonical, times in UTC.
func TestTypedEncoding(t *testing.T) {
	in := `{"kind":"CloneSet","apiVersion":"apps.kruise.io/v1alpha1","x":1,
	  "status":{"conditions":[{"type":"Progressing","lastUpdateTime":"2024-01-02T03:04:05+02:00"}]},
	  "spec":{"updateStrategy":{"maxSurge":"50%","type":"InPlaceIfPossible","rollingUpdate":{"partition":1}},
	    "scaleStrategy":{"enablePVCReuse":true,"disablePVCReuse":true},
	    "volumeClaimTemplates":[{"spec":{"resources":{"requests":{"storage":"1024Mi"}}},"metadata":{"name":"data"}}],
	    "template":{"spec":{"containers":[{"name":"c","image":"nginx"}]}},"replicas":2},
	  "metadata":{"namespace":"default","name":"web","labels":{"b":"1","a":"2"}}}`
	want := `{"kind":"CloneSet","apiVersion":"apps.kruise.io/v1alpha1",` +
		`"metadata":{"name":"web","namespace":"default","creationTimestamp":null,"labels":{"a":"2","b":"1"}},` +
		`"spec":{"replicas":2,"selector":null,` +
		`"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":[{"name":"c","image":"nginx","resources":{}}]}},` +
		`"volumeClaimTemplates":[{"metadata":{"name":"data","creationTimestamp":null},"spec":{"resources":{"requests":{"storage":"1Gi"}}},"status":{}}],` +
		`"scaleStrategy":{"disablePVCReuse":true},"updateStrategy":{"type":"InPlaceIfPossible","maxSurge":"50%"}},` +
		`"status":{"replicas":0,"readyReplicas":0,"availableReplicas":0,"updatedReplicas":0,"updatedReadyReplicas":0,` +
		`"conditions":[{"type":"Progressing","status":"","lastUpdateTime":"2024-01-02T01:04:05Z","lastTransitionTime":null}]}}`
	if got := jsonOf(t, parse(t, in)); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// TestDecodeErrorsNameTheField: a member the Go types refuse is a
// *DecodeError naming the object and the field path.
func TestDecodeErrorsNameTheField(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{`"replicas":"3"`, `CloneSet default/web: spec.replicas: "3": expected an integer (int32), got a string`},
		{`"replicas":3.5`, `spec.replicas: 3.5: expected an integer (int32)`},
		{`"replicas":2147483648`, `spec.replicas: 2147483648: expected an integer (int32)`},
		{`"updateStrategy":{"rollingUpdate":{"partition":true}}`, `spec.updateStrategy.rollingUpdate.partition: true: expected a string or a 32-bit integer`},
		{`"updateStrategy":{"rollingUpdate":{"partition":1.5}}`, `spec.updateStrategy.rollingUpdate.partition: 1.5: expected a string or a 32-bit integer`},
		{`"scaleStrategy":{"podsToDelete":"a"}`, `spec.scaleStrategy.podsToDelete: "a": expected a list, got a string`},
		{`"volumeClaimTemplates":[{"spec":{"resources":{"requests":{"storage":"lots"}}}}]`, `spec.volumeClaimTemplates[0].spec.resources.requests[storage]: "lots": not a quantity`},
		{`"lifecycle":{"preDelete":{"labelsHandler":{"a":1}}}`, `spec.lifecycle.preDelete.labelsHandler[a]: 1: expected a string, got a number`},
		{`"template":{"spec":{"containers":[{"name":"c","ports":[{"containerPort":"80"}]}]}}`, `spec.template.spec.containers[0].ports[0].containerPort: "80": expected an integer (int32)`},
		{`"template":[]`, `spec.template: []: expected an object, got a list`},
		{`"selector":{"matchExpressions":[{"key":"a","operator":"In","values":[1]}]}`, `spec.selector.matchExpressions[0].values[0]: 1: expected a string`},
	} {
		_, err := Parse([]byte(cloneSet(V1beta1, c.spec)))
		var de *DecodeError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want a DecodeError with %q", c.spec, err, c.want)
		}
	}
}

// TestTypeMeta: the apiVersion and kind say what the object is; anything
// else is refused, naming the object.
func TestTypeMeta(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{`{"kind":"CloneSet","metadata":{"name":"a"}}`, "CloneSet a: apiVersion and kind are required"},
		{`{"apiVersion":"apps.kruise.io/v1","kind":"CloneSet"}`, `apiVersion "apps.kruise.io/v1"`},
		{`{"apiVersion":"v1beta1","kind":"CloneSet"}`, `apiVersion "v1beta1"`},
		{`{"apiVersion":"apps.kruise.io/v1beta1","kind":"Cloneset"}`, `kind "Cloneset": want CloneSet`},
		{`[1]`, "want a JSON object, got a list"},
		{`{"apiVersion":"apps.kruise.io/v1beta1","kind":"CloneSet"} {}`, "trailing data"},
		{`{"apiVersion":`, "not a JSON object"},
	} {
		if _, err := Parse([]byte(c.doc)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.doc, err, c.want)
		}
	}
}

// TestTreeRoundTrip: an object's tree reads back as the same object, and
// the tree holds int64 integers (a client library's unstructured shape).
func TestTreeRoundTrip(t *testing.T) {
	o := parse(t, cloneSet(V1beta1, `"replicas":3,"template":{"spec":{"containers":[{"name":"c","ports":[{"containerPort":80}]}]}}`))
	tree := o.Tree()
	if r := tree["spec"].(map[string]any)["replicas"]; r != int64(3) {
		t.Errorf("replicas %#v", r)
	}
	port := tree["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["ports"].([]any)[0].(map[string]any)["containerPort"]
	if port != int64(80) {
		t.Errorf("a template integer: %#v, want int64", port)
	}
	back, err := FromTree(tree)
	if err != nil {
		t.Fatal(err)
	}
	if jsonOf(t, back) != jsonOf(t, o) {
		t.Fatalf("read back differently:\n%s\n%s", jsonOf(t, back), jsonOf(t, o))
	}
	tree["spec"].(map[string]any)["replicas"] = int64(9)
	if at(t, o, "spec", "replicas") != "3" {
		t.Error("Tree is not a copy")
	}
}

// TestCloneSetModel: the model of an object is manifest's reading of it;
// a nameless object keeps no name.
func TestCloneSetModel(t *testing.T) {
	cs, err := parse(t, cloneSet(V1alpha1, `"updateStrategy":{"type":"InPlaceOnly"}`)).CloneSet()
	if err != nil {
		t.Fatal(err)
	}
	if cs.Name != "web" || cs.V1alpha1 == nil || cs.V1alpha1.UpdateStrategyType != "InPlaceOnly" {
		t.Fatalf("got %+v", cs)
	}
	nameless := parse(t, strings.Replace(cloneSet(V1beta1, ""), `"name":"web",`, "", 1))
	cs, err = nameless.CloneSet()
	if err != nil || cs.Name != "" {
		t.Fatalf("nameless: %+v, %v", cs, err)
	}
	if !reflect.DeepEqual(cs.Spec.Selector.MatchLabels, map[string]string{"app": "web"}) {
		t.Errorf("selector %+v", cs.Spec.Selector)
	}
}

// TestZeroObject: an Object that Parse or FromTree did not make is an
// error in every operation, never a panic.
func TestZeroObject(t *testing.T) {
	var zero Object
	good := parse(t, cloneSet(V1beta1, ""))
	for _, o := range []*Object{nil, &zero} {
		if _, err := Default(o, nil, Gates{}); err == nil {
			t.Error("Default: no error")
		}
		if _, err := Default(good, o, Gates{}); o != nil && err == nil {
			t.Error("Default with a zero old object: no error")
		}
		if _, err := Convert(o, V1alpha1); err == nil {
			t.Error("Convert: no error")
		}
		if _, err := Validate(Create, o, nil, Options{}); err == nil {
			t.Error("Validate: no error")
		}
		if _, err := Validate(Delete, nil, o, Options{}); o != nil && err == nil {
			t.Error("Validate DELETE: no error")
		}
	}
	if _, err := zero.MarshalJSON(); err != nil {
		t.Errorf("MarshalJSON: %v", err)
	}
	if _, err := zero.CloneSet(); err == nil {
		t.Error("CloneSet: no error")
	}
}

// TestUnknownFields: the members the types drop are listed by path, outside
// the template and the claim templates (whose unknown members the CRD keeps
// for the webhook to drop, without a warning).
func TestUnknownFields(t *testing.T) {
	o := parse(t, `{"apiVersion":"apps.kruise.io/v1alpha1","kind":"CloneSet","x":1,"metadata":{"name":"web","Labels":{}},
	 "spec":{"updateStrategy":{"rollingUpdate":{"partition":1},"type":"ReCreate"},"scaleStrategy":{"enablePVCReuse":true},
	  "template":{"spec":{"containers":[{"name":"c","x-unknown":1}]}},"volumeClaimTemplates":[{"metadata":{"name":"d"},"y":2}],
	  "lifecycle":{"preDelete":{"labelsHandler":{},"z":true}}}}`)
	want := []string{"metadata.Labels", "spec.scaleStrategy.enablePVCReuse", "spec.updateStrategy.rollingUpdate", "spec.lifecycle.preDelete.z", "x"}
	if got := o.UnknownFields(); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	d, err := Default(o, nil, Gates{})
	if err != nil || len(d.UnknownFields()) != 0 {
		t.Fatalf("the defaulted object: %v, %v", d.UnknownFields(), err)
	}
}
