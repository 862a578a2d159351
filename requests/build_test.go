package requests_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/requests"
)

// ruleWorld is a CloneSet "web" with a claim template and two pods at
// revision web-1 (image nginx:1), one of them with the KruisePodReady gate.
const ruleWorld = `apiVersion: clonesetcore/v1alpha1
kind: Scenario
now: "2026-01-01T01:00:00Z"
---
apiVersion: apps.kruise.io/v1beta1
kind: CloneSet
metadata: {name: web, namespace: prod, uid: uid-web, generation: 2, resourceVersion: "77"}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: main, image: "nginx:1"}]}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
  lifecycle:
    preDelete: {labelsHandler: {example.io/drain: "true"}, markPodNotReady: true}
  updateStrategy:
    rollingUpdate: {podUpdatePolicy: InPlaceIfPossible, maxUnavailable: 2}
status: {observedGeneration: 1, replicas: 2, currentRevision: web-1, updateRevision: web-1}
---
apiVersion: apps/v1
kind: ControllerRevision
metadata: {name: web-1, namespace: prod, uid: uid-rev1, labels: {app: web}}
revision: 1
data: {spec: {template: {$patch: replace, metadata: {labels: {app: web}}, spec: {containers: [{name: main, image: "nginx:1"}]}}}}
`

func rulePod(name string, gates ...string) string {
	g := "  - {conditionType: InPlaceUpdateReady}\n"
	for _, x := range gates {
		g += "  - {conditionType: " + x + "}\n"
	}
	return `---
apiVersion: v1
kind: Pod
metadata:
  name: ` + name + `
  namespace: prod
  uid: uid-` + name + `
  creationTimestamp: "2026-01-01T00:00:00Z"
  labels: {app: web, example.io/drain: "true", apps.kruise.io/cloneset-instance-id: ` + strings.TrimPrefix(name, "web-") + `, controller-revision-hash: web-1, pod-template-hash: "1", lifecycle.apps.kruise.io/state: Normal}
  ownerReferences: [{apiVersion: apps.kruise.io/v1beta1, kind: CloneSet, name: web, uid: uid-web, controller: true}]
spec:
  nodeName: n1
  readinessGates:
` + g + `  containers: [{name: main, image: "nginx:1"}]
status:
  phase: Running
  conditions:
  - {type: Ready, status: "True", lastTransitionTime: "2026-01-01T00:01:00Z"}
  - {type: ContainersReady, status: "True", lastTransitionTime: "2026-01-01T00:01:00Z"}
  - {type: InPlaceUpdateReady, status: "True", lastTransitionTime: "2026-01-01T00:00:00Z"}
  containerStatuses: [{name: main, image: "nginx:1", imageID: "sha-1", ready: true}]
`
}

func ruleClaim(name string) string {
	return `---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data-` + name + `
  namespace: prod
  uid: uid-data-` + name + `
  labels: {app: web, apps.kruise.io/cloneset-instance-id: ` + strings.TrimPrefix(name, "web-") + `}
  ownerReferences: [{apiVersion: apps.kruise.io/v1beta1, kind: CloneSet, name: web, uid: uid-web, controller: true}]
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`
}

// build loads world, changes its CloneSet, plans and builds the requests.
func build(t *testing.T, world string, change func(*model.CloneSet)) (*clonesetcore.Result, []requests.Request) {
	t.Helper()
	scn, err := manifest.LoadBytes([]byte(world), "rule.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if change != nil {
		change(scn.CloneSet)
	}
	plan, err := clonesetcore.Plan(scn)
	if err != nil {
		t.Fatal(err)
	}
	reqs, err := requests.Build(scn, plan)
	if err != nil {
		t.Fatal(err)
	}
	return plan, reqs
}

func decode(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return m
}

// at reads a path of object members ("metadata.labels.app"); a key with dots
// is written in brackets: "metadata.labels[apps.kruise.io/cloneset-instance-id]".
func at(v any, path string) any {
	for path != "" {
		var key string
		if strings.HasPrefix(path, "[") {
			i := strings.Index(path, "]")
			key, path = path[1:i], strings.TrimPrefix(path[i+1:], ".")
		} else if i := strings.IndexAny(path, ".["); i >= 0 {
			key, path = path[:i], strings.TrimPrefix(path[i:], ".")
		} else {
			key, path = path, ""
		}
		m, _ := v.(map[string]any)
		v = m[key]
	}
	return v
}

