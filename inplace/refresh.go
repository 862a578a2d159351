package inplace

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/clonecore/cloneset/model"
)

// RefreshNeeded reports whether Refresh can do anything for the pod. It is
// false only when the pod has no in-place grace value, no in-place update
// state annotation (under either key) and, if it lists the
// InPlaceUpdateReady readiness gate, an InPlaceUpdateReady condition that is
// already True with empty reason and message. Refresh then returns no action,
// no wait and no error, whatever the gates and the time: a caller that reads
// each pod once (while its maps are in the processor's cache) may decide
// there to skip Refresh later.
func RefreshNeeded(p *model.Pod) bool {
	return p.GraceValue() != "" || refreshNeededOutsideGrace(p)
}

// RefreshFacts returns, read together, whether the pod is in an in-place
// grace period (a non-empty grace value, model.Pod.GraceValue) and
// RefreshNeeded(p): the annotations are looked up once for both.
func RefreshFacts(p *model.Pod) (inGrace, needed bool) {
	if p.GraceValue() != "" {
		return true, true
	}
	return false, refreshNeededOutsideGrace(p)
}

// refreshNeededOutsideGrace is RefreshNeeded for a pod without a grace value.
func refreshNeededOutsideGrace(p *model.Pod) bool {
	if _, ok := p.InPlaceState(); ok {
		return true
	}
	if !p.Spec.HasReadinessGate(model.ConditionInPlaceUpdateReady) {
		return false
	}
	c := p.Condition(model.ConditionInPlaceUpdateReady)
	return c == nil || c.Status != "True" || c.Reason != "" || c.Message != ""
}

// Refresh is the in-place bookkeeping of the refresh step for one pod
// (update-and-ordering 2.2 (a), 4.6), evaluated at now. It returns the PatchPod
// actions to apply (at most one), the requeue delay to push (R3 of
// lifecycle-status-validation 3.2; zero when none) and an error when an annotation it
// must read is malformed, which aborts the update step.
//
//  1. A pod in grace (non-empty grace annotation): if the pod no longer belongs to
//     the revision stored in the grace annotation, the annotation is dropped and
//     nothing is applied; else, while now − state.updateTimestamp is below the
//     stored grace seconds, nothing is written and the remaining time rounded up to
//     whole seconds is returned; else the stored update is applied and the grace
//     annotation removed. A missing state annotation is an error. Either way the
//     bookkeeping stops there.
//  2. A pod with a state annotation whose containers have not finished updating
//     gets nothing. If a next batch is pending and every container of
//     preCheckBeforeNext.containersRequiredReady is ready, a next batch carrying
//     images or metadata is applied and the bookkeeping stops; a batch of resources
//     only is never applied (upstream quirk, UO 11.6) and the pod goes on to step 3.
//  3. A pod listing the InPlaceUpdateReady readiness gate whose InPlaceUpdateReady
//     condition is not already True with empty reason and message gets it set to True.
//
// None of these effects counts as "changed" for the refresh step.
//
// The PatchPod of an applied update carries the labels and annotations it sets
// (including the rewritten state annotation) and removes; container images and
// resources and removed labels, which PatchPod has no fields for, are listed in its
// reason.
func Refresh(p *model.Pod, gates model.FeatureGates, now time.Time) ([]model.Action, time.Duration, error) {
	if p.GraceValue() != "" {
		return finishGrace(p, now)
	}
	if v, ok := p.InPlaceState(); ok {
		// The common form of the annotation (a finished or running update
		// of images) is read without building the state; it has no next
		// batch.
		var sv stateView
		if scanState(v, &sv) {
			if done, _ := containersCompleted(p, sv.updateEnvFromMetadata, sv.updateResources, sv.records(), gates); !done {
				return nil, 0, nil
			}
		} else {
			state, err := unmarshalState(p, v)
			if err != nil {
				return nil, 0, err
			}
			if a, stop, err := refreshState(p, state, gates, now); stop {
				return a, 0, err
			}
		}
	}
	if p.Spec.HasReadinessGate(model.ConditionInPlaceUpdateReady) {
		c := p.Condition(model.ConditionInPlaceUpdateReady)
		if c == nil || c.Status != "True" || c.Reason != "" || c.Message != "" {
			return []model.Action{{
				Type:          model.ActionPatchPod,
				Pod:           p.Name,
				SetConditions: []model.ConditionPatch{{Type: model.ConditionInPlaceUpdateReady, Status: "True"}},
				Reason:        "in-place update ready: set InPlaceUpdateReady to True",
			}}, 0, nil
		}
	}
	return nil, 0, nil
}

