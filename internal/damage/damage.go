// Package damage damages byte strings at random, for the tests that check a
// fast reader against the reference reader it shortcuts: whatever damaged
// input the fast one accepts, both must read alike. It is internal to the
// module and imported by tests only.
package damage

import "math/rand/v2"

// Bytes applies edits random edits to a copy of b, each one of: replace a
// byte, delete a byte, insert a byte; replaced and inserted bytes come from
// alphabet. An empty b or alphabet is returned unchanged (as a copy).
func Bytes(r *rand.Rand, b []byte, edits int, alphabet string) []byte {
	out := append([]byte(nil), b...)
	if len(alphabet) == 0 {
		return out
	}
	for ; edits > 0 && len(out) > 0; edits-- {
		pos := r.IntN(len(out))
		switch r.IntN(3) {
		case 0:
			out[pos] = alphabet[r.IntN(len(alphabet))]
		case 1:
			out = append(out[:pos], out[pos+1:]...)
		default:
			out = append(out[:pos], append([]byte{alphabet[r.IntN(len(alphabet))]}, out[pos:]...)...)
		}
	}
	return out
}
