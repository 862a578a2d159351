package wiretrim

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// protobufWatch is the Content-Type of a protobuf watch stream.
const protobufWatch = protobufMediaType + ";stream=watch"

// encodeObject encodes obj as kube-apiserver encodes an object for a
// protobuf client: "k8s\x00" + runtime.Unknown naming its kind; a list
// with the streaming collections encoding.
func encodeObject(t testing.TB, obj runtime.Object, gv schema.GroupVersion) []byte {
	t.Helper()
	serializer := protobuf.NewSerializerWithOptions(scheme.Scheme, scheme.Scheme,
		protobuf.SerializerOptions{StreamingCollectionsEncoding: true})
	var b bytes.Buffer
	if err := scheme.Codecs.EncoderForVersion(serializer, gv).Encode(obj, &b); err != nil {
		t.Fatalf("encode %T: %v", obj, err)
	}
	return b.Bytes()
}

// encodeEvent encodes a watch event as kube-apiserver's watch handler
// does: the object encoded as above in a metav1.WatchEvent, encoded by the
// stream serializer (protobuf without the prefix) and framed.
func encodeEvent(t testing.TB, stream *bytes.Buffer, eventType watch.EventType, obj runtime.Object, gv schema.GroupVersion) {
	t.Helper()
	event := &metav1.WatchEvent{Type: string(eventType), Object: runtime.RawExtension{Raw: encodeObject(t, obj, gv)}}
	var b bytes.Buffer
	raw := protobuf.NewRawSerializer(scheme.Scheme, scheme.Scheme)
	if err := scheme.Codecs.EncoderForVersion(raw, gv).Encode(event, &b); err != nil {
		t.Fatalf("encode watch event: %v", err)
	}
	if _, err := protobuf.LengthDelimitedFramer.NewFrameWriter(stream).Write(b.Bytes()); err != nil {
		t.Fatal(err)
	}
}

// fixedResponses answers every watch request with one body and every
// other request with another, both with their Content-Type.
type fixedResponses struct {
	watchType, listType string
	watchBody, listBody []byte
}

// RoundTrip answers the request.
func (f fixedResponses) RoundTrip(req *http.Request) (*http.Response, error) {
	contentType, body := f.listType, f.listBody
	if req.URL.Query().Get("watch") == "true" {
		contentType, body = f.watchType, f.watchBody
	}
	return &http.Response{
		StatusCode:    http.StatusOK,
		Header:        http.Header{"Content-Type": {contentType}},
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}, nil
}

// clientset is a typed client of protobuf that reads the responses of rt,
// wrapped by WrapTransport when wrap is true.
func clientset(t testing.TB, rt http.RoundTripper, wrap bool) *kubernetes.Clientset {
	t.Helper()
	if wrap {
		rt = WrapTransport(rt)
	}
	config := &rest.Config{Host: "http://apiserver.invalid", ContentConfig: rest.ContentConfig{ContentType: protobufMediaType}}
	cs, err := kubernetes.NewForConfigAndClient(config, &http.Client{Transport: rt})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// decodedEvent is a watch event as a client decoded it.
type decodedEvent struct {
	Type   watch.EventType
	Object runtime.Object
}

// drain reads a watch to its end.
func drain(t testing.TB, w watch.Interface) []decodedEvent {
	t.Helper()
	defer w.Stop()
	var events []decodedEvent
	timeout := time.After(10 * time.Second)
	for {
		select {
		case e, ok := <-w.ResultChan():
			if !ok {
				return events
			}
			events = append(events, decodedEvent{e.Type, e.Object})
		case <-timeout:
			t.Fatal("the watch did not end")
		}
	}
}

// rewrite is what WrapTransport makes of a GET response's body of the
// Content-Type, read to its end, and the error that ended it.
func rewrite(t testing.TB, contentType string, body io.Reader) ([]byte, error) {
	t.Helper()
	next := roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {contentType}},
			Body: io.NopCloser(body), ContentLength: -1, Request: req}, nil
	})
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, "http://apiserver.invalid/api/v1/pods", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := WrapTransport(next).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	return io.ReadAll(resp.Body)
}

// roundTripperFunc is a function as an http.RoundTripper.
type roundTripperFunc func(*http.Request) (*http.Response, error)

// RoundTrip calls the function.
func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// filler sets every exported field of a value, at random: every pointer
// allocated, every string, number and byte slice set, every list and map
// one to three entries long (managedFields eight), so that a length
// rewritten one byte off anywhere on the way to the managedFields shows in
// what is decoded.
type filler struct {
	rand  *rand.Rand
	depth int
}

var (
	timeType     = reflect.TypeFor[metav1.Time]()
	microType    = reflect.TypeFor[metav1.MicroTime]()
	quantityType = reflect.TypeFor[resource.Quantity]()
	intOrStrType = reflect.TypeFor[intstr.IntOrString]()
	managedType  = reflect.TypeFor[[]metav1.ManagedFieldsEntry]()
)

