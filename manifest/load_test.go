package manifest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
	"github.com/google/go-cmp/cmp"
)

// TestBelonging checks which pods and PVCs the loader keeps (scenario-format
// section 1) and why it sets the others aside.
func TestBelonging(t *testing.T) {
	in := beta(selTpl) +
		podDoc("owned", "sample") +
		strings.Replace(podDoc("owned-released", "sample"), "app: sample", "app: other", 1) +
		podDoc("orphan", "") +
		strings.Replace(podDoc("orphan-other", ""), "app: sample", "app: other", 1) +
		podDoc("foreign", "other") +
		strings.Replace(podDoc("orphan-dying", ""), "  uid: uid-orphan-dying\n", "  uid: uid-orphan-dying\n  deletionTimestamp: \"2026-01-01T00:00:00Z\"\n", 1) +
		strings.Replace(podDoc("elsewhere", "sample"), "namespace: default", "namespace: other", 1) +
		strings.Replace(podDoc("weak-ref", ""), "spec:\n", "  ownerReferences: [{kind: CloneSet, name: sample, uid: uid-sample}]\nspec:\n", 1) +
		pvcDoc("c-cs", "kind: CloneSet, name: sample, uid: uid-sample") +
		pvcDoc("c-pod", "kind: Pod, name: owned, uid: uid-owned") +
		pvcDoc("c-pod-by-name", "kind: Pod, name: orphan") +
		pvcDoc("c-foreign-pod", "kind: Pod, name: foreign, uid: uid-foreign") +
		pvcDoc("c-orphan", "") +
		"---\napiVersion: apps/v1\nkind: ControllerRevision\nmetadata: {name: sample-1, namespace: default}\nrevision: 1\n" +
		"---\napiVersion: apps/v1\nkind: ControllerRevision\nmetadata: {name: sample-1, namespace: other}\nrevision: 1\n" +
		"---\napiVersion: v1\nkind: Node\nmetadata: {name: node-1, labels: {zone: a}}\n"
	s := mustLoad(t, in)

	var pods, pvcs []string
	for _, p := range s.Pods {
		pods = append(pods, p.Name)
	}
	for _, c := range s.PVCs {
		pvcs = append(pvcs, c.Name)
	}
	if diff := cmp.Diff([]string{"owned", "owned-released", "orphan", "weak-ref"}, pods); diff != "" {
		t.Errorf("kept pods (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"c-cs", "c-pod", "c-pod-by-name"}, pvcs); diff != "" {
		t.Errorf("kept PVCs (-want +got):\n%s", diff)
	}
	wantAside := map[string]string{
		"Pod/orphan-other":                    "not matched by the CloneSet's selector",
		"Pod/foreign":                         "controlled by ReplicaSet other",
		"Pod/orphan-dying":                    "does not adopt",
		"Pod/elsewhere":                       `in namespace "other"`,
		"PersistentVolumeClaim/c-foreign-pod": "controlled by Pod foreign",
		"PersistentVolumeClaim/c-orphan":      "no controller owner reference",
		"ControllerRevision/sample-1":         `in namespace "other"`,
	}
	if len(s.SetAside) != len(wantAside) {
		t.Errorf("set aside %d objects, want %d: %+v", len(s.SetAside), len(wantAside), s.SetAside)
	}
	for _, a := range s.SetAside {
		want, ok := wantAside[a.Kind+"/"+a.Name]
		if !ok || !strings.Contains(a.Reason, want) {
			t.Errorf("set aside %s/%s: %q, want reason containing %q", a.Kind, a.Name, a.Reason, want)
		}
	}
	if len(s.Revisions) != 1 || len(s.Nodes) != 1 || s.Nodes[0].Labels["zone"] != "a" {
		t.Errorf("revisions %d nodes %+v", len(s.Revisions), s.Nodes)
	}
}

func pvcDoc(name, owner string) string {
	d := "---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: " + name + "\n"
	if owner != "" {
		d += "  ownerReferences: [{apiVersion: v1, " + owner + ", controller: true}]\n"
	}
	return d + "spec: {resources: {requests: {storage: 1Gi}}}\n"
}

// TestOrphansOfADyingCloneSet: a CloneSet being deleted adopts nothing.
func TestOrphansOfADyingCloneSet(t *testing.T) {
	in := strings.Replace(beta(selTpl), "  uid: uid-sample\n", "  uid: uid-sample\n  deletionTimestamp: \"2026-01-01T00:00:00Z\"\n", 1) +
		podDoc("orphan", "") + podDoc("owned", "sample")
	s := mustLoad(t, in)
	if len(s.Pods) != 1 || s.Pods[0].Name != "owned" || len(s.SetAside) != 1 {
		t.Fatalf("pods %v set aside %v", s.Pods, s.SetAside)
	}
}

func TestDefaultClockIsNewestTimestamp(t *testing.T) {
	in := beta(selTpl) + "status:\n  conditions:\n  - {type: Progressing, status: \"True\", lastUpdateTime: \"2026-01-01T00:07:00Z\", lastTransitionTime: \"2026-01-01T00:01:00Z\"}\n" +
		strings.Replace(podDoc("p1", "sample"), "spec:\n", "  creationTimestamp: \"2026-01-01T00:00:00Z\"\nspec:\n", 1) +
		"status:\n  conditions:\n  - {type: Ready, status: \"True\", lastTransitionTime: \"2026-01-01T00:05:00+00:00\"}\n"
	s := mustLoad(t, in)
	if want := time.Date(2026, 1, 1, 0, 7, 0, 0, time.UTC); !s.Now.Equal(want) {
		t.Errorf("now = %v, want %v (the CloneSet condition's lastUpdateTime)", s.Now, want)
	}
	// A set-aside object's timestamp counts too: it is in the input.
	s = mustLoad(t, in+strings.Replace(podDoc("foreign", "other"), "spec:\n", "  creationTimestamp: \"2026-01-01T01:00:00+01:00\"\n  deletionTimestamp: \"2026-01-01T00:09:30.5Z\"\nspec:\n", 1))
	if want := time.Date(2026, 1, 1, 0, 9, 30, 5e8, time.UTC); !s.Now.Equal(want) {
		t.Errorf("now = %v, want %v", s.Now, want)
	}
	// An explicit clock wins and is not an object timestamp.
	s = mustLoad(t, in+"---\napiVersion: clonesetcore/v1alpha1\nkind: Scenario\nnow: \"2025-06-01T12:00:00Z\"\n")
	if want := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC); !s.Now.Equal(want) {
		t.Errorf("now = %v, want %v", s.Now, want)
	}
	if s.NowFromObjects {
		t.Error("a Scenario document's now is marked as the newest object timestamp")
	}
	// No timestamp at all: the zero time.
	if s := mustLoad(t, beta(selTpl)); !s.Now.IsZero() || s.NowFromObjects {
		t.Errorf("now = %v (from objects %v), want zero", s.Now, s.NowFromObjects)
	}
	s = mustLoad(t, in)
	if !s.NowFromObjects {
		t.Error("the newest object timestamp is not marked as such")
	}
	// Options.Now wins over the document and the objects, in Load and LoadAll.
	given := time.Date(2027, 3, 1, 8, 0, 0, 123, time.UTC)
	withDoc := in + "---\napiVersion: clonesetcore/v1alpha1\nkind: Scenario\nnow: \"2025-06-01T12:00:00Z\"\n"
	for _, input := range []string{in, withDoc} {
		s, err := Options{Now: given}.LoadBytes([]byte(input), "test.yaml")
		if err != nil || !s.Now.Equal(given) || s.NowFromObjects {
			t.Errorf("Options.Now: now = %v (from objects %v), err %v; want %v", s.Now, s.NowFromObjects, err, given)
		}
		all, err := Options{Now: given}.LoadAllBytes([]byte(input), "test.yaml")
		if err != nil || !all[0].Now.Equal(given) {
			t.Errorf("Options.Now in LoadAll: %v, err %v", all, err)
		}
	}
}

