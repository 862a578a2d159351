package kubecontroller

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/clonecore/cloneset/requests"
	"pgregory.net/rapid"
)

// sameJSON reports whether a and b are the same JSON value (numbers
// compared as written).
func sameJSON(a, b []byte) bool {
	decode := func(b []byte) (any, error) {
		var v any
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		err := dec.Decode(&v)
		return v, err
	}
	va, errA := decode(a)
	vb, errB := decode(b)
	return errA == nil && errB == nil && reflect.DeepEqual(va, vb)
}

// jsonWriter writes generated JSON values with the spellings a patch may
// use: white space anywhere, keys written with \u escapes.
type jsonWriter struct {
	t   *rapid.T
	buf bytes.Buffer
}

func (w *jsonWriter) space() {
	w.buf.WriteString(rapid.SampledFrom([]string{"", "", "", " ", "\n\t"}).Draw(w.t, "space"))
}

func (w *jsonWriter) key(k string) {
	if rapid.IntRange(0, 5).Draw(w.t, "escape") == 0 && k != "" {
		w.buf.WriteString(fmt.Sprintf(`"\u%04x%s"`, k[0], k[1:]))
		return
	}
	b, _ := json.Marshal(k)
	w.buf.Write(b)
}

func (w *jsonWriter) value(depth int) {
	kind := rapid.IntRange(0, 5).Draw(w.t, "kind")
	if depth > 2 && kind >= 4 {
		kind = 0
	}
	switch kind {
	case 0:
		w.buf.WriteString(rapid.SampledFrom([]string{"1", "-2.50", "1e3", "true", "null", `"x"`, `"a\"b\\c}]"`}).Draw(w.t, "scalar"))
	case 1, 2, 3:
		w.object(depth)
	case 4, 5:
		n := rapid.IntRange(0, 3).Draw(w.t, "items")
		w.buf.WriteByte('[')
		for i := range n {
			if i > 0 {
				w.buf.WriteByte(',')
			}
			w.space()
			w.value(depth + 1)
			w.space()
		}
		w.buf.WriteByte(']')
	}
}

// object writes an object whose keys are drawn from names that matter to
// the splice (metadata, uid, resourceVersion) and others, each once.
func (w *jsonWriter) object(depth int) {
	keys := rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"metadata", "uid", "resourceVersion", "labels", "spec", "status", "a}b"}), 0, 4, func(s string) string { return s }).Draw(w.t, "keys")
	w.buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			w.buf.WriteByte(',')
		}
		w.space()
		w.key(k)
		w.space()
		w.buf.WriteByte(':')
		w.space()
		w.value(depth + 1)
		w.space()
	}
	w.buf.WriteByte('}')
}

// TestWithPreconditionsMatchesDecoding: for generated patch bodies (objects
// with and without metadata, metadata of any kind, keys that spell uid or
// resourceVersion, keys with escapes, white space; lists for JSON patches)
// and preconditions, the body withPreconditions writes without decoding is
// the JSON value that decoding and encoding again gives.
func TestWithPreconditionsMatchesDecoding(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pre := &requests.Preconditions{
			UID:             rapid.SampledFrom([]string{"", "u-1", `odd"uid`}).Draw(t, "uid"),
			ResourceVersion: rapid.SampledFrom([]string{"", "7", "123456"}).Draw(t, "rv"),
		}
		if pre.UID == "" && pre.ResourceVersion == "" {
			pre.UID = "u-2"
		}
		w := &jsonWriter{t: t}
		w.space()
		patchType := rapid.SampledFrom([]requests.PatchType{requests.PatchMerge, requests.PatchStrategicMerge, requests.PatchJSON}).Draw(t, "type")
		if patchType == requests.PatchJSON {
			w.buf.WriteByte('[')
			for i := range rapid.IntRange(0, 3).Draw(t, "ops") {
				if i > 0 {
					w.buf.WriteByte(',')
				}
				w.space()
				w.object(1)
			}
			w.space()
			w.buf.WriteByte(']')
		} else {
			w.object(0)
		}
		w.space()
		body := w.buf.Bytes()
		got, err := withPreconditions(patchType, body, pre)
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		var want []byte
		if patchType == requests.PatchJSON {
			want, err = testsPreconditions(body, pre)
		} else {
			want, err = mergePreconditions(body, pre)
		}
		if err != nil {
			t.Fatal(err)
		}
		if !sameJSON(got, want) {
			t.Fatalf("body %s:\n got %s\nwant %s", body, got, want)
		}
	})
}

// TestWithPreconditionsRefusesBadBodies: a body that is not JSON is an
// error, as before the splice; a merge patch that is not an object takes
// the decoding path (null becomes an object with the metadata).
func TestWithPreconditionsRefusesBadBodies(t *testing.T) {
	pre := &requests.Preconditions{UID: "u"}
	for _, body := range []string{`{"metadata":`, `{"a":1}}`, `[{"op":"add"`, ``} {
		for _, pt := range []requests.PatchType{requests.PatchMerge, requests.PatchJSON} {
			if _, err := withPreconditions(pt, []byte(body), pre); err == nil || !strings.Contains(err.Error(), "patch") {
				t.Errorf("%s %q: %v, want an error", pt, body, err)
			}
		}
	}
	if got, err := withPreconditions(requests.PatchMerge, []byte(`null`), pre); err != nil || string(got) != `{"metadata":{"uid":"u"}}` {
		t.Errorf("null: %s %v", got, err)
	}
	if _, err := withPreconditions(requests.PatchMerge, []byte(`[1]`), pre); err == nil {
		t.Errorf("a list as a merge patch was accepted")
	}
}

// BenchmarkWithPreconditions: an in-place update's pod patch (labels, the
// in-place state annotation, a container's image) with its uid, spliced
// (withPreconditions) and decoded and encoded again (decode).
func BenchmarkWithPreconditions(b *testing.B) {
	body := []byte(`{"metadata":{"annotations":{"apps.kruise.io/inplace-update-grace":null,"apps.kruise.io/inplace-update-state":"{\"revision\":\"web-7d9c5b\",\"updateTimestamp\":\"2026-05-06T07:08:09Z\",\"lastContainerStatuses\":{\"main\":{\"imageID\":\"example.com/web@sha256:0123456789abcdef\"}},\"updateImages\":true}"},"labels":{"apps.kruise.io/cloneset-instance-id":"x7k2p","controller-revision-hash":"web-7d9c5b","pod-template-hash":"web-7d9c5b"}},"spec":{"containers":[{"image":"example.com/web:v2","name":"main"}]}}`)
	pre := &requests.Preconditions{UID: "6a1f2c3e-9b8d-4f7a-8e5c-1d2b3a4c5e6f"}
	b.Run("splice", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := withPreconditions(requests.PatchStrategicMerge, body, pre); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := mergePreconditions(body, pre); err != nil {
				b.Fatal(err)
			}
		}
	})
}
