package requests

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/inplace"
	"github.com/clonecore/cloneset/lifecycle"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/predownload"
	"github.com/clonecore/cloneset/pvc"
)

// OwnerAPIVersion is the apiVersion of the owner reference the controller
// writes on the objects it creates, whatever the CloneSet's own version
// (docs/spec/scale-and-budgets.md 4.4).
const OwnerAPIVersion = "apps.kruise.io/v1beta1"

// LabelRevisionHashKey is the ControllerRevision label holding the revision's
// hash (model.LabelControllerRevisionHash).
const LabelRevisionHashKey = model.LabelControllerRevisionHash

// Build returns the requests that carry out plan on the scenario it was made
// from, for the newest API servers: BuildWithOptions with the zero Options.
func Build(s *model.Scenario, plan *clonesetcore.Result) ([]Request, error) {
	return BuildWithOptions(s, plan, Options{})
}

// BuildWithOptions returns the requests that carry out plan on the scenario
// it was made from, for the API server opts describe, in the order a
// controller sends them:
//
//  1. the plan's actions in order, each as one or more requests (a pod create
//     is preceded by the creates of its new claims; an in-place update is a
//     status patch, InPlaceUpdateReady False, then, when resources change on
//     a server with the pods/resize subresource, the patch of that
//     subresource, then the pod patch);
//  2. the CloneSet status through the status subresource, unless the plan
//     says the write is skipped (lifecycle-status-validation 2.6);
//  3. the actions upstream takes only after a successful status write: the
//     podsToDelete rewrite and history truncation (2.7).
//
// Every request names the index of its action (Request.Action; -1 for the
// status write). BuildWithOptions fails, naming the action, when the plan
// does not fit the scenario (an action about an object the scenario lacks, a
// revision without a template): a plan from clonesetcore.Plan on the same
// scenario always fits. It fails, naming the option, when opts are not
// valid (Options.Validate).
func BuildWithOptions(s *model.Scenario, plan *clonesetcore.Result, opts Options) ([]Request, error) {
	each, err := ByActionWithOptions(s, plan, opts)
	if err != nil {
		return nil, err
	}
	for i, e := range each.Errors {
		if e != nil {
			a := plan.Actions[i]
			return nil, fmt.Errorf("requests: action %d (%s %s): %w", i, a.Type, actionObject(a), e)
		}
	}
	return each.Ordered(), nil
}

// Requests are the requests of one plan, by action.
type Requests struct {
	// Actions[i] are the requests of the plan's action i, in order (none
	// for an action upstream carries out without a write, such as a
	// recreate of a pod that is already marked).
	Actions [][]Request
	// Errors[i] says why action i does not fit the scenario (nil when it
	// does); its requests are then empty.
	Errors []error
	// Status is the status write, nil when the plan skips it.
	Status *Request
}

// Ordered returns every request in the order a controller sends them (see
// Build): the actions' requests, with the status write before the trailing
// requests upstream sends only after it.
func (r *Requests) Ordered() []Request {
	var out []Request
	trailing := len(r.Actions)
	for trailing > 0 && trailsStatus(r.Actions[trailing-1]) {
		trailing--
	}
	for _, reqs := range r.Actions[:trailing] {
		out = append(out, reqs...)
	}
	if r.Status != nil {
		out = append(out, *r.Status)
	}
	for _, reqs := range r.Actions[trailing:] {
		out = append(out, reqs...)
	}
	return out
}

// trailsStatus reports whether an action's requests are all sent after the
// status write.
func trailsStatus(reqs []Request) bool {
	for _, r := range reqs {
		if !afterStatus(r) {
			return false
		}
	}
	return true
}

// ByAction builds the requests of each action of plan on its own, for the
// newest API servers: ByActionWithOptions with the zero Options.
func ByAction(s *model.Scenario, plan *clonesetcore.Result) (*Requests, error) {
	return ByActionWithOptions(s, plan, Options{})
}

// ByActionWithOptions builds the requests of each action of plan on its
// own, for the API server opts describe, so that a caller can carry out a
// plan action by action and report each (the simulator does). An action that
// does not fit the scenario gets an error and no request; the error of
// ByActionWithOptions itself is for invalid options, a missing scenario,
// CloneSet or plan, or a status that cannot be encoded.
func ByActionWithOptions(s *model.Scenario, plan *clonesetcore.Result, opts Options) (*Requests, error) {
	resize, err := opts.ResizeSubresource()
	if err != nil {
		return nil, err
	}
	if s == nil || s.CloneSet == nil {
		return nil, fmt.Errorf("requests: the scenario has no CloneSet")
	}
	if plan == nil {
		return nil, fmt.Errorf("requests: no plan")
	}
	b := newBuilder(s, plan)
	b.resizeSubresource = resize
	out := &Requests{Actions: make([][]Request, len(plan.Actions)), Errors: make([]error, len(plan.Actions))}
	for i, a := range plan.Actions {
		b.out, b.err = nil, nil
		err := b.action(i, a)
		if err == nil {
			err = b.err
		}
		if err != nil {
			out.Errors[i] = err
			continue
		}
		out.Actions[i] = b.out
	}
	if !plan.Status.WriteSkipped {
		b.out, b.err = nil, nil
		b.status()
		if b.err != nil {
			return nil, fmt.Errorf("requests: status: %w", b.err)
		}
		out.Status = &b.out[0]
	}
	return out, nil
}