// fill fills v, which must be settable.
func (f *filler) fill(v reflect.Value) {
	if f.depth > 12 {
		return
	}
	f.depth++
	defer func() { f.depth-- }()
	switch v.Type() {
	case timeType:
		v.Set(reflect.ValueOf(metav1.NewTime(time.Unix(f.rand.Int64N(4e9), 0))))
		return
	case microType:
		v.Set(reflect.ValueOf(metav1.NewMicroTime(time.Unix(f.rand.Int64N(4e9), f.rand.Int64N(1e6)*1000))))
		return
	case quantityType:
		v.Set(reflect.ValueOf(*resource.NewMilliQuantity(f.rand.Int64N(1e9)+1, resource.DecimalSI)))
		return
	case intOrStrType:
		if f.rand.IntN(2) == 0 {
			v.Set(reflect.ValueOf(intstr.FromInt32(f.rand.Int32())))
		} else {
			v.Set(reflect.ValueOf(intstr.FromString(f.text())))
		}
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(f.text())
	case reflect.Bool:
		v.SetBool(f.rand.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(f.rand.Uint64()) >> (64 - v.Type().Bits()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		v.SetUint(f.rand.Uint64() >> (64 - v.Type().Bits()))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(f.rand.Float64() * 1000)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		f.fill(v.Elem())
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			b := make([]byte, 1+f.rand.IntN(24))
			for i := range b {
				b[i] = byte(f.rand.Uint32())
			}
			v.SetBytes(b)
			return
		}
		n := 1 + f.rand.IntN(3)
		if v.Type() == managedType {
			n = 8
		}
		v.Set(reflect.MakeSlice(v.Type(), n, n))
		for i := range n {
			f.fill(v.Index(i))
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		for range 1 + f.rand.IntN(2) {
			key, value := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			f.fill(key)
			f.fill(value)
			v.SetMapIndex(key, value)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				f.fill(v.Field(i))
			}
		}
	}
}

// text is a short random string, never empty.
func (f *filler) text() string {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789-./"
	var b strings.Builder
	for range 1 + f.rand.IntN(12) {
		b.WriteByte(letters[f.rand.IntN(len(letters))])
	}
	return b.String()
}

// filled is a T with every field filled from the seed.
func filled[T any](seed uint64) *T {
	var v T
	(&filler{rand: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}).fill(reflect.ValueOf(&v).Elem())
	return &v
}

// trimmedObject is what the trim keeps of a decoded object, written with
// the types' Go fields: its managedFields dropped, of a node its spec and
// status too, of a pod what podSpecKept and podStatusKept list.
func trimmedObject(obj runtime.Object) runtime.Object {
	obj = obj.DeepCopyObject()
	if m, ok := obj.(metav1.Object); ok {
		m.SetManagedFields(nil)
	}
	switch o := obj.(type) {
	case *corev1.Node:
		o.Spec, o.Status = corev1.NodeSpec{}, corev1.NodeStatus{}
	case *corev1.Pod:
		trimmedPod(o)
	}
	return obj
}

// trimmedPod trims a pod's spec and status as the trim does.
func trimmedPod(p *corev1.Pod) {
	s, st := p.Spec, p.Status
	for i, v := range s.Volumes {
		s.Volumes[i] = corev1.Volume{Name: v.Name}
	}
	for i, c := range s.TopologySpreadConstraints {
		s.TopologySpreadConstraints[i] = corev1.TopologySpreadConstraint{TopologyKey: c.TopologyKey}
	}
	containers := func(list []corev1.Container) {
		for i, c := range list {
			list[i] = corev1.Container{Name: c.Name, Image: c.Image, Env: c.Env, Resources: c.Resources, ResizePolicy: c.ResizePolicy, RestartPolicy: c.RestartPolicy}
		}
	}
	statuses := func(list []corev1.ContainerStatus) {
		for i, c := range list {
			list[i] = corev1.ContainerStatus{Name: c.Name, Ready: c.Ready, RestartCount: c.RestartCount, Image: c.Image, ImageID: c.ImageID,
				ContainerID: c.ContainerID, Resources: c.Resources}
		}
	}
	containers(s.Containers)
	containers(s.InitContainers)
	statuses(st.ContainerStatuses)
	statuses(st.InitContainerStatuses)
	p.Spec = corev1.PodSpec{Volumes: s.Volumes, Containers: s.Containers, RestartPolicy: s.RestartPolicy, ActiveDeadlineSeconds: s.ActiveDeadlineSeconds,
		NodeName: s.NodeName, InitContainers: s.InitContainers, ReadinessGates: s.ReadinessGates, TopologySpreadConstraints: s.TopologySpreadConstraints}
	p.Status = corev1.PodStatus{Phase: st.Phase, Conditions: st.Conditions, ContainerStatuses: st.ContainerStatuses, InitContainerStatuses: st.InitContainerStatuses}
}
