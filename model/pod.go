package model

import (
	"fmt"
	"sort"
	"strconv"
	"time"
)

// OwnerReference is one metadata.ownerReferences entry.
type OwnerReference struct {
	APIVersion string
	Kind       string
	Name       string
	UID        string
	Controller bool
}

// ControllerRef returns the owner reference marked controller, or nil.
func ControllerRef(refs []OwnerReference) *OwnerReference {
	for i := range refs {
		if refs[i].Controller {
			return &refs[i]
		}
	}
	return nil
}

// PodTemplate is a pod template: the metadata and spec the planner reads in
// typed form, plus the whole template as a JSON-like tree.
type PodTemplate struct {
	Labels      map[string]string
	Annotations map[string]string
	Spec        PodSpec
	// Raw is the template as decoded from the manifest: nested map[string]any,
	// []any, string, bool, nil and json.Number values, with the "$patch" member
	// of stored revisions removed. In-place feasibility diffs these trees and the
	// library's revision hash is computed from them. It may be nil for templates
	// built in code; packages that diff templates then derive a tree from the
	// typed fields.
	Raw map[string]any
}

// PodSpec is the subset of a pod spec the planner reads.
type PodSpec struct {
	NodeName                  string
	Containers                []Container
	InitContainers            []Container
	ReadinessGates            []string
	TopologySpreadConstraints []TopologySpreadConstraint
	Volumes                   []string // volume names
	RestartPolicy             string
	ActiveDeadlineSeconds     *int64
}

// HasReadinessGate reports whether condType is listed in spec.readinessGates.
func (s *PodSpec) HasReadinessGate(condType string) bool {
	for _, g := range s.ReadinessGates {
		if g == condType {
			return true
		}
	}
	return false
}

// TopologySpreadConstraint keeps the only member the deletion ranking uses.
type TopologySpreadConstraint struct {
	TopologyKey string
}

// Container is the subset of a container the planner reads.
type Container struct {
	Name  string
	Image string
	Env   []EnvVar
	// Resources holds limits and requests by resource name.
	Resources ResourceRequirements
	// ResizePolicy lists resource -> restartPolicy entries.
	ResizePolicy []ContainerResizePolicy
	// RestartPolicy is only meaningful for init containers ("Always" = sidecar).
	RestartPolicy string
}

// EnvVar is a container environment variable.
type EnvVar struct {
	Name string
	// Value is the literal value; HasValue tells whether one was given.
	Value    string
	HasValue bool
	// FieldPath is valueFrom.fieldRef.fieldPath ("" if not a fieldRef).
	FieldPath string
	// ConfigMapName and ConfigMapKey are valueFrom.configMapKeyRef's name
	// and key ("" if not a configMapKeyRef). The planner reads them only
	// in the launch barrier env (EnvLaunchBarrier).
	ConfigMapName, ConfigMapKey string
}

// IsConfigMapKeyRef reports whether the value comes from a config map's
// key (valueFrom.configMapKeyRef).
func (e EnvVar) IsConfigMapKeyRef() bool {
	return e.ConfigMapName != "" || e.ConfigMapKey != ""
}

// LaunchPriority is the container's launch priority, read as upstream's
// in-place update reads it (kruise pkg/util/containerlaunchpriority
// GetContainerPriority, update-and-ordering 4.5): the first env named
// EnvLaunchBarrier, which OpenKruise's pod webhook injects, takes its value
// from the config map key "p_<priority>"; the priority is the integer after
// the key's first two characters (text that is no integer reads as 0, as
// upstream's ignored parse error leaves it). ok is false when the container
// has no such env. A barrier env that is not a configMapKeyRef, or whose key
// is shorter than two characters, is an error naming the container and the
// env (upstream's controller panics on it).
func (c *Container) LaunchPriority() (priority int, ok bool, err error) {
	for i, e := range c.Env {
		if e.Name != EnvLaunchBarrier {
			continue
		}
		if !e.IsConfigMapKeyRef() || len(e.ConfigMapKey) < 2 {
			return 0, false, fmt.Errorf("container %s: env[%d] %s: want valueFrom.configMapKeyRef with the key p_<priority>, got key %q",
				c.Name, i, EnvLaunchBarrier, e.ConfigMapKey)
		}
		p, err := strconv.Atoi(e.ConfigMapKey[2:])
		if err != nil {
			return 0, true, nil
		}
		return p, true, nil
	}
	return 0, false, nil
}

