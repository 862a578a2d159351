package apiserver

import (
	"testing"
)

const world = `---
apiVersion: clonesetcore/v1alpha1
kind: Scenario
now: "2026-11-21T05:59:58Z"
---
apiVersion: v1
kind: Pod
metadata:
  name: p1
  namespace: default
  uid: uid-p1
  creationTimestamp: "2026-11-21T03:00:00Z"
  labels: {app: sample}
spec:
  containers:
  - name: c
    image: nginx:v1
status:
  phase: Running
  conditions:
  - type: Ready
    status: "True"
    lastProbeTime: null
---
apiVersion: v1
kind: Pod
metadata:
  name: p2
  uid: uid-p2
  finalizers: [example.io/f]
spec: {containers: [{name: c, image: nginx:v1}]}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data-p1, namespace: default}
spec: {accessModes: [ReadWriteOnce], resources: {}}
---
apiVersion: apps/v1
kind: ControllerRevision
metadata: {name: rev1, namespace: default}
revision: 1
data: {spec: {template: {$patch: replace}}}
---
apiVersion: apps.kruise.io/v1alpha1
kind: CloneSet
metadata: {name: sample, namespace: default, uid: uid-sample}
spec: {replicas: 3}
status: {replicas: 1}
---
apiVersion: v1
kind: Node
metadata: {name: node-1}
`

