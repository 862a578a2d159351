// Package debughash computes the hash Kubernetes' and OpenKruise's
// DeepHashObject gives a byte slice: the text their debug printer writes for
// it, "([]uint8)[b0 b1 ...]" with each byte in decimal and separated by one
// space, hashed with 32-bit FNV-1a. OpenKruise hashes JSON encodings that
// way (the volume-claim-template hash of a revision, the env-from-metadata
// hash of a container); the value is reproduced bit for bit.
package debughash

import (
	"hash/fnv"
	"strconv"
)

// Bytes is the 32-bit FNV-1a hash of b as the debug printer renders a byte
// slice.
func Bytes(b []byte) uint32 {
	h := fnv.New32a()
	var num [4]byte
	h.Write([]byte("([]uint8)["))
	for i, c := range b {
		if i > 0 {
			h.Write([]byte{' '})
		}
		h.Write(strconv.AppendUint(num[:0], uint64(c), 10))
	}
	h.Write([]byte{']'})
	return h.Sum32()
}