// afterStatus reports whether upstream sends r only after the status write:
// the podsToDelete rewrite and history truncation
// (lifecycle-status-validation 2.7).
func afterStatus(r Request) bool {
	return r.Resource == ResourceControllerRevisions && r.Verb == VerbDelete ||
		r.Resource == ResourceCloneSets && r.Subresource == ""
}

func actionObject(a model.Action) string {
	switch {
	case a.ImagePullJob != "":
		return a.ImagePullJob
	case a.Pod != "":
		return a.Pod
	case a.PVC != "":
		return a.PVC
	case a.Revision != "":
		return a.Revision
	}
	return ""
}

type builder struct {
	s    *model.Scenario
	cs   *model.CloneSet
	plan *clonesetcore.Result
	now  time.Time
	pods map[string]*model.Pod
	pvcs map[string]*model.PVC
	revs map[string]*model.Revision
	jobs map[string]*model.ImagePullJob
	// inPlace computes the in-place change of each pair of revisions once,
	// however many pods the plan updates between them.
	inPlace *inplace.RevisionIndex
	// resizeSubresource sends resource changes to the pods/resize
	// subresource (Options.ResizeSubresource).
	resizeSubresource bool
	index             int // the action being built
	batch             int
	out               []Request
	err               error // the first encoding failure
}

func newBuilder(s *model.Scenario, plan *clonesetcore.Result) *builder {
	b := &builder{
		s: s, cs: s.CloneSet, plan: plan, now: s.Now,
		pods: make(map[string]*model.Pod, len(s.Pods)),
		pvcs: make(map[string]*model.PVC, len(s.PVCs)),
		revs: make(map[string]*model.Revision, len(s.Revisions)+1),
		jobs: make(map[string]*model.ImagePullJob, len(s.ImagePullJobs)),
	}
	for _, j := range s.ImagePullJobs {
		if j != nil {
			b.jobs[j.Name] = j
		}
	}
	for _, p := range s.Pods {
		if p != nil {
			b.pods[p.Name] = p
		}
	}
	for _, v := range s.PVCs {
		if v != nil {
			b.pvcs[v.Name] = v
		}
	}
	for _, r := range s.Revisions {
		if r != nil {
			b.revs[r.Name] = r
		}
	}
	// The update revision the plan derived from spec.template (created by
	// its CreateRevision action, or assumed to exist), with the labels
	// upstream gives it (the hash label names it in an ImagePullJob).
	if _, ok := b.revs[plan.UpdateRevision]; !ok && plan.UpdateRevision != "" {
		derived := &model.Revision{Name: plan.UpdateRevision, Template: b.cs.Spec.Template, HasTemplate: true}
		var start int32
		if c := b.cs.Status.CollisionCount; c != nil {
			start = *c
		}
		if rev, _, err := clonesetcore.NewRevision(b.cs, 0, start); err == nil {
			derived.Labels = rev.Labels
		}
		b.revs[plan.UpdateRevision] = derived
	}
	return b
}

func (b *builder) emit(r Request) {
	r.Action = b.index
	r.Batch = b.batch
	if r.Namespace == "" {
		r.Namespace = b.cs.Namespace
	}
	b.out = append(b.out, r)
}

func (b *builder) action(i int, a model.Action) error {
	b.index, b.batch = i, -1
	switch a.Type {
	case model.ActionCreateRevision:
		return b.createRevision(a)
	case model.ActionUpdateRevision:
		return b.updateRevision(a)
	case model.ActionDeleteRevision:
		r := b.revs[a.Revision]
		if r == nil {
			return fmt.Errorf("revision not in the scenario")
		}
		b.emit(Request{Verb: VerbDelete, Resource: ResourceControllerRevisions, Name: r.Name, Preconditions: uidOnly(r.UID)})
		return nil
	case model.ActionCreatePod:
		return b.createPod(a)
	case model.ActionDeletePod:
		return b.deletePod(a)
	case model.ActionSetLifecycleState:
		return b.setLifecycleState(a)
	case model.ActionUpdatePodInPlace:
		return b.updateInPlace(a)
	case model.ActionRecreatePod:
		p, err := b.pod(a.Pod)
		if err != nil {
			return err
		}
		if p.HasSpecifiedDeleteLabel() {
			return nil // already marked: upstream writes nothing
		}
		b.emit(Request{Verb: VerbPatch, Resource: ResourcePods, Name: p.Name, PatchType: PatchMerge,
			Patch:         b.mustJSON(obj("metadata", obj("labels", obj(model.LabelSpecifiedDelete, "true")))),
			Preconditions: uidOnly(p.UID)})
		return nil
	case model.ActionPatchPod:
		return b.patchPod(a)
	case model.ActionCreateImagePullJob, model.ActionLabelRevision, model.ActionDeleteImagePullJob:
		return b.preDownload(a)
	case model.ActionDeletePVC:
		return b.deleteClaim(a.PVC)
	case model.ActionSetPVCOwner:
		return b.setPVCOwner(a)
	case model.ActionUpdatePodsToDelete:
		drop := make(map[string]bool, len(a.Remove))
		for _, n := range a.Remove {
			drop[n] = true
		}
		read := make([]any, 0, len(b.cs.Spec.ScaleStrategy.PodsToDelete))
		keep := []any{}
		for _, n := range b.cs.Spec.ScaleStrategy.PodsToDelete {
			read = append(read, n)
			if !drop[n] {
				keep = append(keep, n)
			}
		}
		// A JSON patch that tests the list it rewrites: a name added
		// meanwhile makes it fail instead of being lost.
		const path = "/spec/scaleStrategy/podsToDelete"
		b.emit(Request{Verb: VerbPatch, Resource: ResourceCloneSets, Name: b.cs.Name, PatchType: PatchJSON,
			Patch: b.mustJSON([]any{
				map[string]any{"op": "test", "path": path, "value": read},
				map[string]any{"op": "replace", "path": path, "value": keep},
			}),
			Preconditions: uidOnly(b.cs.UID)})
		return nil
	}
	return fmt.Errorf("unknown action type")
}

