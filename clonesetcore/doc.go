// Package clonesetcore is the planner of the CloneSet controller: it composes
// the rule packages (partition, ordering, inplace, lifecycle, pvc, predownload,
// clonesetcore/progress) into the decision of one reconcile of one CloneSet.
//
// Plan takes a snapshot (a model.Scenario: the CloneSet, its pods, PVCs,
// ControllerRevisions, nodes, ImagePullJobs, the clock and the feature gates) and returns a
// Result: the actions to take, the budget arithmetic behind them, the status
// the controller would write, when to call again, and notes that explain every
// decision and every reason nothing happened. PlanWithOptions bounds the plan
// (Limits); Rank gives the deletion or update order alone; Tracker is the
// incremental planner a controller keeps per CloneSet (told of each object
// change, its Plan(now) equals Plan on the same objects); NewRevision builds
// the ControllerRevision of a template as upstream writes it.
//
// Plan is pure: the same scenario gives the same plan, byte for byte, whatever
// the order of the objects in it, and nothing outside the scenario (no clock,
// no randomness) is read. Result.JSON is the plan document of
// docs/spec/scenario-format.md section 2 (and docs/plan-format.md).
//
// # The caller's contract
//
// A plan is what one reconcile does; the caller carries it out and comes
// back. Package requests turns a plan into the exact API requests
// (requests.Build) and requests.Progress applies the rules below to them; a
// controller that makes its own writes follows the same four steps:
//
//  1. Apply Result.Actions in order. A CreateRevision or UpdateRevision opens
//     the list. CreatePod actions carry a Batch index: the pods of one batch
//     may be created concurrently, and once a batch had a failure no later
//     batch starts (upstream's slow start). The image pre-download actions
//     (CreateImagePullJob, LabelRevision, DeleteImagePullJob; they follow the
//     revision write and the PVC clean-up) tolerate failures
//     (model.ToleratesFailure): upstream logs them and goes on, except that a
//     failed DeleteImagePullJob skips the later ones. Any other failed write
//     ends the actions of the round. The trailing UpdatePodsToDelete and
//     DeleteRevision actions are upstream's steps after the status write
//     (docs/spec/lifecycle-status-validation.md 2.7): write the status
//     (step 2) before them, and drop them when that write fails.
//  2. Write Result.Status to the CloneSet's status subresource, even after a
//     failed action, unless Status.WriteSkipped is set (nothing upstream
//     compares changed).
//  3. If Result.RequeueAfterSeconds > 0 (Result.RequeueAfter), plan again
//     after that delay even when no event arrives; otherwise wait for the
//     next watch event. After a failed write, plan again from a fresh
//     snapshot rather than continue the old plan.
//  4. Show Result.Notes to people: they explain every decision and every
//     wait.
//
// A plan never mixes purposes: its pod-level actions come from one of the
// scale phase, the refresh step or the update step, exactly as upstream's;
// the next round continues the work. A controller also waits until its cache
// shows its own earlier writes before it plans again (package expectations),
// so that a lagging cache never makes it create or delete anything twice.
package clonesetcore
