package clonesetcore_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/model"
	"pgregory.net/rapid"
)

// oldRevision is a stored ControllerRevision of CloneSet web with its own
// template (image img:<name>), numbered n, created n hours before the oldest
// built revision.
func oldRevision(name string, n int64) *model.Revision {
	tree := templateTree(revA, false)
	tree["spec"] = map[string]any{"containers": []any{map[string]any{"name": "main", "image": "img:" + name}}}
	return &model.Revision{
		Name: name, Revision: n, CreationTimestamp: t0.Add(-time.Duration(100-n) * time.Hour),
		Labels: map[string]string{"app": "web"}, HasTemplate: true, Template: model.PodTemplate{Raw: tree},
	}
}

// revisionActs renders the plan's revision actions (as act does) with their
// positions: "0 CreateRevision web-x #3", "5 DeleteRevision web-old1".
func revisionActs(res *clonesetcore.Result) []string {
	var out []string
	for i, a := range res.Actions {
		switch a.Type {
		case model.ActionCreateRevision, model.ActionUpdateRevision, model.ActionDeleteRevision:
			out = append(out, fmt.Sprintf("%d %s", i, act(a)))
		}
	}
	return out
}

func wantRevisionActs(t *testing.T, res *clonesetcore.Result, want ...string) {
	t.Helper()
	if got := revisionActs(res); !slices.Equal(got, want) {
		t.Errorf("revision actions:\n  got  %q\n  want %q\nall actions: %q\nnotes: %q", got, want, acts(res), res.Notes)
	}
}

// derivedName is the name the library gives the template of rev under the
// collision count c.
func derivedName(rev string, c int32) string {
	data, err := model.RevisionData(podTemplate(rev))
	if err != nil {
		panic(err) // the test templates are readable
	}
	return model.RevisionName("web", model.TemplateHash(data, c))
}

// TestCreateRevision: no stored revision equals spec.template, so the round
// creates the update revision (LSV 2.3) first, numbered highest + 1 (1 when none).
func TestCreateRevision(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stored []*model.Revision
		want   int64
	}{
		{"none stored", nil, 1},
		{"two stored", []*model.Revision{revision(revA), revision(revB)}, 3},
		{"numbers with gaps", []*model.Revision{oldRevision("web-x", 7), revision(revA)}, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(2, pod("a1", revA), pod("a2", revA)).maxUnavail(1)
			w.cs.Spec.Template = podTemplate(revC)
			w.s.Revisions = tc.stored
			res := w.plan(t)
			name := derivedName(revC, 0)
			if res.UpdateRevision != name || res.Status.UpdateRevision != name {
				t.Errorf("update revision %s (status %s), want %s", res.UpdateRevision, res.Status.UpdateRevision, name)
			}
			wantRevisionActs(t, res, fmt.Sprintf("0 CreateRevision %s #%d", name, tc.want))
			wantNote(t, res, fmt.Sprintf("ControllerRevision %s is created with revision %d (the newest stored revision's number + 1)", name, tc.want))
			if a := res.Actions[0]; a.Reason != "no ControllerRevision equals spec.template: the update revision is created" {
				t.Errorf("reason %q", a.Reason)
			}
		})
	}
}

// TestCreateRevisionCollision: a stored revision holding the derived name with
// another template makes the collision count grow and the name be hashed
// again, until the name is free; status.collisionCount carries the final count.
func TestCreateRevisionCollision(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start *int32 // status.collisionCount
		taken []int32
		want  int32
	}{
		{"no collision", nil, nil, 0},
		{"stored count, no collision", ptr(int32(3)), nil, 3},
		{"one collision", nil, []int32{0}, 1},
		{"two collisions", nil, []int32{0, 1}, 2},
		{"from a stored count", ptr(int32(4)), []int32{4}, 5},
		{"a taken name the count has passed", ptr(int32(2)), []int32{0, 1}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(1, pod("a1", revA)).atRest(revA)
			w.cs.Spec.Template = podTemplate(revC)
			w.cs.Status.CollisionCount = tc.start
			w.s.Revisions = []*model.Revision{revision(revA)}
			for i, c := range tc.taken {
				w.s.Revisions = append(w.s.Revisions, oldRevision(derivedName(revC, c), int64(2+i)))
			}
			res := w.plan(t)
			name := derivedName(revC, tc.want)
			if res.UpdateRevision != name || res.Status.CollisionCount != tc.want {
				t.Errorf("update revision %s, collisionCount %d; want %s and %d", res.UpdateRevision, res.Status.CollisionCount, name, tc.want)
			}
			wantRevisionActs(t, res, fmt.Sprintf("0 CreateRevision %s #%d", name, 2+len(tc.taken)))
			var start int32
			if tc.start != nil {
				start = *tc.start
			}
			if slices.Contains(tc.taken, start) {
				first := derivedName(revC, start)
				wantNote(t, res, fmt.Sprintf("revision name %s derived from spec.template with collisionCount %d is taken by a ControllerRevision with a different template: collisionCount becomes %d and the name is hashed again", first, start, start+1))
			} else {
				wantNoNoteWith(t, res, "is hashed again")
			}
		})
	}
}

