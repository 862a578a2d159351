package clonesetcore_test

// A compact builder of small scenarios for the planner tests, and the invariant
// checker every plan of these tests goes through.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/model"
)

// t0 is the clock of every built scenario.
var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// The three revisions of the built worlds: revA (image img:v1), revB (image
// img:v2, an in-place change from revA) and revC (img:v1 plus an env var, a
// change that can only be made by recreating the pod).
const (
	revA = "web-1"
	revB = "web-2"
	revC = "web-3"
)

// hookFinalizer is the finalizer of the lifecycle hooks the tests configure.
const hookFinalizer = "example.com/drain"

func templateTree(rev string, spread bool) map[string]any {
	c := map[string]any{"name": "main", "image": imageOf(rev)}
	if rev == revC {
		c["env"] = []any{map[string]any{"name": "B", "value": "2"}}
	}
	spec := map[string]any{"containers": []any{c}}
	if spread {
		spec["topologySpreadConstraints"] = []any{map[string]any{"topologyKey": "zone", "maxSkew": json.Number("1")}}
	}
	return map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
		"spec":     spec,
	}
}

func imageOf(rev string) string {
	if rev == revB {
		return "img:v2"
	}
	return "img:v1"
}

// podTemplate returns the template of a revision, typed and raw.
func podTemplate(rev string) model.PodTemplate { return templateFor(rev, false) }

// templateFor is podTemplate, with a topology spread constraint on key "zone"
// when spread is set.
func templateFor(rev string, spread bool) model.PodTemplate {
	c := model.Container{Name: "main", Image: imageOf(rev)}
	if rev == revC {
		c.Env = []model.EnvVar{{Name: "B", Value: "2", HasValue: true}}
	}
	t := model.PodTemplate{
		Labels: map[string]string{"app": "web"},
		Spec:   model.PodSpec{Containers: []model.Container{c}},
		Raw:    templateTree(rev, spread),
	}
	if spread {
		t.Spec.TopologySpreadConstraints = []model.TopologySpreadConstraint{{TopologyKey: "zone"}}
	}
	return t
}

func revision(name string) *model.Revision { return revisionFor(name, false) }

func revisionFor(name string, spread bool) *model.Revision {
	n := map[string]int64{revA: 1, revB: 2, revC: 3}[name]
	return &model.Revision{
		Name: name, Revision: n, CreationTimestamp: t0.Add(-time.Duration(10-n) * time.Hour),
		Labels: map[string]string{"app": "web"}, HasTemplate: true, Template: templateFor(name, spread),
	}
}

// world is a scenario under construction: CloneSet "web" (namespace default,
// uid uid-web) selecting app=web, template of revB, status.currentRevision revA,
// revisions revA and revB, RollingUpdate/ReCreate with the webhook defaults.
type world struct {
	s  *model.Scenario
	cs *model.CloneSet
}

func newWorld(replicas int32, pods ...*model.Pod) *world {
	cs := &model.CloneSet{
		APIVersion: model.APIVersionV1beta1, Name: "web", Namespace: "default", UID: "uid-web", Generation: 2,
		Labels: map[string]string{"app": "web"},
	}
	cs.Spec.Replicas = &replicas
	cs.Spec.Selector = &model.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	cs.Spec.Template = podTemplate(revB)
	cs.Spec.UpdateStrategy.Type = model.UpdateStrategyRollingUpdate
	model.SetDefaults(cs)
	cs.Status = model.CloneSetStatus{ObservedGeneration: 1, CurrentRevision: revA, UpdateRevision: revA}
	s := &model.Scenario{
		Now: t0, Gates: model.DefaultFeatureGates(), CloneSet: cs,
		Revisions: []*model.Revision{revision(revA), revision(revB)},
	}
	w := &world{s: s, cs: cs}
	return w.add(pods...)
}

func (w *world) add(pods ...*model.Pod) *world {
	w.s.Pods = append(w.s.Pods, pods...)
	return w
}

func (w *world) ru() *model.RollingUpdateStrategy { return w.cs.Spec.UpdateStrategy.RollingUpdate }

func ptr[T any](v T) *T { return &v }

func intv(v int32) *model.IntOrPercent     { return ptr(model.FromInt(v)) }
func strv(s string) *model.IntOrPercent    { return ptr(model.FromString(s)) }
func (w *world) partition(v int32) *world  { w.ru().Partition = intv(v); return w }
func (w *world) maxSurge(v int32) *world   { w.ru().MaxSurge = intv(v); return w }
func (w *world) maxUnavail(v int32) *world { w.ru().MaxUnavailable = intv(v); return w }
func (w *world) minReady(m int32) *world   { w.cs.Spec.MinReadySeconds = m; return w }

// policy sets the pod update policy (and the empty in-place strategy the
// webhook adds for the in-place policies).
func (w *world) policy(p string) *world {
	w.ru().PodUpdatePolicy = p
	if p != model.PolicyReCreate && w.ru().InPlaceUpdateStrategy == nil {
		w.ru().InPlaceUpdateStrategy = &model.InPlaceUpdateStrategy{}
	}
	return w
}

