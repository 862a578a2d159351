package model

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func int32p(v int32) *int32            { return &v }
func iop(v IntOrPercent) *IntOrPercent { return &v }

// validCloneSet returns a defaulted, valid CloneSet of the given API version
// with 4 replicas.
func validCloneSet(apiVersion string) *CloneSet {
	cs := &CloneSet{
		APIVersion: apiVersion, Name: "sample", Namespace: "default", UID: "uid-sample",
		Spec: CloneSetSpec{
			Replicas: int32p(4),
			Selector: &LabelSelector{MatchLabels: map[string]string{"app": "sample"}},
			Template: PodTemplate{
				Labels: map[string]string{"app": "sample"},
				Spec:   PodSpec{Containers: []Container{{Name: "nginx", Image: "nginx:v1"}}},
				Raw: map[string]any{
					"metadata": map[string]any{"labels": map[string]any{"app": "sample"}},
					"spec":     map[string]any{"containers": []any{map[string]any{"name": "nginx", "image": "nginx:v1"}}},
				},
			},
		},
	}
	if apiVersion == APIVersionV1alpha1 {
		cs.V1alpha1 = &V1alpha1Fields{}
	}
	SetDefaults(cs)
	ConvertV1alpha1(cs)
	return cs
}

func pod(name, ownerUID string) *Pod {
	p := &Pod{Name: name, Namespace: "default"}
	if ownerUID != "" {
		p.OwnerReferences = []OwnerReference{{Kind: "CloneSet", Name: "x", UID: ownerUID, Controller: true}}
	}
	return p
}

