package corev1table

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/clonecore/cloneset/podtemplate"
)

// typedRoundTrip is the revision data the Kubernetes API types give for a
// template, done the way testdata/conformance-revnames/README.md describes
// upstream's: json.Unmarshal into v1.PodTemplateSpec, json.Marshal,
// json.Unmarshal into generic maps, "$patch":"replace" added, wrapped as
// {"spec":{"template":...}}, json.Marshal. One difference is made on
// purpose, the one the table's Overrides name: the real controller's
// apimachinery writes a zero creationTimestamp as null where v0.37 leaves it
// out.
func typedRoundTrip(doc []byte) ([]byte, error) {
	var typed corev1.PodTemplateSpec
	if err := json.Unmarshal(doc, &typed); err != nil {
		return nil, err
	}
	enc, err := json.Marshal(&typed)
	if err != nil {
		return nil, err
	}
	var tree map[string]any
	if err := json.Unmarshal(enc, &tree); err != nil {
		return nil, err
	}
	if !Overrides[creationTimestampKey].OmitZero {
		nullCreationTimestamps(tree, Root)
	}
	tree["$patch"] = "replace"
	return json.Marshal(map[string]any{"spec": map[string]any{"template": tree}})
}

// creationTimestampKey names the override of ObjectMeta.creationTimestamp.
const creationTimestampKey = "k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta.creationTimestamp"

// objectMetaType is metav1.ObjectMeta.
var objectMetaType = reflect.TypeFor[metav1.ObjectMeta]()

// nullCreationTimestamps writes "creationTimestamp":null into every
// ObjectMeta of a typed encoding (of Go type rt) that left it out, as
// upstream's apimachinery writes it.
func nullCreationTimestamps(v any, rt reflect.Type) {
	for rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
	}
	switch x := v.(type) {
	case []any:
		if rt.Kind() == reflect.Slice {
			for _, item := range x {
				nullCreationTimestamps(item, rt.Elem())
			}
		}
	case map[string]any:
		switch rt.Kind() {
		case reflect.Map:
			for _, item := range x {
				nullCreationTimestamps(item, rt.Elem())
			}
		case reflect.Struct:
			if rt == objectMetaType {
				if _, ok := x["creationTimestamp"]; !ok {
					x["creationTimestamp"] = nil
				}
			}
			if _, ok := special[rt]; ok {
				return
			}
			for _, c := range membersOf(rt) {
				if item, ok := x[c.name]; ok {
					nullCreationTimestamps(item, c.goType)
				}
			}
		}
	}
}

// libraryRevisionData is the library's revision data for the same JSON
// document, read as the library's loaders read JSON (numbers as
// json.Number).
func libraryRevisionData(doc []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var tree map[string]any
	if err := dec.Decode(&tree); err != nil {
		return nil, err
	}
	return podtemplate.RevisionData(tree)
}

// templateGen generates pod templates as JSON trees by walking the
// v1.PodTemplateSpec type: every kind of member a template can hold (nested
// structs, pointers, lists of structs, maps, quantities in many spellings,
// int-or-string, booleans, 32- and 64-bit integers beyond 2^53, strings with
// & < > and non-ASCII characters, times), unknown members at every level,
// explicit nulls; with bad, sometimes a value of the wrong type or one that
// does not parse.
type templateGen struct {
	t   *rapid.T
	bad bool
	// budget bounds the members of one template.
	budget int
}

var (
	stringSamples   = []string{"", "web", "a&b", "<tag>", "x > y", "ünïcödé", "日本語", "line\u2028sep", "tab\there", `"q"`, "0", "back\\slash", "\x7f"}
	int32Samples    = []string{"0", "1", "-1", "80", "2147483647", "-2147483648"}
	int64Samples    = []string{"0", "30", "-5", "9007199254740993", "9007199254740992", "9223372036854775807", "-9223372036854775808", "123456789012345678"}
	quantitySamples = []string{`"1000m"`, `"1"`, `"0.5Gi"`, `"1e9"`, `"134217728"`, `"128Mi"`, `"250m"`, `"1.5"`, `"+1"`, `"0100m"`, `"1024Mi"`, `"2048Ki"`, `"0"`, `" 2Gi "`, `"1e-10"`, `"100.Ki"`, `1`, `0.5`, `1e3`, `134217728`, `null`}
	intstrSamples   = []string{`"http"`, `"80"`, `8080`, `0`, `""`, `"50%"`, `null`}
	timeSamples     = []string{`"2024-01-02T03:04:05Z"`, `"2024-01-02T03:04:05.999+02:00"`, `"0001-01-01T00:00:00Z"`, `null`}
	badSamples      = []string{`"x"`, `1.5`, `true`, `{}`, `[]`, `"abc"`, `1e400`, `99999999999999999999`, `"2024-13-01"`}
	unknownNames    = []string{"x-extra", "unknownMember", "$patch", "zz"}
)

func (g *templateGen) raw(text string) any {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		panic(err)
	}
	return v
}

func (g *templateGen) pick(label string, from []string) string {
	return rapid.SampledFrom(from).Draw(g.t, label)
}

