package podtemplate

import "testing"

// decodedKeyCases are pairs of pod templates (the members of a container
// named c, or of the pod spec, or of the metadata) and whether
// reflect.DeepEqual holds between the v1.PodTemplateSpec values k8s.io/api
// reads from them. The example module holds DecodedKey to DeepEqual on
// generated pairs too.
var decodedKeyCases = []struct {
	name string
	a, b string
	same bool
}{
	{"the same template", `{"spec":{"containers":[{"name":"c"}]}}`, `{"spec":{"containers":[{"name":"c"}]}}`, true},
	{"an unknown member is not read", `{"spec":{"containers":[{"name":"c"}],"x":1}}`, `{"spec":{"containers":[{"name":"c"}]}}`, true},
	{"an omitempty list: empty against absent", `{"spec":{"containers":[],"volumes":[]}}`, `{"spec":{"containers":[]}}`, false},
	{"an omitempty list: null against absent", `{"spec":{"containers":[],"volumes":null}}`, `{"spec":{"containers":[]}}`, true},
	{"a list without omitempty: empty against null", `{"spec":{"containers":[]}}`, `{"spec":{"containers":null}}`, false},
	{"a container's list: empty against absent", `{"spec":{"containers":[{"name":"c","env":[]}]}}`, `{"spec":{"containers":[{"name":"c"}]}}`, false},
	{"a map: empty against absent", `{"metadata":{"labels":{}}}`, `{}`, false},
	{"a map: null against absent", `{"metadata":{"labels":null}}`, `{}`, true},
	{"a map entry: null is the empty string", `{"metadata":{"labels":{"a":null}}}`, `{"metadata":{"labels":{"a":""}}}`, true},
	{"a struct: null, empty and absent alike", `{"metadata":null,"spec":{}}`, `{}`, true},
	{"a list element: null is the zero struct", `{"spec":{"containers":[null]}}`, `{"spec":{"containers":[{"name":"","resources":{}}]}}`, true},
	{"a scalar: false and absent alike", `{"spec":{"hostNetwork":false}}`, `{}`, true},
	{"a scalar: empty string and absent alike", `{"metadata":{"name":""}}`, `{}`, true},
	{"a pointer to false against absent", `{"spec":{"automountServiceAccountToken":false}}`, `{}`, false},
	{"a pointer to 0 against absent", `{"spec":{"terminationGracePeriodSeconds":0}}`, `{}`, false},
	{"a pointer to an empty struct against absent", `{"spec":{"securityContext":{}}}`, `{}`, false},
	{"a pointer: null against absent", `{"spec":{"securityContext":null}}`, `{}`, true},
	{"an integer's spelling", `{"spec":{"priority":-0}}`, `{"spec":{"priority":0}}`, true},
	{"a string's escapes", `{"metadata":{"name":"\u0061"}}`, `{"metadata":{"name":"a"}}`, true},
	{"a quantity as a string or as a number", `{"spec":{"overhead":{"cpu":"1"}}}`, `{"spec":{"overhead":{"cpu":1}}}`, true},
	{"a quantity trimmed of spaces", `{"spec":{"overhead":{"cpu":" 1 "}}}`, `{"spec":{"overhead":{"cpu":"1"}}}`, true},
	{"a quantity's spelling: 1 and 1000m", `{"spec":{"overhead":{"cpu":"1"}}}`, `{"spec":{"overhead":{"cpu":"1000m"}}}`, false},
	{"a quantity's spelling: 1Gi and 1024Mi", `{"spec":{"overhead":{"memory":"1Gi"}}}`, `{"spec":{"overhead":{"memory":"1024Mi"}}}`, false},
	{"a quantity's spelling: 0 and 000", `{"spec":{"overhead":{"cpu":"0"}}}`, `{"spec":{"overhead":{"cpu":"000"}}}`, false},
	{"a quantity's spelling on the general path: 0.5Gi and 512Mi", `{"spec":{"overhead":{"memory":"0.5Gi"}}}`, `{"spec":{"overhead":{"memory":"512Mi"}}}`, false},
	{"a quantity on the general path, spelled alike", `{"spec":{"overhead":{"memory":"0.5Gi"}}}`, `{"spec":{"overhead":{"memory":"0.50Gi"}}}`, true},
	{"a zero quantity on the general path keeps its scale", `{"spec":{"overhead":{"cpu":"0.0000000000"}}}`, `{"spec":{"overhead":{"cpu":"0.00000000000"}}}`, false},
	{"a quantity: null against absent", `{"spec":{"overhead":{"cpu":null}}}`, `{"spec":{"overhead":{}}}`, false},
	{"a quantity: null against 0", `{"spec":{"overhead":{"cpu":null}}}`, `{"spec":{"overhead":{"cpu":"0"}}}`, false},
	{"an int-or-string: a number against a string", `{"spec":{"containers":[{"name":"c","readinessProbe":{"tcpSocket":{"port":80}}}]}}`, `{"spec":{"containers":[{"name":"c","readinessProbe":{"tcpSocket":{"port":"80"}}}]}}`, false},
	{"an int-or-string: null against 0", `{"spec":{"containers":[{"name":"c","readinessProbe":{"tcpSocket":{"port":null}}}]}}`, `{"spec":{"containers":[{"name":"c","readinessProbe":{"tcpSocket":{"port":0}}}]}}`, true},
	{"a time: the same instant in two zones", `{"metadata":{"creationTimestamp":"2024-01-02T03:04:05Z"}}`, `{"metadata":{"creationTimestamp":"2024-01-02T05:04:05+02:00"}}`, true},
	{"a time: a fraction of a second", `{"metadata":{"creationTimestamp":"2024-01-02T03:04:05Z"}}`, `{"metadata":{"creationTimestamp":"2024-01-02T03:04:05.5Z"}}`, false},
	{"a time: the zero time against null", `{"metadata":{"creationTimestamp":"0001-01-01T00:00:00Z"}}`, `{"metadata":{"creationTimestamp":null}}`, false},
	{"a time: null against absent", `{"metadata":{"creationTimestamp":null}}`, `{}`, true},
	{"fieldsV1: spaces in its text", `{"metadata":{"managedFields":[{"fieldsV1":{"a":1}}]}}`, `{"metadata":{"managedFields":[{"fieldsV1":{ "a":1}}]}}`, false},
	{"fieldsV1: a number's spelling", `{"metadata":{"managedFields":[{"fieldsV1":{"a":1}}]}}`, `{"metadata":{"managedFields":[{"fieldsV1":{"a":1.0}}]}}`, false},
	{"fieldsV1: null against absent", `{"metadata":{"managedFields":[{"fieldsV1":null}]}}`, `{"metadata":{"managedFields":[{}]}}`, true},
}

