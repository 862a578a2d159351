package kubecontroller

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The CloneSet kinds this controller reads: the OpenKruise API module is not
// a dependency, so the CloneSet is an unstructured object of either version.
var (
	CloneSetV1beta1  = schema.GroupVersionKind{Group: "apps.kruise.io", Version: "v1beta1", Kind: "CloneSet"}
	CloneSetV1alpha1 = schema.GroupVersionKind{Group: "apps.kruise.io", Version: "v1alpha1", Kind: "CloneSet"}
)

// ImagePullJobV1beta1 is OpenKruise's ImagePullJob in the version the
// image pre-download writes and lists (unstructured, like the CloneSet).
var ImagePullJobV1beta1 = schema.GroupVersionKind{Group: "apps.kruise.io", Version: "v1beta1", Kind: "ImagePullJob"}

// Objects are the objects of one CloneSet as a controller lists them from its
// cache: the CloneSet, and the pods, claims and revisions of its namespace
// (Scenario keeps those that belong to it) and the nodes. As
// Reconciler.List returns them they share their maps, slices and pointers
// with the cache's objects (see Reconciler.CopyListed): read-only.
type Objects struct {
	CloneSet  *unstructured.Unstructured
	Pods      []corev1.Pod
	PVCs      []corev1.PersistentVolumeClaim
	Revisions []appsv1.ControllerRevision
	Nodes     []corev1.Node
	// ImagePullJobs are the ImagePullJobs of the namespace (listed only with
	// the PreDownloadImageForInPlaceUpdate gate on and the kind served).
	ImagePullJobs []unstructured.Unstructured
}

// ScenarioOptions are the parts of a scenario that are not objects.
type ScenarioOptions struct {
	// Now is the planner's clock.
	Now time.Time
	// Gates are the controller's feature gates (model.DefaultFeatureGates
	// when nil).
	Gates *model.FeatureGates
	// Controller are the controller-wide flags.
	Controller model.ControllerFlags
	// SkipBudgetRule accepts a CloneSet that breaks only the webhook's budget
	// rule, as manifest.Options.SkipBudgetRule does (model.StoredOptions).
	SkipBudgetRule bool
	// Cache, when set, converts only the objects whose uid or
	// resourceVersion changed since the previous call with the same cache,
	// and returns the same model objects for the others.
	Cache *ConversionCache
}

// InvalidCloneSetError is the error of Scenario for a CloneSet the library
// refuses: a field of the wrong type, or a spec that OpenKruise's admission
// webhook would refuse (model.ValidateStored; for example maxUnavailable and
// maxSurge both 0). Nothing can be planned for it until it changes.
type InvalidCloneSetError struct {
	// Namespace and Name name the CloneSet.
	Namespace, Name string
	// Problems say what is wrong, a field each, starting with the field's
	// path: "spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid
	// value: 0: maxUnavailable and maxSurge should not both be less than 1".
	Problems []string
}

// Error names the CloneSet and its problems.
func (e *InvalidCloneSetError) Error() string {
	return fmt.Sprintf("CloneSet %s/%s: %s", e.Namespace, e.Name, strings.Join(e.Problems, "; "))
}

// invalidCloneSet wraps an error of CloneSetFromUnstructured (the errors of
// the fields, joined, each naming the object first).
func invalidCloneSet(u *unstructured.Unstructured, err error) *InvalidCloneSetError {
	out := &InvalidCloneSetError{Namespace: u.GetNamespace(), Name: u.GetName()}
	errs := []error{err}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs = joined.Unwrap()
	}
	for _, e := range errs {
		out.Problems = append(out.Problems, strings.TrimPrefix(e.Error(), cloneSetSource(u)+": "))
	}
	if out.Namespace == "" {
		out.Namespace = model.DefaultNamespace
	}
	return out
}

// cloneSetSource names a CloneSet in the errors of its conversion.
func cloneSetSource(u *unstructured.Unstructured) string {
	return "CloneSet " + u.GetNamespace() + "/" + u.GetName()
}

