package clonesetcore_test

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"slices"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/model"
)

// observedPods returns the pods the planner must decide on, computed from the
// scenario independently of the planner: active, matching the selector, and
// controlled by the CloneSet or by nothing (orphans are adopted). Keyed by name.
func observedPods(s *model.Scenario) map[string]*model.Pod {
	cs := s.CloneSet
	out := map[string]*model.Pod{}
	for _, p := range s.Pods {
		ref := model.ControllerRef(p.OwnerReferences)
		if ref != nil && !ref.OwnedBy(cs) {
			continue
		}
		if !p.IsActive() || !cs.Spec.Selector.Matches(p.Labels) {
			continue
		}
		out[p.Name] = p
	}
	return out
}

// scaleChange reports whether the action is a scale-phase change (scale-and-budgets
// 4.7): a creation, a deletion, a move into PreparingDelete or a cancelled
// pre-deletion. A PreparingDelete -> PreparingDelete write (T11r) is not a change.
func scaleChange(a model.Action) bool {
	switch a.Type {
	case model.ActionCreatePod, model.ActionDeletePod:
		return true
	case model.ActionSetLifecycleState:
		return (a.To == model.StatePreparingDelete && a.From != model.StatePreparingDelete) ||
			(a.From == model.StatePreparingDelete && a.To == model.StatePreparingNormal)
	}
	return false
}

// rollingUpdate reports whether the action belongs to the rolling update proper
// (update-and-ordering 4.1): an in-place update, a recreate mark, or a move to
// PreparingUpdate.
func rollingUpdate(a model.Action) bool {
	switch a.Type {
	case model.ActionUpdatePodInPlace, model.ActionRecreatePod:
		return true
	case model.ActionSetLifecycleState:
		return a.To == model.StatePreparingUpdate
	}
	return false
}

// refreshChange reports whether the action is a refresh effect that counts as
// "changed" (update-and-ordering 2.2 b, c): a lifecycle transition to Normal or
// Updated, or the pod-template-hash repair.
func refreshChange(a model.Action) bool {
	switch a.Type {
	case model.ActionSetLifecycleState:
		return a.To == model.StateNormal || a.To == model.StateUpdated
	case model.ActionPatchPod:
		_, ok := a.SetLabels[model.LabelPodTemplateHash]
		return ok
	}
	return false
}

// updatePhase reports whether the action can only come from the update phase.
func updatePhase(a model.Action) bool {
	return rollingUpdate(a) || refreshChange(a) || a.Type == model.ActionPatchPod
}