// TestRollbackBump: the stored revision equal to spec.template is not the
// newest in the sort order (number, creation time, name): upstream gives it
// the newest number + 1 (LSV 2.3); no write when it is already the newest.
func TestRollbackBump(t *testing.T) {
	tie := revision(revA)
	tie.Revision = 2 // same number as revB, created earlier: sorts before it
	dupA := revision(revA)
	dupA.Name, dupA.Revision = "web-1b", 3
	for _, tc := range []struct {
		name     string
		template string
		stored   []*model.Revision
		update   string
		want     []string
		note     string
	}{
		{"roll-back", revA, []*model.Revision{revision(revA), revision(revB)}, revA,
			[]string{"0 UpdateRevision web-1 #3"},
			"roll-back: ControllerRevision web-1 equals spec.template but web-2 is newer: its revision 1 becomes 3 and it is the update revision again"},
		{"roll-back past several", revA, []*model.Revision{revision(revA), revision(revB), revision(revC)}, revA,
			[]string{"0 UpdateRevision web-1 #4"},
			"roll-back: ControllerRevision web-1 equals spec.template but web-3 is newer: its revision 1 becomes 4 and it is the update revision again"},
		{"tie on the highest number", revA, []*model.Revision{tie, revision(revB)}, revA,
			[]string{"0 UpdateRevision web-1 #3"},
			"roll-back: ControllerRevision web-1 equals spec.template but web-2 is newer: its revision 2 becomes 3 and it is the update revision again"},
		{"equal revision is the newest", revB, []*model.Revision{revision(revA), revision(revB)}, revB, nil, ""},
		{"the newest of two equal revisions is the newest", revA, []*model.Revision{revision(revA), revision(revB), dupA}, "web-1b", nil, ""},
		{"single stored revision", revB, []*model.Revision{revision(revB)}, revB, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(1, pod("a1", revA)).maxUnavail(1)
			w.cs.Spec.Template = podTemplate(tc.template)
			w.s.Revisions = tc.stored
			res := w.plan(t)
			if res.UpdateRevision != tc.update {
				t.Errorf("update revision %s, want %s", res.UpdateRevision, tc.update)
			}
			wantRevisionActs(t, res, tc.want...)
			if tc.note != "" {
				wantNote(t, res, tc.note)
				if a := res.Actions[0]; a.Reason != fmt.Sprintf("roll-back: the revision equal to spec.template becomes the newest (revision %d to %d)", tc.stored[0].Revision, a.RevisionNumber) {
					t.Errorf("reason %q", a.Reason)
				}
			} else {
				wantNoNoteWith(t, res, "roll-back")
			}
		})
	}
}

// historyWorld: current revA (number 6), update revB (number 7), five unused
// older revisions web-o1..web-o5 (numbers 1..5) of which web-o2 is used by pod
// x2 (full name) and web-o4 by pod x4 (short hash), and pods at revA and revB.
func historyWorld(limit *int32) *world {
	w := newWorld(4, pod("a1", revA), pod("b1", revB), pod("x2", "web-o2"), pod("x4", "web-o4")).maxUnavail(1).partition(4)
	w.cs.Spec.RevisionHistoryLimit = limit
	a, b := revision(revA), revision(revB)
	a.Revision, b.Revision = 6, 7
	w.s.Revisions = []*model.Revision{b, a}
	for i := int64(5); i >= 1; i-- {
		w.s.Revisions = append(w.s.Revisions, oldRevision(fmt.Sprintf("web-o%d", i), i))
	}
	for _, p := range w.s.Pods {
		if p.Name == "x4" {
			p.Labels[model.LabelRevisionHash] = "o4"
		}
	}
	return w
}

