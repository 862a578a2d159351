package model

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

type named struct {
	name string
	tag  int
}

// SortByName leaves items exactly as slices.SortFunc by name does, items
// sharing a name included.
func TestSortByNameMatchesSortFunc(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	alphabets := []string{"ab", "bcdfg", "a\x00b", "xyz0123456789"}
	for round := 0; round < 400; round++ {
		n := r.IntN(300)
		alpha := alphabets[r.IntN(len(alphabets))]
		prefix := []string{"", "sample-", "data-sample-", "a"}[r.IntN(4)]
		items := make([]named, n)
		for i := range items {
			var b strings.Builder
			b.WriteString(prefix)
			for k := r.IntN(12); k > 0; k-- {
				b.WriteByte(alpha[r.IntN(len(alpha))])
			}
			items[i] = named{b.String(), i}
		}
		want := slices.Clone(items)
		slices.SortFunc(want, func(a, b named) int { return strings.Compare(a.name, b.name) })
		got := slices.Clone(items)
		SortByName(got, func(x named) string { return x.name })
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: SortByName differs from slices.SortFunc:\n got %v\nwant %v", round, got, want)
		}
	}
}

func ExampleSortByName() {
	names := []string{"web-b2", "web-a10", "web-a9", "db-1"}
	SortByName(names, func(s string) string { return s })
	fmt.Println(names)
	// Output: [db-1 web-a10 web-a9 web-b2]
}

// Distinct names whose 8-byte windows tie, and names ending inside the
// window, sort as slices.SortFunc sorts them.
func TestSortByNameWindowTies(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	for round := 0; round < 200; round++ {
		var items []named
		seen := map[string]bool{}
		for len(items) < 1+r.IntN(400) {
			var b strings.Builder
			b.WriteString([]string{"a", "b"}[r.IntN(2)])
			b.WriteString("1234567"[:r.IntN(8)])
			for k := r.IntN(6); k > 0; k-- {
				b.WriteByte("xyz\x00"[r.IntN(4)])
			}
			if n := b.String(); !seen[n] {
				seen[n] = true
				items = append(items, named{n, len(items)})
			}
		}
		want := slices.Clone(items)
		slices.SortFunc(want, func(a, b named) int { return strings.Compare(a.name, b.name) })
		SortByName(items, func(x named) string { return x.name })
		if !slices.Equal(items, want) {
			t.Fatalf("round %d: got %v, want %v", round, items, want)
		}
	}
}