func (w *world) grace(sec int32) *world {
	w.policy(model.PolicyInPlaceIfPossible)
	w.ru().InPlaceUpdateStrategy.GracePeriodSeconds = sec
	return w
}

// atRest makes rev both the template's revision and the current revision.
func (w *world) atRest(rev string) *world {
	w.cs.Spec.Template = podTemplate(rev)
	w.cs.Status.CurrentRevision, w.cs.Status.UpdateRevision = rev, rev
	return w
}

// target makes rev the template's revision, adding its ControllerRevision.
func (w *world) target(rev string) *world {
	w.cs.Spec.Template = podTemplate(rev)
	if !slices.ContainsFunc(w.s.Revisions, func(r *model.Revision) bool { return r.Name == rev }) {
		w.s.Revisions = append(w.s.Revisions, revision(rev))
	}
	return w
}

func (w *world) onDelete() *world {
	w.cs.Spec.UpdateStrategy = model.UpdateStrategy{Type: model.UpdateStrategyOnDelete}
	return w
}

// preDelete installs lifecycle.preDelete with the hook finalizer.
func (w *world) preDelete(markPodNotReady bool) *world {
	if w.cs.Spec.Lifecycle == nil {
		w.cs.Spec.Lifecycle = &model.Lifecycle{}
	}
	w.cs.Spec.Lifecycle.PreDelete = &model.LifecycleHook{FinalizersHandler: []string{hookFinalizer}, MarkPodNotReady: markPodNotReady}
	return w
}

func (w *world) podsToDelete(names ...string) *world {
	w.cs.Spec.ScaleStrategy.PodsToDelete = names
	return w
}

// podOpt changes a built pod.
type podOpt func(*model.Pod)

