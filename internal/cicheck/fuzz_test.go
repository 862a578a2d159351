package cicheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is the repository root, two levels above this package.
const repoRoot = "../.."

var fuzzFunc = regexp.MustCompile(`(?m)^func (Fuzz\w+)\(`)

// fuzzTargets lists every fuzz target of the repository's modules as
// "./dir/ Name", the form .ci/run's fuzz lines use (the directory relative to
// the module that holds it).
func fuzzTargets(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != repoRoot {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range fuzzFunc.FindAllSubmatch(src, -1) {
			rel, _ := filepath.Rel(repoRoot, filepath.Dir(path))
			out = append(out, "./"+filepath.ToSlash(rel)+"/ "+string(m[1]))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEveryFuzzTargetRunsInCI checks that .ci/run gives every fuzz target of
// the repository its short run: a target added without its line would
// otherwise only ever run its seed corpus.
func TestEveryFuzzTargetRunsInCI(t *testing.T) {
	script, err := os.ReadFile(filepath.Join(repoRoot, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	targets := fuzzTargets(t)
	if len(targets) == 0 {
		t.Fatal("no fuzz target found: the walk is broken")
	}
	for _, target := range targets {
		if !strings.Contains(string(script), "\nfuzz "+target+"\n") {
			t.Errorf(".ci/run has no line %q: add it to the fuzz list", "fuzz "+target)
		}
	}
}
