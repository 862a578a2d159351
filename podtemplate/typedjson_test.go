package podtemplate

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestAppendJSONOrder: AppendJSON writes Encode's output in the Go types'
// field order (metadata before spec; in a container name, image, ports,
// resources, ...), map keys sorted, strings escaped as encoding/json
// escapes them; read and encoded again it is Encode's output (the example
// module compares it byte for byte with encoding/json on k8s.io/api's
// types).
func TestAppendJSONOrder(t *testing.T) {
	in := tree(t, `{"spec":{"restartPolicy":"Always","containers":[{"resources":{"requests":{"memory":"1Gi","cpu":"1000m"}},"ports":[{"protocol":"TCP","containerPort":80}],"image":"a&b<c>","name":"c"}]},"metadata":{"labels":{"z":"1","a":"2"}}}`)
	enc, err := Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := AppendJSON(nil, enc)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"metadata":{"creationTimestamp":null,"labels":{"a":"2","z":"1"}},"spec":{"containers":[{"name":"c","image":"a\u0026b\u003cc\u003e","ports":[{"containerPort":80,"protocol":"TCP"}],"resources":{"requests":{"cpu":"1","memory":"1Gi"}}}],"restartPolicy":"Always"}}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	back, err := Encode(tree(t, string(got)))
	if err != nil || !reflect.DeepEqual(back, enc) {
		t.Fatalf("encoded again %v (%v), want Encode's %v", back, err, enc)
	}
}

// TestAppendJSONRefusesWhatEncodeDoesNotWrite: a value Encode never writes
// is an error naming its path, never a guess.
func TestAppendJSONRefusesWhatEncodeDoesNotWrite(t *testing.T) {
	for _, c := range []struct {
		name string
		in   map[string]any
		want string
	}{
		{"an unknown member", map[string]any{"spec": map[string]any{"x": 1.0}}, `spec: "x" is not a member`},
		{"a string for an integer", map[string]any{"spec": map[string]any{"priority": "1"}}, "spec.priority: "},
		{"a fraction for an integer", map[string]any{"spec": map[string]any{"priority": 1.5}}, "spec.priority: 1.5"},
		{"an object for a list", map[string]any{"spec": map[string]any{"containers": map[string]any{}}}, "spec.containers: {}"},
	} {
		_, err := AppendJSON(nil, c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", c.name, err, c.want)
		}
	}
}

// ExampleAppendJSON writes a template as the Kubernetes API types write it.
func ExampleAppendJSON() {
	typed, err := Encode(map[string]any{
		"spec": map[string]any{"containers": []any{map[string]any{"image": "nginx:1.25", "name": "web", "x-unknown": true}}},
	})
	if err != nil {
		panic(err)
	}
	b, err := AppendJSON(nil, typed)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(b))
	// Output: {"metadata":{"creationTimestamp":null},"spec":{"containers":[{"name":"web","image":"nginx:1.25","resources":{}}]}}
}
