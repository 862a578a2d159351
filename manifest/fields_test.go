package manifest

import (
	"strings"
	"testing"

	"github.com/clonecore/cloneset/podtemplate"
)

// warningsOf loads input with Options.Warn and returns the warnings, as
// "where: object: path: message" lines.
func warningsOf(t *testing.T, input string) []string {
	t.Helper()
	var got []string
	_, err := Options{Warn: func(w Warning) { got = append(got, w.String()) }}.LoadAllBytes([]byte(input), "test.yaml")
	if err != nil {
		t.Fatalf("load failed: %v\ninput:\n%s", err, input)
	}
	return got
}

// TestUnknownFields names every member an object's API type, in its API
// version, does not have: where it is (file:line), the object, the field
// path, and what was probably meant; a member the type has, anywhere in the
// object, is no warning.
func TestUnknownFields(t *testing.T) {
	cases := []struct {
		name  string
		input string
		want  []string // the warnings, in order
	}{
		{"a v1beta1 CloneSet as the API writes it", beta(selTpl + "  replicas: 3\n  minReadySeconds: 5\n  revisionHistoryLimit: 3\n  progressDeadlineSeconds: 60\n" +
			"  scaleStrategy: {podsToDelete: [a], maxUnavailable: 1, enablePVCReuse: true, excludePreparingDelete: true}\n" +
			"  updateStrategy:\n    type: RollingUpdate\n    rollingUpdate: {partition: 1, maxUnavailable: 2, maxSurge: 0, podUpdatePolicy: InPlaceIfPossible, paused: false,\n" +
			"      priorityStrategy: {weightPriority: [{weight: 1, matchSelector: {matchLabels: {a: b}}}]}, scatterStrategy: [{key: k, value: v}],\n" +
			"      inPlaceUpdateStrategy: {gracePeriodSeconds: 10}}\n" +
			"  lifecycle: {preDelete: {labelsHandler: {a: b}, finalizersHandler: [f], markPodNotReady: true}}\n" +
			"  volumeClaimTemplates:\n  - metadata: {name: data}\n    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n" +
			"status: {observedGeneration: 1, replicas: 0, readyReplicas: 0, availableReplicas: 0, updatedReplicas: 0, updatedReadyReplicas: 0, conditions: [{type: Progressing, status: \"True\"}]}\n"), nil},
		{"a v1alpha1 CloneSet as the API writes it", alpha(selTpl +
			"  scaleStrategy: {disablePVCReuse: true}\n  updateStrategy: {type: InPlaceIfPossible, partition: 1, maxUnavailable: 20%, maxSurge: 1, paused: true}\n"), nil},
		{"v1alpha1's maxUnavailable in a v1beta1 CloneSet", beta(selTpl + "  updateStrategy:\n    maxUnavailable: \"20x%\"\n"), []string{
			"test.yaml:18: CloneSet default/sample: spec.updateStrategy.maxUnavailable: unknown field, ignored: did you mean spec.updateStrategy.rollingUpdate.maxUnavailable? (spec.updateStrategy.maxUnavailable is a field of apps.kruise.io/v1alpha1 CloneSets)",
		}},
		{"v1beta1's rollingUpdate and enablePVCReuse in a v1alpha1 CloneSet", alpha(selTpl + "  scaleStrategy: {enablePVCReuse: true}\n  updateStrategy:\n    rollingUpdate: {partition: 2}\n"), []string{
			"test.yaml:17: CloneSet default/sample: spec.scaleStrategy.enablePVCReuse: unknown field, ignored: (spec.scaleStrategy.enablePVCReuse is a field of apps.kruise.io/v1beta1 CloneSets)",
			"test.yaml:19: CloneSet default/sample: spec.updateStrategy.rollingUpdate: unknown field, ignored: (spec.updateStrategy.rollingUpdate is a field of apps.kruise.io/v1beta1 CloneSets)",
		}},
		{"a case typo and an edit typo in the template", beta(strings.Replace(selTpl, "image: nginx:v1", "image: nginx:v1\n        imagePullPolicyy: Always\n        ReadinessProbe: {}", 1)), []string{
			"test.yaml:17: CloneSet default/sample: spec.template.spec.containers[0].imagePullPolicyy: unknown field, ignored: did you mean spec.template.spec.containers[0].imagePullPolicy?",
			"test.yaml:18: CloneSet default/sample: spec.template.spec.containers[0].ReadinessProbe: unknown field, ignored: did you mean spec.template.spec.containers[0].readinessProbe? (field names are case-sensitive)",
		}},
		{"top level and metadata", beta(selTpl) + "specs: {}\n" + strings.Replace(podDoc("p1", "sample"), "  namespace: default\n", "  namespace: default\n  label: {a: b}\n", 1), []string{
			"test.yaml:17: CloneSet default/sample: specs: unknown field, ignored: did you mean spec?",
			"test.yaml:24: Pod default/p1: metadata.label: unknown field, ignored: did you mean metadata.labels?",
		}},
		{"a pod's status, a claim, a revision and a node", beta(selTpl) +
			podDoc("p1", "sample") + "status: {phase: Running, podIP: 10.0.0.1, conditions: [{type: Ready, status: \"True\", probeTime: null}], containerStatuses: [{name: nginx, ready: true, restartCount: 0, image: x, imageID: y, started: true}]}\n" +
			"---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c1}\nspec: {resources: {requests: {storage: 1Gi}}, storageClass: fast}\nstatus: {phase: Bound}\n" +
			"---\napiVersion: apps/v1\nkind: ControllerRevision\nmetadata: {name: sample-1}\nrevision: 1\ndata: {spec: {template: {$patch: replace, anything: goes}}}\nrevisions: 2\n" +
			"---\napiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {zone: a}}\nspec: {unschedulable: false, taint: []}\nstatus: {capacity: {cpu: \"4\"}}\n", []string{
			"test.yaml:31: Pod default/p1: status.conditions[0].probeTime: unknown field, ignored: did you mean status.conditions[0].lastProbeTime?",
			"test.yaml:36: PersistentVolumeClaim c1: spec.storageClass: unknown field, ignored: did you mean spec.storageClassName?",
			"test.yaml:44: ControllerRevision sample-1: revisions: unknown field, ignored: did you mean revision?",
			"test.yaml:49: Node n1: spec.taint: unknown field, ignored: did you mean spec.taints?",
		}},
		{"list items, typed lists and JSON", beta(selTpl) +
			"---\napiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: n1, lables: {}}}\n" +
			"---\napiVersion: v1\nkind: PodList\nitems:\n- metadata: {name: p2}\n  spec: {containers: [{name: c, image: i}], nodename: n1}\n" +
			"---\n{\"apiVersion\": \"v1\", \"kind\": \"Node\",\n \"metadata\": {\"name\": \"n2\"},\n \"extra\": 1}\n", []string{
			"test.yaml:21: Node n1: metadata.lables: unknown field, ignored: did you mean metadata.labels?",
			"test.yaml:27: Pod p2: spec.nodename: unknown field, ignored: did you mean spec.nodeName? (field names are case-sensitive)",
			"test.yaml:31: Node n2: extra: unknown field, ignored",
		}},
		{"merge keys and anchors", beta(selTpl) + "status: &s {replicas: 0, <<: {oops: 1}}\n", []string{
			"test.yaml:17: CloneSet default/sample: status.oops: unknown field, ignored",
		}},
		{"odd member names are quoted", beta(selTpl) + "\"\": 1\n\"a.b\": 2\n", []string{
			`test.yaml:17: CloneSet default/sample: [""]: unknown field, ignored`,
			`test.yaml:18: CloneSet default/sample: ["a.b"]: unknown field, ignored`,
		}},
		{"kinds the loader does not read are not checked", beta(selTpl) + "---\napiVersion: v1\nkind: Service\nmetadata: {name: s}\nanything: 1\n" +
			"---\napiVersion: apps.kruise.io/v1\nkind: CloneSet\nmetadata: {name: future}\nspec: {newField: 1}\n", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := warningsOf(t, c.input)
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("warnings:\n%s\nwant:\n%s\ninput:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"), c.input)
			}
		})
	}
}

