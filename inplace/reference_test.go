package inplace

// The refresh bookkeeping and the completion check as written before the
// allocation work (the state annotation always parsed into a State, the
// records read from its map), over a state reader that only uses
// json.Unmarshal: the references of TestPropertyRefreshMatchesReference.
// Copied verbatim but for the names.

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/clonecore/cloneset/model"
)

// parseStateRef is ParseState with json.Unmarshal only.
func parseStateRef(p *model.Pod) (*State, bool, error) {
	v, ok := p.InPlaceState()
	if !ok {
		return nil, false, nil
	}
	s := &State{}
	if err := json.Unmarshal([]byte(v), s); err != nil {
		return nil, true, fmt.Errorf("pod %s: unparsable in-place update state annotation: %w", p.Name, err)
	}
	return s, true, nil
}

func refreshRef(p *model.Pod, gates model.FeatureGates, now time.Time) ([]model.Action, time.Duration, error) {
	if p.GraceValue() != "" {
		return finishGrace(p, now) // unchanged by the allocation work
	}
	state, ok, err := parseStateRef(p)
	if err != nil {
		return nil, 0, err
	}
	if ok {
		if done, _ := containersCompletedRef(p, state, gates); !done {
			return nil, 0, nil
		}
		if state.HasNextBatch() {
			if !preCheckPassed(p, state.PreCheckBeforeNext) {
				return nil, 0, nil
			}
			if len(state.NextContainerImages) > 0 || len(state.NextContainerRefMetadata) > 0 {
				ch := change{images: state.NextContainerImages, refMeta: state.NextContainerRefMetadata, resources: state.NextContainerResources}
				a, err := applyChange(p, *state, ch, now, false)
				if err != nil {
					return nil, 0, err
				}
				a.Reason = "apply the next in-place update batch: " + a.Reason
				return []model.Action{a}, 0, nil
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

func completedRef(p *model.Pod, gates model.FeatureGates) (bool, error) {
	if _, ok := p.Annotations[model.AnnotationInPlaceUpdateGrace]; ok {
		return false, nil
	}
	if _, ok := p.Annotations[model.AnnotationInPlaceUpdateGraceLegacy]; ok {
		return false, nil
	}
	state, ok, err := parseStateRef(p)
	if err != nil {
		return false, err
	}
	if !ok {
		return true, nil
	}
	if state.HasNextBatch() {
		return false, nil
	}
	return containersCompletedRef(p, state, gates)
}

func containersCompletedRef(p *model.Pod, state *State, gates model.FeatureGates) (bool, error) {
	meta, err := parseRuntimeMeta(p)
	if err != nil {
		return false, err
	}
	if state.UpdateEnvFromMetadata {
		if meta == nil || !envFromMetadataConsistent(p, meta) {
			return false, nil
		}
	}
	if gates.InPlaceWorkloadVerticalScaling && state.UpdateResources && !resizeCompleted(p) {
		return false, nil
	}
	// Every recorded container must have a status; the first status of each
	// recorded name is checked (this runs for every pod of a round: no map).
	seen := 0
	for i, cs := range p.Status.ContainerStatuses {
		rec, recorded := state.LastContainerStatuses[cs.Name]
		if !recorded || statusNamedBefore(p.Status.ContainerStatuses[:i], cs.Name) {
			continue
		}
		if rec.ImageID == cs.ImageID && specImage(p, cs.Name) != cs.Image {
			return false, nil
		}
		seen++
	}
	return seen == len(state.LastContainerStatuses), nil
}