func (b *builder) pod(name string) (*model.Pod, error) {
	p := b.pods[name]
	if p == nil {
		return nil, fmt.Errorf("pod not in the scenario")
	}
	return p, nil
}

// ownerRef is the controller reference to the CloneSet on created objects.
func (b *builder) ownerRef() map[string]any {
	return map[string]any{
		"apiVersion": OwnerAPIVersion, "kind": "CloneSet", "name": b.cs.Name, "uid": b.cs.UID,
		"controller": true, "blockOwnerDeletion": true,
	}
}

// templateTree returns a copy of the revision's template as a JSON tree.
func templateTree(r *model.Revision) map[string]any {
	if r.Template.Raw != nil {
		t, _ := model.CopyTree(r.Template.Raw).(map[string]any)
		delete(t, "$patch")
		return t
	}
	return model.TemplateTree(r.Template)
}

// createRevision creates the ControllerRevision upstream creates for
// spec.template (clonesetcore.NewRevision): its data byte for byte, the
// template's labels and the hash label of the collision count the round
// started with, the CloneSet's annotations and the volume-claim-template
// hash, under the plan's name (which a collision may have hashed again).
func (b *builder) createRevision(a model.Action) error {
	if a.Revision != b.plan.UpdateRevision {
		return fmt.Errorf("the plan's update revision is %s", b.plan.UpdateRevision)
	}
	var start int32
	if c := b.cs.Status.CollisionCount; c != nil {
		start = *c
	}
	rev, data, err := clonesetcore.NewRevision(b.cs, a.RevisionNumber, start)
	if err != nil {
		return err
	}
	meta := map[string]any{
		"name": a.Revision, "namespace": b.cs.Namespace, "labels": rev.Labels,
		"annotations": rev.Annotations, "ownerReferences": []any{b.ownerRef()},
	}
	o := map[string]any{
		"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": meta,
		"data":     json.RawMessage(data),
		"revision": a.RevisionNumber,
	}
	b.emit(Request{Verb: VerbCreate, Resource: ResourceControllerRevisions, Name: a.Revision, Object: b.mustJSON(o)})
	return nil
}

func (b *builder) updateRevision(a model.Action) error {
	r := b.revs[a.Revision]
	if r == nil || !slices.Contains(b.s.Revisions, r) {
		return fmt.Errorf("revision not in the scenario")
	}
	// Upstream also refreshes the volume-claim-template hash of the
	// revision it reuses (scale-and-budgets 5.7); the library writes its own
	// hash (docs/spec/DECISIONS.md).
	patch := map[string]any{"revision": a.RevisionNumber}
	if vct := clonesetcore.VolumeClaimTemplatesHash(b.cs.Spec.VolumeClaimTemplates); r.Annotations[model.AnnotationVCTHash] != vct {
		patch["metadata"] = obj("annotations", obj(model.AnnotationVCTHash, vct))
	}
	b.emit(Request{Verb: VerbPatch, Resource: ResourceControllerRevisions, Name: r.Name, PatchType: PatchMerge,
		Patch: b.mustJSON(patch), Preconditions: uidOnly(r.UID)})
	return nil
}

// preDownload carries out the image pre-download actions
// (docs/spec/image-predownload.md P7, P8), as upstream sends them, each
// Tolerated: the ImagePullJob's create (predownload.NewObject, the bytes of
// upstream's request body), the revision's mark as upstream's strategic
// merge patch of its labels (no precondition, as upstream's), the job's
// delete (with its uid as precondition, as every delete of the library).
func (b *builder) preDownload(a model.Action) error {
	switch a.Type {
	case model.ActionCreateImagePullJob:
		rev := b.revs[a.Revision]
		if rev == nil || a.Revision != b.plan.UpdateRevision {
			return fmt.Errorf("revision %s is not the plan's update revision %s", a.Revision, b.plan.UpdateRevision)
		}
		if want := predownload.JobName(a.Revision, a.Container); a.ImagePullJob != want {
			return fmt.Errorf("the job of container %s is named %s", a.Container, want)
		}
		o, err := predownload.NewObject(b.cs, rev, predownload.Job{Name: a.ImagePullJob, Container: a.Container, Image: a.Image}).JSON()
		if err != nil {
			return err
		}
		b.emit(Request{Verb: VerbCreate, Resource: ResourceImagePullJobs, Name: a.ImagePullJob, Object: o, Tolerated: true})
	case model.ActionLabelRevision:
		if b.revs[a.Revision] == nil {
			return fmt.Errorf("revision not in the scenario")
		}
		if len(a.SetLabels) == 0 {
			return fmt.Errorf("no label to set")
		}
		labels := map[string]any{}
		for k, v := range a.SetLabels {
			labels[k] = v
		}
		b.emit(Request{Verb: VerbPatch, Resource: ResourceControllerRevisions, Name: a.Revision, PatchType: PatchStrategicMerge,
			Patch: b.mustJSON(obj("metadata", obj("labels", labels))), Tolerated: true})
	case model.ActionDeleteImagePullJob:
		j := b.jobs[a.ImagePullJob]
		if j == nil {
			return fmt.Errorf("ImagePullJob not in the scenario")
		}
		b.emit(Request{Verb: VerbDelete, Resource: ResourceImagePullJobs, Name: j.Name, Preconditions: uidOnly(j.UID), Tolerated: true})
	}
	return nil
}

