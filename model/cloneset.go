package model

import "time"

// CloneSet is a CloneSet in the internal (apps.kruise.io/v1beta1) shape, after the
// per-version defaults and the v1alpha1 conversion have been applied.
type CloneSet struct {
	// APIVersion is the version the object was read in (APIVersionV1alpha1 or
	// APIVersionV1beta1); it selects the validation rules.
	APIVersion string
	Name       string
	Namespace  string
	UID        string
	// ResourceVersion is metadata.resourceVersion as read ("" when absent).
	ResourceVersion   string
	Generation        int64
	Labels            map[string]string
	Annotations       map[string]string
	DeletionTimestamp time.Time // zero when absent

	Spec   CloneSetSpec
	Status CloneSetStatus

	// V1alpha1 keeps, for objects read as v1alpha1, the fields as written in that
	// version (after its defaults) that the conversion drops or reshapes; the
	// v1alpha1 validation rules read them. Nil for v1beta1 objects.
	V1alpha1 *V1alpha1Fields
}

// V1alpha1Fields are the v1alpha1-only facts validation needs.
type V1alpha1Fields struct {
	// UpdateStrategyType is updateStrategy.type as written ("ReCreate",
	// "InPlaceIfPossible", "InPlaceOnly", "OnDelete", or anything else).
	UpdateStrategyType string
	// UpdateStrategy holds partition, maxUnavailable, maxSurge, paused, priority,
	// scatter and the in-place strategy exactly as the v1alpha1 object carries
	// them (after v1alpha1 defaults), including for OnDelete, whose conversion
	// drops them. PodUpdatePolicy is unused here.
	UpdateStrategy RollingUpdateStrategy
	// DisablePVCReuse is scaleStrategy.disablePVCReuse.
	DisablePVCReuse bool
}

// CloneSetSpec is the v1beta1 spec.
type CloneSetSpec struct {
	// Replicas is nil when absent (the library defaults it to 1 before planning).
	Replicas                *int32
	Selector                *LabelSelector
	Template                PodTemplate
	VolumeClaimTemplates    []VolumeClaimTemplate
	ScaleStrategy           ScaleStrategy
	UpdateStrategy          UpdateStrategy
	RevisionHistoryLimit    *int32
	MinReadySeconds         int32
	Lifecycle               *Lifecycle
	ProgressDeadlineSeconds *int32
}

// DesiredReplicas returns spec.replicas, or 1 when it is absent.
func (s *CloneSetSpec) DesiredReplicas() int {
	if s.Replicas == nil {
		return 1
	}
	return int(*s.Replicas)
}

// ScaleStrategy is spec.scaleStrategy (v1beta1).
type ScaleStrategy struct {
	PodsToDelete           []string
	MaxUnavailable         *IntOrPercent
	EnablePVCReuse         bool
	ExcludePreparingDelete bool
}

// UpdateStrategy is spec.updateStrategy (v1beta1): a type and, for
// RollingUpdate, the rolling-update block.
type UpdateStrategy struct {
	// Type is "RollingUpdate" or "OnDelete".
	Type string
	// RollingUpdate is nil when absent (normally for OnDelete).
	RollingUpdate *RollingUpdateStrategy
}

// RollingUpdateStrategy is spec.updateStrategy.rollingUpdate (v1beta1).
type RollingUpdateStrategy struct {
	// PodUpdatePolicy is ReCreate, InPlaceIfPossible or InPlaceOnly.
	PodUpdatePolicy       string
	Partition             *IntOrPercent
	MaxUnavailable        *IntOrPercent
	MaxSurge              *IntOrPercent
	Paused                bool
	PriorityStrategy      *UpdatePriorityStrategy
	ScatterStrategy       []ScatterTerm
	InPlaceUpdateStrategy *InPlaceUpdateStrategy
}

// UpdatePriorityStrategy is rollingUpdate.priorityStrategy.
type UpdatePriorityStrategy struct {
	WeightPriority []UpdatePriorityWeightTerm
	OrderPriority  []UpdatePriorityOrderTerm
}

// UpdatePriorityWeightTerm adds Weight to every pod MatchSelector selects.
type UpdatePriorityWeightTerm struct {
	Weight        int32
	MatchSelector LabelSelector
}

// UpdatePriorityOrderTerm orders pods by the integer suffix of a label value.
type UpdatePriorityOrderTerm struct {
	OrderedKey string
}

// ScatterTerm is one {key, value} entry of rollingUpdate.scatterStrategy.
type ScatterTerm struct {
	Key   string
	Value string
}

// InPlaceUpdateStrategy is rollingUpdate.inPlaceUpdateStrategy.
type InPlaceUpdateStrategy struct {
	GracePeriodSeconds                  int32
	ImagePreDownloadParallelism         *IntOrPercent
	ImagePreDownloadTimeoutSeconds      *int32
	ImagePreDownloadMinUpdatedReadyPods *int32
}

// Lifecycle is spec.lifecycle: three optional hooks.
type Lifecycle struct {
	PreDelete     *LifecycleHook
	InPlaceUpdate *LifecycleHook
	PreNormal     *LifecycleHook
}

// LifecycleHook is one hook: label and finalizer markers plus markPodNotReady.
type LifecycleHook struct {
	LabelsHandler     map[string]string
	FinalizersHandler []string
	MarkPodNotReady   bool
}

// VolumeClaimTemplate is one entry of spec.volumeClaimTemplates.
type VolumeClaimTemplate struct {
	Name        string
	Labels      map[string]string
	Annotations map[string]string
	// StorageRequest is spec.resources.requests.storage as written ("" if absent).
	StorageRequest string
	// Raw is the whole template as a JSON-like tree (see PodTemplate.Raw).
	Raw map[string]any
}

// CloneSetStatus is the CloneSet status (the fields the planner reads or writes).
type CloneSetStatus struct {
	ObservedGeneration       int64
	Replicas                 int32
	ReadyReplicas            int32
	AvailableReplicas        int32
	UpdatedReplicas          int32
	UpdatedReadyReplicas     int32
	UpdatedAvailableReplicas int32
	ExpectedUpdatedReplicas  int32
	CurrentRevision          string
	UpdateRevision           string
	CollisionCount           *int32
	LabelSelector            string
	Conditions               []CloneSetCondition
}

// CloneSetCondition is one entry of status.conditions.
type CloneSetCondition struct {
	Type               string
	Status             string
	Reason             string
	Message            string
	LastUpdateTime     time.Time // zero when absent
	LastTransitionTime time.Time // zero when absent
}

// Condition returns the first condition of the given type, or nil.
func (s *CloneSetStatus) Condition(condType string) *CloneSetCondition {
	for i := range s.Conditions {
		if s.Conditions[i].Type == condType {
			return &s.Conditions[i]
		}
	}
	return nil
}
