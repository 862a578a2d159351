package inplace

import (
	"slices"
	"strings"

	"github.com/clonecore/cloneset/model"
)

// Completed is the full "update completed" check of update-and-ordering 4.7, used
// for the Updating → next state transition:
//
//  1. either grace key present (any value) → not completed;
//  2. no state annotation → completed;
//  3. state annotation unparsable → not completed, with the parse error;
//  4. a next-batch map non-empty → not completed;
//  5. otherwise the containers check (see ContainersCompleted).
//
// A non-nil error always comes with false; it names the malformed annotation.
func Completed(p *model.Pod, gates model.FeatureGates) (bool, error) {
	if _, ok := p.Annotations[model.AnnotationInPlaceUpdateGrace]; ok {
		return false, nil
	}
	if _, ok := p.Annotations[model.AnnotationInPlaceUpdateGraceLegacy]; ok {
		return false, nil
	}
	v, ok := p.InPlaceState()
	if !ok {
		return true, nil
	}
	// The common form of the annotation is read without building the state;
	// it has no next batch.
	var sv stateView
	if scanState(v, &sv) {
		return containersCompleted(p, sv.updateEnvFromMetadata, sv.updateResources, sv.records(), gates)
	}
	state, err := unmarshalState(p, v)
	if err != nil {
		return false, err
	}
	if state.HasNextBatch() {
		return false, nil
	}
	return ContainersCompleted(p, state, gates)
}

// ContainersCompleted is the containers part of the completion check
// (update-and-ordering 4.7 rule 5, upstream defaultCheckContainersInPlaceUpdateCompleted),
// also used by the refresh step:
//
//  1. with state.UpdateEnvFromMetadata, the runtime-containers-meta annotation must
//     exist and list every spec container with the containerID of its status entry
//     and the env-from-metadata hash of the pod's labels and annotations as they are
//     (EnvFromMetadataHash): until the node agent has restarted a container whose
//     values changed, the update is not completed;
//  2. with the InPlaceWorkloadVerticalScaling gate and state.UpdateResources, there
//     must be as many container statuses as spec containers and every status must
//     report the spec's limits and requests;
//  3. (the plain-hash shortcut is ignored, docs/spec/DECISIONS.md UO 11.5);
//  4. for every container status named in state.LastContainerStatuses: an unchanged
//     imageID with a status image different from the spec image (a spec image with
//     no ':' compared as "<image>:latest") → not completed; a recorded name without
//     a status entry → not completed;
//  5. otherwise completed.
//
// An unparsable runtime-containers-meta annotation makes the check fail with an
// error (upstream reads it first, whatever the state says).
func ContainersCompleted(p *model.Pod, state *State, gates model.FeatureGates) (bool, error) {
	return containersCompleted(p, state.UpdateEnvFromMetadata, state.UpdateResources, &records{m: state.LastContainerStatuses}, gates)
}

// containersCompleted is ContainersCompleted of a state whose
// updateEnvFromMetadata, updateResources and lastContainerStatuses are given.
func containersCompleted(p *model.Pod, updateEnvFromMetadata, updateResources bool, recs *records, gates model.FeatureGates) (bool, error) {
	meta, err := parseRuntimeMeta(p)
	if err != nil {
		return false, err
	}
	if updateEnvFromMetadata {
		if meta == nil || !envFromMetadataConsistent(p, meta) {
			return false, nil
		}
	}
	if gates.InPlaceWorkloadVerticalScaling && updateResources && !resizeCompleted(p) {
		return false, nil
	}
	// Every recorded container must have a status; the first status of each
	// recorded name is checked (this runs for every pod of a round: no map).
	n := recs.len()
	if n == 0 {
		return true, nil
	}
	seen := 0
	for i, cs := range p.Status.ContainerStatuses {
		id, recorded := recs.get(cs.Name)
		if !recorded || statusNamedBefore(p.Status.ContainerStatuses[:i], cs.Name) {
			continue
		}
		if id == cs.ImageID && specImage(p, cs.Name) != cs.Image {
			return false, nil
		}
		seen++
	}
	return seen == n, nil
}

// specImage is the image of the last spec container named name, with
// ":latest" added when it has no ':' at all; "" when no container has that
// name.
func specImage(p *model.Pod, name string) string {
	for i := len(p.Spec.Containers) - 1; i >= 0; i-- {
		if c := p.Spec.Containers[i]; c.Name == name {
			if !strings.Contains(c.Image, ":") {
				return c.Image + ":latest"
			}
			return c.Image
		}
	}
	return ""
}

func statusNamedBefore(statuses []model.ContainerStatus, name string) bool {
	for _, s := range statuses {
		if s.Name == name {
			return true
		}
	}
	return false
}

// envFromMetadataConsistent is upstream's env-from-metadata hash test: every
// spec container has an entry in the runtime meta (the first of its name)
// with the containerID of its status entry and the hash of the env it
// takes from the pod's labels and annotations as they are now
// (EnvFromMetadataHash), i.e. the node agent has restarted every container
// whose values changed and the kubelet reports the restarted container.
func envFromMetadataConsistent(p *model.Pod, meta *runtimeMeta) bool {
	for _, c := range p.Spec.Containers {
		i := slices.IndexFunc(meta.Containers, func(m runtimeContainer) bool { return m.Name == c.Name })
		if i < 0 {
			return false
		}
		m := meta.Containers[i]
		status := p.ContainerStatus(c.Name)
		if status == nil || status.ContainerID != m.ContainerID {
			return false
		}
		if m.Hashes.ExtractedEnvFromMetadataHash != EnvFromMetadataHash(c.Env, p.Labels, p.Annotations) {
			return false
		}
	}
	return true
}

// resizeCompleted is upstream's vertical IsPodUpdateCompleted: as many statuses as
// spec containers, and every status of a spec container reports the spec's
// resources (numerically equal, same keys; an absent map equals an empty one).
func resizeCompleted(p *model.Pod) bool {
	if len(p.Status.ContainerStatuses) != len(p.Spec.Containers) {
		return false
	}
	for _, cs := range p.Status.ContainerStatuses {
		var spec *model.Container
		for i := range p.Spec.Containers {
			if p.Spec.Containers[i].Name == cs.Name {
				spec = &p.Spec.Containers[i]
			}
		}
		if spec == nil {
			continue
		}
		if cs.Resources == nil || !spec.Resources.Equal(*cs.Resources) {
			return false
		}
	}
	return true
}
