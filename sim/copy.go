package sim

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/clonecore/cloneset/model"
)

// Deep copies of the model objects the simulator mutates. Raw template trees
// are copied too (copyTree), so no two objects ever share mutable state.

// copyTree deep-copies a JSON-like tree (map[string]any, []any, scalars).
func copyTree(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = copyTree(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = copyTree(x)
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
	return copyTree(m).(map[string]any)
}

func copyResources(r model.ResourceRequirements) model.ResourceRequirements {
	return model.ResourceRequirements{Limits: maps.Clone(r.Limits), Requests: maps.Clone(r.Requests)}
}

func copyContainers(cs []model.Container) []model.Container {
	if cs == nil {
		return nil
	}
	out := make([]model.Container, len(cs))
	for i, c := range cs {
		c.Env = append([]model.EnvVar(nil), c.Env...)
		c.Resources = copyResources(c.Resources)
		c.ResizePolicy = append([]model.ContainerResizePolicy(nil), c.ResizePolicy...)
		out[i] = c
	}
	return out
}

func copyPodSpec(s model.PodSpec) model.PodSpec {
	s.Containers = copyContainers(s.Containers)
	s.InitContainers = copyContainers(s.InitContainers)
	s.ReadinessGates = slices.Clone(s.ReadinessGates)
	s.TopologySpreadConstraints = append([]model.TopologySpreadConstraint(nil), s.TopologySpreadConstraints...)
	s.Volumes = slices.Clone(s.Volumes)
	if s.ActiveDeadlineSeconds != nil {
		v := *s.ActiveDeadlineSeconds
		s.ActiveDeadlineSeconds = &v
	}
	return s
}

func copyTemplate(t model.PodTemplate) model.PodTemplate {
	return model.PodTemplate{
		Labels:      maps.Clone(t.Labels),
		Annotations: maps.Clone(t.Annotations),
		Spec:        copyPodSpec(t.Spec),
		Raw:         copyTreeMap(t.Raw),
	}
}

func copyPod(p *model.Pod) *model.Pod {
	if p == nil {
		return nil
	}
	c := *p
	c.Labels = maps.Clone(p.Labels)
	c.Annotations = maps.Clone(p.Annotations)
	c.Finalizers = slices.Clone(p.Finalizers)
	c.OwnerReferences = append([]model.OwnerReference(nil), p.OwnerReferences...)
	c.Spec = copyPodSpec(p.Spec)
	c.Status.Conditions = append([]model.PodCondition(nil), p.Status.Conditions...)
	c.Status.ContainerStatuses = copyContainerStatuses(p.Status.ContainerStatuses)
	c.Status.InitContainerStatuses = copyContainerStatuses(p.Status.InitContainerStatuses)
	return &c
}

func copyContainerStatuses(in []model.ContainerStatus) []model.ContainerStatus {
	if in == nil {
		return nil
	}
	out := make([]model.ContainerStatus, len(in))
	for i, s := range in {
		if s.Resources != nil {
			r := copyResources(*s.Resources)
			s.Resources = &r
		}
		out[i] = s
	}
	return out
}

func copyPVC(c *model.PVC) *model.PVC {
	if c == nil {
		return nil
	}
	out := *c
	out.Labels = maps.Clone(c.Labels)
	out.Annotations = maps.Clone(c.Annotations)
	out.OwnerReferences = append([]model.OwnerReference(nil), c.OwnerReferences...)
	return &out
}

func copyRevision(r *model.Revision) *model.Revision {
	if r == nil {
		return nil
	}
	out := *r
	out.Labels = maps.Clone(r.Labels)
	out.Annotations = maps.Clone(r.Annotations)
	out.Template = copyTemplate(r.Template)
	return &out
}

func copyIntOrPercent(v *model.IntOrPercent) *model.IntOrPercent {
	if v == nil {
		return nil
	}
	c := *v
	return &c
}

func copyInt32(v *int32) *int32 {
	if v == nil {
		return nil
	}
	c := *v
	return &c
}

func copyHook(h *model.LifecycleHook) *model.LifecycleHook {
	if h == nil {
		return nil
	}
	return &model.LifecycleHook{LabelsHandler: maps.Clone(h.LabelsHandler), FinalizersHandler: slices.Clone(h.FinalizersHandler), MarkPodNotReady: h.MarkPodNotReady}
}

func copyCloneSet(cs *model.CloneSet) *model.CloneSet {
	if cs == nil {
		return nil
	}
	c := *cs
	c.Labels = maps.Clone(cs.Labels)
	c.Annotations = maps.Clone(cs.Annotations)
	s := &c.Spec
	s.Replicas = copyInt32(cs.Spec.Replicas)
	if cs.Spec.Selector != nil {
		sel := *cs.Spec.Selector
		sel.MatchLabels = maps.Clone(sel.MatchLabels)
		sel.MatchExpressions = append([]model.LabelSelectorRequirement(nil), sel.MatchExpressions...)
		s.Selector = &sel
	}
	s.Template = copyTemplate(cs.Spec.Template)
	s.VolumeClaimTemplates = append([]model.VolumeClaimTemplate(nil), cs.Spec.VolumeClaimTemplates...)
	s.ScaleStrategy.PodsToDelete = slices.Clone(cs.Spec.ScaleStrategy.PodsToDelete)
	s.ScaleStrategy.MaxUnavailable = copyIntOrPercent(cs.Spec.ScaleStrategy.MaxUnavailable)
	if ru := cs.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		r := *ru
		r.Partition = copyIntOrPercent(ru.Partition)
		r.MaxSurge = copyIntOrPercent(ru.MaxSurge)
		r.MaxUnavailable = copyIntOrPercent(ru.MaxUnavailable)
		r.ScatterStrategy = append([]model.ScatterTerm(nil), ru.ScatterStrategy...)
		if ru.InPlaceUpdateStrategy != nil {
			ip := *ru.InPlaceUpdateStrategy
			r.InPlaceUpdateStrategy = &ip
		}
		s.UpdateStrategy.RollingUpdate = &r
	}
	s.RevisionHistoryLimit = copyInt32(cs.Spec.RevisionHistoryLimit)
	s.ProgressDeadlineSeconds = copyInt32(cs.Spec.ProgressDeadlineSeconds)
	if l := cs.Spec.Lifecycle; l != nil {
		s.Lifecycle = &model.Lifecycle{PreDelete: copyHook(l.PreDelete), InPlaceUpdate: copyHook(l.InPlaceUpdate), PreNormal: copyHook(l.PreNormal)}
	}
	c.Status.CollisionCount = copyInt32(cs.Status.CollisionCount)
	c.Status.Conditions = append([]model.CloneSetCondition(nil), cs.Status.Conditions...)
	if cs.V1alpha1 != nil {
		v := *cs.V1alpha1
		c.V1alpha1 = &v
	}
	return &c
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return `"` + err.Error() + `"`
	}
	return string(b)
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
