package podtemplate

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// tree reads JSON as the library's loaders do (numbers as json.Number).
func tree(t testing.TB, doc string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("%s: %v", doc, err)
	}
	return m
}

// TestRevisionDataRules: one rule of the typed encoding per case (the
// example module compares generated templates with k8s.io/api itself).
func TestRevisionDataRules(t *testing.T) {
	const minimal = `{"metadata":{"creationTimestamp":null},"spec":{"containers":[{"name":"c","resources":{}}]}}`
	for _, c := range []struct {
		name, in, want string
	}{
		{"members the types always write: creationTimestamp, resources, containers",
			`{"spec":{"containers":[{"name":"c"}]}}`, minimal},
		{"nothing at all: the zero template",
			`{}`, `{"metadata":{"creationTimestamp":null},"spec":{"containers":null}}`},
		{"unknown members are dropped, at every level",
			`{"x":1,"metadata":{"y":2},"spec":{"containers":[{"name":"c","z":[1]}],"$patch":"merge"}}`, minimal},
		{"empty omitempty members are left out",
			`{"metadata":{"labels":{},"name":""},"spec":{"containers":[{"name":"c","env":[],"image":""}],"volumes":null,"hostNetwork":false}}`, minimal},
		{"a member without omitempty is written empty",
			`{"spec":{"containers":[]}}`, `{"metadata":{"creationTimestamp":null},"spec":{"containers":[]}}`},
		{"null reads as the zero value: a struct, a string, a list element",
			`{"metadata":null,"spec":{"containers":[{"name":null,"resources":null},null]}}`,
			`{"metadata":{"creationTimestamp":null},"spec":{"containers":[{"name":"","resources":{}},{"name":"","resources":{}}]}}`},
		{"null map values: an empty string, a zero quantity",
			`{"metadata":{"labels":{"a":null}},"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":null}}}]}}`,
			`{"metadata":{"creationTimestamp":null,"labels":{"a":""}},"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"0"}}}]}}`},
		{"quantities in canonical form, as strings or numbers",
			`{"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"1000m","memory":"0.5Gi"},"requests":{"cpu":0.5,"memory":134217728}}}]}}`,
			`{"metadata":{"creationTimestamp":null},"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"1","memory":"512Mi"},"requests":{"cpu":"500m","memory":"134217728"}}}]}}`},
		{"int-or-string: a number or a string, as written",
			`{"spec":{"containers":[{"name":"c","livenessProbe":{"httpGet":{"port":"http"}},"readinessProbe":{"tcpSocket":{"port":8080}}}]}}`,
			`{"metadata":{"creationTimestamp":null},"spec":{"containers":[{"livenessProbe":{"httpGet":{"port":"http"}},"name":"c","readinessProbe":{"tcpSocket":{"port":8080}},"resources":{}}]}}`},
		{"times in UTC to the second; the zero time is null",
			`{"metadata":{"creationTimestamp":"2024-01-02T03:04:05.9+02:00","deletionTimestamp":"0001-01-01T00:00:00Z"},"spec":{"containers":[{"name":"c"}]}}`,
			`{"metadata":{"creationTimestamp":"2024-01-02T01:04:05Z","deletionTimestamp":null},"spec":{"containers":[{"name":"c","resources":{}}]}}`},
		{"integers are exact, beyond 2^53 too, to the ends of their range",
			`{"metadata":{"generation":-9223372036854775808},"spec":{"activeDeadlineSeconds":9007199254740993,"containers":[{"name":"c"}],"priority":-2147483648,"terminationGracePeriodSeconds":9223372036854775807}}`,
			`{"metadata":{"creationTimestamp":null,"generation":-9223372036854775808},"spec":{"activeDeadlineSeconds":9007199254740993,"containers":[{"name":"c","resources":{}}],"priority":-2147483648,"terminationGracePeriodSeconds":9223372036854775807}}`},
		{"pointers keep a false, a zero and an empty struct",
			`{"spec":{"automountServiceAccountToken":false,"containers":[{"name":"c","securityContext":{}}],"terminationGracePeriodSeconds":0}}`,
			`{"metadata":{"creationTimestamp":null},"spec":{"automountServiceAccountToken":false,"containers":[{"name":"c","resources":{},"securityContext":{}}],"terminationGracePeriodSeconds":0}}`},
		{"embedded structs are flattened (a volume's source, a probe's handler)",
			`{"spec":{"containers":[{"name":"c"}],"volumes":[{"name":"v","emptyDir":{}}]}}`,
			`{"metadata":{"creationTimestamp":null},"spec":{"containers":[{"name":"c","resources":{}}],"volumes":[{"emptyDir":{},"name":"v"}]}}`},
		{"member names are exact: a case variant is unknown",
			`{"spec":{"containers":[{"name":"c","Image":"x"}],"NodeName":"n"}}`, minimal},
		{"managed fields keep any JSON as its text (a tree's as encoding/json writes it)",
			`{"metadata":{"managedFields":[{"fieldsV1":{"f:a":{},"n":1.50,"m":[1e3]}}]},"spec":{"containers":[{"name":"c"}]}}`,
			`{"metadata":{"creationTimestamp":null,"managedFields":[{"fieldsV1":{"f:a":{},"m":[1e3],"n":1.50}}]},"spec":{"containers":[{"name":"c","resources":{}}]}}`},
	} {
		got, err := Encode(tree(t, c.in))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		b, _ := json.Marshal(got)
		if string(b) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, b, c.want)
		}
	}
}

