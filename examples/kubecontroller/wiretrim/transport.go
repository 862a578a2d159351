// Package wiretrim drops, from the protobuf bytes the API server sends an
// informer, what the informer's cache would drop after decoding them: the
// managedFields of pods, persistent volume claims, controller revisions and
// nodes, a node's spec and status, and the parts of a pod's spec and status
// that kubecontroller.TrimForCache does not keep. Decoding a pod costs
// about half as much without its managedFields, which the scheduler, the
// kubelet and the controller fill with most of its metadata, and less again
// without its service account volume, tolerations, probes and container
// states.
//
// WrapTransport wraps the transport of the client an informer (a manager's
// cache) lists and watches with, as a rest.Config's WrapTransport. It
// rewrites the bodies of successful GET responses of
// Content-Type application/vnd.kubernetes.protobuf:
//
//   - watch streams (;stream=watch): frame by frame, each a 4-byte
//     big-endian length and a metav1.WatchEvent whose object is "k8s\x00"
//     followed by a runtime.Unknown, whose raw bytes are the object;
//   - lists (PodList, PersistentVolumeClaimList, ControllerRevisionList,
//     NodeList): read whole (as client-go reads them anyway) up to
//     MaxListBytes, the items rewritten.
//
// In an object of kind Pod, PersistentVolumeClaim, Node (v1) or
// ControllerRevision (apps/v1), it removes every metadata.managedFields
// entry (ObjectMeta field 17), of a Node its spec and status (fields 2
// and 3), of a Pod every field of its spec and status but those a pod's
// cache keeps (podSpecKept, podStatusKept: the node, the restart policy,
// the readiness gates, the volumes' names, the topology spread keys, the
// active deadline, of each container its name, image, environment,
// resources, resize and restart policies; the phase, the conditions and of
// each container status its name, readiness, restart count, image, image
// id, container id and resources), and rewrites the lengths around them.
// Every other byte is left as it is and in its order: unknown fields
// (but in a pod's spec and status, which keep only the fields listed),
// other kinds (a Status of an ERROR event, a BOOKMARK whose object has no
// managedFields), other content types (JSON, CBOR), compressed bodies,
// single objects (a GET of one node must keep its spec), error responses,
// requests other than GET.
//
// It is safe by construction: it walks the wire format of the messages on
// the way to the object (the watch event, the Unknown and its TypeMeta,
// the object's top-level fields, its ObjectMeta's, a pod's spec and status,
// their containers, volumes, constraints and container statuses) and an
// object, frame or list where any of them does not parse, or has a field
// twice where once is expected, is passed on unchanged, for the decoder
// downstream to report as it would have. The bytes it drops are not
// checked: a malformed managedFields entry (or toleration, probe...) that
// would have failed the decode no longer does. It never buffers more than one frame, and a frame longer
// than MaxFrameBytes (client-go's streaming decoder refuses objects above
// 16 MiB) is passed on as it comes, without being buffered whole.
//
// What it drops must be what the informer's consumers do not read: it
// suits a cache whose objects are trimmed as kubecontroller.TrimForCache
// trims them, not a client whose objects are written back.
package wiretrim

import (
	"bytes"
	"encoding/binary"
	"io"
	"mime"
	"net/http"
)

// MaxFrameBytes is the longest watch frame WrapTransport rewrites; a
// longer one passes as it comes, without being held in memory whole.
const MaxFrameBytes = 16 << 20

// MaxListBytes is the longest list response WrapTransport rewrites; a
// longer one passes as it comes once that much of it has been read.
const MaxListBytes = 512 << 20

// keptFrameBuffer is the capacity of a frame buffer kept for the next
// frame; a larger one, grown for a large frame, is released.
const keptFrameBuffer = 1 << 20

// protobufMediaType is the media type of Kubernetes protobuf.
const protobufMediaType = "application/vnd.kubernetes.protobuf"

// WrapTransport returns a transport that sends requests through rt and
// rewrites the protobuf watch streams and lists it answers, as the package
// documentation says. Its signature is that of rest.Config.WrapTransport.
func WrapTransport(rt http.RoundTripper) http.RoundTripper {
	return &transport{next: rt}
}

// transport is what WrapTransport returns.
type transport struct{ next http.RoundTripper }

// RoundTrip sends the request through the wrapped transport and wraps the
// response's body when it is one to rewrite.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp == nil || req.Method != http.MethodGet || resp.StatusCode != http.StatusOK ||
		resp.Body == nil || resp.Body == http.NoBody || resp.Header.Get("Content-Encoding") != "" {
		return resp, err
	}
	mediaType, params, perr := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if perr != nil || mediaType != protobufMediaType {
		return resp, err
	}
	switch params["stream"] {
	case "watch":
		resp.Body = &watchBody{body: resp.Body}
	case "":
		resp.Body = &listBody{body: resp.Body, sizeHint: resp.ContentLength}
	default:
		return resp, err
	}
	// The rewritten body may be shorter.
	resp.ContentLength = -1
	resp.Header.Del("Content-Length")
	return resp, err
}

