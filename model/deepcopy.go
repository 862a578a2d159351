package model

import (
	"maps"
	"slices"
)

// Deep copies of the model objects, for callers that keep or change objects
// the planner has read: a simulator applying plans, a controller adapter
// keeping a cache. A copy shares no map, slice or pointer with its original,
// so either can be changed without affecting the other. The only values
// shared are immutable ones: strings, times and the numbers inside Quantity,
// which no function of the library changes. Raw template trees are copied
// node by node (CopyTree).

// CopyTree deep-copies a JSON-like tree: nested map[string]any and []any are
// copied, every other value (string, bool, nil, json.Number, numbers) is
// immutable and kept.
func CopyTree(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = CopyTree(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = CopyTree(x)
		}
		return out
	default:
		return v
	}
}

func copyTreeMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	return CopyTree(m).(map[string]any)
}

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}

// copyEach copies a slice, each element through f; nil stays nil.
func copyEach[T any](s []T, f func(T) T) []T {
	if s == nil {
		return nil
	}
	out := make([]T, len(s))
	for i, x := range s {
		out[i] = f(x)
	}
	return out
}

// DeepCopy returns a copy of the requirements sharing no map with r.
func (r ResourceRequirements) DeepCopy() ResourceRequirements {
	return ResourceRequirements{Limits: maps.Clone(r.Limits), Requests: maps.Clone(r.Requests)}
}

func copyContainer(c Container) Container {
	c.Env = slices.Clone(c.Env)
	c.Resources = c.Resources.DeepCopy()
	c.ResizePolicy = slices.Clone(c.ResizePolicy)
	return c
}

// DeepCopy returns a copy of the spec sharing no slice, map or pointer with s.
func (s PodSpec) DeepCopy() PodSpec {
	s.Containers = copyEach(s.Containers, copyContainer)
	s.InitContainers = copyEach(s.InitContainers, copyContainer)
	s.ReadinessGates = slices.Clone(s.ReadinessGates)
	s.TopologySpreadConstraints = slices.Clone(s.TopologySpreadConstraints)
	s.Volumes = slices.Clone(s.Volumes)
	s.ActiveDeadlineSeconds = copyPtr(s.ActiveDeadlineSeconds)
	return s
}

// DeepCopy returns a copy of the template, its Raw tree included.
func (t PodTemplate) DeepCopy() PodTemplate {
	return PodTemplate{
		Labels:      maps.Clone(t.Labels),
		Annotations: maps.Clone(t.Annotations),
		Spec:        t.Spec.DeepCopy(),
		Raw:         copyTreeMap(t.Raw),
	}
}

// DeepCopy returns a copy of the selector; nil for a nil selector.
func (s *LabelSelector) DeepCopy() *LabelSelector {
	if s == nil {
		return nil
	}
	c := s.deepCopyValue()
	return &c
}

func (s LabelSelector) deepCopyValue() LabelSelector {
	return LabelSelector{
		MatchLabels: maps.Clone(s.MatchLabels),
		MatchExpressions: copyEach(s.MatchExpressions, func(r LabelSelectorRequirement) LabelSelectorRequirement {
			r.Values = slices.Clone(r.Values)
			return r
		}),
	}
}

func copyContainerStatus(s ContainerStatus) ContainerStatus {
	if s.Resources != nil {
		r := s.Resources.DeepCopy()
		s.Resources = &r
	}
	return s
}

// DeepCopy returns a copy of the pod; nil for a nil pod.
func (p *Pod) DeepCopy() *Pod {
	if p == nil {
		return nil
	}
	c := *p
	c.Labels = maps.Clone(p.Labels)
	c.Annotations = maps.Clone(p.Annotations)
	c.Finalizers = slices.Clone(p.Finalizers)
	c.OwnerReferences = slices.Clone(p.OwnerReferences)
	c.Spec = p.Spec.DeepCopy()
	c.Status.Conditions = slices.Clone(p.Status.Conditions)
	c.Status.ContainerStatuses = copyEach(p.Status.ContainerStatuses, copyContainerStatus)
	c.Status.InitContainerStatuses = copyEach(p.Status.InitContainerStatuses, copyContainerStatus)
	return &c
}

// DeepCopy returns a copy of the PVC; nil for a nil PVC.
func (c *PVC) DeepCopy() *PVC {
	if c == nil {
		return nil
	}
	out := *c
	out.Labels = maps.Clone(c.Labels)
	out.Annotations = maps.Clone(c.Annotations)
	out.OwnerReferences = slices.Clone(c.OwnerReferences)
	return &out
}

// DeepCopy returns a copy of the revision; nil for a nil revision.
func (r *Revision) DeepCopy() *Revision {
	if r == nil {
		return nil
	}
	out := *r
	out.Labels = maps.Clone(r.Labels)
	out.Annotations = maps.Clone(r.Annotations)
	out.Template = r.Template.DeepCopy()
	return &out
}

// DeepCopy returns a copy of the ImagePullJob; nil for a nil job.
func (j *ImagePullJob) DeepCopy() *ImagePullJob {
	if j == nil {
		return nil
	}
	out := *j
	out.Labels = maps.Clone(j.Labels)
	out.OwnerReferences = slices.Clone(j.OwnerReferences)
	return &out
}