// TestTruncateHistory: the revisions neither current, update nor any observed
// pod's are deleted oldest-first until at most revisionHistoryLimit (absent:
// 10) remain (LSV 2.7), as the last actions of the plan.
func TestTruncateHistory(t *testing.T) {
	note := func(limit int, names string) string {
		return fmt.Sprintf("revision history: 3 unused ControllerRevisions (neither current, update, nor any pod's) exceed revisionHistoryLimit %d: the oldest are deleted: %s", limit, names)
	}
	for _, tc := range []struct {
		name  string
		limit *int32
		want  []string
		note  string
	}{
		{"limit absent (10)", nil, nil, ""},
		{"limit 10", ptr(int32(10)), nil, ""},
		{"limit 3", ptr(int32(3)), nil, ""},
		{"limit 2", ptr(int32(2)), []string{"DeleteRevision web-o1"}, note(2, "web-o1")},
		{"limit 0", ptr(int32(0)), []string{"DeleteRevision web-o1", "DeleteRevision web-o3", "DeleteRevision web-o5"}, note(0, "web-o1, web-o3, web-o5")},
		{"limit negative", ptr(int32(-1)), []string{"DeleteRevision web-o1", "DeleteRevision web-o3", "DeleteRevision web-o5"}, note(0, "web-o1, web-o3, web-o5")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := historyWorld(tc.limit).plan(t)
			var got []string
			for _, a := range res.Actions {
				if a.Type == model.ActionDeleteRevision {
					got = append(got, act(a))
					if want := fmt.Sprintf("history beyond revisionHistoryLimit %d (after the status write; upstream skips it when that write fails)", max(0, *tc.limit)); a.Reason != want {
						t.Errorf("reason %q, want %q", a.Reason, want)
					}
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("deleted %q, want %q\nnotes %q", got, tc.want, res.Notes)
			}
			// The deletions are the last actions.
			if n := len(tc.want); n > 0 && !slices.Equal(acts(res)[len(res.Actions)-n:], tc.want) {
				t.Errorf("the deletions are not the last actions: %q", acts(res))
			}
			if tc.note != "" {
				wantNote(t, res, tc.note)
			} else {
				wantNoNoteWith(t, res, "revision history")
			}
			if tc.limit != nil && *tc.limit < 0 {
				wantNote(t, res, "revisionHistoryLimit -1 is negative: planned as 0 (upstream slices its history list past its end)")
			}
		})
	}
}

// TestTruncateHistoryKeeps: the current revision the round started with is
// kept even when the status advances currentRevision this round; the update
// revision, even unused and created this round, is never deleted; deletions
// follow UpdatePodsToDelete.
func TestTruncateHistoryKeeps(t *testing.T) {
	// Every pod at revB: currentRevision advances from revA to revB, but the
	// round's current revision revA is kept (upstream passes the revision it
	// started with).
	w := newWorld(1, pod("b1", revB)).maxUnavail(1).podsToDelete("gone")
	w.cs.Spec.RevisionHistoryLimit = ptr(int32(0))
	w.s.Revisions = append(w.s.Revisions, oldRevision("web-o1", 0))
	res := w.plan(t)
	if res.Status.CurrentRevision != revB || res.CurrentRevision != revA {
		t.Fatalf("current revision %s, status %s; want %s and %s", res.CurrentRevision, res.Status.CurrentRevision, revA, revB)
	}
	wantActs(t, res, "UpdatePodsToDelete remove [gone]", "DeleteRevision web-o1")

	// A new template: the created revision is the update revision, revA the
	// current one; revB (used by no pod) goes.
	w = newWorld(1, pod("a1", revA)).maxUnavail(1)
	w.cs.Spec.Template = podTemplate(revC)
	w.cs.Spec.RevisionHistoryLimit = ptr(int32(0))
	res = w.plan(t)
	wantRevisionActs(t, res, fmt.Sprintf("0 CreateRevision %s #3", derivedName(revC, 0)), fmt.Sprintf("%d DeleteRevision %s", len(res.Actions)-1, revB))

	// A CloneSet being deleted still resolves and truncates its revisions.
	w = newWorld(1, pod("a1", revA)).maxUnavail(1)
	w.cs.DeletionTimestamp = t0.Add(-time.Minute)
	w.cs.Spec.Template = podTemplate(revC)
	w.cs.Spec.RevisionHistoryLimit = ptr(int32(0))
	res = w.plan(t)
	wantActs(t, res, fmt.Sprintf("CreateRevision %s #3", derivedName(revC, 0)), "DeleteRevision "+revB)
}

