package admission

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

// oracleLine is one line of oracle.jsonl.
type oracleLine struct {
	ID        string         `json:"id"`
	Version   string         `json:"version"`
	Defaulted map[string]any `json:"defaulted"`
	Converted map[string]any `json:"converted"`
	Errors    []oracleError  `json:"errors"`
}

// oracleError is one refusal of the record.
type oracleError struct {
	Field  string `json:"field"`
	Type   string `json:"type"`
	Detail string `json:"detail"`
}

func readOracle(t testing.TB) []oracleLine {
	t.Helper()
	f, err := os.Open(filepath.Join(recordDir, "oracle.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []oracleLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var o oracleLine
		dec := json.NewDecoder(bytesReader(sc.Bytes()))
		dec.UseNumber()
		if err := dec.Decode(&o); err != nil {
			t.Fatalf("oracle.jsonl line %d: %v", len(lines)+1, err)
		}
		lines = append(lines, o)
	}
	if len(lines) == 0 {
		t.Fatal("no oracle lines")
	}
	return lines
}

// comparable is a tree as the README compares it: status,
// metadata.creationTimestamp, nulls and empty objects and lists dropped,
// numbers as their text.
func comparable(v any, top bool) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if top && k == "status" {
				continue
			}
			if top && k == "metadata" {
				if md, ok := e.(map[string]any); ok {
					md = shallowWith(md, "creationTimestamp", nil)
					e = md
				}
			}
			c := comparable(e, false)
			if c == nil {
				continue
			}
			out[k] = c
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		if len(x) == 0 {
			return nil
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = comparable(e, false)
		}
		return out
	case json.Number:
		return string(x)
	case float64, int64:
		b, _ := json.Marshal(x)
		return string(b)
	}
	return v
}

// jsonTree decodes JSON with numbers as json.Number.
func jsonTree(t testing.TB, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	dec := json.NewDecoder(bytesReader(b))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestOracleLibrary replays the record on the library directly, and more
// strictly than the README asks (which cmd/clonesetplan's
// TestConformanceAdmission does through the CLI): each refusal's field, type
// and detail, in the webhook's order.
func TestOracleLibrary(t *testing.T) {
	var defaulted, verdicts, conversions int
	lines := readOracle(t)
	for _, o := range lines {
		t.Run(o.ID, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(recordDir, "worlds", o.ID+".json"))
			if err != nil {
				t.Fatal(err)
			}
			obj, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			d, err := Default(obj, nil, Gates{})
			if err != nil {
				t.Fatal(err)
			}
			b, err := d.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if got, want := comparable(jsonTree(t, b), true), comparable(o.Defaulted, true); reflect.DeepEqual(got, want) {
				defaulted++
			} else {
				t.Errorf("defaulted differs:\n got  %s\n want %s", mustJSON(got), mustJSON(want))
			}
			errs, err := Validate(Create, d, nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []oracleError
			for _, e := range errs {
				got = append(got, oracleError{Field: e.Path, Type: e.Type.CauseType(), Detail: e.Message})
			}
			want := o.Errors
			sortErrors(got)
			sortErrors(want)
			if len(got) == 0 && len(want) == 0 || reflect.DeepEqual(got, want) {
				verdicts++
			} else {
				t.Errorf("errors differ:\n got  %v\n want %v", got, want)
			}
			to := V1beta1
			if d.Version() == V1beta1 {
				to = V1alpha1
			}
			c, err := Convert(d, to)
			if err != nil {
				t.Fatal(err)
			}
			b, err = c.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if got, want := comparable(jsonTree(t, b), true), comparable(o.Converted, true); reflect.DeepEqual(got, want) {
				conversions++
			} else {
				t.Errorf("converted differs:\n got  %s\n want %s", mustJSON(got), mustJSON(want))
			}
		})
	}
	t.Logf("library: defaulted %d/%d, verdicts %d/%d, conversions %d/%d", defaulted, len(lines), verdicts, len(lines), conversions, len(lines))
}

func sortErrors(l []oracleError) {
	sort.Slice(l, func(i, j int) bool {
		if l[i].Field != l[j].Field {
			return l[i].Field < l[j].Field
		}
		return l[i].Detail < l[j].Detail
	})
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