func TestValidateRules(t *testing.T) {
	alpha := func(mod func(cs *CloneSet, f *V1alpha1Fields)) *CloneSet {
		cs := validCloneSet(APIVersionV1alpha1)
		mod(cs, cs.V1alpha1)
		return cs
	}
	beta := func(mod func(cs *CloneSet, ru *RollingUpdateStrategy)) *CloneSet {
		cs := validCloneSet(APIVersionV1beta1)
		mod(cs, cs.Spec.UpdateStrategy.RollingUpdate)
		return cs
	}
	pods := []*Pod{pod("mine", "uid-sample"), pod("theirs", "uid-other"), {Name: "dying", Namespace: "default", DeletionTimestamp: time.Unix(1, 0),
		OwnerReferences: []OwnerReference{{UID: "uid-sample", Controller: true}}}}

	cases := []struct {
		name  string
		cs    *CloneSet
		rules []string // expected rule ids, in order
		path  string   // path of the first error
		msg   string   // substring of the first error
	}{
		{"valid v1alpha1", validCloneSet(APIVersionV1alpha1), nil, "", ""},
		{"valid v1beta1", validCloneSet(APIVersionV1beta1), nil, "", ""},
		{"unknown apiVersion", func() *CloneSet { c := validCloneSet(APIVersionV1beta1); c.APIVersion = "apps/v1"; return c }(), []string{""}, "apiVersion", "Unsupported value"},
		{"A1 name missing", alpha(func(cs *CloneSet, _ *V1alpha1Fields) { cs.Name = "" }), []string{"A1"}, "metadata.name", "Required value"},
		{"A1 namespace invalid", alpha(func(cs *CloneSet, _ *V1alpha1Fields) { cs.Namespace = "Prod" }), []string{"A1"}, "metadata.namespace", "RFC 1123 label"},
		{"B1 label key invalid", beta(func(cs *CloneSet, _ *RollingUpdateStrategy) { cs.Labels = map[string]string{"a/b/c": "x"} }), []string{"B1"}, "metadata.labels", "qualified name"},
		{"B1 label value too long", beta(func(cs *CloneSet, _ *RollingUpdateStrategy) {
			cs.Labels = map[string]string{"a": strings.Repeat("x", 64)}
		}), []string{"B1"}, "metadata.labels", "63 characters"},
		{"A2 replicas", alpha(func(cs *CloneSet, _ *V1alpha1Fields) { cs.Spec.Replicas = int32p(-2) }), []string{"A2"}, "spec.replicas", "-2: must be greater than or equal to 0"},
		{"A3 selector nil also fails A5", alpha(func(cs *CloneSet, _ *V1alpha1Fields) { cs.Spec.Selector = nil }), []string{"A3", "A5"}, "spec.selector", "Required value"},
		{"B4 empty selector skips A5", beta(func(cs *CloneSet, _ *RollingUpdateStrategy) { cs.Spec.Selector = &LabelSelector{} }), []string{"B4"}, "spec.selector", "empty selector is invalid for cloneset"},
		{"B4 unconvertible selector skips A5/A6, not A7/A8", beta(func(cs *CloneSet, _ *RollingUpdateStrategy) {
			cs.Spec.Selector.MatchExpressions = []LabelSelectorRequirement{{Key: "a", Operator: OpIn}}
			cs.Spec.Template.Spec.Containers = nil
			cs.Spec.Template.Labels = nil
			cs.Spec.Template.Spec.RestartPolicy = "Never"
		}), []string{"B4", "B4", "B7"}, "spec.selector.matchExpressions[0].values", "Required value"},
		{"A5 mismatch", alpha(func(cs *CloneSet, _ *V1alpha1Fields) { cs.Spec.Template.Labels = nil }), []string{"A5"}, "spec.template.metadata.labels", "`selector` does not match template `labels`"},
		{"A6 container name", alpha(func(cs *CloneSet, _ *V1alpha1Fields) { cs.Spec.Template.Spec.Containers[0].Name = "Nginx" }), []string{"A6"}, "spec.template.spec.containers[0].name", "RFC 1123 label"},
		{"A6 negative request", alpha(func(cs *CloneSet, _ *V1alpha1Fields) {
			cs.Spec.Template.Spec.Containers[0].Resources.Requests = map[string]Quantity{"cpu": MustParseQuantity("-1")}
		}), []string{"A6"}, "spec.template.spec.containers[0].resources.requests[cpu]", "must be greater than or equal to 0"},
		{"A0 a template member the API types cannot read", alpha(func(cs *CloneSet, _ *V1alpha1Fields) {
			cs.Spec.Template.Raw["spec"].(map[string]any)["hostNetwork"] = "yes"
		}), []string{"A0"}, "spec.template.spec.hostNetwork", "expected true or false"},
		{"B0 the same in v1beta1", beta(func(cs *CloneSet, _ *RollingUpdateStrategy) {
			cs.Spec.Template.Raw["spec"].(map[string]any)["hostNetwork"] = "yes"
		}), []string{"B0"}, "spec.template.spec.hostNetwork", "expected true or false"},
		{"A6-requests request above limit", alpha(func(cs *CloneSet, _ *V1alpha1Fields) {
			cs.Spec.Template.Spec.Containers[0].Resources.Requests = map[string]Quantity{"memory": MustParseQuantity("2Gi")}
			cs.Spec.Template.Spec.Containers[0].Resources.Limits = map[string]Quantity{"memory": MustParseQuantity("1Gi")}
		}), []string{"A6-requests"}, "spec.template.spec.containers[0].resources.requests", "less than or equal to memory limit"},
		{"B6-requests request above limit", beta(func(cs *CloneSet, _ *RollingUpdateStrategy) {
			cs.Spec.Template.Spec.Containers[0].Resources.Requests = map[string]Quantity{"memory": MustParseQuantity("2Gi")}
			cs.Spec.Template.Spec.Containers[0].Resources.Limits = map[string]Quantity{"memory": MustParseQuantity("1Gi")}
		}), []string{"B6-requests"}, "spec.template.spec.containers[0].resources.requests", "less than or equal to memory limit"},
		{"A6-initResize resizePolicy on an init container", alpha(func(cs *CloneSet, _ *V1alpha1Fields) {
			cs.Spec.Template.Spec.InitContainers = []Container{{Name: "init", Image: "busybox", ResizePolicy: []ContainerResizePolicy{{ResourceName: "cpu", RestartPolicy: "NotRequired"}}}}
		}), []string{"A6-initResize"}, "spec.template.spec.initContainers[0].resizePolicy", "must not be set for init containers"},
		{"B6-initResize the same in v1beta1", beta(func(cs *CloneSet, _ *RollingUpdateStrategy) {
			cs.Spec.Template.Spec.InitContainers = []Container{{Name: "init", Image: "busybox", ResizePolicy: []ContainerResizePolicy{{ResourceName: "cpu", RestartPolicy: "NotRequired"}}}}
		}), []string{"B6-initResize"}, "spec.template.spec.initContainers[0].resizePolicy", "must not be set for init containers"},
		{"A6 topology key", alpha(func(cs *CloneSet, _ *V1alpha1Fields) {
			cs.Spec.Template.Spec.TopologySpreadConstraints = []TopologySpreadConstraint{{}}
		}), []string{"A6"}, "spec.template.spec.topologySpreadConstraints[0].topologyKey", "Required value"},
		{"A6 regular container restartPolicy", alpha(func(cs *CloneSet, _ *V1alpha1Fields) { cs.Spec.Template.Spec.Containers[0].RestartPolicy = "Always" }), []string{"A6"}, "spec.template.spec.containers[0].restartPolicy", "Forbidden"},
		{"A7", alpha(func(cs *CloneSet, _ *V1alpha1Fields) { cs.Spec.Template.Spec.RestartPolicy = "OnFailure" }), []string{"A7"}, "spec.template.spec.restartPolicy", `Unsupported value: "OnFailure": supported values: "Always"`},
		{"B8", beta(func(cs *CloneSet, _ *RollingUpdateStrategy) { cs.Spec.Template.Spec.ActiveDeadlineSeconds = new(int64) }), []string{"B8"}, "spec.template.spec.activeDeadlineSeconds", "not Supported"},
		{"A9 skips A10", alpha(func(cs *CloneSet, _ *V1alpha1Fields) { cs.Spec.ScaleStrategy.PodsToDelete = []string{"ghost", "ghost"} }), []string{"A9"}, "spec.scaleStrategy.podsToDelete", "duplicated items [ghost]"},
		{"A10 each bad name", alpha(func(cs *CloneSet, _ *V1alpha1Fields) {
			cs.Spec.ScaleStrategy.PodsToDelete = []string{"mine", "ghost", "theirs", "dying"}
		}), []string{"A10", "A10", "A10"}, "spec.scaleStrategy.podsToDelete", `find pod ghost failed: pods "ghost" not found`},
		{"A11 OnDelete", alpha(func(_ *CloneSet, f *V1alpha1Fields) { f.UpdateStrategyType = V1alpha1TypeOnDelete }), []string{"A11"}, "spec.updateStrategy.type", "must be 'ReCreate', InPlaceIfPossible or 'InPlaceOnly'"},
		{"A12 partition -10% of 4 rounds to -1", alpha(func(_ *CloneSet, f *V1alpha1Fields) { f.UpdateStrategy.Partition = iop(FromString("-30%")) }), []string{"A12"}, "spec.updateStrategy.partition", "-1: must be greater than or equal to 0"},
		{"A12 partition absent", alpha(func(_ *CloneSet, f *V1alpha1Fields) { f.UpdateStrategy.Partition = nil }), []string{"A12"}, "spec.updateStrategy.partition", "null: failed GetScaledValueFromIntOrPercent for partition: nil value for IntOrString"},
		{"A13 weight -1", alpha(func(_ *CloneSet, f *V1alpha1Fields) {
			f.UpdateStrategy.PriorityStrategy = &UpdatePriorityStrategy{WeightPriority: []UpdatePriorityWeightTerm{{Weight: -1, MatchSelector: LabelSelector{MatchLabels: map[string]string{"a": "b"}}}}}
		}), []string{"A13"}, "spec.updateStrategy.priorityStrategy.weightPriority[0].weight", "range 1-100"},
		{"A13 invalid weight selector", alpha(func(_ *CloneSet, f *V1alpha1Fields) {
			f.UpdateStrategy.PriorityStrategy = &UpdatePriorityStrategy{WeightPriority: []UpdatePriorityWeightTerm{{Weight: 5, MatchSelector: LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "a", Operator: "Near", Values: []string{"x"}}}}}}}
		}), []string{"A13"}, "spec.updateStrategy.priorityStrategy.weightPriority[0].matchSelector", "invalid selector"},
		{"A14 two errors", alpha(func(_ *CloneSet, f *V1alpha1Fields) {
			f.UpdateStrategy.ScatterStrategy = []ScatterTerm{{Key: "", Value: "v"}, {Key: "", Value: "v"}}
		}), []string{"A14", "A14", "A14"}, "spec.updateStrategy.scatterStrategy[0].key", "key should not be empty"},
		{"A15 and A17", alpha(func(_ *CloneSet, f *V1alpha1Fields) {
			f.UpdateStrategy.MaxUnavailable = iop(FromString("x%"))
		}), []string{"A15", "A17"}, "spec.updateStrategy.maxUnavailable", "failed GetScaledValueFromIntOrPercent for maxUnavailable"},
		{"A16 10% with InPlaceOnly rounds up to 1", alpha(func(_ *CloneSet, f *V1alpha1Fields) {
			f.UpdateStrategyType = V1alpha1TypeInPlaceOnly
			f.UpdateStrategy.MaxSurge = iop(FromString("10%"))
		}), []string{"A16"}, "spec.updateStrategy.maxSurge", "can not use maxSurge with strategy type InPlaceOnly"},
		{"A17 maxSurge rescues in v1alpha1", alpha(func(_ *CloneSet, f *V1alpha1Fields) {
			f.UpdateStrategy.MaxUnavailable = iop(FromInt(0))
			f.UpdateStrategy.MaxSurge = iop(FromInt(1))
		}), nil, "", ""},
		{"A17 both zero", alpha(func(_ *CloneSet, f *V1alpha1Fields) {
			f.UpdateStrategy.MaxUnavailable = iop(FromString("0%"))
		}), []string{"A17"}, "spec.updateStrategy.maxUnavailable", `"0%": maxUnavailable and maxSurge should not both be less than 1`},
		{"A17 not with zero replicas", alpha(func(cs *CloneSet, f *V1alpha1Fields) {
			cs.Spec.Replicas = int32p(0)
			f.UpdateStrategy.MaxUnavailable = iop(FromInt(0))
		}), nil, "", ""},
		{"A18 2147483647 is exempt", alpha(func(cs *CloneSet, _ *V1alpha1Fields) {
			cs.Spec.MinReadySeconds = MaxInt32
			cs.Spec.ProgressDeadlineSeconds = int32p(MaxInt32)
		}), nil, "", ""},
		{"A18 equal", alpha(func(cs *CloneSet, _ *V1alpha1Fields) {
			cs.Spec.MinReadySeconds = 10
			cs.Spec.ProgressDeadlineSeconds = int32p(10)
		}), []string{"A18"}, "spec.progressDeadlineSeconds", "must be greater than minReadySeconds"},
		{"A18 negative fails twice", alpha(func(cs *CloneSet, _ *V1alpha1Fields) { cs.Spec.ProgressDeadlineSeconds = int32p(-5) }), []string{"A18", "A18"}, "spec.progressDeadlineSeconds", "must be greater than or equal to 0"},
		{"B9", beta(func(cs *CloneSet, _ *RollingUpdateStrategy) {
			cs.Spec.ScaleStrategy.PodsToDelete = []string{"a", "a", "b", "b"}
		}), []string{"B9"}, "spec.scaleStrategy.podsToDelete", "duplicated items [a b]"},
		{"B10", beta(func(cs *CloneSet, _ *RollingUpdateStrategy) { cs.Spec.UpdateStrategy.Type = "ReCreate" }), []string{"B10"}, "spec.updateStrategy.type", "must be 'RollingUpdate' or 'OnDelete'"},
		{"B11", beta(func(_ *CloneSet, ru *RollingUpdateStrategy) { ru.PodUpdatePolicy = "OnDelete" }), []string{"B11"}, "spec.updateStrategy.rollingUpdate.podUpdatePolicy", "must be 'ReCreate', 'InPlaceIfPossible' or 'InPlaceOnly'"},
		{"B12 partition above replicas is fine", beta(func(_ *CloneSet, ru *RollingUpdateStrategy) { ru.Partition = iop(FromString("120%")) }), nil, "", ""},
		{"B13 both priorities", beta(func(_ *CloneSet, ru *RollingUpdateStrategy) {
			ru.PriorityStrategy = &UpdatePriorityStrategy{WeightPriority: []UpdatePriorityWeightTerm{{Weight: 1}}, OrderPriority: []UpdatePriorityOrderTerm{{}}}
		}), []string{"B13"}, "spec.updateStrategy.rollingUpdate.priorityStrategy.weightPriority", "only one of weightPriority and orderPriority can be used"},
		{"B15 12.5% passes the webhook", beta(func(_ *CloneSet, ru *RollingUpdateStrategy) { ru.MaxUnavailable = iop(FromString("12.5%")) }), nil, "", ""},
		{"B16 parse error", beta(func(_ *CloneSet, ru *RollingUpdateStrategy) { ru.MaxSurge = iop(FromString("1")) }), []string{"B16"}, "spec.updateStrategy.rollingUpdate.maxSurge", "failed GetScaledValueFromIntOrPercent for maxSurge: invalid type: string is not a percentage"},
		{"B17 quirk: maxSurge does not rescue", beta(func(_ *CloneSet, ru *RollingUpdateStrategy) {
			ru.MaxUnavailable = iop(FromInt(0))
			ru.MaxSurge = iop(FromInt(1))
		}), []string{"B17"}, "spec.updateStrategy.rollingUpdate.maxUnavailable", "maxUnavailable and maxSurge should not both be less than 1"},
		{"B17 absent maxUnavailable counts as 0", beta(func(_ *CloneSet, ru *RollingUpdateStrategy) { ru.MaxUnavailable = nil }), []string{"B17"}, "spec.updateStrategy.rollingUpdate.maxUnavailable", "null: maxUnavailable"},
		{"B11-B20 skipped without rollingUpdate", beta(func(cs *CloneSet, _ *RollingUpdateStrategy) {
			cs.Spec.UpdateStrategy = UpdateStrategy{Type: UpdateStrategyOnDelete}
		}), nil, "", ""},
		{"B18 string integer is fine", beta(func(_ *CloneSet, ru *RollingUpdateStrategy) {
			ru.InPlaceUpdateStrategy = &InPlaceUpdateStrategy{ImagePreDownloadParallelism: iop(FromString("5"))}
		}), nil, "", ""},
		{"B18 negative string", beta(func(_ *CloneSet, ru *RollingUpdateStrategy) {
			ru.InPlaceUpdateStrategy = &InPlaceUpdateStrategy{ImagePreDownloadParallelism: iop(FromString("-5"))}
		}), []string{"B18"}, "spec.updateStrategy.rollingUpdate.inPlaceUpdateStrategy.imagePreDownloadParallelism", "must be non-negative"},
		{"B19 B20", beta(func(_ *CloneSet, ru *RollingUpdateStrategy) {
			ru.InPlaceUpdateStrategy = &InPlaceUpdateStrategy{ImagePreDownloadTimeoutSeconds: int32p(-1), ImagePreDownloadMinUpdatedReadyPods: int32p(-1)}
		}), []string{"B19", "B20"}, "spec.updateStrategy.rollingUpdate.inPlaceUpdateStrategy.imagePreDownloadTimeoutSeconds", "must be greater than or equal to 0"},
		{"A18 not checked in v1beta1", beta(func(cs *CloneSet, _ *RollingUpdateStrategy) { cs.Spec.ProgressDeadlineSeconds = int32p(-1) }), nil, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			errs := Validate(c.cs, pods)
			var rules []string
			for _, e := range errs {
				rules = append(rules, e.Rule)
			}
			if strings.Join(rules, ",") != strings.Join(c.rules, ",") {
				t.Fatalf("rules %q, want %q: %v", rules, c.rules, errs)
			}
			if len(errs) == 0 {
				return
			}
			if errs[0].Path != c.path || !strings.Contains(errs[0].Error(), c.msg) {
				t.Errorf("first error %q, want path %q and %q", errs[0].Error(), c.path, c.msg)
			}
			if !strings.HasPrefix(errs.Error(), errs[0].Error()) {
				t.Errorf("FieldErrors.Error = %q", errs.Error())
			}
		})
	}
}