// createPod creates the claims of a new pod, then the pod
// (scale-and-budgets 4.4, 5.2, 5.3).
func (b *builder) createPod(a model.Action) error {
	rev := b.revs[a.Revision]
	if rev == nil || !rev.HasTemplate {
		return fmt.Errorf("revision %s has no stored template", a.Revision)
	}
	if a.InstanceID == "" {
		return fmt.Errorf("no instance id")
	}
	b.batch = a.Batch
	for _, name := range a.CreatePVCs {
		o, err := b.claimObject(name, a.InstanceID)
		if err != nil {
			return err
		}
		b.emit(Request{Verb: VerbCreate, Resource: ResourcePersistentVolumeClaims, Name: name, Object: b.mustJSON(o)})
	}
	b.emit(Request{Verb: VerbCreate, Resource: ResourcePods, Name: a.Pod, Object: b.mustJSON(b.podObject(a, rev))})
	return nil
}

// podObject builds the pod of a CreatePod action from its revision's
// template (scale-and-budgets 4.4 steps 1-9).
func (b *builder) podObject(a model.Action, rev *model.Revision) map[string]any {
	tpl := templateTree(rev)
	tmeta, _ := tpl["metadata"].(map[string]any)
	spec, _ := tpl["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
	}
	labels := stringTree(tmeta["labels"])
	revLabel := a.RevisionLabel
	if revLabel == "" {
		revLabel = model.RevisionLabelValue(rev.Name, b.s.Gates)
	}
	labels[model.LabelRevisionHash] = revLabel
	labels[model.LabelPodTemplateHash] = model.ShortHash(rev.Name)
	labels[model.LabelInstanceID] = a.InstanceID
	lcLabels, lcAnn := lifecycle.CreateLifecycle(b.now)
	state := a.LifecycleState
	if state == "" {
		state = lcLabels[model.LabelLifecycleState]
	}
	labels[model.LabelLifecycleState] = state
	ann := stringTree(tmeta["annotations"])
	for k, v := range lcAnn {
		ann[k] = v
	}
	meta := map[string]any{
		"name": a.Pod, "generateName": generateName(b.cs.Name), "namespace": b.cs.Namespace,
		"labels": labels, "annotations": ann, "ownerReferences": []any{b.ownerRef()},
	}
	if f, ok := tmeta["finalizers"].([]any); ok && len(f) > 0 {
		meta["finalizers"] = f
	}
	// Readiness gate InPlaceUpdateReady, appended unless present.
	gates, _ := spec["readinessGates"].([]any)
	has := false
	for _, g := range gates {
		if m, ok := g.(map[string]any); ok && m["conditionType"] == model.ConditionInPlaceUpdateReady {
			has = true
		}
	}
	if !has {
		spec["readinessGates"] = append(gates, obj("conditionType", model.ConditionInPlaceUpdateReady))
	}
	// Volumes (5.3): claim volumes in declaration order, then the template's
	// other volumes.
	if vcts := b.cs.Spec.VolumeClaimTemplates; len(vcts) > 0 {
		claimed := map[string]bool{}
		var vols []any
		for _, t := range vcts {
			if claimed[t.Name] {
				continue
			}
			claimed[t.Name] = true
			vols = append(vols, map[string]any{"name": t.Name, "persistentVolumeClaim": obj("claimName", pvc.ClaimName(t.Name, b.cs, a.InstanceID))})
		}
		old, _ := spec["volumes"].([]any)
		for _, v := range old {
			if m, ok := v.(map[string]any); ok && claimed[fmt.Sprint(m["name"])] {
				continue
			}
			vols = append(vols, v)
		}
		spec["volumes"] = vols
	}
	return map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
}

// generateName is "<name>-" (scale-and-budgets 4.4 step 2).
func generateName(name string) string { return name + "-" }

// claimObject builds the claim name of instance id from its volume claim
// template (scale-and-budgets 5.2).
func (b *builder) claimObject(name, id string) (map[string]any, error) {
	for i := range b.cs.Spec.VolumeClaimTemplates {
		t := &b.cs.Spec.VolumeClaimTemplates[i]
		if pvc.ClaimName(t.Name, b.cs, id) != name {
			continue
		}
		made := pvc.NewClaim(b.cs, t, id)
		o, _ := model.CopyTree(t.Raw).(map[string]any)
		if o == nil {
			o = map[string]any{}
		}
		meta, _ := o["metadata"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
		}
		meta["name"] = made.Name
		meta["namespace"] = made.Namespace
		labels := map[string]any{}
		for k, v := range made.Labels {
			labels[k] = v
		}
		meta["labels"] = labels
		refs, _ := meta["ownerReferences"].([]any)
		meta["ownerReferences"] = append(refs, b.ownerRef())
		o["metadata"] = meta
		o["apiVersion"], o["kind"] = "v1", "PersistentVolumeClaim"
		return o, nil
	}
	return nil, fmt.Errorf("PVC %s matches no volume claim template", name)
}