// invariantViolations checks the properties every plan must have, whatever the
// scenario, and returns one sentence per violation.
func invariantViolations(s *model.Scenario, res *clonesetcore.Result) []string {
	var bad []string
	fail := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }
	if res == nil {
		return []string{"nil plan"}
	}
	if _, err := json.Marshal(res); err != nil {
		fail("plan does not marshal: %v", err)
	}
	if res.Actions == nil || res.Notes == nil {
		fail("actions or notes are nil (must be empty lists)")
	}
	cs := s.CloneSet
	m := cs.Spec.MinReadySeconds
	obs := observedPods(s)
	ub := res.Budget
	if res.UpdateBudget != nil {
		ub = *res.UpdateBudget
	}

	var nScale, nUpdate, nRolling, nRefresh, nCreate, nReadyDeleted, nAvailTaken int
	created := map[string]bool{}
	touched := map[string]int{}
	for i, a := range res.Actions {
		if scaleChange(a) {
			nScale++
		}
		if updatePhase(a) {
			nUpdate++
		}
		if rollingUpdate(a) {
			nRolling++
			touched[a.Pod]++
		}
		if refreshChange(a) {
			nRefresh++
		}
		switch a.Type {
		case model.ActionCreatePod:
			if want := bits.Len(uint(nCreate+1)) - 1; a.Batch != want {
				fail("CreatePod #%d %s has batch %d, want %d (slow start 1, 2, 4, ...)", nCreate, a.Pod, a.Batch, want)
			}
			nCreate++
			if created[a.Pod] || obs[a.Pod] != nil {
				fail("CreatePod %s: name already used by an observed or created pod", a.Pod)
			}
			created[a.Pod] = true
			if a.Revision != res.CurrentRevision && a.Revision != res.UpdateRevision {
				fail("CreatePod %s at %s, neither the current nor the update revision", a.Pod, a.Revision)
			}
			continue
		case model.ActionDeletePVC, model.ActionSetPVCOwner:
			continue
		case model.ActionUpdatePodsToDelete:
			for _, b := range res.Actions[i+1:] {
				if b.Type != model.ActionDeleteRevision {
					fail("UpdatePodsToDelete is followed by %s (only history truncation may follow it)", b.Type)
				}
			}
			continue
		case model.ActionCreateRevision, model.ActionUpdateRevision, model.ActionDeleteRevision:
			bad = append(bad, revisionActionViolations(s, res, i)...)
			continue
		case model.ActionCreateImagePullJob, model.ActionLabelRevision, model.ActionDeleteImagePullJob:
			bad = append(bad, preDownloadViolations(s, res, i)...)
			continue
		}
		// Every other action acts on an observed pod: never on a terminating or
		// terminal pod, a released pod or a pod of another owner.
		p := obs[a.Pod]
		if p == nil {
			fail("%s on %q, which is not an observed pod (terminating, terminal, released, foreign or unknown)", a.Type, a.Pod)
			continue
		}
		if rollingUpdate(a) && p.LifecycleState() == model.StatePreparingDelete {
			fail("%s on %s, which is in PreparingDelete", a.Type, a.Pod)
		}
		if rollingUpdate(a) && p.IsAvailable(m, s.Now) {
			nAvailTaken++
		}
		if a.Type == model.ActionDeletePod && p.IsAvailable(0, s.Now) {
			nReadyDeleted++
		}
		// A pod held by the preDelete hook is never deleted; only such a pod
		// enters PreparingDelete (scale-and-budgets 4.5).
		held := preDeleteHeld(cs, p)
		if a.Type == model.ActionDeletePod && held {
			fail("DeletePod %s, which is still held by the preDelete hook", a.Pod)
		}
		if a.Type == model.ActionSetLifecycleState && a.To == model.StatePreparingDelete && !held {
			fail("%s enters PreparingDelete without a preDelete hook holding it", a.Pod)
		}
	}
	for name, n := range touched {
		if n > 1 {
			fail("%d rolling-update actions on pod %s", n, name)
		}
	}
	if nScale > 0 && nUpdate > 0 {
		fail("scale-phase changes and update-phase actions in one plan (one phase per round)")
	}
	if nRefresh > 0 && nRolling > 0 {
		fail("refresh changes and rolling-update actions in one plan")
	}
	if !cs.DeletionTimestamp.IsZero() && (nScale > 0 || nUpdate > 0) {
		fail("the CloneSet is being deleted but the plan scales or updates")
	}
	if nCreate > 0 && nCreate != res.Budget.ScaleUpLimit {
		fail("%d CreatePod, scaleUpLimit %d", nCreate, res.Budget.ScaleUpLimit)
	}
	if nCreate > res.Budget.ScaleUpLimit {
		fail("%d CreatePod > scaleUpLimit %d", nCreate, res.Budget.ScaleUpLimit)
	}
	if res.Budget.ScaleUp > 0 && len(ofType(res, model.ActionDeletePod)) > 0 {
		fail("DeletePod in a round with scaleUp %d", res.Budget.ScaleUp)
	}
	if nReadyDeleted > res.Budget.DeleteReadyLimit {
		fail("%d ready pods deleted > deleteReadyLimit %d", nReadyDeleted, res.Budget.DeleteReadyLimit)
	}
	if limit := max(ub.UpdateMaxUnavailable, 0); nAvailTaken > limit {
		fail("%d available pods taken down for update > max(updateMaxUnavailable, 0) = %d", nAvailTaken, limit)
	}
	if limit := max(ub.UpdateMaxUnavailable, 0); nRolling > limit {
		fail("%d rolling-update actions > max(updateMaxUnavailable, 0) = %d", nRolling, limit)
	}
	if n := ub.UpdateNum; nRolling > max(n, -n) {
		fail("%d rolling-update actions > |updateNum| %d", nRolling, n)
	}

	// Image pre-download: once the rollout is done, every ImagePullJob the
	// CloneSet controls is deleted (image-predownload P2).
	if s.Gates.PreDownloadImageForInPlaceUpdate && res.CurrentRevision == res.UpdateRevision {
		deleted := map[string]int{}
		for _, a := range ofType(res, model.ActionDeleteImagePullJob) {
			deleted[a.ImagePullJob]++
		}
		for _, j := range s.ImagePullJobs {
			if model.ControllerRef(j.OwnerReferences).OwnedBy(cs) && deleted[j.Name] != 1 {
				fail("rollout done: ImagePullJob %s of the CloneSet deleted %d times, want once", j.Name, deleted[j.Name])
			}
		}
	}

	// podsToDelete truncation (scale-and-budgets 6.7).
	var gone []string
	for _, n := range cs.Spec.ScaleStrategy.PodsToDelete {
		if obs[n] == nil {
			gone = append(gone, n)
		}
	}
	trunc := ofType(res, model.ActionUpdatePodsToDelete)
	switch {
	case len(gone) == 0 && len(trunc) > 0:
		fail("UpdatePodsToDelete %v although every listed pod is observed", trunc[0].Remove)
	case len(gone) > 0 && (len(trunc) != 1 || !slices.Equal(trunc[0].Remove, gone)):
		fail("podsToDelete truncation: want one UpdatePodsToDelete removing %v, got %v", gone, trunc)
	}

	// Status counters over the observed pods (LSV 2.2).
	st := res.Status
	if int(st.Replicas) != len(obs) {
		fail("status.replicas %d, %d observed pods", st.Replicas, len(obs))
	}
	// Available implies ready (LSV 2.1), and updated counts are subsets.
	if st.ReadyReplicas > st.Replicas || st.AvailableReplicas > st.ReadyReplicas ||
		st.UpdatedReplicas > st.Replicas || st.UpdatedReadyReplicas > st.UpdatedReplicas ||
		st.UpdatedAvailableReplicas > st.UpdatedReadyReplicas || st.UpdatedAvailableReplicas > st.AvailableReplicas {
		fail("inconsistent status counters %+v", st)
	}
	if res.RequeueAfterSeconds < 0 {
		fail("negative requeue %v", res.RequeueAfterSeconds)
	}
	return bad
}

