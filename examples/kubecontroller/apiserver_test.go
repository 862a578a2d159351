package kubecontroller

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
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
// CloneSet's spec bumps its metadata.generation. It counts the writes.
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

// checkUID refuses a merge or strategic merge patch that changes the uid.
func (a *apiServer) checkUID(ctx context.Context, c client.Client, obj client.Object, patch client.Patch) error {
	if patch.Type() != types.MergePatchType && patch.Type() != types.StrategicMergePatchType {
		return nil
	}
	data, err := patch.Data(obj)
	if err != nil {
		return err
	}
	var body struct {
		Metadata struct {
			UID *string `json:"uid"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(data, &body); err != nil || body.Metadata.UID == nil {
		return nil
	}
	cur := obj.DeepCopyObject().(client.Object)
	if err := c.Get(ctx, client.ObjectKeyFromObject(obj), cur); err != nil {
		return err
	}
	if types.UID(*body.Metadata.UID) != cur.GetUID() {
		gr := schemaGR(c, obj)
		return apierrors.NewInvalid(schemaGK(c, obj), obj.GetName(), field.ErrorList{
			field.Invalid(field.NewPath("metadata", "uid"), *body.Metadata.UID, "field is immutable ("+gr.String()+")"),
		})
	}
	return nil
}

func (a *apiServer) patch(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	if err := a.checkUID(ctx, c, obj, patch); err != nil {
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
	if err := a.checkUID(ctx, c, obj, patch); err != nil {
		return err
	}
	err := c.SubResource(sub).Patch(ctx, obj, patch, opts...)
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