// applyRevisionActions returns the stored revisions after the plan's revision
// writes, as the API server would hold them.
func applyRevisionActions(s *model.Scenario, res *clonesetcore.Result) []*model.Revision {
	var out []*model.Revision
	deleted := map[string]bool{}
	for _, a := range res.Actions {
		if a.Type == model.ActionDeleteRevision {
			deleted[a.Revision] = true
		}
	}
	for _, r := range s.Revisions {
		if deleted[r.Name] {
			continue
		}
		c := *r
		for _, a := range res.Actions {
			if a.Type == model.ActionUpdateRevision && a.Revision == r.Name {
				c.Revision = a.RevisionNumber
			}
		}
		out = append(out, &c)
	}
	for _, a := range res.Actions {
		if a.Type == model.ActionCreateRevision {
			out = append(out, &model.Revision{
				Name: a.Revision, Revision: a.RevisionNumber, CreationTimestamp: s.Now,
				Labels: map[string]string{"app": "web"}, HasTemplate: true, Template: s.CloneSet.Spec.Template,
			})
		}
	}
	return out
}

// TestRevisionActionsIdempotent: on random worlds (with extra unused old
// revisions and a random revisionHistoryLimit), once the plan's revision
// writes are applied to the stored revisions, planning again emits no revision
// action and keeps the update revision and collision count.
func TestRevisionActionsIdempotent(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		ws := genWorld(rapidSource{rt})
		if err := validWorld(ws); err != nil {
			rt.Skip("invalid world")
		}
		s := ws.build(identity)
		for i := range rapid.IntRange(0, 5).Draw(rt, "oldRevisions") {
			name := fmt.Sprintf("web-o%d", i)
			s.Revisions = append(s.Revisions, oldRevision(name, rapid.Int64Range(0, 6).Draw(rt, "number/"+name)))
		}
		if l := rapid.IntRange(-1, 4).Draw(rt, "limit"); l >= 0 {
			s.CloneSet.Spec.RevisionHistoryLimit = ptr(int32(l))
		} else {
			s.CloneSet.Spec.RevisionHistoryLimit = nil
		}
		res, err := clonesetcore.Plan(s)
		if err != nil {
			rt.Fatalf("Plan: %v", err)
		}
		if v := invariantViolations(s, res); len(v) > 0 {
			rt.Fatalf("invariants broken: %q", v)
		}
		s.Revisions = applyRevisionActions(s, res)
		s.CloneSet.Status.CollisionCount = ptr(res.Status.CollisionCount)
		again, err := clonesetcore.Plan(s)
		if err != nil {
			rt.Fatalf("Plan: %v", err)
		}
		if got := revisionActs(again); len(got) > 0 {
			rt.Fatalf("replanning after the revision writes emits %q (first plan %q)", got, revisionActs(res))
		}
		if again.UpdateRevision != res.UpdateRevision || again.Status.CollisionCount != res.Status.CollisionCount {
			rt.Fatalf("update revision %s collisionCount %d, first plan %s %d",
				again.UpdateRevision, again.Status.CollisionCount, res.UpdateRevision, res.Status.CollisionCount)
		}
	})
}