// pod returns an observed pod of revision rev (rev "" means no revision label):
// instance id = name, owned by the CloneSet, Normal, Running on node
// "node-<name>", Ready for an hour, created two hours before t0, listing the
// InPlaceUpdateReady gate with that condition True, pod-template-hash set.
func pod(name, rev string, opts ...podOpt) *model.Pod {
	p := &model.Pod{
		Name: name, Namespace: "default", UID: "uid-" + name,
		Labels: map[string]string{
			"app": "web", model.LabelInstanceID: name, model.LabelLifecycleState: model.StateNormal,
			model.LabelPodTemplateHash: model.ShortHash(rev),
		},
		Annotations:       map[string]string{},
		CreationTimestamp: t0.Add(-2 * time.Hour),
		OwnerReferences: []model.OwnerReference{{
			APIVersion: model.APIVersionV1beta1, Kind: "CloneSet", Name: "web", UID: "uid-web", Controller: true,
		}},
		Spec: model.PodSpec{
			NodeName:       "node-" + name,
			Containers:     []model.Container{{Name: "main", Image: imageOf(rev)}},
			ReadinessGates: []string{model.ConditionInPlaceUpdateReady},
		},
		Status: model.PodStatus{Phase: model.PodRunning, Conditions: []model.PodCondition{
			{Type: model.ConditionReady, Status: "True", LastTransitionTime: t0.Add(-time.Hour)},
			{Type: model.ConditionInPlaceUpdateReady, Status: "True", LastTransitionTime: t0.Add(-time.Hour)},
		}},
	}
	if rev != "" {
		p.Labels[model.LabelRevisionHash] = rev
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func state(s string) podOpt {
	return func(p *model.Pod) {
		if s == "" {
			delete(p.Labels, model.LabelLifecycleState)
			return
		}
		p.Labels[model.LabelLifecycleState] = s
	}
}

func notReady(p *model.Pod) {
	p.Status.Conditions[0].Status = "False"
}

// readySince sets the Ready transition time to t0 - d.
func readySince(d time.Duration) podOpt {
	return func(p *model.Pod) { p.Status.Conditions[0].LastTransitionTime = t0.Add(-d) }
}

func createdAgo(d time.Duration) podOpt {
	return func(p *model.Pod) { p.CreationTimestamp = t0.Add(-d) }
}

func specifiedDelete(p *model.Pod) { p.Labels[model.LabelSpecifiedDelete] = "true" }

func hooked(p *model.Pod) { p.Finalizers = append(p.Finalizers, hookFinalizer) }

func unscheduled(p *model.Pod) {
	p.Spec.NodeName = ""
	p.Status.Phase = model.PodPending
}

func terminating(p *model.Pod) { p.DeletionTimestamp = t0.Add(-time.Second) }

func orphan(p *model.Pod) { p.OwnerReferences = nil }

func label(k, v string) podOpt { return func(p *model.Pod) { p.Labels[k] = v } }

func annotate(k, v string) podOpt { return func(p *model.Pod) { p.Annotations[k] = v } }

func onNode(n string) podOpt { return func(p *model.Pod) { p.Spec.NodeName = n } }

// pvcOf returns the PVC "data-<pod>" of an instance id, owned by the CloneSet.
func pvcOf(id string) *model.PVC {
	return &model.PVC{
		Name: "data-web-" + id, Namespace: "default",
		Labels: map[string]string{"app": "web", model.LabelInstanceID: id},
		OwnerReferences: []model.OwnerReference{{
			APIVersion: model.APIVersionV1beta1, Kind: "CloneSet", Name: "web", UID: "uid-web", Controller: true,
		}},
	}
}

// plan runs the planner on the world, fails the test on an error or an
// invariant violation, and returns the plan.
func (w *world) plan(t testing.TB) *clonesetcore.Result {
	t.Helper()
	return mustPlan(t, w.s)
}

func mustPlan(t testing.TB, s *model.Scenario) *clonesetcore.Result {
	t.Helper()
	res, err := clonesetcore.Plan(s)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	if v := invariantViolations(s, res); len(v) > 0 {
		t.Fatalf("plan breaks invariants:\n  %s\nplan:\n%s", strings.Join(v, "\n  "), planJSON(t, res))
	}
	return res
}

func planJSON(t testing.TB, res *clonesetcore.Result) string {
	t.Helper()
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		t.Fatalf("marshal plan: %v", err)
	}
	return string(b)
}

// act renders an action as a short line for comparisons.
func act(a model.Action) string {
	switch a.Type {
	case model.ActionCreatePod:
		return fmt.Sprintf("CreatePod %s@%s batch %d (%s)", a.Pod, a.Revision, a.Batch, a.Reason)
	case model.ActionDeletePod:
		return fmt.Sprintf("DeletePod %s pvcs %v", a.Pod, a.DeletePVCs)
	case model.ActionSetLifecycleState:
		return fmt.Sprintf("SetLifecycleState %s %s->%s notReady=%v", a.Pod, a.From, a.To, a.MarkPodNotReady)
	case model.ActionUpdatePodInPlace:
		return fmt.Sprintf("UpdatePodInPlace %s %s->%s grace %d", a.Pod, a.FromRevision, a.ToRevision, a.GracePeriodSeconds)
	case model.ActionRecreatePod:
		return fmt.Sprintf("RecreatePod %s ->%s", a.Pod, a.ToRevision)
	case model.ActionUpdatePodsToDelete:
		return fmt.Sprintf("UpdatePodsToDelete remove %v", a.Remove)
	case model.ActionDeletePVC:
		return "DeletePVC " + a.PVC
	case model.ActionSetPVCOwner:
		return fmt.Sprintf("SetPVCOwner %s -> %s", a.PVC, a.Pod)
	case model.ActionPatchPod:
		return fmt.Sprintf("PatchPod %s labels %v", a.Pod, a.SetLabels)
	case model.ActionCreateRevision, model.ActionUpdateRevision:
		return fmt.Sprintf("%s %s #%d", a.Type, a.Revision, a.RevisionNumber)
	case model.ActionDeleteRevision:
		return "DeleteRevision " + a.Revision
	case model.ActionCreateImagePullJob:
		return fmt.Sprintf("CreateImagePullJob %s %s=%s", a.ImagePullJob, a.Container, a.Image)
	case model.ActionLabelRevision:
		return fmt.Sprintf("LabelRevision %s %v", a.Revision, a.SetLabels)
	case model.ActionDeleteImagePullJob:
		return "DeleteImagePullJob " + a.ImagePullJob
	}
	return string(a.Type) + " " + a.Pod
}

func acts(res *clonesetcore.Result) []string {
	out := make([]string, len(res.Actions))
	for i, a := range res.Actions {
		out[i] = act(a)
	}
	return out
}

// wantActs fails unless the plan's actions, rendered by act, are exactly want.
func wantActs(t *testing.T, res *clonesetcore.Result, want ...string) {
	t.Helper()
	got := acts(res)
	if !slices.Equal(got, want) {
		t.Errorf("actions:\n  got  %q\n  want %q\nnotes: %q", got, want, res.Notes)
	}
}

// wantNote fails unless the plan carries exactly this note.
func wantNote(t *testing.T, res *clonesetcore.Result, note string) {
	t.Helper()
	if !slices.Contains(res.Notes, note) {
		t.Errorf("missing note %q\nnotes: %q", note, res.Notes)
	}
}

// wantNoNoteWith fails if a note contains the fragment.
func wantNoNoteWith(t *testing.T, res *clonesetcore.Result, fragment string) {
	t.Helper()
	for _, n := range res.Notes {
		if strings.Contains(n, fragment) {
			t.Errorf("unexpected note %q", n)
		}
	}
}

func ofType(res *clonesetcore.Result, typ model.ActionType) []model.Action {
	var out []model.Action
	for _, a := range res.Actions {
		if a.Type == typ {
			out = append(out, a)
		}
	}
	return out
}

// rankNames ranks the world and renders each entry as "<pod> <why>".
func rankNames(w *world, forWhat string) ([]string, error) {
	r, err := clonesetcore.Rank(w.s, forWhat)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(r.Pods))
	for i, p := range r.Pods {
		out[i] = p.Name + " " + p.Why
	}
	return out, nil
}
