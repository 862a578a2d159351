package manifest

import (
	"encoding/json"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestMarshalYAML(t *testing.T) {
	in := `{"apiVersion": "clonesetcore/v1alpha1", "kind": "Plan", "z": 1, "a": [], "b": {},
	"s": "true", "n": "123", "f": 0.3, "neg": -2, "nul": null,
	"nested": {"list": [{"x": "y", "k": [1, 2]}]}, "multi": "a\nb", "colon": "a: b", "empty": "", "t": true}`
	want := `apiVersion: clonesetcore/v1alpha1
kind: Plan
z: 1
a: []
b: {}
s: "true"
n: "123"
f: 0.3
neg: -2
nul: null
nested:
  list:
    - x: y
      k:
        - 1
        - 2
multi: |-
  a
  b
colon: 'a: b'
empty: ""
t: true
`
	got, err := MarshalYAML([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	// Reading the YAML back gives the JSON document's values.
	var fromJSON, fromYAML any
	if err := json.Unmarshal([]byte(in), &fromJSON); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(got, &fromYAML); err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(fromJSON)
	b, _ := json.Marshal(fromYAML)
	if string(a) != string(b) {
		t.Errorf("round trip differs:\n%s\n%s", a, b)
	}
}

func TestMarshalYAMLErrors(t *testing.T) {
	for _, in := range []string{"", "   ", `{"a": }`, `{"a": 1} {"b": 2}`, `[1, 2`} {
		if out, err := MarshalYAML([]byte(in)); err == nil || !strings.HasPrefix(err.Error(), "MarshalYAML: ") {
			t.Errorf("MarshalYAML(%q) = %q, %v; want an error", in, out, err)
		}
	}
	// A top-level scalar or list is a JSON document too.
	if out, err := MarshalYAML([]byte(`[1, "x"]`)); err != nil || string(out) != "- 1\n- x\n" {
		t.Errorf("list: %q %v", out, err)
	}
}
