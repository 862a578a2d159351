package debughash

import "testing"

// TestBytes: kruise v1.9.0's env-from-metadata hasher gives a container
// without such env 86995377, its DeepHashObject of the JSON "null".
func TestBytes(t *testing.T) {
	if got := Bytes([]byte("null")); got != 86995377 {
		t.Errorf("Bytes(null) = %d, want 86995377", got)
	}
	if Bytes(nil) == Bytes([]byte{0}) {
		t.Error("the empty slice and one zero byte hash alike")
	}
}
