package admission

import (
	"bytes"
	"encoding/json"
)

// fataler is what the helpers need of a *testing.T or a *rapid.T.
type fataler interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// parse reads a JSON CloneSet or fails the test.
func parse(t fataler, doc string) *Object {
	t.Helper()
	o, err := Parse([]byte(doc))
	if err != nil {
		t.Fatalf("%s: %v", doc, err)
	}
	return o
}

// jsonOf is an object's JSON or fails the test.
func jsonOf(t fataler, o *Object) string {
	t.Helper()
	b, err := o.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// at reads a member of an object's JSON by path ("spec.replicas").
func at(t fataler, o *Object, path ...string) any {
	t.Helper()
	var v any
	dec := json.NewDecoder(bytes.NewReader([]byte(jsonOf(t, o))))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	if n, ok := v.(json.Number); ok {
		return string(n)
	}
	return v
}

// cloneSet is a small valid CloneSet of a version with spec members added
// (a JSON object's members, without braces).
func cloneSet(version Version, spec string) string {
	if spec != "" {
		spec = "," + spec
	}
	return `{"apiVersion":"` + version.APIVersion() + `","kind":"CloneSet","metadata":{"name":"web","namespace":"default"},` +
		`"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx:1.25"}]}}` + spec + `}}`
}

// mustJSON renders a value as JSON for messages.
func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
