package kubecontroller

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

var convNow = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

// cloneSetJSON is a CloneSet exercising most of the fields the model reads,
// with a template whose raw tree holds numbers, booleans, nulls and lists.
const cloneSetJSON = `{
  "apiVersion": "apps.kruise.io/v1beta1", "kind": "CloneSet",
  "metadata": {"name": "web", "namespace": "shop", "uid": "cs-uid", "resourceVersion": "77", "generation": 4,
    "labels": {"app": "web"}, "annotations": {"note": "x"}},
  "spec": {
    "replicas": 5,
    "selector": {"matchLabels": {"app": "web"}, "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]}]},
    "template": {
      "metadata": {"labels": {"app": "web", "tier": "a"}, "annotations": {"a": "1"}},
      "spec": {
        "containers": [{"name": "main", "image": "web:1",
          "env": [{"name": "A", "value": "1"}, {"name": "B", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
          "resources": {"limits": {"cpu": "500m", "memory": "1Gi"}, "requests": {"cpu": 0.25}},
          "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"}],
          "ports": [{"containerPort": 8080, "protocol": "TCP"}]}],
        "initContainers": [{"name": "side", "image": "side:1", "restartPolicy": "Always"}],
        "readinessGates": [{"conditionType": "example.com/gate"}],
        "topologySpreadConstraints": [{"topologyKey": "zone", "maxSkew": 1, "whenUnsatisfiable": "ScheduleAnyway"}],
        "volumes": [{"name": "scratch", "emptyDir": {}}],
        "terminationGracePeriodSeconds": 30, "enableServiceLinks": false, "hostname": null
      }
    },
    "volumeClaimTemplates": [{"metadata": {"name": "data", "labels": {"v": "1"}},
      "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}],
    "scaleStrategy": {"podsToDelete": ["web-b"], "maxUnavailable": "20%"},
    "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"podUpdatePolicy": "InPlaceIfPossible",
      "partition": 2, "maxUnavailable": 1, "maxSurge": "10%",
      "priorityStrategy": {"weightPriority": [{"weight": 50, "matchSelector": {"matchLabels": {"tier": "a"}}}]},
      "inPlaceUpdateStrategy": {"gracePeriodSeconds": 10}}},
    "revisionHistoryLimit": 7, "minReadySeconds": 3,
    "lifecycle": {"preDelete": {"finalizersHandler": ["example.com/hook"], "markPodNotReady": true},
      "inPlaceUpdate": {"labelsHandler": {"example.com/hold": "true"}}}
  },
  "status": {"observedGeneration": 3, "replicas": 5, "readyReplicas": 4, "availableReplicas": 4,
    "updatedReplicas": 2, "updatedReadyReplicas": 2, "updatedAvailableReplicas": 2, "expectedUpdatedReplicas": 3,
    "currentRevision": "web-old", "updateRevision": "web-new", "collisionCount": 0, "labelSelector": "app=web",
    "conditions": [{"type": "Progressing", "status": "True", "reason": "x", "lastUpdateTime": "2026-03-04T05:00:00Z"}]}
}`

// v1alpha1CloneSetJSON is the same kind of object in the v1alpha1 shape.
const v1alpha1CloneSetJSON = `{
  "apiVersion": "apps.kruise.io/v1alpha1", "kind": "CloneSet",
  "metadata": {"name": "web", "namespace": "shop", "uid": "cs-uid", "generation": 1},
  "spec": {
    "replicas": 3,
    "selector": {"matchLabels": {"app": "web"}},
    "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "main", "image": "web:1"}]}},
    "scaleStrategy": {"disablePVCReuse": true},
    "updateStrategy": {"type": "InPlaceIfPossible", "partition": "50%", "maxSurge": 1, "paused": true}
  }
}`

func unstructuredFrom(t testing.TB, s string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON([]byte(s)); err != nil {
		t.Fatal(err)
	}
	return u
}

func ts(t time.Time) metav1.Time { return metav1.NewTime(t) }