func TestScenarioDocument(t *testing.T) {
	s := mustLoad(t, beta(selTpl))
	if s.Gates != model.DefaultFeatureGates() || s.Controller.ScalingExcludePreparingDelete || s.Description != "" {
		t.Errorf("defaults: gates %+v controller %+v", s.Gates, s.Controller)
	}
	s = mustLoad(t, beta(selTpl)+`---
apiVersion: clonesetcore/v1alpha1
kind: Scenario
description: "maxSurge=1 rolling update, second step"
now: "2026-01-01T00:00:30Z"
featureGates:
  CloneSetPartitionRollback: true
  PreparingUpdateAsUpdate: true
  RecreatePodWhenChangeVCTInCloneSetGate: true
  InPlaceWorkloadVerticalScaling: true
  CloneSetShortHash: true
  InPlaceUpdateEnvFromMetadata: false
controller:
  scalingExcludePreparingDelete: true
`)
	want := model.FeatureGates{CloneSetPartitionRollback: true, PreparingUpdateAsUpdate: true,
		RecreatePodWhenChangeVCTInCloneSetGate: true, InPlaceWorkloadVerticalScaling: true, CloneSetShortHash: true}
	if s.Gates != want {
		t.Errorf("gates = %+v, want %+v", s.Gates, want)
	}
	if !s.Controller.ScalingExcludePreparingDelete || s.Description != "maxSurge=1 rolling update, second step" ||
		!s.Now.Equal(time.Date(2026, 1, 1, 0, 0, 30, 0, time.UTC)) {
		t.Errorf("scenario = %+v", s)
	}
}

