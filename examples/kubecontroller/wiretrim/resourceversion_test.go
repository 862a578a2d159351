package wiretrim

import (
	"bytes"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
)

// metaScheme knows metav1's kinds, PartialObjectMetadata among them, as
// the RESTWriter's client (client-go's metadata client) does.
func metaScheme(t testing.TB) *runtime.Scheme {
	s := runtime.NewScheme()
	if err := metav1.AddMetaToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// encodePartial is the API server's answer with obj's metadata alone.
func encodePartial(t testing.TB, meta metav1.ObjectMeta) []byte {
	obj := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"}, ObjectMeta: meta}
	var buf bytes.Buffer
	s := metaScheme(t)
	if err := protobuf.NewSerializer(s, s).Encode(obj, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// decodedResourceVersion is the resourceVersion body decodes with, as a
// client decodes it.
func decodedResourceVersion(t testing.TB, body []byte) (string, error) {
	obj, _, err := serializer.NewCodecFactory(metaScheme(t)).UniversalDeserializer().Decode(body, nil, nil)
	if err != nil {
		return "", err
	}
	return obj.(*metav1.PartialObjectMetadata).ResourceVersion, nil
}

// bytesField is field num, length-delimited, holding payload.
func bytesField(num uint64, payload []byte) []byte {
	b := make([]byte, 20, 20+len(payload))
	n := putVarint(b, num<<3|wireBytes)
	n += putVarint(b[n:], uint64(len(payload)))
	return append(b[:n], payload...)
}

// metadataTwice is a PartialObjectMetadata whose metadata comes twice, the
// resourceVersion in the first: protobuf merges the two, and the
// resourceVersion stays.
func metadataTwice() []byte {
	typeMeta := append(bytesField(typeMetaAPIVersion, []byte("meta.k8s.io/v1")), bytesField(typeMetaKind, []byte("PartialObjectMetadata"))...)
	raw := append(bytesField(objectMetadata, bytesField(metaResourceVersion, []byte("7"))), bytesField(objectMetadata, bytesField(1, []byte("web-a")))...)
	unknown := append(bytesField(unknownTypeMeta, typeMeta), bytesField(unknownRaw, raw)...)
	return append([]byte(protobufPrefix), unknown...)
}

func TestResourceVersion(t *testing.T) {
	full := metav1.ObjectMeta{Name: "web-a", Namespace: "ns", ResourceVersion: "123456", UID: "u",
		Labels: map[string]string{"app": "web"}, ManagedFields: smallObjects()[0].(*corev1.Pod).ManagedFields}
	pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: full}
	var podBytes bytes.Buffer
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := protobuf.NewSerializer(s, s).Encode(pod, &podBytes); err != nil {
		t.Fatal(err)
	}
	partial := encodePartial(t, full)
	for _, tc := range []struct {
		name   string
		body   []byte
		want   string
		wantOK bool
	}{
		{"metadata with managedFields", partial, "123456", true},
		{"no resourceVersion", encodePartial(t, metav1.ObjectMeta{Name: "x"}), "", true},
		{"the metadata twice", metadataTwice(), "7", true},
		{"the whole pod", podBytes.Bytes(), "", false},
		{"JSON", []byte(`{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"1"}}`), "", false},
		{"truncated", partial[:len(partial)-3], "", false},
		{"the prefix alone", []byte(protobufPrefix), "", false},
		{"empty", nil, "", false},
	} {
		got, ok := ResourceVersion(tc.body)
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("%s: %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.wantOK)
		}
		if ok {
			if rv, err := decodedResourceVersion(t, tc.body); err != nil || rv != got {
				t.Errorf("%s: decoded %q, %v; ResourceVersion %q", tc.name, rv, err, got)
			}
		}
	}
}

// FuzzResourceVersion: whatever the bytes, ResourceVersion does not panic,
// and a resourceVersion it reads is the one the bytes decode with, when
// they decode.
func FuzzResourceVersion(f *testing.F) {
	f.Add(encodePartial(f, metav1.ObjectMeta{Name: "web-a", ResourceVersion: "42", ManagedFields: smallObjects()[0].(*corev1.Pod).ManagedFields}))
	f.Add(encodePartial(f, metav1.ObjectMeta{}))
	f.Add(metadataTwice())
	f.Fuzz(func(t *testing.T, body []byte) {
		got, ok := ResourceVersion(body)
		if !ok {
			return
		}
		if want, err := decodedResourceVersion(t, body); err == nil && want != got {
			t.Fatalf("%q: ResourceVersion %q, decoded %q", body, got, want)
		}
	})
}

func BenchmarkResourceVersion(b *testing.B) {
	body := encodePartial(b, metav1.ObjectMeta{Name: "web-a", Namespace: "ns", ResourceVersion: "123456",
		Labels: map[string]string{"app": "web"}, ManagedFields: smallObjects()[0].(*corev1.Pod).ManagedFields})
	b.Run("scan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := ResourceVersion(body); !ok {
				b.Fatal("no resourceVersion")
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		d := serializer.NewCodecFactory(metaScheme(b)).UniversalDeserializer()
		for b.Loop() {
			if _, _, err := d.Decode(body, nil, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
