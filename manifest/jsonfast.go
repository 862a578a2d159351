package manifest

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// jsonStream reads a JSON stream (the documents of an input that YAML
// rejects) with a fast reader built for well-formed input, and decodes each
// document as soon as it is read, so that the nodes of one document are
// reused for the next (only a CloneSet's nodes are kept: assemble points at
// its lines). It returns false, with the loader as it was before the call,
// when the reader meets anything it does not take (a syntax error, a
// top-level scalar, nesting deeper than maxDepth); parseJSONInput then reads
// the input and words the error. Both readers build the same nodes.
//
// Strings without escapes are substrings of one copy of the input: the
// scenario keeps that copy alive.
func (l *loader) jsonStream(in input) bool {
	saved := *l
	f := &fastJSON{data: in.data, src: string(in.data), line: 1}
	for i := 1; ; i++ {
		f.skipSpace()
		if f.pos >= len(f.data) {
			return true
		}
		var n *yaml.Node
		ok := false
		if c := f.data[f.pos]; c == '{' || c == '[' {
			n, ok = f.value(0)
		}
		if !ok {
			*l = saved
			return false
		}
		clones := len(l.clone)
		l.document(in.source, fmt.Sprintf("document %d", i), n, "", "", 0)
		if len(l.clone) > clones {
			f.retain()
		} else {
			f.recycle()
		}
	}
}

// parseJSONInput reads an input as a stream of JSON values with jsonReader,
// which words the errors of malformed input. Reader panics become errors.
func parseJSONInput(in input) (docs []*yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			docs, err = nil, fmt.Errorf("%s: cannot parse the input: %v", in.source, r)
		}
	}()
	docs, err = parseJSONStream(in.data)
	if err != nil {
		return nil, fmt.Errorf("%s: invalid JSON: %v", in.source, err)
	}
	return docs, nil
}

// fastJSON is the state of the fast reader: the input (also as a string),
// the read position and its line, and the blocks nodes are taken from.
type fastJSON struct {
	data   []byte
	src    string
	pos    int
	line   int
	blocks [][]yaml.Node
	b      int // block in use
	used   int // nodes taken from blocks[b]
}

// node takes the next node slot. A slot reused for a mapping or a sequence
// keeps the capacity of its former Content.
func (f *fastJSON) node(kind yaml.Kind, tag, value string, line int) *yaml.Node {
	if f.b == len(f.blocks) {
		f.blocks = append(f.blocks, make([]yaml.Node, 256))
	}
	blk := f.blocks[f.b]
	n := &blk[f.used]
	var content []*yaml.Node
	if kind == yaml.MappingNode || kind == yaml.SequenceNode {
		content = n.Content[:0]
	}
	*n = yaml.Node{Kind: kind, Tag: tag, Value: value, Line: line, Content: content}
	if f.used++; f.used == len(blk) {
		f.b, f.used = f.b+1, 0
	}
	return n
}

// recycle makes every node slot free again: nothing refers to the nodes read
// so far.
func (f *fastJSON) recycle() { f.b, f.used = 0, 0 }

// retain keeps the nodes read so far: later ones come from new blocks.
func (f *fastJSON) retain() { f.blocks, f.b, f.used = nil, 0, 0 }

func (f *fastJSON) skipSpace() {
	for f.pos < len(f.data) {
		switch f.data[f.pos] {
		case '\n':
			f.line++
			f.pos++
		case ' ', '\t', '\r':
			f.pos++
		default:
			return
		}
	}
}

