package wiretrim

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
)

// smallObjects are objects of each trimmed kind, few fields set, for the
// fuzzers' seeds.
func smallObjects() []runtime.Object {
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: map[string]string{"app": "x"}, ManagedFields: []metav1.ManagedFieldsEntry{
			{Manager: "kube-scheduler", Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{}}`)}},
			{Manager: "kwok", Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "status"}}}
	}
	return []runtime.Object{
		&corev1.Pod{ObjectMeta: meta("pod"), Spec: corev1.PodSpec{NodeName: "node"}, Status: corev1.PodStatus{Phase: corev1.PodRunning}},
		&corev1.PersistentVolumeClaim{ObjectMeta: meta("claim"), Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "volume"}},
		&corev1.Node{ObjectMeta: meta("node"), Spec: corev1.NodeSpec{PodCIDR: "10.0.0.0/24"}, Status: corev1.NodeStatus{Phase: corev1.NodeRunning}},
		&appsv1.ControllerRevision{ObjectMeta: meta("revision"), Revision: 3, Data: runtime.RawExtension{Raw: []byte(`{"spec":{}}`)}},
	}
}

// decodeObject decodes "k8s\x00" + Unknown as client-go's protobuf decoder
// does.
func decodeObject(raw []byte) (runtime.Object, error) {
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(raw, nil, nil)
	return obj, err
}

// decodeEvent decodes a watch stream's frame as client-go's watch decoder
// does.
func decodeEvent(frame []byte) (eventType string, obj runtime.Object, err error) {
	var event metav1.WatchEvent
	if err := event.Unmarshal(frame); err != nil {
		return "", nil, err
	}
	obj, err = decodeObject(event.Object.Raw)
	return event.Type, obj, err
}

// checkRewrite checks that a rewritten frame or list is the original, or
// decodes as the original does minus what the trim drops, when the
// original decodes.
func checkRewrite(t *testing.T, in, out []byte, decode func([]byte) (string, runtime.Object, error)) {
	t.Helper()
	if bytes.Equal(in, out) {
		return
	}
	if len(out) >= len(in) {
		t.Fatalf("rewritten %d bytes as %d", len(in), len(out))
	}
	inType, inObj, err := decode(in)
	if err != nil {
		return
	}
	outType, outObj, err := decode(out)
	if err != nil {
		t.Fatalf("%q decodes (%T), rewritten as %q it does not: %v", in, inObj, out, err)
	}
	want := trimmedObject(inObj)
	if items, err := meta.ExtractList(inObj); err == nil && meta.IsListType(inObj) {
		for i := range items {
			items[i] = trimmedObject(items[i])
		}
		if err := meta.SetList(want, items); err != nil {
			t.Fatal(err)
		}
	}
	if inType != outType || !reflect.DeepEqual(want, outObj) {
		t.Fatalf("%q decodes as %s %#v, rewritten as %q it decodes as %s %#v", in, inType, want, out, outType, outObj)
	}
}

// FuzzWrapWatchStream feeds any bytes through the transport as a protobuf
// watch stream: it never panics, frames keep their place, each rewritten
// frame decodes as the original minus what the trim drops, the bytes after
// the last whole frame (or from a frame too long to rewrite) pass as they
// are.
func FuzzWrapWatchStream(f *testing.F) {
	for _, obj := range smallObjects() {
		var b bytes.Buffer
		gv := corev1.SchemeGroupVersion
		if _, ok := obj.(*appsv1.ControllerRevision); ok {
			gv = appsv1.SchemeGroupVersion
		}
		encodeEvent(f, &b, watch.Added, obj, gv)
		encodeEvent(f, &b, watch.Deleted, obj, gv)
		f.Add(b.Bytes())
	}
	f.Add([]byte{0, 0, 0, 2, 0x0a, 0x00, 0, 0})
	f.Fuzz(func(t *testing.T, stream []byte) {
		out, err := rewrite(t, protobufWatch, bytes.NewReader(stream))
		if err != nil {
			t.Fatal(err)
		}
		in := stream
		for len(in) >= 4 && len(out) >= 4 {
			size := int(binary.BigEndian.Uint32(in))
			if size > MaxFrameBytes || size > len(in)-4 {
				break
			}
			outSize := int(binary.BigEndian.Uint32(out))
			if outSize > len(out)-4 {
				t.Fatalf("a frame of %d bytes in %d", outSize, len(out)-4)
			}
			checkRewrite(t, in[4:4+size], out[4:4+outSize], func(b []byte) (string, runtime.Object, error) { return decodeEvent(b) })
			in, out = in[4+size:], out[4+outSize:]
		}
		if !bytes.Equal(in, out) {
			t.Fatalf("the end of the stream %q became %q", in, out)
		}
	})
}

// FuzzWrapList feeds any bytes through the transport as a protobuf list
// response: it never panics, and the rewritten list decodes as the
// original minus what the trim drops.
func FuzzWrapList(f *testing.F) {
	objects := smallObjects()
	f.Add(encodeObject(f, &corev1.PodList{Items: []corev1.Pod{*objects[0].(*corev1.Pod), *objects[0].(*corev1.Pod)}}, corev1.SchemeGroupVersion))
	f.Add(encodeObject(f, &corev1.PersistentVolumeClaimList{Items: []corev1.PersistentVolumeClaim{*objects[1].(*corev1.PersistentVolumeClaim)}}, corev1.SchemeGroupVersion))
	f.Add(encodeObject(f, &corev1.NodeList{Items: []corev1.Node{*objects[2].(*corev1.Node)}}, corev1.SchemeGroupVersion))
	f.Add(encodeObject(f, &appsv1.ControllerRevisionList{Items: []appsv1.ControllerRevision{*objects[3].(*appsv1.ControllerRevision)}}, appsv1.SchemeGroupVersion))
	f.Fuzz(func(t *testing.T, list []byte) {
		out, err := rewrite(t, protobufMediaType, bytes.NewReader(list))
		if err != nil {
			t.Fatal(err)
		}
		checkRewrite(t, list, out, func(b []byte) (string, runtime.Object, error) {
			obj, err := decodeObject(b)
			return "", obj, err
		})
	})
}
