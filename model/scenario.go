package model

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Feature gate names the scenario may set.
const (
	GateCloneSetPartitionRollback              = "CloneSetPartitionRollback"
	GatePreparingUpdateAsUpdate                = "PreparingUpdateAsUpdate"
	GateRecreatePodWhenChangeVCTInCloneSetGate = "RecreatePodWhenChangeVCTInCloneSetGate"
	GateInPlaceWorkloadVerticalScaling         = "InPlaceWorkloadVerticalScaling"
	GateCloneSetShortHash                      = "CloneSetShortHash"
	GateInPlaceUpdateEnvFromMetadata           = "InPlaceUpdateEnvFromMetadata"
	GatePreDownloadImageForInPlaceUpdate       = "PreDownloadImageForInPlaceUpdate"
)

// FeatureGates are the controller feature gates that change CloneSet decisions.
// The zero value has every gate at its upstream default except
// InPlaceUpdateEnvFromMetadata; use DefaultFeatureGates.
type FeatureGates struct {
	CloneSetPartitionRollback              bool
	PreparingUpdateAsUpdate                bool
	RecreatePodWhenChangeVCTInCloneSetGate bool
	InPlaceWorkloadVerticalScaling         bool
	CloneSetShortHash                      bool
	// InPlaceUpdateEnvFromMetadata is on by default upstream.
	InPlaceUpdateEnvFromMetadata bool
	// PreDownloadImageForInPlaceUpdate makes the controller pre-download the
	// images of an in-place update with ImagePullJobs and delete them when
	// the rollout is done (docs/spec/image-predownload.md). Off by default
	// upstream, and forced off there without the KruiseDaemon gate or when
	// the API server does not serve ImagePullJobs: an adapter sets it only
	// when both hold.
	PreDownloadImageForInPlaceUpdate bool
}

// DefaultFeatureGates returns the upstream defaults.
func DefaultFeatureGates() FeatureGates {
	return FeatureGates{InPlaceUpdateEnvFromMetadata: true}
}

// KnownFeatureGates lists the gate names Set accepts, sorted.
func KnownFeatureGates() []string {
	names := []string{
		GateCloneSetPartitionRollback, GatePreparingUpdateAsUpdate,
		GateRecreatePodWhenChangeVCTInCloneSetGate, GateInPlaceWorkloadVerticalScaling,
		GateCloneSetShortHash, GateInPlaceUpdateEnvFromMetadata,
		GatePreDownloadImageForInPlaceUpdate,
	}
	sort.Strings(names)
	return names
}

// Set switches the named gate; an unknown name is an error.
func (g *FeatureGates) Set(name string, on bool) error {
	switch name {
	case GateCloneSetPartitionRollback:
		g.CloneSetPartitionRollback = on
	case GatePreparingUpdateAsUpdate:
		g.PreparingUpdateAsUpdate = on
	case GateRecreatePodWhenChangeVCTInCloneSetGate:
		g.RecreatePodWhenChangeVCTInCloneSetGate = on
	case GateInPlaceWorkloadVerticalScaling:
		g.InPlaceWorkloadVerticalScaling = on
	case GateCloneSetShortHash:
		g.CloneSetShortHash = on
	case GateInPlaceUpdateEnvFromMetadata:
		g.InPlaceUpdateEnvFromMetadata = on
	case GatePreDownloadImageForInPlaceUpdate:
		g.PreDownloadImageForInPlaceUpdate = on
	default:
		return fmt.Errorf("unknown feature gate %q (known: %s)", name, strings.Join(KnownFeatureGates(), ", "))
	}
	return nil
}

// ControllerFlags are controller-wide flags (not gates).
type ControllerFlags struct {
	// ScalingExcludePreparingDelete is the cloneset-scaling-exclude-preparing-delete flag.
	ScalingExcludePreparingDelete bool
}

// SetAside records an object of the scenario that the planner leaves out of every
// decision, with the reason.
type SetAside struct {
	Kind   string
	Name   string
	Reason string
}

// Scenario is everything one reconcile of one CloneSet sees: the objects, the
// clock, the feature gates and the controller flags.
type Scenario struct {
	Description string
	// Now is the planner's clock.
	Now time.Time
	// NowFromObjects is true when Now is not a clock anybody gave but the
	// newest timestamp of the objects (package manifest's default when neither
	// its Options.Now nor a Scenario document's now is set): plans and their
	// text say so.
	NowFromObjects bool
	Gates          FeatureGates
	Controller     ControllerFlags

	CloneSet *CloneSet
	// Pods are the pods that belong to the CloneSet: owned by it (through a
	// controller owner reference), or orphans its selector matches (the
	// controller would adopt them). Terminating and terminal pods and owned pods
	// that stopped matching the selector are included; the planner sorts them out.
	Pods []*Pod
	// PVCs are the PVCs owned by the CloneSet or by one of its pods.
	PVCs      []*PVC
	Revisions []*Revision
	Nodes     []*Node
	// ImagePullJobs are the OpenKruise ImagePullJobs the CloneSet controls
	// (a controller owner reference to it): with the
	// PreDownloadImageForInPlaceUpdate gate on, the planner deletes them once
	// the rollout is done (docs/spec/image-predownload.md). Others are left
	// out of every decision.
	ImagePullJobs []*ImagePullJob
	// SetAside lists pods and PVCs of the input that belong to something else.
	SetAside []SetAside
}
