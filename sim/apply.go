package sim

import (
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strings"
	"time"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/inplace"
	"github.com/clonecore/cloneset/lifecycle"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/pvc"
)

// ActionResult is what became of one action of a plan.
type ActionResult struct {
	// Action is the action as planned.
	Action model.Action `json:"action"`
	// Err is empty when the action was applied; otherwise the reason the write
	// failed (the object is missing, a name is taken, the pod is not in the
	// state the action starts from, ...).
	Err string `json:"error,omitempty"`
	// Skipped is true when the action was not attempted because an earlier
	// write of the round failed (as the controller stops).
	Skipped bool `json:"skipped,omitempty"`
	// Mismatch is set when the action was applied but its own data disagrees
	// with what applying it did (for example a markPodNotReady flag that is not
	// the effective one); it names the difference.
	Mismatch string `json:"mismatch,omitempty"`
	// Quirk is set for a failure upstream has too, by design (the instance-id
	// collision of scale-and-budgets 5.5); it names the quirk.
	Quirk string `json:"quirk,omitempty"`
}

// ApplyReport is the outcome of Cluster.Apply.
type ApplyReport struct {
	// Results has one entry per action of the plan, in order.
	Results []ActionResult `json:"results"`
	// RevisionCreated names the ControllerRevision the round created (the
	// controller's revision bookkeeping), if any.
	RevisionCreated string `json:"revisionCreated,omitempty"`
	// RevisionMismatch is set when the cluster's update revision is not the
	// plan's.
	RevisionMismatch string `json:"revisionMismatch,omitempty"`
	// StatusWritten is true when the plan's status replaced the stored one.
	StatusWritten bool `json:"statusWritten"`
	// Changed is true when anything was written (an action applied, a revision
	// created, the status written): the watch events of those writes trigger
	// the next round.
	Changed bool `json:"changed"`
}

// Applied returns how many actions were applied.
func (r *ApplyReport) Applied() int {
	n := 0
	for _, x := range r.Results {
		if x.Err == "" && !x.Skipped {
			n++
		}
	}
	return n
}

// Failures returns the results that failed or were skipped.
func (r *ApplyReport) Failures() []ActionResult {
	var out []ActionResult
	for _, x := range r.Results {
		if x.Err != "" || x.Skipped {
			out = append(out, x)
		}
	}
	return out
}

// Apply carries out a plan the way the CloneSet controller does, at the
// cluster's clock:
//
//  1. revision bookkeeping: the ControllerRevision of spec.template is created
//     when missing (under the plan's update revision name) or, when an older one
//     matches, its revision number is bumped (LSV 2.3);
//  2. the actions in order, each with the effects of docs/spec/scenario-format.md section
//     2 and the spec sections it cites (CreatePod: scale-and-budgets 4.4 and LSV
//     1.5 W3; SetLifecycleState: LSV 1.5 W1/W2 with the KruisePodReady effects of
//     LSV 1.4; UpdatePodInPlace: update-and-ordering 4.5; ...). CreatePod
//     actions of one batch are all attempted; after a batch with a failure no
//     later batch starts. Any other failure ends the round: later actions are
//     skipped;
//  3. the status, unless the plan says the write is skipped;
//  4. revision history truncation (LSV 2.7).
//
// Failures are reported, never panicked on. The world then reacts to the new
// objects (the kubelet starts new pods, ...) as the clock advances.
func (c *Cluster) Apply(plan *clonesetcore.Result) ApplyReport {
	var rep ApplyReport
	if plan == nil {
		return rep
	}
	before := c.revisionNames()
	name := c.ensureRevision(plan.UpdateRevision)
	if _, ok := before[name]; !ok {
		rep.RevisionCreated = name
		rep.Changed = true
	}
	if plan.UpdateRevision != "" && name != plan.UpdateRevision {
		rep.RevisionMismatch = fmt.Sprintf("the plan's update revision is %s but spec.template matches ControllerRevision %s", plan.UpdateRevision, name)
	}
	failedBatch := -1
	stop := false
	for _, a := range plan.Actions {
		res := ActionResult{Action: a}
		switch {
		case stop:
			res.Skipped = true
		case a.Type == model.ActionCreatePod && failedBatch >= 0 && a.Batch > failedBatch:
			res.Skipped = true
		default:
			mismatch, quirk, err := c.applyAction(a)
			res.Mismatch, res.Quirk = mismatch, quirk
			if err != nil {
				res.Err = err.Error()
				if a.Type == model.ActionCreatePod {
					if failedBatch < 0 {
						failedBatch = a.Batch
					}
				} else {
					stop = true
				}
			} else {
				rep.Changed = true
			}
		}
		rep.Results = append(rep.Results, res)
	}
	if !plan.Status.WriteSkipped {
		c.writeStatus(plan.Status)
		rep.StatusWritten = true
		rep.Changed = true
	}
	c.truncateHistory(plan.Status.CurrentRevision, plan.UpdateRevision)
	c.sync()
	return rep
}

