package lifecycle

import (
	"slices"
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
	for _, e := range notReadyEntries(p) {
		if e.UserAgent == UserAgentLifecycle && e.Key == key {
			return true
		}
	}
	return false
}

// HookFlag is the markPodNotReady flag a lifecycle write from state from to
// state to passes to the NotReady policy (lifecycle-status-validation 1.7):
// the preDelete hook's for PreparingDelete, none for the cancel of
// PreparingDelete back to PreparingNormal, the inPlaceUpdate hook's
// otherwise.
func HookFlag(cs *model.CloneSet, from, to string) bool {
	l := cs.Spec.Lifecycle
	if l == nil {
		return false
	}
	switch {
	case to == model.StatePreparingDelete:
		return markPodNotReady(l.PreDelete)
	case to == model.StatePreparingNormal && from == model.StatePreparingDelete:
		return false
	default:
		return markPodNotReady(l.InPlaceUpdate)
	}
}

// NotReadyKeyListed reports whether p's KruisePodReady condition lists the
// lifecycle's not-ready key (KeyPreDeleteHook or KeyPreUpdateHook).
func NotReadyKeyListed(p *model.Pod, key string) bool { return notReadyKeyListed(p, key) }

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

// withMarkers is prefix + the description of the markers of hook h + suffix,
// built with one allocation. The description, for reason texts, lists the
// labels sorted by key (D10), then the finalizers: "labels a=1, b=2;
// finalizers x" ("none" for an absent hook or one without handlers).
func withMarkers(prefix string, h *model.LifecycleHook, suffix string) string {
	var buf [256]byte
	b := appendHookMarkers(append(buf[:0], prefix...), h)
	return string(append(b, suffix...))
}

// appendHookMarkers appends the description of the markers of hook h to b
// (see withMarkers).
func appendHookMarkers(b []byte, h *model.LifecycleHook) []byte {
	if h == nil || len(h.LabelsHandler) == 0 && len(h.FinalizersHandler) == 0 {
		return append(b, "none"...)
	}
	if len(h.LabelsHandler) > 0 {
		var keysBuf [8]string
		keys := keysBuf[:0]
		for k := range h.LabelsHandler {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, "labels "...)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(append(append(b, k...), '='), h.LabelsHandler[k]...)
		}
		if len(h.FinalizersHandler) > 0 {
			b = append(b, "; "...)
		}
	}
	if len(h.FinalizersHandler) > 0 {
		b = append(b, "finalizers "...)
		for i, f := range h.FinalizersHandler {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, f...)
		}
	}
	return b
}

// NotReadyIgnored reports whether a hook's markPodNotReady has no effect on p
// because p lacks the KruisePodReady readiness gate: the controller writes no
// not-ready key then (lifecycle-status-validation 1.4; docs/spec/DECISIONS.md,
// the effective markPodNotReady flag).
func NotReadyIgnored(p *model.Pod, markPodNotReady bool) bool {
	return markPodNotReady && !p.Spec.HasReadinessGate(model.ConditionKruisePodReady)
}

// withIgnored appends to reason why a requested markPodNotReady has no
// effect on p, when it has none.
func withIgnored(reason string, p *model.Pod, markPodNotReady bool) string {
	if !NotReadyIgnored(p, markPodNotReady) {
		return reason
	}
	return reason + "; markPodNotReady has no effect: the pod has no " + model.ConditionKruisePodReady + " readiness gate"
}

// withKey appends to reason the effect on the not-ready key key of a
// transition to target, when the hook's markPodNotReady is effective.
func withKey(reason string, effective bool, key, target string) string {
	if !effective {
		return reason
	}
	if target == model.StateUpdated {
		return reason + "; removes not-ready key " + key
	}
	return reason + "; adds not-ready key " + key
}
