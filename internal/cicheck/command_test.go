package cicheck

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// readmeCommand is the indented line of a Markdown file that runs every
// test: it begins with the root module's vet.
var readmeCommand = regexp.MustCompile(`(?m)^    (go vet \./\.\.\. && go test \./\.\.\..*)$`)

// ciCommand is .ci/run's run of the README's command: `if ! (COMMAND); then`.
var ciCommand = regexp.MustCompile(`(?m)^if ! \((go vet \./\.\.\. && go test \./\.\.\..*)\); then$`)

// TestCIRunsTheREADMECommand checks that .ci/run runs exactly the command
// README.md and CONTRIBUTING.md give for running every test, so that the
// three never drift apart.
func TestCIRunsTheREADMECommand(t *testing.T) {
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(repoRoot, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	m := ciCommand.FindStringSubmatch(read(".ci/run"))
	if m == nil {
		t.Fatalf(".ci/run has no line %q", ciCommand)
	}
	ci := m[1]
	for _, doc := range []string{"README.md", "CONTRIBUTING.md"} {
		found := readmeCommand.FindAllStringSubmatch(read(doc), -1)
		if len(found) != 1 {
			t.Errorf("%s: %d lines run every test, want 1: %q", doc, len(found), found)
			continue
		}
		if found[0][1] != ci {
			t.Errorf("%s runs\n\t%s\nbut .ci/run runs\n\t%s", doc, found[0][1], ci)
		}
	}
}
