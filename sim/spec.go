package sim

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/clonecore/cloneset/model"
)

// ErrRejected wraps the webhook's verdict on a refused Change.
var ErrRejected = errors.New("rejected by the validating webhook")

// Change applies a user's change to the cluster at its clock and returns a
// description of what was done. A spec change is one update of the object: its
// metadata.generation goes up by one. It goes through the validating webhook
// (model.ValidateAdmission) and is refused, changing nothing, when it
// introduces a failure the stored object did not already have; a change of
// replicas alone models the scale subresource (kubectl scale), which bypasses
// the webhook. Pods named in DeletePods are deleted directly.
func (c *Cluster) Change(ch Change) (string, error) {
	desc := ch.Describe()
	next := c.cs.DeepCopy()
	spec := &next.Spec
	specChanged := false
	if ch.Replicas != nil {
		r := *ch.Replicas
		spec.Replicas = &r
		specChanged = true
	}
	if ch.changesTemplate() {
		if err := changeTemplate(&spec.Template, ch); err != nil {
			return desc, fmt.Errorf("%w: %v", ErrRejected, err)
		}
		specChanged = true
	}
	if ch.Partition != nil || ch.Paused != nil || ch.MaxSurge != nil || ch.MaxUnavailable != nil {
		ru := spec.UpdateStrategy.RollingUpdate
		if ru == nil {
			return desc, fmt.Errorf("%w: spec.updateStrategy has no rollingUpdate block (type %s)", ErrRejected, spec.UpdateStrategy.Type)
		}
		if ch.Partition != nil {
			ru.Partition = copyIntOrPercent(ch.Partition)
		}
		if ch.Paused != nil {
			ru.Paused = *ch.Paused
		}
		if ch.MaxSurge != nil {
			ru.MaxSurge = copyIntOrPercent(ch.MaxSurge)
		}
		if ch.MaxUnavailable != nil {
			ru.MaxUnavailable = copyIntOrPercent(ch.MaxUnavailable)
		}
		if next.V1alpha1 != nil {
			u := &next.V1alpha1.UpdateStrategy
			u.Partition, u.Paused, u.MaxSurge, u.MaxUnavailable = copyIntOrPercent(ru.Partition), ru.Paused, copyIntOrPercent(ru.MaxSurge), copyIntOrPercent(ru.MaxUnavailable)
		}
		specChanged = true
	}
	picked := c.pickPodsToDelete(ch.PickPodsToDelete, spec.ScaleStrategy.PodsToDelete)
	if len(ch.PodsToDelete) > 0 || len(picked) > 0 {
		for _, n := range append(append([]string(nil), ch.PodsToDelete...), picked...) {
			if !slices.Contains(spec.ScaleStrategy.PodsToDelete, n) {
				spec.ScaleStrategy.PodsToDelete = append(spec.ScaleStrategy.PodsToDelete, n)
			}
		}
		specChanged = true
		if len(picked) > 0 {
			desc += fmt.Sprintf(" (%s)", strings.Join(picked, ", "))
		}
	}
	if specChanged {
		scaleOnly := ch.Replicas != nil && !ch.changesTemplate() && ch.Partition == nil && ch.Paused == nil &&
			ch.MaxSurge == nil && ch.MaxUnavailable == nil && len(ch.PodsToDelete) == 0 && len(picked) == 0
		if !scaleOnly {
			if err := c.admit(next); err != nil {
				return desc, err
			}
		}
		next.Generation = c.cs.Generation + 1
		c.cs = next
	}
	var missing []string
	for _, name := range ch.DeletePods {
		p := c.pods[name]
		if p == nil || !p.DeletionTimestamp.IsZero() {
			missing = append(missing, name)
			continue
		}
		p.DeletionTimestamp = c.now
		c.logf("%s: deleted by the user", name)
	}
	c.sync()
	if len(missing) > 0 {
		return desc, fmt.Errorf("pods %s not found or already terminating", strings.Join(missing, ", "))
	}
	return desc, nil
}

