package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// lineIndex maps byte offsets to 1-based line numbers.
type lineIndex struct {
	starts []int // offset of the first byte of each line
}

func newLineIndex(data []byte) *lineIndex {
	li := &lineIndex{starts: []int{0}}
	for i, b := range data {
		if b == '\n' {
			li.starts = append(li.starts, i+1)
		}
	}
	return li
}

func (li *lineIndex) line(off int) int {
	return sort.Search(len(li.starts), func(i int) bool { return li.starts[i] > off })
}

// jsonReader turns a JSON text into yaml.Node trees, keeping member order and
// the line of every value.
type jsonReader struct {
	data  []byte
	dec   *json.Decoder
	lines *lineIndex
}

func newJSONReader(data []byte) *jsonReader {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return &jsonReader{data: data, dec: dec, lines: newLineIndex(data)}
}

// tokenLine is the line of the next token: the decoder's offset is the end of
// the previous token, so skip the separators that follow it.
func (jr *jsonReader) tokenLine() int {
	off := int(jr.dec.InputOffset())
	for off < len(jr.data) && strings.IndexByte(" \t\r\n,:", jr.data[off]) >= 0 {
		off++
	}
	return jr.lines.line(off)
}

// next reads one whole JSON value; io.EOF at the end of the stream.
func (jr *jsonReader) next() (*yaml.Node, error) {
	return jr.value(0)
}

func (jr *jsonReader) value(depth int) (*yaml.Node, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("line %d: nested more than %d levels deep", jr.tokenLine(), maxDepth)
	}
	line := jr.tokenLine()
	tok, err := jr.dec.Token()
	if err != nil {
		if err == io.EOF && depth == 0 {
			return nil, io.EOF
		}
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("line %d: %v", line, err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: line}
			for jr.dec.More() {
				kline := jr.tokenLine()
				kt, err := jr.dec.Token()
				if err != nil {
					return nil, fmt.Errorf("line %d: %v", kline, err)
				}
				key, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("line %d: expected an object key", kline)
				}
				val, err := jr.value(depth + 1)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key, Line: kline}, val)
			}
			if _, err := jr.dec.Token(); err != nil {
				return nil, fmt.Errorf("line %d: %v", jr.tokenLine(), err)
			}
			return n, nil
		case '[':
			n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: line}
			for jr.dec.More() {
				val, err := jr.value(depth + 1)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, val)
			}
			if _, err := jr.dec.Token(); err != nil {
				return nil, fmt.Errorf("line %d: %v", jr.tokenLine(), err)
			}
			return n, nil
		}
		return nil, fmt.Errorf("line %d: unexpected %q", line, t.String())
	case string:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: t, Line: line}, nil
	case json.Number:
		tag := "!!int"
		if strings.ContainsAny(string(t), ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: string(t), Line: line}, nil
	case bool:
		v := "false"
		if t {
			v = "true"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: v, Line: line}, nil
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null", Line: line}, nil
	}
	return nil, fmt.Errorf("line %d: unexpected token", line)
}

// parseJSONStream reads a stream of JSON values (concatenated or separated by
// white space).
func parseJSONStream(data []byte) ([]*yaml.Node, error) {
	jr := newJSONReader(data)
	var out []*yaml.Node
	for {
		n, err := jr.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
}

// MarshalYAML turns one JSON document into block-style YAML that keeps the
// order of object members (for the CLI's -o yaml). Strings that YAML would
// read as another type are quoted; numbers keep their JSON text.
func MarshalYAML(jsonDoc []byte) ([]byte, error) {
	jr := newJSONReader(jsonDoc)
	n, err := jr.next()
	if err == io.EOF {
		return nil, errors.New("MarshalYAML: empty JSON document")
	}
	if err != nil {
		return nil, fmt.Errorf("MarshalYAML: %v", err)
	}
	if _, err := jr.next(); err != io.EOF {
		return nil, errors.New("MarshalYAML: trailing data after the JSON document")
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, fmt.Errorf("MarshalYAML: %v", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("MarshalYAML: %v", err)
	}
	return buf.Bytes(), nil
}
