package model

// TemplateTree renders the typed fields of a pod template as a JSON-like tree
// (the shape of PodTemplate.Raw), members left out when empty. It serves
// templates built in code, which have no Raw tree: in-place feasibility diffs
// trees and the revision hash is computed from one.
func TemplateTree(t PodTemplate) map[string]any {
	meta := map[string]any{}
	if len(t.Labels) > 0 {
		meta["labels"] = stringsToAny(t.Labels)
	}
	if len(t.Annotations) > 0 {
		meta["annotations"] = stringsToAny(t.Annotations)
	}
	spec := map[string]any{}
	if cs := containerTrees(t.Spec.Containers); cs != nil {
		spec["containers"] = cs
	}
	if cs := containerTrees(t.Spec.InitContainers); cs != nil {
		spec["initContainers"] = cs
	}
	if len(t.Spec.ReadinessGates) > 0 {
		var gs []any
		for _, g := range t.Spec.ReadinessGates {
			gs = append(gs, map[string]any{"conditionType": g})
		}
		spec["readinessGates"] = gs
	}
	if len(t.Spec.Volumes) > 0 {
		var vs []any
		for _, v := range t.Spec.Volumes {
			vs = append(vs, map[string]any{"name": v})
		}
		spec["volumes"] = vs
	}
	if len(t.Spec.TopologySpreadConstraints) > 0 {
		var ts []any
		for _, c := range t.Spec.TopologySpreadConstraints {
			ts = append(ts, map[string]any{"topologyKey": c.TopologyKey})
		}
		spec["topologySpreadConstraints"] = ts
	}
	if t.Spec.NodeName != "" {
		spec["nodeName"] = t.Spec.NodeName
	}
	if t.Spec.RestartPolicy != "" {
		spec["restartPolicy"] = t.Spec.RestartPolicy
	}
	if t.Spec.ActiveDeadlineSeconds != nil {
		spec["activeDeadlineSeconds"] = *t.Spec.ActiveDeadlineSeconds
	}
	return map[string]any{"metadata": meta, "spec": spec}
}

func stringsToAny(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func quantityMap(m map[string]Quantity) map[string]any {
	out := make(map[string]any, len(m))
	for k, q := range m {
		out[k] = q.String()
	}
	return out
}

func containerTrees(cs []Container) []any {
	if len(cs) == 0 {
		return nil
	}
	out := make([]any, 0, len(cs))
	for _, c := range cs {
		m := map[string]any{"name": c.Name}
		if c.Image != "" {
			m["image"] = c.Image
		}
		if len(c.Env) > 0 {
			var env []any
			for _, e := range c.Env {
				em := map[string]any{"name": e.Name}
				if e.HasValue || e.Value != "" {
					em["value"] = e.Value
				}
				from := map[string]any{}
				if e.FieldPath != "" {
					from["fieldRef"] = map[string]any{"fieldPath": e.FieldPath}
				}
				if e.IsConfigMapKeyRef() {
					from["configMapKeyRef"] = map[string]any{"name": e.ConfigMapName, "key": e.ConfigMapKey}
				}
				if len(from) > 0 {
					em["valueFrom"] = from
				}
				env = append(env, em)
			}
			m["env"] = env
		}
		res := map[string]any{}
		if len(c.Resources.Limits) > 0 {
			res["limits"] = quantityMap(c.Resources.Limits)
		}
		if len(c.Resources.Requests) > 0 {
			res["requests"] = quantityMap(c.Resources.Requests)
		}
		m["resources"] = res
		if len(c.ResizePolicy) > 0 {
			var rp []any
			for _, p := range c.ResizePolicy {
				rp = append(rp, map[string]any{"resourceName": p.ResourceName, "restartPolicy": p.RestartPolicy})
			}
			m["resizePolicy"] = rp
		}
		if c.RestartPolicy != "" {
			m["restartPolicy"] = c.RestartPolicy
		}
		out = append(out, m)
	}
	return out
}