// deletePod deletes the pod, then the claims deleted with it.
func (b *builder) deletePod(a model.Action) error {
	p, err := b.pod(a.Pod)
	if err != nil {
		return err
	}
	b.emit(Request{Verb: VerbDelete, Resource: ResourcePods, Name: p.Name, Preconditions: uidOnly(p.UID)})
	for _, name := range a.DeletePVCs {
		if err := b.deleteClaim(name); err != nil {
			return err
		}
	}
	return nil
}

// deleteClaim deletes the PVC of that name (uid precondition).
func (b *builder) deleteClaim(name string) error {
	v := b.pvcs[name]
	if v == nil {
		return fmt.Errorf("PVC %s not in the scenario", name)
	}
	b.emit(Request{Verb: VerbDelete, Resource: ResourcePersistentVolumeClaims, Name: v.Name, Preconditions: uidOnly(v.UID)})
	return nil
}

// setLifecycleState is W1/W2 (lifecycle-status-validation 1.5): the NotReady
// policy's condition write first, then the state label, timestamp and hook
// markers.
func (b *builder) setLifecycleState(a model.Action) error {
	p, err := b.pod(a.Pod)
	if err != nil {
		return err
	}
	if conds := lifecycle.NotReadyPolicy(p, a.To, lifecycle.HookFlag(b.cs, a.From, a.To), b.now); len(conds) > 0 {
		b.conditionsPatch(p, conds)
	}
	if a.From == a.To && len(a.SetLabels) == 0 && len(a.AddFinalizers) == 0 {
		return nil
	}
	labels := map[string]any{}
	ann := map[string]any{}
	if a.From != a.To {
		labels[model.LabelLifecycleState] = a.To
		ann[model.AnnotationLifecycleTimestamp] = b.timestamp()
	}
	for k, v := range a.SetLabels {
		labels[k] = v
	}
	meta := map[string]any{}
	putNonEmpty(meta, "labels", labels)
	putNonEmpty(meta, "annotations", ann)
	pt := PatchMerge
	if len(a.AddFinalizers) > 0 {
		// A strategic merge patch adds finalizers as a set, keeping the
		// pod's own.
		var add []any
		for _, f := range a.AddFinalizers {
			if !slices.Contains(p.Finalizers, f) {
				add = append(add, f)
			}
		}
		if len(add) > 0 {
			meta["finalizers"] = add
			pt = PatchStrategicMerge
		}
	}
	if len(meta) == 0 {
		return nil
	}
	b.emit(Request{Verb: VerbPatch, Resource: ResourcePods, Name: p.Name, PatchType: pt,
		Patch: b.mustJSON(obj("metadata", meta)), Preconditions: uidOnly(p.UID)})
	return nil
}

func (b *builder) timestamp() string {
	return b.now.UTC().Truncate(time.Second).Format(time.RFC3339)
}

// conditionsPatch writes pod conditions through the status subresource: a
// strategic merge patch keyed by condition type; a field that becomes empty
// is removed (null).
func (b *builder) conditionsPatch(p *model.Pod, conds []model.PodCondition) {
	list := make([]any, 0, len(conds))
	for _, c := range conds {
		old := p.Condition(c.Type)
		m := map[string]any{"type": c.Type}
		field := func(key, v, was string) {
			switch {
			case v != "":
				m[key] = v
			case was != "":
				m[key] = nil
			}
		}
		var wasStatus, wasReason, wasMessage string
		if old != nil {
			wasStatus, wasReason, wasMessage = old.Status, old.Reason, old.Message
		}
		field("status", c.Status, wasStatus)
		field("reason", c.Reason, wasReason)
		field("message", c.Message, wasMessage)
		if !c.LastTransitionTime.IsZero() {
			m["lastTransitionTime"] = c.LastTransitionTime.UTC().Truncate(time.Second).Format(time.RFC3339)
		}
		list = append(list, m)
	}
	b.emit(Request{Verb: VerbPatch, Resource: ResourcePods, Subresource: SubresourceStatus, Name: p.Name,
		PatchType: PatchStrategicMerge, Patch: b.mustJSON(obj("status", obj("conditions", list))),
		Preconditions: uidOnly(p.UID)})
}

// condition returns the condition p would have after setting typ to status
// with reason and message: lastTransitionTime moves only when the status
// changes.
func (b *builder) condition(p *model.Pod, typ, status, reason, message string) model.PodCondition {
	c := model.PodCondition{Type: typ, Status: status, Reason: reason, Message: message, LastTransitionTime: b.now}
	if old := p.Condition(typ); old != nil && old.Status == status {
		c.LastTransitionTime = old.LastTransitionTime
	}
	return c
}

