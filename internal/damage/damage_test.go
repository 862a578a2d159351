package damage

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// Each edit changes the length by at most one, only bytes of the alphabet
// appear, the input is never modified, and some edits do change the input.
func TestBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	in := []byte("abcdefgh")
	changed := 0
	for i := 0; i < 1000; i++ {
		edits := 1 + r.IntN(3)
		out := Bytes(r, in, edits, "XY")
		if string(in) != "abcdefgh" {
			t.Fatal("input modified")
		}
		if d := len(out) - len(in); d < -edits || d > edits {
			t.Fatalf("%d edits changed the length by %d", edits, d)
		}
		for _, c := range out {
			if !bytes.ContainsRune(append(in, "XY"...), rune(c)) {
				t.Fatalf("byte %q from nowhere in %q", c, out)
			}
		}
		if !bytes.Equal(out, in) {
			changed++
		}
	}
	if changed < 900 {
		t.Fatalf("only %d of 1000 damaged copies differ", changed)
	}
	if out := Bytes(r, nil, 3, "XY"); len(out) != 0 {
		t.Fatalf("empty input gave %q", out)
	}
	if out := Bytes(r, in, 3, ""); !bytes.Equal(out, in) {
		t.Fatalf("empty alphabet changed the input: %q", out)
	}
}