// TestV1alpha1Conversion is LSV 7.13 read through the loader.
func TestV1alpha1Conversion(t *testing.T) {
	in := `apiVersion: apps.kruise.io/v1alpha1
kind: CloneSet
metadata:
  name: sample
  labels:
    app: sample
    apps.kruise.io/cloneset-scaling-exclude-preparing-delete: "true"
  annotations:
    apps.kruise.io/image-predownload-parallelism: "3"
    apps.kruise.io/image-predownload-timeout-seconds: "ten"
    apps.kruise.io/image-predownload-min-updated-ready-pods: "2"
spec:
  replicas: 4
` + selTpl + `  scaleStrategy: {}
  updateStrategy:
    type: InPlaceIfPossible
    partition: "25%"
    maxUnavailable: 1
    inPlaceUpdateStrategy:
      gracePeriodSeconds: 15
      imagePreDownloadTimeoutSeconds: 60
`
	cs := mustLoad(t, in).CloneSet
	three := model.FromInt(3)
	wantStrategy := model.UpdateStrategy{
		Type: model.UpdateStrategyRollingUpdate,
		RollingUpdate: &model.RollingUpdateStrategy{
			PodUpdatePolicy: model.PolicyInPlaceIfPossible,
			Partition:       ptrIOP(model.FromString("25%")),
			MaxUnavailable:  ptrIOP(model.FromInt(1)),
			MaxSurge:        ptrIOP(model.FromInt(0)),
			InPlaceUpdateStrategy: &model.InPlaceUpdateStrategy{
				GracePeriodSeconds:                  15,
				ImagePreDownloadParallelism:         &three,
				ImagePreDownloadMinUpdatedReadyPods: ptr32(2),
			},
		},
	}
	if diff := cmp.Diff(wantStrategy, cs.Spec.UpdateStrategy); diff != "" {
		t.Errorf("updateStrategy (-want +got):\n%s", diff)
	}
	if !cs.Spec.ScaleStrategy.EnablePVCReuse || !cs.Spec.ScaleStrategy.ExcludePreparingDelete {
		t.Errorf("scaleStrategy = %+v", cs.Spec.ScaleStrategy)
	}
	if cs.V1alpha1 == nil || cs.V1alpha1.UpdateStrategyType != "InPlaceIfPossible" ||
		*cs.V1alpha1.UpdateStrategy.InPlaceUpdateStrategy.ImagePreDownloadTimeoutSeconds != 60 {
		t.Errorf("v1alpha1 facts = %+v", cs.V1alpha1)
	}
	if len(cs.Annotations) != 3 || cs.Labels["app"] != "sample" {
		t.Errorf("metadata changed: %v %v", cs.Labels, cs.Annotations)
	}
}

func ptrIOP(v model.IntOrPercent) *model.IntOrPercent { return &v }

