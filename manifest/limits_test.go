package manifest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestMaxInputBytes: an input above Options.MaxInputBytes is refused with an
// error naming the source and the limit, from every entry point (bytes, a
// reader, a file, standard input, several files together); at the limit it
// loads.
func TestMaxInputBytes(t *testing.T) {
	doc := []byte(beta(selTpl))
	n := int64(len(doc))
	dir := t.TempDir()
	path := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	entries := []struct {
		name string
		load func(o Options) error
	}{
		{"LoadBytes", func(o Options) error { _, err := o.LoadBytes(doc, "in.yaml"); return err }},
		{"Load", func(o Options) error { _, err := o.Load(bytes.NewReader(doc), "in.yaml"); return err }},
		{"LoadFiles file", func(o Options) error { _, err := o.LoadFiles([]string{path}, nil); return err }},
		{"LoadFiles stdin", func(o Options) error { _, err := o.LoadFiles([]string{"-"}, bytes.NewReader(doc)); return err }},
	}
	for _, e := range entries {
		t.Run(e.name, func(t *testing.T) {
			if err := e.load(Options{MaxInputBytes: n}); err != nil {
				t.Fatalf("at the limit: %v", err)
			}
			err := e.load(Options{MaxInputBytes: n - 1})
			if err == nil || !strings.Contains(err.Error(), "MaxInputBytes") || !strings.Contains(err.Error(), "limit of "+strconv.FormatInt(n-1, 10)+" bytes") {
				t.Fatalf("above the limit: %v", err)
			}
		})
	}
	// Two files count together.
	half := Options{MaxInputBytes: n + n/2}
	if _, err := half.LoadFiles([]string{path, path}, nil); err == nil || !strings.Contains(err.Error(), "MaxInputBytes") {
		t.Fatalf("two files above the limit: %v", err)
	}
	if DefaultMaxInputBytes != 1<<30 || (Options{}).maxInputBytes() != DefaultMaxInputBytes {
		t.Fatal("default limit")
	}
}
