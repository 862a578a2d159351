// Package cisummary prints the summary lines that CI shows: a conformance
// count, a fault's outcome, a benchmark's line. A test prints its line with
// Print; `go test -v` shows it, and when the environment variable named by
// EnvFile holds a file path, the line is also appended to that file, so that
// .ci/run can show every summary of the one run of the README's test command
// instead of running the tests again with -v.
//
// The variable is read on each call, so go test's cache of a test result
// depends on it: a new file path runs the tests again.
package cisummary

import (
	"fmt"
	"os"
	"testing"
)

// EnvFile is the environment variable naming the file that collects the
// summary lines.
const EnvFile = "CLONESET_CI_SUMMARY"

// Print logs line to the test, writes it to standard output on a line of its
// own, and appends it to the file named by $CLONESET_CI_SUMMARY when that is
// set. A failure to append fails the test: CI would miss the line.
func Print(t testing.TB, line string) {
	t.Helper()
	t.Log(line)
	fmt.Println(line)
	path := os.Getenv(EnvFile)
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Errorf("cisummary: %v", err)
		return
	}
	// One write per line: appends of a line are atomic between the test
	// processes that share the file.
	if _, err := f.Write([]byte(line + "\n")); err != nil {
		t.Errorf("cisummary: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("cisummary: %v", err)
	}
}
