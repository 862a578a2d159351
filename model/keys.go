package model

// Well-known label, annotation, condition and finalizer names used by the CloneSet
// controller.
const (
	// LabelRevisionHash is the pod label naming the pod's revision (full name, or
	// the short hash when the CloneSetShortHash gate is on).
	LabelRevisionHash = "controller-revision-hash"
	// LabelPodTemplateHash is the pod label that always carries the short hash.
	LabelPodTemplateHash = "pod-template-hash"
	// LabelInstanceID is the instance-id label shared by a pod and its PVCs.
	LabelInstanceID = "apps.kruise.io/cloneset-instance-id"
	// LabelSpecifiedDelete marks a pod for deletion (any value, even empty).
	LabelSpecifiedDelete = "apps.kruise.io/specified-delete"
	// LabelLifecycleState is the pod label holding the lifecycle state.
	LabelLifecycleState = "lifecycle.apps.kruise.io/state"
	// AnnotationLifecycleTimestamp is written together with every state change.
	AnnotationLifecycleTimestamp = "lifecycle.apps.kruise.io/timestamp"
	// LabelScalingExcludePreparingDelete is the v1alpha1 CloneSet label that turns
	// on excludePreparingDelete when its value is exactly "true".
	LabelScalingExcludePreparingDelete = "apps.kruise.io/cloneset-scaling-exclude-preparing-delete"
	// AnnotationDeletionCost is the Kubernetes pod-deletion-cost annotation.
	AnnotationDeletionCost = "controller.kubernetes.io/pod-deletion-cost"
	// AnnotationInPlaceUpdateState is the in-place update state annotation.
	AnnotationInPlaceUpdateState = "apps.kruise.io/inplace-update-state"
	// AnnotationInPlaceUpdateStateLegacy is the legacy key of the state annotation.
	AnnotationInPlaceUpdateStateLegacy = "inplace-update-state"
	// AnnotationInPlaceUpdateGrace holds the pending update during a grace period.
	AnnotationInPlaceUpdateGrace = "apps.kruise.io/inplace-update-grace"
	// AnnotationInPlaceUpdateGraceLegacy is the legacy key of the grace annotation.
	AnnotationInPlaceUpdateGraceLegacy = "inplace-update-grace"
	// AnnotationRuntimeContainersMeta is written by the kruise daemon.
	AnnotationRuntimeContainersMeta = "apps.kruise.io/runtime-containers-meta"
	// LabelControllerRevisionHash is the ControllerRevision label holding the
	// revision's hash (TemplateHash with the collision count it was first
	// built with).
	LabelControllerRevisionHash = "controller.kubernetes.io/hash"
	// AnnotationVCTHash is the ControllerRevision annotation carrying the hash of
	// the CloneSet's volume claim templates.
	AnnotationVCTHash = "kruise.io/cloneset-volumeclaimtemplate-hash"
	// AnnotationImagePreDownloadParallelism and the two below are v1alpha1
	// annotations converted into the v1beta1 in-place update strategy.
	AnnotationImagePreDownloadParallelism = "apps.kruise.io/image-predownload-parallelism"
	// AnnotationImagePreDownloadTimeoutSeconds see AnnotationImagePreDownloadParallelism.
	AnnotationImagePreDownloadTimeoutSeconds = "apps.kruise.io/image-predownload-timeout-seconds"
	// AnnotationImagePreDownloadMinUpdatedReadyPods see AnnotationImagePreDownloadParallelism.
	AnnotationImagePreDownloadMinUpdatedReadyPods = "apps.kruise.io/image-predownload-min-updated-ready-pods"
	// LabelImagePreDownloadCreated is the ControllerRevision label the
	// controller sets ("true") once it created the ImagePullJobs of the
	// revision's images. The key is upstream's, "pre-predownload" included.
	LabelImagePreDownloadCreated = "apps.kruise.io/pre-predownload-created"
	// LabelImagePreDownloadIgnored is the ControllerRevision label the
	// controller sets ("true") when it decided not to pre-download the
	// revision's images.
	LabelImagePreDownloadIgnored = "apps.kruise.io/image-predownload-ignored"

	// EnvLaunchPriority is the container env that asks OpenKruise's pod
	// webhook for a launch priority (an integer; the pod annotation
	// AnnotationContainerLaunchPriority asks for all containers in order).
	EnvLaunchPriority = "KRUISE_CONTAINER_PRIORITY"
	// EnvLaunchBarrier is the container env OpenKruise's pod webhook
	// injects for a launch priority: a configMapKeyRef to the key
	// "p_<priority>" of the config map "<pod name>-barrier", which the
	// container waits for.
	EnvLaunchBarrier = "KRUISE_CONTAINER_BARRIER"
	// AnnotationContainerLaunchPriority is the pod annotation whose value
	// ContainerLaunchOrdered launches the containers in their order.
	AnnotationContainerLaunchPriority = "apps.kruise.io/container-launch-priority"
	// ContainerLaunchOrdered is the value of AnnotationContainerLaunchPriority
	// that launches a pod's containers one after the other, in order.
	ContainerLaunchOrdered = "Ordered"
	// AnnotationContainerLaunchPriorityCompleted is the pod annotation the
	// launch priority controller sets to "true" once every barrier key is
	// written.
	AnnotationContainerLaunchPriorityCompleted = "apps.kruise.io/container-launch-priority-completed"

	// ConditionReady is the pod Ready condition type.
	ConditionReady = "Ready"
	// ConditionContainersReady is the pod ContainersReady condition type.
	ConditionContainersReady = "ContainersReady"
	// ConditionInPlaceUpdateReady is the readiness gate and condition of in-place updates.
	ConditionInPlaceUpdateReady = "InPlaceUpdateReady"
	// ConditionKruisePodReady is the shared readiness gate used by markPodNotReady.
	ConditionKruisePodReady = "KruisePodReady"

	// ConditionProgressing is the CloneSet Progressing condition type.
	ConditionProgressing = "Progressing"
	// ConditionFailedScale is set when the scale phase fails.
	ConditionFailedScale = "FailedScale"
	// ConditionFailedUpdate is set when the update phase fails.
	ConditionFailedUpdate = "FailedUpdate"
)

