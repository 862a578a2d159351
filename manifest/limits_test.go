package manifest

import (
	"bytes"
	"fmt"
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
		{"LoadAll", func(o Options) error { _, err := o.LoadAll(bytes.NewReader(doc), "in.yaml"); return err }},
		{"LoadAllFiles stdin", func(o Options) error { _, err := o.LoadAllFiles([]string{"-"}, bytes.NewReader(doc)); return err }},
		{"ReadAll", func(o Options) error { _, err := o.ReadAll(bytes.NewReader(doc), "in.yaml"); return err }},
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

// endless is a reader that never ends (an input piped from a process that
// never stops writing).
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '#'
	}
	return len(p), nil
}

// TestEndlessInput: the readers stop at the limit instead of reading an
// endless input (LoadAll read its reader to the end before the limit
// applied, and so did the CLI's standard input).
func TestEndlessInput(t *testing.T) {
	o := Options{MaxInputBytes: 1 << 20}
	for name, read := range map[string]func() error{
		"Load":         func() error { _, err := o.Load(endless{}, "-"); return err },
		"LoadAll":      func() error { _, err := o.LoadAll(endless{}, "-"); return err },
		"ReadAll":      func() error { _, err := o.ReadAll(endless{}, "-"); return err },
		"LoadAllFiles": func() error { _, err := o.LoadAllFiles([]string{"-"}, endless{}); return err },
	} {
		if err := read(); err == nil || !strings.Contains(err.Error(), "limit of 1048576 bytes") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestSimulationBounds: a Simulation document may ask for at most
// MaxSimulationNodes nodes and MaxSimulationSteps steps; above, the error
// names the field (nodes: 2147483647 made the simulator build 2^31 node
// names and run out of memory).
func TestSimulationBounds(t *testing.T) {
	doc := func(field string) []byte {
		return []byte("apiVersion: clonesetcore/v1alpha1\nkind: Simulation\n" + field + "\n")
	}
	for _, c := range []struct {
		field, want string
	}{
		{"nodes: 5000", ""},
		{"nodes: 5001", "nodes: must be at most 5000"},
		{"nodes: 2147483647", "nodes: must be at most 5000"},
		{"steps: 100000", ""},
		{"steps: 100001", "steps: must be at most 100000"},
	} {
		s, err := LoadSimulation(doc(c.field), "sim.yaml")
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.field, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want %q", c.field, err, c.want)
		case c.want != "" && s != nil && s.NodeCount > MaxSimulationNodes:
			t.Errorf("%s: node count %d kept", c.field, s.NodeCount)
		}
	}
}

// mergeChain returns a List of n pods whose labels each merge the previous
// pod's labels (YAML merge keys): pod i's labels are i merges deep.
func mergeChain(n int) string {
	var b strings.Builder
	b.WriteString("---\napiVersion: v1\nkind: List\nitems:\n")
	for i := range n {
		fmt.Fprintf(&b, "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p%d\n    namespace: default\n", i)
		if i == 0 {
			b.WriteString("    labels: &l0 {app: sample, k0: v}\n")
		} else {
			fmt.Fprintf(&b, "    labels: &l%d {<<: *l%d, k%d: v}\n", i, i-1, i)
		}
	}
	return b.String()
}

// TestMergeKeyBounds: members that merge keys beyond the loader's bounds
// would leave out are an error naming the field, not a silently smaller
// object (they were dropped without an error): 16 merges deep load, 17 do
// not; nor does a merge key met after 16,384 members were visited.
func TestMergeKeyBounds(t *testing.T) {
	s, err := LoadBytes([]byte(beta(selTpl)+mergeChain(17)), "in.yaml")
	if err != nil {
		t.Fatalf("16 merges deep: %v", err)
	}
	if p := s.Pods[16]; p.Labels["k0"] != "v" || p.Labels["k16"] != "v" || len(p.Labels) != 17+1 {
		t.Fatalf("16 merges deep: labels %v", p.Labels)
	}
	_, err = LoadBytes([]byte(beta(selTpl)+mergeChain(18)), "in.yaml")
	if err == nil || !strings.Contains(err.Error(), "merge keys") || !strings.Contains(err.Error(), "metadata.labels") {
		t.Fatalf("17 merges deep: %v", err)
	}
	// A merge source of more members than the work bound, which merges a
	// further mapping: that last merge is beyond the bound.
	var big strings.Builder
	big.WriteString("---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: big\n  namespace: default\n  ownerReferences: [&c {kind: ReplicaSet, name: rs, uid: u, controller: true}]\n  annotations: &a\n    <<: *c\n")
	for i := range maxMergeWork + 1 {
		fmt.Fprintf(&big, "    k%d: v\n", i)
	}
	big.WriteString("  labels: {<<: *a, app: sample}\n")
	_, err = LoadBytes([]byte(beta(selTpl)+big.String()), "in.yaml")
	if err == nil || !strings.Contains(err.Error(), "merge keys") {
		t.Fatalf("a merge of %d members: %v", maxMergeWork+1, err)
	}
}
