package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// outputSample is a README sample: `<!-- output of: clonesetplan ARGS -->`
// then a fenced block.
var outputSample = regexp.MustCompile("(?s)<!-- output of: clonesetplan ([^>]*?) -->\n```[a-z]*\n(.*?)```\n")

// Every output the README shows is what the command prints, run from the
// repository root as the README runs it: whole, or, where the sample
// leaves lines out with "...", each shown run of lines in order.
func TestREADMEOutputs(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	samples := outputSample.FindAllStringSubmatch(string(readme), -1)
	if len(samples) < 3 {
		t.Fatalf("README.md shows %d command outputs, want the quickstart's, rank's and simulate's", len(samples))
	}
	t.Chdir(root)
	for _, s := range samples {
		args, want := strings.Fields(s[1]), s[2]
		var stdout, stderr bytes.Buffer
		if code := run(args, strings.NewReader(""), &stdout, &stderr); code != exitOK {
			t.Errorf("clonesetplan %s: exit %d: %s", s[1], code, stderr.String())
			continue
		}
		if msg := sampleMismatch(want, stdout.String()); msg != "" {
			t.Errorf("README.md's output of `clonesetplan %s` is not what it prints: %s\nit prints:\n%s", s[1], msg, stdout.String())
		}
	}
}

// sampleMismatch says how a sample differs from an output ("" when it
// matches): a sample without "..." lines is the whole output; one with them
// is runs of lines that appear in the output in that order.
func sampleMismatch(sample, output string) string {
	if !strings.Contains(sample, "\n...\n") && !strings.HasPrefix(sample, "...\n") {
		if sample != output {
			return "the output differs"
		}
		return ""
	}
	rest := output
	for _, run := range strings.Split(sample, "...\n") {
		if run == "" {
			continue
		}
		i := strings.Index(rest, run)
		if i < 0 || (i > 0 && rest[i-1] != '\n') {
			return "these lines are not in the output (after the ones before them):\n" + run
		}
		rest = rest[i+len(run):]
	}
	return ""
}

// The matching rule itself: runs must appear whole, at line starts, in order.
func TestSampleMismatch(t *testing.T) {
	out := "a\nb\nc\nd\n"
	for sample, ok := range map[string]bool{
		"a\nb\nc\nd\n":     true,
		"a\nb\n":           false,
		"a\n...\nc\nd\n":   true,
		"...\nb\nc\n...\n": true,
		"c\n...\na\n":      false,
		"...\nb\nd\n...\n": false,
		"...\n\nc\n...\n":  false,
		"...\nd\n":         true,
		"...\nx\n...\n":    false,
		"a\n...\n...\nd\n": true,
		"...\nb\nc\nd\n\n": false,
	} {
		if got := sampleMismatch(sample, out) == ""; got != ok {
			t.Errorf("sample %q: match %v, want %v", sample, got, ok)
		}
	}
}