func wantAt(t *testing.T, what string, v any, path string, want any) {
	t.Helper()
	if got := at(v, path); !jsonEqual(got, want) {
		t.Errorf("%s: %s = %v, want %v", what, path, got, want)
	}
}

// TestCreatePodRequests: scale-and-budgets 4.4 (the pod object), 5.2 (the
// claim object) and 5.3 (volumes); the claim is created before its pod, both
// in the pod's slow-start batch.
func TestCreatePodRequests(t *testing.T) {
	_, reqs := build(t, ruleWorld, nil) // no pods: two creates
	var kinds []string
	for _, r := range reqs {
		kinds = append(kinds, string(r.Verb)+" "+string(r.Resource))
	}
	want := "create persistentvolumeclaims,create pods,create persistentvolumeclaims,create pods,patch clonesets"
	if strings.Join(kinds, ",") != want {
		t.Fatalf("requests %v, want %s", kinds, want)
	}
	claim, pod := reqs[0], reqs[1]
	if claim.Batch != 0 || pod.Batch != 0 || reqs[3].Batch != 1 || claim.Action != pod.Action {
		t.Errorf("batches %d %d %d, actions %d %d", claim.Batch, pod.Batch, reqs[3].Batch, claim.Action, pod.Action)
	}
	id := strings.TrimPrefix(pod.Name, "web-")
	p := decode(t, pod.Object)
	wantAt(t, "pod", p, "metadata.generateName", "web-")
	wantAt(t, "pod", p, "metadata.namespace", "prod")
	wantAt(t, "pod", p, "metadata.labels[controller-revision-hash]", "web-1")
	wantAt(t, "pod", p, "metadata.labels[pod-template-hash]", "1")
	wantAt(t, "pod", p, "metadata.labels[apps.kruise.io/cloneset-instance-id]", id)
	wantAt(t, "pod", p, "metadata.labels[lifecycle.apps.kruise.io/state]", "PreparingNormal")
	wantAt(t, "pod", p, "metadata.annotations[lifecycle.apps.kruise.io/timestamp]", "2026-01-01T01:00:00Z")
	wantAt(t, "pod", p, "metadata.ownerReferences", []any{map[string]any{"apiVersion": "apps.kruise.io/v1beta1", "kind": "CloneSet", "name": "web", "uid": "uid-web", "controller": true, "blockOwnerDeletion": true}})
	wantAt(t, "pod", p, "spec.readinessGates", []any{map[string]any{"conditionType": "InPlaceUpdateReady"}})
	wantAt(t, "pod", p, "spec.volumes", []any{map[string]any{"name": "data", "persistentVolumeClaim": map[string]any{"claimName": "data-" + pod.Name}}})
	c := decode(t, claim.Object)
	wantAt(t, "claim", c, "metadata.name", "data-"+pod.Name)
	wantAt(t, "claim", c, "metadata.labels", map[string]any{"app": "web", "apps.kruise.io/cloneset-instance-id": id})
	wantAt(t, "claim", c, "spec.resources.requests.storage", "1Gi")
}