// Lifecycle states carried by LabelLifecycleState. The empty state (no label) is
// treated like Normal for availability.
const (
	StatePreparingNormal = "PreparingNormal"
	StateNormal          = "Normal"
	StatePreparingUpdate = "PreparingUpdate"
	StateUpdating        = "Updating"
	StateUpdated         = "Updated"
	StatePreparingDelete = "PreparingDelete"
)

// KnownLifecycleState reports whether s is one of the six states (or empty).
func KnownLifecycleState(s string) bool {
	switch s {
	case "", StatePreparingNormal, StateNormal, StatePreparingUpdate, StateUpdating, StateUpdated, StatePreparingDelete:
		return true
	}
	return false
}

// Pod phases.
const (
	PodPending   = "Pending"
	PodRunning   = "Running"
	PodSucceeded = "Succeeded"
	PodFailed    = "Failed"
	PodUnknown   = "Unknown"
)

// Update strategy types and pod update policies (v1beta1 names).
const (
	UpdateStrategyRollingUpdate = "RollingUpdate"
	UpdateStrategyOnDelete      = "OnDelete"

	PolicyReCreate          = "ReCreate"
	PolicyInPlaceIfPossible = "InPlaceIfPossible"
	PolicyInPlaceOnly       = "InPlaceOnly"
)

// API versions of the CloneSet.
const (
	APIVersionV1alpha1 = "apps.kruise.io/v1alpha1"
	APIVersionV1beta1  = "apps.kruise.io/v1beta1"
)

// MaxInt32 is the value the controller uses for "unlimited" (2147483647).
const MaxInt32 = 2147483647