// Scenario converts client objects into the library's model, exactly as the
// manifest loader reads the same objects written as JSON. It only reads
// objs, and the model objects it returns share the Labels and Annotations
// maps of the pods, claims, revisions and nodes (not copied: a reconcile
// at 10,000 pods would copy them all again); everything else is the model's
// own. Neither may be written to while objs come from a cache, and the
// library's planner and requests do not write to their input. The CloneSet gets
// its webhook defaults (and, for v1alpha1, the conversion to the internal
// shape) and must pass the stored-object validation (an
// *InvalidCloneSetError otherwise); pods and claims that belong to something
// else are listed in SetAside; revisions of another namespace too, and
// ImagePullJobs the CloneSet does not control (manifest.ImagePullJobLeftOut).
func Scenario(objs Objects, opts ScenarioOptions) (*model.Scenario, error) {
	if objs.CloneSet == nil {
		return nil, errors.New("no CloneSet")
	}
	convert := func() (*model.CloneSet, error) {
		cs, err := CloneSetFromUnstructured(objs.CloneSet)
		if err != nil {
			return nil, invalidCloneSet(objs.CloneSet, err)
		}
		model.DefaultStored(cs)
		return cs, nil
	}
	var cs *model.CloneSet
	var err error
	if opts.Cache != nil {
		opts.Cache.begin()
		cs, err = opts.Cache.cloneSet(objs.CloneSet, convert)
	} else {
		cs, err = convert()
	}
	if err != nil {
		return nil, err
	}
	q := map[string]model.Quantity{}
	pods := make([]*model.Pod, len(objs.Pods))
	for i := range objs.Pods {
		if opts.Cache != nil {
			pods[i] = opts.Cache.pod(&objs.Pods[i], q)
		} else {
			pods[i] = podFromObject(&objs.Pods[i], q)
		}
		if pods[i].Namespace == "" {
			pods[i].Namespace = cs.Namespace
		}
	}
	var problems []string
	for _, fe := range (model.StoredOptions{SkipBudgetRule: opts.SkipBudgetRule}).Validate(cs, pods) {
		problems = append(problems, fe.Error())
	}
	if len(problems) > 0 {
		return nil, &InvalidCloneSetError{Namespace: cs.Namespace, Name: cs.Name, Problems: problems}
	}

	scn := &model.Scenario{Now: opts.Now, Gates: model.DefaultFeatureGates(), Controller: opts.Controller, CloneSet: cs}
	if opts.Gates != nil {
		scn.Gates = *opts.Gates
	}
	for _, p := range pods {
		if reason := manifest.PodLeftOut(cs, p); reason != "" {
			scn.SetAside = append(scn.SetAside, model.SetAside{Kind: "Pod", Name: p.Name, Reason: reason})
			continue
		}
		scn.Pods = append(scn.Pods, p)
	}
	for i := range objs.PVCs {
		var c *model.PVC
		if opts.Cache != nil {
			c = opts.Cache.pvc(&objs.PVCs[i])
		} else {
			c = PVCFromObject(&objs.PVCs[i])
		}
		if c.Namespace == "" {
			c.Namespace = cs.Namespace
		}
		if reason := manifest.PVCLeftOut(cs, c, scn.Pods); reason != "" {
			scn.SetAside = append(scn.SetAside, model.SetAside{Kind: "PersistentVolumeClaim", Name: c.Name, Reason: reason})
			continue
		}
		scn.PVCs = append(scn.PVCs, c)
	}
	for i := range objs.Revisions {
		o := &objs.Revisions[i]
		var r *model.Revision
		var err error
		if opts.Cache != nil {
			r, err = opts.Cache.revision(o)
		} else {
			r, err = RevisionFromObject(o)
		}
		if err != nil {
			return nil, err
		}
		if ns := o.Namespace; ns != "" && ns != cs.Namespace {
			scn.SetAside = append(scn.SetAside, model.SetAside{Kind: "ControllerRevision", Name: r.Name,
				Reason: fmt.Sprintf("in namespace %q, the CloneSet is in %q", ns, cs.Namespace)})
			continue
		}
		scn.Revisions = append(scn.Revisions, r)
	}
	for i := range objs.ImagePullJobs {
		j := ImagePullJobFromUnstructured(&objs.ImagePullJobs[i])
		if j.Namespace == "" {
			j.Namespace = cs.Namespace
		}
		if reason := manifest.ImagePullJobLeftOut(cs, j); reason != "" {
			scn.SetAside = append(scn.SetAside, model.SetAside{Kind: "ImagePullJob", Name: j.Name, Reason: reason})
			continue
		}
		scn.ImagePullJobs = append(scn.ImagePullJobs, j)
	}
	for i := range objs.Nodes {
		if opts.Cache != nil {
			scn.Nodes = append(scn.Nodes, opts.Cache.node(&objs.Nodes[i]))
		} else {
			scn.Nodes = append(scn.Nodes, NodeFromObject(&objs.Nodes[i]))
		}
	}
	if opts.Cache != nil {
		opts.Cache.sweep()
	}
	return scn, nil
}

// --- typed objects ---------------------------------------------------------