// ResourceRequirements holds container resource limits and requests.
type ResourceRequirements struct {
	Limits   map[string]Quantity
	Requests map[string]Quantity
}

// Equal reports whether r and o limit and request the same resources by the
// same amounts (quantities compare by value: "1" equals "1000m").
func (r ResourceRequirements) Equal(o ResourceRequirements) bool {
	return EqualQuantities(r.Limits, o.Limits) && EqualQuantities(r.Requests, o.Requests)
}

// ContainerResizePolicy is one resizePolicy entry.
type ContainerResizePolicy struct {
	ResourceName  string
	RestartPolicy string
}

// Pod is a pod as the planner sees it.
type Pod struct {
	Name      string
	Namespace string
	UID       string
	// ResourceVersion is metadata.resourceVersion as read ("" when absent):
	// the precondition of the writes that rely on optimistic concurrency.
	ResourceVersion   string
	Labels            map[string]string
	Annotations       map[string]string
	Finalizers        []string
	CreationTimestamp time.Time // zero when absent
	DeletionTimestamp time.Time // zero when absent
	OwnerReferences   []OwnerReference
	Spec              PodSpec
	Status            PodStatus
}

// PodStatus is the subset of a pod status the planner reads.
type PodStatus struct {
	Phase                 string
	Conditions            []PodCondition
	ContainerStatuses     []ContainerStatus
	InitContainerStatuses []ContainerStatus
}

// PodCondition is one status.conditions entry of a pod.
type PodCondition struct {
	Type               string
	Status             string
	Reason             string
	Message            string
	LastTransitionTime time.Time
}

// ContainerStatus is one status.containerStatuses entry.
type ContainerStatus struct {
	Name         string
	Image        string
	ImageID      string
	ContainerID  string
	Ready        bool
	RestartCount int32
	// Resources is the resources reported by the kubelet (nil when absent).
	Resources *ResourceRequirements
}

// PVC is a PersistentVolumeClaim.
type PVC struct {
	Name      string
	Namespace string
	// UID and ResourceVersion are metadata.uid and metadata.resourceVersion
	// as read ("" when absent): the preconditions of writes to the claim.
	UID               string
	ResourceVersion   string
	Labels            map[string]string
	Annotations       map[string]string
	OwnerReferences   []OwnerReference
	DeletionTimestamp time.Time
	// StorageRequest is spec.resources.requests.storage as written.
	StorageRequest string
}

// Revision is a ControllerRevision of the CloneSet: its name, revision number,
// annotations and stored pod template.
type Revision struct {
	Name string
	// UID and ResourceVersion are metadata.uid and metadata.resourceVersion
	// as read ("" when absent, and for a revision the planner derives).
	UID               string
	ResourceVersion   string
	Revision          int64
	CreationTimestamp time.Time
	Labels            map[string]string
	Annotations       map[string]string
	Template          PodTemplate
	// HasTemplate is false when the stored data carried no spec.template.
	HasTemplate bool
}

// VCTHash returns the volume-claim-template hash annotation and whether it is present.
func (r *Revision) VCTHash() (string, bool) {
	v, ok := r.Annotations[AnnotationVCTHash]
	return v, ok
}

// ImagePullJob is an OpenKruise ImagePullJob (apps.kruise.io, v1alpha1 or
// v1beta1): the part the planner and the simulator read.
type ImagePullJob struct {
	Name      string
	Namespace string
	// UID and ResourceVersion are metadata.uid and metadata.resourceVersion
	// as read ("" when absent): the precondition of its delete.
	UID             string
	ResourceVersion string
	Labels          map[string]string
	OwnerReferences []OwnerReference
	// Image is spec.image, the image the job pulls.
	Image string
}

// Node is a node: its name and labels (topology keys).
type Node struct {
	Name   string
	Labels map[string]string
}

// SortRevisions returns the revisions (nil entries dropped) in Kubernetes'
// history order: ascending .revision, then older creationTimestamp, then name.
// The input slice is not reordered.
func SortRevisions(revisions []*Revision) []*Revision {
	out := make([]*Revision, 0, len(revisions))
	for _, r := range revisions {
		if r != nil {
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Revision != b.Revision {
			return a.Revision < b.Revision
		}
		if !a.CreationTimestamp.Equal(b.CreationTimestamp) {
			return a.CreationTimestamp.Before(b.CreationTimestamp)
		}
		return a.Name < b.Name
	})
	return out
}
