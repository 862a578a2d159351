package admission

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/clonecore/cloneset/podtemplate"
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

// withContainer is a v1beta1 CloneSet whose one container has the members
// given (a JSON object's members, without braces) besides its name and
// image.
func withContainer(members string) string {
	return strings.Replace(cloneSet(V1beta1, ""), `"image":"nginx:1.25"}`, `"image":"nginx:1.25",`+members+`}`, 1)
}

// TestValuesAsKruiseDecodesThem: the values at the edges of what kruise's
// Go types read, one case each: what the webhook's decoder does with the
// bytes it is given (refuse: the webhook answers 400; or read, and write
// back as the typed object writes), and the library the same. The API
// server sends a webhook the JSON encoding/json writes for its
// unstructured object (integers without a point that fit int64 as
// themselves, other numbers as float64, strings escaped as encoding/json
// escapes them, one value per member), so some of these bytes only come
// from other callers: Parse still reads them as kruise's decoder would.
func TestValuesAsKruiseDecodesThem(t *testing.T) {
	for _, c := range []struct {
		name, doc string
		want      string // a fragment of the typed JSON, or of the error with refused
		refused   bool
	}{
		// Integers: encoding/json reads a Go integer from an integer literal
		// in range only.
		{"int32 beyond its range", cloneSet(V1beta1, `"replicas":2147483648`), `spec.replicas: 2147483648: expected an integer (int32)`, true},
		{"int32 below its range", cloneSet(V1beta1, `"minReadySeconds":-2147483649`), `spec.minReadySeconds: -2147483649: expected an integer (int32)`, true},
		{"int64 beyond its range", withContainer(`"livenessProbe":{"exec":{},"terminationGracePeriodSeconds":9223372036854775808}`), `terminationGracePeriodSeconds: 9223372036854775808: expected an integer (int64)`, true},
		{"an integer written with a point", cloneSet(V1beta1, `"replicas":3.0`), `spec.replicas: 3.0: expected an integer (int32)`, true},
		{"an integer written with an exponent", withContainer(`"ports":[{"containerPort":8e1}]`), `containerPort: 8e1: expected an integer (int32)`, true},
		{"an integer written as a string", cloneSet(V1beta1, `"replicas":"3"`), `spec.replicas: "3": expected an integer (int32)`, true},
		{"minus zero is zero", cloneSet(V1beta1, `"replicas":-0`), `"replicas":0,`, false},
		// Int-or-string: a JSON string is a string, as written; anything
		// else an int32 literal.
		{"an int-or-string string keeps its text", cloneSet(V1beta1, `"updateStrategy":{"rollingUpdate":{"maxUnavailable":"020"}}`), `"maxUnavailable":"020"`, false},
		{"an int-or-string string written with escapes is read", cloneSet(V1beta1, `"updateStrategy":{"rollingUpdate":{"maxUnavailable":"\u0032\u0030%"}}`), `"maxUnavailable":"20%"`, false},
		{"an int-or-string number with a point", cloneSet(V1beta1, `"updateStrategy":{"rollingUpdate":{"maxSurge":1.0}}`), `maxSurge: 1.0: expected a string or a 32-bit integer`, true},
		{"an int-or-string beyond int32", cloneSet(V1beta1, `"updateStrategy":{"rollingUpdate":{"maxSurge":2147483648}}`), `maxSurge: 2147483648: expected a string or a 32-bit integer`, true},
		{"an int-or-string boolean", withContainer(`"readinessProbe":{"tcpSocket":{"port":true}}`), `port: true: expected a string or a 32-bit integer`, true},
		{"a negative int-or-string", withContainer(`"readinessProbe":{"tcpSocket":{"port":-1}}`), `"tcpSocket":{"port":-1}`, false},
		// Booleans: true and false only; false is an empty omitempty member.
		{"a boolean written as a string", withContainer(`"stdin":"true"`), `stdin: "true": expected true or false, got a string`, true},
		{"a boolean written as a number", withContainer(`"tty":1`), `tty: 1: expected true or false, got a number`, true},
		{"a false boolean is left out", cloneSet(V1beta1, `"updateStrategy":{"rollingUpdate":{"paused":false}}`), `"rollingUpdate":{"partition":0,"maxUnavailable":"20%","maxSurge":0,"podUpdatePolicy":"ReCreate"}`, false},
		// Quantities: resource.Quantity parses the text between the quotes
		// as written (not unescaped), trimmed of spaces.
		{"a quantity written with a JSON escape", withContainer(`"resources":{"limits":{"memory":"\u0031Gi"}}`), `limits[memory]: "\u0031Gi": not a quantity`, true},
		{"a quantity with an escaped tab", withContainer(`"resources":{"limits":{"memory":"\t1Gi"}}`), `limits[memory]: "\t1Gi": not a quantity`, true},
		{"a quantity trimmed of spaces, a no-break space too", withContainer(`"resources":{"limits":{"memory":" 1Gi` + "\u00a0" + `"}}`), `"limits":{"memory":"1Gi"}`, false},
		{"a quantity trimmed of a line separator written as it is", withContainer(`"resources":{"limits":{"memory":"1Gi` + "\u2028" + `"}}`), `"limits":{"memory":"1Gi"}`, false},
		{"a quantity's text kept when it looks canonical", withContainer(`"resources":{"limits":{"cpu":"+1","memory":"0100Mi"}}`), `"limits":{"cpu":"+1","memory":"0100Mi"}`, false},
		{"a quantity written as a number", withContainer(`"resources":{"limits":{"cpu":0.5,"memory":1e9}}`), `"limits":{"cpu":"500m","memory":"1e9"}`, false},
		{"a quantity that is a boolean", withContainer(`"resources":{"limits":{"cpu":true}}`), `limits[cpu]: true: expected a quantity`, true},
		// Strings: read as encoding/json reads them, written as it writes them.
		{"strings with escapes are read", cloneSet(V1beta1, `"scaleStrategy":{"podsToDelete":["\u00e9\/\ud83d\ude00\ud800"]}`), `"podsToDelete":["é/😀` + "\ufffd" + `"]`, false},
		{"&, < and > and the line separators are escaped", cloneSet(V1beta1, `"scaleStrategy":{"podsToDelete":["<a&b>`+"\u2028\u2029"+`"]}`), `"podsToDelete":["\u003ca\u0026b\u003e\u2028\u2029"]`, false},
		// Nulls: the zero value of the member's Go type.
		{"null in a list of strings is an empty string", cloneSet(V1beta1, `"scaleStrategy":{"podsToDelete":[null,"a"]}`), `"podsToDelete":["","a"]`, false},
		{"null in a list of structs is a zero struct", withContainer(`"ports":[null]`), `"ports":[{"containerPort":0,"protocol":"TCP"}]`, false},
		{"null for a pointer is absent", cloneSet(V1beta1, `"updateStrategy":{"rollingUpdate":{"maxUnavailable":null}}`), `"maxUnavailable":"20%"`, false},
		// A member written twice: the last counts (the API server never
		// sends one; kruise's decoder given such bytes would merge objects).
		{"a member written twice: the last counts", cloneSet(V1beta1, `"replicas":1,"replicas":2`), `"replicas":2,`, false},
		// Times: RFC 3339, written in UTC to the second.
		{"a time in UTC to the second", strings.Replace(cloneSet(V1beta1, ""), `"namespace":"default"`, `"namespace":"default","creationTimestamp":"2024-02-29T23:59:59.999999999-01:00"`, 1), `"creationTimestamp":"2024-03-01T00:59:59Z"`, false},
		{"a time that is not RFC 3339", strings.Replace(cloneSet(V1beta1, ""), `"namespace":"default"`, `"namespace":"default","creationTimestamp":"2024-02-30T00:00:00Z"`, 1), `metadata.creationTimestamp: "2024-02-30T00:00:00Z": expected an RFC 3339 time`, true},
	} {
		obj, err := Parse([]byte(c.doc))
		if c.refused {
			var de *DecodeError
			if !errors.As(err, &de) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: got %v, want a DecodeError with %s", c.name, err, c.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		d, err := Default(obj, nil, Gates{})
		if err != nil {
			t.Errorf("%s: Default: %v", c.name, err)
			continue
		}
		if got := jsonOf(t, d); !strings.Contains(got, c.want) {
			t.Errorf("%s: %s is not in %s", c.name, c.want, got)
		}
	}
}

// TestTemplateChangedAsDeepEqual: an update gets the template's defaults
// exactly when reflect.DeepEqual of the old and new typed templates is
// false, which sees what the typed encoding does not keep: the stored
// template (old) against the same template written otherwise, one case
// each (podtemplate's TestDecodedKey has the rest, and the example module
// holds the key to DeepEqual on generated templates).
func TestTemplateChangedAsDeepEqual(t *testing.T) {
	withMarkedTemplates(t)
	old := parse(t, withContainer(`"resources":{"limits":{"cpu":"1"}},"livenessProbe":{"exec":{}}`))
	for _, c := range []struct {
		name, members string
		inject        bool
	}{
		{"the same template", `"resources":{"limits":{"cpu":"1"}},"livenessProbe":{"exec":{}}`, false},
		{"an unknown member, a null", `"resources":{"limits":{"cpu":"1"}},"livenessProbe":{"exec":{}},"x-unknown":1,"env":null`, false},
		{"a quantity as a number", `"resources":{"limits":{"cpu":1}},"livenessProbe":{"exec":{}}`, false},
		{"an empty list for an absent one", `"resources":{"limits":{"cpu":"1"}},"livenessProbe":{"exec":{}},"env":[]`, true},
		{"an empty map for an absent one", `"resources":{"limits":{"cpu":"1"},"requests":{}},"livenessProbe":{"exec":{}}`, true},
		{"a quantity spelled otherwise", `"resources":{"limits":{"cpu":"1000m"}},"livenessProbe":{"exec":{}}`, true},
		{"a pointer to 0 for an absent one", `"resources":{"limits":{"cpu":"1"}},"livenessProbe":{"exec":{},"terminationGracePeriodSeconds":0}`, true},
	} {
		d, err := Default(parse(t, withContainer(c.members)), old, Gates{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := at(t, d, "spec", "template", "spec", "schedulerName") == "defaulted"; got != c.inject {
			t.Errorf("%s: template defaults injected %v, want %v", c.name, got, c.inject)
		}
	}
	// An object Default or Convert made is compared as its JSON reads
	// back: the same template.
	d, err := Default(old, nil, Gates{})
	if err != nil {
		t.Fatal(err)
	}
	converted, err := Convert(d, V1alpha1)
	if err != nil {
		t.Fatal(err)
	}
	for name, o := range map[string]*Object{"defaulted": d, "converted": converted} {
		if inject, err := injectTemplateDefaults(parse(t, jsonOf(t, o)), o, Gates{}); err != nil || inject {
			t.Errorf("%s: its JSON read back is a changed template (%v)", name, err)
		}
	}
}

// TestRoundingKeepsTheSuffixRead: the template defaults round a quantity
// as kruise rounds the Go value it read, whose suffix family the typed
// JSON does not keep: 1023.9999999Ki rounds up to 1Mi (written
// 1048575999897600n before rounding), from Parse and from FromTree.
func TestRoundingKeepsTheSuffixRead(t *testing.T) {
	doc := withContainer(`"resources":{"limits":{"memory":"1023.9999999Ki"}}`)
	obj := parse(t, doc)
	if got := jsonOf(t, obj); !strings.Contains(got, `"limits":{"memory":"1048575999897600n"}`) {
		t.Fatalf("the typed JSON: %s", got)
	}
	tree, err := podtemplate.DecodeJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	fromTree, err := FromTree(tree)
	if err != nil {
		t.Fatal(err)
	}
	for name, o := range map[string]*Object{"parsed": obj, "from a tree": fromTree} {
		d, err := Default(o, nil, Gates{})
		if err != nil {
			t.Fatal(err)
		}
		if got := jsonOf(t, d); !strings.Contains(got, `"limits":{"memory":"1Mi"}`) {
			t.Errorf("%s: defaulted: %s", name, got)
		}
	}
}

// TestChangedAsDeepEqual: the mutating webhook answers with a patch
// exactly when the defaults change its typed object as reflect.DeepEqual
// sees it. A fully defaulted object is unchanged, but rounding a quantity
// to millis rewrites how a resource.Quantity holds some values even where
// the JSON stays the same (0.5Gi, read on the general path, is held again
// at milli scale; 1000000n is rescaled): the webhook then patches the object
// as sent into the typed JSON.
func TestChangedAsDeepEqual(t *testing.T) {
	full, err := Default(parse(t, withContainer(`"resources":{"limits":{"memory":"512Mi","cpu":"1m"}}`)+""), nil, Gates{})
	if err != nil {
		t.Fatal(err)
	}
	withClaim, err := Default(parse(t, cloneSet(V1beta1, `"volumeClaimTemplates":[{"metadata":{"name":"d"},"spec":{"resources":{"requests":{"storage":"512Mi"}}}}]`)), nil, Gates{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, doc string
		changed   bool
	}{
		{"a defaulted object", jsonOf(t, full), false},
		{"0.5Gi: the same JSON, held otherwise after rounding", strings.Replace(jsonOf(t, full), `"512Mi"`, `"0.5Gi"`, 1), true},
		{"1000000n: the same JSON, rescaled", strings.Replace(jsonOf(t, full), `"1m"`, `"1000000n"`, 1), true},
		{"0.001: held at milli scale already", strings.Replace(jsonOf(t, full), `"1m"`, `"0.001"`, 1), false},
		{"a claim template's 0.5Gi", strings.Replace(jsonOf(t, withClaim), `"512Mi"`, `"0.5Gi"`, 1), true},
		{"a defaulted claim template", jsonOf(t, withClaim), false},
	} {
		out, changed, err := Request{Operation: Create, Object: []byte(c.doc)}.Default()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if changed != c.changed {
			t.Errorf("%s: changed %v, want %v", c.name, changed, c.changed)
		}
		if got := jsonOf(t, out); got != jsonOf(t, parse(t, c.doc)) {
			t.Errorf("%s: the JSON changed: %s", c.name, got)
		}
	}
	// On an update with the same template nothing is rounded.
	doc := strings.Replace(jsonOf(t, full), `"512Mi"`, `"0.5Gi"`, 1)
	if _, changed, err := (Request{Operation: Update, Object: []byte(doc), OldObject: []byte(doc)}).Default(); err != nil || changed {
		t.Errorf("an update with the same template: changed %v (%v)", changed, err)
	}
}
