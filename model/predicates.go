package model

import (
	"strings"
	"time"
)

// ShortHash returns the part of s after its last '-', the whole s when it has no
// '-', and "" for "".
func ShortHash(s string) string {
	if i := strings.LastIndexByte(s, '-'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// RevisionMatches reports whether a controller-revision-hash label value h
// designates the revision named rev: equal, or equal short hashes (so the short
// form written under CloneSetShortHash matches, and, as upstream, a foreign prefix
// is ignored).
func RevisionMatches(h, rev string) bool {
	return h == rev || ShortHash(h) == ShortHash(rev)
}

// RevisionLabel returns the pod's controller-revision-hash label ("" if absent).
func (p *Pod) RevisionLabel() string { return p.Labels[LabelRevisionHash] }

// InRevision reports whether the pod belongs to the revision named rev.
func (p *Pod) InRevision(rev string) bool { return RevisionMatches(p.Labels[LabelRevisionHash], rev) }

// LifecycleState returns the pod's lifecycle state label ("" if absent).
func (p *Pod) LifecycleState() string { return p.Labels[LabelLifecycleState] }

// InstanceID returns the pod's instance-id label ("" if absent).
func (p *Pod) InstanceID() string { return p.Labels[LabelInstanceID] }

// IsActive reports whether the pod is active: not Succeeded/Failed and not terminating.
func (p *Pod) IsActive() bool {
	return p.Status.Phase != PodSucceeded && p.Status.Phase != PodFailed && p.DeletionTimestamp.IsZero()
}

// Condition returns the first pod condition of the given type, or nil.
func (p *Pod) Condition(condType string) *PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == condType {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// Container returns the spec container of the given name, or nil.
func (p *Pod) Container(name string) *Container {
	for i := range p.Spec.Containers {
		if p.Spec.Containers[i].Name == name {
			return &p.Spec.Containers[i]
		}
	}
	return nil
}

// ContainerStatus returns the status of the container of the given name, or
// nil.
func (p *Pod) ContainerStatus(name string) *ContainerStatus {
	for i := range p.Status.ContainerStatuses {
		if p.Status.ContainerStatuses[i].Name == name {
			return &p.Status.ContainerStatuses[i]
		}
	}
	return nil
}

// IsReady reports whether the pod's Ready condition is True (Kubernetes IsPodReady).
func (p *Pod) IsReady() bool {
	c := p.Condition(ConditionReady)
	return c != nil && c.Status == "True"
}

// ReadyTime returns the Ready condition's lastTransitionTime when the pod is
// ready, else the zero time.
func (p *Pod) ReadyTime() time.Time {
	c := p.Condition(ConditionReady)
	if c == nil || c.Status != "True" {
		return time.Time{}
	}
	return c.LastTransitionTime
}

// IsScheduled reports whether spec.nodeName is set.
func (p *Pod) IsScheduled() bool { return p.Spec.NodeName != "" }

// InPlaceUpdateReadyOK reports whether the InPlaceUpdateReady condition is absent or True.
func (p *Pod) InPlaceUpdateReadyOK() bool {
	c := p.Condition(ConditionInPlaceUpdateReady)
	return c == nil || c.Status == "True"
}

// KubernetesAvailable is Kubernetes' IsPodAvailable: Ready is True and, when
// minReadySeconds > 0, its lastTransitionTime is set and lastTransitionTime +
// minReadySeconds is strictly before now.
func (p *Pod) KubernetesAvailable(minReadySeconds int32, now time.Time) bool {
	c := p.Condition(ConditionReady)
	if c == nil || c.Status != "True" {
		return false
	}
	if minReadySeconds == 0 {
		return true
	}
	if c.LastTransitionTime.IsZero() {
		return false
	}
	return c.LastTransitionTime.Add(time.Duration(minReadySeconds) * time.Second).Before(now)
}

// IsUpdateReady is the controller's IsPodUpdateReady: Running, Kubernetes-available
// and the InPlaceUpdateReady condition absent or True.
func (p *Pod) IsUpdateReady(minReadySeconds int32, now time.Time) bool {
	return p.Status.Phase == PodRunning && p.KubernetesAvailable(minReadySeconds, now) && p.InPlaceUpdateReadyOK()
}

// IsAvailable is the CloneSet notion of availability used by budgets, status and
// deletion ranking: lifecycle state "" or Normal and IsUpdateReady.
func (p *Pod) IsAvailable(minReadySeconds int32, now time.Time) bool {
	return AvailableState(p.LifecycleState()) && p.IsUpdateReady(minReadySeconds, now)
}

// AvailableState reports whether a pod in lifecycle state s (the label's
// value, "" when absent) can be available (IsAvailable): "" or Normal.
func AvailableState(s string) bool { return s == "" || s == StateNormal }

// IsStatusReady is the status counters' notion of ready: Running, Ready True, and
// InPlaceUpdateReady absent or True (lifecycle state ignored).
func (p *Pod) IsStatusReady() bool {
	return p.Status.Phase == PodRunning && p.IsReady() && p.InPlaceUpdateReadyOK()
}

// Readiness returns IsStatusReady and IsUpdateReady(minReadySeconds, now) with
// one pass over the conditions, for callers that need both (IsAvailable is
// IsUpdateReady in lifecycle state "" or Normal).
func (p *Pod) Readiness(minReadySeconds int32, now time.Time) (statusReady, updateReady bool) {
	var ready, inPlace *PodCondition
	for i := range p.Status.Conditions {
		c := &p.Status.Conditions[i]
		switch {
		case ready == nil && c.Type == ConditionReady:
			ready = c
		case inPlace == nil && c.Type == ConditionInPlaceUpdateReady:
			inPlace = c
		}
	}
	if p.Status.Phase != PodRunning || ready == nil || ready.Status != "True" || (inPlace != nil && inPlace.Status != "True") {
		return false, false
	}
	if minReadySeconds == 0 {
		return true, true
	}
	t := ready.LastTransitionTime
	return true, !t.IsZero() && t.Add(time.Duration(minReadySeconds)*time.Second).Before(now)
}

// HasSpecifiedDeleteLabel reports whether the pod carries the specified-delete label.
func (p *Pod) HasSpecifiedDeleteLabel() bool {
	_, ok := p.Labels[LabelSpecifiedDelete]
	return ok
}

// PhaseRank orders phases for the default sort and the deletion ranking:
// Pending 0, Unknown 1, Running 2, anything else 0.
func PhaseRank(phase string) int {
	switch phase {
	case PodUnknown:
		return 1
	case PodRunning:
		return 2
	}
	return 0
}

// MaxRestarts returns the highest restartCount over the container statuses.
func (p *Pod) MaxRestarts() int32 {
	var m int32
	for _, s := range p.Status.ContainerStatuses {
		if s.RestartCount > m {
			m = s.RestartCount
		}
	}
	return m
}

// MaxSidecarRestarts returns the highest restartCount over init container
// statuses whose init container has restartPolicy Always (sidecars).
func (p *Pod) MaxSidecarRestarts() int32 {
	var m int32
	for _, s := range p.Status.InitContainerStatuses {
		for _, c := range p.Spec.InitContainers {
			if c.Name == s.Name && c.RestartPolicy == "Always" && s.RestartCount > m {
				m = s.RestartCount
			}
		}
	}
	return m
}

// GraceValue returns the in-place grace annotation value: the new key when
// present, else the legacy key, else "".
func (p *Pod) GraceValue() string {
	if v, ok := p.Annotations[AnnotationInPlaceUpdateGrace]; ok {
		return v
	}
	return p.Annotations[AnnotationInPlaceUpdateGraceLegacy]
}

// InPlaceState returns the in-place update state annotation (new key, else legacy).
func (p *Pod) InPlaceState() (string, bool) {
	if v, ok := p.Annotations[AnnotationInPlaceUpdateState]; ok {
		return v, true
	}
	v, ok := p.Annotations[AnnotationInPlaceUpdateStateLegacy]
	return v, ok
}

// OwnedBy reports whether the reference designates the CloneSet cs: a controller
// reference whose UID equals the CloneSet's, or, when either UID is empty, whose
// kind is CloneSet and name equals the CloneSet's.
func (r *OwnerReference) OwnedBy(cs *CloneSet) bool {
	if r == nil || !r.Controller {
		return false
	}
	if r.UID != "" && cs.UID != "" {
		return r.UID == cs.UID
	}
	return r.Kind == "CloneSet" && r.Name == cs.Name
}
