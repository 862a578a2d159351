package lifecycle

import (
	"encoding/json"
	"sort"
	"time"

	"github.com/clonecore/cloneset/model"
)

// notReadyEntry is one entry of the KruisePodReady condition message.
type notReadyEntry struct {
	UserAgent string `json:"userAgent"`
	Key       string `json:"key"`
}

// NotReadyPolicy returns the pod conditions the lifecycle NotReady policy
// (lifecycle-status-validation 1.4) writes for a lifecycle write to target
// with the hook's markPodNotReady flag, at now: the KruisePodReady condition
// with its new message, status and lastTransitionTime, followed, when adding a
// key flips it, by the recomputed Ready condition (1.4 AddNotReadyKey step 5).
// It returns nil when the policy changes nothing: the flag is off, the pod
// lacks the KruisePodReady readiness gate, the key is already listed (add) or
// not listed (remove), or target has no policy. p is not modified.
func NotReadyPolicy(p *model.Pod, target string, markPodNotReady bool, now time.Time) []model.PodCondition {
	eff, key := NotReadyEffect(p, target, markPodNotReady)
	if !eff {
		return nil
	}
	entries := notReadyEntries(p)
	old := p.Condition(model.ConditionKruisePodReady)
	if target == model.StateUpdated { // remove the key
		keep := make([]notReadyEntry, 0, len(entries))
		for _, e := range entries {
			if e.UserAgent != UserAgentLifecycle || e.Key != key {
				keep = append(keep, e)
			}
		}
		c := *old
		c.Message = entriesJSON(keep)
		if len(keep) == 0 {
			c.Status = "True"
		}
		c.LastTransitionTime = now
		return []model.PodCondition{c}
	}
	entries = append(entries, notReadyEntry{UserAgentLifecycle, key})
	sort.Slice(entries, func(i, j int) bool {
		if entries[i].UserAgent != entries[j].UserAgent {
			return entries[i].UserAgent < entries[j].UserAgent
		}
		return entries[i].Key < entries[j].Key
	})
	var c model.PodCondition
	if old == nil {
		// Step 3: a new condition, status left empty.
		c = model.PodCondition{Type: model.ConditionKruisePodReady, Message: entriesJSON(entries), LastTransitionTime: now}
	} else {
		c = *old
		c.Status, c.Message, c.LastTransitionTime = "False", entriesJSON(entries), now
	}
	out := []model.PodCondition{c}
	if ready := recomputeReady(p, c, now); ready != nil {
		out = append(out, *ready)
	}
	return out
}

// recomputeReady is step 5 of AddNotReadyKey: with a Ready condition and
// ContainersReady True, Ready becomes True when every readiness gate's
// condition exists and is True (kruisePodReady standing for the new
// KruisePodReady condition), else False with reason ReadinessGatesNotReady;
// it is returned only when its status changes.
func recomputeReady(p *model.Pod, kruisePodReady model.PodCondition, now time.Time) *model.PodCondition {
	ready := p.Condition(model.ConditionReady)
	cr := p.Condition(model.ConditionContainersReady)
	if ready == nil || cr == nil || cr.Status != "True" {
		return nil
	}
	status, reason := "True", ""
	for _, g := range p.Spec.ReadinessGates {
		c := p.Condition(g)
		if g == model.ConditionKruisePodReady {
			c = &kruisePodReady
		}
		if c == nil || c.Status != "True" {
			status, reason = "False", "ReadinessGatesNotReady"
			break
		}
	}
	if ready.Status == status {
		return nil
	}
	out := *ready
	out.Status, out.Reason, out.Message, out.LastTransitionTime = status, reason, "", now
	return &out
}

func notReadyEntries(p *model.Pod) []notReadyEntry {
	c := p.Condition(model.ConditionKruisePodReady)
	if c == nil || c.Message == "" {
		return nil
	}
	var out []notReadyEntry
	if err := json.Unmarshal([]byte(c.Message), &out); err != nil {
		return nil
	}
	return out
}

func entriesJSON(entries []notReadyEntry) string {
	if entries == nil {
		entries = []notReadyEntry{}
	}
	b, _ := json.Marshal(entries)
	return string(b)
}