// sampleObjects builds typed objects with every field the model reads set
// on at least one of them, plus objects the scenario must set aside.
func sampleObjects(t testing.TB, csJSON string) Objects {
	owner := []metav1.OwnerReference{{APIVersion: "apps.kruise.io/v1beta1", Kind: "CloneSet", Name: "web", UID: "cs-uid", Controller: ptr.To(true)}}
	always := corev1.ContainerRestartPolicyAlways
	pod := func(name string) corev1.Pod {
		return corev1.Pod{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{
				Name: name, Namespace: "shop", UID: types.UID("uid-" + name), ResourceVersion: "10",
				Labels:            map[string]string{"app": "web", "tier": "a", model.LabelInstanceID: name[4:]},
				Annotations:       map[string]string{"k": "v"},
				CreationTimestamp: ts(convNow.Add(-time.Hour)),
				OwnerReferences:   owner,
			},
			Spec: corev1.PodSpec{
				NodeName: "node-1",
				Containers: []corev1.Container{{
					Name: "main", Image: "web:1",
					Env: []corev1.EnvVar{{Name: "A", Value: "1"}, {Name: "E"},
						{Name: "B", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels['x']"}}}},
					Resources: corev1.ResourceRequirements{
						Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("1Gi")},
						Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("0.25")},
					},
					ResizePolicy: []corev1.ContainerResizePolicy{{ResourceName: corev1.ResourceCPU, RestartPolicy: corev1.NotRequired}},
				}},
				InitContainers:            []corev1.Container{{Name: "side", Image: "side:1", RestartPolicy: &always}},
				ReadinessGates:            []corev1.PodReadinessGate{{ConditionType: "example.com/gate"}},
				TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{TopologyKey: "zone", MaxSkew: 1}},
				Volumes:                   []corev1.Volume{{Name: "data"}},
				RestartPolicy:             corev1.RestartPolicyAlways,
				ActiveDeadlineSeconds:     ptr.To(int64(600)),
			},
			Status: corev1.PodStatus{
				Phase: corev1.PodRunning,
				Conditions: []corev1.PodCondition{
					{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: ts(convNow.Add(-time.Minute))},
					{Type: "example.com/gate", Status: corev1.ConditionFalse, Reason: "R", Message: "M"},
				},
				ContainerStatuses: []corev1.ContainerStatus{{Name: "main", Image: "web:1", ImageID: "sha256:1", ContainerID: "cri://1", Ready: true, RestartCount: 2,
					Resources: &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}}},
				InitContainerStatuses: []corev1.ContainerStatus{{Name: "side", Ready: true}},
			},
		}
	}
	a, b, c := pod("web-a"), pod("web-b"), pod("web-c")
	b.Finalizers = []string{"example.com/hook"}
	b.DeletionTimestamp = ptr.To(ts(convNow.Add(-time.Second)))
	c.OwnerReferences = nil // an orphan the selector matches: adopted
	c.Status = corev1.PodStatus{Phase: corev1.PodPending}
	c.Spec.ActiveDeadlineSeconds = nil
	other := pod("web-z")
	other.OwnerReferences = []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "rs", UID: "rs-uid", Controller: ptr.To(true)}}
	stray := pod("web-y")
	stray.OwnerReferences = nil
	stray.Labels = map[string]string{"app": "other"}

	pvc := func(name string, refs []metav1.OwnerReference) corev1.PersistentVolumeClaim {
		return corev1.PersistentVolumeClaim{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", UID: types.UID("uid-" + name), ResourceVersion: "3",
				Labels: map[string]string{model.LabelInstanceID: name[len(name)-1:]}, OwnerReferences: refs},
			Spec: corev1.PersistentVolumeClaimSpec{Resources: corev1.VolumeResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}},
		}
	}
	podOwner := []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "web-a", UID: "uid-web-a", Controller: ptr.To(true)}}
	claims := []corev1.PersistentVolumeClaim{pvc("data-web-a", owner), pvc("data-web-b", podOwner), pvc("data-web-x", nil)}
	claims[0].DeletionTimestamp = ptr.To(ts(convNow))

	revData := `{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"main","image":"web:0","ports":[{"containerPort":8080}]}],"terminationGracePeriodSeconds":30}}}}`
	revs := []appsv1.ControllerRevision{
		{
			TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ControllerRevision"},
			ObjectMeta: metav1.ObjectMeta{Name: "web-old", Namespace: "shop", UID: "rev-uid", ResourceVersion: "5",
				CreationTimestamp: ts(convNow.Add(-2 * time.Hour)), Labels: map[string]string{"app": "web"},
				Annotations: map[string]string{model.AnnotationVCTHash: "h"}, OwnerReferences: owner},
			Data:     runtime.RawExtension{Raw: []byte(revData)},
			Revision: 1,
		},
		{
			TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ControllerRevision"},
			ObjectMeta: metav1.ObjectMeta{Name: "web-notemplate", Namespace: "shop"},
			Data:       runtime.RawExtension{Raw: []byte(`{"spec":{}}`)},
			Revision:   2,
		},
		{
			TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ControllerRevision"},
			ObjectMeta: metav1.ObjectMeta{Name: "elsewhere", Namespace: "other"},
			Revision:   1,
		},
	}
	nodes := []corev1.Node{{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: "node-1", Labels: map[string]string{"zone": "z1"}}}}
	return Objects{
		CloneSet:  unstructuredFrom(t, csJSON),
		Pods:      []corev1.Pod{a, b, c, other, stray},
		PVCs:      claims,
		Revisions: revs,
		Nodes:     nodes,
	}
}

