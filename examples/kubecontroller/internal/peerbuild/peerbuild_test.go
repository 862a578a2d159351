package peerbuild

import (
	"strings"
	"testing"
)

// TestGoRunsInThePeerModule: the go command runs in the peer module, with
// its environment.
func TestGoRunsInThePeerModule(t *testing.T) {
	out, err := Go("list", "-m")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(out); !strings.HasSuffix(got, "/kruisepeer") {
		t.Errorf("go list -m in the peer module: %q", got)
	}
	if _, err := Go("no-such-command"); err == nil || !strings.Contains(err.Error(), "no-such-command") {
		t.Errorf("a failed command: %v, want an error naming it", err)
	}
}