// TestRevisionDataShape: the template gains "$patch":"replace" and is
// wrapped; strings are escaped as encoding/json escapes them.
func TestRevisionDataShape(t *testing.T) {
	got, err := RevisionData(tree(t, `{"metadata":{"labels":{"a&b":"<x>","é":"\u2028"}},"spec":{"containers":[{"name":"c"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null,"labels":{"a\u0026b":"\u003cx\u003e","é":"\u2028"}},"spec":{"containers":[{"name":"c","resources":{}}]}}}}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// TestCheckNamesTheField: what the typed form refuses is an error naming the
// member's path after the caller's base, its value and what the type wants.
func TestCheckNamesTheField(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"spec":{"containers":[{"name":"c","ports":[{"containerPort":"80"}]}]}}`,
			`spec.template.spec.containers[0].ports[0].containerPort: "80": expected an integer (int32), got a string`},
		{`{"spec":{"containers":[{"name":"c","ports":[{"containerPort":80.5}]}]}}`,
			`spec.template.spec.containers[0].ports[0].containerPort: 80.5: expected an integer (int32)`},
		{`{"spec":{"containers":[{"name":"c","ports":[{"containerPort":2147483648}]}]}}`,
			`spec.template.spec.containers[0].ports[0].containerPort: 2147483648: expected an integer (int32)`},
		{`{"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"lots"}}}]}}`,
			`spec.template.spec.containers[0].resources.limits[cpu]: "lots": not a quantity: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`},
		{`{"metadata":{"labels":{"app":true}},"spec":{"containers":[]}}`,
			`spec.template.metadata.labels[app]: true: expected a string, got a boolean`},
		{`{"spec":{"containers":{"name":"c"}}}`,
			`spec.template.spec.containers: {"name":"c"}: expected a list, got an object`},
		{`{"spec":{"containers":[{"name":"c","livenessProbe":{"httpGet":{"port":true}}}]}}`,
			`spec.template.spec.containers[0].livenessProbe.httpGet.port: true: expected a string or a 32-bit integer`},
		{`{"metadata":{"creationTimestamp":"yesterday"},"spec":{"containers":[]}}`,
			`spec.template.metadata.creationTimestamp: "yesterday": expected an RFC 3339 time`},
		{`{"spec":{"hostNetwork":"true","containers":[]}}`,
			`spec.template.spec.hostNetwork: "true": expected true or false, got a string`},
	} {
		err := Check(tree(t, c.in), "spec.template")
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.in, err, c.want)
		}
		if _, err := RevisionData(tree(t, c.in)); err == nil {
			t.Errorf("%s: RevisionData accepts what Check refuses", c.in)
		}
	}
	if err := Check(tree(t, `{"spec":{"containers":[{"name":"c"}]}}`), "spec.template"); err != nil {
		t.Errorf("a good template: %v", err)
	}
}

// TestRevisionDataGoValues: a tree built in code (Go numbers, not
// json.Number) encodes as its JSON would.
func TestRevisionDataGoValues(t *testing.T) {
	code := map[string]any{"spec": map[string]any{"activeDeadlineSeconds": int64(30), "priority": 5,
		"containers": []any{map[string]any{"name": "c", "resources": map[string]any{"limits": map[string]any{"cpu": float64(2)}}}}}}
	got, err := RevisionData(code)
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := json.Marshal(code)
	want, err := RevisionData(tree(t, string(doc)))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Go values: %s\nJSON:      %s (%v)", got, want, err)
	}
	if _, err := RevisionData(map[string]any{"spec": map[string]any{"priority": struct{}{}}}); err == nil || !strings.Contains(err.Error(), "spec.priority") {
		t.Fatalf("a Go value no JSON has: %v", err)
	}
}

