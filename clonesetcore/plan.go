package clonesetcore

import (
	"encoding/json"
	"time"

	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/partition"
)

// PlanAPIVersion and PlanKind identify a plan document.
const (
	PlanAPIVersion = "clonesetcore/v1alpha1"
	PlanKind       = "Plan"
)

// ObjectRef names the CloneSet a plan is for.
type ObjectRef struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// Result is a plan: the decision of one reconcile of one CloneSet: the actions to apply,
// in order, the budget arithmetic behind them, the status the controller would
// write, when to call the planner again, and notes explaining every decision and
// every reason nothing happened. Its JSON form is the contract of
// docs/spec/scenario-format.md section 2.
type Result struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	CloneSet   ObjectRef `json:"cloneSet"`
	// Now is the clock the plan was made at (the scenario's Now), RFC 3339
	// with the nanoseconds it has, in UTC; omitted when the scenario has no
	// clock.
	Now             string `json:"now,omitempty"`
	CurrentRevision string `json:"currentRevision"`
	UpdateRevision  string `json:"updateRevision"`
	// Budget is the scale-phase arithmetic (all sixteen numbers).
	Budget partition.Budget `json:"budget"`
	// UpdateBudget is the update-phase arithmetic, present only when it differs
	// from Budget (PreparingUpdateAsUpdate gate).
	UpdateBudget *partition.Budget `json:"updateBudget,omitempty"`
	// Actions are in the order a controller applies them.
	Actions []model.Action `json:"actions"`
	// Status is the CloneSet status the controller would compute this round.
	Status Status `json:"status"`
	// RequeueAfterSeconds is the delay after which the controller wants to be
	// called again without a new event; 0 means none.
	RequeueAfterSeconds float64 `json:"requeueAfterSeconds"`
	// Notes explain the decisions, the blockages and the upstream quirks that
	// shaped this plan.
	Notes []string `json:"notes"`
}

// RequeueAfter returns RequeueAfterSeconds as a duration.
func (p *Result) RequeueAfter() time.Duration {
	return time.Duration(p.RequeueAfterSeconds * float64(time.Second))
}

// Status is the CloneSet status of a plan (field names of the Kruise API).
type Status struct {
	Replicas                 int32       `json:"replicas"`
	ReadyReplicas            int32       `json:"readyReplicas"`
	AvailableReplicas        int32       `json:"availableReplicas"`
	UpdatedReplicas          int32       `json:"updatedReplicas"`
	UpdatedReadyReplicas     int32       `json:"updatedReadyReplicas"`
	UpdatedAvailableReplicas int32       `json:"updatedAvailableReplicas"`
	ExpectedUpdatedReplicas  int32       `json:"expectedUpdatedReplicas"`
	CurrentRevision          string      `json:"currentRevision"`
	UpdateRevision           string      `json:"updateRevision"`
	ObservedGeneration       int64       `json:"observedGeneration"`
	CollisionCount           int32       `json:"collisionCount"`
	LabelSelector            string      `json:"labelSelector"`
	Conditions               []Condition `json:"conditions"`
	// WriteSkipped is true when the controller would not write this status
	// because nothing it compares changed (LSV 2.6).
	WriteSkipped bool `json:"writeSkipped,omitempty"`
}

// Condition is a CloneSet condition as written in a plan; times are RFC 3339,
// whole seconds, omitted when unset.
type Condition struct {
	Type               string `json:"type"`
	Status             string `json:"status"`
	Reason             string `json:"reason,omitempty"`
	Message            string `json:"message,omitempty"`
	LastUpdateTime     string `json:"lastUpdateTime,omitempty"`
	LastTransitionTime string `json:"lastTransitionTime,omitempty"`
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Truncate(time.Second).Format(time.RFC3339)
}

// formatNow writes a plan's clock: RFC 3339 in UTC with its nanoseconds
// (they seed the instance ids of the round), "" when zero.
func formatNow(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func conditionsOut(in []model.CloneSetCondition) []Condition {
	out := make([]Condition, 0, len(in))
	for _, c := range in {
		out = append(out, Condition{
			Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message,
			LastUpdateTime: formatTime(c.LastUpdateTime), LastTransitionTime: formatTime(c.LastTransitionTime),
		})
	}
	return out
}

// JSON renders the plan as indented JSON (the `-o json` output).
func (p *Result) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
