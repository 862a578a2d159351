// Package exampletest runs the programs under examples/ the way their
// documentation says to, for their tests: every `go run ./examples/NAME ...`
// line of the README and of the example's package doc is run, from the
// repository root, through the example's main (without its os.Exit).
package exampletest

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Main is an example's main without os.Exit: the arguments after the
// program name, its standard streams, and its exit status.
type Main func(args []string, stdin io.Reader, stdout, stderr io.Writer) int

// Commands returns the arguments of each line of text that runs the example
// name (`go run ./examples/NAME -f x -by 3` gives [-f x -by 3]), in order;
// the arguments end at a shell comment, pipe or redirection.
func Commands(text, name string) [][]string {
	var out [][]string
	prefix := "go run ./examples/" + name
	for _, line := range strings.Split(text, "\n") {
		_, rest, ok := strings.Cut(line, prefix)
		if !ok || (rest != "" && rest[0] != ' ') {
			continue
		}
		args := []string{}
		for _, f := range strings.Fields(rest) {
			if strings.HasPrefix(f, "#") || f == "|" || strings.HasPrefix(f, ">") || f == "&&" || f == "`" {
				break
			}
			args = append(args, strings.Trim(f, "`"))
		}
		out = append(out, args)
	}
	return out
}

// RunAsDocumented runs main with every command of the README and of the
// example's package doc (main.go in the test's directory, examples/NAME),
// from the repository root, as both say to run them. It fails t when the
// README shows no command for the example, when a command exits non-zero
// or prints nothing, and returns the outputs by command line.
func RunAsDocumented(t *testing.T, name string, main Main) map[string]string {
	t.Helper()
	doc, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	fromREADME := Commands(string(readme), name)
	if len(fromREADME) == 0 {
		t.Errorf("README.md shows no `go run ./examples/%s` command", name)
	}
	fromDoc := Commands(string(doc), name)
	if len(fromDoc) == 0 {
		t.Errorf("the package doc of examples/%s shows no `go run ./examples/%s` command", name, name)
	}
	t.Chdir(root)
	outputs := map[string]string{}
	for _, args := range append(fromREADME, fromDoc...) {
		line := strings.TrimSpace("go run ./examples/" + name + " " + strings.Join(args, " "))
		if _, done := outputs[line]; done {
			continue
		}
		var stdout, stderr bytes.Buffer
		code := main(args, strings.NewReader(""), &stdout, &stderr)
		if code != 0 || stdout.Len() == 0 {
			t.Errorf("%s (from the repository root): exit %d, %d bytes of output\nstderr: %s", line, code, stdout.Len(), stderr.String())
		}
		outputs[line] = stdout.String()
	}
	return outputs
}