// WrappedRoundTripper is the transport t wraps (client-go's
// k8s.io/apimachinery/pkg/util/net.RoundTripperWrapper).
func (t *transport) WrappedRoundTripper() http.RoundTripper { return t.next }

// watchBody rewrites a protobuf watch stream frame by frame.
type watchBody struct {
	body io.ReadCloser
	// buf[off:] is what is left to deliver of the current frame (or of
	// the bytes read before the stream ended or failed).
	buf []byte
	off int
	// raw is what is left of a frame longer than MaxFrameBytes, read from
	// body as it comes.
	raw int
	// err is body's error, returned once buf is delivered.
	err error
}

// Read delivers the rewritten stream.
func (w *watchBody) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		if w.off < len(w.buf) {
			n := copy(p, w.buf[w.off:])
			w.off += n
			return n, nil
		}
		if w.raw > 0 {
			if len(p) > w.raw {
				p = p[:w.raw]
			}
			n, err := w.body.Read(p)
			w.raw -= n
			return n, err
		}
		if w.err != nil {
			return 0, w.err
		}
		w.nextFrame()
	}
}

// nextFrame reads the next frame from body and rewrites it, or sets up
// what passes unchanged: a frame too long to hold, the bytes before the
// body's end or error.
func (w *watchBody) nextFrame() {
	buf := w.buf[:0]
	if cap(buf) > keptFrameBuffer {
		buf = nil
	}
	buf = append(buf, 0, 0, 0, 0)
	n, err := readFull(w.body, buf)
	if n < len(buf) {
		w.buf, w.off, w.err = buf[:n], 0, err
		return
	}
	size := int(binary.BigEndian.Uint32(buf))
	if size > MaxFrameBytes {
		w.buf, w.off, w.raw, w.err = buf, 0, size, err
		return
	}
	if cap(buf) < 4+size {
		buf = append(make([]byte, 0, 4+size), buf...)
	}
	buf = buf[:4+size]
	if err == nil {
		n, err = readFull(w.body, buf[4:])
		if n < size {
			w.buf, w.off, w.err = buf[:4+n], 0, err
			return
		}
	} else if size > 0 {
		w.buf, w.off, w.err = buf[:4], 0, err
		return
	}
	end := trimWatchEvent(buf, 4, len(buf))
	binary.BigEndian.PutUint32(buf, uint32(end-4))
	w.buf, w.off, w.err = buf[:end], 0, err
}

// Close closes the response's body (also while a Read waits on it).
func (w *watchBody) Close() error { return w.body.Close() }

// readFull reads len(b) bytes from r unless it fails or ends first, and
// returns how many it read with r's error as r returned it (io.EOF stays
// io.EOF, so that what follows the bytes is what r would have given).
func readFull(r io.Reader, b []byte) (n int, err error) {
	for n < len(b) && err == nil {
		var k int
		k, err = r.Read(b[n:])
		n += k
	}
	return n, err
}

// listBody rewrites a protobuf list response, read whole at the first
// Read.
type listBody struct {
	body     io.ReadCloser
	sizeHint int64
	rest     io.Reader // what is left to deliver once read
}

// Read delivers the rewritten list.
func (l *listBody) Read(p []byte) (int, error) {
	if l.rest == nil {
		l.rest = l.load()
	}
	return l.rest.Read(p)
}

// load reads the body up to MaxListBytes and returns what to deliver: the
// trimmed list; or, when the body fails first, the bytes read then the
// error; or, when it is longer, the bytes read then the rest of the body.
func (l *listBody) load() io.Reader {
	var b bytes.Buffer
	if l.sizeHint > 0 && l.sizeHint <= MaxListBytes {
		b.Grow(int(l.sizeHint) + bytes.MinRead)
	}
	_, err := b.ReadFrom(io.LimitReader(l.body, MaxListBytes+1))
	switch {
	case err != nil:
		return io.MultiReader(bytes.NewReader(b.Bytes()), errorReader{err})
	case b.Len() > MaxListBytes:
		return io.MultiReader(bytes.NewReader(b.Bytes()), l.body)
	}
	buf := b.Bytes()
	return bytes.NewReader(buf[:trimList(buf)])
}

// Close closes the response's body.
func (l *listBody) Close() error { return l.body.Close() }

// errorReader fails every Read with its error.
type errorReader struct{ err error }

// Read returns the error.
func (e errorReader) Read([]byte) (int, error) { return 0, e.err }
