package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// yaml11Booleans are the plain scalars YAML 1.2 (the library's loader,
// yaml.v3) reads as strings and YAML 1.1 (kubectl, sigs.k8s.io/yaml) as
// booleans: true and false are booleans in both.
var yaml11Booleans = map[string]bool{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true,
	"n": true, "N": true, "no": true, "No": true, "NO": true,
	"on": true, "On": true, "ON": true, "off": true, "Off": true, "OFF": true,
}

// TestGoldenScenariosReadAsKubectlReadsThem fails on a golden scenario with a
// plain scalar that YAML 1.1 reads as a boolean (`zone: y`): the planner
// reads the string "y", kubectl apply of the same file a boolean, which the
// API server refuses as a label value. Such values must be quoted.
func TestGoldenScenariosReadAsKubectlReadsThem(t *testing.T) {
	files := 0
	err := filepath.WalkDir(goldenDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		files++
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, bad := range yaml11Ambiguities(data) {
			t.Errorf("%s:%d: the plain scalar %q is a string in YAML 1.2 and a boolean in YAML 1.1 (kubectl): quote it", path, bad.Line, bad.Value)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatalf("no scenario under %s", goldenDir)
	}
}

// yaml11Ambiguities returns the plain string scalars of a YAML stream that
// YAML 1.1 reads as booleans.
func yaml11Ambiguities(data []byte) []*yaml.Node {
	var out []*yaml.Node
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.ScalarNode && n.Style == 0 && n.Tag == "!!str" && yaml11Booleans[n.Value] {
			out = append(out, n)
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			return out // io.EOF, or a document TestGolden reports
		}
		walk(&doc)
	}
}

// TestYAML11AmbiguitiesFindsPlainBooleansOnly checks the finder itself:
// quoted values and YAML 1.2 booleans are not reported, plain ones in any
// document of a stream are.
func TestYAML11AmbiguitiesFindsPlainBooleansOnly(t *testing.T) {
	got := yaml11Ambiguities([]byte("a: y\nb: \"y\"\nc: true\nd: off\n---\ne: [n, 'n', x]\n"))
	var values []string
	for _, n := range got {
		values = append(values, n.Value)
	}
	if strings.Join(values, ",") != "y,off,n" {
		t.Fatalf("found %q, want y, off and n", values)
	}
}
