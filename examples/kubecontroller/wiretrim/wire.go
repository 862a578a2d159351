package wiretrim

import "math/bits"

// Protobuf wire types (https://protobuf.dev/programming-guides/encoding/).
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

// field is one field of a protobuf message, located in a buffer: the tag
// starts at start, a length-delimited field's length varint at lenStart,
// its payload spans [payload, end); end is where the next field starts.
type field struct {
	num      uint64
	wire     int
	start    int
	lenStart int
	payload  int
	end      int
}

// payloadLen is the length a length-delimited field declares.
func (f field) payloadLen() int { return f.end - f.payload }

// readVarint reads the varint at b[i:] and returns it with the index
// after it; ok is false when the bytes end first or the varint is longer
// than ten bytes.
func readVarint(b []byte, i int) (v uint64, next int, ok bool) {
	if i < len(b) && b[i] < 0x80 { // most tags and lengths
		return uint64(b[i]), i + 1, true
	}
	for shift := uint(0); shift < 70; shift += 7 {
		if i >= len(b) {
			return 0, 0, false
		}
		c := b[i]
		i++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, i, true
		}
	}
	return 0, 0, false
}

// nextField reads the field that starts at b[i:]; ok is false when the
// field is malformed or extends past b: a field number of zero, a group
// (deprecated wire types 3 and 4, which no Kubernetes type uses), an
// unknown wire type, or a length beyond the buffer.
func nextField(b []byte, i int) (f field, ok bool) {
	tag, j, ok := readVarint(b, i)
	if !ok || tag>>3 == 0 || tag>>3 > 1<<29-1 {
		return field{}, false
	}
	f = field{num: tag >> 3, wire: int(tag & 7), start: i, lenStart: j, payload: j}
	switch f.wire {
	case wireVarint:
		if _, j, ok = readVarint(b, j); !ok {
			return field{}, false
		}
		f.end = j
	case wireFixed64:
		f.end = j + 8
	case wireFixed32:
		f.end = j + 4
	case wireBytes:
		n, k, ok := readVarint(b, j)
		if !ok || n > uint64(len(b)-k) {
			return field{}, false
		}
		f.payload, f.end = k, k+int(n)
	default:
		return field{}, false
	}
	if f.end > len(b) {
		return field{}, false
	}
	return f, true
}

// varintLen is the number of bytes of v's minimal varint encoding.
func varintLen(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }

// putVarint writes v's minimal varint encoding at b[0:] and returns its
// length.
func putVarint(b []byte, v uint64) int {
	i := 0
	for v >= 0x80 {
		b[i] = byte(v) | 0x80
		v >>= 7
		i++
	}
	b[i] = byte(v)
	return i + 1
}

// compactor rewrites a buffer in place, front to back: the bytes before
// the read index r are consumed, those before the write index w are the
// output. Every edit makes the output no longer than what it consumed
// (cuts, and length varints rewritten minimally for a length no greater
// than before), so w never passes r and nothing is overwritten before it
// is read.
type compactor struct {
	buf  []byte
	r, w int
}

// keep copies the input up to end to the output.
func (c *compactor) keep(end int) {
	c.w += copy(c.buf[c.w:], c.buf[c.r:end])
	c.r = end
}

// cut drops the input up to end.
func (c *compactor) cut(end int) { c.r = end }

// length rewrites the length varint of field f as n: the input up to the
// varint is kept, the varint replaced.
func (c *compactor) length(f field, n int) {
	c.keep(f.lenStart)
	c.w += putVarint(c.buf[c.w:], uint64(n))
	c.r = f.payload
}
