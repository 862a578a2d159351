package kubecontroller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// apiServer is controller-runtime's fake client with the API server
// behaviors the fake leaves out and the controller relies on: a create gets
// a uid and a creationTimestamp (from the test's clock); a delete checks its
// uid and resourceVersion preconditions; a merge or strategic merge patch
// may not change metadata.uid (immutable); a write that changes a
// CloneSet's spec bumps its metadata.generation; a pod patch or update may
// change only the spec fields a current (1.32+) API server lets a pod
// update change, container resources not among them (an update that binds
// an unbound pod to a node stands for the scheduler's pods/binding), and
// the pods/resize subresource changes the containers' resources and
// nothing else. It counts the writes.
type apiServer struct {
	client.WithWatch
	mu     sync.Mutex
	now    func() time.Time
	uids   int
	writes map[string]int // "create pods/web-x", "delete pods/web-a", ...
	// attempts counts the creates and deletes sent, failed ones included.
	attempts map[string]int
	// doubles lists the writes made twice: a create of an object that
	// exists, a delete of an object already gone or terminating.
	doubles []string
}

func testScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}

func newAPIServer(now func() time.Time, objs ...client.Object) *apiServer {
	a := &apiServer{now: now, writes: map[string]int{}, attempts: map[string]int{}}
	statusOf := []client.Object{&corev1.Pod{}}
	b1 := &unstructured.Unstructured{}
	b1.SetGroupVersionKind(CloneSetV1beta1)
	a1 := &unstructured.Unstructured{}
	a1.SetGroupVersionKind(CloneSetV1alpha1)
	statusOf = append(statusOf, b1, a1)
	a.WithWatch = fake.NewClientBuilder().
		WithScheme(testScheme()).
		WithStatusSubresource(statusOf...).
		WithObjects(objs...).
		WithInterceptorFuncs(interceptor.Funcs{
			Create:           a.create,
			Delete:           a.delete,
			Patch:            a.patch,
			Update:           a.update,
			SubResourcePatch: a.subResourcePatch,
		}).
		Build()
	return a
}

func (a *apiServer) count(what string) {
	a.mu.Lock()
	a.writes[what]++
	a.mu.Unlock()
}

func (a *apiServer) attempt(what string) {
	a.mu.Lock()
	a.attempts[what]++
	a.mu.Unlock()
}

func (a *apiServer) double(what string) {
	a.mu.Lock()
	a.doubles = append(a.doubles, what)
	a.mu.Unlock()
}

// doubleWrites returns the writes made twice.
func (a *apiServer) doubleWrites() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.doubles...)
}

// createdTwice returns the names of the objects of a resource ("pods")
// created more than once, sorted.
func (a *apiServer) createdTwice(resource string) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for what, n := range a.writes {
		if name, ok := strings.CutPrefix(what, "create "+resource+"/"); ok && n > 1 {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// attemptCounts returns a copy of the attempt counts.
func (a *apiServer) attemptCounts() map[string]int {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make(map[string]int, len(a.attempts))
	for k, v := range a.attempts {
		out[k] = v
	}
	return out
}

// writesTo returns how often a write was made ("create pods/web-x").
func (a *apiServer) writesTo(what string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.writes[what]
}

func resourceOf(c client.Client, obj client.Object) string {
	gvk, err := c.GroupVersionKindFor(obj)
	if err != nil {
		return fmt.Sprintf("%T", obj)
	}
	switch gvk.Kind {
	case "Pod":
		return "pods"
	case "PersistentVolumeClaim":
		return "persistentvolumeclaims"
	case "ControllerRevision":
		return "controllerrevisions"
	case "CloneSet":
		return "clonesets"
	case "ImagePullJob":
		return "imagepulljobs"
	}
	return gvk.Kind
}

func (a *apiServer) create(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
	a.mu.Lock()
	a.uids++
	if obj.GetUID() == "" {
		obj.SetUID(types.UID(fmt.Sprintf("uid-%04d", a.uids)))
	}
	a.mu.Unlock()
	if ct := obj.GetCreationTimestamp(); ct.IsZero() {
		obj.SetCreationTimestamp(metav1.NewTime(a.now().Truncate(time.Second)))
	}
	a.attempt("create " + resourceOf(c, obj) + "/" + obj.GetName())
	if cur := obj.DeepCopyObject().(client.Object); c.Get(ctx, client.ObjectKeyFromObject(obj), cur) == nil {
		a.double("create " + resourceOf(c, obj) + "/" + obj.GetName() + ": it exists")
	}
	err := c.Create(ctx, obj, opts...)
	if err == nil {
		a.count("create " + resourceOf(c, obj) + "/" + obj.GetName())
	}
	return err
}

func (a *apiServer) delete(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
	a.attempt("delete " + resourceOf(c, obj) + "/" + obj.GetName())
	cur := obj.DeepCopyObject().(client.Object)
	switch err := c.Get(ctx, client.ObjectKeyFromObject(obj), cur); {
	case apierrors.IsNotFound(err):
		a.double("delete " + resourceOf(c, obj) + "/" + obj.GetName() + ": it is gone")
	case err == nil && cur.GetDeletionTimestamp() != nil:
		a.double("delete " + resourceOf(c, obj) + "/" + obj.GetName() + ": it is terminating")
	}
	do := &client.DeleteOptions{}
	do.ApplyOptions(opts)
	if p := do.Preconditions; p != nil {
		cur := obj.DeepCopyObject().(client.Object)
		if err := c.Get(ctx, client.ObjectKeyFromObject(obj), cur); err != nil {
			return err
		}
		if p.UID != nil && *p.UID != cur.GetUID() {
			return apierrors.NewConflict(schemaGR(c, obj), obj.GetName(), fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, cur.GetUID()))
		}
		if p.ResourceVersion != nil && *p.ResourceVersion != cur.GetResourceVersion() {
			return apierrors.NewConflict(schemaGR(c, obj), obj.GetName(), fmt.Errorf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *p.ResourceVersion, cur.GetResourceVersion()))
		}
	}
	err := c.Delete(ctx, obj, opts...)
	if err == nil {
		a.count("delete " + resourceOf(c, obj) + "/" + obj.GetName())
	}
	return err
}

