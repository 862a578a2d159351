package manifest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/clonecore/cloneset/model"
)

// TestToleratedInputs loads inputs the real controller tolerates (and inputs
// the webhook accepts although they look odd) and checks how they are read.
func TestToleratedInputs(t *testing.T) {
	cases := []struct {
		name  string
		input string
		check func(t *testing.T, s *model.Scenario)
	}{
		{
			// LSV 1.1 / DECISIONS "Input strictness": an unknown state is
			// accepted and treated as the controller treats it (not Normal).
			"unknown lifecycle state",
			beta(selTpl) + podDoc("p1", "sample", "lifecycle.apps.kruise.io/state: Sleeping"),
			func(t *testing.T, s *model.Scenario) {
				if len(s.Pods) != 1 || s.Pods[0].LifecycleState() != "Sleeping" {
					t.Fatalf("pods = %+v", s.Pods)
				}
			},
		},
		{
			// A stored v1alpha1 object keeps podsToDelete names until the
			// controller drops them after the pod is gone (SB 6.7); A10 applies
			// only to names being added (LSV 4.4), so loading a snapshot accepts a
			// name whose pod no longer exists (model.ValidateStored).
			"podsToDelete names a pod that is gone",
			alpha("  scaleStrategy: {podsToDelete: [ghost]}\n" + selTpl),
			func(t *testing.T, s *model.Scenario) {
				if got := s.CloneSet.Spec.ScaleStrategy.PodsToDelete; len(got) != 1 || got[0] != "ghost" {
					t.Fatalf("podsToDelete = %v", got)
				}
			},
		},
		{
			// Same for a pod the controller already deleted (terminating).
			"podsToDelete names a terminating pod",
			alpha("  scaleStrategy: {podsToDelete: [p1]}\n"+selTpl) +
				strings.Replace(podDoc("p1", "sample"), "  uid: uid-p1\n", "  uid: uid-p1\n  deletionTimestamp: \"2026-01-01T00:00:00Z\"\n", 1),
			func(t *testing.T, s *model.Scenario) {
				if len(s.Pods) != 1 || s.Pods[0].DeletionTimestamp.IsZero() {
					t.Fatalf("pods = %+v", s.Pods)
				}
			},
		},
		{
			// DECISIONS "Input strictness": a request above its limit, which
			// the webhook's pod validation refuses, is accepted in a stored
			// object (model.ValidateStored); the controller builds its
			// revision (testdata/conformance-revnames 0046, 0095).
			"request above limit",
			beta(strings.Replace(selTpl, "image: nginx:v1", "image: nginx:v1\n        resources: {requests: {cpu: 2}, limits: {cpu: 1}}", 1)),
			func(t *testing.T, s *model.Scenario) {
				errs := model.Validate(s.CloneSet, s.Pods)
				if len(errs) != 1 || errs[0].Rule != "B6-requests" || !strings.Contains(errs[0].Error(), "must be less than or equal to cpu limit of 1") {
					t.Fatalf("the admission verdict: %v", errs)
				}
			},
		},
		{
			// DECISIONS: partition above replicas is accepted; the controller clamps it.
			"partition above replicas",
			beta("  replicas: 3\n" + selTpl + "  updateStrategy:\n    rollingUpdate: {partition: 10}\n"),
			func(t *testing.T, s *model.Scenario) {
				if p := s.CloneSet.Spec.UpdateStrategy.RollingUpdate.Partition; p == nil || *p != model.FromInt(10) {
					t.Fatalf("partition = %v", p)
				}
			},
		},
		{
			// LSV 7.12: "120%" passes (no upper bound).
			"partition 120%",
			alpha("  replicas: 4\n" + selTpl + "  updateStrategy: {partition: 120%}\n"),
			func(t *testing.T, s *model.Scenario) {
				if p := s.CloneSet.Spec.UpdateStrategy.RollingUpdate.Partition; p == nil || *p != model.FromString("120%") {
					t.Fatalf("partition = %v", p)
				}
			},
		},
		{
			// LSV 4.3 / DECISIONS: "12.5%" passes the webhook parser; the
			// controller's parser yields 0 (the planner reproduces and notes it).
			"maxUnavailable 12.5%",
			beta("  replicas: 8\n" + selTpl + "  updateStrategy:\n    rollingUpdate: {maxUnavailable: 12.5%}\n"),
			func(t *testing.T, s *model.Scenario) {
				mu := s.CloneSet.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable
				if mu == nil || *mu != model.FromString("12.5%") {
					t.Fatalf("maxUnavailable = %v", mu)
				}
				if v, err := mu.ScaledValueK8s(8, true); v != 0 || err == nil {
					t.Errorf("controller parser gives %d, %v; want 0 and an error", v, err)
				}
			},
		},
		{
			"maxSurge 12.5% in v1alpha1",
			alpha("  replicas: 8\n" + selTpl + "  updateStrategy: {maxSurge: 12.5%}\n"),
			func(t *testing.T, s *model.Scenario) {
				if ms := s.CloneSet.Spec.UpdateStrategy.RollingUpdate.MaxSurge; ms == nil || *ms != model.FromString("12.5%") {
					t.Fatalf("maxSurge = %v", ms)
				}
			},
		},
		{
			// scenario-format 1: other kinds are ignored, never an error.
			"unknown kinds",
			beta(selTpl) + "---\napiVersion: v1\nkind: Service\nmetadata: {name: svc}\nspec: {ports: [{port: 80}]}\n" +
				"---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: many}\n" +
				"---\napiVersion: v2\nkind: Pod\nmetadata: {name: p}\n",
			func(t *testing.T, s *model.Scenario) {
				if len(s.Pods) != 0 || len(s.SetAside) != 0 {
					t.Fatalf("pods %v, set aside %v", s.Pods, s.SetAside)
				}
			},
		},
		{
			// scenario-format 1: unknown fields are ignored, so real output loads.
			"unknown fields",
			strings.Replace(beta("  replicas: 2\n  frobnicate: {x: [1, 2]}\n"+selTpl), "  uid: uid-sample\n",
				"  uid: uid-sample\n  managedFields: [{manager: kubectl, fieldsV1: {f:spec: {}}}]\n  resourceVersion: \"123\"\n", 1) +
				"status:\n  somethingNew: 3\n",
			func(t *testing.T, s *model.Scenario) {
				if *s.CloneSet.Spec.Replicas != 2 {
					t.Fatalf("replicas = %d", *s.CloneSet.Spec.Replicas)
				}
			},
		},
		{
			// scenario-format 1: a v1 List contributes its items.
			"List document",
			beta(selTpl) + "---\napiVersion: v1\nkind: List\nmetadata: {resourceVersion: \"\"}\nitems:\n" +
				indent(strings.TrimPrefix(podDoc("p1", "sample"), "---\n")) + indent(strings.TrimPrefix(podDoc("p2", "sample"), "---\n")) +
				"- apiVersion: v1\n  kind: PersistentVolumeClaim\n  metadata:\n    name: data-p1\n    ownerReferences: [{kind: Pod, name: p1, uid: uid-p1, controller: true}]\n",
			func(t *testing.T, s *model.Scenario) {
				if len(s.Pods) != 2 || s.Pods[0].Name != "p1" || s.Pods[1].Name != "p2" || len(s.PVCs) != 1 {
					t.Fatalf("pods %d, pvcs %d", len(s.Pods), len(s.PVCs))
				}
			},
		},
		{
			// An API list (PodList) whose items carry no apiVersion/kind.
			"typed list without item kinds",
			beta(selTpl) + "---\napiVersion: v1\nkind: PodList\nitems:\n- metadata: {name: p1, labels: {app: sample}}\n- metadata: {name: p2, labels: {app: sample}}\n",
			func(t *testing.T, s *model.Scenario) {
				if len(s.Pods) != 2 {
					t.Fatalf("pods %d", len(s.Pods))
				}
			},
		},
		{
			"JSON input",
			`{"apiVersion": "apps.kruise.io/v1beta1", "kind": "CloneSet",
			  "metadata": {"name": "sample", "namespace": "default"},
			  "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "sample"}},
			           "template": {"metadata": {"labels": {"app": "sample"}},
			                        "spec": {"containers": [{"name": "nginx", "image": "nginx:v1"}]}}}}`,
			func(t *testing.T, s *model.Scenario) {
				if *s.CloneSet.Spec.Replicas != 3 {
					t.Fatalf("replicas = %d", *s.CloneSet.Spec.Replicas)
				}
			},
		},
		{
			// A JSON stream: concatenated values (kubectl get -o json, twice).
			"JSON stream",
			"{\"apiVersion\": \"apps.kruise.io/v1beta1\", \"kind\": \"CloneSet\", \"metadata\": {\"name\": \"sample\"},\n" +
				"\t\"spec\": {\"selector\": {\"matchLabels\": {\"app\": \"sample\"}}, \"template\": {\"metadata\": {\"labels\": {\"app\": \"sample\"}}, \"spec\": {\"containers\": [{\"name\": \"c\", \"image\": \"i\"}]}}}}\n" +
				"{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"p1\", \"labels\": {\"app\": \"sample\"}}}]}",
			func(t *testing.T, s *model.Scenario) {
				if len(s.Pods) != 1 || s.Pods[0].Namespace != "default" {
					t.Fatalf("pods %+v", s.Pods)
				}
			},
		},
		{
			// LSV 7.12: v1beta1 OnDelete without rollingUpdate skips B11-B20.
			"v1beta1 OnDelete",
			beta(selTpl + "  updateStrategy: {type: OnDelete}\n"),
			func(t *testing.T, s *model.Scenario) {
				us := s.CloneSet.Spec.UpdateStrategy
				if us.Type != model.UpdateStrategyOnDelete || us.RollingUpdate != nil {
					t.Fatalf("updateStrategy = %+v", us)
				}
			},
		},
		{
			// LSV 4.5: A18 is not checked in v1beta1.
			"v1beta1 progressDeadlineSeconds below minReadySeconds",
			beta("  minReadySeconds: 30\n  progressDeadlineSeconds: 10\n" + selTpl),
			func(t *testing.T, s *model.Scenario) {
				if *s.CloneSet.Spec.ProgressDeadlineSeconds != 10 {
					t.Fatal("progressDeadlineSeconds lost")
				}
			},
		},
		{
			// LSV 4.5: B9 checks duplicates only, not the pods (A10 is v1alpha1).
			"v1beta1 podsToDelete naming an unknown pod",
			beta("  scaleStrategy: {podsToDelete: [ghost]}\n" + selTpl),
			func(t *testing.T, s *model.Scenario) {
				if got := s.CloneSet.Spec.ScaleStrategy.PodsToDelete; len(got) != 1 || got[0] != "ghost" {
					t.Fatalf("podsToDelete = %v", got)
				}
			},
		},
		{
			// LSV 4.4: negative maxUnavailable is not rejected by itself (A17
			// needs maxSurge below 1 too).
			"negative maxUnavailable with maxSurge",
			alpha(selTpl + "  updateStrategy: {maxUnavailable: -1, maxSurge: 1}\n"),
			func(t *testing.T, s *model.Scenario) {
				if mu := s.CloneSet.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable; *mu != model.FromInt(-1) {
					t.Fatalf("maxUnavailable = %v", mu)
				}
			},
		},
		{
			// A13: weights in [0, 100] are accepted (0 included).
			"priority weight 0",
			beta(selTpl + "  updateStrategy:\n    rollingUpdate:\n      priorityStrategy:\n        weightPriority: [{weight: 0, matchSelector: {matchLabels: {a: b}}}]\n"),
			func(t *testing.T, s *model.Scenario) {
				if w := s.CloneSet.Spec.UpdateStrategy.RollingUpdate.PriorityStrategy.WeightPriority; len(w) != 1 || w[0].Weight != 0 {
					t.Fatalf("weights = %+v", w)
				}
			},
		},
		{
			// Empty documents, comment-only documents and nulls are skipped.
			"empty documents and nulls",
			"---\n# nothing\n---\n" + beta("  replicas: null\n  lifecycle: ~\n"+selTpl) + "---\n---\nnull\n",
			func(t *testing.T, s *model.Scenario) {
				if *s.CloneSet.Spec.Replicas != 1 || s.CloneSet.Spec.Lifecycle != nil {
					t.Fatalf("replicas %d lifecycle %v", *s.CloneSet.Spec.Replicas, s.CloneSet.Spec.Lifecycle)
				}
			},
		},
		{
			// Unquoted timestamps are strings in Kubernetes' YAML reading.
			"unquoted timestamps",
			beta(selTpl) + strings.Replace(podDoc("p1", "sample"), "  uid: uid-p1\n", "  uid: uid-p1\n  creationTimestamp: 2026-01-01T00:00:00Z\n", 1),
			func(t *testing.T, s *model.Scenario) {
				if s.Pods[0].CreationTimestamp.Year() != 2026 {
					t.Fatalf("creation = %v", s.Pods[0].CreationTimestamp)
				}
			},
		},
		{
			// Pods are not validated: odd label values load as written.
			"odd pod label values",
			beta(selTpl) + podDoc("p1", "sample", `note: "not a valid label value!"`, `"": empty-key`),
			func(t *testing.T, s *model.Scenario) {
				if s.Pods[0].Labels["note"] != "not a valid label value!" || s.Pods[0].Labels[""] != "empty-key" {
					t.Fatalf("labels = %v", s.Pods[0].Labels)
				}
			},
		},
		{
			// YAML anchors and aliases are expanded.
			"anchors and aliases",
			"apiVersion: apps.kruise.io/v1beta1\nkind: CloneSet\nmetadata: {name: sample, labels: &l {app: sample}}\nspec:\n  selector: {matchLabels: *l}\n  template:\n    metadata: {labels: *l}\n    spec: {containers: [{name: c, image: i}]}\n",
			func(t *testing.T, s *model.Scenario) {
				if s.CloneSet.Spec.Template.Labels["app"] != "sample" || s.CloneSet.Spec.Selector.MatchLabels["app"] != "sample" {
					t.Fatalf("labels not expanded: %+v", s.CloneSet.Spec)
				}
			},
		},
		{
			// YAML merge keys, as Kubernetes' YAML reader supports them.
			"merge keys",
			beta(selTpl) + "---\napiVersion: v1\nkind: List\nitems:\n- &p {apiVersion: v1, kind: Pod, metadata: {name: p1, labels: {app: sample}}, spec: {nodeName: n1}}\n" +
				"- <<: *p\n  metadata: {name: p2, labels: {app: sample}}\n",
			func(t *testing.T, s *model.Scenario) {
				if len(s.Pods) != 2 || s.Pods[1].Name != "p2" || s.Pods[1].Spec.NodeName != "n1" {
					t.Fatalf("pods %+v", s.Pods)
				}
			},
		},
		{
			// LSV 5.2: only the exact value "true" turns excludePreparingDelete on.
			"exclude-preparing-delete label True",
			strings.Replace(alpha(selTpl), "  uid: uid-sample\n", "  uid: uid-sample\n  labels: {apps.kruise.io/cloneset-scaling-exclude-preparing-delete: \"True\"}\n", 1),
			func(t *testing.T, s *model.Scenario) {
				if s.CloneSet.Spec.ScaleStrategy.ExcludePreparingDelete {
					t.Fatal("excludePreparingDelete on for \"True\"")
				}
			},
		},
		{
			// A quoted number stays a string in the raw template.
			"quoted numbers stay strings",
			beta(strings.Replace(selTpl, "image: nginx:v1", "image: nginx:v1\n        env: [{name: A, value: \"5\"}]\n        ports: [{containerPort: 80}]", 1)),
			func(t *testing.T, s *model.Scenario) {
				c := s.CloneSet.Spec.Template.Raw["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
				if v := c["env"].([]any)[0].(map[string]any)["value"]; v != "5" {
					t.Errorf("env value = %#v", v)
				}
				if v := c["ports"].([]any)[0].(map[string]any)["containerPort"]; v != any(json.Number("80")) {
					t.Errorf("containerPort = %#v", v)
				}
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.check(t, mustLoad(t, c.input))
		})
	}
}

func indent(doc string) string {
	lines := strings.Split(strings.TrimRight(doc, "\n"), "\n")
	for i, l := range lines {
		if i == 0 {
			lines[i] = "- " + l
		} else {
			lines[i] = "  " + l
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// TestSkipBudgetRule: a CloneSet that breaks only the both-below-1 rule (B17)
// is rejected by default (TestBadInputs) and loads with
// Options.SkipBudgetRule, the opt-out for objects that bypassed admission;
// model.Validate still reports it, for the planner's notes.
func TestSkipBudgetRule(t *testing.T) {
	in := beta("  replicas: 4\n" + selTpl + "  updateStrategy:\n    rollingUpdate: {maxUnavailable: 0, maxSurge: 1}\n")
	if _, err := LoadBytes([]byte(in), "test.yaml"); err == nil {
		t.Fatal("loaded by default; want the B17 error")
	}
	s, err := Options{SkipBudgetRule: true}.LoadBytes([]byte(in), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if errs := model.Validate(s.CloneSet, s.Pods); !errs.HasRule("B17") {
		t.Fatalf("Validate = %v, want B17", errs)
	}
}

// TestEmptyV1alpha1UpdateType: an explicit empty v1alpha1 update type is
// defaulted to ReCreate by the mutating webhook and then admitted
// (docs/spec/DECISIONS.md "Input strictness").
func TestEmptyV1alpha1UpdateType(t *testing.T) {
	s := mustLoad(t, alpha(selTpl+"  updateStrategy: {type: \"\"}\n"))
	ru := s.CloneSet.Spec.UpdateStrategy.RollingUpdate
	if s.CloneSet.Spec.UpdateStrategy.Type != model.UpdateStrategyRollingUpdate || ru == nil || ru.PodUpdatePolicy != model.PolicyReCreate {
		t.Fatalf("update strategy %+v (rolling update %+v), want RollingUpdate with ReCreate", s.CloneSet.Spec.UpdateStrategy, ru)
	}
}
