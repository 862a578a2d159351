// Package admissionrecord reads testdata/conformance-admission, the record
// of what kruise's CloneSet webhooks made of 100 CloneSets, and compares
// trees exactly as its README says. For tests only (cmd/clonesetplan's
// replay through the CLI, admission's replay on the library).
package admissionrecord

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Line is one world's line of oracle.jsonl.
type Line struct {
	// ID names the world: worlds/<ID>.json.
	ID string `json:"id"`
	// Version is the world's API version, v1alpha1 or v1beta1.
	Version string `json:"version"`
	// Defaulted is the object after the mutating webhook of a create.
	Defaulted map[string]any `json:"defaulted"`
	// Converted is the defaulted object in the other version.
	Converted map[string]any `json:"converted"`
	// Errors are the validating webhook's refusals (empty: admitted).
	Errors []Error `json:"errors"`
}

// Error is one refusal of the record.
type Error struct {
	// Field is the field path, indexes included.
	Field string `json:"field"`
	// Type is the field.ErrorType's value ("FieldValueInvalid").
	Type string `json:"type"`
	// Detail is the message.
	Detail string `json:"detail"`
}

// Read reads dir/oracle.jsonl, numbers as json.Number.
func Read(dir string) ([]Line, error) {
	f, err := os.Open(filepath.Join(dir, "oracle.jsonl"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []Line
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var l Line
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		if err := dec.Decode(&l); err != nil {
			return nil, fmt.Errorf("oracle.jsonl line %d: %v", len(lines)+1, err)
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("%s: no oracle lines", dir)
	}
	return lines, nil
}

// Comparable is an object as the README compares it: status and
// metadata.creationTimestamp dropped, null values and empty objects and
// lists dropped everywhere (list elements too, and again when dropping
// empties an object or a list), numbers as their JSON text. Two objects
// match when their Comparable forms are deeply equal.
func Comparable(object map[string]any) any {
	trimmed := make(map[string]any, len(object))
	for k, v := range object {
		switch k {
		case "status":
			continue
		case "metadata":
			if md, ok := v.(map[string]any); ok {
				c := make(map[string]any, len(md))
				for mk, mv := range md {
					if mk != "creationTimestamp" {
						c[mk] = mv
					}
				}
				v = c
			}
		}
		trimmed[k] = v
	}
	return comparable(trimmed)
}

// DropEmpty is v without null values and empty objects and lists, at any
// depth and again where dropping empties an object or a list (nil when v
// itself goes), numbers as their JSON text: the README's rule for any part
// of an object (a template, a claim template).
func DropEmpty(v any) any { return comparable(v) }

func comparable(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if c := comparable(e); c != nil {
				out[k] = c
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		var out []any
		for _, e := range x {
			if c := comparable(e); c != nil {
				out = append(out, c)
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case json.Number:
		return string(x)
	case float64, int64, int:
		b, _ := json.Marshal(x)
		return string(b)
	}
	return v
}

// DecodeJSON decodes one JSON object with numbers as json.Number.
func DecodeJSON(b []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}