// updateInPlace is the in-place update of update-and-ordering 4.5: the
// InPlaceUpdateReady condition False first (status subresource), then one
// patch of the pod: revision labels, state Updating, the state annotation,
// and the change itself or, with a grace period, the grace annotation. On a
// server with the pods/resize subresource the resource part of the change
// goes to that subresource, just before the pod patch (b.resize).
func (b *builder) updateInPlace(a model.Action) error {
	p, err := b.pod(a.Pod)
	if err != nil {
		return err
	}
	old, target := b.revs[a.FromRevision], b.revs[a.ToRevision]
	if old == nil || target == nil {
		return fmt.Errorf("revision %s or %s not found", a.FromRevision, a.ToRevision)
	}
	if b.inPlace == nil {
		b.inPlace = inplace.NewRevisionIndex(b.s.Revisions)
	}
	spec := b.inPlace.Calculate(old, target, inplace.Options{Policy: lifecycle.Policy(b.cs), Gates: b.s.Gates})
	if !spec.Feasible {
		return fmt.Errorf("not possible in place from %s to %s: %s", old.Name, target.Name, spec.Reason)
	}
	// 1. InPlaceUpdateReady False.
	if p.Spec.HasReadinessGate(model.ConditionInPlaceUpdateReady) && becomesUnready(p, spec, b.s.Gates) {
		b.conditionsPatch(p, []model.PodCondition{b.condition(p, model.ConditionInPlaceUpdateReady, "False", "StartInPlaceUpdate", "")})
	}
	labels := map[string]any{}
	ann := map[string]any{}
	var containers []any
	// 2. Revision labels.
	revLabel := a.RevisionLabel
	if revLabel == "" {
		revLabel = model.RevisionLabelValue(target.Name, b.s.Gates)
	}
	labels[model.LabelRevisionHash] = revLabel
	labels[model.LabelPodTemplateHash] = model.ShortHash(target.Name)
	// 3. State Updating.
	if p.LifecycleState() != model.StateUpdating {
		labels[model.LabelLifecycleState] = model.StateUpdating
		ann[model.AnnotationLifecycleTimestamp] = b.timestamp()
	}
	// 4. The state annotation; 5. the change now or after the grace period.
	state := inplace.State{
		Revision: target.Name, UpdateTimestamp: inplace.Time{Time: b.now},
		UpdateImages: len(spec.Images) > 0, UpdateResources: len(spec.Resources) > 0,
		UpdateEnvFromMetadata: spec.EnvFromMetadata,
	}
	if _, ok := p.Annotations[model.AnnotationInPlaceUpdateStateLegacy]; ok {
		ann[model.AnnotationInPlaceUpdateStateLegacy] = nil
	}
	if a.GracePeriodSeconds > 0 {
		pending := inplace.Pending{
			Revision: target.Name, ContainerImages: spec.Images, ContainerRefMetadata: refMetadata(spec.RefMetadata),
			ContainerResources: resourceTexts(spec.Resources), MetaDataPatch: b.metadataPatch(spec.Metadata),
			UpdateEnvFromMetadata: spec.EnvFromMetadata, GraceSeconds: a.GracePeriodSeconds,
		}
		ann[model.AnnotationInPlaceUpdateGrace] = string(b.mustJSON(pending))
		if _, ok := p.Annotations[model.AnnotationInPlaceUpdateGraceLegacy]; ok {
			ann[model.AnnotationInPlaceUpdateGraceLegacy] = nil
		}
	} else {
		// Container launch priorities split the change into batches:
		// this update applies the first, the state holds the rest.
		batch, deferred, names, err := inplace.SplitBatch(p, inplace.Change{
			Images: spec.Images, RefMetadata: refMetadata(spec.RefMetadata), Resources: resourceTexts(spec.Resources),
		})
		if err != nil {
			return err
		}
		state.RecordBatch(p, batch, deferred, names, b.now)
		metadataInto(labels, ann, p, spec.Metadata)
		for _, name := range model.SortedKeys(batch.RefMetadata) {
			m := batch.RefMetadata[name]
			for k, v := range m.Labels {
				labels[k] = v
			}
			for k, v := range m.Annotations {
				ann[k] = v
			}
		}
		resources := map[string]model.ResourceRequirements{}
		for name := range batch.Resources {
			resources[name] = spec.Resources[name]
		}
		containers = containerChanges(batch.Images, b.resize(p, resourceTrees(resources)))
		for _, key := range []string{model.AnnotationInPlaceUpdateGrace, model.AnnotationInPlaceUpdateGraceLegacy} {
			if _, ok := p.Annotations[key]; ok {
				ann[key] = nil
			}
		}
	}
	ann[model.AnnotationInPlaceUpdateState] = string(b.mustJSON(state))
	b.podPatch(p, labels, ann, containers)
	return nil
}

// podPatch emits one strategic merge patch of the pod's labels, annotations
// and containers (merged by name).
func (b *builder) podPatch(p *model.Pod, labels, ann map[string]any, containers []any) {
	meta := map[string]any{}
	putNonEmpty(meta, "labels", labels)
	putNonEmpty(meta, "annotations", ann)
	body := map[string]any{}
	putNonEmpty(body, "metadata", meta)
	if len(containers) > 0 {
		body["spec"] = obj("containers", containers)
	}
	if len(body) == 0 {
		return
	}
	b.emit(Request{Verb: VerbPatch, Resource: ResourcePods, Name: p.Name, PatchType: PatchStrategicMerge,
		Patch: b.mustJSON(body), Preconditions: uidOnly(p.UID)})
}

// resize sends resource changes (by container name) where the server takes
// them, as upstream does (kruise pkg/util/inplaceupdate updatePodInPlace,
// finishGracePeriod, updateNextBatch): on a server with the pods/resize
// subresource it emits a strategic merge patch of that subresource with the
// containers' resources, before the pod patch that follows, and returns none
// for the pod patch; on an older server it returns them all for the pod
// patch. A failed resize thus stops the round before the pod patch: the
// pod keeps its revision labels and state annotation, as upstream's pod
// update is not sent when its resize fails.
func (b *builder) resize(p *model.Pod, resources map[string]map[string]any) map[string]map[string]any {
	if !b.resizeSubresource || len(resources) == 0 {
		return resources
	}
	b.emit(Request{Verb: VerbPatch, Resource: ResourcePods, Subresource: SubresourceResize, Name: p.Name,
		PatchType: PatchStrategicMerge, Patch: b.mustJSON(obj("spec", obj("containers", containerChanges(nil, resources)))),
		Preconditions: uidOnly(p.UID)})
	return nil
}

