package clonesetcore_test

import (
	"hash/fnv"
	"math/rand/v2"
	"testing"
)

// FuzzPlan decodes a world from the fuzz bytes (one byte per decision of
// genWorld: replicas, partition, surge, budgets, policy, hooks, gates, then per
// pod its revision, state, phase, readiness, owner, grace period, ...; missing
// bytes read as 0) and checks that Plan does not panic or fail, that it is
// deterministic and does not modify its input, that reordering every slice of
// the scenario (in an order derived from the bytes) changes nothing, and the
// invariants of invariantViolations.
//
// Run it with: go test -run=^$ -fuzz=FuzzPlan -fuzztime=5m ./clonesetcore/
func FuzzPlan(f *testing.F) {
	for _, seed := range [][]byte{
		{},
		{3},
		{5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5},
		{4, 1, 2, 1, 2, 0, 0, 1, 0, 0, 0, 1, 1, 0, 2, 0, 1, 1, 1, 0, 1, 1, 0, 1, 0, 0, 0, 1, 1, 9, 8, 7, 6, 5, 4, 3, 2, 1},
		{8, 4, 1, 0, 3, 1, 1, 1, 2, 1, 1, 1, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 0, 9,
			8, 8, 0, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1},
		[]byte("a longer seed with many different decisions in it: 0123456789abcdef"),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ws := genWorld(&byteSource{data: data})
		h := fnv.New64a()
		h.Write(data)
		seed := h.Sum64()
		perm := func(label string, n int) []int {
			lh := fnv.New64a()
			lh.Write([]byte(label))
			return rand.New(rand.NewPCG(seed, lh.Sum64())).Perm(n)
		}
		checkWorld(t, ws, perm)
	})
}