// refreshState is step 2 of Refresh for a pod with the given state; stop
// tells whether the bookkeeping ends there with the given actions or error.
func refreshState(p *model.Pod, state *State, gates model.FeatureGates, now time.Time) (_ []model.Action, stop bool, _ error) {
	if done, _ := ContainersCompleted(p, state, gates); !done {
		return nil, true, nil
	}
	if !state.HasNextBatch() {
		return nil, false, nil
	}
	if !preCheckPassed(p, state.PreCheckBeforeNext) {
		return nil, true, nil
	}
	if len(state.NextContainerImages) == 0 && len(state.NextContainerRefMetadata) == 0 {
		// A batch of resources only is never applied (UO 11.6).
		return nil, false, nil
	}
	ch := change{images: state.NextContainerImages, refMeta: state.NextContainerRefMetadata, resources: state.NextContainerResources}
	a, err := applyChange(p, *state, ch, now, false)
	if err != nil {
		return nil, true, err
	}
	a.Reason = "apply the next in-place update batch: " + a.Reason
	return []model.Action{a}, true, nil
}

// GraceRemaining returns how long the pod's grace period still runs at now, rounded
// up to whole seconds, and whether the pod is in a grace period that has not ended
// (it belongs to the revision stored in the grace annotation and the time is not
// over). Malformed annotations are errors.
func GraceRemaining(p *model.Pod, now time.Time) (time.Duration, bool, error) {
	pending, ok, err := ParsePending(p)
	if err != nil || !ok {
		return 0, false, err
	}
	if !p.InRevision(pending.Revision) {
		return 0, false, nil
	}
	state, ok, err := ParseState(p)
	if err != nil {
		return 0, false, err
	}
	if !ok {
		return 0, false, fmt.Errorf("pod %s: in-place update state not found while in a grace period", p.Name)
	}
	d := graceLeft(pending.GraceSeconds, state.UpdateTimestamp.Time, now)
	if d <= 0 {
		return 0, false, nil
	}
	return roundUpSeconds(d), true, nil
}

func finishGrace(p *model.Pod, now time.Time) ([]model.Action, time.Duration, error) {
	pending, _, err := ParsePending(p)
	if err != nil {
		return nil, 0, err
	}
	if !p.InRevision(pending.Revision) {
		return []model.Action{{
			Type:              model.ActionPatchPod,
			Pod:               p.Name,
			RemoveAnnotations: graceKeys(p),
			Reason: fmt.Sprintf("drop the in-place grace period: pod no longer belongs to revision %s (revision label %q); nothing applied",
				pending.Revision, p.RevisionLabel()),
		}}, 0, nil
	}
	state, ok, err := ParseState(p)
	if err != nil {
		return nil, 0, err
	}
	if !ok {
		return nil, 0, fmt.Errorf("pod %s: in-place update state not found while in a grace period", p.Name)
	}
	if d := graceLeft(pending.GraceSeconds, state.UpdateTimestamp.Time, now); d > 0 {
		return nil, roundUpSeconds(d), nil
	}
	ch := change{images: pending.ContainerImages, refMeta: pending.ContainerRefMetadata,
		resources: pending.ContainerResources, metaPatch: pending.MetaDataPatch}
	a, err := applyChange(p, *state, ch, now, true)
	if err != nil {
		return nil, 0, err
	}
	a.Reason = fmt.Sprintf("in-place grace period over (%ds): apply the pending update to revision %s: %s",
		pending.GraceSeconds, pending.Revision, a.Reason)
	return []model.Action{a}, 0, nil
}

// roundUpSeconds rounds a positive duration up to whole seconds.
func roundUpSeconds(d time.Duration) time.Duration {
	if d%time.Second == 0 {
		return d
	}
	return (d/time.Second + 1) * time.Second
}

