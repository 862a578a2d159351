package lifecycle

import (
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/clonecore/cloneset/model"
)

// Keys and user agent of the lifecycle entries in the KruisePodReady condition
// message (lifecycle-status-validation 1.4).
const (
	// KeyPreDeleteHook is added when a pod enters PreparingDelete with markPodNotReady.
	KeyPreDeleteHook = "preDeleteHook"
	// KeyPreUpdateHook is added when a pod enters PreparingUpdate with
	// markPodNotReady, and removed when it enters Updated.
	KeyPreUpdateHook = "preUpdateHook"
	// UserAgentLifecycle is the user agent of both keys.
	UserAgentLifecycle = "Lifecycle"
)

// AnyHooked reports whether the pod carries at least one marker of hook h
// (lifecycle-status-validation 1.3): false for an absent hook; otherwise true iff
// one finalizer of h.FinalizersHandler is on the pod or one entry (k, v) of
// h.LabelsHandler matches, an absent label reading as "". A hook with no handlers is
// never hooked.
func AnyHooked(h *model.LifecycleHook, p *model.Pod) bool {
	if h == nil {
		return false
	}
	for _, f := range h.FinalizersHandler {
		if hasFinalizer(p, f) {
			return true
		}
	}
	for k, v := range h.LabelsHandler {
		if p.Labels[k] == v {
			return true
		}
	}
	return false
}

// AllHooked reports whether the pod carries every marker of hook h
// (lifecycle-status-validation 1.3): false for an absent hook; otherwise true iff
// every finalizer of h.FinalizersHandler is on the pod and every entry of
// h.LabelsHandler matches (absent label = ""). A hook with no handlers is always
// all-hooked.
func AllHooked(h *model.LifecycleHook, p *model.Pod) bool {
	if h == nil {
		return false
	}
	for _, f := range h.FinalizersHandler {
		if !hasFinalizer(p, f) {
			return false
		}
	}
	for k, v := range h.LabelsHandler {
		if p.Labels[k] != v {
			return false
		}
	}
	return true
}

func hasFinalizer(p *model.Pod, f string) bool {
	for _, x := range p.Finalizers {
		if x == f {
			return true
		}
	}
	return false
}

// NotReadyEffect applies the lifecycle NotReady policy (lifecycle-status-validation
// 1.4) to a write of the given target state with the given markPodNotReady flag and
// reports whether it would actually change the KruisePodReady condition: target
// PreparingDelete adds KeyPreDeleteHook, PreparingUpdate adds KeyPreUpdateHook,
// Updated removes KeyPreUpdateHook; other targets do nothing. Without the flag, or
// without the KruisePodReady readiness gate on the pod, nothing happens; adding a key
// the condition message already lists, or removing one it does not list, does
// nothing. key is the key the target concerns ("" for targets without one), for
// the reason text, whether or not the effect is real. A condition message that is
// not a JSON list reads as listing nothing.
func NotReadyEffect(p *model.Pod, target string, markPodNotReady bool) (effective bool, key string) {
	add := true
	switch target {
	case model.StatePreparingDelete:
		key = KeyPreDeleteHook
	case model.StatePreparingUpdate:
		key = KeyPreUpdateHook
	case model.StateUpdated:
		key, add = KeyPreUpdateHook, false
	default:
		return false, ""
	}
	if !markPodNotReady || !p.Spec.HasReadinessGate(model.ConditionKruisePodReady) {
		return false, key
	}
	listed := notReadyKeyListed(p, key)
	if add {
		return !listed, key
	}
	return listed, key
}

// notReadyKeyListed reports whether the KruisePodReady condition message lists
// (Lifecycle, key).
func notReadyKeyListed(p *model.Pod, key string) bool {
	c := p.Condition(model.ConditionKruisePodReady)
	if c == nil || c.Message == "" {
		return false
	}
	var entries []struct {
		UserAgent string `json:"userAgent"`
		Key       string `json:"key"`
	}
	if err := json.Unmarshal([]byte(c.Message), &entries); err != nil {
		return false
	}
	for _, e := range entries {
		if e.UserAgent == UserAgentLifecycle && e.Key == key {
			return true
		}
	}
	return false
}

// markPodNotReady returns h.MarkPodNotReady, false for an absent hook.
func markPodNotReady(h *model.LifecycleHook) bool { return h != nil && h.MarkPodNotReady }

// CreateLifecycle returns the lifecycle label and annotation every pod created by
// the controller carries from the start (W3, transition T1 of
// lifecycle-status-validation 1.7), whatever spec.lifecycle says: state
// PreparingNormal and the lifecycle timestamp now (RFC 3339, whole seconds, UTC).
func CreateLifecycle(now time.Time) (labels, annotations map[string]string) {
	return map[string]string{model.LabelLifecycleState: model.StatePreparingNormal},
		map[string]string{model.AnnotationLifecycleTimestamp: now.UTC().Truncate(time.Second).Format(time.RFC3339)}
}

// hookMarkers describes the markers of a hook, labels sorted by key (D10), for
// reason texts: "labels a=1, b=2; finalizers x".
func hookMarkers(h *model.LifecycleHook) string {
	if h == nil {
		return "none"
	}
	var parts []string
	if len(h.LabelsHandler) > 0 {
		keys := make([]string, 0, len(h.LabelsHandler))
		for k := range h.LabelsHandler {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		xs := make([]string, len(keys))
		for i, k := range keys {
			xs[i] = k + "=" + h.LabelsHandler[k]
		}
		parts = append(parts, "labels "+strings.Join(xs, ", "))
	}
	if len(h.FinalizersHandler) > 0 {
		parts = append(parts, "finalizers "+strings.Join(h.FinalizersHandler, ", "))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}

// withKey appends the not-ready key effect to a reason.
func withKey(reason string, effective bool, key, target string) string {
	if !effective {
		return reason
	}
	if target == model.StateUpdated {
		return reason + "; removes not-ready key " + key
	}
	return reason + "; adds not-ready key " + key
}