// nonEmpty returns m, or nil when m is empty (a JSON encoder omits it): m
// itself, not a copy, so the model object shares it with the client object
// (read-only, see Scenario).
func nonEmpty(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

// timeOf returns a metav1 time as the API carries it: UTC, whole seconds
// (zero when unset).
func timeOf(t metav1.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC().Truncate(time.Second)
}

func timePtr(t *metav1.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return timeOf(*t)
}

func owners(refs []metav1.OwnerReference) []model.OwnerReference {
	if len(refs) == 0 {
		return nil
	}
	out := make([]model.OwnerReference, len(refs))
	for i, r := range refs {
		out[i] = model.OwnerReference{
			APIVersion: r.APIVersion, Kind: r.Kind, Name: r.Name, UID: string(r.UID),
			Controller: r.Controller != nil && *r.Controller,
		}
	}
	return out
}

// PodFromObject converts a Pod into the model's pod.
func PodFromObject(p *corev1.Pod) *model.Pod { return podFromObject(p, nil) }

func podFromObject(p *corev1.Pod, q map[string]model.Quantity) *model.Pod {
	out := &model.Pod{
		Name:              p.Name,
		Namespace:         p.Namespace,
		UID:               string(p.UID),
		ResourceVersion:   p.ResourceVersion,
		Labels:            nonEmpty(p.Labels),
		Annotations:       nonEmpty(p.Annotations),
		CreationTimestamp: timeOf(p.CreationTimestamp),
		DeletionTimestamp: timePtr(p.DeletionTimestamp),
		OwnerReferences:   owners(p.OwnerReferences),
		Spec:              podSpec(&p.Spec, q),
	}
	if len(p.Finalizers) > 0 {
		out.Finalizers = append([]string(nil), p.Finalizers...)
	}
	st := &p.Status
	out.Status.Phase = string(st.Phase)
	for _, c := range st.Conditions {
		out.Status.Conditions = append(out.Status.Conditions, model.PodCondition{
			Type: string(c.Type), Status: string(c.Status), Reason: c.Reason, Message: c.Message,
			LastTransitionTime: timeOf(c.LastTransitionTime),
		})
	}
	out.Status.ContainerStatuses = containerStatuses(st.ContainerStatuses, q)
	out.Status.InitContainerStatuses = containerStatuses(st.InitContainerStatuses, q)
	return out
}

func podSpec(s *corev1.PodSpec, q map[string]model.Quantity) model.PodSpec {
	out := model.PodSpec{
		NodeName:       s.NodeName,
		Containers:     containers(s.Containers, q),
		InitContainers: containers(s.InitContainers, q),
		RestartPolicy:  string(s.RestartPolicy),
	}
	for _, g := range s.ReadinessGates {
		out.ReadinessGates = append(out.ReadinessGates, string(g.ConditionType))
	}
	for _, c := range s.TopologySpreadConstraints {
		out.TopologySpreadConstraints = append(out.TopologySpreadConstraints, model.TopologySpreadConstraint{TopologyKey: c.TopologyKey})
	}
	for _, v := range s.Volumes {
		out.Volumes = append(out.Volumes, v.Name)
	}
	if s.ActiveDeadlineSeconds != nil {
		x := *s.ActiveDeadlineSeconds
		out.ActiveDeadlineSeconds = &x
	}
	return out
}

func containers(list []corev1.Container, q map[string]model.Quantity) []model.Container {
	if len(list) == 0 {
		return nil
	}
	out := make([]model.Container, len(list))
	for i := range list {
		c := &list[i]
		mc := model.Container{Name: c.Name, Image: c.Image, Resources: resources(&c.Resources, q)}
		if c.RestartPolicy != nil {
			mc.RestartPolicy = string(*c.RestartPolicy)
		}
		for _, e := range c.Env {
			ev := model.EnvVar{Name: e.Name, Value: e.Value, HasValue: e.Value != ""}
			if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil {
				ev.FieldPath = e.ValueFrom.FieldRef.FieldPath
			}
			if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil {
				ev.ConfigMapName, ev.ConfigMapKey = e.ValueFrom.ConfigMapKeyRef.Name, e.ValueFrom.ConfigMapKeyRef.Key
			}
			mc.Env = append(mc.Env, ev)
		}
		for _, r := range c.ResizePolicy {
			mc.ResizePolicy = append(mc.ResizePolicy, model.ContainerResizePolicy{
				ResourceName: string(r.ResourceName), RestartPolicy: string(r.RestartPolicy),
			})
		}
		out[i] = mc
	}
	return out
}

func resources(r *corev1.ResourceRequirements, q map[string]model.Quantity) model.ResourceRequirements {
	return model.ResourceRequirements{Limits: quantities(r.Limits, q), Requests: quantities(r.Requests, q)}
}

// quantities converts a resource list; q caches parsed quantities by text
// (nil: no cache).
func quantities(l corev1.ResourceList, q map[string]model.Quantity) map[string]model.Quantity {
	if len(l) == 0 {
		return nil
	}
	out := make(map[string]model.Quantity, len(l))
	for name, v := range l {
		text := v.String()
		mq, ok := q[text]
		if !ok {
			var err error
			if mq, err = model.ParseQuantity(text); err != nil {
				continue // a resource.Quantity always renders a valid quantity
			}
			if q != nil {
				q[text] = mq
			}
		}
		out[string(name)] = mq
	}
	return out
}

func containerStatuses(list []corev1.ContainerStatus, q map[string]model.Quantity) []model.ContainerStatus {
	if len(list) == 0 {
		return nil
	}
	out := make([]model.ContainerStatus, len(list))
	for i := range list {
		c := &list[i]
		out[i] = model.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: c.ImageID, ContainerID: c.ContainerID,
			Ready: c.Ready, RestartCount: c.RestartCount,
		}
		if c.Resources != nil {
			r := resources(c.Resources, q)
			out[i].Resources = &r
		}
	}
	return out
}