// containerChanges lists per container (sorted by name) the image and
// resource values to set, as strategic merge patch list entries.
func containerChanges(images map[string]string, resources map[string]map[string]any) []any {
	names := map[string]bool{}
	for n := range images {
		names[n] = true
	}
	for n := range resources {
		names[n] = true
	}
	var out []any
	for _, n := range model.SortedKeys(names) {
		c := map[string]any{"name": n}
		if img, ok := images[n]; ok {
			c["image"] = img
		}
		if r, ok := resources[n]; ok {
			c["resources"] = r
		}
		out = append(out, c)
	}
	return out
}

func resourceTrees(in map[string]model.ResourceRequirements) map[string]map[string]any {
	out := map[string]map[string]any{}
	for name, r := range in {
		m := map[string]any{}
		if l := quantityTexts(r.Limits); len(l) > 0 {
			m["limits"] = l
		}
		if q := quantityTexts(r.Requests); len(q) > 0 {
			m["requests"] = q
		}
		out[name] = m
	}
	return out
}

// patchPod carries out a PatchPod action: metadata and containers in one
// strategic merge patch (resources, on a server with the pods/resize
// subresource, in a patch of that subresource just before it), conditions
// through the status subresource.
func (b *builder) patchPod(a model.Action) error {
	p, err := b.pod(a.Pod)
	if err != nil {
		return err
	}
	labels := map[string]any{}
	ann := map[string]any{}
	for k, v := range a.SetLabels {
		labels[k] = v
	}
	for _, k := range a.RemoveLabels {
		labels[k] = nil
	}
	for k, v := range a.SetAnnotations {
		ann[k] = v
	}
	for _, k := range a.RemoveAnnotations {
		ann[k] = nil
	}
	resources := map[string]map[string]any{}
	for name, rv := range a.SetResources {
		m := map[string]any{}
		if len(rv.Limits) > 0 {
			m["limits"] = rv.Limits
		}
		if len(rv.Requests) > 0 {
			m["requests"] = rv.Requests
		}
		resources[name] = m
	}
	for name := range a.SetImages {
		if p.Container(name) == nil {
			return fmt.Errorf("pod has no container %s", name)
		}
	}
	for name := range a.SetResources {
		if p.Container(name) == nil {
			return fmt.Errorf("pod has no container %s", name)
		}
	}
	b.podPatch(p, labels, ann, containerChanges(a.SetImages, b.resize(p, resources)))
	if len(a.SetConditions) > 0 {
		conds := make([]model.PodCondition, len(a.SetConditions))
		for i, c := range a.SetConditions {
			conds[i] = b.condition(p, c.Type, c.Status, c.Reason, c.Message)
		}
		b.conditionsPatch(p, conds)
	}
	return nil
}

// setPVCOwner hands a claim to a pod: a JSON patch that removes the
// CloneSet's owner references (guarded by test operations on their uids) and
// appends the pod as the controller.
func (b *builder) setPVCOwner(a model.Action) error {
	v := b.pvcs[a.PVC]
	if v == nil {
		return fmt.Errorf("PVC not in the scenario")
	}
	p, err := b.pod(a.Pod)
	if err != nil {
		return err
	}
	var ops []any
	for i := len(v.OwnerReferences) - 1; i >= 0; i-- {
		r := v.OwnerReferences[i]
		if (&r).OwnedBy(b.cs) || r.Kind == "CloneSet" && r.Name == b.cs.Name {
			path := fmt.Sprintf("/metadata/ownerReferences/%d", i)
			ops = append(ops, map[string]any{"op": "test", "path": path + "/uid", "value": r.UID},
				map[string]any{"op": "remove", "path": path})
		}
	}
	ref := map[string]any{"apiVersion": "v1", "kind": "Pod", "name": p.Name, "uid": p.UID, "controller": true}
	if len(v.OwnerReferences) == 0 {
		ops = append(ops, map[string]any{"op": "add", "path": "/metadata/ownerReferences", "value": []any{ref}})
	} else {
		ops = append(ops, map[string]any{"op": "add", "path": "/metadata/ownerReferences/-", "value": ref})
	}
	b.emit(Request{Verb: VerbPatch, Resource: ResourcePersistentVolumeClaims, Name: v.Name, PatchType: PatchJSON,
		Patch: b.mustJSON(ops), Preconditions: uidOnly(v.UID)})
	return nil
}

// status writes the plan's status through the status subresource: a merge
// patch of the whole computed status (upstream replaces the status it read,
// so the CloneSet's resourceVersion is the precondition).
func (b *builder) status() {
	b.index, b.batch = -1, -1
	st := b.plan.Status
	conds := make([]any, 0, len(st.Conditions))
	for _, c := range st.Conditions {
		m := map[string]any{"type": c.Type, "status": c.Status}
		putString(m, "reason", c.Reason)
		putString(m, "message", c.Message)
		putString(m, "lastUpdateTime", c.LastUpdateTime)
		putString(m, "lastTransitionTime", c.LastTransitionTime)
		conds = append(conds, m)
	}
	coll := st.CollisionCount
	if p := b.cs.Status.CollisionCount; p != nil && *p > coll {
		coll = *p
	}
	status := map[string]any{
		"observedGeneration": st.ObservedGeneration, "replicas": st.Replicas, "readyReplicas": st.ReadyReplicas,
		"availableReplicas": st.AvailableReplicas, "updatedReplicas": st.UpdatedReplicas,
		"updatedReadyReplicas": st.UpdatedReadyReplicas, "updatedAvailableReplicas": st.UpdatedAvailableReplicas,
		"expectedUpdatedReplicas": st.ExpectedUpdatedReplicas, "currentRevision": st.CurrentRevision,
		"updateRevision": st.UpdateRevision, "collisionCount": coll, "labelSelector": st.LabelSelector,
		"conditions": conds,
	}
	b.emit(Request{Verb: VerbPatch, Resource: ResourceCloneSets, Subresource: SubresourceStatus, Name: b.cs.Name,
		PatchType: PatchMerge, Patch: b.mustJSON(obj("status", status)),
		Preconditions: preconditions(b.cs.UID, b.cs.ResourceVersion)})
}

