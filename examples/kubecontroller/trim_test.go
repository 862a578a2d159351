package kubecontroller

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller/wiretrim"
	"github.com/clonecore/cloneset/expectations"
	"github.com/clonecore/cloneset/model"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// filler sets every exported field of a value to something that is not
// its zero value: each string, number and time a different one, every
// pointer allocated, every list and map two entries long (a resource list
// holds storage), so that a conversion that reads a field a trim dropped
// gives a different result.
type filler struct{ n int }

var fillBase = time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)

func (f *filler) next() int { f.n++; return f.n }

func (f *filler) fill(v reflect.Value) {
	switch v.Interface().(type) {
	case metav1.Time:
		v.Set(reflect.ValueOf(metav1.NewTime(fillBase.Add(time.Duration(f.next()) * time.Second))))
		return
	case metav1.MicroTime:
		v.Set(reflect.ValueOf(metav1.NewMicroTime(fillBase.Add(time.Duration(f.next()) * time.Second))))
		return
	case resource.Quantity:
		v.Set(reflect.ValueOf(resource.MustParse(fmt.Sprintf("%dMi", f.next()))))
		return
	case intstr.IntOrString:
		v.Set(reflect.ValueOf(intstr.FromInt32(int32(f.next()))))
		return
	case runtime.RawExtension:
		v.Set(reflect.ValueOf(runtime.RawExtension{Raw: []byte(fmt.Sprintf(`{"spec":{"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"main","image":"web:%d"}]}}}}`, f.next()))}))
		return
	case metav1.FieldsV1:
		v.Set(reflect.ValueOf(metav1.FieldsV1{Raw: []byte(fmt.Sprintf(`{"f:metadata":{"f:labels":{"f:x%d":{}}}}`, f.next()))}))
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				f.fill(v.Field(i))
			}
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		f.fill(v.Elem())
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes([]byte(fmt.Sprintf("b%d", f.next())))
			return
		}
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			f.fill(s.Index(i))
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for _, key := range []string{"storage", fmt.Sprintf("k%d", f.next())} {
			k := reflect.New(v.Type().Key()).Elem()
			k.SetString(key)
			e := reflect.New(v.Type().Elem()).Elem()
			f.fill(e)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", f.next()))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(f.next()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(f.next()))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(f.next()))
	}
}

// filled returns a new object of T with every field set, controlled by
// the CloneSet web.
func filled[T any](f *filler) *T {
	obj := new(T)
	f.fill(reflect.ValueOf(obj).Elem())
	if o, ok := any(obj).(metav1.Object); ok {
		refs := o.GetOwnerReferences()
		refs[0].APIVersion, refs[0].Kind, refs[0].Name = "apps.kruise.io/v1beta1", "CloneSet", "web"
		o.SetOwnerReferences(refs)
	}
	return obj
}

// trimmed returns TrimForCache of a deep copy of obj, checking that it
// trims in place and that trimming again changes nothing.
func trimmed[T runtime.Object](t *testing.T, obj T) T {
	t.Helper()
	cp := obj.DeepCopyObject().(T)
	out, err := TrimForCache(cp)
	if err != nil {
		t.Fatal(err)
	}
	if any(out) != any(cp) {
		t.Errorf("%T: TrimForCache returned another object", obj)
	}
	again := cp.DeepCopyObject().(T)
	if _, err := TrimForCache(again); err != nil || !reflect.DeepEqual(again, cp) {
		t.Errorf("%T: trimming twice changed the object", obj)
	}
	if reflect.DeepEqual(any(cp), any(obj)) {
		t.Errorf("%T: the trim dropped nothing", obj)
	}
	if m, ok := any(cp).(metav1.Object); ok && len(m.GetManagedFields()) > 0 {
		t.Errorf("%T: the trim kept the managedFields", obj)
	}
	return cp
}