// revisionActionViolations checks the revision action res.Actions[i] (LSV 2.3,
// 2.7): a CreateRevision or UpdateRevision is the first action and concerns the
// plan's update revision, with a number above every stored one (a created name
// is not stored yet); a DeleteRevision comes after every pod-level action and
// deletes a stored revision that is neither current, update, nor any observed
// pod's.
func revisionActionViolations(s *model.Scenario, res *clonesetcore.Result, i int) []string {
	var bad []string
	fail := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }
	a := res.Actions[i]
	stored := map[string]*model.Revision{}
	var highest int64
	for _, r := range s.Revisions {
		stored[r.Name] = r
		highest = max(highest, r.Revision)
	}
	switch a.Type {
	case model.ActionCreateRevision, model.ActionUpdateRevision:
		if i != 0 {
			fail("%s %s is action #%d, not the first", a.Type, a.Revision, i)
		}
		if a.Revision != res.UpdateRevision {
			fail("%s %s is not the update revision %s", a.Type, a.Revision, res.UpdateRevision)
		}
		if a.RevisionNumber != highest+1 {
			fail("%s %s with revision %d, want the newest stored + 1 = %d", a.Type, a.Revision, a.RevisionNumber, highest+1)
		}
		if (stored[a.Revision] != nil) != (a.Type == model.ActionUpdateRevision) {
			fail("%s %s: stored %v", a.Type, a.Revision, stored[a.Revision] != nil)
		}
	case model.ActionDeleteRevision:
		for _, b := range res.Actions[i+1:] {
			if b.Type != model.ActionDeleteRevision {
				fail("DeleteRevision %s is followed by %s", a.Revision, b.Type)
			}
		}
		if stored[a.Revision] == nil {
			fail("DeleteRevision %s, which is not stored", a.Revision)
		}
		if a.Revision == res.CurrentRevision || a.Revision == res.UpdateRevision {
			fail("DeleteRevision %s, the current or update revision", a.Revision)
		}
		for _, p := range observedPods(s) {
			if p.InRevision(a.Revision) {
				fail("DeleteRevision %s, the revision of pod %s", a.Revision, p.Name)
			}
		}
	}
	return bad
}