// value generates a JSON value for Go type rt at depth.
func (g *templateGen) value(rt reflect.Type, depth int, label string) any {
	if g.bad && rapid.IntRange(0, 60).Draw(g.t, label+"/bad") == 0 {
		return g.raw(g.pick(label+"/badValue", badSamples))
	}
	switch kind := special[rt]; kind {
	case "kindQuantity":
		return g.raw(g.pick(label, quantitySamples))
	case "kindIntOrString":
		return g.raw(g.pick(label, intstrSamples))
	case "kindTime":
		return g.raw(g.pick(label, timeSamples))
	case "kindRawJSON":
		// As text (a json.RawMessage: encoding/json writes it compacted,
		// members in their order, numbers as written).
		return json.RawMessage(g.pick(label, []string{`{"n":1.50,"f:metadata":{"f:labels":{}}}`, `{}`, `[1,2e3,9007199254740993]`, `"s<&>"`, `{"z":{"b":-0,"a":1E2}}`}))
	}
	switch rt.Kind() {
	case reflect.Pointer:
		if rapid.IntRange(0, 5).Draw(g.t, label+"/null") == 0 {
			return nil
		}
		return g.value(rt.Elem(), depth, label)
	case reflect.String:
		return g.pick(label, stringSamples)
	case reflect.Bool:
		return rapid.Bool().Draw(g.t, label)
	case reflect.Int32:
		return json.Number(g.pick(label, int32Samples))
	case reflect.Int64:
		return json.Number(g.pick(label, int64Samples))
	case reflect.Slice:
		switch rapid.IntRange(0, 6).Draw(g.t, label+"/shape") {
		case 0:
			return nil
		case 1:
			return []any{}
		}
		n := rapid.IntRange(1, 2).Draw(g.t, label+"/len")
		out := make([]any, n)
		for i := range out {
			if rapid.IntRange(0, 12).Draw(g.t, label+"/nullItem") == 0 {
				continue // null element
			}
			out[i] = g.value(rt.Elem(), depth+1, label+"[]")
		}
		return out
	case reflect.Map:
		switch rapid.IntRange(0, 6).Draw(g.t, label+"/shape") {
		case 0:
			return nil
		case 1:
			return map[string]any{}
		}
		out := map[string]any{}
		for i := rapid.IntRange(1, 3).Draw(g.t, label+"/len"); i > 0; i-- {
			key := g.pick(label+"/key", []string{"cpu", "memory", "app", "a&b", "<k>", "ключ", ""})
			if rapid.IntRange(0, 12).Draw(g.t, label+"/nullValue") == 0 {
				out[key] = nil
				continue
			}
			out[key] = g.value(rt.Elem(), depth+1, label+"{}")
		}
		return out
	case reflect.Struct:
		return g.object(rt, depth, label)
	}
	panic(fmt.Sprintf("no generator for %s", rt))
}

// object generates a struct's JSON object: a few of its members (by their
// JSON names, embedded structs flattened), sometimes an unknown member.
func (g *templateGen) object(rt reflect.Type, depth int, label string) map[string]any {
	found := membersOf(rt)
	out := map[string]any{}
	if depth > 8 || g.budget <= 0 || len(found) == 0 {
		return out
	}
	least, most := 0, min(len(found), 8)
	if depth <= 2 {
		least, most = min(len(found), 3), min(len(found), 16) // big templates near the top
	}
	for k := rapid.IntRange(least, most).Draw(g.t, label+"/members"); k > 0 && g.budget > 0; k-- {
		c := found[rapid.IntRange(0, len(found)-1).Draw(g.t, label+"/member")]
		if depth <= 1 && k > most-2 {
			c = found[k%2] // metadata and spec; the spec's first members (affinity, containers)
		}
		g.budget--
		if rapid.IntRange(0, 15).Draw(g.t, label+"."+c.name+"/null") == 0 {
			out[c.name] = nil
			continue
		}
		out[c.name] = g.value(c.goType, depth+1, label+"."+c.name)
	}
	if rapid.IntRange(0, 8).Draw(g.t, label+"/unknown") == 0 {
		out[g.pick(label+"/unknownName", unknownNames)] = g.raw(g.pick(label+"/unknownValue", []string{`1`, `"v"`, `{"a":[1,"<b>"]}`, `null`}))
	}
	return out
}

// members caches membersOf.
var members = map[reflect.Type][]candidate{}

// membersOf lists the JSON members of a struct type (embedded structs
// flattened), with their Go types.
func membersOf(rt reflect.Type) []candidate {
	if m, ok := members[rt]; ok {
		return m
	}
	gen := &generator{byKey: map[string]int{}, used: map[string]bool{}}
	var found []candidate
	if err := gen.collect(rt, rt, 0, &found); err != nil {
		panic(err)
	}
	members[rt] = found
	return found
}

// template generates a whole pod template.
func (g *templateGen) template() map[string]any {
	return g.object(Root, 0, "template")
}

// TestRevisionDataMatchesTypedRoundTrip: for generated templates the
// library's revision data (podtemplate.RevisionData) is byte for byte the
// typed round trip through k8s.io/api, and the library refuses exactly the
// templates k8s.io/api cannot read.
func TestRevisionDataMatchesTypedRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := &templateGen{t: t, bad: rapid.IntRange(0, 3).Draw(t, "bad") == 0, budget: 150}
		doc, err := json.Marshal(g.template())
		if err != nil {
			t.Fatal(err)
		}
		want, wantErr := typedRoundTrip(doc)
		got, gotErr := libraryRevisionData(doc)
		switch {
		case (wantErr == nil) != (gotErr == nil):
			t.Fatalf("template %s\nk8s.io/api: error %v\nlibrary:    error %v", doc, wantErr, gotErr)
		case wantErr == nil && !bytes.Equal(got, want):
			t.Fatalf("template %s\nk8s.io/api: %s\nlibrary:    %s", doc, want, got)
		}
	})
}