// loaderScenario writes the objects as one JSON List with a Scenario
// document and loads it with the library's manifest loader.
func loaderScenario(t *testing.T, objs Objects, now time.Time) *model.Scenario {
	t.Helper()
	items := []any{
		map[string]any{"apiVersion": "clonesetcore/v1alpha1", "kind": "Scenario", "now": now.Format(time.RFC3339)},
		objs.CloneSet.Object,
	}
	for _, p := range objs.Pods {
		items = append(items, p)
	}
	for _, p := range objs.PVCs {
		items = append(items, p)
	}
	for _, r := range objs.Revisions {
		items = append(items, r)
	}
	for _, n := range objs.Nodes {
		items = append(items, n)
	}
	data, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		t.Fatal(err)
	}
	scn, err := manifest.LoadBytes(data, "objects.json")
	if err != nil {
		t.Fatal(err)
	}
	return scn
}

var quantityEqual = cmp.Comparer(func(a, b model.Quantity) bool { return a.String() == b.String() && a.Cmp(b) == 0 })

func TestScenarioMatchesTheLoader(t *testing.T) {
	for name, csJSON := range map[string]string{"v1beta1": cloneSetJSON, "v1alpha1": v1alpha1CloneSetJSON} {
		t.Run(name, func(t *testing.T) {
			objs := sampleObjects(t, csJSON)
			want := loaderScenario(t, objs, convNow)
			got, err := Scenario(objs, ScenarioOptions{Now: convNow})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got, quantityEqual); diff != "" {
				t.Fatalf("Scenario differs from manifest.LoadBytes of the same objects (-loader +direct):\n%s", diff)
			}
			if len(got.SetAside) == 0 || len(got.Pods) != 3 || len(got.PVCs) != 2 || got.Revisions[0].Template.Raw == nil {
				t.Fatalf("the sample does not exercise what it should: %d pods, %d PVCs, set aside %v", len(got.Pods), len(got.PVCs), got.SetAside)
			}
		})
	}
}

func TestScenarioRejectsAnInvalidCloneSet(t *testing.T) {
	objs := sampleObjects(t, cloneSetJSON)
	if err := unstructured.SetNestedField(objs.CloneSet.Object, "bogus", "spec", "updateStrategy", "rollingUpdate", "podUpdatePolicy"); err != nil {
		t.Fatal(err)
	}
	if _, err := Scenario(objs, ScenarioOptions{Now: convNow}); err == nil {
		t.Fatal("a CloneSet with podUpdatePolicy bogus was accepted")
	}
	objs.CloneSet.SetAPIVersion("apps.kruise.io/v2")
	if _, err := Scenario(objs, ScenarioOptions{Now: convNow}); err == nil {
		t.Fatal("a CloneSet of apiVersion v2 was accepted")
	}
}

func TestCloneSetTypeErrors(t *testing.T) {
	u := unstructuredFrom(t, cloneSetJSON)
	_ = unstructured.SetNestedField(u.Object, "five", "spec", "replicas")
	if _, err := CloneSetFromUnstructured(u); err == nil {
		t.Fatal(`spec.replicas "five" was accepted`)
	}
}

// BenchmarkScenario10kPods converts a CloneSet with 10,000 pods.
// objects10k is the sample world with 10,000 pods (each with a
// resourceVersion, as the API server gives them).
func objects10k(tb testing.TB) Objects {
	base := sampleObjects(tb, cloneSetJSON)
	objs := base
	objs.Pods = make([]corev1.Pod, 0, 10000)
	for i := 0; i < 10000; i++ {
		p := *base.Pods[0].DeepCopy()
		p.Name = fmt.Sprintf("web-%05d", i)
		p.UID = types.UID("uid-" + p.Name)
		p.ResourceVersion = "1"
		objs.Pods = append(objs.Pods, p)
	}
	objs.CloneSet = objs.CloneSet.DeepCopy()
	_ = unstructured.SetNestedField(objs.CloneSet.Object, int64(10000), "spec", "replicas")
	_ = unstructured.SetNestedStringSlice(objs.CloneSet.Object, nil, "spec", "scaleStrategy", "podsToDelete")
	return objs
}

