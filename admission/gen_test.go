package admission

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"pgregory.net/rapid"
)

// The generator of CloneSets as users write them, for the properties:
// either version, every member of the spec and metadata the webhooks read
// (present or not, in and out of range, the other version's members
// misplaced, unknown members), the pod templates and claim templates of
// testdata/conformance-admission.

// recordDir holds the record of kruise's webhooks (a byte copy of
// ../shared/conformance-admission; its README says how to compare).
const recordDir = "../testdata/conformance-admission"

// recordTemplates are the templates and claim templates of the record's
// worlds, read once.
var recordTemplates struct {
	templates []any
	claims    [][]any
}

func loadRecordTemplates(t testing.TB) {
	if recordTemplates.templates != nil {
		return
	}
	files, _ := filepath.Glob(filepath.Join(recordDir, "worlds", "*.json"))
	sort.Strings(files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var w struct {
			Spec struct {
				Template             any   `json:"template"`
				VolumeClaimTemplates []any `json:"volumeClaimTemplates"`
			} `json:"spec"`
		}
		if err := json.Unmarshal(data, &w); err != nil {
			t.Fatal(err)
		}
		recordTemplates.templates = append(recordTemplates.templates, w.Spec.Template)
		recordTemplates.claims = append(recordTemplates.claims, w.Spec.VolumeClaimTemplates)
	}
	if len(recordTemplates.templates) == 0 {
		t.Fatal("no worlds in " + recordDir)
	}
}

// gen draws one CloneSet tree.
type gen struct{ t *rapid.T }

func (g gen) maybe(label string) bool { return rapid.Bool().Draw(g.t, label) }

func (g gen) pick(label string, from ...any) any {
	return from[rapid.IntRange(0, len(from)-1).Draw(g.t, label)]
}

// intOrString draws an int-or-string as users write them.
func (g gen) intOrString(label string) any {
	return g.pick(label, 0, 1, 2, 3, -1, "0%", "10%", "20%", "50%", "100%", "12.5%", "3", "x")
}

func (g gen) set(m map[string]any, key string, label string, from ...any) {
	if g.maybe(label + "/set") {
		m[key] = g.pick(label, from...)
	}
}

