package admission_test

import (
	"fmt"

	"github.com/clonecore/cloneset/admission"
)

const written = `{"apiVersion":"apps.kruise.io/v1alpha1","kind":"CloneSet",
 "metadata":{"name":"web","namespace":"default"},
 "spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},
  "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1.25"}]}},
  "updateStrategy":{"type":"InPlaceIfPossible","maxUnavailable":0}}}`

// A CloneSet through the mutating webhook: its version's defaults.
func ExampleDefault() {
	obj, err := admission.Parse([]byte(written))
	if err != nil {
		panic(err)
	}
	d, err := admission.Default(obj, nil, admission.Gates{}) // a create
	if err != nil {
		panic(err)
	}
	tree := d.Tree()
	fmt.Println(tree["spec"].(map[string]any)["updateStrategy"])
	fmt.Println(tree["spec"].(map[string]any)["revisionHistoryLimit"])
	// Output:
	// map[inPlaceUpdateStrategy:map[] maxSurge:0 maxUnavailable:0 partition:0 type:InPlaceIfPossible]
	// 10
}

// A CloneSet through the validating webhook: each refusal names its field.
func ExampleValidate() {
	obj, _ := admission.Parse([]byte(written))
	d, _ := admission.Default(obj, nil, admission.Gates{})
	errs, err := admission.Validate(admission.Create, d, nil, admission.Options{})
	if err != nil {
		panic(err)
	}
	for _, e := range errs {
		fmt.Println(e.Error())
		fmt.Println(e.Type.CauseType(), e.Rule)
	}
	// Output:
	// spec.updateStrategy.maxUnavailable: Invalid value: 0: maxUnavailable and maxSurge should not both be less than 1
	// FieldValueInvalid A17
}

// A v1alpha1 CloneSet in the v1beta1 hub, as the conversion webhook returns it.
func ExampleConvert() {
	obj, _ := admission.Parse([]byte(written))
	d, _ := admission.Default(obj, nil, admission.Gates{})
	hub, err := admission.Convert(d, admission.V1beta1)
	if err != nil {
		panic(err)
	}
	spec := hub.Tree()["spec"].(map[string]any)
	fmt.Println(hub.Version(), spec["updateStrategy"])
	fmt.Println(spec["scaleStrategy"])
	// Output:
	// v1beta1 map[rollingUpdate:map[inPlaceUpdateStrategy:map[] maxSurge:0 maxUnavailable:0 partition:0 podUpdatePolicy:InPlaceIfPossible] type:RollingUpdate]
	// map[enablePVCReuse:true]
}

// What a webhook server does with one admission request: the mutating
// webhook's object (its JSON is the patch's target), then the validating
// webhook's verdict on it.
func ExampleRequest() {
	req := admission.Request{Operation: admission.Create, Version: "v1alpha1", Object: []byte(written)}
	obj, changed, err := req.Default()
	if err != nil {
		panic(err) // the webhook answers 400 Bad Request
	}
	patched, _ := obj.MarshalJSON()
	fmt.Println(changed, len(patched) > 0)

	req.Object = patched
	errs, err := req.Validate()
	if err != nil {
		panic(err)
	}
	fmt.Println(len(errs), "refusal:", errs[0].Path)
	// Output:
	// true true
	// 1 refusal: spec.updateStrategy.maxUnavailable
}

// The conversion webhook on JSON.
func ExampleConvertJSON() {
	out, err := admission.ConvertJSON([]byte(`{"apiVersion":"apps.kruise.io/v1beta1","kind":"CloneSet","metadata":{"name":"web"},
	 "spec":{"selector":{"matchLabels":{"app":"web"}},"updateStrategy":{"type":"OnDelete"}}}`), admission.V1alpha1)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(out))
	// Output:
	// {"kind":"CloneSet","apiVersion":"apps.kruise.io/v1alpha1","metadata":{"name":"web","creationTimestamp":null},"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":null}},"scaleStrategy":{"disablePVCReuse":true},"updateStrategy":{"type":"OnDelete"}},"status":{"replicas":0,"readyReplicas":0,"availableReplicas":0,"updatedReplicas":0,"updatedReadyReplicas":0}}
}
