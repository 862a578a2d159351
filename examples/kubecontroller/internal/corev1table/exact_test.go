package corev1table

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	k8sv1 "k8s.io/kubernetes/pkg/apis/core/v1"
	"pgregory.net/rapid"

	"github.com/clonecore/cloneset/podtemplate"
)

// The drift guard of what the library reads from a template's JSON text
// beyond its typed encoding, as kruise's webhook decoder reads it
// (k8s.io/apimachinery's JSON reader for typed objects:
// sigs.k8s.io/json, case-sensitive): podtemplate.DecodedKey against
// reflect.DeepEqual of the v1.PodTemplateSpec values, DefaultRewritesQuantities
// against SetDefaults_ResourceList, and quantities written with escapes or
// spaces.

// typedTemplate reads doc as kruise's webhook decoder reads it.
func typedTemplate(doc []byte) (corev1.PodTemplateSpec, error) {
	var typed corev1.PodTemplateSpec
	err := utiljson.Unmarshal(doc, &typed)
	return typed, err
}

// libraryKey is podtemplate.DecodedKey of doc read by podtemplate.DecodeJSON.
func libraryKey(doc []byte) (string, error) {
	tree, err := podtemplate.DecodeJSON(doc)
	if err != nil {
		return "", err
	}
	return podtemplate.DecodedKey(tree)
}

// textJSON writes a generated tree as JSON, a json.RawMessage exactly as it
// is (spaces too: encoding/json would compact it), map keys sorted.
func textJSON(v any) []byte {
	var b bytes.Buffer
	var write func(v any)
	write = func(v any) {
		switch x := v.(type) {
		case json.RawMessage:
			b.Write(x)
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			b.WriteByte('{')
			for i, k := range keys {
				if i > 0 {
					b.WriteByte(',')
				}
				kb, _ := json.Marshal(k)
				b.Write(kb)
				b.WriteByte(':')
				write(x[k])
			}
			b.WriteByte('}')
		case []any:
			b.WriteByte('[')
			for i, item := range x {
				if i > 0 {
					b.WriteByte(',')
				}
				write(item)
			}
			b.WriteByte(']')
		default:
			vb, err := json.Marshal(x)
			if err != nil {
				panic(err)
			}
			b.Write(vb)
		}
	}
	write(v)
	return b.Bytes()
}

// quantityRespellings are quantities of a few values in many spellings.
var quantityRespellings = []string{`"1"`, `"1000m"`, `"1.0"`, `1`, `"1e0"`, `"+1"`, `" 1"`, `"0.5"`, `"500m"`, `0.5`,
	`"512Mi"`, `"0.5Gi"`, `"536870912"`, `"1Gi"`, `"1024Mi"`, `"0"`, `"000"`, `"0.0"`, `"1000000n"`, `"1n"`, `null`}