// TestRevisionActionsText: the text output describes the three revision
// actions with their reasons.
func TestRevisionActionsText(t *testing.T) {
	w := historyWorld(ptr(int32(0)))
	w.cs.Spec.Template = podTemplate(revC)
	res := w.plan(t)
	rb := newWorld(1, pod("a1", revA)).maxUnavail(1)
	rb.cs.Spec.Template = podTemplate(revA)
	res.Actions = append(res.Actions, rb.plan(t).Actions[0])
	var b strings.Builder
	if err := res.WriteText(&b, w.s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		fmt.Sprintf("1. create ControllerRevision %s with revision 8 (spec.template): no ControllerRevision equals spec.template: the update revision is created", derivedName(revC, 0)),
		"delete ControllerRevision web-o1: history beyond revisionHistoryLimit 0 (after the status write; upstream skips it when that write fails)",
		"set the revision of ControllerRevision web-1 to 3 (it becomes the newest): roll-back: the revision equal to spec.template becomes the newest (revision 1 to 3)",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, b.String())
		}
	}
}

// TestStoredRevisionsEqualByMeaning: a stored revision is the update
// revision when its template means spec.template (model.TemplatesEqual),
// whatever bytes wrote it: upstream's own data (the typed encoding, with
// "resources":{} and canonical quantities), the library's before it wrote
// upstream's data (the template as written, "$patch" aside), a template
// that spells a quantity otherwise or carries an unknown member. Its name is
// kept, whatever it is, so pods labeled with it stay where they are: no
// revision is created, no pod is touched.
func TestStoredRevisionsEqualByMeaning(t *testing.T) {
	spec := func(cpu any, extra map[string]any) map[string]any {
		c := map[string]any{"name": "main", "image": imageOf(revB), "resources": map[string]any{"limits": map[string]any{"cpu": cpu}}}
		for k, v := range extra {
			c[k] = v
		}
		return map[string]any{"containers": []any{c}}
	}
	template := model.PodTemplate{Labels: map[string]string{"app": "web"}, Raw: map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"app": "web"}}, "spec": spec("1000m", nil)}}
	for _, tc := range []struct {
		name string
		raw  map[string]any
	}{
		{"upstream's typed encoding", map[string]any{"$patch": "replace",
			"metadata": map[string]any{"creationTimestamp": nil, "labels": map[string]any{"app": "web"}}, "spec": spec("1", nil)}},
		{"the template as written (the library before)", map[string]any{"$patch": "replace",
			"metadata": map[string]any{"labels": map[string]any{"app": "web"}}, "spec": spec("1000m", nil)}},
		{"an unknown member and a number for the quantity", map[string]any{
			"metadata": map[string]any{"labels": map[string]any{"app": "web"}}, "spec": spec(1, map[string]any{"x-note": "kept by nobody"})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(2, pod("b1", "web-5d447f78c"), pod("b2", "web-5d447f78c")).atRest("web-5d447f78c")
			w.cs.Spec.Template = template
			stored := revision(revB)
			stored.Name = "web-5d447f78c" // a name no longer derived from the data
			stored.Template = model.PodTemplate{Raw: tc.raw}
			w.s.Revisions = []*model.Revision{revision(revA), stored}
			res := w.plan(t)
			if res.UpdateRevision != stored.Name {
				t.Fatalf("update revision %s, want the stored %s; notes %q", res.UpdateRevision, stored.Name, res.Notes)
			}
			if len(res.Actions) != 0 {
				t.Errorf("actions %q, want none", acts(res))
			}
		})
	}
}

