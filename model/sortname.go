package model

import (
	"slices"
	"strings"
)

// SortByName sorts items by name(item), ascending, as
// slices.SortFunc(items, func(a, b T) int { return strings.Compare(name(a), name(b)) })
// does (the same algorithm, so items sharing a name end in the same order),
// but faster on large slices of objects named alike: it sorts keys holding the
// 8 bytes that follow the prefix all the names share, and compares whole
// names only when those are equal. The planner sorts every pod and PVC by name
// in every round.
func SortByName[T any](items []T, name func(T) string) {
	if len(items) < 2 {
		return
	}
	names := make([]string, len(items))
	keys := make([]nameKey, len(items))
	common := name(items[0])
	for i, it := range items {
		names[i] = name(it)
		common = common[:commonPrefix(common, names[i])]
	}
	for i := range keys {
		keys[i] = nameKey{window: window(names[i], len(common)), index: i}
	}
	// Distinct names have one order, which a radix sort of the windows finds
	// in linear time. Names given twice need the exact algorithm of
	// slices.SortFunc, from the original order, to end in its order.
	if !radixSortDistinct(keys, names) {
		for i := range keys {
			keys[i] = nameKey{window: window(names[i], len(common)), index: i}
		}
		slices.SortFunc(keys, func(a, b nameKey) int {
			switch {
			case a.window < b.window:
				return -1
			case a.window > b.window:
				return 1
			}
			return strings.Compare(names[a.index], names[b.index])
		})
	}
	// Position i receives the item keys[i].index designates: the permutation
	// is applied in place, one cycle at a time (a done key gets index -1).
	for i := range keys {
		if keys[i].index < 0 {
			continue
		}
		first := items[i]
		for j := i; ; {
			src := keys[j].index
			keys[j].index = -1
			if src == i {
				items[j] = first
				break
			}
			items[j] = items[src]
			j = src
		}
	}
}

// nameKey is one item of SortByName: the window of its name and its position
// before the sort. Two windows that differ order their names as the names'
// bytes do (a name that ends reads as zero bytes, which only ties with real
// zero bytes); equal windows leave it to the whole names.
type nameKey struct {
	window uint64
	index  int
}

// radixSortDistinct sorts keys by window (least significant byte first, one
// stable counting pass per byte that varies), then each run of equal windows
// by name, and reports whether all the names are distinct; when they are not
// the order of keys is unspecified.
func radixSortDistinct(keys []nameKey, names []string) bool {
	buf := make([]nameKey, len(keys))
	for shift := uint(0); shift < 64; shift += 8 {
		var count [256]int
		for _, k := range keys {
			count[byte(k.window>>shift)]++
		}
		if count[byte(keys[0].window>>shift)] == len(keys) {
			continue // the same byte everywhere
		}
		pos := 0
		for b := range count {
			pos, count[b] = pos+count[b], pos
		}
		for _, k := range keys {
			b := byte(k.window >> shift)
			buf[count[b]] = k
			count[b]++
		}
		keys, buf = buf, keys
		copy(buf, keys) // keep the caller's slice sorted too
		keys, buf = buf, keys
	}
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j].window == keys[i].window {
			j++
		}
		if j-i > 1 {
			run := keys[i:j]
			slices.SortFunc(run, func(a, b nameKey) int { return strings.Compare(names[a.index], names[b.index]) })
			for k := 1; k < len(run); k++ {
				if names[run[k].index] == names[run[k-1].index] {
					return false
				}
			}
		}
		i = j
	}
	return true
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// window returns bytes from..from+7 of s, big-endian, zero-padded.
func window(s string, from int) uint64 {
	var w uint64
	for j := 0; j < 8; j++ {
		w <<= 8
		if at := from + j; at < len(s) {
			w |= uint64(s[at])
		}
	}
	return w
}
