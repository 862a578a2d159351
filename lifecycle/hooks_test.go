package lifecycle

import (
	"testing"

	"github.com/clonecore/cloneset/model"
)

// TestHookPredicates is the consequence table of lifecycle-status-validation 1.3.
func TestHookPredicates(t *testing.T) {
	cases := []struct {
		name     string
		h        *model.LifecycleHook
		p        *model.Pod
		any, all bool
	}{
		{"hook absent", nil, pod("p", ""), false, false},
		{"hook present, no handlers", &model.LifecycleHook{}, pod("p", ""), false, true},
		{"label k: \"\" and label absent", hook(false, map[string]string{"k": ""}), pod("p", ""), true, true},
		{"label k: x and label k=y", hook(false, map[string]string{"k": "x"}), pod("p", "", withLabel("k", "y")), false, false},
		{"label k: x matches", hook(false, map[string]string{"k": "x"}), pod("p", "", withLabel("k", "x")), true, true},
		{"one of two labels", hook(false, map[string]string{"a": "1", "b": "2"}), pod("p", "", withLabel("a", "1")), true, false},
		{"finalizer present", hook(false, nil, "f1"), pod("p", "", withFinalizers("f1")), true, true},
		{"one of two finalizers", hook(false, nil, "f1", "f2"), pod("p", "", withFinalizers("f2")), true, false},
		{"finalizer and label, label only", hook(false, map[string]string{"a": "1"}, "f1"), pod("p", "", withLabel("a", "1")), true, false},
		{"finalizer and label, both", hook(false, map[string]string{"a": "1"}, "f1"), pod("p", "", withLabel("a", "1"), withFinalizers("x", "f1")), true, true},
	}
	for _, c := range cases {
		if got := AnyHooked(c.h, c.p); got != c.any {
			t.Errorf("%s: AnyHooked = %v, want %v", c.name, got, c.any)
		}
		if got := AllHooked(c.h, c.p); got != c.all {
			t.Errorf("%s: AllHooked = %v, want %v", c.name, got, c.all)
		}
	}
	// A pod with no labels at all reads every label as "".
	bare := &model.Pod{Name: "bare"}
	if !AnyHooked(hook(false, map[string]string{"k": ""}), bare) || AnyHooked(hook(false, nil, "f"), bare) {
		t.Errorf("pod without labels or finalizers")
	}
}

// TestNotReadyEffect is the NotReady policy of lifecycle-status-validation 1.4.
func TestNotReadyEffect(t *testing.T) {
	otherAgent := func(p *model.Pod) {
		p.Spec.ReadinessGates = append(p.Spec.ReadinessGates, model.ConditionKruisePodReady)
		p.Status.Conditions = append(p.Status.Conditions, model.PodCondition{Type: model.ConditionKruisePodReady, Status: "False",
			Message: `[{"userAgent":"Other","key":"preUpdateHook"}]`})
	}
	garbled := func(p *model.Pod) {
		p.Spec.ReadinessGates = append(p.Spec.ReadinessGates, model.ConditionKruisePodReady)
		p.Status.Conditions = append(p.Status.Conditions, model.PodCondition{Type: model.ConditionKruisePodReady, Status: "False", Message: "not json"})
	}
	gateOnly := func(p *model.Pod) {
		p.Spec.ReadinessGates = append(p.Spec.ReadinessGates, model.ConditionKruisePodReady)
	}
	trueListing := func(p *model.Pod) {
		withKruisePodReady(KeyPreDeleteHook)(p)
		p.Status.Conditions[len(p.Status.Conditions)-1].Status = "True"
	}
	cases := []struct {
		name    string
		p       *model.Pod
		target  string
		flag    bool
		eff     bool
		wantKey string
	}{
		{"PreparingDelete adds", pod("p", "", withKruisePodReady()), model.StatePreparingDelete, true, true, KeyPreDeleteHook},
		{"PreparingUpdate adds", pod("p", "", withKruisePodReady()), model.StatePreparingUpdate, true, true, KeyPreUpdateHook},
		{"no condition yet: added", pod("p", "", gateOnly), model.StatePreparingUpdate, true, true, KeyPreUpdateHook},
		{"flag off", pod("p", "", withKruisePodReady()), model.StatePreparingDelete, false, false, KeyPreDeleteHook},
		{"gate missing", pod("p", ""), model.StatePreparingDelete, true, false, KeyPreDeleteHook},
		{"already listed", pod("p", "", withKruisePodReady(KeyPreDeleteHook)), model.StatePreparingDelete, true, false, KeyPreDeleteHook},
		{"listed under a True condition: nothing", pod("p", "", trueListing), model.StatePreparingDelete, true, false, KeyPreDeleteHook},
		{"other key listed", pod("p", "", withKruisePodReady(KeyPreDeleteHook)), model.StatePreparingUpdate, true, true, KeyPreUpdateHook},
		{"other user agent", pod("p", "", otherAgent), model.StatePreparingUpdate, true, true, KeyPreUpdateHook},
		{"garbled message reads as empty", pod("p", "", garbled), model.StatePreparingUpdate, true, true, KeyPreUpdateHook},
		{"Updated removes a listed key", pod("p", "", withKruisePodReady(KeyPreUpdateHook)), model.StateUpdated, true, true, KeyPreUpdateHook},
		{"Updated, key not listed", pod("p", "", withKruisePodReady(KeyPreDeleteHook)), model.StateUpdated, true, false, KeyPreUpdateHook},
		{"Updated, no condition", pod("p", "", gateOnly), model.StateUpdated, true, false, KeyPreUpdateHook},
		{"Normal: nothing", pod("p", "", withKruisePodReady(KeyPreUpdateHook)), model.StateNormal, true, false, ""},
		{"PreparingNormal: nothing", pod("p", "", withKruisePodReady()), model.StatePreparingNormal, true, false, ""},
		{"Updating: nothing", pod("p", "", withKruisePodReady()), model.StateUpdating, true, false, ""},
	}
	for _, c := range cases {
		eff, key := NotReadyEffect(c.p, c.target, c.flag)
		if eff != c.eff || key != c.wantKey {
			t.Errorf("%s: NotReadyEffect = %v %q, want %v %q", c.name, eff, key, c.eff, c.wantKey)
		}
	}
}