// TestSameSpecTwoVersions is LSV 7.12.
func TestSameSpecTwoVersions(t *testing.T) {
	build := func(v string) *CloneSet {
		cs := validCloneSet(v)
		cs.Spec.MinReadySeconds = 30
		cs.Spec.ProgressDeadlineSeconds = int32p(10)
		u := cs.Spec.UpdateStrategy.RollingUpdate
		if cs.V1alpha1 != nil {
			u = &cs.V1alpha1.UpdateStrategy
		}
		u.MaxUnavailable = iop(FromInt(0))
		u.MaxSurge = iop(FromInt(1))
		return cs
	}
	a := Validate(build(APIVersionV1alpha1), nil)
	if a.HasRule("A17") || !a.HasRule("A18") {
		t.Errorf("v1alpha1: %v", a)
	}
	b := Validate(build(APIVersionV1beta1), nil)
	if !b.HasRule("B17") || len(b) != 1 {
		t.Errorf("v1beta1: %v", b)
	}
}

func TestValidateUpdate(t *testing.T) {
	old := validCloneSet(APIVersionV1alpha1)
	old.Spec.ScaleStrategy.PodsToDelete = []string{"gone"}

	// A10 on update checks only the names the old object does not list.
	cs := validCloneSet(APIVersionV1alpha1)
	cs.Spec.ScaleStrategy.PodsToDelete = []string{"gone", "new-ghost"}
	errs := ValidateAdmission(old, cs, nil)
	if len(errs) != 1 || !strings.Contains(errs[0].Message, "new-ghost") {
		t.Errorf("A10 on update: %v", errs)
	}
	if errs := Validate(cs, nil); len(errs) != 2 {
		t.Errorf("A10 on create: %v", errs)
	}

	// A19: name, namespace, uid are immutable.
	cs = validCloneSet(APIVersionV1alpha1)
	cs.UID = "other"
	if errs := ValidateUpdate(old, cs); len(errs) != 1 || errs[0].Rule != "A19" || errs[0].Path != "metadata.uid" {
		t.Errorf("A19: %v", errs)
	}

	// A20: the selector is immutable (nil and empty maps are equal).
	cs = validCloneSet(APIVersionV1beta1)
	cs.Spec.Selector = &LabelSelector{MatchLabels: map[string]string{"app": "sample"}, MatchExpressions: []LabelSelectorRequirement{}}
	cs.Spec.Replicas = int32p(9)
	if errs := ValidateUpdate(validCloneSet(APIVersionV1beta1), cs); len(errs) != 0 {
		t.Errorf("equal selectors: %v", errs)
	}
	cs.Spec.Selector = &LabelSelector{MatchLabels: map[string]string{"app": "other"}}
	errs = ValidateUpdate(validCloneSet(APIVersionV1beta1), cs)
	if len(errs) != 1 || errs[0].Rule != "A20" || errs[0].Type != ErrorTypeForbidden || !strings.Contains(errs[0].Error(), "spec: Forbidden: updates to cloneset spec for fields other than") {
		t.Errorf("A20: %v", errs)
	}

	// A21: InPlaceOnly allows only image replacements in template.spec.
	inPlaceOnly := func(mod func(spec map[string]any)) *CloneSet {
		c := validCloneSet(APIVersionV1alpha1)
		c.V1alpha1.UpdateStrategyType = V1alpha1TypeInPlaceOnly
		ConvertV1alpha1(c)
		c.Spec.Template.Raw = map[string]any{
			"metadata": map[string]any{"labels": map[string]any{"app": "sample", "v": "2"}},
			"spec": map[string]any{"containers": []any{
				map[string]any{"name": "nginx", "image": "nginx:v1", "resources": map[string]any{}},
			}},
		}
		mod(c.Spec.Template.Raw["spec"].(map[string]any))
		return c
	}
	oldIPO := inPlaceOnly(func(map[string]any) {})
	if errs := ValidateUpdate(oldIPO, inPlaceOnly(func(s map[string]any) {
		s["containers"].([]any)[0].(map[string]any)["image"] = "nginx:v2"
	})); len(errs) != 0 {
		t.Errorf("image change: %v", errs)
	}
	for _, c := range []struct {
		mod  func(map[string]any)
		want string
	}{
		{func(s map[string]any) { s["containers"].([]any)[0].(map[string]any)["name"] = "web" }, "replace /containers/0/name"},
		{func(s map[string]any) { s["nodeName"] = "n1" }, "add /nodeName"},
		{func(s map[string]any) {
			s["containers"] = append(s["containers"].([]any), map[string]any{"name": "b", "image": "b"})
		}, "add /containers/1"},
	} {
		errs := ValidateUpdate(oldIPO, inPlaceOnly(c.mod))
		if len(errs) != 1 || errs[0].Rule != "A21" || !strings.Contains(errs[0].Message, "only allowed to update images in spec for InPlaceOnly, but found "+c.want) {
			t.Errorf("A21 %s: %v", c.want, errs)
		}
	}
	// A21 is v1alpha1-only.
	b := inPlaceOnly(func(s map[string]any) { s["nodeName"] = "n1" })
	b.APIVersion = APIVersionV1beta1
	if errs := ValidateUpdate(oldIPO, b); len(errs) != 0 {
		t.Errorf("A21 in v1beta1: %v", errs)
	}
	if ValidateUpdate(nil, b) != nil {
		t.Error("nil old")
	}
}

