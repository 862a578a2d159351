package model

// ActionType names the kind of a plan action (scenario-format.md section 2).
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
)

// Action is one thing a controller must do. Only the fields of its Type are
// meaningful; MarshalJSON writes exactly those, in the order of the table in
// scenario-format.md section 2.
type Action struct {
	Type ActionType

	// Pod is the pod acted on (every pod-level type, SetPVCOwner's new owner).
	Pod string
	// PVC is the claim acted on (DeletePVC, SetPVCOwner).
	PVC string

	// CreatePod fields.
	InstanceID     string
	Revision       string
	LifecycleState string
	CreatePVCs     []string
	ReusePVCs      []string
	Batch          int

	// DeletePod field.
	DeletePVCs []string

	// SetLifecycleState fields.
	From            string
	To              string
	MarkPodNotReady bool

	// UpdatePodInPlace / RecreatePod fields.
	FromRevision       string
	ToRevision         string
	GracePeriodSeconds int32

	// UpdatePodsToDelete field.
	Remove []string

	// PatchPod fields.
	SetLabels         map[string]string
	SetAnnotations    map[string]string
	RemoveAnnotations []string
	SetConditions     []ConditionPatch

	// Reason explains the action in a few words.
	Reason string
}

// ConditionPatch sets one pod condition.
type ConditionPatch struct {
	Type    string
	Status  string
	Reason  string
	Message string
}
