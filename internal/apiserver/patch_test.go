package apiserver

import (
	"strings"
	"testing"
)

func mustJSON(t *testing.T, s string) any {
	t.Helper()
	v, err := DecodeJSON([]byte(s))
	if err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return v
}

// TestMergePatchRFC7386 works the examples of RFC 7386 appendix A.
func TestMergePatchRFC7386(t *testing.T) {
	cases := []struct{ target, patch, want string }{
		{`{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
		{`{"a":"b"}`, `{"a":null}`, `{}`},
		{`{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
		{`{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
		{`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
		{`{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
		{`["a","b"]`, `["c","d"]`, `["c","d"]`},
		{`{"a":"b"}`, `["c"]`, `["c"]`},
		{`{"a":"foo"}`, `null`, `null`},
		{`{"a":"foo"}`, `"bar"`, `"bar"`},
		{`{"e":null}`, `{"a":1}`, `{"e":null,"a":1}`},
		{`[1,2]`, `{"a":"b","c":null}`, `{"a":"b"}`},
		{`{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
	}
	for _, c := range cases {
		target := mustJSON(t, c.target)
		keep := DeepCopy(target)
		got := MergePatch(target, mustJSON(t, c.patch))
		if !Equal(got, mustJSON(t, c.want)) {
			t.Errorf("%s + %s = %s, want %s", c.target, c.patch, compactJSON(got), c.want)
		}
		if !Equal(target, keep) {
			t.Errorf("%s + %s modified the target", c.target, c.patch)
		}
	}
}

// TestApplyMergePatchErrors: the API server's merge patch needs an object.
func TestApplyMergePatchErrors(t *testing.T) {
	for _, body := range []string{``, `[1]`, `"x"`, `null`, `{"a":`, `{} {}`, `{"a":1}x`} {
		if _, err := ApplyMergePatch(Object{"a": 1.0}, []byte(body)); ReasonOf(err) != ReasonBadRequest {
			t.Errorf("body %q: want BadRequest, got %v", body, err)
		}
	}
}

// TestJSONPatchRFC6902 works the examples of RFC 6902 appendix A and the
// rules of section 4.
func TestJSONPatchRFC6902(t *testing.T) {
	cases := []struct {
		name, doc, patch, want string // want "" means an error
	}{
		{"add member", `{"foo":"bar"}`, `[{"op":"add","path":"/baz","value":"qux"}]`, `{"baz":"qux","foo":"bar"}`},
		{"add array element", `{"foo":["bar","baz"]}`, `[{"op":"add","path":"/foo/1","value":"qux"}]`, `{"foo":["bar","qux","baz"]}`},
		{"remove member", `{"baz":"qux","foo":"bar"}`, `[{"op":"remove","path":"/baz"}]`, `{"foo":"bar"}`},
		{"remove array element", `{"foo":["bar","qux","baz"]}`, `[{"op":"remove","path":"/foo/1"}]`, `{"foo":["bar","baz"]}`},
		{"replace", `{"baz":"qux","foo":"bar"}`, `[{"op":"replace","path":"/baz","value":"boo"}]`, `{"baz":"boo","foo":"bar"}`},
		{"move member", `{"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}}`, `[{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]`, `{"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}}`},
		{"move array element", `{"foo":["all","grass","cows","eat"]}`, `[{"op":"move","from":"/foo/1","path":"/foo/3"}]`, `{"foo":["all","cows","eat","grass"]}`},
		{"test success", `{"baz":"qux","foo":["a",2,"c"]}`, `[{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}]`, `{"baz":"qux","foo":["a",2,"c"]}`},
		{"test failure", `{"baz":"qux"}`, `[{"op":"test","path":"/baz","value":"bar"}]`, ``},
		{"add nested member", `{"foo":"bar"}`, `[{"op":"add","path":"/child","value":{"grandchild":{}}}]`, `{"foo":"bar","child":{"grandchild":{}}}`},
		{"unrecognized members ignored", `{"foo":"bar"}`, `[{"op":"add","path":"/baz","value":"qux","xyz":123}]`, `{"foo":"bar","baz":"qux"}`},
		{"add to a missing parent", `{"foo":"bar"}`, `[{"op":"add","path":"/baz/bat","value":"qux"}]`, ``},
		{"escaped pointer", `{"/":9,"~1":10}`, `[{"op":"test","path":"/~01","value":10}]`, `{"/":9,"~1":10}`},
		{"string is not number", `{"/":9,"~1":10}`, `[{"op":"test","path":"/~01","value":"10"}]`, ``},
		{"add an array value", `{"foo":["bar"]}`, `[{"op":"add","path":"/foo/-","value":["abc","def"]}]`, `{"foo":["bar",["abc","def"]]}`},
		{"slash escape", `{"a/b":1}`, `[{"op":"replace","path":"/a~1b","value":2}]`, `{"a/b":2}`},
		{"add replaces a member", `{"a":1}`, `[{"op":"add","path":"/a","value":2}]`, `{"a":2}`},
		{"add at array end index", `{"a":[1]}`, `[{"op":"add","path":"/a/1","value":2}]`, `{"a":[1,2]}`},
		{"add past array end", `{"a":[1]}`, `[{"op":"add","path":"/a/2","value":2}]`, ``},
		{"leading zero index", `{"a":[1,2]}`, `[{"op":"remove","path":"/a/01"}]`, ``},
		{"remove missing", `{"a":1}`, `[{"op":"remove","path":"/b"}]`, ``},
		{"replace missing", `{"a":1}`, `[{"op":"replace","path":"/b","value":1}]`, ``},
		{"copy", `{"a":{"x":1}}`, `[{"op":"copy","from":"/a","path":"/b"}]`, `{"a":{"x":1},"b":{"x":1}}`},
		{"move into own child", `{"a":{"b":{}}}`, `[{"op":"move","from":"/a","path":"/a/b/c"}]`, ``},
		{"move to itself", `{"a":1}`, `[{"op":"move","from":"/a","path":"/a"}]`, `{"a":1}`},
		{"test null", `{"a":null}`, `[{"op":"test","path":"/a","value":null}]`, `{"a":null}`},
		{"missing value", `{"a":1}`, `[{"op":"add","path":"/b"}]`, ``},
		{"missing path", `{"a":1}`, `[{"op":"remove"}]`, ``},
		{"missing from", `{"a":1}`, `[{"op":"copy","path":"/b"}]`, ``},
		{"unknown op", `{"a":1}`, `[{"op":"frob","path":"/a"}]`, ``},
		{"pointer without slash", `{"a":1}`, `[{"op":"remove","path":"a"}]`, ``},
		{"bad escape", `{"a":1}`, `[{"op":"remove","path":"/~2"}]`, ``},
		{"not a list", `{"a":1}`, `{"op":"remove","path":"/a"}`, ``},
		{"operation not an object", `{"a":1}`, `[1]`, ``},
		{"replace the root by a non-object", `{"a":1}`, `[{"op":"replace","path":"","value":[1]}]`, ``},
		{"replace the root", `{"a":1}`, `[{"op":"replace","path":"","value":{"b":2}}]`, `{"b":2}`},
		{"atomic: a later failure undoes earlier ops", `{"a":1}`, `[{"op":"add","path":"/b","value":2},{"op":"test","path":"/a","value":2}]`, ``},
		{"path through a scalar", `{"a":1}`, `[{"op":"add","path":"/a/b","value":2}]`, ``},
		{"malformed JSON", `{"a":1}`, `[{"op":`, ``},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := mustJSON(t, c.doc).(map[string]any)
			keep := copyObject(doc)
			got, err := ApplyJSONPatch(doc, []byte(c.patch))
			if !Equal(doc, keep) {
				t.Errorf("the document was modified")
			}
			if c.want == "" {
				if ReasonOf(err) != ReasonBadRequest {
					t.Fatalf("want a BadRequest error, got %v (%s)", err, compactJSON(got))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !Equal(got, mustJSON(t, c.want)) {
				t.Errorf("got %s, want %s", compactJSON(got), c.want)
			}
		})
	}
}

// TestStrategicMergePatch works hand examples of the strategic merge patch
// rules for the pod fields a CloneSet controller touches.
func TestStrategicMergePatch(t *testing.T) {
	pod := `{"apiVersion":"v1","kind":"Pod",
	  "metadata":{"name":"p","labels":{"a":"1","b":"2"},"finalizers":["f1","f2"],
	    "ownerReferences":[{"uid":"u1","name":"o1"},{"uid":"u2","name":"o2"}]},
	  "spec":{"containers":[
	      {"name":"c1","image":"i1","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]},
	      {"name":"c2","image":"i2"}],
	    "readinessGates":[{"conditionType":"G1"}],
	    "volumes":[{"name":"v1","emptyDir":{}}],
	    "tolerations":[{"key":"k1"}]},
	  "status":{"conditions":[{"type":"Ready","status":"True"},{"type":"X","status":"False"}]}}`
	cases := []struct {
		name, resource, patch string
		// check maps a JSON pointer to its wanted value (absent: "<absent>").
		check map[string]string
		err   Reason
	}{
		{name: "labels merge like a merge patch", patch: `{"metadata":{"labels":{"a":null,"c":"3"}}}`,
			check: map[string]string{"/metadata/labels": `{"b":"2","c":"3"}`}},
		{name: "containers merge by name", patch: `{"spec":{"containers":[{"name":"c2","image":"i2b"}]}}`,
			check: map[string]string{"/spec/containers/0/image": `"i1"`, "/spec/containers/1/image": `"i2b"`, "/spec/containers/1/name": `"c2"`}},
		{name: "a new container is appended", patch: `{"spec":{"containers":[{"name":"c3","image":"i3"}]}}`,
			check: map[string]string{"/spec/containers/2": `{"name":"c3","image":"i3"}`, "/spec/containers/0/name": `"c1"`}},
		{name: "env merges by name inside a container", patch: `{"spec":{"containers":[{"name":"c1","env":[{"name":"B","value":"3"},{"name":"C","value":"4"}]}]}}`,
			check: map[string]string{"/spec/containers/0/env": `[{"name":"A","value":"1"},{"name":"B","value":"3"},{"name":"C","value":"4"}]`}},
		{name: "$patch delete removes an element", patch: `{"spec":{"containers":[{"name":"c1","$patch":"delete"}]}}`,
			check: map[string]string{"/spec/containers": `[{"name":"c2","image":"i2"}]`}},
		{name: "$patch replace in a list", patch: `{"spec":{"containers":[{"$patch":"replace"},{"name":"c9","image":"i9"}]}}`,
			check: map[string]string{"/spec/containers": `[{"name":"c9","image":"i9"}]`}},
		{name: "$patch replace of a map", patch: `{"metadata":{"labels":{"$patch":"replace","z":"9"}}}`,
			check: map[string]string{"/metadata/labels": `{"z":"9"}`}},
		{name: "$patch delete of a map", patch: `{"metadata":{"labels":{"$patch":"delete"}}}`,
			check: map[string]string{"/metadata/labels": `<absent>`, "/metadata/name": `"p"`}},
		{name: "conditions merge by type", patch: `{"status":{"conditions":[{"type":"X","status":"True"},{"type":"InPlaceUpdateReady","status":"False"}]}}`,
			check: map[string]string{"/status/conditions": `[{"type":"Ready","status":"True"},{"type":"X","status":"True"},{"type":"InPlaceUpdateReady","status":"False"}]`}},
		{name: "readinessGates have no strategy: replaced", patch: `{"spec":{"readinessGates":[{"conditionType":"G2"}]}}`,
			check: map[string]string{"/spec/readinessGates": `[{"conditionType":"G2"}]`}},
		{name: "tolerations are replaced", patch: `{"spec":{"tolerations":[{"key":"k2"}]}}`,
			check: map[string]string{"/spec/tolerations": `[{"key":"k2"}]`}},
		{name: "finalizers merge as a set", patch: `{"metadata":{"finalizers":["f2","f3"]}}`,
			check: map[string]string{"/metadata/finalizers": `["f1","f2","f3"]`}},
		{name: "$deleteFromPrimitiveList", patch: `{"metadata":{"$deleteFromPrimitiveList/finalizers":["f1"]}}`,
			check: map[string]string{"/metadata/finalizers": `["f2"]`}},
		{name: "$deleteFromPrimitiveList then add", patch: `{"metadata":{"$deleteFromPrimitiveList/finalizers":["f1","f2"],"finalizers":["f4"]}}`,
			check: map[string]string{"/metadata/finalizers": `["f4"]`}},
		{name: "ownerReferences merge by uid", patch: `{"metadata":{"ownerReferences":[{"uid":"u2","name":"o2b"},{"uid":"u3","name":"o3"}]}}`,
			check: map[string]string{"/metadata/ownerReferences": `[{"uid":"u1","name":"o1"},{"uid":"u2","name":"o2b"},{"uid":"u3","name":"o3"}]`}},
		{name: "volumes merge by name", patch: `{"spec":{"volumes":[{"name":"v2","persistentVolumeClaim":{"claimName":"c"}}]}}`,
			check: map[string]string{"/spec/volumes/1/name": `"v2"`, "/spec/volumes/0/name": `"v1"`}},
		{name: "$retainKeys", patch: `{"spec":{"volumes":[{"name":"v1","$retainKeys":["name","configMap"],"configMap":{"name":"cm"}}]}}`,
			check: map[string]string{"/spec/volumes/0": `{"name":"v1","configMap":{"name":"cm"}}`}},
		{name: "$setElementOrder orders the merged list", patch: `{"spec":{"$setElementOrder/containers":[{"name":"c2"},{"name":"c1"}],"containers":[{"name":"c1","image":"x"}]}}`,
			check: map[string]string{"/spec/containers/0/name": `"c2"`, "/spec/containers/1/image": `"x"`}},
		{name: "$setElementOrder places a new element", patch: `{"spec":{"$setElementOrder/containers":[{"name":"c0"},{"name":"c1"},{"name":"c2"}],"containers":[{"name":"c0","image":"i0"}]}}`,
			check: map[string]string{"/spec/containers/0/name": `"c0"`, "/spec/containers/1/name": `"c1"`, "/spec/containers/2/name": `"c2"`}},
		{name: "$setElementOrder of conditions", patch: `{"status":{"$setElementOrder/conditions":[{"type":"X"},{"type":"Ready"}]}}`,
			check: map[string]string{"/status/conditions/0/type": `"X"`}},
		{name: "$setElementOrder of finalizers", patch: `{"metadata":{"$setElementOrder/finalizers":["f2","f1"]}}`,
			check: map[string]string{"/metadata/finalizers": `["f2","f1"]`}},
		{name: "$patch merge is the default", patch: `{"metadata":{"labels":{"$patch":"merge","c":"3"}}}`,
			check: map[string]string{"/metadata/labels": `{"a":"1","b":"2","c":"3"}`}},
		{name: "null removes a list", patch: `{"spec":{"tolerations":null}}`,
			check: map[string]string{"/spec/tolerations": `<absent>`}},
		{name: "an element without its merge key", patch: `{"spec":{"containers":[{"image":"x"}]}}`, err: ReasonBadRequest},
		{name: "a scalar in a keyed list", patch: `{"spec":{"containers":["x"]}}`, err: ReasonBadRequest},
		{name: "a map in a primitive list", patch: `{"metadata":{"finalizers":[{"a":1}]}}`, err: ReasonBadRequest},
		{name: "unknown $patch", patch: `{"metadata":{"labels":{"$patch":"frob"}}}`, err: ReasonBadRequest},
		{name: "unknown directive", patch: `{"metadata":{"$frob":1}}`, err: ReasonBadRequest},
		{name: "$setElementOrder not a list", patch: `{"spec":{"$setElementOrder/containers":1}}`, err: ReasonBadRequest},
		{name: "$deleteFromPrimitiveList not a list", patch: `{"metadata":{"$deleteFromPrimitiveList/finalizers":"f1"}}`, err: ReasonBadRequest},
		{name: "$retainKeys not a list", patch: `{"metadata":{"$retainKeys":"x"}}`, err: ReasonBadRequest},
		{name: "delete the whole object", patch: `{"$patch":"delete"}`, err: ReasonBadRequest},
		{name: "not an object", patch: `[1]`, err: ReasonBadRequest},
		{name: "malformed", patch: `{"metadata":`, err: ReasonBadRequest},
		{name: "custom resources do not take it", resource: "clonesets", patch: `{}`, err: ReasonUnsupportedMediaType},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resource := c.resource
			if resource == "" {
				resource = "pods"
			}
			doc := mustJSON(t, pod).(map[string]any)
			keep := copyObject(doc)
			got, err := ApplyStrategicMergePatch(resource, doc, []byte(c.patch))
			if !Equal(doc, keep) {
				t.Errorf("the object was modified")
			}
			if c.err != "" {
				if ReasonOf(err) != c.err {
					t.Fatalf("want %s, got %v", c.err, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for ptr, want := range c.check {
				p, _ := parsePointer(ptr)
				v, gerr := getAt(got, p)
				if want == Absent {
					if gerr == nil {
						t.Errorf("%s: want absent, got %s", ptr, compactJSON(v))
					}
					continue
				}
				if gerr != nil || !Equal(v, mustJSON(t, want)) {
					t.Errorf("%s: want %s, got %s (%v)\nobject: %s", ptr, want, compactJSON(v), gerr, compactJSON(got))
				}
			}
		})
	}
}

// TestPatchesNeverPanic feeds malformed and odd bodies to every patch type.
func TestPatchesNeverPanic(t *testing.T) {
	bodies := []string{``, `null`, `1`, `"s"`, `[]`, `{}`, `[null]`, `[{"op":"add","path":"/metadata/labels/x","value":1}]`,
		`{"metadata":null}`, `{"metadata":[1]}`, `{"spec":{"containers":null}}`, `{"spec":{"containers":{"name":"x"}}}`,
		`{"spec":{"containers":[{"name":"c1","$patch":"replace"}]}}`, `{"$setElementOrder/x":[1]}`, `{"metadata":{"labels":[1]}}`,
		`[{"op":"move","from":"/spec","path":"/spec/x"}]`, `[{"op":"copy","from":"","path":"/x"}]`, `{"status":5}`,
		`{"metadata":{"finalizers":null,"$deleteFromPrimitiveList/finalizers":["a"]}}`}
	obj := Object{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p", "namespace": "default", "finalizers": []any{"a"}},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c1"}}}}
	for _, pt := range []string{MergePatchType, StrategicMergePatchType, JSONPatchType} {
		for _, b := range bodies {
			s := NewStore("2026-01-01T00:00:00Z")
			if err := s.Add(copyObject(obj)); err != nil {
				t.Fatal(err)
			}
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s %q panics: %v", pt, b, r)
					}
				}()
				_, _ = s.Patch("pods", "default", "p", "", pt, []byte(b), nil)
				_, _ = s.Patch("pods", "default", "p", "status", pt, []byte(b), nil)
			}()
		}
	}
}

func TestPatchErrorsMentionTheProblem(t *testing.T) {
	_, err := ApplyJSONPatch(Object{"a": "x"}, []byte(`[{"op":"test","path":"/a","value":"y"}]`))
	if err == nil || !strings.Contains(err.Error(), "test failed") {
		t.Errorf("got %v", err)
	}
}