// TestDecodedKey: DecodedKey is equal exactly when the Go values are
// (decodedKeyCases), and a member the types refuse is Encode's error.
func TestDecodedKey(t *testing.T) {
	for _, c := range decodedKeyCases {
		a, errA := DecodeJSON([]byte(c.a))
		b, errB := DecodeJSON([]byte(c.b))
		if errA != nil || errB != nil {
			t.Fatalf("%s: %v %v", c.name, errA, errB)
		}
		ka, errA := DecodedKey(a)
		kb, errB := DecodedKey(b)
		if errA != nil || errB != nil {
			t.Errorf("%s: %v %v", c.name, errA, errB)
			continue
		}
		if (ka == kb) != c.same {
			t.Errorf("%s: same %v, want %v\n%s\n%s", c.name, ka == kb, c.same, c.a, c.b)
		}
	}
	bad := map[string]any{"spec": map[string]any{"overhead": map[string]any{"cpu": "lots"}}}
	_, err := DecodedKey(bad)
	_, encErr := Encode(bad)
	if err == nil || encErr == nil || err.Error() != encErr.Error() {
		t.Errorf("a refused member: DecodedKey %v, Encode %v", err, encErr)
	}
}

// TestDecodedKeyOfEncoding: the key of Encode's output is the key of the
// template its JSON reads back as (a defaulted object's template is read
// from its JSON on the next update).
func TestDecodedKeyOfEncoding(t *testing.T) {
	for _, c := range decodedKeyCases {
		for _, doc := range []string{c.a, c.b} {
			in, _ := DecodeJSON([]byte(doc))
			typed, err := Default(in)
			if err != nil {
				t.Fatal(err)
			}
			written, _ := AppendJSON(nil, typed)
			back, err := DecodeJSON(written)
			if err != nil {
				t.Fatal(err)
			}
			k1, err1 := DecodedKey(typed)
			k2, err2 := DecodedKey(back)
			if err1 != nil || err2 != nil || k1 != k2 {
				t.Errorf("%s: the key of %s differs from its JSON's %s (%v %v)", c.name, doc, written, err1, err2)
			}
		}
	}
}

// TestDecodedKeyHugeExponent: a quantity on the general path with an
// exponent near 2^31 is keyed without writing out its digits (its inf.Dec
// holds 10^(exponent+9) times the mantissa): no time or memory beyond its
// text, and the same value spelled otherwise has the same key.
func TestDecodedKeyHugeExponent(t *testing.T) {
	key := func(q string) string {
		k, err := DecodedKey(map[string]any{"spec": map[string]any{"overhead": map[string]any{"cpu": q}}})
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	if key("1234567890123456789e2000000000") != key("12345678901234567890e1999999999") {
		t.Error("the same value on the general path has two keys")
	}
	if key("1234567890123456789e2000000000") == key("1234567890123456789e2000000001") {
		t.Error("two values have one key")
	}
	if !DefaultRewritesQuantities(map[string]any{"spec": map[string]any{"overhead": map[string]any{"cpu": "1234567890123456789e2000000000"}}}) {
		t.Error("a quantity on the general path is rounded into a new inf.Dec")
	}
}
