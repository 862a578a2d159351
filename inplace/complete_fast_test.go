package inplace

import (
	"strings"
	"testing"

	"github.com/clonecore/cloneset/model"
	"pgregory.net/rapid"
)

// containersImagesCompletedMaps is the images part of ContainersCompleted as
// it was written with maps: the reference of TestContainersCompletedMatchesMaps.
func containersImagesCompletedMaps(p *model.Pod, state *State) bool {
	images := make(map[string]string, len(p.Spec.Containers))
	for _, c := range p.Spec.Containers {
		img := c.Image
		if len(strings.Split(img, ":")) <= 1 {
			img += ":latest"
		}
		images[c.Name] = img
	}
	pending := make(map[string]bool, len(state.LastContainerStatuses))
	for name := range state.LastContainerStatuses {
		pending[name] = true
	}
	for _, cs := range p.Status.ContainerStatuses {
		if !pending[cs.Name] {
			continue
		}
		if state.LastContainerStatuses[cs.Name].ImageID == cs.ImageID && images[cs.Name] != cs.Image {
			return false
		}
		delete(pending, cs.Name)
	}
	return len(pending) == 0
}

// ContainersCompleted (without metadata or resize checks) answers as the map
// version, duplicate and missing names included.
func TestContainersCompletedMatchesMaps(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		names := rapid.SampledFrom([]string{"a", "b", "c"})
		images := rapid.SampledFrom([]string{"", "nginx", "nginx:1", "nginx:latest", "x:y:z"})
		ids := rapid.SampledFrom([]string{"", "id1", "id2"})
		p := &model.Pod{}
		for i, n := 0, rapid.IntRange(0, 3).Draw(t, "containers"); i < n; i++ {
			p.Spec.Containers = append(p.Spec.Containers, model.Container{Name: names.Draw(t, "name"), Image: images.Draw(t, "image")})
		}
		for i, n := 0, rapid.IntRange(0, 4).Draw(t, "statuses"); i < n; i++ {
			p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, model.ContainerStatus{
				Name: names.Draw(t, "sname"), Image: images.Draw(t, "simage"), ImageID: ids.Draw(t, "sid"),
			})
		}
		state := &State{}
		if rapid.Bool().Draw(t, "recorded") {
			state.LastContainerStatuses = map[string]ContainerStatusRecord{}
			for i, n := 0, rapid.IntRange(0, 3).Draw(t, "records"); i < n; i++ {
				state.LastContainerStatuses[names.Draw(t, "rname")] = ContainerStatusRecord{ImageID: ids.Draw(t, "rid")}
			}
		}
		got, err := ContainersCompleted(p, state, model.FeatureGates{})
		if want := containersImagesCompletedMaps(p, state); err != nil || got != want {
			t.Fatalf("ContainersCompleted = %v (%v), map version %v", got, err, want)
		}
	})
}
