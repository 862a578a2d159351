package podtemplate

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestDecodeJSON: what DecodeJSON keeps of the text, case by case.
func TestDecodeJSON(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     map[string]any
	}{
		{"numbers keep their text", `{"a":1.50,"b":9007199254740993,"c":-0,"d":1e3}`,
			map[string]any{"a": json.Number("1.50"), "b": json.Number("9007199254740993"), "c": json.Number("-0"), "d": json.Number("1e3")}},
		{"a fieldsV1 member keeps its text as written, at any depth", `{"x":[{"fieldsV1": { "z":1, "a" : [ 2 ] } }],"fieldsV1":null}`,
			map[string]any{"x": []any{map[string]any{"fieldsV1": json.RawMessage(`{ "z":1, "a" : [ 2 ] }`)}}, "fieldsV1": json.RawMessage(`null`)}},
		{"a string written otherwise than encoding/json writes it keeps its JSON text", `{"a":"\u0031Gi","b":"tab\there","c":"plain é","d":"a<b","e":"1Gi "}`,
			map[string]any{"a": json.RawMessage(`"\u0031Gi"`), "b": json.RawMessage(`"tab\there"`), "c": "plain é", "d": json.RawMessage(`"a<b"`), "e": json.RawMessage("\"1Gi \"")}},
		{"keys are decoded; a member written twice keeps its last value", `{"\u0061":1,"a":2,"l":[],"o":{}}`,
			map[string]any{"a": json.Number("2"), "l": []any{}, "o": map[string]any{}}},
	} {
		got, err := DecodeJSON([]byte(c.in))
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %#v (%v)\nwant %#v", c.name, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{`[1]`, "want a JSON object, got a list"},
		{`"s"`, "want a JSON object, got a string"},
		{`{"a":1} {}`, "not a JSON object: trailing data"},
		{`{"a":[1,}`, "not a JSON object: a[1]: invalid character '}'"},
		{`{"a":{"fieldsV1":{]}}`, "not a JSON object: a.fieldsV1: invalid character ']'"},
		{`{"a":`, "not a JSON object: a: unexpected EOF"},
		{strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001), "nested deeper than 10000 levels"},
	} {
		if _, err := DecodeJSON([]byte(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.40s: got %v, want %q", c.in, err, c.want)
		}
	}
}

// TestRawMessagesReadAsTheirValues: every reader takes a json.RawMessage as
// the value its text holds (null a nil pointer), quantities and FieldsV1
// their text.
func TestRawMessagesReadAsTheirValues(t *testing.T) {
	in, err := DecodeJSON([]byte(`{"metadata":{"name":"a\u0062c","labels":{"k":"v\"q"}},"spec":{"containers":[{"name":"c","image":"x\/y"}],"securityContext":null,"activeDeadlineSeconds":null}}`))
	if err != nil {
		t.Fatal(err)
	}
	in["spec"].(map[string]any)["securityContext"] = json.RawMessage(`null`)
	in["spec"].(map[string]any)["priority"] = json.RawMessage(` 7 `)
	typed, err := Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := AppendJSON(nil, typed)
	want := `{"metadata":{"name":"abc","creationTimestamp":null,"labels":{"k":"v\"q"}},"spec":{"containers":[{"name":"c","image":"x/y","resources":{}}],"priority":7}}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// TestTreeStringsAsTheirJSON: a tree's Go string reads as the JSON
// encoding/json writes for it: a byte that is not UTF-8 is U+FFFD (keys
// too), and a quantity holding a character encoding/json escapes is
// refused, as kruise's decoder refuses the escaped text.
func TestTreeStringsAsTheirJSON(t *testing.T) {
	typed, err := Encode(map[string]any{"metadata": map[string]any{"labels": map[string]any{"k\xff": "v\xfe\xfd"}}})
	if err != nil {
		t.Fatal(err)
	}
	labels := typed["metadata"].(map[string]any)["labels"]
	if want := map[string]any{"k\ufffd": "v\ufffd\ufffd"}; !reflect.DeepEqual(labels, want) {
		t.Errorf("labels %q, want %q", labels, want)
	}
	for _, q := range []string{"\t1", "1\n", "1\u2028", "1<"} {
		_, err := Encode(map[string]any{"spec": map[string]any{"overhead": map[string]any{"cpu": q}}})
		if err == nil || !strings.Contains(err.Error(), "not a quantity") {
			t.Errorf("quantity %q: got %v, want it refused", q, err)
		}
	}
	if _, err := Encode(map[string]any{"spec": map[string]any{"overhead": map[string]any{"cpu": " 1\u00a0"}}}); err != nil {
		t.Errorf("a quantity with spaces encoding/json does not escape: %v", err)
	}
}

// TestHugeList: a list of any length reads and writes element by element
// (no limit of the decoder's; time and memory linear in the input).
func TestHugeList(t *testing.T) {
	args := strings.Repeat(`"a",`, 100000) + `"z"`
	doc := `{"metadata":{"creationTimestamp":null},"spec":{"containers":[{"name":"c","args":[` + args + `],"resources":{}}]}}`
	in, err := DecodeJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	typed, err := Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := AppendJSON(nil, typed)
	if err != nil || string(got) != doc {
		t.Fatalf("a 100001-element list does not come back as it was (%v)", err)
	}
}