// TestCheckReportsTheFirstKey: with several refused members in one map, the
// error names the first key in order, whatever order the map is walked in.
func TestCheckReportsTheFirstKey(t *testing.T) {
	doc := `{"metadata":{"labels":{"b":1,"a":true,"c":[]}},"spec":{"containers":[{"name":"c","resources":{"limits":{"y":"?","x":"!"}}}]}}`
	for i := 0; i < 20; i++ {
		if err := Check(tree(t, doc), ""); err == nil || !strings.HasPrefix(err.Error(), "metadata.labels[a]: true") {
			t.Fatalf("got %v", err)
		}
		if _, err := Encode(tree(t, doc)); err == nil || !strings.HasPrefix(err.Error(), "metadata.labels[a]: true") {
			t.Fatalf("Encode: got %v", err)
		}
	}
}

// TestRevisionDataNumbersAreFloat64: Encode keeps integers exact, but the
// revision data is upstream's generic round trip, whose numbers are
// float64: beyond 2^53 an integer becomes the float64 nearest to it (2^63-1
// is written 9223372036854776000), as upstream hashes it.
func TestRevisionDataNumbersAreFloat64(t *testing.T) {
	in := `{"spec":{"activeDeadlineSeconds":9007199254740993,"containers":[{"name":"c"}],"terminationGracePeriodSeconds":9223372036854775807}}`
	got, err := RevisionData(tree(t, in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null},"spec":{"activeDeadlineSeconds":9007199254740992,"containers":[{"name":"c","resources":{}}],"terminationGracePeriodSeconds":9223372036854776000}}}}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	typed, err := Encode(tree(t, in))
	if err != nil {
		t.Fatal(err)
	}
	if n := typed["spec"].(map[string]any)["activeDeadlineSeconds"]; n != int64(9007199254740993) {
		t.Fatalf("Encode: activeDeadlineSeconds %#v, want int64 9007199254740993", n)
	}
}

// TestFieldsV1KeepsItsText: a managed fields entry's fieldsV1 is
// metav1.FieldsV1, which keeps the bytes it was read from: read by
// DecodeJSON, its members keep their order and its numbers their text,
// compacted and with &, < and > escaped as encoding/json writes a
// Marshaler's text; a number beyond float64 is kept too. The revision
// data is upstream's generic round trip of it: members sorted, numbers as
// float64, and a number beyond float64 an error naming the member.
func TestFieldsV1KeepsItsText(t *testing.T) {
	in, err := DecodeJSON([]byte(`{"metadata":{"managedFields":[{"manager":"m","fieldsV1":{ "z" : 1.50, "a":[1e3, 9007199254740993],"<":"&" }}]},"spec":{"containers":[]}}`))
	if err != nil {
		t.Fatal(err)
	}
	typed, err := Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := AppendJSON(nil, typed)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"metadata":{"creationTimestamp":null,"managedFields":[{"manager":"m","fieldsV1":{"z":1.50,"a":[1e3,9007199254740993],"\u003c":"\u0026"}}]},"spec":{"containers":[]}}`
	if string(got) != want {
		t.Fatalf("AppendJSON:\n got %s\nwant %s", got, want)
	}
	data, err := RevisionData(in)
	if err != nil {
		t.Fatal(err)
	}
	wantData := `{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null,"managedFields":[{"fieldsV1":{"\u003c":"\u0026","a":[1000,9007199254740992],"z":1.5},"manager":"m"}]},"spec":{"containers":[]}}}}`
	if string(data) != wantData {
		t.Fatalf("RevisionData:\n got %s\nwant %s", data, wantData)
	}
	beyond, err := DecodeJSON([]byte(`{"metadata":{"managedFields":[{"fieldsV1":{"n":1e400}}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(beyond, ""); err != nil {
		t.Errorf("Check: %v, want nil (FieldsV1 keeps the text)", err)
	}
	if _, err := RevisionData(beyond); err == nil || err.Error() != `metadata.managedFields[0].fieldsV1: {"n":1e400}: a number beyond float64` {
		t.Errorf("RevisionData: %v", err)
	}
}
