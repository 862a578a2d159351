package clonesetcore_test

// Notes the planner writes about its inputs (revisions, pods it adopts or
// leaves out, tolerated inputs), and a check that every note sentence of the
// planner is asserted by some test.

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
)

// Revisions: a derived update revision, a current revision known only from the
// status, an unknown current revision, and a derived name that collides.
func TestRevisionNotes(t *testing.T) {
	// No ControllerRevision at all: both revisions come from elsewhere.
	w := newWorld(2, pod("a1", revA), pod("a2", revA)).maxUnavail(1)
	w.s.Revisions = nil
	res := w.plan(t)
	derived := derivedName(revB, 0)
	if res.UpdateRevision != derived || res.CurrentRevision != revA {
		t.Errorf("revisions current %s update %s, want %s and %s", res.CurrentRevision, res.UpdateRevision, revA, derived)
	}
	wantNote(t, res, "no ControllerRevision matches spec.template: update revision "+derived+" is named from the hash of its revision data, as upstream names it")
	wantNote(t, res, "current revision web-1 is taken from status.currentRevision; its ControllerRevision is not in the scenario (pods of it can only be recreated)")
	// Pods of a current revision without a template can only be recreated.
	w.policy(model.PolicyInPlaceIfPossible)
	res = w.plan(t)
	wantActs(t, res, "CreateRevision "+derived+" #1", "RecreatePod a1 ->"+derived)

	// status.currentRevision names a revision that is not there.
	w = newWorld(2, pod("b1", revB), pod("b2", revB)).atRest(revB)
	w.cs.Status.CurrentRevision = "web-9"
	res = w.plan(t)
	if res.CurrentRevision != revB {
		t.Errorf("current revision %s, want the update revision", res.CurrentRevision)
	}
	wantNote(t, res, "status.currentRevision web-9 has no ControllerRevision in the scenario: the current revision is the update revision web-2 (as upstream)")

	// A ControllerRevision already carries the derived name, with another template.
	w = newWorld(1, pod("b1", revB)).atRest(revB)
	clash := revision(revA)
	clash.Name = derived
	w.s.Revisions = []*model.Revision{clash}
	res = w.plan(t)
	// Upstream's collision handling: the count grows and the name is hashed again.
	rehashed := derivedName(revB, 1)
	wantNote(t, res, "revision name "+derived+" derived from spec.template with collisionCount 0 is taken by a ControllerRevision with a different template: collisionCount becomes 1 and the name is hashed again")
	if res.UpdateRevision != rehashed || res.Status.CollisionCount != 1 {
		t.Errorf("update revision %s, collisionCount %d; want %s and 1", res.UpdateRevision, res.Status.CollisionCount, rehashed)
	}
}

// A CloneSet being deleted neither scales nor updates; PVC clean-up and the
// status still run.
func TestDeletingCloneSet(t *testing.T) {
	w := newWorld(3, pod("a1", revA)).maxUnavail(3)
	w.cs.DeletionTimestamp = t0.Add(-time.Minute)
	w.s.PVCs = []*model.PVC{pvcOf("a1"), pvcOf("zz")}
	res := w.plan(t)
	wantActs(t, res, "DeletePVC data-web-zz")
	wantNote(t, res, "the CloneSet is being deleted: no scaling and no update (status is still computed)")
	if res.Status.Replicas != 1 {
		t.Errorf("status.replicas %d, want 1", res.Status.Replicas)
	}
}

// spec.replicas absent: planned as 1, and said so.
func TestReplicasAbsent(t *testing.T) {
	w := newWorld(0).atRest(revB)
	w.cs.Spec.Replicas = nil
	res := w.plan(t)
	if res.Budget.Replicas != 1 || len(ofType(res, model.ActionCreatePod)) != 1 {
		t.Errorf("want one pod for the default replicas 1: budget %+v, actions %q", res.Budget, acts(res))
	}
	wantNote(t, res, "spec.replicas is absent: planning with the default 1 (upstream's scale phase would fail with \"spec.Replicas is nil\")")
}

// Orphans matching the selector are adopted and counted; owned pods that no
// longer match are released: not counted, never acted on, their PVCs kept.
func TestAdoptedAndReleased(t *testing.T) {
	w := newWorld(2, pod("b1", revB), pod("o1", revB, orphan), pod("r1", revB, label("app", "other"))).atRest(revB)
	w.s.PVCs = []*model.PVC{pvcOf("b1"), pvcOf("o1"), pvcOf("r1")}
	w.s.SetAside = []model.SetAside{{Kind: "Pod", Name: "other", Reason: "controlled by ReplicaSet other"}}
	res := w.plan(t)
	wantActs(t, res)
	if res.Status.Replicas != 2 {
		t.Errorf("status.replicas %d, want 2 (b1 and the adopted o1)", res.Status.Replicas)
	}
	wantNote(t, res, "orphan pods matching the selector are treated as adopted: o1")
	wantNote(t, res, "released (no longer match the selector, not counted): r1")
	wantNote(t, res, "Pod other is left out: controlled by ReplicaSet other")

	// Scaling in picks among b1 and o1 only.
	w.cs.Spec.Replicas = ptr(int32(1))
	res = w.plan(t)
	if d := ofType(res, model.ActionDeletePod); len(d) != 1 || d[0].Pod == "r1" {
		t.Errorf("want one observed pod deleted, got %q", acts(res))
	}
}

