package wiretrim_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/clonecore/cloneset/examples/kubecontroller/wiretrim"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// ExampleWrapTransport wraps the transport of the client an informer
// watches with: the pods it decodes come without their managedFields.
func ExampleWrapTransport() {
	// An API server that answers a watch of pods with one event, in
	// protobuf as kube-apiserver does.
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "sample-x7k2p", Namespace: "default",
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kube-scheduler"}, {Manager: "kwok", Subresource: "status"}}}}
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var object, event bytes.Buffer
		codecs := scheme.Codecs
		_ = codecs.EncoderForVersion(protobuf.NewSerializer(scheme.Scheme, scheme.Scheme), corev1.SchemeGroupVersion).Encode(pod, &object)
		_ = codecs.EncoderForVersion(protobuf.NewRawSerializer(scheme.Scheme, scheme.Scheme), corev1.SchemeGroupVersion).
			Encode(&metav1.WatchEvent{Type: "ADDED", Object: runtime.RawExtension{Raw: object.Bytes()}}, &event)
		w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf;stream=watch")
		_, _ = protobuf.LengthDelimitedFramer.NewFrameWriter(w).Write(event.Bytes())
	}))
	defer server.Close()

	// The cache's client: protobuf, its transport wrapped.
	config := &rest.Config{Host: server.URL, ContentConfig: rest.ContentConfig{ContentType: "application/vnd.kubernetes.protobuf"}}
	config.Wrap(wiretrim.WrapTransport)
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		panic(err)
	}
	watcher, err := client.CoreV1().Pods("default").Watch(context.Background(), metav1.ListOptions{})
	if err != nil {
		panic(err)
	}
	defer watcher.Stop()
	event := <-watcher.ResultChan()
	got := event.Object.(*corev1.Pod)
	fmt.Println(event.Type, got.Name, "managedFields:", len(got.ManagedFields))
	// Output: ADDED sample-x7k2p managedFields: 0
}