func TestFieldErrorRendering(t *testing.T) {
	for _, c := range []struct {
		e    FieldError
		want string
	}{
		{errInvalid("A2", "spec.replicas", int32(-1), msgNonNegative), "spec.replicas: Invalid value: -1: must be greater than or equal to 0"},
		{errInvalid("A15", "spec.x", FromString("20x%"), "m"), `spec.x: Invalid value: "20x%": m`},
		{errRequired("A3", "spec.selector", ""), "spec.selector: Required value"},
		{errForbidden("A8", "spec.a", "no"), "spec.a: Forbidden: no"},
		{errNotSupported("A7", "spec.r", "Never", "Always"), `spec.r: Unsupported value: "Never": supported values: "Always"`},
		{errDuplicate("A6", "spec.v[1].name", "data"), `spec.v[1].name: Duplicate value: "data"`},
		{errInvalid("A9", "spec.p", []string{"a", "a"}, "duplicated items [a]"), `spec.p: Invalid value: ["a","a"]: duplicated items [a]`},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
	if Validate(nil, nil)[0].Type != ErrorTypeRequired {
		t.Error("nil CloneSet")
	}
}

func TestNameChecks(t *testing.T) {
	for _, c := range []struct {
		check func(string) string
		in    string
		ok    bool
	}{
		{checkQualifiedName, "app", true},
		{checkQualifiedName, "apps.kruise.io/state", true},
		{checkQualifiedName, "/x", false},
		{checkQualifiedName, "Bad_/x", false},
		{checkQualifiedName, "a/b/c", false},
		{checkQualifiedName, "example.com/", false},
		{checkQualifiedName, strings.Repeat("a", 64), false},
		{checkQualifiedName, "-a", false},
		{checkLabelValue, "", true},
		{checkLabelValue, "v1.2_x-y", true},
		{checkLabelValue, "has space", false},
		{checkDNS1123Subdomain, "a.b-c", true},
		{checkDNS1123Subdomain, strings.Repeat("a", 254), false},
		{checkDNS1123Subdomain, "a..b", false},
		{checkDNS1123Label, "a.b", false},
		{checkDNS1123Label, strings.Repeat("a", 64), false},
	} {
		if got := c.check(c.in) == ""; got != c.ok {
			t.Errorf("check(%q) ok = %v, want %v", c.in, got, c.ok)
		}
	}
}

func TestSelectorsEqual(t *testing.T) {
	s := func(labels map[string]string, exprs ...LabelSelectorRequirement) *LabelSelector {
		return &LabelSelector{MatchLabels: labels, MatchExpressions: exprs}
	}
	in := LabelSelectorRequirement{Key: "a", Operator: OpIn, Values: []string{"x", "y"}}
	for _, c := range []struct {
		a, b *LabelSelector
		eq   bool
	}{
		{nil, nil, true},
		{nil, s(nil), false},
		{s(nil), s(map[string]string{}), true},
		{s(map[string]string{"a": "1"}), s(map[string]string{"a": "2"}), false},
		{s(map[string]string{"a": "1"}), s(map[string]string{"b": "1"}), false},
		{s(nil, in), s(nil, in), true},
		{s(nil, in), s(nil, LabelSelectorRequirement{Key: "a", Operator: OpIn, Values: []string{"y", "x"}}), false},
		{s(nil, in), s(nil, LabelSelectorRequirement{Key: "a", Operator: OpNotIn, Values: in.Values}), false},
		{s(nil, in), s(nil), false},
	} {
		if got := selectorsEqual(c.a, c.b); got != c.eq {
			t.Errorf("selectorsEqual(%v, %v) = %v", c.a, c.b, got)
		}
	}
}

// TestPodTemplateRules covers the A6 checks one by one.
func TestPodTemplateRules(t *testing.T) {
	for _, c := range []struct {
		name string
		mod  func(t *PodTemplate, vcts *[]VolumeClaimTemplate)
		path string
		typ  ErrorType
	}{
		{"template annotation key", func(t *PodTemplate, _ *[]VolumeClaimTemplate) { t.Annotations = map[string]string{"a b": "x"} }, "spec.template.metadata.annotations", ErrorTypeInvalid},
		{"template label value", func(t *PodTemplate, _ *[]VolumeClaimTemplate) { t.Labels["x"] = "a b" }, "spec.template.metadata.labels", ErrorTypeInvalid},
		{"env name", func(t *PodTemplate, _ *[]VolumeClaimTemplate) {
			t.Spec.Containers[0].Env = []EnvVar{{Value: "v", HasValue: true}}
		}, "spec.template.spec.containers[0].env[0].name", ErrorTypeRequired},
		{"image whitespace", func(t *PodTemplate, _ *[]VolumeClaimTemplate) { t.Spec.Containers[0].Image = " nginx" }, "spec.template.spec.containers[0].image", ErrorTypeInvalid},
		{"container name missing", func(t *PodTemplate, _ *[]VolumeClaimTemplate) { t.Spec.Containers[0].Name = "" }, "spec.template.spec.containers[0].name", ErrorTypeRequired},
		{"init container named like a container", func(t *PodTemplate, _ *[]VolumeClaimTemplate) {
			t.Spec.InitContainers = []Container{{Name: "nginx", Image: "x"}}
		}, "spec.template.spec.containers[0].name", ErrorTypeDuplicate},
		{"volume without name", func(t *PodTemplate, _ *[]VolumeClaimTemplate) { t.Spec.Volumes = []string{""} }, "spec.template.spec.volumes[0].name", ErrorTypeRequired},
		{"volume name invalid", func(t *PodTemplate, _ *[]VolumeClaimTemplate) { t.Spec.Volumes = []string{"Data"} }, "spec.template.spec.volumes[0].name", ErrorTypeInvalid},
		{"volumeClaimTemplate without name", func(_ *PodTemplate, v *[]VolumeClaimTemplate) { *v = []VolumeClaimTemplate{{}} }, "spec.template.spec.volumes[0].name", ErrorTypeRequired},
		{"readiness gate", func(t *PodTemplate, _ *[]VolumeClaimTemplate) { t.Spec.ReadinessGates = []string{"bad gate"} }, "spec.template.spec.readinessGates[0].conditionType", ErrorTypeInvalid},
		{"mount without name", func(t *PodTemplate, _ *[]VolumeClaimTemplate) {
			t.Raw["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["volumeMounts"] = []any{map[string]any{"mountPath": "/x"}}
		}, "spec.template.spec.containers[0].volumeMounts[0].name", ErrorTypeRequired},
		{"mount without path", func(t *PodTemplate, _ *[]VolumeClaimTemplate) {
			t.Spec.Volumes = []string{"v"}
			t.Raw["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["volumeMounts"] = []any{map[string]any{"name": "v"}}
		}, "spec.template.spec.containers[0].volumeMounts[0].mountPath", ErrorTypeRequired},
		{"two mounts at one path", func(t *PodTemplate, _ *[]VolumeClaimTemplate) {
			t.Spec.Volumes = []string{"v", "w"}
			t.Raw["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["volumeMounts"] = []any{map[string]any{"name": "v", "mountPath": "/x"}, map[string]any{"name": "w", "mountPath": "/x"}}
		}, "spec.template.spec.containers[0].volumeMounts[1].mountPath", ErrorTypeInvalid},
		{"port without containerPort", func(t *PodTemplate, _ *[]VolumeClaimTemplate) {
			t.Raw["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["ports"] = []any{map[string]any{"name": "http"}}
		}, "spec.template.spec.containers[0].ports[0].containerPort", ErrorTypeRequired},
		{"containerPort out of range", func(t *PodTemplate, _ *[]VolumeClaimTemplate) {
			t.Raw["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["ports"] = []any{map[string]any{"containerPort": json.Number("65536")}}
		}, "spec.template.spec.containers[0].ports[0].containerPort", ErrorTypeInvalid},
		{"hostPort out of range", func(t *PodTemplate, _ *[]VolumeClaimTemplate) {
			t.Raw["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["ports"] = []any{map[string]any{"containerPort": int64(80), "hostPort": int64(-1)}}
		}, "spec.template.spec.containers[0].ports[0].hostPort", ErrorTypeInvalid},
		{"port protocol", func(t *PodTemplate, _ *[]VolumeClaimTemplate) {
			t.Raw["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["ports"] = []any{map[string]any{"containerPort": 80.0, "protocol": "tcp"}}
		}, "spec.template.spec.containers[0].ports[0].protocol", ErrorTypeNotSupported},
		{"port name", func(t *PodTemplate, _ *[]VolumeClaimTemplate) {
			t.Raw["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["ports"] = []any{map[string]any{"containerPort": 80.0, "name": "8080"}}
		}, "spec.template.spec.containers[0].ports[0].name", ErrorTypeInvalid},
		{"two ports of one name", func(t *PodTemplate, _ *[]VolumeClaimTemplate) {
			t.Raw["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["ports"] = []any{map[string]any{"containerPort": 80.0, "name": "http"}, map[string]any{"containerPort": 81.0, "name": "http"}}
		}, "spec.template.spec.containers[0].ports[1].name", ErrorTypeDuplicate},
		{"limit below zero", func(t *PodTemplate, _ *[]VolumeClaimTemplate) {
			t.Spec.Containers[0].Resources.Limits = map[string]Quantity{"memory": MustParseQuantity("-1Gi")}
		}, "spec.template.spec.containers[0].resources.limits[memory]", ErrorTypeInvalid},
	} {
		cs := validCloneSet(APIVersionV1beta1)
		c.mod(&cs.Spec.Template, &cs.Spec.VolumeClaimTemplates)
		errs := Validate(cs, nil)
		if len(errs) != 1 || errs[0].Path != c.path || errs[0].Type != c.typ || errs[0].Rule != "B6" {
			t.Errorf("%s: %v", c.name, errs)
		}
	}
	// A mount of a volumeClaimTemplate volume is fine.
	cs := validCloneSet(APIVersionV1alpha1)
	cs.Spec.VolumeClaimTemplates = []VolumeClaimTemplate{{Name: "data"}}
	cs.Spec.Template.Raw["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["volumeMounts"] = []any{map[string]any{"name": "data", "mountPath": "/data"}}
	if errs := Validate(cs, nil); len(errs) != 0 {
		t.Errorf("mount of a VCT volume: %v", errs)
	}
	// Annotations are limited to 256 KiB in total.
	cs.Annotations = map[string]string{"big": strings.Repeat("x", 256*1024)}
	if errs := Validate(cs, nil); len(errs) != 1 || errs[0].Path != "metadata.annotations" {
		t.Errorf("big annotations: %v", errs)
	}
	// A selector with an invalid label key or value cannot be converted.
	for _, sel := range []*LabelSelector{
		{MatchLabels: map[string]string{"bad key": "x"}},
		{MatchLabels: map[string]string{"app": "bad value"}},
		{MatchExpressions: []LabelSelectorRequirement{{Key: "bad key", Operator: OpExists}}},
		{MatchExpressions: []LabelSelectorRequirement{{Key: "app", Operator: OpIn, Values: []string{"bad value"}}}},
		{MatchExpressions: []LabelSelectorRequirement{{Key: "app", Operator: OpExists, Values: []string{"x"}}}},
	} {
		cs := validCloneSet(APIVersionV1beta1)
		cs.Spec.Selector = sel
		errs := Validate(cs, nil)
		if len(errs) < 2 || errs[len(errs)-1].Path != "spec.selector" || errs.HasRule("B5") {
			t.Errorf("selector %+v: %v", sel, errs)
		}
	}
}