// DeepCopy returns a copy of the node; nil for a nil node.
func (n *Node) DeepCopy() *Node {
	if n == nil {
		return nil
	}
	return &Node{Name: n.Name, Labels: maps.Clone(n.Labels)}
}

func copyHook(h *LifecycleHook) *LifecycleHook {
	if h == nil {
		return nil
	}
	return &LifecycleHook{LabelsHandler: maps.Clone(h.LabelsHandler), FinalizersHandler: slices.Clone(h.FinalizersHandler), MarkPodNotReady: h.MarkPodNotReady}
}

func copyRollingUpdate(ru RollingUpdateStrategy) RollingUpdateStrategy {
	ru.Partition = copyPtr(ru.Partition)
	ru.MaxUnavailable = copyPtr(ru.MaxUnavailable)
	ru.MaxSurge = copyPtr(ru.MaxSurge)
	if ps := ru.PriorityStrategy; ps != nil {
		ru.PriorityStrategy = &UpdatePriorityStrategy{
			WeightPriority: copyEach(ps.WeightPriority, func(t UpdatePriorityWeightTerm) UpdatePriorityWeightTerm {
				t.MatchSelector = t.MatchSelector.deepCopyValue()
				return t
			}),
			OrderPriority: slices.Clone(ps.OrderPriority),
		}
	}
	ru.ScatterStrategy = slices.Clone(ru.ScatterStrategy)
	if ip := ru.InPlaceUpdateStrategy; ip != nil {
		c := *ip
		c.ImagePreDownloadParallelism = copyPtr(ip.ImagePreDownloadParallelism)
		c.ImagePreDownloadTimeoutSeconds = copyPtr(ip.ImagePreDownloadTimeoutSeconds)
		c.ImagePreDownloadMinUpdatedReadyPods = copyPtr(ip.ImagePreDownloadMinUpdatedReadyPods)
		ru.InPlaceUpdateStrategy = &c
	}
	return ru
}

// DeepCopy returns a copy of the CloneSet, its v1alpha1 fields included; nil
// for a nil CloneSet.
func (cs *CloneSet) DeepCopy() *CloneSet {
	if cs == nil {
		return nil
	}
	c := *cs
	c.Labels = maps.Clone(cs.Labels)
	c.Annotations = maps.Clone(cs.Annotations)
	s := &c.Spec
	s.Replicas = copyPtr(cs.Spec.Replicas)
	s.Selector = cs.Spec.Selector.DeepCopy()
	s.Template = cs.Spec.Template.DeepCopy()
	s.VolumeClaimTemplates = copyEach(cs.Spec.VolumeClaimTemplates, func(t VolumeClaimTemplate) VolumeClaimTemplate {
		t.Labels = maps.Clone(t.Labels)
		t.Annotations = maps.Clone(t.Annotations)
		t.Raw = copyTreeMap(t.Raw)
		return t
	})
	s.ScaleStrategy.PodsToDelete = slices.Clone(cs.Spec.ScaleStrategy.PodsToDelete)
	s.ScaleStrategy.MaxUnavailable = copyPtr(cs.Spec.ScaleStrategy.MaxUnavailable)
	if ru := cs.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		r := copyRollingUpdate(*ru)
		s.UpdateStrategy.RollingUpdate = &r
	}
	s.RevisionHistoryLimit = copyPtr(cs.Spec.RevisionHistoryLimit)
	s.ProgressDeadlineSeconds = copyPtr(cs.Spec.ProgressDeadlineSeconds)
	if l := cs.Spec.Lifecycle; l != nil {
		s.Lifecycle = &Lifecycle{PreDelete: copyHook(l.PreDelete), InPlaceUpdate: copyHook(l.InPlaceUpdate), PreNormal: copyHook(l.PreNormal)}
	}
	c.Status.CollisionCount = copyPtr(cs.Status.CollisionCount)
	c.Status.Conditions = slices.Clone(cs.Status.Conditions)
	if v := cs.V1alpha1; v != nil {
		f := *v
		f.UpdateStrategy = copyRollingUpdate(v.UpdateStrategy)
		c.V1alpha1 = &f
	}
	return &c
}

// DeepCopy returns a copy of the scenario and of every object in it; nil for
// a nil scenario.
func (s *Scenario) DeepCopy() *Scenario {
	if s == nil {
		return nil
	}
	c := *s
	c.CloneSet = s.CloneSet.DeepCopy()
	c.Pods = copyEach(s.Pods, (*Pod).DeepCopy)
	c.PVCs = copyEach(s.PVCs, (*PVC).DeepCopy)
	c.Revisions = copyEach(s.Revisions, (*Revision).DeepCopy)
	c.Nodes = copyEach(s.Nodes, (*Node).DeepCopy)
	c.ImagePullJobs = copyEach(s.ImagePullJobs, (*ImagePullJob).DeepCopy)
	c.SetAside = slices.Clone(s.SetAside)
	return &c
}