// sameReads checks that what a reconcile reads of a listed object (the
// expectations' view, the owner index, the event handler's CloneSet) is the
// same for obj and its trim.
func sameReads(t *testing.T, kind string, obj, trim client.Object) {
	t.Helper()
	view := func(o metav1.Object) expectations.Observation {
		objs := Objects{}
		switch x := o.(type) {
		case *corev1.Pod:
			objs.Pods = []corev1.Pod{*x}
		case *corev1.PersistentVolumeClaim:
			objs.PVCs = []corev1.PersistentVolumeClaim{*x}
		case *appsv1.ControllerRevision:
			objs.Revisions = []appsv1.ControllerRevision{*x}
		default:
			return expectations.Observation{}
		}
		return Lookup(objs)(expectations.Object{Kind: kind, Name: o.GetName()})
	}
	if a, b := view(obj), view(trim); a != b {
		t.Errorf("%s: the expectations see %+v, trimmed %+v", kind, a, b)
	}
	if a, b := ownerIndexValue(obj), ownerIndexValue(trim); !reflect.DeepEqual(a, b) {
		t.Errorf("%s: owner index %v, trimmed %v", kind, a, b)
	}
	a, okA := controllingCloneSet(obj)
	b, okB := controllingCloneSet(trim)
	if a != b || okA != okB || !okA {
		t.Errorf("%s: the handler asks for %v %v, trimmed %v %v (want the CloneSet web)", kind, a, okA, b, okB)
	}
}

// TestTrimKeepsWhatTheReconcilerReads: for a pod, a claim, a revision and
// a node with every field set, the conversions of Scenario (the model
// objects), the expectations' view, the owner index and the event handler
// give the same for the object and its trim, and the trim dropped
// something (the managedFields among it). A field the conversion reads that
// the trim drops fails it.
func TestTrimKeepsWhatTheReconcilerReads(t *testing.T) {
	f := &filler{}

	pod := filled[corev1.Pod](f)
	// A launch barrier on a container that is not ready, and the pod's
	// KruisePodReady gate without its condition: what the launch priority
	// and pod readiness reconcilers, which share the cache, look for.
	pod.Spec.Containers[0].Env[0].Name = model.EnvLaunchBarrier
	pod.Spec.Containers[0].Env[0].ValueFrom.ConfigMapKeyRef.Key = BarrierKey(5)
	pod.Status.ContainerStatuses[0].Name, pod.Status.ContainerStatuses[0].Ready = pod.Spec.Containers[0].Name, false
	pod.Labels[model.LabelInstanceID] = "x"
	pod.Spec.ReadinessGates[0].ConditionType = model.ConditionKruisePodReady
	pod.DeletionTimestamp = nil
	tp := trimmed(t, pod)
	if a, b := PodFromObject(pod), PodFromObject(tp); !reflect.DeepEqual(a, b) {
		t.Errorf("pod:\n%+v\ntrimmed:\n%+v", a, b)
	}
	sameReads(t, KindPod, pod, tp)
	if a, b := pendingPriorities(pod), pendingPriorities(tp); !reflect.DeepEqual(a, b) || len(a) == 0 {
		t.Errorf("pod: pending launch priorities %v, trimmed %v", a, b)
	}
	if a, b := waitsForBarrier(pod), waitsForBarrier(tp); a != b {
		t.Errorf("pod: waits for its barrier %v, trimmed %v", a, b)
	}
	if a, b := needsReadiness(pod), needsReadiness(tp); a != b || !a {
		t.Errorf("pod: needs its readiness condition %v, trimmed %v (want true)", a, b)
	}

	pvc := filled[corev1.PersistentVolumeClaim](f)
	tc := trimmed(t, pvc)
	if a, b := PVCFromObject(pvc), PVCFromObject(tc); !reflect.DeepEqual(a, b) || a.StorageRequest == "" {
		t.Errorf("claim:\n%+v\ntrimmed:\n%+v", a, b)
	}
	sameReads(t, KindPVC, pvc, tc)

	rev := filled[appsv1.ControllerRevision](f)
	rev.Data.Object = nil // the informer's revisions carry raw bytes
	tr := trimmed(t, rev)
	a, errA := RevisionFromObject(rev)
	b, errB := RevisionFromObject(tr)
	if errA != nil || errB != nil || !reflect.DeepEqual(a, b) || !a.HasTemplate {
		t.Errorf("revision: %v %v\n%+v\ntrimmed:\n%+v", errA, errB, a, b)
	}
	sameReads(t, KindRevision, rev, tr)

	node := filled[corev1.Node](f)
	tn := trimmed(t, node)
	if a, b := NodeFromObject(node), NodeFromObject(tn); !reflect.DeepEqual(a, b) {
		t.Errorf("node:\n%+v\ntrimmed:\n%+v", a, b)
	}
	store := newNodeStore(0)
	store.set(tn)
	if got := store.read(0, false, false).nodes; len(got) != 1 || !reflect.DeepEqual(got[0], NodeFromObject(node)) {
		t.Errorf("the node store holds %+v, want %+v", got, NodeFromObject(node))
	}

	cs := existingCloneSet()
	cs.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply}})
	want, err := CloneSetFromUnstructured(cs)
	if err != nil {
		t.Fatal(err)
	}
	tcs := trimmed(t, runtime.Object(cs)).(*unstructured.Unstructured)
	if got, err := CloneSetFromUnstructured(tcs); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("CloneSet: %v\n%+v\ntrimmed:\n%+v", err, want, got)
	}

	if out, err := TrimForCache(&corev1.Service{}); err != nil || !reflect.DeepEqual(out, &corev1.Service{}) {
		t.Errorf("another kind: %v %v", out, err)
	}
}

