package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzAdmitCLI: any input to admit and convert (YAML or JSON, through
// standard input) ends in exit status 0 or 1, never a panic or a usage
// error; an admitted object admitted again prints the same bytes (the
// defaults are idempotent through the CLI's YAML). Seeds: the admission
// record's worlds and admit's test CloneSet.
func FuzzAdmitCLI(f *testing.F) {
	worlds, _ := filepath.Glob(filepath.Join(admissionDir, "worlds", "*.json"))
	for _, w := range worlds[:min(len(worlds), 20)] {
		data, err := os.ReadFile(w)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(admitCloneSet))
	f.Add([]byte(admitCloneSet + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var out, errOut bytes.Buffer
		code := run([]string{"admit", "-f", "-"}, bytes.NewReader(data), &out, &errOut)
		if code != exitOK && code != exitInput {
			t.Fatalf("admit exited %d: %s", code, errOut.String())
		}
		if out.Len() > 0 {
			var again, errAgain bytes.Buffer
			if c := run([]string{"admit", "-f", "-"}, bytes.NewReader(out.Bytes()), &again, &errAgain); c != code && c != exitInput {
				t.Fatalf("admit of admit's output exited %d: %s", c, errAgain.String())
			}
			if again.String() != out.String() {
				t.Fatalf("admit is not idempotent:\n%s\n%s", out.String(), again.String())
			}
		}
		for _, to := range []string{"v1alpha1", "v1beta1"} {
			var conv, errConv bytes.Buffer
			if c := run([]string{"convert", "-f", "-", "--to", to, "-o", "json"}, bytes.NewReader(data), &conv, &errConv); c != exitOK && c != exitInput {
				t.Fatalf("convert --to %s exited %d: %s", to, c, errConv.String())
			}
		}
	})
}