// preDownloadViolations checks the image pre-download action res.Actions[i]
// (image-predownload P1-P6): only with the gate on; after the revision
// write and the PVC clean-up and before every pod-level action; a create
// and the mark while a rollout goes on, for the update revision, a job per
// container whose image the update revision changes, named after them,
// then one mark, and none on a revision already marked; a delete once the
// rollout is done, of a job the CloneSet controls.
func preDownloadViolations(s *model.Scenario, res *clonesetcore.Result, i int) []string {
	var bad []string
	fail := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }
	a := res.Actions[i]
	if !s.Gates.PreDownloadImageForInPlaceUpdate {
		fail("%s with the PreDownloadImageForInPlaceUpdate gate off", a.Type)
	}
	for _, b := range res.Actions[:i] {
		switch b.Type {
		case model.ActionCreateRevision, model.ActionUpdateRevision, model.ActionDeletePVC, model.ActionSetPVCOwner,
			model.ActionCreateImagePullJob, model.ActionDeleteImagePullJob:
		default:
			fail("%s comes after %s", a.Type, b.Type)
		}
	}
	done := res.CurrentRevision == res.UpdateRevision
	var update *model.Revision
	for _, r := range s.Revisions {
		if r.Name == res.UpdateRevision {
			update = r
		}
	}
	switch a.Type {
	case model.ActionDeleteImagePullJob:
		if !done {
			fail("DeleteImagePullJob %s while the rollout goes on", a.ImagePullJob)
		}
		found := false
		for _, j := range s.ImagePullJobs {
			found = found || j.Name == a.ImagePullJob && model.ControllerRef(j.OwnerReferences).OwnedBy(s.CloneSet)
		}
		if !found {
			fail("DeleteImagePullJob %s: not a job of the CloneSet", a.ImagePullJob)
		}
	case model.ActionCreateImagePullJob, model.ActionLabelRevision:
		if done {
			fail("%s once the rollout is done", a.Type)
		}
		if a.Revision != res.UpdateRevision {
			fail("%s for %s, not the update revision %s", a.Type, a.Revision, res.UpdateRevision)
		}
		if update != nil {
			for _, k := range []string{model.LabelImagePreDownloadCreated, model.LabelImagePreDownloadIgnored} {
				if _, ok := update.Labels[k]; ok {
					fail("%s: the update revision is marked %s already", a.Type, k)
				}
			}
		}
	}
	switch a.Type {
	case model.ActionCreateImagePullJob:
		if a.ImagePullJob != a.Revision+"-"+a.Container {
			fail("ImagePullJob %s, want <revision>-<container> %s-%s", a.ImagePullJob, a.Revision, a.Container)
		}
		// The template of the update revision is spec.template.
		found := false
		for _, c := range s.CloneSet.Spec.Template.Spec.Containers {
			found = found || c.Name == a.Container && c.Image == a.Image
		}
		if !found {
			fail("CreateImagePullJob %s: container %s has no image %s in spec.template", a.ImagePullJob, a.Container, a.Image)
		}
		if len(ofType(res, model.ActionLabelRevision)) != 1 {
			fail("CreateImagePullJob %s without the revision's mark", a.ImagePullJob)
		}
	case model.ActionLabelRevision:
		if len(a.SetLabels) != 1 || (a.SetLabels[model.LabelImagePreDownloadCreated] != "true" && a.SetLabels[model.LabelImagePreDownloadIgnored] != "true") {
			fail("LabelRevision sets %v, want one pre-download mark", a.SetLabels)
		}
		if a.SetLabels[model.LabelImagePreDownloadIgnored] != "" && len(ofType(res, model.ActionCreateImagePullJob)) > 0 {
			fail("the revision is marked ignored, yet ImagePullJobs are created")
		}
		for _, b := range res.Actions[i+1:] {
			if b.Type == model.ActionCreateImagePullJob || b.Type == model.ActionLabelRevision {
				fail("LabelRevision is followed by %s", b.Type)
			}
		}
	}
	return bad
}

// preDeleteHeld is Hooked(p) of scale-and-budgets 1.9: spec.lifecycle.preDelete
// is set and one of its finalizers, or one of its label pairs, is on the pod.
func preDeleteHeld(cs *model.CloneSet, p *model.Pod) bool {
	if cs.Spec.Lifecycle == nil || cs.Spec.Lifecycle.PreDelete == nil {
		return false
	}
	h := cs.Spec.Lifecycle.PreDelete
	for _, f := range h.FinalizersHandler {
		if slices.Contains(p.Finalizers, f) {
			return true
		}
	}
	for k, v := range h.LabelsHandler {
		if got, ok := p.Labels[k]; ok && got == v {
			return true
		}
	}
	return false
}
