package manifest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRawTree checks the JSON-like tree of a template: numbers become
// json.Number in JSON syntax, quoted text stays a string.
func TestRawTree(t *testing.T) {
	in := beta(selTpl + `      x:
        int: 42
        neg: -7
        hex: 0x1F
        octal: 0o17
        plus: +5
        big: 123456789012345678901234567890
        float: 1.5e3
        dot: .5
        quoted: "0x1F"
        single: '5'
        yes: yes
        t: true
        "n": null
        tilde: ~
        ts: 2026-01-01T00:00:00Z
        list: [1, "1", 1.0]
        empty: {}
`)
	spec := mustLoad(t, in).CloneSet.Spec.Template.Raw["spec"].(map[string]any)
	want := map[string]any{
		"int": json.Number("42"), "neg": json.Number("-7"), "hex": json.Number("31"), "octal": json.Number("15"),
		"plus": json.Number("5"), "big": json.Number("123456789012345678901234567890"), "float": json.Number("1.5e3"),
		"dot": json.Number("0.5"), "quoted": "0x1F", "single": "5", "yes": "yes", "t": true, "n": nil, "tilde": nil,
		"ts": "2026-01-01T00:00:00Z", "list": []any{json.Number("1"), "1", json.Number("1.0")}, "empty": map[string]any{},
	}
	if diff := cmp.Diff(want, spec["x"]); diff != "" {
		t.Errorf("raw tree (-want +got):\n%s", diff)
	}
	// Every number renders as valid JSON.
	if _, err := json.Marshal(spec); err != nil {
		t.Errorf("raw tree is not JSON: %v", err)
	}
	for _, bad := range []string{".inf", "-.Inf", ".nan"} {
		_, err := LoadBytes([]byte(beta(selTpl+"      x: "+bad+"\n")), "t.yaml")
		if err == nil || !strings.Contains(err.Error(), "spec.template.spec.x: number "+bad+" cannot be represented in JSON") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

func TestIsJSONNumber(t *testing.T) {
	for s, ok := range map[string]bool{
		"0": true, "-0": true, "12": true, "1.5": true, "1e5": true, "1E+5": true, "-2.5e-3": true,
		"": false, "-": false, "01": false, "+1": false, "1.": false, ".5": false, "1e": false, "0x1": false, "1_000": false, "1.5.2": false,
	} {
		if isJSONNumber(s) != ok {
			t.Errorf("isJSONNumber(%q) = %v", s, !ok)
		}
	}
}

func TestSplitPathAndNodeAt(t *testing.T) {
	got := splitPath("spec.template.spec.containers[0].resources.requests[cpu]")
	want := []string{"spec", "template", "spec", "containers", "0", "resources", "requests", "cpu"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("splitPath (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"metadata", "labels", "a.b/c"}, splitPath("metadata.labels[a.b/c]")); diff != "" {
		t.Error(diff)
	}
	if diff := cmp.Diff([]string{"a", "b"}, splitPath("a[b")); diff != "" {
		t.Error(diff)
	}
}
