package ordering

// orderMemo remembers the order a sort found, by the callers' KeyIndex
// values, so that the next sort of (mostly) the same pods can be handed its
// input in that order: pattern-defeating quicksort sorts input it finds
// almost sorted in close to linear time. It only ever changes the order in
// which a sort reads its input, never its result: every sort of this
// package is by a strict total order.
type orderMemo struct {
	// rankOf[v] is 1 + the position of value v in last; 0 for none.
	rankOf []int32
	last   []int32 // the values recorded, in order
	placed []int32 // buffers of order
	rest   []int32
}

// order returns the positions 0..n-1 of n items in the order recorded: the
// items whose value was recorded in that order, then the others (values
// negative, not recorded, or recorded for an earlier item) in position
// order. value(j) is the KeyIndex value of item j. It returns nil when
// nothing is recorded. The result is valid until the next call.
func (m *orderMemo) order(n int, value func(j int) int) []int32 {
	if len(m.last) == 0 {
		return nil
	}
	m.placed = growTo(m.placed, len(m.last))
	for i := range m.placed {
		m.placed[i] = -1
	}
	rest := m.rest[:0]
	for j := range n {
		v := value(j)
		if v >= 0 && v < len(m.rankOf) && m.rankOf[v] > 0 && m.placed[m.rankOf[v]-1] < 0 {
			m.placed[m.rankOf[v]-1] = int32(j)
		} else {
			rest = append(rest, int32(j))
		}
	}
	out := m.placed[:0] // written behind the read position
	for _, j := range m.placed {
		if j >= 0 {
			out = append(out, j)
		}
	}
	m.rest = rest
	return append(out, rest...)
}

// reset forgets the recorded order.
func (m *orderMemo) reset() {
	for _, v := range m.last {
		m.rankOf[v] = 0
	}
	m.last = m.last[:0]
}

// add records value v (not negative) after the values recorded.
func (m *orderMemo) add(v int) {
	if v >= len(m.rankOf) {
		m.rankOf = append(m.rankOf, make([]int32, v+1-len(m.rankOf))...)
	}
	if m.rankOf[v] == 0 {
		m.last = append(m.last, int32(v))
		m.rankOf[v] = int32(len(m.last))
	}
}

// growTo returns s with length n, reusing its array when it is large enough.
func growTo[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}