// TestLifecycleRequests: W2 with the NotReady policy (lifecycle-status-
// validation 1.4, 1.5): the condition write goes first, through the status
// subresource, only for the pod with the KruisePodReady gate; then the state
// label and timestamp.
func TestLifecycleRequests(t *testing.T) {
	world := ruleWorld + rulePod("web-a", "KruisePodReady") + ruleClaim("web-a") + rulePod("web-b") + ruleClaim("web-b")
	plan, reqs := build(t, world, func(cs *model.CloneSet) { zero := int32(0); cs.Spec.Replicas = &zero })
	if len(plan.Actions) != 2 {
		t.Fatalf("actions %v", plan.Actions)
	}
	byPod := map[string][]requests.Request{}
	for _, r := range reqs {
		byPod[r.Name] = append(byPod[r.Name], r)
	}
	a := byPod["web-a"]
	if len(a) != 2 || a[0].Subresource != "status" || a[1].Subresource != "" {
		t.Fatalf("web-a: %v", a)
	}
	cond := at(decode(t, a[0].Patch), "status.conditions").([]any)[0]
	wantAt(t, "KruisePodReady", cond, "type", "KruisePodReady")
	wantAt(t, "KruisePodReady", cond, "message", `[{"userAgent":"Lifecycle","key":"preDeleteHook"}]`)
	b := byPod["web-b"]
	if len(b) != 1 || b[0].PatchType != requests.PatchMerge || b[0].Preconditions.UID != "uid-web-b" {
		t.Fatalf("web-b (no gate: no condition write): %v", b)
	}
	patch := decode(t, b[0].Patch)
	wantAt(t, "state", patch, "metadata.labels", map[string]any{"lifecycle.apps.kruise.io/state": "PreparingDelete"})
	wantAt(t, "state", patch, "metadata.annotations", map[string]any{"lifecycle.apps.kruise.io/timestamp": "2026-01-01T01:00:00Z"})
}

// TestInPlaceRequests: update-and-ordering 4.5: InPlaceUpdateReady False
// first, then one strategic merge patch with the revision labels, Updating,
// the state annotation and the image; the revision is created first.
func TestInPlaceRequests(t *testing.T) {
	world := ruleWorld + rulePod("web-a") + ruleClaim("web-a") + rulePod("web-b") + ruleClaim("web-b")
	plan, reqs := build(t, world, func(cs *model.CloneSet) {
		cs.Spec.Template.Raw["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"] = "nginx:2"
		cs.Spec.Template.Spec.Containers[0].Image = "nginx:2"
	})
	if plan.Actions[0].Type != model.ActionCreateRevision || reqs[0].Verb != requests.VerbCreate || reqs[0].Resource != requests.ResourceControllerRevisions {
		t.Fatalf("first request %v of actions %v", reqs[0], plan.Actions)
	}
	rev := plan.UpdateRevision
	var status, pod *requests.Request
	for i := range reqs {
		if reqs[i].Name == "web-a" && reqs[i].Subresource == "status" {
			status = &reqs[i]
		} else if reqs[i].Name == "web-a" {
			pod = &reqs[i]
		}
	}
	if status == nil || pod == nil || pod.PatchType != requests.PatchStrategicMerge {
		t.Fatalf("requests %v", reqs)
	}
	cond := at(decode(t, status.Patch), "status.conditions").([]any)[0]
	wantAt(t, "condition", cond, "status", "False")
	wantAt(t, "condition", cond, "reason", "StartInPlaceUpdate")
	p := decode(t, pod.Patch)
	wantAt(t, "pod", p, "metadata.labels[controller-revision-hash]", rev)
	wantAt(t, "pod", p, "metadata.labels[lifecycle.apps.kruise.io/state]", "Updating")
	wantAt(t, "pod", p, "spec.containers", []any{map[string]any{"name": "main", "image": "nginx:2"}})
	state := at(p, "metadata.annotations[apps.kruise.io/inplace-update-state]").(string)
	if !strings.Contains(state, `"revision":"`+rev+`"`) || !strings.Contains(state, `"lastContainerStatuses":{"main":{"imageID":"sha-1"}}`) {
		t.Errorf("state annotation %s", state)
	}
}

// TestStatusRequest: lifecycle-status-validation 2.6: the status goes
// through the status subresource as a merge patch with the CloneSet's
// resourceVersion as precondition, and not at all when the plan skips it.
func TestStatusRequest(t *testing.T) {
	plan, reqs := build(t, ruleWorld, nil)
	last := reqs[len(reqs)-1]
	if last.Resource != requests.ResourceCloneSets || last.Subresource != "status" || last.Action != -1 ||
		last.Preconditions == nil || last.Preconditions.ResourceVersion != "77" {
		t.Fatalf("status request %+v", last)
	}
	wantAt(t, "status", decode(t, last.Patch), "status.observedGeneration", 2)
	plan.Status.WriteSkipped = true
	scn, _ := manifest.LoadBytes([]byte(ruleWorld), "rule.yaml")
	again, err := requests.Build(scn, plan)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range again {
		if r.Subresource == "status" && r.Resource == requests.ResourceCloneSets {
			t.Fatal("a skipped status is written")
		}
	}
}

