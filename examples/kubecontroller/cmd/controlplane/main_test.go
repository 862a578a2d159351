package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller/controlplane"
)

func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"nope"}, {"build", "extra"}, {"up", "--nodes"}, {"up", "extra"}} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), args, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "usage:") {
			t.Errorf("run %q = %d, stderr %q; want 2 and the usage", args, code, errOut.String())
		}
	}
}

func TestBuildPrintsTheDirectory(t *testing.T) {
	dir, err := controlplane.Binaries(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run(t.Context(), []string{"build"}, &out, &errOut); code != 0 || strings.TrimSpace(out.String()) != dir {
		t.Errorf("build = %d, stdout %q, stderr %q; want 0 and %s", code, out.String(), errOut.String(), dir)
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestUpUntilCancelled: up prints a kubeconfig that reaches the API
// server, and stops everything when its context ends (SIGINT in main).
func TestUpUntilCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	copyPath := filepath.Join(t.TempDir(), "kubeconfig")
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"up", "--nodes", "1", "--kubeconfig", copyPath}, &out, &errOut) }()
	deadline := time.Now().Add(2 * time.Minute)
	for strings.TrimSpace(out.String()) == "" {
		select {
		case code := <-done:
			t.Fatalf("up exited with %d: %s", code, errOut.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("up printed nothing: %s", errOut.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := strings.TrimSpace(out.String()); got != copyPath {
		t.Errorf("up printed %q, want %s", got, copyPath)
	}
	data, err := os.ReadFile(copyPath)
	if err != nil || !strings.Contains(string(data), "https://127.0.0.1:") {
		t.Fatalf("kubeconfig: %v\n%s", err, data)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("up exited with %d after the cancel: %s", code, errOut.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("up did not stop")
	}
	if !strings.Contains(errOut.String(), "stopped in") {
		t.Errorf("stderr: %s", errOut.String())
	}
	m := regexp.MustCompile(`nodes in (\S+);`).FindStringSubmatch(errOut.String())
	if m == nil {
		t.Fatalf("no directory in the output: %s", errOut.String())
	}
	if _, err := os.Stat(m[1]); !os.IsNotExist(err) {
		t.Errorf("%s left behind (%v)", m[1], err)
	}
}
