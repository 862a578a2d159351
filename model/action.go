package model

// ActionType names the kind of a plan action (docs/spec/scenario-format.md section 2).
type ActionType string

// The action types of a plan.
const (
	ActionCreatePod          ActionType = "CreatePod"
	ActionDeletePod          ActionType = "DeletePod"
	ActionSetLifecycleState  ActionType = "SetLifecycleState"
	ActionUpdatePodInPlace   ActionType = "UpdatePodInPlace"
	ActionRecreatePod        ActionType = "RecreatePod"
	ActionDeletePVC          ActionType = "DeletePVC"
	ActionSetPVCOwner        ActionType = "SetPVCOwner"
	ActionUpdatePodsToDelete ActionType = "UpdatePodsToDelete"
	ActionPatchPod           ActionType = "PatchPod"
	// ActionCreateRevision creates the ControllerRevision of spec.template
	// when no stored revision equals it (lifecycle-status-validation 2.3).
	ActionCreateRevision ActionType = "CreateRevision"
	// ActionUpdateRevision sets the revision number of a stored revision that
	// becomes the update revision again (a roll-back to an old template).
	ActionUpdateRevision ActionType = "UpdateRevision"
	// ActionDeleteRevision deletes an unused revision beyond
	// revisionHistoryLimit (lifecycle-status-validation 2.7).
	ActionDeleteRevision ActionType = "DeleteRevision"
	// ActionCreateImagePullJob creates an OpenKruise ImagePullJob that
	// pre-downloads the new image of one container of an in-place update
	// (PreDownloadImageForInPlaceUpdate; docs/spec/image-predownload.md).
	ActionCreateImagePullJob ActionType = "CreateImagePullJob"
	// ActionLabelRevision sets labels on a ControllerRevision: the update
	// revision's image pre-download mark (created or ignored).
	ActionLabelRevision ActionType = "LabelRevision"
	// ActionDeleteImagePullJob deletes an ImagePullJob of the CloneSet once
	// its rollout is done.
	ActionDeleteImagePullJob ActionType = "DeleteImagePullJob"
)

// ToleratesFailure reports whether a failure of actions of type t leaves
// the rest of the round alone: upstream logs the failure of an image
// pre-download write (CreateImagePullJob, LabelRevision,
// DeleteImagePullJob) and goes on with the round, where any other failed
// write ends it (docs/spec/image-predownload.md P8).
func ToleratesFailure(t ActionType) bool {
	switch t {
	case ActionCreateImagePullJob, ActionLabelRevision, ActionDeleteImagePullJob:
		return true
	}
	return false
}

// Action is one thing a controller must do. Only the fields of its Type are
// meaningful; MarshalJSON writes exactly those, in the order of the table in
// docs/spec/scenario-format.md section 2.
type Action struct {
	Type ActionType

	// Pod is the pod acted on (every pod-level type, SetPVCOwner's new owner).
	Pod string
	// PVC is the claim acted on (DeletePVC, SetPVCOwner).
	PVC string

	// CreatePod fields. RevisionLabel (also on UpdatePodInPlace) is the value
	// of the pod's controller-revision-hash label when it differs from the
	// revision name: the short hash under the CloneSetShortHash gate.
	InstanceID     string
	Revision       string
	RevisionLabel  string
	LifecycleState string
	CreatePVCs     []string
	ReusePVCs      []string
	Batch          int

	// DeletePod field.
	DeletePVCs []string

	// SetLifecycleState fields. SetLabels (shared with PatchPod) and
	// AddFinalizers carry the inPlaceUpdate hook markers T9 re-adds.
	From            string
	To              string
	MarkPodNotReady bool
	AddFinalizers   []string

	// UpdatePodInPlace / RecreatePod fields.
	FromRevision       string
	ToRevision         string
	GracePeriodSeconds int32

	// UpdatePodsToDelete field.
	Remove []string

	// CreateRevision / UpdateRevision / DeleteRevision fields: Revision (above)
	// names the ControllerRevision; RevisionNumber is its `revision` field as
	// created, or the new value an UpdateRevision sets. LabelRevision names
	// its revision in Revision and the labels it sets in SetLabels.
	RevisionNumber int64

	// CreateImagePullJob / DeleteImagePullJob fields: ImagePullJob names the
	// job; a create also names the update revision (Revision), the
	// container whose image it pulls and that image.
	ImagePullJob string
	Container    string
	Image        string

	// PatchPod fields. SetImages and SetResources are container changes an
	// in-place update applies when its grace period ends.
	SetLabels         map[string]string
	RemoveLabels      []string
	SetAnnotations    map[string]string
	RemoveAnnotations []string
	SetConditions     []ConditionPatch
	SetImages         map[string]string
	SetResources      map[string]ResourceValues

	// Reason explains the action in a few words.
	Reason string
}

// ResourceValues are container resource values by resource name, as written.
type ResourceValues struct {
	Limits   map[string]string `json:"limits,omitempty"`
	Requests map[string]string `json:"requests,omitempty"`
}

// ConditionPatch sets one pod condition.
type ConditionPatch struct {
	Type    string
	Status  string
	Reason  string
	Message string
}