// TestTrailingRequests: lifecycle-status-validation 2.7: the podsToDelete
// rewrite comes after the status write, as a JSON patch that tests the list
// it replaces.
func TestTrailingRequests(t *testing.T) {
	world := ruleWorld + rulePod("web-a") + ruleClaim("web-a") + rulePod("web-b") + ruleClaim("web-b")
	_, reqs := build(t, world, func(cs *model.CloneSet) { cs.Spec.ScaleStrategy.PodsToDelete = []string{"web-gone"} })
	n := len(reqs)
	if n < 2 || reqs[n-2].Subresource != "status" || reqs[n-1].PatchType != requests.PatchJSON {
		t.Fatalf("last requests %+v", reqs[max(0, n-2):])
	}
	var ops []map[string]any
	if err := json.Unmarshal(reqs[n-1].Patch, &ops); err != nil {
		t.Fatal(err)
	}
	if len(ops) != 2 || ops[0]["op"] != "test" || !jsonEqual(ops[0]["value"], []any{"web-gone"}) || ops[1]["op"] != "replace" || !jsonEqual(ops[1]["value"], []any{}) {
		t.Errorf("podsToDelete patch %s", reqs[n-1].Patch)
	}
}

// TestBuildErrors: a plan that does not fit the scenario fails with the
// action named, never a panic.
func TestBuildErrors(t *testing.T) {
	scn, _ := manifest.LoadBytes([]byte(ruleWorld), "rule.yaml")
	plan, _ := clonesetcore.Plan(scn)
	plan.Actions = append(plan.Actions, model.Action{Type: model.ActionDeletePod, Pod: "web-nope"})
	if _, err := requests.Build(scn, plan); err == nil || !strings.Contains(err.Error(), "DeletePod web-nope") {
		t.Errorf("err = %v", err)
	}
	if _, err := requests.Build(nil, plan); err == nil {
		t.Error("no error without a scenario")
	}
}

// TestCreateRevisionRequest: the ControllerRevision upstream creates for a
// new template (clonesetcore.NewRevision): its data byte for byte
// (model.RevisionData), the template's labels and the hash label, the
// CloneSet's annotations and the volume-claim-template hash. A name taken by
// a revision with another template is hashed again with the next collision
// count; the hash label keeps the hash of the count the round started with,
// as upstream's does.
func TestCreateRevisionRequest(t *testing.T) {
	template := func(cs *model.CloneSet) {
		cs.Annotations = map[string]string{"team": "a&b"}
		cs.Spec.Template.Labels["tier"] = "front"
		cs.Spec.Template.Raw["metadata"].(map[string]any)["labels"].(map[string]any)["tier"] = "front"
		cs.Spec.Template.Raw["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"] = "nginx:2"
	}
	scn, err := manifest.LoadBytes([]byte(ruleWorld), "rule.yaml")
	if err != nil {
		t.Fatal(err)
	}
	template(scn.CloneSet)
	data, err := model.RevisionData(scn.CloneSet.Spec.Template)
	if err != nil {
		t.Fatal(err)
	}
	hash := model.TemplateHash(data, 0)
	vct := clonesetcore.VolumeClaimTemplatesHash(scn.CloneSet.Spec.VolumeClaimTemplates)
	for _, collide := range []bool{false, true} {
		world, wantName := ruleWorld, "web-"+hash
		if collide {
			// A revision holding that name, with another template.
			world += strings.Replace(strings.Replace(ruleWorld[strings.LastIndex(ruleWorld, "---"):], "web-1", wantName, 1), "revision: 1", "revision: 2", 1)
			wantName = model.RevisionName("web", model.TemplateHash(data, 1))
		}
		plan, reqs := build(t, world, template)
		if reqs[0].Verb != requests.VerbCreate || reqs[0].Resource != requests.ResourceControllerRevisions {
			t.Fatalf("first request %s %s", reqs[0].Verb, reqs[0].Resource)
		}
		var created struct {
			Metadata struct {
				Name        string
				Labels      map[string]string
				Annotations map[string]string
			}
			Data json.RawMessage
		}
		if err := json.Unmarshal(reqs[0].Object, &created); err != nil {
			t.Fatal(err)
		}
		if string(created.Data) != string(data) {
			t.Errorf("collision %v: data %s\nwant %s", collide, created.Data, data)
		}
		if created.Metadata.Name != wantName || plan.UpdateRevision != wantName {
			t.Errorf("collision %v: name %s (plan %s), want %s", collide, created.Metadata.Name, plan.UpdateRevision, wantName)
		}
		if collide != (plan.Status.CollisionCount == 1) {
			t.Errorf("collision %v: status.collisionCount %d", collide, plan.Status.CollisionCount)
		}
		if l := created.Metadata.Labels; len(l) != 3 || l["app"] != "web" || l["tier"] != "front" || l[requests.LabelRevisionHashKey] != hash {
			t.Errorf("collision %v: labels %v, want app, tier and the hash %s", collide, l, hash)
		}
		if a := created.Metadata.Annotations; len(a) != 2 || a["team"] != "a&b" || a[model.AnnotationVCTHash] != vct || vct == "" {
			t.Errorf("collision %v: annotations %v, want team and the claim templates' hash %q", collide, a, vct)
		}
	}
}

