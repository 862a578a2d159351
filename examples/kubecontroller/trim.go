package kubecontroller

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TrimForCache is a transform for the informers of a manager's cache
// (cache.Options.DefaultTransform): it keeps of each pod, claim, revision
// and node only what the Reconciler reads, so that the cache holds less.
//
// Kept are the metadata (name, namespace, uid, resourceVersion,
// generation, labels, annotations, owner references, finalizers, creation
// and deletion timestamps; managedFields dropped, which is most of a pod's
// metadata once the scheduler, the kubelet and the controller have written
// it) and, of a pod, what Scenario converts (PodFromObject): the node, the
// restart policy, the readiness gates, the topology spread keys, the
// volumes' names, the active deadline, and of each container its name,
// image, resources, restart policy, environment and resize policy; the
// phase, the conditions and the container statuses' name, image, image id,
// container id, readiness, restart count and resources. A claim keeps its
// storage request, a revision its data and revision number, a node its
// metadata alone. A CloneSet (unstructured) loses its managedFields. Other
// objects pass as they are. It trims the object it is given, in place (the
// informer's own, just decoded), and is idempotent.
//
// The binary's cache client drops part of it before the decode
// (wiretrim.WrapTransport: the managedFields, a node's spec and status, the
// fields of a pod's spec and status kept here by none): a field kept here
// must be kept there too (TestWireTrimDropsOnlyWhatTrimForCacheDrops).
//
// TestTrimKeepsWhatTheReconcilerReads checks it on objects with every field
// set: Scenario's conversions, the expectations' view, the owner index and
// the event handlers give the same with and without the trim. Code that
// reads other fields of the cache's objects (its own event handlers, a
// reconciler of its own on the same cache) must not use it, or must add
// them.
func TrimForCache(obj any) (any, error) {
	switch o := obj.(type) {
	case *corev1.Pod:
		trimPod(o)
	case *corev1.PersistentVolumeClaim:
		trimPVC(o)
	case *appsv1.ControllerRevision:
		*o = appsv1.ControllerRevision{TypeMeta: o.TypeMeta, ObjectMeta: trimMeta(o.ObjectMeta), Data: o.Data, Revision: o.Revision}
	case *corev1.Node:
		*o = corev1.Node{TypeMeta: o.TypeMeta, ObjectMeta: trimMeta(o.ObjectMeta)}
	case *unstructured.Unstructured:
		if md, ok := o.Object["metadata"].(map[string]any); ok {
			delete(md, "managedFields")
		}
	}
	return obj, nil
}

// trimMeta is the object's metadata without its managedFields.
func trimMeta(m metav1.ObjectMeta) metav1.ObjectMeta {
	m.ManagedFields = nil
	return m
}

// trimPod trims a pod in place (the informer's own, just decoded).
func trimPod(p *corev1.Pod) {
	s := &p.Spec
	for i := range s.TopologySpreadConstraints {
		s.TopologySpreadConstraints[i] = corev1.TopologySpreadConstraint{TopologyKey: s.TopologySpreadConstraints[i].TopologyKey}
	}
	for i := range s.Volumes {
		s.Volumes[i] = corev1.Volume{Name: s.Volumes[i].Name}
	}
	trimContainers(s.Containers)
	trimContainers(s.InitContainers)
	trimContainerStatuses(p.Status.ContainerStatuses)
	trimContainerStatuses(p.Status.InitContainerStatuses)
	*p = corev1.Pod{
		TypeMeta:   p.TypeMeta,
		ObjectMeta: trimMeta(p.ObjectMeta),
		Spec: corev1.PodSpec{
			NodeName:                  s.NodeName,
			RestartPolicy:             s.RestartPolicy,
			ReadinessGates:            s.ReadinessGates,
			ActiveDeadlineSeconds:     s.ActiveDeadlineSeconds,
			TopologySpreadConstraints: s.TopologySpreadConstraints,
			Volumes:                   s.Volumes,
			Containers:                s.Containers,
			InitContainers:            s.InitContainers,
		},
		Status: corev1.PodStatus{
			Phase:                 p.Status.Phase,
			Conditions:            p.Status.Conditions,
			ContainerStatuses:     p.Status.ContainerStatuses,
			InitContainerStatuses: p.Status.InitContainerStatuses,
		},
	}
}

// trimContainers trims containers in place.
func trimContainers(list []corev1.Container) {
	for i := range list {
		c := &list[i]
		for j := range c.Env {
			e := &c.Env[j]
			var from *corev1.EnvVarSource
			if v := e.ValueFrom; v != nil && (v.FieldRef != nil || v.ConfigMapKeyRef != nil) {
				// A field reference (env from metadata) and a config map key
				// (a launch barrier) are read; nothing else of a source.
				from = &corev1.EnvVarSource{}
				if v.FieldRef != nil {
					from.FieldRef = &corev1.ObjectFieldSelector{FieldPath: v.FieldRef.FieldPath}
				}
				if v.ConfigMapKeyRef != nil {
					from.ConfigMapKeyRef = &corev1.ConfigMapKeySelector{
						LocalObjectReference: corev1.LocalObjectReference{Name: v.ConfigMapKeyRef.Name}, Key: v.ConfigMapKeyRef.Key}
				}
			}
			*e = corev1.EnvVar{Name: e.Name, Value: e.Value, ValueFrom: from}
		}
		*c = corev1.Container{Name: c.Name, Image: c.Image, Resources: c.Resources, RestartPolicy: c.RestartPolicy, Env: c.Env, ResizePolicy: c.ResizePolicy}
	}
}

// trimContainerStatuses trims container statuses in place.
func trimContainerStatuses(list []corev1.ContainerStatus) {
	for i := range list {
		c := &list[i]
		*c = corev1.ContainerStatus{Name: c.Name, Image: c.Image, ImageID: c.ImageID, ContainerID: c.ContainerID,
			Ready: c.Ready, RestartCount: c.RestartCount, Resources: c.Resources}
	}
}

// trimPVC trims a claim in place: its metadata and storage request.
func trimPVC(c *corev1.PersistentVolumeClaim) {
	var requests corev1.ResourceList
	if s, ok := c.Spec.Resources.Requests[corev1.ResourceStorage]; ok {
		requests = corev1.ResourceList{corev1.ResourceStorage: s}
	}
	*c = corev1.PersistentVolumeClaim{TypeMeta: c.TypeMeta, ObjectMeta: trimMeta(c.ObjectMeta)}
	c.Spec.Resources.Requests = requests
}