// TestWireTrimDropsOnlyWhatTrimForCacheDrops: a pod list with every field
// set, read through wiretrim's transport (which drops a pod's fields
// before the decode) and without, gives the same pods once TrimForCache
// has trimmed both: what the binary's cache client drops on the wire is
// dropped by the cache's transform anyway.
func TestWireTrimDropsOnlyWhatTrimForCacheDrops(t *testing.T) {
	f := &filler{}
	list := &corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}}
	for range 3 {
		list.Items = append(list.Items, *filled[corev1.Pod](f))
	}
	var info runtime.SerializerInfo
	for _, i := range clientgoscheme.Codecs.SupportedMediaTypes() {
		if i.MediaType == runtime.ContentTypeProtobuf {
			info = i
		}
	}
	if info.Serializer == nil {
		t.Fatal("client-go's scheme has no protobuf serializer")
	}
	var body bytes.Buffer
	if err := clientgoscheme.Codecs.EncoderForVersion(info.Serializer, corev1.SchemeGroupVersion).Encode(list, &body); err != nil {
		t.Fatal(err)
	}
	server := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {runtime.ContentTypeProtobuf}},
			Body: io.NopCloser(bytes.NewReader(body.Bytes())), Request: req}, nil
	})
	read := func(rt http.RoundTripper) []corev1.Pod {
		cs, err := kubernetes.NewForConfig(&rest.Config{Host: "http://apiserver", ContentConfig: rest.ContentConfig{ContentType: runtime.ContentTypeProtobuf},
			WrapTransport: func(http.RoundTripper) http.RoundTripper { return rt }})
		if err != nil {
			t.Fatal(err)
		}
		got, err := cs.CoreV1().Pods("").List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range got.Items {
			if _, err := TrimForCache(&got.Items[i]); err != nil {
				t.Fatal(err)
			}
		}
		return got.Items
	}
	plain, wire := read(server), read(wiretrim.WrapTransport(server))
	if len(plain) != len(list.Items) {
		t.Fatalf("read %d pods, want %d", len(plain), len(list.Items))
	}
	if !reflect.DeepEqual(plain, wire) {
		t.Errorf("the pods read through wiretrim differ once trimmed:\n%s", cmp.Diff(plain, wire))
	}
	if body.Len() == 0 || bytes.Equal(wiretrimmed(t, body.Bytes(), server), body.Bytes()) {
		t.Error("wiretrim left the list as it was: nothing checked")
	}
}

// wiretrimmed is body as wiretrim's transport passes it on.
func wiretrimmed(t *testing.T, body []byte, server http.RoundTripper) []byte {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://apiserver/api/v1/pods", nil)
	resp, err := wiretrim.WrapTransport(server).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// roundTripFunc is a RoundTripper of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