func (c *Cluster) revisionNames() map[string]struct{} {
	m := make(map[string]struct{}, len(c.revisions))
	for _, r := range c.revisions {
		m[r.Name] = struct{}{}
	}
	return m
}

func (c *Cluster) writeStatus(s clonesetcore.Status) {
	st := model.CloneSetStatus{
		ObservedGeneration: s.ObservedGeneration, Replicas: s.Replicas, ReadyReplicas: s.ReadyReplicas,
		AvailableReplicas: s.AvailableReplicas, UpdatedReplicas: s.UpdatedReplicas,
		UpdatedReadyReplicas: s.UpdatedReadyReplicas, UpdatedAvailableReplicas: s.UpdatedAvailableReplicas,
		ExpectedUpdatedReplicas: s.ExpectedUpdatedReplicas, CurrentRevision: s.CurrentRevision,
		UpdateRevision: s.UpdateRevision, LabelSelector: s.LabelSelector,
	}
	coll := s.CollisionCount
	if c.cs.Status.CollisionCount != nil && *c.cs.Status.CollisionCount > coll {
		coll = *c.cs.Status.CollisionCount
	}
	st.CollisionCount = &coll
	for _, x := range s.Conditions {
		st.Conditions = append(st.Conditions, model.CloneSetCondition{
			Type: x.Type, Status: x.Status, Reason: x.Reason, Message: x.Message,
			LastUpdateTime: parseTime(x.LastUpdateTime), LastTransitionTime: parseTime(x.LastTransitionTime),
		})
	}
	c.cs.Status = st
}

func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// applyAction applies one action; it returns a contract mismatch (applied
// anyway), the upstream quirk behind a failure, and the failure.
func (c *Cluster) applyAction(a model.Action) (mismatch, quirk string, err error) {
	switch a.Type {
	case model.ActionCreatePod:
		return c.createPod(a)
	case model.ActionDeletePod:
		return "", "", c.deletePod(a)
	case model.ActionSetLifecycleState:
		return c.setLifecycleState(a)
	case model.ActionUpdatePodInPlace:
		return c.updateInPlace(a)
	case model.ActionRecreatePod:
		p, err := c.activePod(a.Pod)
		if err != nil {
			return "", "", err
		}
		if !p.HasSpecifiedDeleteLabel() {
			p.Labels[model.LabelSpecifiedDelete] = "true"
		}
		return "", "", nil
	case model.ActionPatchPod:
		return "", "", c.patchPod(a)
	case model.ActionDeletePVC:
		if c.pvcs[a.PVC] == nil {
			return "", "", fmt.Errorf("PVC %s not found", a.PVC)
		}
		delete(c.pvcs, a.PVC)
		return "", "", nil
	case model.ActionSetPVCOwner:
		return "", "", c.setPVCOwner(a)
	case model.ActionUpdatePodsToDelete:
		drop := map[string]bool{}
		for _, n := range a.Remove {
			drop[n] = true
		}
		var keep []string
		for _, n := range c.cs.Spec.ScaleStrategy.PodsToDelete {
			if !drop[n] {
				keep = append(keep, n)
			}
		}
		c.cs.Spec.ScaleStrategy.PodsToDelete = keep
		c.cs.Generation++
		return "", "", nil
	}
	return "", "", fmt.Errorf("unknown action type %q", a.Type)
}

// activePod returns the named pod when it exists and is not terminating.
func (c *Cluster) activePod(name string) (*model.Pod, error) {
	p := c.pods[name]
	if p == nil {
		return nil, fmt.Errorf("pod %s not found", name)
	}
	if !p.DeletionTimestamp.IsZero() {
		return nil, fmt.Errorf("pod %s is terminating", name)
	}
	if p.Labels == nil {
		p.Labels = map[string]string{}
	}
	if p.Annotations == nil {
		p.Annotations = map[string]string{}
	}
	return p, nil
}