// cloneSet draws a CloneSet tree of a version (drawn when v is "").
func (g gen) cloneSet(v Version) map[string]any {
	if v == "" {
		v = g.pick("version", V1alpha1, V1beta1).(Version)
	}
	md := map[string]any{"name": g.pick("name", "web", "api", "a.b")}
	g.set(md, "namespace", "namespace", "default", "prod")
	labels := map[string]any{"app": "web"}
	g.set(labels, "apps.kruise.io/cloneset-scaling-exclude-preparing-delete", "excludeLabel", "true", "false", "True")
	g.set(labels, "policy.kruise.io/delete-protection", "protection", "Always", "Cascading", "Never")
	md["labels"] = labels
	annotations := map[string]any{}
	g.set(annotations, "apps.kruise.io/image-predownload-parallelism", "parAnn", "5", "05", "-2", "50%", "x", "")
	g.set(annotations, "apps.kruise.io/image-predownload-timeout-seconds", "timeoutAnn", "600", "-1", "9999999999", "abc")
	g.set(annotations, "apps.kruise.io/image-predownload-min-updated-ready-pods", "minAnn", "1", "0", "x")
	if len(annotations) > 0 {
		md["annotations"] = annotations
	}
	g.set(md, "uid", "uid", "u-1")

	spec := map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"app": "web"}}}
	i := rapid.IntRange(0, len(recordTemplates.templates)-1).Draw(g.t, "template")
	spec["template"] = recordTemplates.templates[i]
	if c := recordTemplates.claims[i]; c != nil && g.maybe("claims") {
		spec["volumeClaimTemplates"] = c
	}
	g.set(spec, "replicas", "replicas", 0, 1, 3, 10, -1)
	g.set(spec, "revisionHistoryLimit", "history", 0, 5)
	g.set(spec, "minReadySeconds", "minReady", 0, 10)
	g.set(spec, "progressDeadlineSeconds", "deadline", 5, 600, 2147483647)
	if g.maybe("lifecycle") {
		spec["lifecycle"] = map[string]any{"preDelete": map[string]any{"labelsHandler": map[string]any{"hook": "true"}, "markPodNotReady": g.maybe("markNotReady")}}
	}

	scale := map[string]any{}
	g.set(scale, "podsToDelete", "podsToDelete", []any{"web-a"}, []any{"web-a", "web-a"})
	g.set(scale, "maxUnavailable", "scaleMaxUnavailable", 1, "10%")
	g.set(scale, "disablePVCReuse", "disable", true, false)
	g.set(scale, "enablePVCReuse", "enable", true, false)
	g.set(scale, "excludePreparingDelete", "exclude", true, false)
	spec["scaleStrategy"] = scale

	body := map[string]any{}
	g.set(body, "partition", "partition", g.intOrString("partitionValue"))
	g.set(body, "maxUnavailable", "maxUnavailable", g.intOrString("maxUnavailableValue"))
	g.set(body, "maxSurge", "maxSurge", g.intOrString("maxSurgeValue"))
	g.set(body, "paused", "paused", true, false)
	g.set(body, "scatterStrategy", "scatter", []any{map[string]any{"key": "zone", "value": "a"}}, []any{})
	g.set(body, "priorityStrategy", "priority", map[string]any{"orderPriority": []any{map[string]any{"orderedKey": "rank"}}},
		map[string]any{"weightPriority": []any{map[string]any{"weight": 50, "matchSelector": map[string]any{"matchLabels": map[string]any{"tier": "a"}}}}})
	inPlace := map[string]any{}
	g.set(inPlace, "gracePeriodSeconds", "grace", 0, 10)
	g.set(inPlace, "imagePreDownloadParallelism", "par", 3, "4", "50%", -1)
	g.set(inPlace, "imagePreDownloadTimeoutSeconds", "timeout", 60, -1)
	g.set(inPlace, "imagePreDownloadMinUpdatedReadyPods", "minReadyPods", 2)
	if g.maybe("inPlace") {
		body["inPlaceUpdateStrategy"] = inPlace
	}
	us := map[string]any{}
	if v == V1alpha1 {
		us = body
		g.set(us, "type", "alphaType", "", "ReCreate", "InPlaceIfPossible", "InPlaceOnly", "OnDelete", "Rolling")
		g.set(us, "rollingUpdate", "misplaced", map[string]any{"partition": 1}) // a v1beta1 member: dropped
	} else {
		g.set(us, "type", "betaType", "", "RollingUpdate", "OnDelete", "Other")
		g.set(body, "podUpdatePolicy", "policy", "", "ReCreate", "InPlaceIfPossible", "InPlaceOnly", "Other")
		if g.maybe("rollingUpdate") {
			us["rollingUpdate"] = body
		}
		g.set(us, "partition", "misplaced", 1) // a v1alpha1 member: dropped
	}
	spec["updateStrategy"] = us
	tree := map[string]any{"apiVersion": v.APIVersion(), "kind": "CloneSet", "metadata": md, "spec": spec}
	g.set(tree, "x-unknown", "unknown", 1, map[string]any{"a": "b"})
	if g.maybe("status") {
		tree["status"] = map[string]any{"replicas": 3, "observedGeneration": 2,
			"conditions": []any{map[string]any{"type": "Progressing", "status": "True", "lastUpdateTime": "2024-05-06T07:08:09Z"}}}
	}
	return tree
}

// drawObject draws a CloneSet and reads it (every drawn tree is readable).
func drawObject(t *rapid.T, v Version) *Object {
	tree := gen{t}.cloneSet(v)
	o, err := FromTree(tree)
	if err != nil {
		t.Fatalf("the generator drew an unreadable CloneSet: %v", err)
	}
	return o
}