// PVCFromObject converts a PersistentVolumeClaim into the model's claim.
func PVCFromObject(c *corev1.PersistentVolumeClaim) *model.PVC {
	out := &model.PVC{
		Name:              c.Name,
		Namespace:         c.Namespace,
		UID:               string(c.UID),
		ResourceVersion:   c.ResourceVersion,
		Labels:            nonEmpty(c.Labels),
		Annotations:       nonEmpty(c.Annotations),
		OwnerReferences:   owners(c.OwnerReferences),
		DeletionTimestamp: timePtr(c.DeletionTimestamp),
	}
	if s, ok := c.Spec.Resources.Requests[corev1.ResourceStorage]; ok {
		out.StorageRequest = s.String()
	}
	return out
}

// NodeFromObject converts a Node into the model's node.
func NodeFromObject(n *corev1.Node) *model.Node {
	return &model.Node{Name: n.Name, Labels: nonEmpty(n.Labels)}
}

// RevisionFromObject converts a ControllerRevision into the model's revision:
// its data (the CloneSet patch upstream stores, JSON) is decoded once, and
// the template under data.spec.template is read as the loader reads it.
func RevisionFromObject(r *appsv1.ControllerRevision) (*model.Revision, error) {
	out := &model.Revision{
		Name:              r.Name,
		UID:               string(r.UID),
		ResourceVersion:   r.ResourceVersion,
		Revision:          r.Revision,
		CreationTimestamp: timeOf(r.CreationTimestamp),
		Labels:            nonEmpty(r.Labels),
		Annotations:       nonEmpty(r.Annotations),
	}
	var data map[string]any
	switch {
	case len(r.Data.Raw) > 0:
		// Numbers as written (json.Number): a float64 would turn 1000000 into
		// 1e+06 on its way through the loader, which no integer field reads.
		dec := json.NewDecoder(bytes.NewReader(r.Data.Raw))
		dec.UseNumber()
		if err := dec.Decode(&data); err != nil {
			return nil, fmt.Errorf("ControllerRevision %s/%s: data: %v", r.Namespace, r.Name, err)
		}
	case r.Data.Object != nil:
		u, ok := r.Data.Object.(*unstructured.Unstructured)
		if !ok {
			return nil, fmt.Errorf("ControllerRevision %s/%s: data: an object of type %T (want raw JSON)", r.Namespace, r.Name, r.Data.Object)
		}
		data = u.Object
	}
	spec, _ := data["spec"].(map[string]any)
	tpl, ok := spec["template"].(map[string]any)
	if !ok {
		return out, nil
	}
	t, err := manifest.DecodeTemplateTree(tpl, "ControllerRevision "+r.Namespace+"/"+r.Name+" data.spec.template")
	if err != nil {
		return nil, err
	}
	out.Template, out.HasTemplate = t, t.Raw != nil
	return out, nil
}

// ImagePullJobFromUnstructured converts an ImagePullJob (either version)
// into the model's: its name, namespace, uid, resourceVersion, labels,
// owner references and spec.image, what the manifest loader reads of one.
func ImagePullJobFromUnstructured(u *unstructured.Unstructured) *model.ImagePullJob {
	image, _, _ := unstructured.NestedString(u.Object, "spec", "image")
	return &model.ImagePullJob{
		Name: u.GetName(), Namespace: u.GetNamespace(), UID: string(u.GetUID()), ResourceVersion: u.GetResourceVersion(),
		Labels: nonEmpty(u.GetLabels()), OwnerReferences: owners(u.GetOwnerReferences()), Image: image,
	}
}

// --- the CloneSet ------------------------------------------------------------

// CloneSetFromUnstructured converts a CloneSet of either API version into
// the model as written: no defaults, no conversion (Scenario applies them).
// The unstructured object is read by the library's own field rules
// (manifest.DecodeCloneSetTree), so it gives the model the manifest loader
// gives.
func CloneSetFromUnstructured(u *unstructured.Unstructured) (*model.CloneSet, error) {
	return manifest.DecodeCloneSetTree(u.Object, cloneSetSource(u))
}
