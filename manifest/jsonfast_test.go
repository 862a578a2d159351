package manifest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/clonecore/cloneset/internal/damage"
	"github.com/clonecore/cloneset/worldgen"
	"gopkg.in/yaml.v3"
)

// fastDocs reads a whole stream with the fast reader, keeping every node.
func fastDocs(data []byte) ([]*yaml.Node, bool) {
	f := &fastJSON{data: data, src: string(data), line: 1}
	var out []*yaml.Node
	for {
		f.skipSpace()
		if f.pos >= len(data) {
			return out, true
		}
		if c := data[f.pos]; c != '{' && c != '[' {
			return nil, false
		}
		n, ok := f.value(0)
		if !ok {
			return nil, false
		}
		out = append(out, n)
		f.retain()
	}
}

// sameNodes reports the first difference between two node trees, "" if none.
func sameNodes(a, b *yaml.Node, at string) string {
	if a.Kind != b.Kind || a.Tag != b.Tag || a.Value != b.Value || a.Line != b.Line || a.Style != b.Style || len(a.Content) != len(b.Content) {
		return fmt.Sprintf("%s: fast {%v %s %q line %d, %d children} vs reader {%v %s %q line %d, %d children}",
			at, a.Kind, a.Tag, a.Value, a.Line, len(a.Content), b.Kind, b.Tag, b.Value, b.Line, len(b.Content))
	}
	for i := range a.Content {
		if d := sameNodes(a.Content[i], b.Content[i], fmt.Sprintf("%s/%d", at, i)); d != "" {
			return d
		}
	}
	return ""
}

// checkFastJSON fails when the fast reader takes an input that jsonReader
// rejects or reads differently; it returns whether the fast reader took it.
func checkFastJSON(t *testing.T, input string) bool {
	t.Helper()
	fast, ok := fastDocs([]byte(input))
	if !ok {
		return false
	}
	slow, err := parseJSONStream([]byte(input))
	if err != nil {
		t.Fatalf("fast reader took %q, jsonReader rejects it: %v", input, err)
	}
	if len(fast) != len(slow) {
		t.Fatalf("%q: %d documents, jsonReader %d", input, len(fast), len(slow))
	}
	for i := range fast {
		if d := sameNodes(fast[i], slow[i], fmt.Sprintf("document %d", i+1)); d != "" {
			t.Fatalf("%q: %s", input, d)
		}
	}
	return true
}

func TestFastJSONMatchesReader(t *testing.T) {
	taken := []string{
		``, "  \n", `{}`, `[]`, `{}{}`, "{}\n[]\n", `{"a":1}`, "{\n  \"a\" : [ 1 , 2.5, -3e2, 0, -0.0, 1E+2 ],\r\n\t\"b\": {\"c\": null}\n}",
		`{"t":true,"f":false,"n":null}`, `{"s":"plain","e":"tab\tq\"\\ \/ \u00e9 \ud83d\ude00","u":"héllo"}`,
		`{"bad":"\ud800"}`, `{"dup":1,"dup":2}`, `[[[[]]]]`, `[{"a":[{"b":{}}]}]`, "{\"x\":\"a\xffb\"}",
		`{"big":123456789012345678901234567890}`, `[0.5e-3,10,-1]`,
	}
	for _, in := range taken {
		if !checkFastJSON(t, in) {
			t.Errorf("fast reader declined well-formed %q", in)
		}
	}
	declined := []string{
		`1`, `"s"`, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `[01]`, `[1.]`, `[.5]`, `[-]`, `[1e]`, `[tru]`, `[truex]`,
		`{a:1}`, `{"a":1}x`, "{\"a\":\"\x01\"}", `{"a":"\x"}`, `{"a":"unterminated}`, `[1 2]`, `{"a":1 "b":2}`,
		strings.Repeat("[", maxDepth+2) + strings.Repeat("]", maxDepth+2),
	}
	for _, in := range declined {
		if checkFastJSON(t, in) {
			t.Errorf("fast reader took malformed %q", in)
		}
	}
}

// Random damage to a real stream: whatever the fast reader takes, jsonReader
// reads identically.
func TestFastJSONDamagedInput(t *testing.T) {
	data, err := EncodeJSON(worldgen.Realistic(3, 4))
	if err != nil {
		t.Fatal(err)
	}
	if !checkFastJSON(t, string(data)) {
		t.Fatal("fast reader declined an encoded world")
	}
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "{}[],:\"\\ \n0123456789.-+eEtrufalsn\x00\xff"
	for i := 0; i < 3000; i++ {
		prefix := data[:200+r.IntN(600)]
		checkFastJSON(t, string(damage.Bytes(r, prefix, 1+r.IntN(3), alphabet)))
	}
}

// The streaming reader decodes exactly what the document reader decodes: a
// world loads the same from JSON as from the equivalent YAML.
func TestJSONStreamLoadsLikeYAML(t *testing.T) {
	s := worldgen.Realistic(5, 40)
	j, err := EncodeJSON(s)
	if err != nil {
		t.Fatal(err)
	}
	y, err := EncodeYAML(s)
	if err != nil {
		t.Fatal(err)
	}
	fromJSON, err := LoadBytes(j, "w.json")
	if err != nil {
		t.Fatal(err)
	}
	fromYAML, err := LoadBytes(y, "w.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(fromJSON.Pods) != len(fromYAML.Pods) || len(fromJSON.PVCs) != len(fromYAML.PVCs) {
		t.Fatalf("JSON: %d pods %d PVCs, YAML: %d pods %d PVCs", len(fromJSON.Pods), len(fromJSON.PVCs), len(fromYAML.Pods), len(fromYAML.PVCs))
	}
	// A malformed stream falls back to jsonReader, which words the error.
	bad := append(append([]byte(nil), j...), []byte(`{"apiVersion": "v1", "kind": "Pod",}`)...)
	if _, err := LoadBytes(bad, "bad.json"); err == nil || !strings.Contains(err.Error(), "bad.json: invalid JSON: line") {
		t.Fatalf("malformed stream: %v", err)
	}
}