func load(t *testing.T) *Store {
	t.Helper()
	s, err := Load([]byte(world))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestLoad(t *testing.T) {
	s := load(t)
	if s.Now() != "2026-11-21T05:59:58Z" {
		t.Errorf("now = %q", s.Now())
	}
	want := []string{"clonesets/default/sample", "controllerrevisions/default/rev1", "nodes//node-1", "persistentvolumeclaims/default/data-p1", "pods/default/p1", "pods/default/p2"}
	keys := s.Keys()
	if len(keys) != len(want) {
		t.Fatalf("keys %v", keys)
	}
	for i, k := range keys {
		if k.String() != want[i] {
			t.Errorf("key %d = %s, want %s", i, k, want[i])
		}
	}
	p1, _ := s.Get("pods", "default", "p1")
	if ts := metaString(p1, "creationTimestamp"); ts != "2026-11-21T03:00:00Z" {
		t.Errorf("a timestamp must stay a string, got %q", ts)
	}
	rev, _ := s.Get("controllerrevisions", "default", "rev1")
	if rev["revision"] != 1.0 {
		t.Errorf("revision = %#v, want float64 1", rev["revision"])
	}
	for _, bad := range []string{"kind: Deployment\nmetadata: {name: x}\n", "kind: Pod\nmetadata: {}\n", "- 1\n", "kind: Pod\nmetadata: {name: a}\n---\nkind: Pod\nmetadata: {name: a}\n", "a: [\n"} {
		if _, err := Load([]byte(bad)); err == nil {
			t.Errorf("Load(%q): want an error", bad)
		}
	}
}

func TestCreate(t *testing.T) {
	s := load(t)
	o, err := s.Create("pods", "default", []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p3","labels":{"a":"b"}},"spec":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	if metaString(o, "namespace") != "default" || metaString(o, "creationTimestamp") != s.Now() || metaString(o, "uid") == "" || metaString(o, "resourceVersion") == "" {
		t.Errorf("server fields not set: %s", compactJSON(o))
	}
	if _, err := s.Create("pods", "default", []byte(`{"metadata":{"name":"p3"}}`)); !IsAlreadyExists(err) {
		t.Errorf("a taken name: got %v", err)
	}
	g1, err := s.Create("pods", "default", []byte(`{"metadata":{"generateName":"sample-"}}`))
	if err != nil {
		t.Fatal(err)
	}
	g2, _ := s.Create("pods", "default", []byte(`{"metadata":{"generateName":"sample-"}}`))
	if metaString(g1, "name") != "sample-gen1" || metaString(g2, "name") != "sample-gen2" {
		t.Errorf("generated names %q %q", metaString(g1, "name"), metaString(g2, "name"))
	}
	for _, c := range []struct {
		resource, body string
		reason         Reason
	}{
		{"pods", `{"metadata":{}}`, ReasonInvalid},
		{"pods", `{"kind":"Node","metadata":{"name":"x"}}`, ReasonBadRequest},
		{"pods", `{"metadata":{"name":"x","namespace":"other"}}`, ReasonBadRequest},
		{"pods", `[1]`, ReasonBadRequest},
		{"pods", `{"metadata":1}`, ReasonBadRequest},
		{"pods", `{`, ReasonBadRequest},
		{"widgets", `{"metadata":{"name":"x"}}`, ReasonNotFound},
	} {
		if _, err := s.Create(c.resource, "default", []byte(c.body)); ReasonOf(err) != c.reason {
			t.Errorf("create %s %s: want %s, got %v", c.resource, c.body, c.reason, err)
		}
	}
	j := s.Journal()
	if len(j) != 3 || j[0].Verb != VerbCreate || j[0].Key.Name != "p3" {
		t.Errorf("journal %v", j)
	}
}

func TestPatchPreconditions(t *testing.T) {
	s := load(t)
	label := []byte(`{"metadata":{"labels":{"x":"1"}}}`)
	if _, err := s.Patch("pods", "default", "p1", "", MergePatchType, label, &Preconditions{UID: "other"}); !IsConflict(err) {
		t.Errorf("uid mismatch: got %v", err)
	}
	if _, err := s.Patch("pods", "default", "p1", "", MergePatchType, label, &Preconditions{ResourceVersion: "7"}); !IsConflict(err) {
		t.Errorf("resourceVersion mismatch: got %v", err)
	}
	o, err := s.Patch("pods", "default", "p1", "", MergePatchType, label, &Preconditions{UID: "uid-p1"})
	if err != nil {
		t.Fatal(err)
	}
	rv := metaString(o, "resourceVersion")
	if _, err := s.Patch("pods", "default", "p1", "", MergePatchType, []byte(`{"metadata":{"resourceVersion":"stale","labels":{"y":"1"}}}`), nil); !IsConflict(err) {
		t.Errorf("a body with a stale resourceVersion: got %v", err)
	}
	if _, err := s.Patch("pods", "default", "p1", "", MergePatchType, []byte(`{"metadata":{"resourceVersion":"`+rv+`","labels":{"y":"1"}}}`), nil); err != nil {
		t.Errorf("a body with the current resourceVersion: %v", err)
	}
	if _, err := s.Patch("pods", "default", "p1", "", MergePatchType, []byte(`{"metadata":{"uid":"other"}}`), nil); !IsConflict(err) {
		t.Errorf("a body with another uid: got %v", err)
	}
	if _, err := s.Patch("pods", "default", "p1", "", MergePatchType, []byte(`{"metadata":{"name":"q"}}`), nil); ReasonOf(err) != ReasonInvalid {
		t.Errorf("a rename: got %v", err)
	}
	if _, err := s.Patch("pods", "default", "p1", "", MergePatchType, []byte(`{"kind":"Node"}`), nil); ReasonOf(err) != ReasonBadRequest {
		t.Errorf("a kind change: got %v", err)
	}
	if _, err := s.Patch("pods", "default", "nope", "", MergePatchType, label, nil); !IsNotFound(err) {
		t.Errorf("a missing object: got %v", err)
	}
	if _, err := s.Patch("pods", "default", "p1", "", "application/apply-patch+yaml", label, nil); ReasonOf(err) != ReasonUnsupportedMediaType {
		t.Errorf("an unknown patch type: got %v", err)
	}
	if _, err := s.Patch("pods", "default", "p1", "scale", MergePatchType, label, nil); !IsNotFound(err) {
		t.Errorf("an unknown subresource: got %v", err)
	}
	if _, err := s.Patch("controllerrevisions", "default", "rev1", "status", MergePatchType, label, nil); !IsNotFound(err) {
		t.Errorf("revisions have no status subresource: got %v", err)
	}
	// The failed writes changed nothing.
	p1, _ := s.Get("pods", "default", "p1")
	if l := metadata(p1)["labels"].(map[string]any); l["x"] != "1" || l["y"] != "1" || len(l) != 3 {
		t.Errorf("labels %v", l)
	}
}

func TestStatusSubresource(t *testing.T) {
	s := load(t)
	o, err := s.Patch("pods", "default", "p1", "", MergePatchType, []byte(`{"metadata":{"labels":{"x":"1"}},"status":{"phase":"Failed"}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if o["status"].(map[string]any)["phase"] != "Running" || metadata(o)["labels"].(map[string]any)["x"] != "1" {
		t.Errorf("a main-resource patch must keep the status and apply the rest: %s", compactJSON(o))
	}
	o, err = s.Patch("pods", "default", "p1", "status", StrategicMergePatchType, []byte(`{"metadata":{"labels":{"y":"1"}},"spec":{"nodeName":"n"},"status":{"conditions":[{"type":"InPlaceUpdateReady","status":"True"}]}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := metadata(o)["labels"].(map[string]any)["y"]; ok {
		t.Errorf("a status patch changed labels")
	}
	if _, ok := o["spec"].(map[string]any)["nodeName"]; ok {
		t.Errorf("a status patch changed the spec")
	}
	if n := len(o["status"].(map[string]any)["conditions"].([]any)); n != 2 {
		t.Errorf("conditions %d, want 2 (merged by type)", n)
	}
	// Revisions have no status subresource: status is an ordinary field.
	o, err = s.Patch("controllerrevisions", "default", "rev1", "", JSONPatchType, []byte(`[{"op":"replace","path":"/revision","value":3}]`), nil)
	if err != nil || o["revision"] != 3.0 {
		t.Errorf("revision patch: %v %s", err, compactJSON(o))
	}
	// CloneSets: merge and JSON patches only.
	if _, err := s.Patch("clonesets", "default", "sample", "status", StrategicMergePatchType, []byte(`{"status":{"replicas":2}}`), nil); ReasonOf(err) != ReasonUnsupportedMediaType {
		t.Errorf("strategic merge patch of a CloneSet: got %v", err)
	}
	o, err = s.Patch("clonesets", "default", "sample", "status", MergePatchType, []byte(`{"status":{"replicas":2}}`), nil)
	if err != nil || o["status"].(map[string]any)["replicas"] != 2.0 {
		t.Errorf("status patch of a CloneSet: %v %s", err, compactJSON(o))
	}
}

func TestNoOpPatch(t *testing.T) {
	s := load(t)
	before, _ := s.Get("pods", "default", "p1")
	o, err := s.Patch("pods", "default", "p1", "", MergePatchType, []byte(`{"metadata":{"labels":{"app":"sample"}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !Equal(o, before) || len(s.Journal()) != 0 {
		t.Errorf("a no-op patch changed the object or was journaled: %s %v", compactJSON(o), s.Journal())
	}
}

func TestDelete(t *testing.T) {
	s := load(t)
	if _, err := s.Delete("pods", "default", "p1", &Preconditions{UID: "other"}); !IsConflict(err) {
		t.Errorf("uid mismatch: got %v", err)
	}
	if o, err := s.Delete("pods", "default", "p1", &Preconditions{UID: "uid-p1"}); err != nil || o != nil {
		t.Errorf("delete: %v %v", o, err)
	}
	if _, ok := s.Get("pods", "default", "p1"); ok {
		t.Errorf("p1 still there")
	}
	if _, err := s.Delete("pods", "default", "p1", nil); !IsNotFound(err) {
		t.Errorf("second delete: got %v", err)
	}
	// With finalizers: only the deletionTimestamp.
	o, err := s.Delete("pods", "default", "p2", nil)
	if err != nil || metaString(o, "deletionTimestamp") != s.Now() {
		t.Fatalf("delete with finalizers: %v %s", err, compactJSON(o))
	}
	again, _ := s.Delete("pods", "default", "p2", nil)
	if !Equal(again, o) {
		t.Errorf("a second delete changed the object")
	}
	if _, err := s.Patch("pods", "default", "p2", "", StrategicMergePatchType, []byte(`{"metadata":{"finalizers":["new"]}}`), nil); ReasonOf(err) != ReasonInvalid {
		t.Errorf("a new finalizer on a deleted object: got %v", err)
	}
	if _, err := s.Patch("pods", "default", "p2", "", MergePatchType, []byte(`{"metadata":{"deletionTimestamp":null}}`), nil); err != nil {
		t.Errorf("%v", err)
	}
	if o, _ := s.Get("pods", "default", "p2"); metaString(o, "deletionTimestamp") == "" {
		t.Errorf("a patch cannot clear the deletionTimestamp")
	}
	if o, err := s.Patch("pods", "default", "p2", "", StrategicMergePatchType, []byte(`{"metadata":{"$deleteFromPrimitiveList/finalizers":["example.io/f"]}}`), nil); err != nil || o != nil {
		t.Errorf("removing the last finalizer: %v %v", o, err)
	}
	if _, ok := s.Get("pods", "default", "p2"); ok {
		t.Errorf("p2 still there after its last finalizer went")
	}
	want := []Op{{VerbDelete, Key{"pods", "default", "p1"}}, {VerbMarkDeleted, Key{"pods", "default", "p2"}}, {VerbPatch, Key{"pods", "default", "p2"}}, {VerbDelete, Key{"pods", "default", "p2"}}}
	got := s.Journal()
	if len(got) != len(want) {
		t.Fatalf("journal %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("journal[%d] = %v, want %v", i, got[i], want[i])
		}
	}
}