// variant walks a generated value of Go type rt and, here and there, writes
// it otherwise: in a way k8s.io/api reads as the same Go value (a null for
// an absent member, a quantity's spaces, a time in another zone, -0) or in
// one that DeepEqual tells apart though the typed encoding may not (an
// empty list or map for an absent one, a quantity's spelling, a fraction
// of a second, a FieldsV1's spaces, a pointer to a zero value).
func (g *templateGen) variant(v any, rt reflect.Type, label string) any {
	odds := 7
	if _, ok := special[rt]; ok {
		odds = 2 // quantities, times, FieldsV1 and int-or-strings: often
	}
	if rapid.IntRange(0, odds).Draw(g.t, label+"/vary") == 0 {
		return g.vary(v, rt, label)
	}
	if _, ok := special[rt]; ok {
		return v
	}
	switch rt.Kind() {
	case reflect.Pointer:
		if v == nil {
			return nil
		}
		return g.variant(v, rt.Elem(), label)
	case reflect.Slice:
		l, ok := v.([]any)
		if !ok || l == nil {
			return v
		}
		out := make([]any, len(l))
		for i, item := range l {
			out[i] = g.variant(item, rt.Elem(), label+"[]")
		}
		return out
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok || m == nil {
			return v
		}
		out := make(map[string]any, len(m))
		for k, item := range m {
			out[k] = g.variant(item, rt.Elem(), label+"{}")
		}
		return out
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok || m == nil {
			return v
		}
		out := make(map[string]any, len(m))
		for _, c := range membersOf(rt) {
			item, present := m[c.name]
			switch {
			case present && item == nil && rapid.IntRange(0, 3).Draw(g.t, label+"."+c.name+"/dropNull") == 0:
				// a null member left out
			case !present && rapid.IntRange(0, 30).Draw(g.t, label+"."+c.name+"/addNull") == 0:
				out[c.name] = nil
			case present:
				out[c.name] = g.variant(item, c.goType, label+"."+c.name)
			}
		}
		for k, item := range m { // unknown members as they are
			if _, known := out[k]; !known && !slices.ContainsFunc(membersOf(rt), func(c candidate) bool { return c.name == k }) {
				out[k] = item
			}
		}
		return out
	}
	return v
}

// vary writes one value otherwise (see variant).
func (g *templateGen) vary(v any, rt reflect.Type, label string) any {
	switch special[rt] {
	case "kindQuantity":
		if s, ok := v.(string); ok && rapid.Bool().Draw(g.t, label+"/spaces") {
			return " " + s + " "
		}
		return g.raw(g.pick(label+"/respelled", quantityRespellings))
	case "kindTime":
		s, ok := v.(string)
		if !ok {
			return g.raw(g.pick(label+"/time", timeSamples))
		}
		parsed, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return v
		}
		switch rapid.IntRange(0, 2).Draw(g.t, label+"/how") {
		case 0:
			return parsed.In(time.FixedZone("", -5*3600)).Format(time.RFC3339Nano) // the same instant
		case 1:
			return parsed.Add(time.Millisecond).Format(time.RFC3339Nano) // the same second
		}
		return nil
	case "kindRawJSON":
		if raw, ok := v.(json.RawMessage); ok && len(raw) > 1 && (raw[0] == '{' || raw[0] == '[') {
			return json.RawMessage(string(raw[:1]) + " " + string(raw[1:]))
		}
		return v
	case "kindIntOrString":
		switch x := v.(type) {
		case json.Number:
			return string(x)
		case string:
			return json.Number("80")
		}
		return v
	}
	switch rt.Kind() {
	case reflect.Pointer:
		if v == nil {
			return g.zeroJSON(rt.Elem())
		}
		return nil
	case reflect.Slice:
		if l, ok := v.([]any); ok && len(l) == 0 {
			if l == nil {
				return []any{}
			}
			return nil
		}
		if v == nil {
			return []any{}
		}
	case reflect.Map:
		if m, ok := v.(map[string]any); ok && len(m) == 0 {
			if m == nil {
				return map[string]any{}
			}
			return nil
		}
		if v == nil {
			return map[string]any{}
		}
	case reflect.Int32, reflect.Int64:
		if n, ok := v.(json.Number); ok && n == "0" {
			return json.Number("-0")
		}
	case reflect.Struct:
		if v == nil {
			return map[string]any{}
		}
	}
	return v
}

// zeroJSON is the JSON of a Go type's zero value (what a pointer to it
// holds when set to zero).
func (g *templateGen) zeroJSON(rt reflect.Type) any {
	switch special[rt] {
	case "kindQuantity":
		return "0"
	case "kindIntOrString":
		return json.Number("0")
	case "kindTime", "kindRawJSON":
		return nil
	}
	switch rt.Kind() {
	case reflect.String:
		return ""
	case reflect.Bool:
		return false
	case reflect.Int32, reflect.Int64:
		return json.Number("0")
	case reflect.Slice:
		return []any{}
	case reflect.Map, reflect.Struct:
		return map[string]any{}
	}
	return nil
}

