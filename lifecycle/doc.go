// Package lifecycle implements the pod lifecycle of the CloneSet planner: the hook
// predicates, the NotReady-key policy, the state transitions T1–T13 and T-ERR of
// docs/spec/lifecycle-status-validation.md section 1.7, and the per-pod update decision of
// docs/spec/update-and-ordering.md section 4.1.
//
// Every function is pure: it reads the objects it is given and returns plan actions
// (model.Action) without changing anything. The plan-shape rules of
// docs/spec/scenario-format.md section 2 and docs/spec/DECISIONS.md apply: an UpdatePodInPlace carries
// its own move to Updating, a RecreatePod only marks the pod specified-delete,
// SetLifecycleState.MarkPodNotReady is the effective flag (true only when the
// transition adds or removes a not-ready key of the KruisePodReady condition; the key
// is named in the reason), and no SetLifecycleState with from == to is emitted
// unless the not-ready key is actually missing.
package lifecycle