func graceKeys(p *model.Pod) []string {
	var keys []string
	for _, k := range []string{model.AnnotationInPlaceUpdateGrace, model.AnnotationInPlaceUpdateGraceLegacy} {
		if _, ok := p.Annotations[k]; ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

func preCheckPassed(p *model.Pod, pc *PreCheck) bool {
	if pc == nil {
		return true
	}
	for _, name := range pc.ContainersRequiredReady {
		if cs := p.ContainerStatus(name); cs == nil || !cs.Ready {
			return false
		}
	}
	return true
}

// change is an update description to apply to a pod.
type change struct {
	images    map[string]string
	refMeta   map[string]ObjectMeta
	resources map[string]Resources
	metaPatch []byte
}

// applyChange renders applying ch to the pod as one PatchPod (upstream
// defaultPatchUpdateSpecToPod): the batch of SplitBatch now, the rest as the
// state's next batch. The state is rewritten (State.RecordBatch): next batch,
// lastContainerStatuses completed with the current imageIDs of the containers whose
// image changes now, a batch record appended. The returned reason lists the changes.
func applyChange(p *model.Pod, state State, ch change, now time.Time, removeGrace bool) (model.Action, error) {
	a := model.Action{Type: model.ActionPatchPod, Pod: p.Name, SetLabels: map[string]string{}, SetAnnotations: map[string]string{}}
	var notes []string
	removeAnn := map[string]bool{}
	if len(ch.metaPatch) > 0 {
		var patch struct {
			Metadata map[string]json.RawMessage `json:"metadata"`
		}
		if err := json.Unmarshal(ch.metaPatch, &patch); err != nil {
			return a, fmt.Errorf("pod %s: unparsable metaDataPatch in the in-place grace annotation: %w", p.Name, err)
		}
		var others []string
		for _, k := range model.SortedKeys(patch.Metadata) {
			switch k {
			case "labels", "annotations":
				var m map[string]*string
				if err := json.Unmarshal(patch.Metadata[k], &m); err != nil {
					return a, fmt.Errorf("pod %s: unparsable metaDataPatch %s in the in-place grace annotation: %w", p.Name, k, err)
				}
				for _, key := range model.SortedKeys(m) {
					v := m[key]
					switch {
					case k == "labels" && v != nil:
						a.SetLabels[key] = *v
					case k == "labels":
						a.RemoveLabels = append(a.RemoveLabels, key)
						notes = append(notes, "remove label "+key)
					case v != nil:
						a.SetAnnotations[key] = *v
					default:
						removeAnn[key] = true
					}
				}
			default:
				others = append(others, k)
			}
		}
		if len(others) > 0 {
			notes = append(notes, "patch metadata "+strings.Join(others, ", "))
		}
	}
	batch, deferred, names, err := SplitBatch(p, Change{Images: ch.images, RefMetadata: ch.refMeta, Resources: ch.resources})
	if err != nil {
		return a, err
	}
	for _, name := range names {
		if img, ok := batch.Images[name]; ok {
			if a.SetImages == nil {
				a.SetImages = map[string]string{}
			}
			a.SetImages[name] = img
			notes = append(notes, "set image "+name+"="+img)
		}
		if m, ok := batch.RefMetadata[name]; ok {
			for _, k := range model.SortedKeys(m.Labels) {
				a.SetLabels[k] = m.Labels[k]
			}
			for _, k := range model.SortedKeys(m.Annotations) {
				a.SetAnnotations[k] = m.Annotations[k]
			}
		}
		if r, ok := batch.Resources[name]; ok {
			var xs []string
			for _, k := range model.SortedKeys(r.Limits) {
				xs = append(xs, "limits."+k+"="+string(r.Limits[k]))
			}
			for _, k := range model.SortedKeys(r.Requests) {
				xs = append(xs, "requests."+k+"="+string(r.Requests[k]))
			}
			notes = append(notes, "set resources "+name+" "+strings.Join(xs, " "))
			rv := model.ResourceValues{}
			for _, k := range model.SortedKeys(r.Limits) {
				if rv.Limits == nil {
					rv.Limits = map[string]string{}
				}
				rv.Limits[k] = string(r.Limits[k])
			}
			for _, k := range model.SortedKeys(r.Requests) {
				if rv.Requests == nil {
					rv.Requests = map[string]string{}
				}
				rv.Requests[k] = string(r.Requests[k])
			}
			if a.SetResources == nil {
				a.SetResources = map[string]model.ResourceValues{}
			}
			a.SetResources[name] = rv
		}
	}
	if !deferred.Empty() {
		notes = append(notes, "defer "+strings.Join(deferred.Containers(), ", ")+" to the next batch (launch priority)")
	}
	// Rewrite the state.
	state.RecordBatch(p, batch, deferred, names, now)
	b, err := json.Marshal(state)
	if err != nil {
		return a, fmt.Errorf("pod %s: cannot write the in-place update state: %w", p.Name, err)
	}
	a.SetAnnotations[model.AnnotationInPlaceUpdateState] = string(b)
	if removeGrace {
		for _, k := range graceKeys(p) {
			removeAnn[k] = true
		}
	}
	for k := range removeAnn {
		delete(a.SetAnnotations, k)
	}
	a.RemoveAnnotations = model.SortedKeys(removeAnn)
	if len(a.SetLabels) == 0 {
		a.SetLabels = nil
	}
	if len(a.RemoveAnnotations) == 0 {
		a.RemoveAnnotations = nil
	}
	if len(notes) == 0 {
		notes = append(notes, "metadata only")
	}
	a.Reason = strings.Join(notes, "; ")
	return a, nil
}