// delimited reports whether position i ends a number or a literal: the end of
// the input, white space, or a comma or closing bracket.
func (f *fastJSON) delimited(i int) bool {
	if i >= len(f.data) {
		return true
	}
	switch f.data[i] {
	case ' ', '\t', '\r', '\n', ',', '}', ']':
		return true
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// separator reads what follows a member or an element: ',' (more follows)
// or the closing byte (done); anything else fails.
func (f *fastJSON) separator(closing byte) (done, ok bool) {
	f.skipSpace()
	if f.pos >= len(f.data) {
		return false, false
	}
	switch f.data[f.pos] {
	case ',':
		f.pos++
		return false, true
	case closing:
		f.pos++
		return true, true
	}
	return false, false
}

// value reads one value at depth (the depth rule of jsonReader.value).
func (f *fastJSON) value(depth int) (*yaml.Node, bool) {
	if depth > maxDepth {
		return nil, false
	}
	f.skipSpace()
	if f.pos >= len(f.data) {
		return nil, false
	}
	line := f.line
	switch c := f.data[f.pos]; {
	case c == '{':
		f.pos++
		n := f.node(yaml.MappingNode, "!!map", "", line)
		f.skipSpace()
		if f.pos < len(f.data) && f.data[f.pos] == '}' {
			f.pos++
			return n, true
		}
		for {
			f.skipSpace()
			if f.pos >= len(f.data) || f.data[f.pos] != '"' {
				return nil, false
			}
			kline := f.line
			key, ok := f.str()
			if !ok {
				return nil, false
			}
			f.skipSpace()
			if f.pos >= len(f.data) || f.data[f.pos] != ':' {
				return nil, false
			}
			f.pos++
			val, ok := f.value(depth + 1)
			if !ok {
				return nil, false
			}
			n.Content = append(n.Content, f.node(yaml.ScalarNode, "!!str", key, kline), val)
			switch done, ok := f.separator('}'); {
			case !ok:
				return nil, false
			case done:
				return n, true
			}
		}
	case c == '[':
		f.pos++
		n := f.node(yaml.SequenceNode, "!!seq", "", line)
		f.skipSpace()
		if f.pos < len(f.data) && f.data[f.pos] == ']' {
			f.pos++
			return n, true
		}
		for {
			val, ok := f.value(depth + 1)
			if !ok {
				return nil, false
			}
			n.Content = append(n.Content, val)
			switch done, ok := f.separator(']'); {
			case !ok:
				return nil, false
			case done:
				return n, true
			}
		}
	case c == '"':
		s, ok := f.str()
		if !ok {
			return nil, false
		}
		return f.node(yaml.ScalarNode, "!!str", s, line), true
	case c == '-' || isDigit(c):
		return f.number(line)
	}
	for _, lit := range [...]struct{ text, tag string }{{"true", "!!bool"}, {"false", "!!bool"}, {"null", "!!null"}} {
		if end := f.pos + len(lit.text); end <= len(f.data) && string(f.data[f.pos:end]) == lit.text && f.delimited(end) {
			f.pos = end
			return f.node(yaml.ScalarNode, lit.tag, lit.text, line), true
		}
	}
	return nil, false
}

// number reads a number in JSON syntax; its text becomes the value, tagged
// like jsonReader tags json.Number values.
func (f *fastJSON) number(line int) (*yaml.Node, bool) {
	d, i := f.data, f.pos
	if d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && isDigit(d[i]):
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	default:
		return nil, false
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || !isDigit(d[i]) {
			return nil, false
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || !isDigit(d[i]) {
			return nil, false
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	if !f.delimited(i) {
		return nil, false
	}
	text := f.src[f.pos:i]
	f.pos = i
	tag := "!!int"
	if strings.ContainsAny(text, ".eE") {
		tag = "!!float"
	}
	return f.node(yaml.ScalarNode, tag, text, line), true
}

// str reads the string literal at the read position. Plain literals (no
// escape, valid UTF-8) are taken as they are; the others are decoded by
// encoding/json, as jsonReader decodes every string.
func (f *fastJSON) str() (string, bool) {
	start := f.pos // the opening quote
	plain := true
	i := start + 1
	for ; i < len(f.data); i++ {
		c := f.data[i]
		if c == '"' {
			break
		}
		switch {
		case c == '\\':
			plain = false
			i++ // the escaped character cannot end the literal
		case c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			plain = false
		}
	}
	if i >= len(f.data) {
		return "", false
	}
	raw := f.data[start+1 : i]
	f.pos = i + 1
	if plain || (!containsByte(raw, '\\') && utf8.Valid(raw)) {
		return f.src[start+1 : i], true
	}
	var s string
	if err := json.Unmarshal(f.data[start:i+1], &s); err != nil {
		return "", false
	}
	return s, true
}

func containsByte(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}
