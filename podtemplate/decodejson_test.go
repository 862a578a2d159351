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
		{"a string written with an escape keeps its JSON text", `{"a":"\u0031Gi","b":"tab\there","c":"plain é"}`,
			map[string]any{"a": json.RawMessage(`"\u0031Gi"`), "b": json.RawMessage(`"tab\there"`), "c": "plain é"}},
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
