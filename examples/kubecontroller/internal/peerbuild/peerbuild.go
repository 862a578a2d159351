// Package peerbuild runs the go command in the peer module
// (examples/kubecontroller/kruisepeer), which requires OpenKruise's module
// at the version the project reproduces: the tests build OpenKruise's
// CloneSet controller and its e2e suite there.
package peerbuild

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Env is what the peer module's go commands need besides the caller's
// environment: the checksum database does not know
// github.com/openkruise/kruise, and go.mod is resolved as the module asks.
var Env = []string{"GONOSUMDB=github.com/openkruise", "GOFLAGS=-mod=mod"}

// Dir is the peer module's directory, found from this file's.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "kruisepeer")
}

// Go runs `go args...` in the peer module and returns its standard output;
// a failure's error holds the command and its standard error.
func Go(args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = Dir()
	cmd.Env = append(os.Environ(), Env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go %s in %s: %v\n%s", strings.Join(args, " "), cmd.Dir, err, stderr.String())
	}
	return stdout.String(), nil
}
