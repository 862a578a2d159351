package worldgen

import (
	"time"

	"github.com/clonecore/cloneset/model"
)

// Epoch is the clock of every generated world (model.Scenario.Now); all the
// timestamps of a world lie before it.
var Epoch = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)

// Marker names of the lifecycle hooks a world with Options.Hooks declares.
const (
	// FinalizerPreDelete is the finalizer of the preDelete hook: a pod that
	// carries it goes to PreparingDelete instead of being deleted.
	FinalizerPreDelete = "example.com/drain-connections"
	// LabelHoldUpdate is the label (value "true") of the inPlaceUpdate hook: a
	// pod that carries it waits in PreparingUpdate before an in-place update.
	LabelHoldUpdate = "example.com/hold-update"
	// LabelWarmedUp is the label (value "true") of the preNormal hook: a new
	// pod stays in PreparingNormal until it carries it.
	LabelWarmedUp = "example.com/warmed-up"
	// LabelRack is a pod label with values r0 to r3 that the update priority
	// and scatter strategies of Options.UpdatePriority select on.
	LabelRack = "example.com/rack"
	// LabelZone is the node label of the zone (zone-a, zone-b, ...).
	LabelZone = "topology.kubernetes.io/zone"
	// LabelHostname is the node label of the host (the node's name).
	LabelHostname = "kubernetes.io/hostname"
)

// Options describe a world. Shares are fractions in [0, 1] of the active pods
// (Pods), rounded to whole pods; counts are numbers of pods or names. The zero
// value, with Pods set, is a v1beta1 CloneSet at rest: every pod ready at the
// one revision, no hook, no deletion, no claim.
type Options struct {
	// Seed selects the world: the same Options always give the same world.
	Seed int64
	// Pods is the number of active pods of the CloneSet (not terminating).
	Pods int
	// Replicas is spec.replicas; nil means Pods.
	Replicas *int32
	// APIVersion is the CloneSet's API version: model.APIVersionV1beta1 (the
	// default) or model.APIVersionV1alpha1.
	APIVersion string
	// Name and Namespace of the CloneSet; "sample" and "default" when empty.
	Name, Namespace string
	// Gates are the controller feature gates; nil means
	// model.DefaultFeatureGates().
	Gates *model.FeatureGates

	// Rollout puts the world in the middle of a rolling update: spec.template
	// carries a new image, status.currentRevision names the previous revision,
	// and Updated of the pods are already at the update revision.
	Rollout bool
	// Updated is the share of pods at the update revision (Rollout only).
	Updated float64
	// History is the number of older ControllerRevisions kept besides the
	// current and update ones (no pod belongs to them).
	History int
	// Policy is rollingUpdate.podUpdatePolicy (model.PolicyReCreate when empty).
	Policy string
	// Partition, MaxSurge and MaxUnavailable are the rolling-update budget
	// (the webhook defaults 0, 0 and "20%" when nil).
	Partition, MaxSurge, MaxUnavailable *model.IntOrPercent
	// ScaleMaxUnavailable is scaleStrategy.maxUnavailable (unset when nil).
	ScaleMaxUnavailable *model.IntOrPercent
	// Paused is rollingUpdate.paused.
	Paused bool
	// GracePeriodSeconds is inPlaceUpdateStrategy.gracePeriodSeconds.
	GracePeriodSeconds int32
	// MinReadySeconds is spec.minReadySeconds.
	MinReadySeconds int32
	// UpdatePriority adds a weight priority strategy (rack r1 first) and a
	// scatter strategy (rack r2) to the rolling update, and the LabelRack
	// label to every pod.
	UpdatePriority bool

	// Hooks declares the three lifecycle hooks (FinalizerPreDelete,
	// LabelHoldUpdate, LabelWarmedUp). Without it the lifecycle states of
	// States other than Updating are not generated.
	Hooks bool
	// Hooked is the share of pods that carry the preDelete finalizer and the
	// inPlaceUpdate label, so that deleting or updating them goes through
	// PreparingDelete or PreparingUpdate.
	Hooked float64
	// States are the shares of pods held in lifecycle states other than
	// Normal.
	States States

	// Readiness are the shares of pods that are not ready and available.
	Readiness Readiness

	// Zones and PodsPerNode shape the topology: ceil(Pods/PodsPerNode) Node
	// objects (8 pods a node when 0) spread over Zones zones (3 when 0), each
	// pod on a random node.
	Zones, PodsPerNode int
	// SpreadConstraints adds topology spread constraints on the zone and the
	// hostname to the pod template (and to the pods).
	SpreadConstraints bool

	// SpecifiedDelete is the number of pods labelled apps.kruise.io/specified-delete.
	SpecifiedDelete int
	// PodsToDelete is the number of other pods named in
	// scaleStrategy.podsToDelete.
	PodsToDelete int
	// StalePodsToDelete is the number of names in podsToDelete of pods that no
	// longer exist (v1beta1 only: the v1alpha1 webhook rejects them).
	StalePodsToDelete int

	// VolumeClaimTemplates is the number of volume claim templates; every pod
	// (terminating ones included) has one PVC per template.
	VolumeClaimTemplates int
	// PVCReuse is scaleStrategy.enablePVCReuse (not disablePVCReuse in v1alpha1).
	PVCReuse bool
	// OrphanPVCs is the number of instance ids whose PVCs are left over from
	// pods that are gone.
	OrphanPVCs int

	// DeletionCosts is the share of pods with a pod-deletion-cost annotation.
	DeletionCosts float64
	// Terminating is the number of extra pods being deleted (deletionTimestamp
	// set), besides the Pods active ones.
	Terminating int

	// ImagePullJobs is the number of ImagePullJobs the CloneSet controls,
	// pulling the update revision's image (the first named
	// "<update revision>-main" as the controller names it, the others with a
	// number after it): with the PreDownloadImageForInPlaceUpdate gate the
	// planner deletes them once the rollout is done.
	ImagePullJobs int
}