// checkPreconditions refuses, as kube-apiserver does, a merge or strategic
// merge patch that changes the uid (invalid) or names a resourceVersion
// other than the stored one (a conflict).
func (a *apiServer) checkPreconditions(ctx context.Context, c client.Client, obj client.Object, patch client.Patch) error {
	if patch.Type() != types.MergePatchType && patch.Type() != types.StrategicMergePatchType {
		return nil
	}
	data, err := patch.Data(obj)
	if err != nil {
		return err
	}
	var body struct {
		Metadata struct {
			UID             *string `json:"uid"`
			ResourceVersion *string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(data, &body); err != nil || body.Metadata.UID == nil && body.Metadata.ResourceVersion == nil {
		return nil
	}
	cur := obj.DeepCopyObject().(client.Object)
	if err := c.Get(ctx, client.ObjectKeyFromObject(obj), cur); err != nil {
		return err
	}
	if body.Metadata.UID != nil && types.UID(*body.Metadata.UID) != cur.GetUID() {
		gr := schemaGR(c, obj)
		return apierrors.NewInvalid(schemaGK(c, obj), obj.GetName(), field.ErrorList{
			field.Invalid(field.NewPath("metadata", "uid"), *body.Metadata.UID, "field is immutable ("+gr.String()+")"),
		})
	}
	if rv := body.Metadata.ResourceVersion; rv != nil && *rv != "" && *rv != cur.GetResourceVersion() {
		return apierrors.NewConflict(schemaGR(c, obj), obj.GetName(), errors.New("the object has been modified; please apply your changes to the latest version and try again"))
	}
	return nil
}

func (a *apiServer) patch(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	if err := a.checkPreconditions(ctx, c, obj, patch); err != nil {
		return err
	}
	if cur, next, err := patchedPod(ctx, c, obj, patch); err != nil || next != nil && podUpdateForbidden(cur, next) {
		if err == nil {
			err = forbiddenPodUpdate(next.Name)
		}
		return err
	}
	before := a.cloneSetSpec(ctx, c, obj)
	err := c.Patch(ctx, obj, patch, opts...)
	if err == nil {
		a.count("patch " + resourceOf(c, obj) + "/" + obj.GetName())
		err = a.bumpGeneration(ctx, c, obj, before)
	}
	return err
}

func (a *apiServer) update(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
	if next, ok := obj.(*corev1.Pod); ok {
		cur := &corev1.Pod{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(obj), cur); err == nil {
			check := next
			if cur.Spec.NodeName == "" && next.Spec.NodeName != "" {
				// The scheduler's binding (pods/binding), which the tests
				// play with an update of an unbound pod.
				check = next.DeepCopy()
				check.Spec.NodeName = ""
			}
			if podUpdateForbidden(cur, check) {
				return forbiddenPodUpdate(next.Name)
			}
		}
	}
	before := a.cloneSetSpec(ctx, c, obj)
	err := c.Update(ctx, obj, opts...)
	if err == nil {
		a.count("update " + resourceOf(c, obj) + "/" + obj.GetName())
		err = a.bumpGeneration(ctx, c, obj, before)
	}
	return err
}

// cloneSetSpec returns the spec of the CloneSet obj names, as stored (nil
// for other objects).
func (a *apiServer) cloneSetSpec(ctx context.Context, c client.Client, obj client.Object) any {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || u.GetKind() != "CloneSet" {
		return nil
	}
	cur := u.DeepCopy()
	if err := c.Get(ctx, client.ObjectKeyFromObject(obj), cur); err != nil {
		return nil
	}
	return cur.Object["spec"]
}

// bumpGeneration increments a CloneSet's generation when its spec changed.
func (a *apiServer) bumpGeneration(ctx context.Context, c client.Client, obj client.Object, before any) error {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || u.GetKind() != "CloneSet" || reflect.DeepEqual(before, u.Object["spec"]) {
		return nil
	}
	u.SetGeneration(u.GetGeneration() + 1)
	return c.Update(ctx, u)
}

func (a *apiServer) subResourcePatch(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	if err := a.checkPreconditions(ctx, c, obj, patch); err != nil {
		return err
	}
	var err error
	if sub == "resize" {
		err = resizePod(ctx, c, obj, patch)
	} else {
		err = c.SubResource(sub).Patch(ctx, obj, patch, opts...)
	}
	if err == nil {
		a.count("patch " + resourceOf(c, obj) + "/" + sub + "/" + obj.GetName())
	}
	return err
}

func schemaGK(c client.Client, obj client.Object) schema.GroupKind {
	gvk, _ := c.GroupVersionKindFor(obj)
	return gvk.GroupKind()
}

func schemaGR(c client.Client, obj client.Object) schema.GroupResource {
	gk := schemaGK(c, obj)
	return schema.GroupResource{Group: gk.Group, Resource: resourceOf(c, obj)}
}

// podUpdateForbiddenFields is the API server's message for a pod update that
// changes a spec field an update may not change.
const podUpdateForbiddenFields = "pod updates may not change fields other than `spec.containers[*].image`," +
	"`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations)," +
	"`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"

func forbiddenPodUpdate(name string) error {
	return apierrors.NewInvalid(schema.GroupKind{Kind: "Pod"}, name, field.ErrorList{
		field.Forbidden(field.NewPath("spec"), podUpdateForbiddenFields),
	})
}

// patchedPod returns, for a merge or strategic merge patch of a pod, the
// stored pod and the pod the patch would make of it (nil, nil for any other
// object or patch type, or when the patch does not apply: the fake client
// then answers as it does).
func patchedPod(ctx context.Context, c client.Client, obj client.Object, patch client.Patch) (cur, next *corev1.Pod, err error) {
	if _, ok := obj.(*corev1.Pod); !ok {
		return nil, nil, nil
	}
	cur = &corev1.Pod{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(obj), cur); err != nil {
		return nil, nil, err
	}
	data, err := patch.Data(obj)
	if err != nil {
		return nil, nil, err
	}
	orig, err := json.Marshal(cur)
	if err != nil {
		return nil, nil, err
	}
	var out []byte
	switch patch.Type() {
	case types.StrategicMergePatchType:
		out, err = strategicpatch.StrategicMergePatch(orig, data, &corev1.Pod{})
	case types.MergePatchType:
		out, err = mergePatch(orig, data)
	default: // JSON patches of pods: the library sends none
		return nil, nil, nil
	}
	next = &corev1.Pod{}
	if err != nil || json.Unmarshal(out, next) != nil {
		return nil, nil, nil
	}
	return cur, next, nil
}

// mergePatch applies a JSON merge patch (RFC 7386) to a JSON document.
func mergePatch(doc, patch []byte) ([]byte, error) {
	var d, p any
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(patch, &p); err != nil {
		return nil, err
	}
	var merge func(target, patch any) any
	merge = func(target, patch any) any {
		pm, ok := patch.(map[string]any)
		if !ok {
			return patch
		}
		tm, ok := target.(map[string]any)
		if !ok {
			tm = map[string]any{}
		}
		for k, v := range pm {
			if v == nil {
				delete(tm, k)
			} else {
				tm[k] = merge(tm[k], v)
			}
		}
		return tm
	}
	return json.Marshal(merge(d, p))
}

// podUpdateForbidden applies the pod update validation of the API server:
// the new spec may differ from the stored one only by container and init
// container images, activeDeadlineSeconds set or lowered, tolerations
// added, terminationGracePeriodSeconds set to 1 where it was negative, and
// scheduling gates removed.
func podUpdateForbidden(cur, next *corev1.Pod) bool {
	old, spec := cur.Spec.DeepCopy(), next.Spec.DeepCopy()
	keepImages := func(old, now []corev1.Container) {
		if len(old) != len(now) {
			return
		}
		for i := range now {
			if now[i].Name == old[i].Name && now[i].Image != "" {
				now[i].Image = old[i].Image
			}
		}
	}
	keepImages(old.Containers, spec.Containers)
	keepImages(old.InitContainers, spec.InitContainers)
	if d := spec.ActiveDeadlineSeconds; d != nil && *d > 0 && (old.ActiveDeadlineSeconds == nil || *d <= *old.ActiveDeadlineSeconds) {
		spec.ActiveDeadlineSeconds = old.ActiveDeadlineSeconds
	}
	if subset(old.Tolerations, spec.Tolerations) {
		spec.Tolerations = old.Tolerations
	}
	if g := old.TerminationGracePeriodSeconds; g != nil && *g < 0 && spec.TerminationGracePeriodSeconds != nil && *spec.TerminationGracePeriodSeconds == 1 {
		spec.TerminationGracePeriodSeconds = g
	}
	if subset(spec.SchedulingGates, old.SchedulingGates) {
		spec.SchedulingGates = old.SchedulingGates
	}
	return !apiequality.Semantic.DeepEqual(old, spec)
}

// subset reports whether every element of a is in b.
func subset[T any](a, b []T) bool {
	for _, x := range a {
		found := false
		for _, y := range b {
			found = found || apiequality.Semantic.DeepEqual(x, y)
		}
		if !found {
			return false
		}
	}
	return true
}

// resizePod is the pods/resize subresource: of the patched pod only the
// containers' resources and resize policies are kept (the real subresource
// drops every other change); the containers must stay the same, and only
// cpu and memory may change.
func resizePod(ctx context.Context, c client.Client, obj client.Object, patch client.Patch) error {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return apierrors.NewNotFound(schema.GroupResource{Resource: resourceOf(c, obj) + "/resize"}, obj.GetName())
	}
	cur, next, err := patchedPod(ctx, c, obj, patch)
	if err != nil {
		return err
	}
	if next == nil {
		return apierrors.NewBadRequest("the resize patch does not apply")
	}
	if next.ResourceVersion != cur.ResourceVersion {
		return apierrors.NewConflict(schema.GroupResource{Resource: "pods"}, cur.Name, fmt.Errorf("the object has been modified"))
	}
	resized := cur.DeepCopy()
	if len(next.Spec.Containers) != len(cur.Spec.Containers) {
		return apierrors.NewInvalid(schema.GroupKind{Kind: "Pod"}, cur.Name, field.ErrorList{field.Forbidden(field.NewPath("spec", "containers"), "containers may not be added or removed")})
	}
	for i, n := range next.Spec.Containers {
		path := field.NewPath("spec", "containers").Index(i)
		o := &resized.Spec.Containers[i]
		if n.Name != o.Name {
			return apierrors.NewInvalid(schema.GroupKind{Kind: "Pod"}, cur.Name, field.ErrorList{field.Forbidden(path.Child("name"), "containers may not be renamed or reordered")})
		}
		if !onlyCPUAndMemory(o.Resources, n.Resources) {
			return apierrors.NewInvalid(schema.GroupKind{Kind: "Pod"}, cur.Name, field.ErrorList{field.Forbidden(path.Child("resources"), "only cpu and memory resources are mutable")})
		}
		o.Resources, o.ResizePolicy = n.Resources, n.ResizePolicy
	}
	if err := c.Update(ctx, resized); err != nil {
		return err
	}
	*pod = *resized
	return nil
}

// onlyCPUAndMemory reports whether two resource requirements differ only in
// cpu and memory.
func onlyCPUAndMemory(a, b corev1.ResourceRequirements) bool {
	strip := func(r corev1.ResourceRequirements) corev1.ResourceRequirements {
		r = *r.DeepCopy()
		for _, l := range []corev1.ResourceList{r.Limits, r.Requests} {
			delete(l, corev1.ResourceCPU)
			delete(l, corev1.ResourceMemory)
		}
		if len(r.Limits) == 0 {
			r.Limits = nil
		}
		if len(r.Requests) == 0 {
			r.Requests = nil
		}
		return r
	}
	return apiequality.Semantic.DeepEqual(strip(a), strip(b))
}
