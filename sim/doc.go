// Package sim is a deterministic rollout simulator for the CloneSet planner: an
// in-memory cluster that applies the plans of clonesetcore.Plan and evolves
// over virtual time, so that whole rollouts (many reconciles) can be run,
// drawn and checked against invariants.
//
// # The cluster
//
// A Cluster holds one CloneSet with its pods, PVCs, ControllerRevisions,
// ImagePullJobs and nodes. Cluster.Apply carries out a plan only through the API requests of
// package requests, the same writes a real controller sends to the newest
// API servers (requests.ByAction applied to a requests.World over the
// cluster's objects, which refuses a pod patch that changes container
// resources: those go through pods/resize):
// the ControllerRevision writes, pods and PVCs created in slow-start batches
// with the labels, annotations, owner reference, InPlaceUpdateReady readiness
// gate and PreparingNormal state the controller writes (scale-and-budgets
// 4.4, LSV 1.5 W3), deletes, lifecycle writes with the KruisePodReady NotReady
// policy (LSV 1.4), in-place updates (update-and-ordering 4.5), recreate
// marks, the ImagePullJobs of the image pre-download and the revision marks
// (objects of the cluster that nothing reacts to: the images are not
// modelled, so pods are not affected), the status write and what follows it. The cluster itself plays the
// Kruise pod webhook, which adds the KruisePodReady readiness gate to new
// pods, and the kubelet, which makes a deleted pod terminate and disappear
// after a grace time, once its finalizers are gone. Before sending an action's
// requests it checks that the action fits the cluster (the pod exists, is in
// the state the action moves it from, ...) and reports contract mismatches.
//
// Around the controller runs a World: a scheduler and a kubelet (pods get a
// node, start, become ready; an in-place image change restarts the container,
// which then reports the new image and image id; Ready follows the containers
// and the readiness gates), Kruise's pod-readiness controller, the user's hook
// controller of LSV 1.9 (it satisfies preNormal, releases inPlaceUpdate and
// preDelete, re-arms inPlaceUpdate after Updated, and clears the finalizers of
// terminating pods), and injected faults: pods or images that never become
// ready, crash loops, and lost nodes whose pods are evicted or fail. Every
// delay is drawn, to the millisecond, from a Range by a math/rand/v2 generator
// seeded with World.Seed; nothing reads the wall clock and nothing depends on
// map order, so a seed fixes the whole run.
//
// # The loop
//
// A Simulator runs rounds: it applies the scripted changes that are due (a
// Change: scale, new image, env change, partition, pause, budgets,
// podsToDelete, pod deletions), snapshots the cluster, plans, applies, checks
// the invariants, and advances the virtual clock to the first of: the round
// triggered by this round's writes (Delays.Reconcile later), the plan's
// requeue (plus the work-queue latency Delays.Requeue), the world's next
// event, the next scripted change. It stops when the CloneSet converges (a
// round with no action, no status write and no requeue, nothing pending, and
// spec.replicas pods all ready and available at the current generation), when
// nothing can happen any more (stalled), at the step limit, or at the
// convergence bound.
//
// # Invariants
//
// These are checked at every round (or at the end of the run), each by name:
//
//   - max-pods: if a plan creates n pods, C + n <= R + S, where C counts the
//     active pods the controller sees (owned or adoptable, matching the
//     selector, not terminating, not terminal; PreparingDelete pods excluded
//     when excludePreparingDelete is in effect), R is spec.replicas and S the
//     resolved maxSurge (0 while paused or below 0). And the active pods that are neither
//     PreparingDelete nor specified-delete never grow past max(their number
//     before the round, R + S). Pods already terminating or terminal are not
//     counted: the controller replaces them without waiting. The total can
//     exceed R + S without the controller creating anything: after a scale-in
//     or a pause, while draining PreparingDelete pods (excludePreparingDelete),
//     while cancelling a pre-deletion that makes specified-delete pods
//     surplus; the guarantee is that creation never pushes past R + S.
//   - update-budget: A_after >= min(A_before, R - U - H), where A counts the
//     active pods that are Available (state Normal or none, Running, Ready and
//     InPlaceUpdateReady true, Ready for longer than minReadySeconds) at the
//     round's clock before and right after the round's actions, U is the
//     resolved update maxUnavailable, and H the specified-delete pods (not
//     PreparingDelete) that are not Available before the round: upstream never
//     counts a specified-delete pod as unavailable (scale-and-budgets 2), so
//     deleting it frees budget for deleting an available pod. In words: the
//     controller's own actions (in-place updates, PreparingUpdate, deletions,
//     PreparingDelete) never take availability below R - U, and never lower it
//     at all when it is already below.
//   - preparing-delete-not-updated: no UpdatePodInPlace, RecreatePod or
//     SetLifecycleState to PreparingUpdate or Updating targets a pod that is in
//     PreparingDelete when the round starts. (A PatchPod ending a grace period
//     that began before the pod entered PreparingDelete is not an update.)
//   - partition-at-convergence: when a RollingUpdate CloneSet that is not
//     paused converges, O <= P, where O counts the active pods not at the
//     update revision and P is the partition count; and O == P exactly when
//     the CloneSetPartitionRollback gate is on and the current and update
//     revisions differ, or when the rollout began with at least P old pods and
//     no specified-delete or PreparingDelete pod and, since, the partition count never rose and no
//     pod was removed at a user's request (podsToDelete, a direct deletion) or
//     by a node loss. (Without the gate nothing moves pods back, so a raised
//     partition, or replacements created at a current revision that is also
//     the update revision, leave fewer old pods than the partition.)
//   - convergence-bound: a run without faults, with the hook controller on, in
//     which the update phase never fails, converges within 100 + 60N rounds and
//     within 120 s + 3N times one pod's worst-case life cycle (every delay at
//     its maximum, plus minReadySeconds and the grace period) of virtual time
//     after the last scripted change, N being the largest replicas + maxSurge
//     plus the pods at the start. It is waived, by name, in the upstream
//     liveness gaps the simulator recognizes: the NotReady key leak (LSV 7.10:
//     a pod unready forever); a scale-out that scaleStrategy.maxUnavailable
//     blocks while the unavailable pods cannot recover (nothing is deleted in
//     a round that wants to scale out, and the update budget is not positive
//     while under-replicated); a pod stranded in PreparingUpdate when no
//     update is due for it any more; with PreparingUpdateAsUpdate, a pod in
//     PreparingUpdate at an old revision that the scale phase counts as
//     updated (no surge pod) and the update phase cannot update (no
//     unavailability budget without the surge pod); and the in-place roll-back
//     (CloneSetPartitionRollback) of a pod with an inPlaceUpdate hook, which
//     the update step moves into PreparingUpdate to go back to the current
//     revision and the next refresh returns from it, because T6 compares the
//     pod with the update revision (LSV 1.7), round after round.
//   - determinism: two runs of the same scenario, configuration and seed give
//     the same trace (Result.Digest); Verify runs twice and checks it.
//   - actions-apply: every action applies to the cluster the plan was computed
//     from: its objects exist, a pod is in the state the action starts from, a
//     created name is free (except the instance-id collision upstream has too,
//     scale-and-budgets 5.5), the markPodNotReady flag is the effective one,
//     and the plan's update revision is the ControllerRevision of the template.
//   - status-counts: the plan's replicas, readyReplicas, availableReplicas,
//     updatedReplicas, updatedReadyReplicas and updatedAvailableReplicas equal
//     the simulator's own count over the same snapshot.
//   - image-pull-jobs: image pre-download writes (CreateImagePullJob,
//     LabelRevision, DeleteImagePullJob) only with the
//     PreDownloadImageForInPlaceUpdate gate on, none for an update revision
//     marked before the round; a job the round created is in the cluster
//     after it, pulling the image spec.template gives its container; once the
//     rollout is done no job of the CloneSet is left after a round whose
//     deletes applied.
//
// A violated invariant is recorded in the round's Step and in the Result's
// InvariantReport; the run goes on. A violation means the planner (or this
// package) is wrong: the invariants are not to be weakened to make one pass.
//
// # Output
//
// A Result has the timeline (one Step per round), the final state, the
// invariant reports and a digest; WriteText, JSON and SVG render it. The
// `clonesetplan simulate` command reads the settings from an optional
// clonesetcore/v1alpha1 Simulation document (manifest.LoadSimulation,
// FromManifest).
package sim
