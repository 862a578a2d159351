package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadInputs checks that input which cannot be a real cluster's state, and
// every CloneSet spec the upstream webhook rejects for its API version, is an
// error whose message names the object and the field.
func TestBadInputs(t *testing.T) {
	cases := []struct {
		name    string
		input   string
		lenient bool     // load with Options{SkipBudgetRule: true}
		want    []string // substrings of the error message
	}{
		// Malformed streams.
		{"malformed YAML", "apiVersion: v1\nkind: [", false, []string{"test.yaml", "invalid YAML"}},
		{"bad YAML indentation", "a:\n  b: 1\n c: 2\n", false, []string{"test.yaml", "invalid YAML"}},
		{"malformed JSON", `{"apiVersion": "v1", "items": [1, 2}`, false, []string{"test.yaml", "invalid JSON"}},
		{"document is a list", "- a\n- b\n", false, []string{"test.yaml:1", "document 1", "expected a Kubernetes object"}},
		{"document without kind", "apiVersion: v1\nmetadata: {name: x}\n", false, []string{"document 1", "kind: missing"}},
		{"List item not an object", "apiVersion: v1\nkind: List\nitems:\n- 5\n", false, []string{"document 1 item 1", "expected a Kubernetes object"}},
		{"nesting too deep", beta(selTpl + "      x: " + strings.Repeat("[", 300) + strings.Repeat("]", 300) + "\n"), false,
			[]string{"CloneSet default/sample", "nested more than"}},

		// The set of objects.
		{"empty input", "", false, []string{"test.yaml: no CloneSet: the input is empty", "want a CloneSet (apiVersion apps.kruise.io/v1alpha1 or apps.kruise.io/v1beta1, kind CloneSet)"}},
		{"only comments and separators", "# nothing yet\n---\n---\n", false, []string{"test.yaml: no CloneSet: the input is empty"}},
		{"no CloneSet", podDoc("p1", "sample") + podDoc("p2", "sample"), false, []string{"test.yaml: no CloneSet: the input holds Pod (2); want a CloneSet"}},
		{"a list of pods", "apiVersion: v1\nkind: PodList\nitems:\n- metadata: {name: p1}\n", false, []string{"the input holds Pod (1);"}},
		{"kind mistyped", strings.Replace(beta(selTpl), "kind: CloneSet", "kind: Cloneset", 1) + podDoc("p1", "sample"), false,
			[]string{"the input holds Cloneset (1), Pod (1)", `kind "Cloneset" is not "CloneSet": kinds are case-sensitive`}},
		{"CloneSet of an unknown apiVersion", strings.Replace(beta(selTpl), "v1beta1", "v1", 1), false,
			[]string{"no CloneSet", `CloneSet of apiVersion "apps.kruise.io/v1"`}},
		{"two CloneSets", beta(selTpl) + "---\n" + strings.Replace(beta(selTpl), "name: sample", "name: other", 1), false,
			[]string{"2 CloneSets", "default/sample", "default/other"}},
		{"two Scenario documents", beta(selTpl) + "---\napiVersion: clonesetcore/v1alpha1\nkind: Scenario\n---\napiVersion: clonesetcore/v1alpha1\nkind: Scenario\n", false,
			[]string{"2 Scenario documents"}},
		{"duplicate pod names", beta(selTpl) + podDoc("p1", "sample") + podDoc("p1", "sample"), false,
			[]string{"Pod default/p1", "metadata.name", "Duplicate"}},
		{"pod without name", beta(selTpl) + "---\napiVersion: v1\nkind: Pod\nmetadata: {labels: {app: sample}}\n", false,
			[]string{"Pod (document 2)", "metadata.name: required"}},
		{"CloneSet without name", strings.Replace(beta(selTpl), "  name: sample\n", "", 1), false,
			[]string{"CloneSet (document 1)", "metadata.name: required"}},
		{"duplicate PVC names", beta(selTpl) + "---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c}\n---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c}\n", false,
			[]string{"PersistentVolumeClaim default/c", "Duplicate"}},

		// Scenario settings.
		{"unknown feature gate", beta(selTpl) + "---\napiVersion: clonesetcore/v1alpha1\nkind: Scenario\nfeatureGates: {NoSuchGate: true}\n", false,
			[]string{"Scenario", "featureGates[NoSuchGate]", `unknown feature gate "NoSuchGate"`}},
		{"PUB gate is out of scope", beta(selTpl) + "---\napiVersion: clonesetcore/v1alpha1\nkind: Scenario\nfeatureGates: {PodUnavailableBudgetUpdateGate: true}\n", false,
			[]string{"featureGates[PodUnavailableBudgetUpdateGate]", "unknown feature gate"}},
		{"feature gate not a boolean", beta(selTpl) + "---\napiVersion: clonesetcore/v1alpha1\nkind: Scenario\nfeatureGates: {CloneSetShortHash: yes}\n", false,
			[]string{"featureGates[CloneSetShortHash]", "expected true or false"}},
		{"bad now", beta(selTpl) + "---\napiVersion: clonesetcore/v1alpha1\nkind: Scenario\nnow: yesterday\n", false,
			[]string{"Scenario", "now", "expected an RFC 3339 time"}},
		{"now without a time", beta(selTpl) + "---\napiVersion: clonesetcore/v1alpha1\nkind: Scenario\nnow: 2026-01-01\n", false,
			[]string{"now", "expected an RFC 3339 time"}},

		// Types.
		{"replicas not an integer", beta("  replicas: abc\n" + selTpl), false,
			[]string{`test.yaml:8: CloneSet default/sample: spec.replicas: expected an integer, got "abc"`}},
		{"replicas a fraction", beta("  replicas: 1.5\n" + selTpl), false, []string{"CloneSet default/sample", "spec.replicas: expected an integer, got 1.5"}},
		{"replicas out of range", beta("  replicas: 3000000000\n" + selTpl), false, []string{"spec.replicas", "out of range"}},
		{"labels not an object", strings.Replace(beta(selTpl), "  uid: uid-sample\n", "  uid: uid-sample\n  labels: [a]\n", 1), false,
			[]string{"CloneSet default/sample", "metadata.labels: expected an object, got a list"}},
		{"label value a boolean", beta(selTpl) + podDoc("p1", "sample", "ready: true"), false,
			[]string{"Pod default/p1", "metadata.labels[ready]", "expected a string, got true", `quote it: "true"`}},
		{"field given twice", beta("  replicas: 1\n  replicas: 2\n" + selTpl), false, []string{"spec.replicas", "given twice"}},
		{"maxUnavailable a fraction", beta(selTpl + "  updateStrategy:\n    rollingUpdate: {maxUnavailable: 0.5}\n"), false,
			[]string{"spec.updateStrategy.rollingUpdate.maxUnavailable", "expected an integer or a string"}},
		{"bad quantity", beta(strings.Replace(selTpl, "image: nginx:v1", "image: nginx:v1\n        resources: {requests: {cpu: 2 cores}}", 1)), false,
			[]string{"spec.template.spec.containers[0].resources.requests[cpu]", "expected a quantity"}},
		{"bad creationTimestamp", beta(selTpl) + strings.Replace(podDoc("p1", "sample"), "  uid: uid-p1\n", "  uid: uid-p1\n  creationTimestamp: noon\n", 1), false,
			[]string{"Pod default/p1", "metadata.creationTimestamp", "RFC 3339"}},
		{"condition status unquoted", beta(selTpl) + "status:\n  conditions:\n  - {type: Progressing, status: False}\n", false,
			[]string{"status.conditions[0].status", "expected a string", `quote it: "False"`}},
		{"alias bomb", beta(selTpl) + aliasBomb(), false, []string{"input too large"}},

		// A1-A8 / B1-B8: metadata, replicas, selector, template.
		{"A1 invalid name", strings.Replace(alpha(selTpl), "name: sample", "name: Sample_1", 1), false,
			[]string{"CloneSet default/Sample_1", "metadata.name", "RFC 1123 subdomain"}},
		{"A2 negative replicas (v1alpha1)", alpha("  replicas: -1\n" + selTpl), false,
			[]string{"CloneSet default/sample", "spec.replicas: Invalid value: -1: must be greater than or equal to 0"}},
		{"B2 negative replicas (v1beta1)", beta("  replicas: -1\n" + selTpl), false,
			[]string{"CloneSet default/sample", "spec.replicas: Invalid value: -1: must be greater than or equal to 0"}},
		{"A3 no selector", alpha("  template:\n    metadata: {labels: {app: sample}}\n    spec: {containers: [{name: c, image: i}]}\n"), false,
			[]string{"CloneSet default/sample", "spec.selector: Required value"}},
		{"B4 empty selector", beta(strings.Replace(selTpl, "matchLabels: {app: sample}", "{}", 1)), false,
			[]string{"spec.selector", "empty selector is invalid for cloneset"}},
		{"B4 bad selector operator", beta(strings.Replace(selTpl, "matchLabels: {app: sample}", "{matchExpressions: [{key: app, operator: Near, values: [a]}]}", 1)), false,
			[]string{"spec.selector.matchExpressions[0].operator", "not a valid selector operator"}},
		{"A5 selector does not match template labels", alpha(strings.Replace(selTpl, "labels: {app: sample}", "labels: {app: other}", 1)), false,
			[]string{"CloneSet default/sample", "spec.template.metadata.labels", "`selector` does not match template `labels`"}},
		{"B5 template removes every label", beta(strings.Replace(selTpl, "      labels: {app: sample}\n", "", 1)), false,
			[]string{"spec.template.metadata.labels", "`selector` does not match template `labels`"}},
		{"B6 no containers", beta(strings.Replace(selTpl, "      containers:\n      - name: nginx\n        image: nginx:v1\n", "      containers: []\n", 1)), false,
			[]string{"spec.template.spec.containers: Required value"}},
		{"B6 container without image", beta(strings.Replace(selTpl, "        image: nginx:v1\n", "", 1)), false,
			[]string{"spec.template.spec.containers[0].image: Required value"}},
		{"B6 duplicate container names", beta(strings.Replace(selTpl, "image: nginx:v1", "image: nginx:v1\n      - {name: nginx, image: x}", 1)), false,
			[]string{"spec.template.spec.containers[1].name: Duplicate value"}},
		{"B6 volume named like a volumeClaimTemplate", beta(strings.Replace(selTpl, "image: nginx:v1", "image: nginx:v1\n      volumes: [{name: data}]", 1) +
			"  volumeClaimTemplates:\n  - metadata: {name: data}\n"), false,
			[]string{"spec.template.spec.volumes[1].name: Duplicate value: \"data\""}},
		{"B6 mount of an unknown volume", beta(strings.Replace(selTpl, "image: nginx:v1", "image: nginx:v1\n        volumeMounts: [{name: data, mountPath: /d}]", 1)), false,
			[]string{"spec.template.spec.containers[0].volumeMounts[0].name: Not found"}},
		{"B0 a member the API types refuse", beta(strings.Replace(selTpl, "image: nginx:v1", "image: nginx:v1\n        ports: [{containerPort: \"80\"}]", 1)), false,
			[]string{"CloneSet default/sample", `spec.template.spec.containers[0].ports[0].containerPort: Invalid value: "80": expected an integer (int32), got a string`}},
		{"B0 a fraction where an integer is", beta(selTpl + "      terminationGracePeriodSeconds: 1.5\n"), false,
			[]string{"test.yaml:", "spec.template.spec.terminationGracePeriodSeconds: Invalid value: 1.5: expected an integer (int64)"}},
		{"B6 init container restartPolicy", beta(strings.Replace(selTpl, "      containers:\n", "      initContainers: [{name: init, image: x, restartPolicy: OnFailure}]\n      containers:\n", 1)), false,
			[]string{"spec.template.spec.initContainers[0].restartPolicy: Unsupported value"}},
		{"A7 restartPolicy Never", alpha(selTpl + "      restartPolicy: Never\n"), false,
			[]string{"CloneSet default/sample", `spec.template.spec.restartPolicy: Unsupported value: "Never"`}},
		{"A8 activeDeadlineSeconds", alpha(selTpl + "      activeDeadlineSeconds: 30\n"), false,
			[]string{"CloneSet default/sample", "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in cloneset is not Supported"}},

		// A9-A18 (v1alpha1).
		{"A9 duplicated podsToDelete", alpha("  scaleStrategy: {podsToDelete: [p1, p1]}\n"+selTpl) + podDoc("p1", "sample"), false,
			[]string{"spec.scaleStrategy.podsToDelete", "duplicated items [p1]"}},
		{"A10 podsToDelete names a foreign pod", alpha("  scaleStrategy: {podsToDelete: [p1]}\n"+selTpl) + podDoc("p1", "other"), false,
			[]string{"CloneSet default/sample", "spec.scaleStrategy.podsToDelete", "find pod p1 owner is not this CloneSet"}},
		{"A11 OnDelete in v1alpha1", alpha(selTpl + "  updateStrategy: {type: OnDelete}\n"), false,
			[]string{"CloneSet default/sample", `spec.updateStrategy.type: Invalid value: "OnDelete": must be 'ReCreate', InPlaceIfPossible or 'InPlaceOnly'`}},
		{"A12 partition not a percentage", alpha(selTpl + "  updateStrategy: {partition: abc}\n"), false,
			[]string{"spec.updateStrategy.partition", "failed GetScaledValueFromIntOrPercent for partition: invalid type: string is not a percentage"}},
		{"A13 weight and order priority", alpha(selTpl + "  updateStrategy:\n    priorityStrategy:\n      weightPriority: [{weight: 1, matchSelector: {matchLabels: {a: b}}}]\n      orderPriority: [{orderedKey: k}]\n"), false,
			[]string{"spec.updateStrategy.priorityStrategy.weightPriority", "only one of weightPriority and orderPriority can be used"}},
		{"A13 priority weight 101", alpha(selTpl + "  updateStrategy:\n    priorityStrategy:\n      weightPriority: [{weight: 101, matchSelector: {matchLabels: {a: b}}}]\n"), false,
			[]string{"spec.updateStrategy.priorityStrategy.weightPriority[0].weight", "weight must be valid number in the range 1-100"}},
		{"A13 empty weight selector", alpha(selTpl + "  updateStrategy:\n    priorityStrategy:\n      weightPriority: [{weight: 10}]\n"), false,
			[]string{"spec.updateStrategy.priorityStrategy.weightPriority[0].matchSelector", "selector can not be empty"}},
		{"A13 empty order key", alpha(selTpl + "  updateStrategy:\n    priorityStrategy:\n      orderPriority: [{orderedKey: \"\"}]\n"), false,
			[]string{"spec.updateStrategy.priorityStrategy.orderPriority[0].orderedKey", "order key can not be empty"}},
		{"A14 empty scatter key", alpha(selTpl + "  updateStrategy:\n    scatterStrategy: [{key: \"\", value: v}]\n"), false,
			[]string{"spec.updateStrategy.scatterStrategy[0].key", "key should not be empty"}},
		{"A14 duplicated scatter term", alpha(selTpl + "  updateStrategy:\n    scatterStrategy: [{key: foo, value: bar}, {key: foo, value: bar}]\n"), false,
			[]string{"spec.updateStrategy.scatterStrategy[1]", "duplicated key=foo value=bar"}},
		{"A15 maxUnavailable 20x%", alpha(selTpl + "  updateStrategy: {maxUnavailable: 20x%}\n"), false,
			[]string{"CloneSet default/sample", `spec.updateStrategy.maxUnavailable: Invalid value: "20x%": failed GetScaledValueFromIntOrPercent for maxUnavailable`}},
		{"A16 maxSurge with InPlaceOnly", alpha(selTpl + "  updateStrategy: {type: InPlaceOnly, maxSurge: 1}\n"), false,
			[]string{"spec.updateStrategy.maxSurge", "can not use maxSurge with strategy type InPlaceOnly"}},
		{"A17 both below 1", alpha("  replicas: 3\n" + selTpl + "  updateStrategy: {maxUnavailable: 0, maxSurge: 0}\n"), false,
			[]string{"spec.updateStrategy.maxUnavailable", "maxUnavailable and maxSurge should not both be less than 1"}},
		{"A18 progressDeadlineSeconds <= minReadySeconds", alpha("  minReadySeconds: 30\n  progressDeadlineSeconds: 10\n" + selTpl), false,
			[]string{"CloneSet default/sample", "spec.progressDeadlineSeconds: Invalid value: 10: must be greater than minReadySeconds"}},
		{"A18 negative progressDeadlineSeconds", alpha("  progressDeadlineSeconds: -1\n" + selTpl), false,
			[]string{"spec.progressDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0"}},

		// B9-B20 (v1beta1).
		{"B9 duplicated podsToDelete", beta("  scaleStrategy: {podsToDelete: [a, b, a]}\n" + selTpl), false,
			[]string{"CloneSet default/sample", "spec.scaleStrategy.podsToDelete", "duplicated items [a]"}},
		{"B10 v1alpha1 type in v1beta1", beta(selTpl + "  updateStrategy: {type: InPlaceIfPossible}\n"), false,
			[]string{`spec.updateStrategy.type: Invalid value: "InPlaceIfPossible": must be 'RollingUpdate' or 'OnDelete'`}},
		{"B11 unknown podUpdatePolicy", beta(selTpl + "  updateStrategy:\n    rollingUpdate: {podUpdatePolicy: Rebuild}\n"), false,
			[]string{"spec.updateStrategy.rollingUpdate.podUpdatePolicy", "must be 'ReCreate', 'InPlaceIfPossible' or 'InPlaceOnly'"}},
		{"B12 negative partition", beta(selTpl + "  updateStrategy:\n    rollingUpdate: {partition: -1}\n"), false,
			[]string{"spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than or equal to 0"}},
		{"B12 OnDelete with a hand-written rollingUpdate", beta(selTpl + "  updateStrategy:\n    type: OnDelete\n    rollingUpdate: {maxUnavailable: 1}\n"), false,
			[]string{"spec.updateStrategy.rollingUpdate.partition", "nil value for IntOrString"}},
		{"B13 priority weight 101", beta(selTpl + "  updateStrategy:\n    rollingUpdate:\n      priorityStrategy:\n        weightPriority: [{weight: 101, matchSelector: {matchLabels: {a: b}}}]\n"), false,
			[]string{"spec.updateStrategy.rollingUpdate.priorityStrategy.weightPriority[0].weight", "range 1-100"}},
		{"B14 empty scatter key", beta(selTpl + "  updateStrategy:\n    rollingUpdate:\n      scatterStrategy: [{key: \"\", value: v}]\n"), false,
			[]string{"spec.updateStrategy.rollingUpdate.scatterStrategy[0].key", "key should not be empty"}},
		{"B15 maxUnavailable 20x%", beta(selTpl + "  updateStrategy:\n    rollingUpdate: {maxUnavailable: 20x%}\n"), false,
			[]string{"CloneSet default/sample", `spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "20x%": failed GetScaledValueFromIntOrPercent for maxUnavailable: invalid value "20x%"`}},
		{"B15 maxUnavailable without %", beta(selTpl + "  updateStrategy:\n    rollingUpdate: {maxUnavailable: \"5\"}\n"), false,
			[]string{"spec.updateStrategy.rollingUpdate.maxUnavailable", "string is not a percentage"}},
		{"B16 maxSurge with InPlaceOnly", beta(selTpl + "  updateStrategy:\n    rollingUpdate: {podUpdatePolicy: InPlaceOnly, maxSurge: 1}\n"), false,
			[]string{"spec.updateStrategy.rollingUpdate.maxSurge", "can not use maxSurge with podUpdatePolicy InPlaceOnly"}},
		{"B16 maxSurge 10% with InPlaceOnly (LSV 7.12)", beta("  replicas: 4\n" + selTpl + "  updateStrategy:\n    rollingUpdate: {podUpdatePolicy: InPlaceOnly, maxSurge: 10%}\n"), false,
			[]string{"spec.updateStrategy.rollingUpdate.maxSurge", "can not use maxSurge with podUpdatePolicy InPlaceOnly"}},
		{"B17 maxUnavailable 0 with maxSurge 1 (quirk)", beta("  replicas: 4\n" + selTpl + "  updateStrategy:\n    rollingUpdate: {maxUnavailable: 0, maxSurge: 1}\n"), false,
			[]string{"CloneSet default/sample", "spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 0: maxUnavailable and maxSurge should not both be less than 1"}},
		{"B18 parallelism percentage", beta(selTpl + "  updateStrategy:\n    rollingUpdate:\n      inPlaceUpdateStrategy: {imagePreDownloadParallelism: 50%}\n"), false,
			[]string{"spec.updateStrategy.rollingUpdate.inPlaceUpdateStrategy.imagePreDownloadParallelism", "does not support percentage value"}},
		{"B18 parallelism not an integer", beta(selTpl + "  updateStrategy:\n    rollingUpdate:\n      inPlaceUpdateStrategy: {imagePreDownloadParallelism: many}\n"), false,
			[]string{"imagePreDownloadParallelism", "imagePreDownloadParallelism must be a valid integer"}},
		{"B18 negative parallelism", beta(selTpl + "  updateStrategy:\n    rollingUpdate:\n      inPlaceUpdateStrategy: {imagePreDownloadParallelism: -1}\n"), false,
			[]string{"imagePreDownloadParallelism", "must be non-negative"}},
		{"B19 negative timeout", beta(selTpl + "  updateStrategy:\n    rollingUpdate:\n      inPlaceUpdateStrategy: {imagePreDownloadTimeoutSeconds: -1}\n"), false,
			[]string{"spec.updateStrategy.rollingUpdate.inPlaceUpdateStrategy.imagePreDownloadTimeoutSeconds: Invalid value: -1"}},
		{"B20 negative min updated ready pods", beta(selTpl + "  updateStrategy:\n    rollingUpdate:\n      inPlaceUpdateStrategy: {imagePreDownloadMinUpdatedReadyPods: -2}\n"), false,
			[]string{"spec.updateStrategy.rollingUpdate.inPlaceUpdateStrategy.imagePreDownloadMinUpdatedReadyPods: Invalid value: -2"}},
	}
	if len(cases) < 40 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Options{SkipBudgetRule: c.lenient}.LoadBytes([]byte(c.input), "test.yaml")
			if err == nil {
				t.Fatalf("loaded without error (%d pods); want an error containing %q\ninput:\n%s", len(s.Pods), c.want, c.input)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not contain %q:\n%v", w, err)
				}
			}
		})
	}
}

