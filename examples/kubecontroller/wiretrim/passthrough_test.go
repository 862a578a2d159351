package wiretrim

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
)

// podStream is a protobuf watch stream of pods with managedFields, and
// where each of its frames starts.
func podStream(t testing.TB, n int) (stream []byte, starts []int) {
	var b bytes.Buffer
	for i := range n {
		starts = append(starts, b.Len())
		encodeEvent(t, &b, watch.Modified, filled[corev1.Pod](uint64(i)), corev1.SchemeGroupVersion)
	}
	return b.Bytes(), starts
}

// mustRewrite is rewrite that fails the test on an error.
func mustRewrite(t testing.TB, contentType string, body []byte) []byte {
	t.Helper()
	out, err := rewrite(t, contentType, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// frameHeader is the header of a watch stream frame of data.
func frameHeader(data []byte) []byte {
	return binary.BigEndian.AppendUint32(nil, uint32(len(data)))
}

// framed is a stream of the frames.
func framed(frames ...[]byte) []byte {
	var out []byte
	for _, f := range frames {
		out = append(append(out, frameHeader(f)...), f...)
	}
	return out
}

// watchEvent is a metav1.WatchEvent as the stream serializer encodes it,
// with the raw object bytes.
func watchEvent(t testing.TB, eventType watch.EventType, raw []byte) []byte {
	t.Helper()
	b, err := (&metav1.WatchEvent{Type: string(eventType), Object: runtime.RawExtension{Raw: raw}}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// unknown is an object encoded by the protobuf serializer as it is given:
// "k8s\x00" + the Unknown.
func unknown(t testing.TB, u *runtime.Unknown) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(u, &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestLeavesOtherBytesAlone: what the transport does not rewrite passes
// byte for byte.
func TestLeavesOtherBytesAlone(t *testing.T) {
	pod := encodeObject(t, filled[corev1.Pod](1), corev1.SchemeGroupVersion)
	podRaw := pod[len(protobufPrefix):]
	var u runtime.Unknown
	if err := u.Unmarshal(podRaw); err != nil {
		t.Fatal(err)
	}
	withEncoding, withContentType, cloneSet := u, u, u
	withEncoding.ContentEncoding = "gzip"
	withContentType.ContentType = "application/json"
	cloneSet.TypeMeta = runtime.TypeMeta{APIVersion: "apps.kruise.io/v1alpha1", Kind: "CloneSet"}
	var status bytes.Buffer
	encodeEvent(t, &status, watch.Error, &metav1.Status{Status: metav1.StatusFailure, Code: 500, Message: "boom"}, corev1.SchemeGroupVersion)
	bare := watchEvent(t, watch.Added, pod)
	object, ok := onlyBytesField(bare, 0, len(bare), watchEventObject)
	if !ok {
		t.Fatal("no object in the watch event")
	}
	twice := append(bare[:len(bare):len(bare)], bare[object.start:object.end]...)
	streams := map[string][]byte{
		"an ERROR event with a Status":        status.Bytes(),
		"a CloneSet":                          framed(watchEvent(t, watch.Added, unknown(t, &cloneSet))),
		"an Unknown with a content encoding":  framed(watchEvent(t, watch.Added, unknown(t, &withEncoding))),
		"an Unknown with a content type":      framed(watchEvent(t, watch.Added, unknown(t, &withContentType))),
		"a pod without the protobuf prefix":   framed(watchEvent(t, watch.Added, podRaw)),
		"a watch event with its object twice": framed(twice),
		"a watch event one byte short":        framed(bare[:len(bare)-1]),
		"a watch event with a byte more":      framed(append(bare[:len(bare):len(bare)], 0x08)),
		"a watch event with a group field":    framed(append(bare[:len(bare):len(bare)], 0x0b, 0x0c)),
		"garbage":                             framed([]byte("not a protobuf message"), nil, []byte{0xff, 0xff}),
		"an empty stream":                     nil,
		"a header cut short":                  {0, 0},
		"a frame longer than what follows":    append(frameHeader(make([]byte, 100)), 1, 2, 3),
		"a pod list in a watch event":         framed(watchEvent(t, watch.Added, encodeObject(t, &corev1.PodList{Items: []corev1.Pod{*filled[corev1.Pod](2)}}, corev1.SchemeGroupVersion))),
	}
	for name, stream := range streams {
		t.Run(name, func(t *testing.T) {
			if out := mustRewrite(t, protobufWatch, stream); !bytes.Equal(out, stream) {
				t.Fatalf("rewrote\n%q\nas\n%q", stream, out)
			}
		})
	}

	podWatch, _ := podStream(t, 2)
	list := encodeObject(t, &corev1.PodList{Items: []corev1.Pod{*filled[corev1.Pod](3)}}, corev1.SchemeGroupVersion)
	bodies := []struct {
		name, contentType string
		body              []byte
	}{
		{"a JSON watch", "application/json;stream=watch", podWatch},
		{"a JSON list", "application/json", list},
		{"a CBOR watch", "application/cbor-seq", podWatch},
		{"another stream parameter", protobufMediaType + ";stream=other", podWatch},
		{"a malformed Content-Type", protobufMediaType + ";;;=", podWatch},
		{"a single pod", protobufMediaType, pod},
		{"a list cut short", protobufMediaType, list[:len(list)-1]},
		{"a list with a byte more", protobufMediaType, append(list[:len(list):len(list)], 0)},
	}
	for _, c := range bodies {
		t.Run(c.name, func(t *testing.T) {
			if out := mustRewrite(t, c.contentType, c.body); !bytes.Equal(out, c.body) {
				t.Fatalf("rewrote %d bytes as %d", len(c.body), len(out))
			}
		})
	}
}

// TestLeavesOtherResponsesAlone: responses other than a successful GET's,
// and compressed ones, keep their body.
func TestLeavesOtherResponsesAlone(t *testing.T) {
	stream, _ := podStream(t, 1)
	cases := []struct {
		name     string
		method   string
		status   int
		encoding string
	}{
		{"a POST", http.MethodPost, http.StatusOK, ""},
		{"an error", http.MethodGet, http.StatusInternalServerError, ""},
		{"a gzip body", http.MethodGet, http.StatusOK, "gzip"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := io.NopCloser(bytes.NewReader(stream))
			next := roundTripperFunc(func(req *http.Request) (*http.Response, error) {
				header := http.Header{"Content-Type": {protobufWatch}}
				if c.encoding != "" {
					header.Set("Content-Encoding", c.encoding)
				}
				return &http.Response{StatusCode: c.status, Header: header, Body: body, Request: req}, nil
			})
			req, err := http.NewRequestWithContext(context.Background(), c.method, "http://apiserver.invalid/api/v1/pods", nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := WrapTransport(next).RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Body != body {
				t.Fatalf("the body was wrapped")
			}
		})
	}
	failing := errors.New("connection refused")
	next := roundTripperFunc(func(*http.Request) (*http.Response, error) { return nil, failing })
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, "http://apiserver.invalid/api/v1/pods", nil)
	if _, err := WrapTransport(next).RoundTrip(req); !errors.Is(err, failing) {
		t.Fatalf("error %v, want %v", err, failing)
	}
}

// TestTruncatedStreamKeepsItsTail: a stream that ends or fails inside a
// frame gives the frames before rewritten, then the bytes of the partial
// frame as they came, then the same end or error.
func TestTruncatedStreamKeepsItsTail(t *testing.T) {
	var b bytes.Buffer
	var starts []int
	for i := range 3 {
		starts = append(starts, b.Len())
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("pod-", i), ManagedFields: []metav1.ManagedFieldsEntry{
			{Manager: "kube-scheduler", Operation: metav1.ManagedFieldsOperationUpdate}, {Manager: "kwok", Subresource: "status"}}}}
		encodeEvent(t, &b, watch.Modified, pod, corev1.SchemeGroupVersion)
	}
	stream := b.Bytes()
	rewritten := map[int][]byte{} // of stream[:start]
	for _, s := range starts {
		rewritten[s] = mustRewrite(t, protobufWatch, stream[:s])
	}
	failing := errors.New("connection reset")
	for cut := 0; cut < len(stream); cut++ {
		last := 0
		for _, s := range starts {
			if s <= cut {
				last = s
			}
		}
		want := append(rewritten[last][:len(rewritten[last]):len(rewritten[last])], stream[last:cut]...)
		if got := mustRewrite(t, protobufWatch, stream[:cut]); !bytes.Equal(got, want) {
			t.Fatalf("stream cut at %d: got %d bytes, want %d", cut, len(got), len(want))
		}
		got, err := rewrite(t, protobufWatch, io.MultiReader(bytes.NewReader(stream[:cut]), errorReader{failing}))
		if !bytes.Equal(got, want) || !errors.Is(err, failing) {
			t.Fatalf("stream failing at %d: got %d bytes and %v, want %d and %v", cut, len(got), err, len(want), failing)
		}
	}
	if len(mustRewrite(t, protobufWatch, stream)) >= len(stream) {
		t.Fatal("the whole stream was not rewritten")
	}
}

// TestLongFramePassesUnbuffered: a frame longer than MaxFrameBytes passes
// as it is, and the frames after it are rewritten.
func TestLongFramePassesUnbuffered(t *testing.T) {
	long := make([]byte, MaxFrameBytes+1)
	long[0] = 0x0a // what a watch event would start with
	stream, _ := podStream(t, 1)
	in := append(framed(long), stream...)
	out := mustRewrite(t, protobufWatch, in)
	want := append(framed(long), mustRewrite(t, protobufWatch, stream)...)
	if !bytes.Equal(out, want) {
		t.Fatalf("got %d bytes, want %d", len(out), len(want))
	}
	if bytes.Equal(want[len(in)-len(stream):], stream) {
		t.Fatal("the pod after the long frame was not rewritten")
	}
}

// closeRecorder is a body that records its Close.
type closeRecorder struct {
	io.Reader
	closed int
}

// Close records the call.
func (c *closeRecorder) Close() error { c.closed++; return nil }

// TestCloseClosesTheBody: closing a rewritten body closes the response's.
func TestCloseClosesTheBody(t *testing.T) {
	for _, contentType := range []string{protobufWatch, protobufMediaType} {
		body := &closeRecorder{Reader: bytes.NewReader(nil)}
		next := roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {contentType}}, Body: body, Request: req}, nil
		})
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, "http://apiserver.invalid/api/v1/pods", nil)
		resp, err := WrapTransport(next).RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Body == io.ReadCloser(body) {
			t.Fatalf("%s: the body was not wrapped", contentType)
		}
		if err := resp.Body.Close(); err != nil || body.closed != 1 {
			t.Fatalf("%s: Close returned %v and closed the body %d times, want once", contentType, err, body.closed)
		}
	}
}

// TestNonMinimalLengths: lengths encoded on more bytes than needed (valid
// protobuf, which no Kubernetes encoder writes) are rewritten all the
// same.
func TestNonMinimalLengths(t *testing.T) {
	pod := filled[corev1.Pod](7)
	encoded := encodeObject(t, pod, corev1.SchemeGroupVersion)
	event := watchEvent(t, watch.Added, encoded)
	// The WatchEvent's object field: its tag, then its length padded to
	// five bytes.
	f, ok := onlyBytesField(event, 0, len(event), watchEventObject)
	if !ok {
		t.Fatal("no object field")
	}
	n := uint64(f.payloadLen())
	padded := append([]byte{}, event[:f.lenStart]...)
	for range 4 {
		padded = append(padded, byte(n)|0x80)
		n >>= 7
	}
	padded = append(append(padded, byte(n)), event[f.payload:]...)
	out := mustRewrite(t, protobufWatch, framed(padded))
	want := mustRewrite(t, protobufWatch, framed(event))
	if !bytes.Equal(out, want) {
		t.Fatalf("padded lengths rewritten as\n%q\nwant\n%q", out, want)
	}
}