// StrictFields refuses what Warn reports, naming each field; without Warn
// or StrictFields an unknown field is ignored, as before.
func TestStrictFields(t *testing.T) {
	input := beta(selTpl+"  updateStrategy:\n    maxUnavailable: 1\n") + podDoc("p1", "sample", "x: y") + "bogus: true\n"
	_, err := Options{StrictFields: true}.LoadBytes([]byte(input), "test.yaml")
	if err == nil {
		t.Fatal("StrictFields accepted unknown fields")
	}
	for _, want := range []string{
		"test.yaml:18: CloneSet default/sample: spec.updateStrategy.maxUnavailable: unknown field: did you mean spec.updateStrategy.rollingUpdate.maxUnavailable?",
		"test.yaml:34: Pod default/p1: bogus: unknown field\n",
	} {
		if !strings.Contains(err.Error()+"\n", want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if _, err := LoadBytes([]byte(input), "test.yaml"); err != nil {
		t.Errorf("the default load refuses unknown fields: %v", err)
	}
	if _, err := (Options{StrictFields: true}).LoadBytes([]byte(beta(selTpl)+podDoc("p1", "sample")), "test.yaml"); err != nil {
		t.Errorf("StrictFields refused an input without unknown fields: %v", err)
	}
}

// Many unknown fields are reported up to a bound, then counted; an input
// whose aliases expand beyond the check's budget says it was not checked
// whole.
func TestUnknownFieldsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(beta(selTpl))
	for i := range maxUnknownFields + 5 {
		b.WriteString("x" + strings.Repeat("y", i%7) + string(rune('a'+i%26)) + string(rune('a'+i/26)) + ": 1\n")
	}
	got := warningsOf(t, b.String())
	if len(got) != maxUnknownFields+1 || !strings.Contains(got[len(got)-1], "5 more unknown fields not listed") {
		t.Errorf("%d warnings, the last %q", len(got), got[len(got)-1])
	}
	bomb := beta(selTpl) + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
	bomb += "  - &c0 {name: c, image: i}\n"
	for i := 1; i < 6; i++ {
		bomb += "  - &c" + string(rune('0'+i)) + " {name: c, image: i, env: [" + strings.Repeat("*c"+string(rune('0'+i-1))+", ", 9) + "*c" + string(rune('0'+i-1)) + "]}\n"
	}
	var warnings []Warning
	_, _ = Options{Warn: func(w Warning) { warnings = append(warnings, w) }}.LoadBytes([]byte(bomb), "test.yaml")
	if len(warnings) > maxUnknownFields+2 {
		t.Errorf("%d warnings for an alias bomb", len(warnings))
	}
}

// Every reference of the field table names a type of podtemplate's table,
// and every root is a kind the loader reads.
func TestFieldTableReferences(t *testing.T) {
	for i, s := range fieldShapes {
		if s.kind == shapeTemplate && templateShapes[i] == (podtemplate.Shape{}) {
			t.Errorf("fieldShapes[%d] refers to %q, which podtemplate's table does not hold", i, s.name)
		}
	}
	for _, key := range []string{"v1 " + kindPod, "v1 " + kindPVC, "v1 " + kindNode, "apps/v1 " + kindRevision,
		"apps.kruise.io/v1alpha1 " + kindCloneSet, "apps.kruise.io/v1beta1 " + kindCloneSet} {
		if _, ok := fieldRoots[key]; !ok {
			t.Errorf("no fields for %s", key)
		}
	}
	if len(fieldRoots) != 6 {
		t.Errorf("%d roots, want 6: %v", len(fieldRoots), fieldRoots)
	}
}

// A JSON stream (read by the fast JSON reader) is checked alike, with the
// line of each member.
func TestUnknownFieldsInJSONStream(t *testing.T) {
	input := `{"apiVersion": "apps.kruise.io/v1beta1", "kind": "CloneSet",
 "metadata": {"name": "web", "namespace": "prod"},
 "spec": {"selector": {"matchLabels": {"app": "web"}},
          "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
          "updateStrategy": {"partition": 1}}}
{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "prod", "labels": {"app": "web"}},
 "spec": {"containers": [{"name": "c", "image": "i"}]},
 "stauts": {}}
`
	want := []string{
		"test.yaml:5: CloneSet prod/web: spec.updateStrategy.partition: unknown field, ignored: did you mean spec.updateStrategy.rollingUpdate.partition? (spec.updateStrategy.partition is a field of apps.kruise.io/v1alpha1 CloneSets)",
		"test.yaml:8: Pod prod/p: stauts: unknown field, ignored: did you mean status?",
	}
	if got := warningsOf(t, input); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
