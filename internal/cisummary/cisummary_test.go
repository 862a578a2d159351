package cisummary

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPrintAppendsToTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "summary")
	t.Setenv(EnvFile, path)
	Print(t, "conformance x: 1/1")
	Print(t, "fault y: converged")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "conformance x: 1/1\nfault y: converged\n"; string(got) != want {
		t.Errorf("file holds %q, want %q", got, want)
	}
}

func TestPrintWithoutTheVariableWritesNoFile(t *testing.T) {
	t.Setenv(EnvFile, "")
	dir := t.TempDir()
	t.Chdir(dir)
	Print(t, "conformance x: 1/1")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Errorf("files written: %v", entries)
	}
}
