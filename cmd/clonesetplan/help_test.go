package main

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readmeSynopsis returns the lines of the README's CLI synopsis: the first
// code block of its section "## The CLI", spaces collapsed.
func readmeSynopsis(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## The CLI\n")
	if !ok {
		t.Fatal(`README.md has no section "## The CLI"`)
	}
	var lines []string
	inBlock := false
	for _, l := range strings.Split(section, "\n") {
		if strings.HasPrefix(l, "## ") {
			break
		}
		switch {
		case strings.HasPrefix(l, "    ") && strings.TrimSpace(l) != "":
			inBlock = true
			lines = append(lines, collapse(l))
		case strings.TrimSpace(l) == "" && inBlock:
			return lines
		}
	}
	return lines
}

// packageDocSynopsis returns the synopsis lines of the package doc.
func packageDocSynopsis(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	doc, _, _ := strings.Cut(string(data), "\npackage main\n")
	var lines []string
	for _, l := range strings.Split(doc, "\n") {
		if rest, ok := strings.CutPrefix(l, "//\tclonesetplan "); ok {
			lines = append(lines, collapse("clonesetplan "+rest))
		}
	}
	return lines
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// synopsisFlags are the flag names a synopsis names ("-f", "--now": f, now).
var synopsisFlags = regexp.MustCompile(`(?:^|[ \[])--?([a-z][a-z-]*)`)

// helpFlags are the flag names a command's -h lists, one a line ("  -f FILE",
// "  --now TIME", or the standard library's "  -now string"), help itself
// left out.
var helpFlags = regexp.MustCompile(`(?m)^  --?([a-z][a-z-]*)\b`)

func flagSet(re *regexp.Regexp, s string) []string {
	var names []string
	for _, m := range re.FindAllStringSubmatch(s, -1) {
		if m[1] != "h" && !slices.Contains(names, m[1]) {
			names = append(names, m[1])
		}
	}
	slices.Sort(names)
	return names
}

// The help and the documentation agree, command by command: the README's
// synopsis, the package doc's and the top-level help hold exactly the
// synopsis lines of helps, in order; each command's -h begins with its line
// and lists exactly the flags the line names. A command added to helps (with
// its -h) is held to the same.
func TestHelpMatchesREADME(t *testing.T) {
	var want []string
	for _, h := range helps {
		want = append(want, h.synopsis())
	}
	if got := readmeSynopsis(t); !slices.Equal(got, want) {
		t.Errorf("README.md's synopsis (\"## The CLI\"):\n%s\nthe commands' synopses (helps in help.go):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := packageDocSynopsis(t); !slices.Equal(got, want) {
		t.Errorf("the package doc's synopsis (main.go):\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var top bytes.Buffer
	if code := run([]string{"--help"}, nil, &top, &top); code != exitOK {
		t.Fatalf("--help exited %d", code)
	}
	for _, w := range want {
		if !strings.Contains(collapse(top.String()), w) {
			t.Errorf("--help lacks %q:\n%s", w, top.String())
		}
	}
	for _, h := range helps {
		var stdout, stderr bytes.Buffer
		if code := run([]string{h.name, "-h"}, nil, &stdout, &stderr); code != exitOK {
			t.Errorf("%s -h exited %d: %s", h.name, code, stderr.String())
			continue
		}
		first, _, _ := strings.Cut(stdout.String(), "\n")
		if first != "Usage: "+h.synopsis() {
			t.Errorf("%s -h begins %q, want %q", h.name, first, "Usage: "+h.synopsis())
		}
		if got, want := flagSet(helpFlags, stdout.String()), flagSet(synopsisFlags, h.args); !slices.Equal(got, want) {
			t.Errorf("%s: -h lists the flags %v, the synopsis names %v", h.name, got, want)
		}
	}
}