// becomesUnready: every pod listing the InPlaceUpdateReady gate, except, with
// the vertical-scaling gate, a resources-only update of containers that need
// no restart for it (update-and-ordering 4.5).
func becomesUnready(p *model.Pod, spec inplace.Spec, gates model.FeatureGates) bool {
	if !gates.InPlaceWorkloadVerticalScaling || len(spec.Images) > 0 || spec.EnvFromMetadata || len(spec.Resources) == 0 {
		return true
	}
	for name, r := range spec.Resources {
		ctr := p.Container(name)
		if ctr == nil {
			continue
		}
		for _, rp := range ctr.ResizePolicy {
			if rp.RestartPolicy != "RestartContainer" {
				continue
			}
			if _, ok := r.Limits[rp.ResourceName]; ok {
				return true
			}
			if _, ok := r.Requests[rp.ResourceName]; ok {
				return true
			}
		}
	}
	return false
}

// metadataPatch renders the plain metadata patch as upstream's strategic merge
// patch {"metadata": {"labels": {...}, "annotations": {...}}} (null removes).
func (b *builder) metadataPatch(m inplace.MetadataPatch) inplace.MetadataPatchBytes {
	labels, ann := map[string]any{}, map[string]any{}
	metadataInto(labels, ann, nil, m)
	if len(labels) == 0 && len(ann) == 0 {
		return nil
	}
	meta := map[string]any{}
	putNonEmpty(meta, "labels", labels)
	putNonEmpty(meta, "annotations", ann)
	return inplace.MetadataPatchBytes(b.mustJSON(obj("metadata", meta)))
}

// metadataInto adds the metadata patch m to the label and annotation patches
// (null removes a key); with a pod, a removal of a key the pod lacks is left
// out.
func metadataInto(labels, ann map[string]any, p *model.Pod, m inplace.MetadataPatch) {
	for k, v := range m.SetLabels {
		labels[k] = v
	}
	for _, k := range m.RemoveLabels {
		if p == nil || hasKey(p.Labels, k) {
			labels[k] = nil
		}
	}
	for k, v := range m.SetAnnotations {
		ann[k] = v
	}
	for _, k := range m.RemoveAnnotations {
		if p == nil || hasKey(p.Annotations, k) {
			ann[k] = nil
		}
	}
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

// refMetadata is the referenced metadata of an in-place update as the
// in-place annotations carry it (nil when there is none).
func refMetadata(in map[string]inplace.RefMetadata) map[string]inplace.ObjectMeta {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]inplace.ObjectMeta, len(in))
	for name, m := range in {
		out[name] = inplace.ObjectMeta{Labels: maps.Clone(m.Labels), Annotations: maps.Clone(m.Annotations)}
	}
	return out
}

// resourceTexts is the resources of an in-place update as the in-place
// annotations carry them (nil when there are none).
func resourceTexts(in map[string]model.ResourceRequirements) map[string]inplace.Resources {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]inplace.Resources, len(in))
	for name, r := range in {
		out[name] = inplace.Resources{Limits: quantityTexts(r.Limits), Requests: quantityTexts(r.Requests)}
	}
	return out
}

func quantityTexts(m map[string]model.Quantity) map[string]inplace.QuantityText {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]inplace.QuantityText, len(m))
	for k, v := range m {
		out[k] = inplace.QuantityText(v.String())
	}
	return out
}

func uidOnly(uid string) *Preconditions {
	if uid == "" {
		return nil
	}
	return &Preconditions{UID: uid}
}

func preconditions(uid, resourceVersion string) *Preconditions {
	if uid == "" && resourceVersion == "" {
		return nil
	}
	return &Preconditions{UID: uid, ResourceVersion: resourceVersion}
}

// obj is a one-member JSON object.
func obj(key string, v any) map[string]any { return map[string]any{key: v} }

func putNonEmpty(m map[string]any, key string, v map[string]any) {
	if len(v) > 0 {
		m[key] = v
	}
}

func putString(m map[string]any, key, v string) {
	if v != "" {
		m[key] = v
	}
}

// stringTree copies a JSON object of strings into a map of any values.
func stringTree(v any) map[string]any {
	out := map[string]any{}
	if m, ok := v.(map[string]any); ok {
		for k, x := range m {
			out[k] = x
		}
	}
	return out
}

// encodeJSON encodes v without HTML escaping. It fails only on values JSON
// cannot hold (a template number that is not finite).
func encodeJSON(v any) (json.RawMessage, error) {
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return json.RawMessage(strings.TrimSuffix(buf.String(), "\n")), nil
}

// mustJSON encodes v for a request body; the first failure is kept in
// b.err and fails Build.
func (b *builder) mustJSON(v any) json.RawMessage {
	out, err := encodeJSON(v)
	if err != nil && b.err == nil {
		b.err = err
	}
	return out
}
