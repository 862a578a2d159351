package model

import (
	"strings"
	"testing"
	"time"
)

// TestValidateStoredA10 pins the difference between admission (create) and a
// stored object for rule A10: names of gone or terminating pods are rejected on
// admission but accepted in a snapshot; a pod owned by someone else is rejected
// by both.
func TestValidateStoredA10(t *testing.T) {
	cs := &CloneSet{APIVersion: APIVersionV1alpha1, Name: "web", Namespace: "default", UID: "u1"}
	cs.Spec.Replicas = new(int32)
	*cs.Spec.Replicas = 2
	cs.Spec.Selector = &LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	cs.Spec.Template = PodTemplate{Labels: map[string]string{"app": "web"}, Spec: PodSpec{Containers: []Container{{Name: "c", Image: "img"}}}}
	SetDefaults(cs)
	own := []OwnerReference{{Kind: "CloneSet", Name: "web", UID: "u1", Controller: true}}
	other := []OwnerReference{{Kind: "ReplicaSet", Name: "rs", UID: "u2", Controller: true}}
	pods := []*Pod{
		{Name: "terminating", Namespace: "default", OwnerReferences: own, DeletionTimestamp: time.Unix(1, 0)},
		{Name: "foreign", Namespace: "default", OwnerReferences: other},
	}
	for _, c := range []struct {
		name              string
		admission, stored bool // want an A10 error
	}{
		{"gone", true, false},
		{"terminating", true, false},
		{"foreign", true, true},
	} {
		cs.Spec.ScaleStrategy.PodsToDelete = []string{c.name}
		if got := Validate(cs, pods).HasRule("A10"); got != c.admission {
			t.Errorf("%s: Validate A10 = %v, want %v", c.name, got, c.admission)
		}
		errs := ValidateStored(cs, pods)
		if got := errs.HasRule("A10"); got != c.stored {
			t.Errorf("%s: ValidateStored A10 = %v, want %v (%v)", c.name, got, c.stored, errs)
		}
		if c.stored && !strings.Contains(errs.Error(), "owner is not this CloneSet") {
			t.Errorf("%s: %v", c.name, errs)
		}
	}
}

// TestValidateStoredToleratesOnlyRequestsAboveLimits: a stored object keeps
// a request above its limit (A6-requests, B6-requests: upstream builds its
// revision) and a resizePolicy on an init container (A6-initResize, B6-initResize)
// and no other resources rule.
func TestValidateStoredToleratesOnlyRequestsAboveLimits(t *testing.T) {
	for _, v := range []string{APIVersionV1alpha1, APIVersionV1beta1} {
		above := validCloneSet(v)
		above.Spec.Template.Spec.Containers[0].Resources.Requests = map[string]Quantity{"memory": MustParseQuantity("2Gi")}
		above.Spec.Template.Spec.Containers[0].Resources.Limits = map[string]Quantity{"memory": MustParseQuantity("1Gi")}
		if errs := ValidateStored(above, nil); len(errs) != 0 {
			t.Errorf("%s: a request above its limit is refused in a stored object: %v", v, errs)
		}
		initResize := validCloneSet(v)
		initResize.Spec.Template.Spec.InitContainers = []Container{{Name: "init", Image: "busybox", ResizePolicy: []ContainerResizePolicy{{ResourceName: "cpu", RestartPolicy: "NotRequired"}}}}
		if errs := ValidateStored(initResize, nil); len(errs) != 0 {
			t.Errorf("%s: a resizePolicy on an init container is refused in a stored object: %v", v, errs)
		}
		if errs := Validate(initResize, nil); len(errs) != 1 || !IsToleratedWhenStored(errs[0].Rule) {
			t.Errorf("%s: the webhook's verdict on a resizePolicy on an init container: %v, want one tolerated error", v, errs)
		}
		negative := validCloneSet(v)
		negative.Spec.Template.Spec.Containers[0].Resources.Requests = map[string]Quantity{"cpu": MustParseQuantity("-1")}
		if errs := ValidateStored(negative, nil); len(errs) != 1 || !strings.HasSuffix(errs[0].Rule, "6") {
			t.Errorf("%s: a negative request in a stored object: %v, want its A6/B6 error", v, errs)
		}
	}
}

// TestDefaultStoredAndStoredOptions: the one path of stored objects: the
// namespace, the version's defaults and the v1alpha1 conversion, idempotent;
// then ValidateStored, without the budget rule when it is skipped.
func TestDefaultStoredAndStoredOptions(t *testing.T) {
	for _, v := range []string{APIVersionV1alpha1, APIVersionV1beta1} {
		cs := &CloneSet{APIVersion: v, Name: "web", Spec: CloneSetSpec{
			Selector: &LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: PodTemplate{Labels: map[string]string{"app": "web"}, Spec: PodSpec{Containers: []Container{{Name: "c", Image: "nginx"}}}},
		}}
		zero := FromInt(0)
		if v == APIVersionV1alpha1 {
			cs.V1alpha1 = &V1alpha1Fields{UpdateStrategy: RollingUpdateStrategy{MaxUnavailable: &zero}}
		} else {
			cs.Spec.UpdateStrategy.RollingUpdate = &RollingUpdateStrategy{MaxUnavailable: &zero}
		}
		DefaultStored(cs)
		if cs.Namespace != DefaultNamespace || cs.Spec.Replicas == nil || cs.Spec.UpdateStrategy.RollingUpdate == nil || cs.Spec.UpdateStrategy.RollingUpdate.Partition == nil {
			t.Fatalf("%s: not prepared: %+v", v, cs)
		}
		before := *cs.Spec.UpdateStrategy.RollingUpdate
		DefaultStored(cs)
		if *cs.Spec.UpdateStrategy.RollingUpdate.Partition != *before.Partition || cs.Spec.UpdateStrategy.RollingUpdate.PodUpdatePolicy != before.PodUpdatePolicy {
			t.Errorf("%s: not idempotent", v)
		}
		errs := StoredOptions{}.Validate(cs, nil)
		if len(errs) != 1 || !IsBudgetRule(errs[0].Rule) {
			t.Errorf("%s: %v, want the budget rule", v, errs)
		}
		if errs := (StoredOptions{SkipBudgetRule: true}).Validate(cs, nil); len(errs) != 0 {
			t.Errorf("%s: skipped: %v", v, errs)
		}
	}
}
