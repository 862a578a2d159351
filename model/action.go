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
)

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
	// created, or the new value an UpdateRevision sets.
	RevisionNumber int64

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