// withReadOnlyMembers gives a generated template, often, the members whose
// Go value holds more than their encoding (a time, a FieldsV1, quantities,
// an omitempty list), for variant to write otherwise.
func (g *templateGen) withReadOnlyMembers(tpl map[string]any) map[string]any {
	meta, _ := tpl["metadata"].(map[string]any)
	spec, _ := tpl["spec"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		tpl["metadata"] = meta
	}
	if spec == nil {
		spec = map[string]any{}
		tpl["spec"] = spec
	}
	if rapid.Bool().Draw(g.t, "creationTimestamp") {
		meta["creationTimestamp"] = g.raw(g.pick("time", timeSamples))
	}
	if rapid.Bool().Draw(g.t, "managedFields") {
		meta["managedFields"] = []any{map[string]any{"manager": "m", "time": g.raw(g.pick("fieldsTime", timeSamples)),
			"fieldsV1": g.value(reflect.TypeFor[metav1.FieldsV1](), 3, "fieldsV1")}}
	}
	if rapid.Bool().Draw(g.t, "overhead") {
		spec["overhead"] = map[string]any{"cpu": g.raw(g.pick("cpu", quantityRespellings)), "memory": g.raw(g.pick("memory", quantitySamples))}
	}
	if rapid.Bool().Draw(g.t, "volumes") {
		spec["volumes"] = nil
	}
	return tpl
}

// TestDecodedKeyMatchesDeepEqual: for a generated template and a variant
// of it (written otherwise here and there), DecodedKey is the same exactly
// when reflect.DeepEqual holds between the v1.PodTemplateSpec values
// k8s.io/api's decoder reads: how kruise's mutating webhook decides that an
// update changed the template. Both outcomes are drawn many times (the test
// asserts it).
func TestDecodedKeyMatchesDeepEqual(t *testing.T) {
	var same, differ int
	rapid.Check(t, func(t *rapid.T) {
		g := &templateGen{t: t, budget: 120}
		a := g.withReadOnlyMembers(g.template())
		b := g.variant(a, Root, "template").(map[string]any)
		docA, docB := textJSON(a), textJSON(b)
		typedA, errA := typedTemplate(docA)
		typedB, errB := typedTemplate(docB)
		keyA, libErrA := libraryKey(docA)
		keyB, libErrB := libraryKey(docB)
		if (errA == nil) != (libErrA == nil) || (errB == nil) != (libErrB == nil) {
			t.Fatalf("refusals differ:\n%s: k8s.io/api %v, library %v\n%s: k8s.io/api %v, library %v", docA, errA, libErrA, docB, errB, libErrB)
		}
		if errA != nil || errB != nil {
			t.Skip("k8s.io/api refuses a template")
		}
		want := reflect.DeepEqual(typedA, typedB)
		if got := keyA == keyB; got != want {
			t.Fatalf("DeepEqual %v, DecodedKey equal %v:\n%s\n%s", want, got, docA, docB)
		}
		if want {
			same++
		} else {
			differ++
		}
	})
	t.Logf("%d pairs equal, %d different", same, differ)
	if same < 10 || differ < 10 {
		t.Fatalf("too few pairs of one outcome: %d equal, %d different", same, differ)
	}
}