// TestInPlaceRequestsLaunchPriority: an in-place update of containers with
// launch barriers (update-and-ordering 4.5) patches the highest priority's
// containers only and leaves the rest to the state's next batch. A
// regression test: every changed container was patched in one batch, and
// kruise's e2e spec "in-place update two container images with priorities
// successfully" saw nginx restarted together with redis.
func TestInPlaceRequestsLaunchPriority(t *testing.T) {
	two := `[{name: main, image: "nginx:1"}, {name: side, image: "redis:1"}]`
	world := strings.ReplaceAll(ruleWorld, `[{name: main, image: "nginx:1"}]`, two)
	pod := strings.Replace(rulePod("web-a"), `containers: [{name: main, image: "nginx:1"}]`,
		`containers: [{name: main, image: "nginx:1", env: [{name: KRUISE_CONTAINER_BARRIER, valueFrom: {configMapKeyRef: {name: web-a-barrier, key: p_0}}}]},`+
			` {name: side, image: "redis:1", env: [{name: KRUISE_CONTAINER_BARRIER, valueFrom: {configMapKeyRef: {name: web-a-barrier, key: p_10}}}]}]`, 1)
	pod = strings.Replace(pod, `containerStatuses: [{name: main, image: "nginx:1", imageID: "sha-1", ready: true}]`,
		`containerStatuses: [{name: main, image: "nginx:1", imageID: "sha-1", ready: true}, {name: side, image: "redis:1", imageID: "sha-r1", ready: true}]`, 1)
	world = strings.Replace(world, "replicas: 2\n", "replicas: 1\n", 1) + pod + ruleClaim("web-a")
	_, reqs := build(t, world, func(cs *model.CloneSet) {
		cs.Spec.Template.Raw["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"] = "nginx:2"
		cs.Spec.Template.Raw["spec"].(map[string]any)["containers"].([]any)[1].(map[string]any)["image"] = "redis:2"
		cs.Spec.Template.Spec.Containers[0].Image = "nginx:2"
		cs.Spec.Template.Spec.Containers[1].Image = "redis:2"
	})
	var patch *requests.Request
	for i := range reqs {
		if reqs[i].Name == "web-a" && reqs[i].Subresource == "" {
			patch = &reqs[i]
		}
	}
	if patch == nil {
		t.Fatalf("no pod patch in %v", reqs)
	}
	p := decode(t, patch.Patch)
	wantAt(t, "pod", p, "spec.containers", []any{map[string]any{"name": "side", "image": "redis:2"}})
	state := at(p, "metadata.annotations[apps.kruise.io/inplace-update-state]").(string)
	for _, want := range []string{
		`"lastContainerStatuses":{"side":{"imageID":"sha-r1"}}`,
		`"nextContainerImages":{"main":"nginx:2"}`,
		`"preCheckBeforeNext":{"containersRequiredReady":["side"]}`,
		`"containers":["side"]}]`,
	} {
		if !strings.Contains(state, want) {
			t.Errorf("state annotation %s lacks %s", state, want)
		}
	}
}