func TestLoadFiles(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "cloneset.yaml")
	b := filepath.Join(dir, "pods.json")
	if err := os.WriteFile(a, []byte(beta(selTpl)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte(`{"apiVersion": "v1", "kind": "List", "items": [
  {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p1", "labels": {"app": "sample"}}},
  {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p2", "labels": {"app": "sample"}}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	stdin := strings.NewReader("apiVersion: clonesetcore/v1alpha1\nkind: Scenario\ndescription: from stdin\n")
	s, err := LoadFiles([]string{a, b, "-", "-"}, stdin)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Pods) != 2 || s.Description != "from stdin" {
		t.Errorf("pods %d description %q", len(s.Pods), s.Description)
	}

	// One CloneSet across all files: a second file with another is an error
	// naming both.
	_, err = LoadFiles([]string{a, a}, nil)
	if err == nil || !strings.Contains(err.Error(), "2 CloneSets") || !strings.Contains(err.Error(), a+":1") {
		t.Errorf("two files with a CloneSet each: %v", err)
	}
	// Errors name the file they come from, with the line.
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("# comment\n"+strings.TrimPrefix(podDoc("p3", "sample"), "---\n")+"status: {phase: [Running]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = LoadFiles([]string{a, bad}, nil)
	if err == nil || !strings.Contains(err.Error(), bad+":15: Pod default/p3: status.phase: expected a string, got a list") {
		t.Errorf("error = %v", err)
	}
	if _, err := LoadFiles(nil, nil); err == nil {
		t.Error("no files: no error")
	}
	if _, err := LoadFiles([]string{filepath.Join(dir, "missing.yaml")}, nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestLoadReader(t *testing.T) {
	s, err := Load(strings.NewReader(beta(selTpl)), "r.yaml")
	if err != nil || s.CloneSet.Name != "sample" {
		t.Fatalf("%v %v", s, err)
	}
	if _, err := Load(errReader{}, "r.yaml"); err == nil || !strings.Contains(err.Error(), "r.yaml: boom") {
		t.Errorf("read error = %v", err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("boom") }

// TestTypedFields checks that every field the planner reads is decoded.
func TestTypedFields(t *testing.T) {
	in := beta(`  replicas: 3
  revisionHistoryLimit: 5
  minReadySeconds: 7
  progressDeadlineSeconds: 600
  selector:
    matchLabels: {app: sample}
    matchExpressions: [{key: tier, operator: In, values: [web, api]}]
  template:
    metadata:
      labels: {app: sample, tier: web}
      annotations: {note: x}
    spec:
      nodeName: ""
      restartPolicy: Always
      readinessGates: [{conditionType: InPlaceUpdateReady}]
      topologySpreadConstraints: [{topologyKey: zone, maxSkew: 1}]
      volumes: [{name: cfg, configMap: {name: cfg}}]
      initContainers:
      - {name: sidecar, image: proxy:1, restartPolicy: Always}
      containers:
      - name: nginx
        image: nginx:v1
        env:
        - {name: A, value: "1"}
        - {name: B}
        - {name: POD, valueFrom: {fieldRef: {fieldPath: "metadata.labels['x']"}}}
        resources: {requests: {cpu: 500m, memory: 1Gi}, limits: {cpu: 1}}
        resizePolicy: [{resourceName: cpu, restartPolicy: NotRequired}]
  volumeClaimTemplates:
  - metadata: {name: data, labels: {a: b}}
    spec: {resources: {requests: {storage: 20Gi}}}
  scaleStrategy:
    maxUnavailable: 10%
    enablePVCReuse: true
    excludePreparingDelete: true
  lifecycle:
    preDelete: {labelsHandler: {hold: "true"}, finalizersHandler: [f1], markPodNotReady: true}
  updateStrategy:
    type: RollingUpdate
    rollingUpdate:
      podUpdatePolicy: InPlaceOnly
      paused: true
status:
  observedGeneration: 2
  replicas: 3
  readyReplicas: 2
  availableReplicas: 1
  updatedReplicas: 1
  updatedReadyReplicas: 1
  updatedAvailableReplicas: 1
  expectedUpdatedReplicas: 3
  currentRevision: sample-1
  updateRevision: sample-2
  collisionCount: 1
  labelSelector: app=sample
`) + `---
apiVersion: v1
kind: Pod
metadata:
  name: p1
  uid: u1
  labels: {app: sample, tier: web}
  annotations: {a: b}
  finalizers: [f1]
  creationTimestamp: "2026-01-01T00:00:00Z"
spec:
  nodeName: node-1
  initContainers: [{name: sidecar, image: proxy:1, restartPolicy: Always}]
  containers: [{name: nginx, image: nginx:v1}]
status:
  phase: Running
  conditions:
  - {type: Ready, status: "True", reason: r, message: m, lastTransitionTime: "2026-01-01T00:00:10Z"}
  containerStatuses:
  - {name: nginx, image: nginx:v1, imageID: sha, containerID: "containerd://1", ready: true, restartCount: 3,
     resources: {requests: {cpu: 500m}}}
  initContainerStatuses:
  - {name: sidecar, restartCount: 2}
---
apiVersion: apps/v1
kind: ControllerRevision
metadata:
  name: sample-1
  creationTimestamp: "2026-01-01T00:00:00Z"
  labels: {app: sample}
  annotations: {kruise.io/cloneset-volumeclaimtemplate-hash: "123"}
revision: 4
data:
  spec:
    template:
      $patch: replace
      metadata: {labels: {app: sample}}
      spec: {containers: [{name: nginx, image: nginx:v0}]}
---
apiVersion: apps/v1
kind: ControllerRevision
metadata: {name: sample-empty}
revision: 5
`
	s := mustLoad(t, in)
	cs := s.CloneSet
	sp := cs.Spec
	if *sp.Replicas != 3 || *sp.RevisionHistoryLimit != 5 || sp.MinReadySeconds != 7 || *sp.ProgressDeadlineSeconds != 600 {
		t.Errorf("spec scalars: %+v", sp)
	}
	if sp.Selector.String() != "app=sample,tier in (api,web)" {
		t.Errorf("selector = %q", sp.Selector.String())
	}
	ts := sp.Template.Spec
	if len(ts.ReadinessGates) != 1 || ts.TopologySpreadConstraints[0].TopologyKey != "zone" || ts.Volumes[0] != "cfg" ||
		ts.InitContainers[0].RestartPolicy != "Always" || ts.RestartPolicy != "Always" || sp.Template.Annotations["note"] != "x" {
		t.Errorf("template spec: %+v", ts)
	}
	c := ts.Containers[0]
	wantEnv := []model.EnvVar{{Name: "A", Value: "1", HasValue: true}, {Name: "B"}, {Name: "POD", FieldPath: "metadata.labels['x']"}}
	if diff := cmp.Diff(wantEnv, c.Env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	if c.Resources.Requests["cpu"].Cmp(model.MustParseQuantity("0.5")) != 0 || c.Resources.Limits["cpu"].String() != "1" ||
		c.Resources.Requests["memory"].String() != "1Gi" || c.ResizePolicy[0] != (model.ContainerResizePolicy{ResourceName: "cpu", RestartPolicy: "NotRequired"}) {
		t.Errorf("container: %+v", c)
	}
	if v := sp.VolumeClaimTemplates[0]; v.Name != "data" || v.StorageRequest != "20Gi" || v.Labels["a"] != "b" || v.Raw["spec"] == nil {
		t.Errorf("vct: %+v", v)
	}
	ss := sp.ScaleStrategy
	if *ss.MaxUnavailable != model.FromString("10%") || !ss.EnablePVCReuse || !ss.ExcludePreparingDelete {
		t.Errorf("scaleStrategy: %+v", ss)
	}
	if h := sp.Lifecycle.PreDelete; h.LabelsHandler["hold"] != "true" || h.FinalizersHandler[0] != "f1" || !h.MarkPodNotReady || sp.Lifecycle.PreNormal != nil {
		t.Errorf("lifecycle: %+v", sp.Lifecycle)
	}
	ru := sp.UpdateStrategy.RollingUpdate
	if ru.PodUpdatePolicy != model.PolicyInPlaceOnly || !ru.Paused || ru.InPlaceUpdateStrategy == nil {
		t.Errorf("rollingUpdate: %+v", ru)
	}
	st := cs.Status
	wantStatus := model.CloneSetStatus{ObservedGeneration: 2, Replicas: 3, ReadyReplicas: 2, AvailableReplicas: 1, UpdatedReplicas: 1,
		UpdatedReadyReplicas: 1, UpdatedAvailableReplicas: 1, ExpectedUpdatedReplicas: 3, CurrentRevision: "sample-1",
		UpdateRevision: "sample-2", CollisionCount: ptr32(1), LabelSelector: "app=sample"}
	if diff := cmp.Diff(wantStatus, st); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}

	p := s.Pods[0]
	if p.UID != "u1" || p.Annotations["a"] != "b" || p.Finalizers[0] != "f1" || p.Spec.NodeName != "node-1" || p.Status.Phase != "Running" ||
		!p.IsReady() || p.Status.Conditions[0].Reason != "r" || p.Status.Conditions[0].Message != "m" {
		t.Errorf("pod: %+v", p)
	}
	cst := p.Status.ContainerStatuses[0]
	if cst.ImageID != "sha" || cst.ContainerID != "containerd://1" || !cst.Ready || cst.RestartCount != 3 || cst.Resources.Requests["cpu"].String() != "500m" {
		t.Errorf("container status: %+v", cst)
	}
	if p.Status.InitContainerStatuses[0].RestartCount != 2 || p.MaxSidecarRestarts() != 2 {
		t.Errorf("init statuses: %+v", p.Status.InitContainerStatuses)
	}

	r := s.Revisions[0]
	if r.Name != "sample-1" || r.Revision != 4 || !r.HasTemplate || r.Template.Spec.Containers[0].Image != "nginx:v0" {
		t.Errorf("revision: %+v", r)
	}
	if h, ok := r.VCTHash(); !ok || h != "123" {
		t.Errorf("vct hash %q %v", h, ok)
	}
	if _, ok := r.Template.Raw["$patch"]; ok {
		t.Error("$patch kept in the revision template")
	}
	if s.Revisions[1].HasTemplate || s.Revisions[1].Revision != 5 {
		t.Errorf("empty revision: %+v", s.Revisions[1])
	}
}

// conformanceDir finds the conformance worlds: the project's copy
// (testdata/conformance) or shared/conformance beside the repository.
func conformanceDir(t *testing.T) string {
	t.Helper()
	for _, d := range []string{"../testdata/conformance", "../../shared/conformance"} {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
	}
	t.Fatal("no conformance worlds found (looked for ../testdata/conformance and ../../shared/conformance)")
	return ""
}

// TestConformanceScenariosLoad loads every conformance world with the default
// Options: every world is admissible (the conformance README's corrections).
func TestConformanceScenariosLoad(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(conformanceDir(t), "*", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 580 {
		t.Fatalf("found %d conformance worlds, want at least 580", len(files))
	}
	for _, f := range files {
		s, err := LoadFiles([]string{f}, nil)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if s.CloneSet == nil || s.Now.IsZero() {
			t.Errorf("%s: incomplete scenario", f)
		}
		for _, p := range s.Pods {
			if !model.ControllerRef(p.OwnerReferences).OwnedBy(s.CloneSet) && p.OwnerReferences != nil {
				t.Errorf("%s: pod %s kept but owned by another object", f, p.Name)
			}
		}
	}
	t.Logf("%d conformance worlds load", len(files))
}

// TestSeedManifests loads every sample of the user docs (testdata/manifests)
// and checks the model values the samples are about.
func TestSeedManifests(t *testing.T) {
	files, err := filepath.Glob("../testdata/manifests/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	var want []string
	for k := range seedChecks {
		want = append(want, k)
	}
	sort.Strings(want)
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("files in testdata/manifests differ from the checked list (-checked +files):\n%s", diff)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("../testdata/manifests", name))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(data), "# Sample from shared/seeds/") {
				t.Error("no comment line naming the sample's origin")
			}
			s, err := LoadBytes(data, name)
			if err != nil {
				t.Fatal(err)
			}
			checkSeedDefaults(t, name, s.CloneSet)
			if check := seedChecks[name]; check != nil {
				check(t, s)
			}
		})
	}
}

// TestLargeScenario: a big real-sized dump is far below the alias budget.
func TestLargeScenario(t *testing.T) {
	var b strings.Builder
	b.WriteString(beta(selTpl))
	for i := 0; i < 3000; i++ {
		b.WriteString(podDoc(fmt.Sprintf("p%04d", i), "sample", "lifecycle.apps.kruise.io/state: Normal"))
		b.WriteString("status:\n  phase: Running\n  conditions: [{type: Ready, status: \"True\", lastTransitionTime: \"2026-01-01T00:00:00Z\"}]\n")
	}
	s := mustLoad(t, b.String())
	if len(s.Pods) != 3000 {
		t.Fatalf("%d pods", len(s.Pods))
	}
}