// TestDefaultRewritesQuantitiesMatchesRoundUp: DefaultRewritesQuantities
// says whether SetDefaults_ResourceList (RoundUp(-3) of each quantity)
// changes the Go value as reflect.DeepEqual sees it, on the quantity grid
// of TestResourceRoundingMatchesKubernetes and generated quantities.
func TestDefaultRewritesQuantitiesMatchesRoundUp(t *testing.T) {
	check := func(t interface{ Fatalf(string, ...any) }, s string) {
		doc := roundingDoc(s)
		typed, err := typedTemplate(doc)
		tree, libErr := podtemplate.DecodeJSON(doc)
		if libErr == nil {
			_, libErr = podtemplate.Encode(tree)
		}
		if (err == nil) != (libErr == nil) {
			t.Fatalf("%s: k8s.io/api %v, library %v", doc, err, libErr)
		}
		if err != nil {
			return
		}
		rounded := typed.DeepCopy()
		k8sv1.SetDefaults_ResourceList(&rounded.Spec.Containers[0].Resources.Limits)
		want := !reflect.DeepEqual(&typed, rounded)
		if got := podtemplate.DefaultRewritesQuantities(tree); got != want {
			t.Fatalf("%q: RoundUp(-3) changes the Go value: %v, library says %v", s, want, got)
		}
	}
	for _, sign := range []string{"", "-"} {
		for _, whole := range []string{"", "0", "1", "1023", "1234567890123456789"} {
			for _, frac := range []string{"none", "", "0", "000", "0005", "0000000000", "1234567890123"} {
				for _, suf := range quantitySuffixes {
					s := sign + whole
					if frac != "none" {
						s += "." + frac
					}
					check(t, s+suf)
				}
			}
		}
	}
	rapid.Check(t, func(t *rapid.T) { check(t, quantityText().Draw(t, "quantity")) })
}

// TestQuantityTextAsKubernetesReadsIt: resource.Quantity parses the JSON
// text between a string's quotes as written (not unescaped), trimmed of
// spaces; the library, reading the same bytes with DecodeJSON, refuses
// and writes what k8s.io/api does, and tells the Go values apart as
// reflect.DeepEqual does.
func TestQuantityTextAsKubernetesReadsIt(t *testing.T) {
	texts := []string{`"\u0031"`, `"\t1"`, `" 1 "`, "\"1\u2028\"", "\"1\u00a0\"", `"\u00a01"`, `"1\/"`, `"\/1"`, `1e3`, `"1e3"`,
		`-0`, `"-0"`, `0.5`, `"0.5"`, `"1"`, `1`, `" 1"`, `"\u0020\u0031"`, `"1000m"`, `"1.0"`, `null`, `"+1"`, `"01"`, `"0100m"`, `"100m"`, "\"\u20281\""}
	type read struct {
		typed corev1.PodTemplateSpec
		key   string
	}
	var reads []read
	for _, text := range texts {
		doc := []byte(`{"spec":{"overhead":{"cpu":` + text + `}}}`)
		typed, err := typedTemplate(doc)
		tree, libErr := podtemplate.DecodeJSON(doc)
		var got []byte
		if libErr == nil {
			var enc map[string]any
			if enc, libErr = podtemplate.Encode(tree); libErr == nil {
				got, _ = podtemplate.AppendJSON(nil, enc)
			}
		}
		if (err == nil) != (libErr == nil) {
			t.Errorf("%s: k8s.io/api %v, library %v", text, err, libErr)
			continue
		}
		if err != nil {
			continue
		}
		want, _ := json.Marshal(&typed)
		if got := withoutNullCreationTimestamps(got); !bytes.Equal(got, want) {
			t.Errorf("%s: k8s.io/api writes %s, library %s", text, want, got)
		}
		key, err := podtemplate.DecodedKey(tree)
		if err != nil {
			t.Fatal(err)
		}
		reads = append(reads, read{typed, key})
	}
	for i, a := range reads {
		for _, b := range reads[i+1:] {
			if want := reflect.DeepEqual(a.typed, b.typed); (a.key == b.key) != want {
				t.Errorf("DeepEqual %v, keys equal %v: %v and %v", want, a.key == b.key, a.typed.Spec.Overhead, b.typed.Spec.Overhead)
			}
		}
	}
	if len(reads) < 10 || strings.Count(strings.Join(texts, ""), `\u`) < 3 {
		t.Fatalf("only %d texts read", len(reads))
	}
}
