package wiretrim

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	restclientwatch "k8s.io/client-go/rest/watch"
)

// kwokPod is a pod as a kwok node runs it in a CloneSet rollout: created
// by the controller, bound by the scheduler, run by kwok, its readiness
// gate and lifecycle set by the controller; eight managedFields entries.
func kwokPod() *corev1.Pod {
	created := metav1.NewTime(time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC))
	started := metav1.NewTime(created.Add(2 * time.Second))
	uid := types.UID("6f1c2d3e-4b5a-4c6d-8e7f-901234567890")
	owner := "k:{\"uid\":\"0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d\"}"
	entry := func(manager, subresource string, at metav1.Time, fields string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
			Time: &at, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)}, Subresource: subresource}
	}
	condition := func(t corev1.PodConditionType) corev1.PodCondition {
		return corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, LastTransitionTime: started}
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: "sample-x7k2p", GenerateName: "sample-", Namespace: "rollout", UID: uid, ResourceVersion: "4817263",
			CreationTimestamp: created,
			Labels: map[string]string{"app": "sample", "controller-revision-hash": "sample-6c9d7f8b4",
				"apps.kruise.io/cloneset-instance-id": "x7k2p", "lifecycle.apps.kruise.io/state": "Normal",
				"pod-template-hash": "6c9d7f8b4"},
			Annotations: map[string]string{"apps.kruise.io/inplace-update-state": `{"revision":"sample-6c9d7f8b4","updateTimestamp":"2026-11-27T10:00:01Z","lastContainerStatuses":{"main":{"imageID":"docker.io/library/nginx@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31"}}}`},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps.kruise.io/v1alpha1", Kind: "CloneSet", Name: "sample",
				UID: "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", Controller: ptr(true), BlockOwnerDeletion: ptr(true)}},
			ManagedFields: []metav1.ManagedFieldsEntry{
				entry("clonesetcontroller", "", created, `{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:apps.kruise.io/cloneset-instance-id":{},"f:controller-revision-hash":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"`+owner+`":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"main\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:ports":{".":{},"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:protocol":{}}},"f:resources":{".":{},"f:limits":{".":{},"f:cpu":{},"f:memory":{}},"f:requests":{".":{},"f:cpu":{},"f:memory":{}}},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:readinessGates":{".":{},"k:{\"conditionType\":\"InPlaceUpdateReady\"}":{".":{},"f:conditionType":{}}},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}`),
				entry("kube-scheduler", "status", created, `{"f:status":{"f:conditions":{".":{},"k:{\"type\":\"PodScheduled\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}}}}`),
				entry("clonesetcontroller", "status", created, `{"f:status":{"f:conditions":{"k:{\"type\":\"InPlaceUpdateReady\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}}}}`),
				entry("kwok", "status", started, `{"f:status":{"f:conditions":{"k:{\"type\":\"ContainersReady\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Initialized\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Ready\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}},"f:containerStatuses":{},"f:hostIP":{},"f:hostIPs":{},"f:phase":{},"f:podIP":{},"f:podIPs":{".":{},"k:{\"ip\":\"10.0.3.17\"}":{".":{},"f:ip":{}}},"f:startTime":{}}}`),
				entry("clonesetcontroller", "", started, `{"f:metadata":{"f:labels":{"f:lifecycle.apps.kruise.io/state":{}}}}`),
				entry("clonesetcontroller", "", started, `{"f:metadata":{"f:annotations":{".":{},"f:apps.kruise.io/inplace-update-state":{}}}}`),
				entry("kwok", "", started, `{"f:metadata":{"f:annotations":{"f:kwok.x-k8s.io/node":{}}}}`),
				entry("clonesetcontroller", "status", started, `{"f:status":{"f:conditions":{"k:{\"type\":\"InPlaceUpdateReady\"}":{"f:lastTransitionTime":{},"f:status":{}}}}}`),
			},
		},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: "main", Image: "nginx:1.25", ImagePullPolicy: corev1.PullIfNotPresent,
				Ports: []corev1.ContainerPort{{ContainerPort: 80, Protocol: corev1.ProtocolTCP}},
				Resources: corev1.ResourceRequirements{
					Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("200m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
				},
				VolumeMounts:             []corev1.VolumeMount{{Name: "kube-api-access-9zq4m", ReadOnly: true, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount"}},
				TerminationMessagePath:   "/dev/termination-log",
				TerminationMessagePolicy: corev1.TerminationMessageReadFile,
			}},
			Volumes: []corev1.Volume{{Name: "kube-api-access-9zq4m", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				Sources: []corev1.VolumeProjection{
					{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{ExpirationSeconds: ptr(int64(3607)), Path: "token"}},
					{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"}, Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
				},
				DefaultMode: ptr(int32(420)),
			}}}},
			RestartPolicy: corev1.RestartPolicyAlways, TerminationGracePeriodSeconds: ptr(int64(30)), DNSPolicy: corev1.DNSClusterFirst,
			ServiceAccountName: "default", NodeName: "kwok-node-3", SecurityContext: &corev1.PodSecurityContext{},
			SchedulerName: "default-scheduler", Priority: ptr(int32(0)), EnableServiceLinks: ptr(true),
			PreemptionPolicy: ptr(corev1.PreemptLowerPriority),
			ReadinessGates:   []corev1.PodReadinessGate{{ConditionType: "InPlaceUpdateReady"}},
			Tolerations: []corev1.Toleration{
				{Key: "kwok.x-k8s.io/node", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
				{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
				{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
			},
		},
		Status: corev1.PodStatus{
			Phase: corev1.PodRunning,
			Conditions: []corev1.PodCondition{condition("InPlaceUpdateReady"), condition(corev1.PodInitialized), condition(corev1.PodReady),
				condition(corev1.ContainersReady), condition(corev1.PodScheduled)},
			HostIP: "10.0.0.3", HostIPs: []corev1.HostIP{{IP: "10.0.0.3"}}, PodIP: "10.0.3.17", PodIPs: []corev1.PodIP{{IP: "10.0.3.17"}},
			StartTime: &started, QOSClass: corev1.PodQOSBurstable,
			ContainerStatuses: []corev1.ContainerStatus{{
				Name: "main", Ready: true, Started: ptr(true), Image: "nginx:1.25",
				ImageID:     "docker.io/library/nginx@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31",
				ContainerID: "containerd://5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f",
				State:       corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}},
			}},
		},
	}
}