// A v1alpha1 CloneSet the webhook would reject for its budget (A17), loaded
// with the opt-out for objects that bypassed admission, is planned with a
// note.
func TestToleratedA17(t *testing.T) {
	s, err := manifest.Options{SkipBudgetRule: true}.LoadBytes([]byte(`
apiVersion: apps.kruise.io/v1alpha1
kind: CloneSet
metadata: {name: web, namespace: default, uid: uid-web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: main, image: img:v1}]}
  updateStrategy: {maxUnavailable: 0, maxSurge: 0}
`), "a17.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res := mustPlan(t, s)
	wantNote(t, res, "the webhook would reject this CloneSet (maxUnavailable and maxSurge both below 1, A17); planning it anyway: replicas may have changed through the scale subresource")
}

// A partition the controller cannot compute (only reachable for a CloneSet
// built in code: the webhook rejects it): budget partition 0, status
// expectedUpdatedReplicas 0, and both are noted.
func TestUnparsablePartition(t *testing.T) {
	w := newWorld(2, pod("b1", revB), pod("b2", revB)).atRest(revB)
	w.ru().Partition = strv("50")
	res := w.plan(t)
	if res.Budget.Partition != 0 || res.Status.ExpectedUpdatedReplicas != 0 {
		t.Errorf("partition %d, expectedUpdatedReplicas %d; want 0, 0", res.Budget.Partition, res.Status.ExpectedUpdatedReplicas)
	}
	wantNote(t, res, `partition "50" cannot be computed (`+model.ErrNotPercentage.Error()+`): expectedUpdatedReplicas stays 0 (quirk, LSV 2.2)`)
	wantNote(t, res, `partition "50" does not parse for the controller (uses 0): `+model.ErrNotPercentage.Error())
}

// Scale-in asking more pods of a group than it has: only reachable with a
// negative spec.replicas (rejected by the webhook, built here in code).
func TestScaleInGroupTooSmall(t *testing.T) {
	w := newWorld(0, pod("b1", revB)).atRest(revB)
	w.cs.Spec.Replicas = ptr(int32(-1))
	res := w.plan(t)
	wantActs(t, res, "DeletePod b1 pvcs []")
	wantNote(t, res, "scale-in wanted 2 pods from a group of 1: upstream takes fewer than asked (quirk, scale-and-budgets 9.10)")
}

// The spread ranker needs the nodes of the pods; missing ones are named.
func TestSpreadRankingMissingNodes(t *testing.T) {
	w := newWorld(1, pod("b1", revB, onNode("n1")), pod("b2", revB, onNode("n2")), pod("b3", revB, onNode("n3")))
	w.cs.Spec.Template = templateFor(revB, true)
	w.cs.Status.CurrentRevision = revB
	w.s.Revisions = []*model.Revision{revisionFor(revA, true), revisionFor(revB, true)}
	w.s.Nodes = []*model.Node{{Name: "n1", Labels: map[string]string{"zone": "z1"}}}
	res := w.plan(t)
	if len(ofType(res, model.ActionDeletePod)) != 2 {
		t.Errorf("want 2 deletions, got %q", acts(res))
	}
	wantNote(t, res, "topology spread ranking: nodes [n2 n3] are referenced by pods but not in the scenario; their pods get spread rank 0 (as upstream when a node cannot be fetched)")
	wantNote(t, res, "scale-in spread ranks follow the controller's code ((n-i)*ln(D+2) per topology, larger domains lose pods first), not the example of the design proposal (update-and-ordering 8.5, 11.2)")

	// Without spread constraints the note does not appear.
	res = newWorld(1, pod("b1", revB), pod("b2", revB)).atRest(revB).plan(t)
	wantNoNoteWith(t, res, "spread ranks")
}

// With PVC reuse, a free id held by a terminating pod is reused for the new
// pod, whose creation will collide (scale-and-budgets 5.5, example 8.12).
func TestReusedIDCollision(t *testing.T) {
	w := newWorld(2, pod("b1", revB), pod("web-fghij", revB, terminating, label(model.LabelInstanceID, "fghij"))).atRest(revB)
	w.cs.Spec.ScaleStrategy.EnablePVCReuse = true
	w.cs.Spec.VolumeClaimTemplates = []model.VolumeClaimTemplate{{Name: "data"}}
	w.s.PVCs = []*model.PVC{pvcOf("b1"), pvcOf("fghij")}
	res := w.plan(t)
	c := ofType(res, model.ActionCreatePod)
	if len(c) != 1 || c[0].Pod != "web-fghij" || !slices.Equal(c[0].ReusePVCs, []string{"data-web-fghij"}) || len(c[0].CreatePVCs) != 0 {
		t.Fatalf("want CreatePod web-fghij reusing data-web-fghij, got %+v", c)
	}
	prefix := "reused instance ids collide with pods that still exist (terminating or terminal): "
	suffix := "; upstream's creation fails with AlreadyExists until they are gone (quirk, scale-and-budgets 5.5, kruise issues #1099/#1433)"
	if !slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.HasPrefix(n, prefix) && strings.HasSuffix(n, suffix) && strings.Contains(n, "fghij")
	}) {
		t.Errorf("no collision note: %q", res.Notes)
	}

	// Reuse off: the PVC of the terminating pod is handed to it, and the new pod
	// gets a fresh id and a fresh PVC.
	w.cs.Spec.ScaleStrategy.EnablePVCReuse = false
	res = w.plan(t)
	if o := ofType(res, model.ActionSetPVCOwner); len(o) != 1 || o[0].PVC != "data-web-fghij" || o[0].Pod != "web-fghij" {
		t.Errorf("want SetPVCOwner data-web-fghij -> web-fghij, got %q", acts(res))
	}
	c = ofType(res, model.ActionCreatePod)
	if len(c) != 1 || c[0].Pod == "web-fghij" || len(c[0].CreatePVCs) != 1 {
		t.Errorf("want a fresh pod with a fresh PVC, got %+v", c)
	}
	wantNoNoteWith(t, res, "collide")
}

