package pvc

import "maps"

// idTable is a set of instance ids with a few flag bits per id (who carries
// the id: an observed pod, an inactive pod, a PVC...). Generated-form ids
// (almost all) are kept by number in an open-addressing hash table of
// uint32 slots, which holds no pointers (the garbage collector never scans
// it) and costs no hashing of strings; the other ids go to a map.
//
// A slot holds the flags in its top 8 bits and number+1 in the low 24 bits
// (numbers are below idSpace = 27^5 < 2^24); 0 is an empty slot.
type idTable struct {
	slots []uint32
	count int // occupied slots
	shift uint8
	other map[string]uint8 // ids not in generated form
}

const (
	slotNumBits = 24
	slotNumMask = 1<<slotNumBits - 1
)

// newIDTable returns a table sized for about size generated-form ids.
func newIDTable(size int) *idTable {
	t := &idTable{}
	t.init(size)
	return t
}

func (t *idTable) init(size int) {
	n, shift := 16, uint8(32-4)
	for n < 2*size {
		n *= 2
		shift--
	}
	t.slots = make([]uint32, n)
	t.count = 0
	t.shift = shift
}

// home is the first slot probed for number v (Fibonacci hashing).
func (t *idTable) home(v uint32) uint32 { return (v * 0x9E3779B1) >> t.shift }

// add sets the flags f on id; empty ids are ignored.
func (t *idTable) add(id string, f uint8) {
	if id == "" {
		return
	}
	if v, ok := decodeID(id); ok {
		t.addNum(uint32(v), f)
		return
	}
	if t.other == nil {
		t.other = make(map[string]uint8)
	}
	t.other[id] |= f
}

// get returns the flags of id (0 when absent).
func (t *idTable) get(id string) uint8 {
	if v, ok := decodeID(id); ok {
		return t.getNum(uint32(v))
	}
	return t.other[id]
}

// addClaim sets the flags f on the instance id of a claim.
func (t *idTable) addClaim(c *claim, f uint8) {
	if c.num >= 0 {
		t.addNum(uint32(c.num), f)
		return
	}
	t.add(c.id, f)
}

// getClaim returns the flags of the instance id of a claim.
func (t *idTable) getClaim(c *claim) uint8 {
	if c.num >= 0 {
		return t.getNum(uint32(c.num))
	}
	return t.other[c.id]
}

// addNum sets the flags f on the generated-form id numbered v.
func (t *idTable) addNum(v uint32, f uint8) {
	if 4*(t.count+1) > 3*len(t.slots) {
		t.grow()
	}
	key := v + 1
	mask := uint32(len(t.slots) - 1)
	for i := t.home(v); ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			t.slots[i] = uint32(f)<<slotNumBits | key
			t.count++
			return
		}
		if s&slotNumMask == key {
			t.slots[i] = s | uint32(f)<<slotNumBits
			return
		}
	}
}

// getNum returns the flags of the generated-form id numbered v.
func (t *idTable) getNum(v uint32) uint8 {
	key := v + 1
	mask := uint32(len(t.slots) - 1)
	for i := t.home(v); ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return 0
		}
		if s&slotNumMask == key {
			return uint8(s >> slotNumBits)
		}
	}
}

// grow doubles the table.
func (t *idTable) grow() {
	old := t.slots
	t.init(len(old)) // 2*len(old) slots
	for _, s := range old {
		if s != 0 {
			t.addNum(s&slotNumMask-1, uint8(s>>slotNumBits))
		}
	}
}

// clone returns an independent copy.
func (t *idTable) clone() *idTable {
	c := *t
	c.slots = append([]uint32(nil), t.slots...)
	c.other = maps.Clone(t.other)
	return &c
}

// countBelow counts the generated-form ids numbered below limit that carry
// one of the flags in mask.
func (t *idTable) countBelow(limit uint64, mask uint8) int {
	n := 0
	for _, s := range t.slots {
		if s != 0 && uint8(s>>slotNumBits)&mask != 0 && uint64(s&slotNumMask-1) < limit {
			n++
		}
	}
	return n
}
