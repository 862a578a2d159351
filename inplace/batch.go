package inplace

import (
	"fmt"
	"maps"
	"time"

	"github.com/clonecore/cloneset/model"
)

// Change is what an in-place update applies to a pod's containers, by
// container name: new images, the labels and annotations the containers'
// env refers to, new resources.
type Change struct {
	// Images maps a container name to its new image.
	Images map[string]string
	// RefMetadata maps a container name to the labels and annotations its
	// env refers to, with their new values.
	RefMetadata map[string]ObjectMeta
	// Resources maps a container name to its new resources.
	Resources map[string]Resources
}

// Empty reports whether the change touches no container.
func (c Change) Empty() bool {
	return len(c.Images) == 0 && len(c.RefMetadata) == 0 && len(c.Resources) == 0
}

// Containers are the names of the containers the change touches, sorted.
func (c Change) Containers() []string {
	names := map[string]bool{}
	for name := range c.Images {
		names[name] = true
	}
	for name := range c.RefMetadata {
		names[name] = true
	}
	for name := range c.Resources {
		names[name] = true
	}
	return model.SortedKeys(names)
}

// SplitBatch splits a change by the containers' launch priorities, as one
// pod update of upstream's in-place update does (kruise
// pkg/util/inplaceupdate defaultPatchUpdateSpecToPod; update-and-ordering
// 4.5). The batch applied now holds every container of the pod that the
// change touches and has no launch priority (model.Container.LaunchPriority),
// every such container whose priority is the highest among them, and,
// repeated until nothing is added, every container whose referenced
// metadata shares a label key or an annotation key with that of a container
// already in the batch. The rest of the change is deferred (next):
//
//   - images and resources of the pod's containers outside the batch; those
//     of a name the pod has no container for are dropped, as upstream drops
//     them;
//   - referenced metadata of every name outside the batch.
//
// containers are the names of the batch, sorted. Without launch priorities
// next is empty and the batch is every container the change touches. A
// malformed launch barrier is an error naming the pod and the container.
func SplitBatch(p *model.Pod, ch Change) (now, next Change, containers []string, err error) {
	chosen := map[string]bool{}
	var highest int
	var highestNames []string
	for i := range p.Spec.Containers {
		c := &p.Spec.Containers[i]
		_, image := ch.Images[c.Name]
		_, meta := ch.RefMetadata[c.Name]
		_, res := ch.Resources[c.Name]
		if !image && !meta && !res {
			continue
		}
		priority, ok, err := c.LaunchPriority()
		switch {
		case err != nil:
			return Change{}, Change{}, nil, fmt.Errorf("pod %s: %w", p.Name, err)
		case !ok:
			chosen[c.Name] = true
		case highestNames == nil || priority > highest:
			highest, highestNames = priority, []string{c.Name}
		case priority == highest:
			highestNames = append(highestNames, c.Name)
		}
	}
	for _, name := range highestNames {
		chosen[name] = true
	}
	addMetadataSharers(chosen, ch.RefMetadata)

	for _, c := range p.Spec.Containers {
		if image, ok := ch.Images[c.Name]; ok {
			now.Images, next.Images = put(now.Images, next.Images, chosen[c.Name], c.Name, image)
		}
		if r, ok := ch.Resources[c.Name]; ok {
			now.Resources, next.Resources = put(now.Resources, next.Resources, chosen[c.Name], c.Name, r)
		}
	}
	for _, name := range model.SortedKeys(ch.RefMetadata) {
		now.RefMetadata, next.RefMetadata = put(now.RefMetadata, next.RefMetadata, chosen[name], name, ch.RefMetadata[name])
	}
	return now, next, model.SortedKeys(chosen), nil
}

// put sets name to v in now when inNow, else in next, making the map it
// writes.
func put[V any](now, next map[string]V, inNow bool, name string, v V) (map[string]V, map[string]V) {
	target := &next
	if inNow {
		target = &now
	}
	if *target == nil {
		*target = map[string]V{}
	}
	(*target)[name] = v
	return now, next
}

// addMetadataSharers adds to chosen, until nothing is added, every name of
// refMeta whose labels or annotations share a key with those of a chosen
// name (upstream addMetadataSharedContainersToUpdate: two containers whose
// env reads the same label or annotation restart together).
func addMetadataSharers(chosen map[string]bool, refMeta map[string]ObjectMeta) {
	names := model.SortedKeys(refMeta)
	for {
		labels, annotations := map[string]bool{}, map[string]bool{}
		for _, name := range names {
			if chosen[name] {
				for k := range refMeta[name].Labels {
					labels[k] = true
				}
				for k := range refMeta[name].Annotations {
					annotations[k] = true
				}
			}
		}
		added := false
		for _, name := range names {
			if chosen[name] || !(sharesKey(refMeta[name].Labels, labels) || sharesKey(refMeta[name].Annotations, annotations)) {
				continue
			}
			chosen[name], added = true, true
		}
		if !added {
			return
		}
	}
}

func sharesKey(m map[string]string, keys map[string]bool) bool {
	for k := range m {
		if keys[k] {
			return true
		}
	}
	return false
}

// RecordBatch writes into the state what a pod update that applies the
// batch now (of the given containers, SplitBatch) at t leaves there, as
// upstream does: the deferred part as the next batch, with
// preCheckBeforeNext requiring the batch's containers ready (none when
// nothing is deferred); the status imageID of each container whose image
// changes now, unless already recorded; a batch record.
func (s *State) RecordBatch(p *model.Pod, now, next Change, containers []string, t time.Time) {
	s.NextContainerImages, s.NextContainerRefMetadata, s.NextContainerResources = next.Images, next.RefMetadata, next.Resources
	s.PreCheckBeforeNext = nil
	if !next.Empty() {
		s.PreCheckBeforeNext = &PreCheck{ContainersRequiredReady: append([]string{}, containers...)}
	}
	recorded := maps.Clone(s.LastContainerStatuses)
	for _, cs := range p.Status.ContainerStatuses {
		if _, ok := now.Images[cs.Name]; !ok {
			continue
		}
		if _, ok := recorded[cs.Name]; ok {
			continue
		}
		if recorded == nil {
			recorded = map[string]ContainerStatusRecord{}
		}
		recorded[cs.Name] = ContainerStatusRecord{ImageID: cs.ImageID}
	}
	s.LastContainerStatuses = recorded
	s.ContainerBatchesRecord = append(append([]Batch(nil), s.ContainerBatchesRecord...),
		Batch{Timestamp: Time{t}, Containers: append([]string{}, containers...)})
}