// States are shares of the scheduled, started pods held in lifecycle states.
// A generated state is one the pod waits in: the refresh step of the planner
// leaves it alone.
type States struct {
	// PreparingDelete pods carry the preDelete finalizer (Hooks only).
	PreparingDelete float64
	// PreparingUpdate pods are at an old revision and carry the inPlaceUpdate
	// label (Hooks and Rollout only).
	PreparingUpdate float64
	// Updating pods are at the update revision with an in-place update whose
	// new image is not running yet (Rollout and an in-place policy only).
	Updating float64
	// Updated pods are at the update revision and wait for the inPlaceUpdate
	// label to come back (Hooks, Rollout and an in-place policy only).
	Updated float64
}

// Readiness are the shares of pods in each stage before being available; the
// stages are exclusive and the other pods are ready and available.
type Readiness struct {
	// Unscheduled pods have no node (phase Pending, PreparingNormal).
	Unscheduled float64
	// Pending pods are scheduled and still creating their containers.
	Pending float64
	// NotReady pods run with a Ready condition that is False.
	NotReady float64
	// Maturing pods are Ready for less than MinReadySeconds (ready when
	// MinReadySeconds is 0).
	Maturing float64
}

func intOrPercent(s string) *model.IntOrPercent {
	v := model.FromString(s)
	return &v
}

func int32Ptr(v int32) *int32 { return &v }

// RealisticOptions are the options of Realistic: a v1beta1 CloneSet 40 %
// through an in-place rolling update with maxSurge 10 % and maxUnavailable
// 10 %, half of the surge in use (spec.replicas is 95 % of the pods), three lifecycle hooks holding 30 % of the pods (and a
// few pods waiting in PreparingDelete, PreparingUpdate, Updating and
// Updated), zone and hostname spread constraints over 3 zones of 8-pod nodes,
// 0.5 % of the pods labelled specified-delete and 0.5 % named in podsToDelete
// (plus two names of pods that are gone), one volume claim template with its
// PVCs and a few left-over ones, 0.2 % of the pods terminating, 3 % of the
// pods not ready in some way, minReadySeconds 10, deletion costs on 10 % of the
// pods and two older revisions in the history.
func RealisticOptions(seed int64, pods int) Options {
	return Options{
		Seed:                 seed,
		Pods:                 pods,
		Replicas:             int32Ptr(int32(pods - pods/20)),
		Rollout:              true,
		Updated:              0.4,
		History:              2,
		Policy:               model.PolicyInPlaceIfPossible,
		MaxSurge:             intOrPercent("10%"),
		MaxUnavailable:       intOrPercent("10%"),
		MinReadySeconds:      10,
		Hooks:                true,
		Hooked:               0.3,
		States:               States{PreparingDelete: 0.002, PreparingUpdate: 0.005, Updating: 0.005, Updated: 0.002},
		Readiness:            Readiness{Unscheduled: 0.002, Pending: 0.005, NotReady: 0.01, Maturing: 0.01},
		SpreadConstraints:    true,
		SpecifiedDelete:      max(pods/200, 1),
		PodsToDelete:         max(pods/200, 1),
		StalePodsToDelete:    2,
		VolumeClaimTemplates: 1,
		OrphanPVCs:           max(pods/500, 1),
		DeletionCosts:        0.1,
		Terminating:          pods / 500,
	}
}

// Realistic returns the world of RealisticOptions(seed, pods): a CloneSet in
// the middle of a rolling update with maxSurge, lifecycle hooks, topology
// spread constraints and specified deletes. Its plan creates the other half of
// the surge pods.
func Realistic(seed int64, pods int) *model.Scenario {
	return Generate(RealisticOptions(seed, pods))
}

// ScaleInOptions are RealisticOptions scaled in: spec.replicas is 90 % of the
// pods, without maxSurge, specified deletes or pods in PreparingDelete, so that
// the scale phase ranks the pods and removes the first ones.
func ScaleInOptions(seed int64, pods int) Options {
	o := RealisticOptions(seed, pods)
	o.Replicas = int32Ptr(int32(pods - pods/10))
	o.MaxSurge = nil
	o.SpecifiedDelete, o.PodsToDelete = 0, 0
	o.States.PreparingDelete = 0
	return o
}

// ScaleIn returns the world of ScaleInOptions(seed, pods).
func ScaleIn(seed int64, pods int) *model.Scenario {
	return Generate(ScaleInOptions(seed, pods))
}

// UpdateOptions are RealisticOptions with nothing for the scale phase to do
// (replicas equal to the pods, no maxSurge, no specified delete, no pod in
// PreparingDelete) and maxUnavailable 20 %, with the update priority and
// scatter strategies: the planner refreshes every pod, orders the candidates
// and updates a fifth of the pods in place.
func UpdateOptions(seed int64, pods int) Options {
	o := RealisticOptions(seed, pods)
	o.Replicas = nil
	o.MaxSurge = nil
	o.MaxUnavailable = intOrPercent("20%")
	o.SpecifiedDelete, o.PodsToDelete = 0, 0
	o.States.PreparingDelete = 0
	o.UpdatePriority = true
	return o
}

// Update returns the world of UpdateOptions(seed, pods).
func Update(seed int64, pods int) *model.Scenario {
	return Generate(UpdateOptions(seed, pods))
}