// admit runs the validating webhook on the new object against the stored one:
// failures the stored object already had are tolerated (it may have been
// admitted under another API version or scaled through the scale
// subresource), new ones reject the change.
func (c *Cluster) admit(next *model.CloneSet) error {
	pods := make([]*model.Pod, 0, len(c.pods))
	for _, n := range c.podNames() {
		pods = append(pods, c.pods[n])
	}
	had := map[string]bool{}
	for _, fe := range model.Validate(c.cs, pods) {
		had[fe.Rule+" "+fe.Path] = true
	}
	var msgs []string
	for _, fe := range model.ValidateAdmission(c.cs, next, pods) {
		if had[fe.Rule+" "+fe.Path] {
			continue
		}
		msgs = append(msgs, fe.Error())
	}
	// The both-below-1 rule is judged as the v1alpha1 webhook states it (A17,
	// maxSurge counted) even when the stored object already broke the v1beta1
	// form of it (B17): a change must leave some pod able to move.
	probe := next.DeepCopy()
	if ru := probe.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		ru.Paused = false
		if r, s, u := budgetOf(probe); r > 0 && s < 1 && u < 1 {
			msgs = append(msgs, "maxUnavailable and maxSurge would both resolve below 1")
		}
	}
	if len(msgs) > 0 {
		return fmt.Errorf("%w: %s", ErrRejected, strings.Join(msgs, "; "))
	}
	return nil
}

// pickPodsToDelete draws n active pods not listed yet, in name order.
func (c *Cluster) pickPodsToDelete(n int, listed []string) []string {
	if n <= 0 {
		return nil
	}
	var cands []string
	for _, name := range c.podNames() {
		p := c.pods[name]
		if p.IsActive() && !slices.Contains(listed, name) {
			cands = append(cands, name)
		}
	}
	var out []string
	for len(out) < n && len(cands) > 0 {
		i := c.rng.IntN(len(cands))
		out = append(out, cands[i])
		cands = append(cands[:i], cands[i+1:]...)
	}
	return out
}

// changeTemplate edits both the typed template and its raw tree.
func changeTemplate(t *model.PodTemplate, ch Change) error {
	raw := t.Raw
	if raw == nil {
		raw = model.TemplateTree(*t)
	}
	if raw != nil {
		raw = model.CopyTree(raw).(map[string]any)
	}
	if ch.Image != "" || len(ch.Env) > 0 {
		i := 0
		if ch.Container != "" {
			i = -1
			for j, ctr := range t.Spec.Containers {
				if ctr.Name == ch.Container {
					i = j
				}
			}
			if i < 0 {
				return fmt.Errorf("the template has no container %q", ch.Container)
			}
		}
		if len(t.Spec.Containers) == 0 {
			return errors.New("the template has no container")
		}
		spec, _ := raw["spec"].(map[string]any)
		list, _ := spec["containers"].([]any)
		if i >= len(list) {
			return errors.New("the raw template has fewer containers than the typed one")
		}
		ct, _ := list[i].(map[string]any)
		if ct == nil {
			return errors.New("malformed container in the raw template")
		}
		ctr := &t.Spec.Containers[i]
		if ch.Image != "" {
			ct["image"] = ch.Image
			ctr.Image = ch.Image
		}
		for _, ev := range ch.Env {
			env, _ := ct["env"].([]any)
			entry := map[string]any{"name": ev.Name, "value": ev.Value}
			found := false
			for j, e := range env {
				if m, ok := e.(map[string]any); ok && m["name"] == ev.Name {
					env[j] = entry
					found = true
				}
			}
			if !found {
				env = append(env, entry)
			}
			ct["env"] = env
			typed := model.EnvVar{Name: ev.Name, Value: ev.Value, HasValue: true}
			found = false
			for j := range ctr.Env {
				if ctr.Env[j].Name == ev.Name {
					ctr.Env[j] = typed
					found = true
				}
			}
			if !found {
				ctr.Env = append(ctr.Env, typed)
			}
		}
	}
	if len(ch.TemplateLabels) > 0 {
		meta, _ := raw["metadata"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
			raw["metadata"] = meta
		}
		labels, _ := meta["labels"].(map[string]any)
		if labels == nil {
			labels = map[string]any{}
			meta["labels"] = labels
		}
		if t.Labels == nil {
			t.Labels = map[string]string{}
		}
		for _, k := range model.SortedKeys(ch.TemplateLabels) {
			if v := ch.TemplateLabels[k]; v == "" {
				delete(labels, k)
				delete(t.Labels, k)
			} else {
				labels[k] = v
				t.Labels[k] = v
			}
		}
	}
	t.Raw = raw
	return nil
}