// BenchmarkScenario10kPods converts a CloneSet with 10,000 pods, all of
// them (no cache).
func BenchmarkScenario10kPods(b *testing.B) {
	objs := objects10k(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		scn, err := Scenario(objs, ScenarioOptions{Now: convNow})
		if err != nil || len(scn.Pods) != 10000 {
			b.Fatal(err, len(scn.Pods))
		}
	}
}

// BenchmarkScenario10kPodsCached converts the same world with a
// ConversionCache after one pod changed: only that pod is converted again.
func BenchmarkScenario10kPodsCached(b *testing.B) {
	objs := objects10k(b)
	cache := NewConversionCache()
	if _, err := Scenario(objs, ScenarioOptions{Now: convNow, Cache: cache}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		objs.Pods[i%len(objs.Pods)].ResourceVersion = fmt.Sprint(i + 2)
		scn, err := Scenario(objs, ScenarioOptions{Now: convNow, Cache: cache})
		if err != nil || len(scn.Pods) != 10000 {
			b.Fatal(err, len(scn.Pods))
		}
	}
}

// TestConversionCache: an unchanged object (same uid and resourceVersion)
// comes back as the same model object, a changed one is converted again, and
// an object that is gone is forgotten.
func TestConversionCache(t *testing.T) {
	objs := sampleObjects(t, cloneSetJSON)
	for i := range objs.Pods {
		objs.Pods[i].ResourceVersion = "1"
	}
	cache := NewConversionCache()
	first, err := Scenario(objs, ScenarioOptions{Now: convNow, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	again, err := Scenario(objs, ScenarioOptions{Now: convNow, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Pods) < 2 || first.Pods[0] != again.Pods[0] || first.Pods[1] != again.Pods[1] {
		t.Fatal("unchanged pods were converted again")
	}
	if first.CloneSet != again.CloneSet {
		t.Fatal("the unchanged CloneSet was converted again (the Tracker would drop what it derived from it)")
	}
	objs.CloneSet.SetResourceVersion("7")
	if moved, err := Scenario(objs, ScenarioOptions{Now: convNow, Cache: cache}); err != nil || moved.CloneSet == first.CloneSet {
		t.Fatalf("a changed CloneSet was not converted again (%v)", err)
	}
	objs.Pods[0].ResourceVersion = "2"
	objs.Pods[0].Labels["changed"] = "yes"
	third, err := Scenario(objs, ScenarioOptions{Now: convNow, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if third.Pods[0] == first.Pods[0] || third.Pods[0].Labels["changed"] != "yes" || third.Pods[1] != first.Pods[1] {
		t.Error("a changed pod was not converted again, or an unchanged one was")
	}
	gone := objs.Pods[0].Name
	objs.Pods = objs.Pods[1:]
	if _, err := Scenario(objs, ScenarioOptions{Now: convNow, Cache: cache}); err != nil {
		t.Fatal(err)
	}
	if _, ok := cache.pods[gone]; ok {
		t.Error("a pod that is gone stays in the cache")
	}
}

// TestRevisionFromObjectKeepsNumbers: a revision upstream wrote, read back
// from the API, is the same revision as its template (model.TemplatesEqual):
// its numbers keep their value on the way through the loader (1000000 is
// not read as 1e+06, which no integer field takes).
func TestRevisionFromObjectKeepsNumbers(t *testing.T) {
	tpl := model.PodTemplate{Labels: map[string]string{"app": "web"}, Raw: map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
		"spec": map[string]any{
			"terminationGracePeriodSeconds": json.Number("9007199254740993"),
			"containers": []any{map[string]any{"name": "main", "image": "nginx",
				"securityContext": map[string]any{"runAsUser": json.Number("1000000")}}},
		},
	}}
	data, err := model.RevisionData(tpl)
	if err != nil {
		t.Fatal(err)
	}
	cr := &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "shop"}, Data: runtime.RawExtension{Raw: data}, Revision: 1}
	rev, err := RevisionFromObject(cr)
	if err != nil {
		t.Fatal(err)
	}
	if !model.TemplatesEqual(rev.Template, tpl) {
		again, err := model.RevisionData(rev.Template)
		t.Fatalf("the revision read back is another template:\nwritten %s\nread    %s (%v)", data, again, err)
	}
}