// TestUnreadableStoredRevision: a stored revision whose template the API
// types cannot read (here a port written as a string) equals no template:
// the round creates the update revision and says why.
func TestUnreadableStoredRevision(t *testing.T) {
	w := newWorld(1, pod("a1", revA)) // spec.template is revB's
	bad := revision(revB)
	bad.Template.Raw = templateTree(revB, false)
	bad.Template.Raw["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["ports"] = []any{map[string]any{"containerPort": "80"}}
	w.s.Revisions = []*model.Revision{revision(revA), bad}
	res := w.plan(t)
	wantNote(t, res, "ControllerRevision web-2: its template is not readable by the API types (spec.containers[0].ports[0].containerPort: \"80\": expected an integer (int32), got a string): it equals no template")
	wantRevisionActs(t, res, fmt.Sprintf("0 CreateRevision %s #3", derivedName(revB, 0)))
}

// TestPlanRefusesUnreadableTemplate: a spec.template the API types cannot
// read (which admission refuses; a scenario built in code can hold one) is
// an error naming the CloneSet and the member, from Plan and from a Tracker.
func TestPlanRefusesUnreadableTemplate(t *testing.T) {
	w := newWorld(1, pod("a1", revA)).atRest(revA)
	w.cs.Spec.Template.Raw = templateTree(revB, false)
	w.cs.Spec.Template.Raw["spec"].(map[string]any)["hostNetwork"] = "yes"
	const want = `CloneSet default/web: spec.template.spec.hostNetwork: "yes": expected true or false, got a string`
	if _, err := clonesetcore.Plan(w.s); err == nil || err.Error() != want {
		t.Errorf("Plan: %v\nwant %s", err, want)
	}
	tr := clonesetcore.NewTracker(w.s.Gates, w.s.Controller)
	tr.Sync(w.s)
	if _, err := tr.Plan(w.s.Now); err == nil || err.Error() != want {
		t.Errorf("Tracker.Plan: %v\nwant %s", err, want)
	}
	if _, _, err := clonesetcore.NewRevision(w.cs, 1, 0); err == nil || err.Error() != want {
		t.Errorf("NewRevision: %v\nwant %s", err, want)
	}
	// Mended, the template plans again, and the Tracker that refused it
	// plans as Plan does.
	fixed := w.cs.DeepCopy()
	fixed.Spec.Template.Raw["spec"].(map[string]any)["hostNetwork"] = true
	w.s.CloneSet = fixed
	plan, err := clonesetcore.Plan(w.s)
	if err != nil {
		t.Fatal(err)
	}
	tr.Sync(w.s)
	got, err := tr.Plan(w.s.Now)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := plan.JSON()
	b, _ := got.JSON()
	if string(a) != string(b) || len(plan.Actions) == 0 {
		t.Errorf("after the mend the Tracker plans\n%s\nPlan plans\n%s", b, a)
	}
}

// TestNewRevisionIsUpstreams: the revision upstream builds for a CloneSet:
// named and labeled with the hash of its data, the template's labels, the
// CloneSet's annotations and the volume-claim-template hash.
func TestNewRevisionIsUpstreams(t *testing.T) {
	w := newWorld(1)
	w.cs.Annotations = map[string]string{"note": "x", model.AnnotationVCTHash: "overwritten"}
	w.cs.Spec.Template.Labels = map[string]string{"app": "web", "tier": "front"}
	rev, data, err := clonesetcore.NewRevision(w.cs, 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	wantData, _ := model.RevisionData(w.cs.Spec.Template)
	hash := model.TemplateHash(wantData, 2)
	if string(data) != string(wantData) || rev.Name != "web-"+hash || rev.Revision != 4 || !rev.HasTemplate {
		t.Errorf("revision %s #%d, data %s", rev.Name, rev.Revision, data)
	}
	if want := map[string]string{"app": "web", "tier": "front", model.LabelControllerRevisionHash: hash}; !maps.Equal(rev.Labels, want) {
		t.Errorf("labels %v, want %v", rev.Labels, want)
	}
	if want := map[string]string{"note": "x", model.AnnotationVCTHash: ""}; !maps.Equal(rev.Annotations, want) {
		t.Errorf("annotations %v, want %v", rev.Annotations, want)
	}
}

// TestRequestAboveLimitIsPlanned: a container request above its limit, which
// the webhook refuses, is planned as the controller plans it (it builds the
// revision: testdata/conformance-revnames 0046 and 0095), with a note.
func TestRequestAboveLimitIsPlanned(t *testing.T) {
	w := newWorld(1, pod("a1", revA))
	c := &w.cs.Spec.Template.Spec.Containers[0]
	c.Resources = model.ResourceRequirements{Requests: map[string]model.Quantity{"memory": model.MustParseQuantity("512M")},
		Limits: map[string]model.Quantity{"memory": model.MustParseQuantity("0.5G")}}
	w.cs.Spec.Template.Raw = model.TemplateTree(w.cs.Spec.Template)
	res := w.plan(t)
	wantNote(t, res, "the webhook would reject this CloneSet (spec.template.spec.containers[0].resources.requests: must be less than or equal to memory limit of 0.5G); planning it anyway, as the controller does: it builds the revision and the pods of such a template")
	wantRevisionActs(t, res, "0 CreateRevision "+res.UpdateRevision+" #3")
}