func (c *Cluster) createPod(a model.Action) (mismatch, quirk string, err error) {
	if old := c.pods[a.Pod]; old != nil {
		if !old.IsActive() {
			return "", "instance-id collision with a pod that still exists (scale-and-budgets 5.5, kruise #1099/#1433)",
				fmt.Errorf("pod %s already exists (it is %s)", a.Pod, inactiveWhy(old))
		}
		return "", "", fmt.Errorf("pod %s already exists and is active", a.Pod)
	}
	rev := c.revision(a.Revision)
	if rev == nil || !rev.HasTemplate {
		return "", "", fmt.Errorf("revision %s of pod %s has no stored template", a.Revision, a.Pod)
	}
	if a.InstanceID == "" {
		return "", "", fmt.Errorf("pod %s: no instance id", a.Pod)
	}
	cs := c.cs
	for _, name := range a.ReusePVCs {
		if v := c.pvcs[name]; v == nil || !v.DeletionTimestamp.IsZero() {
			return "", "", fmt.Errorf("PVC %s to reuse for pod %s not found", name, a.Pod)
		}
	}
	var claims []*model.PVC
	for _, name := range a.CreatePVCs {
		if c.pvcs[name] != nil {
			return "", "", fmt.Errorf("PVC %s already exists", name)
		}
		var made *model.PVC
		for i := range cs.Spec.VolumeClaimTemplates {
			t := &cs.Spec.VolumeClaimTemplates[i]
			if pvc.ClaimName(t.Name, cs, a.InstanceID) == name {
				made = pvc.NewClaim(cs, t, a.InstanceID)
				break
			}
		}
		if made == nil {
			return "", "", fmt.Errorf("PVC %s matches no volume claim template", name)
		}
		claims = append(claims, made)
	}
	for _, v := range claims {
		c.pvcs[v.Name] = v
	}
	t := rev.Template
	labels := maps.Clone(t.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	revLabel := rev.Name
	if c.gates.CloneSetShortHash {
		revLabel = model.ShortHash(rev.Name)
	}
	labels[model.LabelRevisionHash] = revLabel
	labels[model.LabelPodTemplateHash] = model.ShortHash(rev.Name)
	labels[model.LabelInstanceID] = a.InstanceID
	lcLabels, lcAnn := lifecycle.CreateLifecycle(c.now)
	state := a.LifecycleState
	if state == "" {
		state = lcLabels[model.LabelLifecycleState]
	}
	labels[model.LabelLifecycleState] = state
	ann := maps.Clone(t.Annotations)
	if ann == nil {
		ann = map[string]string{}
	}
	for k, v := range lcAnn {
		ann[k] = v
	}
	spec := t.Spec.DeepCopy()
	if !spec.HasReadinessGate(model.ConditionInPlaceUpdateReady) {
		spec.ReadinessGates = append(spec.ReadinessGates, model.ConditionInPlaceUpdateReady)
	}
	if !c.world.NoKruisePodReadyGate && !spec.HasReadinessGate(model.ConditionKruisePodReady) {
		spec.ReadinessGates = append(spec.ReadinessGates, model.ConditionKruisePodReady)
	}
	spec.Volumes = pvc.PodVolumes(cs, t.Spec.Volumes)
	c.seq++
	p := &model.Pod{
		Name: a.Pod, Namespace: cs.Namespace, UID: fmt.Sprintf("uid-%s-%d", a.Pod, c.seq),
		Labels: labels, Annotations: ann, Finalizers: templateFinalizers(t.Raw),
		CreationTimestamp: c.now, OwnerReferences: []model.OwnerReference{c.ownerRef()},
		Spec: spec, Status: model.PodStatus{Phase: model.PodPending},
	}
	c.pods[p.Name] = p
	c.stateOf(p, false)
	c.recompute(p)
	if a.LifecycleState != "" && a.LifecycleState != model.StatePreparingNormal {
		mismatch = fmt.Sprintf("created in state %s; the controller creates pods in %s (LSV 1.5 W3)", a.LifecycleState, model.StatePreparingNormal)
	}
	return mismatch, "", nil
}

func inactiveWhy(p *model.Pod) string {
	if !p.DeletionTimestamp.IsZero() {
		return "terminating"
	}
	return strings.ToLower(p.Status.Phase)
}

func templateFinalizers(raw map[string]any) []string {
	meta, _ := raw["metadata"].(map[string]any)
	list, _ := meta["finalizers"].([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func (c *Cluster) deletePod(a model.Action) error {
	p, err := c.activePod(a.Pod)
	if err != nil {
		return err
	}
	for _, name := range a.DeletePVCs {
		if c.pvcs[name] == nil {
			return fmt.Errorf("PVC %s of pod %s not found", name, a.Pod)
		}
	}
	p.DeletionTimestamp = c.now
	for _, name := range a.DeletePVCs {
		delete(c.pvcs, name)
	}
	return nil
}

// hookFlag is the markPodNotReady a lifecycle write passes (LSV 1.7): the
// preDelete hook's for PreparingDelete, nothing for the cancel back to
// PreparingNormal, the inPlaceUpdate hook's otherwise.
func (c *Cluster) hookFlag(from, to string) bool {
	l := c.cs.Spec.Lifecycle
	if l == nil {
		return false
	}
	switch {
	case to == model.StatePreparingDelete:
		return l.PreDelete != nil && l.PreDelete.MarkPodNotReady
	case to == model.StatePreparingNormal && from == model.StatePreparingDelete:
		return false
	default:
		return l.InPlaceUpdate != nil && l.InPlaceUpdate.MarkPodNotReady
	}
}

func (c *Cluster) setLifecycleState(a model.Action) (mismatch, quirk string, err error) {
	p, err := c.activePod(a.Pod)
	if err != nil {
		return "", "", err
	}
	if cur := p.LifecycleState(); cur != a.From {
		return "", "", fmt.Errorf("pod %s is in state %q, the action moves it from %q", a.Pod, cur, a.From)
	}
	eff := c.notReadyPolicy(p, a.To, c.hookFlag(a.From, a.To))
	if eff != a.MarkPodNotReady {
		mismatch = fmt.Sprintf("markPodNotReady is %v but the NotReady policy %s the KruisePodReady condition", a.MarkPodNotReady, map[bool]string{true: "changed", false: "did not change"}[eff])
	}
	if a.From != a.To {
		p.Labels[model.LabelLifecycleState] = a.To
		p.Annotations[model.AnnotationLifecycleTimestamp] = c.ts()
	}
	for _, k := range model.SortedKeys(a.SetLabels) {
		p.Labels[k] = a.SetLabels[k]
	}
	p.Finalizers = addFinalizers(p.Finalizers, a.AddFinalizers)
	c.recompute(p)
	if a.To == model.StateNormal && notReadyKeyListed(p, lifecycle.KeyPreUpdateHook) {
		c.quirk(fmt.Sprintf("NotReady key leak: pod %s went to Normal with %s still in its KruisePodReady condition (LSV 7.10, 8.2)", p.Name, lifecycle.KeyPreUpdateHook))
	}
	return mismatch, "", nil
}

type notReadyEntry struct {
	UserAgent string `json:"userAgent"`
	Key       string `json:"key"`
}

func notReadyEntries(p *model.Pod) []notReadyEntry {
	c := p.Condition(model.ConditionKruisePodReady)
	if c == nil || c.Message == "" {
		return nil
	}
	var out []notReadyEntry
	if err := json.Unmarshal([]byte(c.Message), &out); err != nil {
		return nil
	}
	return out
}

func notReadyKeyListed(p *model.Pod, key string) bool {
	for _, e := range notReadyEntries(p) {
		if e.UserAgent == lifecycle.UserAgentLifecycle && e.Key == key {
			return true
		}
	}
	return false
}

// notReadyPolicy applies the lifecycle NotReady policy (LSV 1.4) for a write
// to target with the hook's markPodNotReady flag, and reports whether it
// changed the KruisePodReady condition.
func (c *Cluster) notReadyPolicy(p *model.Pod, target string, flag bool) bool {
	var key string
	add := true
	switch target {
	case model.StatePreparingDelete:
		key = lifecycle.KeyPreDeleteHook
	case model.StatePreparingUpdate:
		key = lifecycle.KeyPreUpdateHook
	case model.StateUpdated:
		key, add = lifecycle.KeyPreUpdateHook, false
	default:
		return false
	}
	if !flag || !p.Spec.HasReadinessGate(model.ConditionKruisePodReady) {
		return false
	}
	entries := notReadyEntries(p)
	listed := notReadyKeyListed(p, key)
	cond := p.Condition(model.ConditionKruisePodReady)
	if add {
		if listed {
			return false
		}
		entries = append(entries, notReadyEntry{lifecycle.UserAgentLifecycle, key})
		sort.Slice(entries, func(i, j int) bool {
			if entries[i].UserAgent != entries[j].UserAgent {
				return entries[i].UserAgent < entries[j].UserAgent
			}
			return entries[i].Key < entries[j].Key
		})
		if cond == nil {
			p.Status.Conditions = append(p.Status.Conditions, model.PodCondition{
				Type: model.ConditionKruisePodReady, Message: mustJSON(entries), LastTransitionTime: c.now,
			})
		} else {
			cond.Status, cond.Message, cond.LastTransitionTime = "False", mustJSON(entries), c.now
		}
		return true
	}
	if cond == nil || !listed {
		return false
	}
	var keep []notReadyEntry
	for _, e := range entries {
		if e.UserAgent != lifecycle.UserAgentLifecycle || e.Key != key {
			keep = append(keep, e)
		}
	}
	if keep == nil {
		keep = []notReadyEntry{}
	}
	cond.Message = mustJSON(keep)
	if len(keep) == 0 {
		cond.Status = "True"
	}
	cond.LastTransitionTime = c.now
	return true
}

func (c *Cluster) updateInPlace(a model.Action) (mismatch, quirk string, err error) {
	p, err := c.activePod(a.Pod)
	if err != nil {
		return "", "", err
	}
	switch st := p.LifecycleState(); st {
	case "", model.StatePreparingNormal, model.StateNormal, model.StatePreparingUpdate, model.StateUpdating:
	default:
		return "", "", fmt.Errorf("pod %s is in state %s, which forbids an in-place update", a.Pod, st)
	}
	if !p.InRevision(a.FromRevision) {
		return "", "", fmt.Errorf("pod %s is at revision %q, not %s", a.Pod, p.RevisionLabel(), a.FromRevision)
	}
	old, target := c.revision(a.FromRevision), c.revision(a.ToRevision)
	if old == nil || target == nil {
		return "", "", fmt.Errorf("revision %s or %s not found", a.FromRevision, a.ToRevision)
	}
	spec := inplace.Calculate(old, target, inplace.Options{Policy: lifecycle.Policy(c.cs), Gates: c.gates})
	if !spec.Feasible {
		return "", "", fmt.Errorf("pod %s cannot be updated in place from %s to %s: %s", a.Pod, old.Name, target.Name, spec.Reason)
	}
	if g := lifecycle.GracePeriodSeconds(c.cs); g != a.GracePeriodSeconds {
		mismatch = fmt.Sprintf("gracePeriodSeconds %d, the CloneSet says %d", a.GracePeriodSeconds, g)
	}
	// 1. InPlaceUpdateReady False.
	if p.Spec.HasReadinessGate(model.ConditionInPlaceUpdateReady) && c.becomesUnready(p, spec) {
		setCondition(p, model.ConditionInPlaceUpdateReady, "False", "StartInPlaceUpdate", "", c.now)
	}
	// 2. Revision labels.
	revLabel := target.Name
	if c.gates.CloneSetShortHash {
		revLabel = model.ShortHash(target.Name)
	}
	p.Labels[model.LabelRevisionHash] = revLabel
	p.Labels[model.LabelPodTemplateHash] = model.ShortHash(target.Name)
	// 3. State Updating.
	if p.LifecycleState() != model.StateUpdating {
		p.Labels[model.LabelLifecycleState] = model.StateUpdating
		p.Annotations[model.AnnotationLifecycleTimestamp] = c.ts()
	}
	// 4. State annotation; 5. the change now or after the grace period.
	state := inplace.State{
		Revision: target.Name, UpdateTimestamp: inplace.Time{Time: c.now},
		UpdateImages: len(spec.Images) > 0, UpdateResources: len(spec.Resources) > 0,
		UpdateEnvFromMetadata: spec.EnvFromMetadata,
	}
	refMeta := map[string]inplace.ObjectMeta{}
	for name, m := range spec.RefMetadata {
		refMeta[name] = inplace.ObjectMeta{Labels: maps.Clone(m.Labels), Annotations: maps.Clone(m.Annotations)}
	}
	resources := map[string]inplace.Resources{}
	for name, r := range spec.Resources {
		resources[name] = inplace.Resources{Limits: quantityTexts(r.Limits), Requests: quantityTexts(r.Requests)}
	}
	delete(p.Annotations, model.AnnotationInPlaceUpdateStateLegacy)
	if a.GracePeriodSeconds > 0 {
		pending := inplace.Pending{
			Revision: target.Name, ContainerImages: spec.Images, ContainerRefMetadata: refMeta,
			ContainerResources: resources, MetaDataPatch: metadataPatch(spec.Metadata),
			UpdateEnvFromMetadata: spec.EnvFromMetadata, GraceSeconds: a.GracePeriodSeconds,
		}
		if len(pending.ContainerRefMetadata) == 0 {
			pending.ContainerRefMetadata = nil
		}
		if len(pending.ContainerResources) == 0 {
			pending.ContainerResources = nil
		}
		p.Annotations[model.AnnotationInPlaceUpdateGrace] = mustJSON(pending)
		delete(p.Annotations, model.AnnotationInPlaceUpdateGraceLegacy)
	} else {
		changed := map[string]bool{}
		for name := range spec.Images {
			changed[name] = true
		}
		for name := range spec.RefMetadata {
			changed[name] = true
		}
		for name := range spec.Resources {
			changed[name] = true
		}
		for name := range spec.Images {
			if cs := containerStatus(p, name); cs != nil {
				if state.LastContainerStatuses == nil {
					state.LastContainerStatuses = map[string]inplace.ContainerStatusRecord{}
				}
				state.LastContainerStatuses[name] = inplace.ContainerStatusRecord{ImageID: cs.ImageID}
			}
		}
		state.ContainerBatchesRecord = []inplace.Batch{{Timestamp: inplace.Time{Time: c.now}, Containers: model.SortedKeys(changed)}}
		applyMetadata(p, spec.Metadata)
		for name, img := range spec.Images {
			if ctr := specContainer(p, name); ctr != nil {
				ctr.Image = img
			}
		}
		for name, r := range spec.Resources {
			if ctr := specContainer(p, name); ctr != nil {
				mergeResources(&ctr.Resources, r)
			}
		}
		for _, m := range spec.RefMetadata {
			for k, v := range m.Labels {
				p.Labels[k] = v
			}
			for k, v := range m.Annotations {
				p.Annotations[k] = v
			}
		}
		delete(p.Annotations, model.AnnotationInPlaceUpdateGrace)
		delete(p.Annotations, model.AnnotationInPlaceUpdateGraceLegacy)
	}
	p.Annotations[model.AnnotationInPlaceUpdateState] = mustJSON(state)
	c.recompute(p)
	return mismatch, "", nil
}

// becomesUnready: every pod listing the InPlaceUpdateReady gate, except, with
// the vertical-scaling gate, a resources-only update of containers that need
// no restart for it (update-and-ordering 4.5).
func (c *Cluster) becomesUnready(p *model.Pod, spec inplace.Spec) bool {
	if !c.gates.InPlaceWorkloadVerticalScaling || len(spec.Images) > 0 || spec.EnvFromMetadata || len(spec.Resources) == 0 {
		return true
	}
	for name, r := range spec.Resources {
		ctr := specContainer(p, name)
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

func mergeResources(dst *model.ResourceRequirements, r model.ResourceRequirements) {
	for k, v := range r.Limits {
		if dst.Limits == nil {
			dst.Limits = map[string]model.Quantity{}
		}
		dst.Limits[k] = v
	}
	for k, v := range r.Requests {
		if dst.Requests == nil {
			dst.Requests = map[string]model.Quantity{}
		}
		dst.Requests[k] = v
	}
}

// metadataPatch renders the plain metadata patch as upstream's strategic merge
// patch {"metadata": {"labels": {...}, "annotations": {...}}} (null removes).
func metadataPatch(m inplace.MetadataPatch) inplace.MetadataPatchBytes {
	if len(m.SetLabels) == 0 && len(m.RemoveLabels) == 0 && len(m.SetAnnotations) == 0 && len(m.RemoveAnnotations) == 0 {
		return nil
	}
	meta := map[string]map[string]*string{}
	put := func(kind string, set map[string]string, remove []string) {
		if len(set) == 0 && len(remove) == 0 {
			return
		}
		x := map[string]*string{}
		for k, v := range set {
			v := v
			x[k] = &v
		}
		for _, k := range remove {
			x[k] = nil
		}
		meta[kind] = x
	}
	put("labels", m.SetLabels, m.RemoveLabels)
	put("annotations", m.SetAnnotations, m.RemoveAnnotations)
	return inplace.MetadataPatchBytes(mustJSON(map[string]any{"metadata": meta}))
}

func applyMetadata(p *model.Pod, m inplace.MetadataPatch) {
	for k, v := range m.SetLabels {
		p.Labels[k] = v
	}
	for _, k := range m.RemoveLabels {
		delete(p.Labels, k)
	}
	for k, v := range m.SetAnnotations {
		p.Annotations[k] = v
	}
	for _, k := range m.RemoveAnnotations {
		delete(p.Annotations, k)
	}
}

func setCondition(p *model.Pod, typ, status, reason, message string, now time.Time) {
	if cond := p.Condition(typ); cond != nil {
		if cond.Status != status {
			cond.LastTransitionTime = now
		}
		cond.Status, cond.Reason, cond.Message = status, reason, message
		return
	}
	p.Status.Conditions = append(p.Status.Conditions, model.PodCondition{Type: typ, Status: status, Reason: reason, Message: message, LastTransitionTime: now})
}

func (c *Cluster) patchPod(a model.Action) error {
	p, err := c.activePod(a.Pod)
	if err != nil {
		return err
	}
	for _, k := range model.SortedKeys(a.SetLabels) {
		p.Labels[k] = a.SetLabels[k]
	}
	for _, k := range a.RemoveLabels {
		delete(p.Labels, k)
	}
	for _, k := range model.SortedKeys(a.SetAnnotations) {
		p.Annotations[k] = a.SetAnnotations[k]
	}
	for _, k := range a.RemoveAnnotations {
		delete(p.Annotations, k)
	}
	for _, cp := range a.SetConditions {
		setCondition(p, cp.Type, cp.Status, cp.Reason, cp.Message, c.now)
	}
	for _, name := range model.SortedKeys(a.SetImages) {
		ctr := specContainer(p, name)
		if ctr == nil {
			return fmt.Errorf("pod %s has no container %s", a.Pod, name)
		}
		ctr.Image = a.SetImages[name]
	}
	for _, name := range model.SortedKeys(a.SetResources) {
		ctr := specContainer(p, name)
		if ctr == nil {
			return fmt.Errorf("pod %s has no container %s", a.Pod, name)
		}
		rv := a.SetResources[name]
		var r model.ResourceRequirements
		for k, v := range rv.Limits {
			q, err := model.ParseQuantity(v)
			if err != nil {
				return fmt.Errorf("pod %s container %s: %v", a.Pod, name, err)
			}
			if r.Limits == nil {
				r.Limits = map[string]model.Quantity{}
			}
			r.Limits[k] = q
		}
		for k, v := range rv.Requests {
			q, err := model.ParseQuantity(v)
			if err != nil {
				return fmt.Errorf("pod %s container %s: %v", a.Pod, name, err)
			}
			if r.Requests == nil {
				r.Requests = map[string]model.Quantity{}
			}
			r.Requests[k] = q
		}
		mergeResources(&ctr.Resources, r)
	}
	c.recompute(p)
	return nil
}

func (c *Cluster) setPVCOwner(a model.Action) error {
	v := c.pvcs[a.PVC]
	if v == nil {
		return fmt.Errorf("PVC %s not found", a.PVC)
	}
	p := c.pods[a.Pod]
	if p == nil {
		return fmt.Errorf("pod %s (new owner of PVC %s) not found", a.Pod, a.PVC)
	}
	var refs []model.OwnerReference
	for _, r := range v.OwnerReferences {
		r := r
		if !(&r).OwnedBy(c.cs) && !(r.Kind == "CloneSet" && r.Name == c.cs.Name) {
			refs = append(refs, r)
		}
	}
	refs = append(refs, model.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID, Controller: true})
	v.OwnerReferences = refs
	return nil
}