// ptr is a pointer to v.
func ptr[T any](v T) *T { return &v }

// repeatedStream is a body that gives a stream over and over, endlessly.
type repeatedStream struct {
	stream []byte
	off    int
}

// Read gives the next bytes of the stream.
func (r *repeatedStream) Read(p []byte) (int, error) {
	n := copy(p, r.stream[r.off:])
	r.off = (r.off + n) % len(r.stream)
	return n, nil
}

// Close does nothing.
func (r *repeatedStream) Close() error { return nil }

// watchDecoder decodes a protobuf watch stream's body as client-go's rest
// client does (Request.Watch: the negotiated stream decoder, framer and
// object decoder of typed clients).
func watchDecoder(b testing.TB, body io.ReadCloser) *restclientwatch.Decoder {
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), protobufMediaType)
	if !ok || info.StreamSerializer == nil {
		b.Fatal("no protobuf stream serializer")
	}
	objects := scheme.Codecs.WithoutConversion().DecoderToVersion(info.Serializer, corev1.SchemeGroupVersion)
	events := streaming.NewDecoder(info.StreamSerializer.Framer.NewFrameReader(body), info.StreamSerializer.Serializer)
	return restclientwatch.NewDecoder(events, objects)
}

// wrappedBody is body as WrapTransport gives it for a protobuf watch.
func wrappedBody(b testing.TB, body io.ReadCloser) io.ReadCloser {
	next := roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {protobufWatch}}, Body: body, Request: req}, nil
	})
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, "http://apiserver.invalid/api/v1/pods?watch=true", nil)
	resp, err := WrapTransport(next).RoundTrip(req)
	if err != nil {
		b.Fatal(err)
	}
	return resp.Body
}

// BenchmarkDecodePodWatchEvent decodes the watch event of a kwok pod as
// client-go does, from the API server's bytes (plain) and through
// WrapTransport (wrapped: the rewrite included).
func BenchmarkDecodePodWatchEvent(b *testing.B) {
	var stream bytes.Buffer
	encodeEvent(b, &stream, watch.Modified, kwokPod(), corev1.SchemeGroupVersion)
	for _, wrap := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "wrapped"}[wrap], func(b *testing.B) {
			var body io.ReadCloser = &repeatedStream{stream: stream.Bytes()}
			if wrap {
				body = wrappedBody(b, body)
			}
			decoder := watchDecoder(b, body)
			b.ReportAllocs()
			b.ReportMetric(float64(stream.Len()), "frame-bytes")
			for b.Loop() {
				if _, obj, err := decoder.Decode(); err != nil || obj.(*corev1.Pod).Name != "sample-x7k2p" {
					b.Fatal(obj, err)
				}
			}
		})
	}
}

// BenchmarkRewritePodWatchFrame is the rewrite alone: reading a kwok
// pod's frame through WrapTransport.
func BenchmarkRewritePodWatchFrame(b *testing.B) {
	var stream bytes.Buffer
	encodeEvent(b, &stream, watch.Modified, kwokPod(), corev1.SchemeGroupVersion)
	body := wrappedBody(b, &repeatedStream{stream: stream.Bytes()})
	frame := make([]byte, stream.Len())
	var out int
	b.ReportAllocs()
	for b.Loop() {
		if _, err := io.ReadFull(body, frame[:4]); err != nil {
			b.Fatal(err)
		}
		n := int(frame[0])<<24 | int(frame[1])<<16 | int(frame[2])<<8 | int(frame[3])
		if _, err := io.ReadFull(body, frame[4:4+n]); err != nil {
			b.Fatal(err)
		}
		out = 4 + n
	}
	b.ReportMetric(float64(stream.Len()), "frame-bytes")
	b.ReportMetric(float64(out), "rewritten-bytes")
}

// BenchmarkRewritePodList is the rewrite of a list of 1,000 kwok pods.
func BenchmarkRewritePodList(b *testing.B) {
	list := &corev1.PodList{}
	for i := range 1000 {
		pod := kwokPod()
		pod.Name = fmt.Sprint("sample-", i)
		list.Items = append(list.Items, *pod)
	}
	encoded := encodeObject(b, list, corev1.SchemeGroupVersion)
	buf := make([]byte, len(encoded))
	b.ReportAllocs()
	b.SetBytes(int64(len(encoded)))
	var n int
	for b.Loop() {
		copy(buf, encoded)
		n = trimList(buf)
	}
	b.ReportMetric(float64(len(encoded)), "list-bytes")
	b.ReportMetric(float64(n), "rewritten-bytes")
}
