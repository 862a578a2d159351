package admission

import (
	"reflect"
	"strings"
	"testing"
)

// TestIntegersComeBackExact: an integer anywhere in the object, the pod
// template and the claim templates included, comes back from Parse,
// Default and Convert exactly as kruise's Go types (int64, int32) write it,
// beyond 2^53 and at the ends of its range; Tree holds it as an int64.
func TestIntegersComeBackExact(t *testing.T) {
	const (
		big    = "9007199254740993" // 2^53+1: float64 would make it ...992
		max64  = "9223372036854775807"
		min64  = "-9223372036854775808"
		max32  = "2147483647"
		inTmpl = `"template":{"metadata":{"generation":` + max64 + `},"spec":{"activeDeadlineSeconds":` + big +
			`,"terminationGracePeriodSeconds":` + min64 + `,"priority":` + max32 +
			`,"containers":[{"name":"c","image":"nginx:1.25","livenessProbe":{"exec":{"command":["x"]},"periodSeconds":` + max32 + `}}]}}`
		inClaim = `"volumeClaimTemplates":[{"metadata":{"name":"data","generation":` + big + `}}]`
	)
	doc := cloneSet(V1beta1, "")
	doc = strings.Replace(doc, `"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx:1.25"}]}}`, inTmpl+","+inClaim, 1)
	obj := parse(t, doc)
	defaulted, err := Default(obj, nil, Gates{})
	if err != nil {
		t.Fatal(err)
	}
	converted, err := Convert(defaulted, V1alpha1)
	if err != nil {
		t.Fatal(err)
	}
	for name, o := range map[string]*Object{"parsed": obj, "defaulted": defaulted, "converted": converted} {
		got := jsonOf(t, o)
		for _, want := range []string{
			`"generation":` + max64, `"activeDeadlineSeconds":` + big, `"terminationGracePeriodSeconds":` + min64,
			`"priority":` + max32, `"periodSeconds":` + max32, `"name":"data","generation":` + big,
		} {
			if !strings.Contains(got, want) {
				t.Errorf("%s: %s is not in %s", name, want, got)
			}
		}
		spec := o.Tree()["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
		if n, ok := spec["activeDeadlineSeconds"].(int64); !ok || n != 9007199254740993 {
			t.Errorf("%s: Tree holds activeDeadlineSeconds as %#v, want int64 %s", name, spec["activeDeadlineSeconds"], big)
		}
	}
}

// TestFieldsV1KeepsItsText: a managed fields entry's fieldsV1 (the
// CloneSet's own, the pod template's, a claim template's) is
// metav1.FieldsV1, which keeps the text it was read from: members in their
// order, numbers as written, compacted, &, < and > escaped. Parse, Default
// and Convert give it back so; Tree decodes it as apimachinery decodes an
// unstructured object (int64 when the number has no point and fits, else
// float64).
func TestFieldsV1KeepsItsText(t *testing.T) {
	const (
		fields = `{ "z":{"f:a":{}}, "n":1.50, "i":9007199254740993, "<":"&" }`
		want   = `"fieldsV1":{"z":{"f:a":{}},"n":1.50,"i":9007199254740993,"\u003c":"\u0026"}`
	)
	managed := `"managedFields":[{"manager":"kubectl","fieldsV1":` + fields + `}]`
	doc := strings.Replace(cloneSet(V1beta1, `"volumeClaimTemplates":[{"metadata":{"name":"data",`+managed+`}}]`),
		`"namespace":"default"}`, `"namespace":"default",`+managed+`}`, 1)
	doc = strings.Replace(doc, `"template":{"metadata":{`, `"template":{"metadata":{`+managed+`,`, 1)
	obj := parse(t, doc)
	defaulted, err := Default(obj, nil, Gates{})
	if err != nil {
		t.Fatal(err)
	}
	converted, err := Convert(defaulted, V1alpha1)
	if err != nil {
		t.Fatal(err)
	}
	for name, o := range map[string]*Object{"parsed": obj, "defaulted": defaulted, "converted": converted} {
		if got := jsonOf(t, o); strings.Count(got, want) != 3 {
			t.Errorf("%s: want %s three times in %s", name, want, got)
		}
	}
	tree := obj.Tree()["metadata"].(map[string]any)["managedFields"].([]any)[0].(map[string]any)["fieldsV1"]
	wantTree := map[string]any{"z": map[string]any{"f:a": map[string]any{}}, "n": 1.5, "i": int64(9007199254740993), "<": "&"}
	if !reflect.DeepEqual(tree, wantTree) {
		t.Errorf("Tree: fieldsV1 %#v, want %#v", tree, wantTree)
	}
	again, err := FromTree(obj.Tree())
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonOf(t, again); !strings.Contains(got, `"fieldsV1":{"\u003c":"\u0026","i":9007199254740993,"n":1.5,"z":{"f:a":{}}}`) {
		t.Errorf("FromTree of Tree: the tree's JSON (members sorted) is the text: %s", got)
	}
}