// The same snapshot with its objects in another order gives the same plan: the
// notes about objects left out are written in kind/name order, not input order.
func TestSetAsideOrderDoesNotChangeThePlan(t *testing.T) {
	doc := func(pods ...string) []byte {
		var b bytes.Buffer
		b.WriteString(`apiVersion: apps.kruise.io/v1beta1
kind: CloneSet
metadata: {name: web, namespace: default, uid: uid-web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: main, image: img:v1}]}
`)
		for _, p := range pods {
			b.WriteString("---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + p + ", namespace: default, labels: {app: other}}\n")
		}
		return b.Bytes()
	}
	plan := func(data []byte) string {
		s, err := manifest.LoadBytes(data, "s.yaml")
		if err != nil {
			t.Fatal(err)
		}
		return string(mustJSONT(t, mustPlan(t, s)))
	}
	if a, b := plan(doc("x", "y")), plan(doc("y", "x")); a != b {
		t.Errorf("the order of the objects changes the plan:\n%s\n%s", a, b)
	}
}

func mustJSONT(t *testing.T, res *clonesetcore.Result) []byte {
	t.Helper()
	b, err := res.JSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// noteFormat matches the format strings of the planner's notes in its source:
// notes.add("..."), sprintf("...") building the budget sentences.
var noteFormat = regexp.MustCompile(`(?:notes\.add|sprintf)\("((?:[^"\\]|\\.)*)"`)

// verb matches a formatting verb.
var verb = regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z%]`)

// TestEveryNoteIsAsserted reads the planner's source and checks that every
// note sentence it can write is asserted by a test of this package: every
// literal piece (8 characters or more) between the formatting verbs of every
// note format must appear in a test file. A new note without a test fails here.
func TestEveryNoteIsAsserted(t *testing.T) {
	srcs, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var code, tests strings.Builder
	for _, f := range srcs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, "_test.go") {
			tests.Write(b)
			continue
		}
		code.Write(b)
	}
	testText := tests.String()
	formats := noteFormat.FindAllStringSubmatch(code.String(), -1)
	if len(formats) < 30 {
		t.Fatalf("found only %d note formats in the planner's source; the pattern is out of date", len(formats))
	}
	for _, m := range formats {
		for _, piece := range verb.Split(m[1], -1) {
			if len(piece) < 8 {
				continue
			}
			if !strings.Contains(testText, piece) {
				t.Errorf("note format %q: no test asserts %q", m[1], piece)
			}
		}
	}
}

// TestMarkPodNotReadyWithoutGate: of two pods moved to PreparingDelete by a
// hook with markPodNotReady, the one with the KruisePodReady readiness gate is
// marked not ready and the one without is not (the effective flag,
// docs/spec/DECISIONS.md); the note says why.
func TestMarkPodNotReadyWithoutGate(t *testing.T) {
	s, err := manifest.LoadFiles([]string{"../testdata/scenarios/mark-pod-not-ready/gate-present-and-absent.yaml"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := mustPlan(t, s)
	marks := map[string]bool{}
	for _, a := range ofType(res, model.ActionSetLifecycleState) {
		marks[a.Pod] = a.MarkPodNotReady
	}
	if want := map[string]bool{"sample-j6c4s": true, "sample-ns85c": false}; !maps.Equal(marks, want) {
		t.Errorf("markPodNotReady by pod %v, want %v", marks, want)
	}
	wantNote(t, res, "markPodNotReady has no effect on sample-ns85c: no KruisePodReady readiness gate, so no not-ready key is written (only pods with that gate can be marked not ready)")
}