// aliasBomb returns a ControllerRevision whose template is a YAML "billion laughs": nine levels
// of anchors, each a list of ten aliases to the one below.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("---\napiVersion: apps/v1\nkind: ControllerRevision\nmetadata: {name: bomb}\ndata:\n  spec:\n    template:\n")
	b.WriteString("      l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 9; i++ {
		b.WriteString("      l" + string(rune('0'+i)) + ": &l" + string(rune('0'+i)) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*l" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	return b.String()
}

// An input without a CloneSet names every file read (several files form one
// stream), never asks for "exactly one" CloneSet (a namespace dump holds
// many), and reads JSON streams the same way.
func TestNoCloneSetNamesTheInputs(t *testing.T) {
	dir := t.TempDir()
	pods := filepath.Join(dir, "pods.yaml")
	empty := filepath.Join(dir, "empty.yaml")
	if err := os.WriteFile(pods, []byte(podDoc("p1", "sample")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, load := range []func([]string) error{
		func(p []string) error { _, err := LoadFiles(p, nil); return err },
		func(p []string) error { _, err := LoadAllFiles(p, nil); return err },
	} {
		err := load([]string{pods, empty})
		if err == nil || !strings.Contains(err.Error(), pods+", "+empty+": no CloneSet: the input holds Pod (1)") || strings.Contains(err.Error(), "exactly one") {
			t.Errorf("two files: %v", err)
		}
		err = load([]string{empty})
		if err == nil || !strings.Contains(err.Error(), empty+": no CloneSet: the input is empty") {
			t.Errorf("an empty file: %v", err)
		}
	}
	_, err := LoadBytes([]byte(`{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}} {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}`), "dump.json")
	if err == nil || !strings.Contains(err.Error(), "dump.json: no CloneSet: the input holds Pod (1), Node (1)") {
		t.Errorf("a JSON stream: %v", err)
	}
}
