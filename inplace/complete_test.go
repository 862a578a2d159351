package inplace

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clonecore/cloneset/model"
)

// updatingPod is a pod two containers of which were updated in place: main's image
// changed from nginx:1 (imageID sha-1) to nginx:2.
func updatingPod(state string) *model.Pod {
	p := &model.Pod{
		Name:        "p",
		Labels:      map[string]string{model.LabelRevisionHash: "web-2"},
		Annotations: map[string]string{},
		Spec: model.PodSpec{Containers: []model.Container{
			{Name: "main", Image: "nginx:2"},
			{Name: "side", Image: "busybox"},
		}},
		Status: model.PodStatus{Phase: model.PodRunning, ContainerStatuses: []model.ContainerStatus{
			{Name: "main", Image: "nginx:1", ImageID: "sha-1", ContainerID: "c-main"},
			{Name: "side", Image: "busybox:latest", ImageID: "sha-b", ContainerID: "c-side"},
		}},
	}
	if state != "" {
		p.Annotations[model.AnnotationInPlaceUpdateState] = state
	}
	return p
}

const imageState = `{"revision":"web-2","updateTimestamp":"2026-01-01T12:00:00Z","lastContainerStatuses":{"main":{"imageID":"sha-1"}},"updateImages":true}`

func TestCompletedRules(t *testing.T) {
	vertical := model.FeatureGates{InPlaceWorkloadVerticalScaling: true}
	newImage := func(p *model.Pod) {
		p.Status.ContainerStatuses[0].ImageID, p.Status.ContainerStatuses[0].Image = "sha-2", "nginx:2"
	}
	cases := []struct {
		name    string
		state   string
		gates   model.FeatureGates
		mutate  func(p *model.Pod)
		want    bool
		wantErr string
	}{
		// Rule 1: either grace key, any value, even empty.
		{name: "1 grace key present", state: imageState, mutate: func(p *model.Pod) {
			newImage(p)
			p.Annotations[model.AnnotationInPlaceUpdateGrace] = `{"revision":"web-2"}`
		}, want: false},
		{name: "1 legacy grace key present with empty value", state: imageState, mutate: func(p *model.Pod) {
			newImage(p)
			p.Annotations[model.AnnotationInPlaceUpdateGraceLegacy] = ""
		}, want: false},
		// Rule 2.
		{name: "2 no state annotation", want: true},
		{name: "2 legacy state key is read", mutate: func(p *model.Pod) {
			p.Annotations[model.AnnotationInPlaceUpdateStateLegacy] = imageState
		}, want: false},
		// Rule 3.
		{name: "3 unparsable state", state: `{"revision":`, want: false, wantErr: "unparsable in-place update state"},
		{name: "3 bad timestamp in state", state: `{"revision":"web-2","updateTimestamp":"yesterday"}`, want: false, wantErr: "unparsable"},
		// Rule 4.
		{name: "4 next images", state: `{"revision":"web-2","nextContainerImages":{"side":"busybox:2"}}`, want: false},
		{name: "4 next metadata", state: `{"revision":"web-2","nextContainerRefMetadata":{"side":{"labels":{"v":"2"}}}}`, want: false},
		{name: "4 next resources", state: `{"revision":"web-2","nextContainerResources":{"side":{"limits":{"cpu":"1"}}}}`, want: false},
		// Rule 5.1.
		{name: "5.1 env from metadata without runtime meta", state: `{"revision":"web-2","updateEnvFromMetadata":true}`, want: false},
		{name: "5.1 env from metadata, container id differs", state: `{"revision":"web-2","updateEnvFromMetadata":true}`, mutate: func(p *model.Pod) {
			p.Annotations[model.AnnotationRuntimeContainersMeta] = `{"containers":[{"name":"main","containerID":"old"},{"name":"side","containerID":"c-side"}]}`
		}, want: false},
		{name: "5.1 env from metadata, a container missing in meta", state: `{"revision":"web-2","updateEnvFromMetadata":true}`, mutate: func(p *model.Pod) {
			p.Annotations[model.AnnotationRuntimeContainersMeta] = `{"containers":[{"name":"main","containerID":"c-main"}]}`
		}, want: false},
		// 86995377 is kruise's env-from-metadata hash of a container without such env.
		{name: "5.1 env from metadata, ids and hashes consistent", state: `{"revision":"web-2","updateEnvFromMetadata":true}`, mutate: func(p *model.Pod) {
			p.Annotations[model.AnnotationRuntimeContainersMeta] = `{"containers":[{"name":"main","containerID":"c-main","hashes":{"plainHash":1,"extractedEnvFromMetadataHash":86995377}},` +
				`{"name":"side","containerID":"c-side","hashes":{"extractedEnvFromMetadataHash":86995377}}]}`
		}, want: true},
		{name: "5.1 env from metadata, ids consistent, a hash missing", state: `{"revision":"web-2","updateEnvFromMetadata":true}`, mutate: func(p *model.Pod) {
			p.Annotations[model.AnnotationRuntimeContainersMeta] = `{"containers":[{"name":"main","containerID":"c-main","hashes":{"plainHash":1,"extractedEnvFromMetadataHash":86995377}},{"name":"side","containerID":"c-side"}]}`
		}, want: false},
		{name: "5.1 env from metadata, ids consistent, a hash of the old values", state: `{"revision":"web-2","updateEnvFromMetadata":true}`, mutate: func(p *model.Pod) {
			p.Spec.Containers[1].Env = []model.EnvVar{{Name: "CONFIG", FieldPath: "metadata.annotations['config']"}}
			p.Annotations["config"] = "bar"
			p.Annotations[model.AnnotationRuntimeContainersMeta] = fmt.Sprintf(`{"containers":[{"name":"main","containerID":"c-main","hashes":{"extractedEnvFromMetadataHash":86995377}},`+
				`{"name":"side","containerID":"c-side","hashes":{"extractedEnvFromMetadataHash":%d}}]}`,
				EnvFromMetadataHash(p.Spec.Containers[1].Env, nil, map[string]string{"config": "foo"}))
		}, want: false},
		{name: "5.1 unparsable runtime meta", state: imageState, mutate: func(p *model.Pod) {
			newImage(p)
			p.Annotations[model.AnnotationRuntimeContainersMeta] = `[`
		}, want: false, wantErr: "runtime-containers-meta"},
		// Rule 5.2.
		{name: "5.2 resize: status without resources", state: `{"revision":"web-2","updateResources":true}`, gates: vertical, want: false},
		{name: "5.2 resize: status count differs", state: `{"revision":"web-2","updateResources":true}`, gates: vertical, mutate: func(p *model.Pod) {
			p.Status.ContainerStatuses = p.Status.ContainerStatuses[:1]
		}, want: false},
		{name: "5.2 resize: resources differ", state: `{"revision":"web-2","updateResources":true}`, gates: vertical, mutate: func(p *model.Pod) {
			p.Spec.Containers[0].Resources.Limits = map[string]model.Quantity{"cpu": q("2")}
			p.Status.ContainerStatuses[0].Resources = &model.ResourceRequirements{Limits: map[string]model.Quantity{"cpu": q("1")}}
			p.Status.ContainerStatuses[1].Resources = &model.ResourceRequirements{}
		}, want: false},
		{name: "5.2 resize: resources equal", state: `{"revision":"web-2","updateResources":true}`, gates: vertical, mutate: func(p *model.Pod) {
			p.Spec.Containers[0].Resources.Limits = map[string]model.Quantity{"cpu": q("2")}
			p.Status.ContainerStatuses[0].Resources = &model.ResourceRequirements{Limits: map[string]model.Quantity{"cpu": q("2000m")}}
			p.Status.ContainerStatuses[1].Resources = &model.ResourceRequirements{}
		}, want: true},
		{name: "5.2 gate off: resize not waited for", state: `{"revision":"web-2","updateResources":true}`, want: true},
		// Rule 5.3: the plain-hash shortcut is ignored (docs/spec/DECISIONS.md), the image test decides.
		{name: "5.3 consistent runtime meta does not short-cut the image test", state: imageState, mutate: func(p *model.Pod) {
			p.Annotations[model.AnnotationRuntimeContainersMeta] = `{"containers":[{"name":"main","containerID":"c-main"},{"name":"side","containerID":"c-side"}]}`
		}, want: false},
		// Rule 5.4.
		{name: "5.4 imageID unchanged, image differs", state: imageState, want: false},
		{name: "5.4 imageID changed", state: imageState, mutate: newImage, want: true},
		{name: "5.4 imageID unchanged but status reports the spec image", state: imageState, mutate: func(p *model.Pod) {
			p.Status.ContainerStatuses[0].Image = "nginx:2"
		}, want: true},
		{name: "5.4 spec image without a tag compares as :latest", state: `{"revision":"web-2","lastContainerStatuses":{"side":{"imageID":"sha-b"}}}`, want: true},
		{name: "5.4 spec image with a registry port is not given :latest", state: `{"revision":"web-2","lastContainerStatuses":{"side":{"imageID":"sha-b"}}}`, mutate: func(p *model.Pod) {
			p.Spec.Containers[1].Image = "reg:5000/busybox"
			p.Status.ContainerStatuses[1].Image = "reg:5000/busybox:latest"
		}, want: false},
		{name: "5.4 recorded container without a status entry", state: `{"revision":"web-2","lastContainerStatuses":{"gone":{"imageID":"x"}}}`, want: false},
		// Rule 5.5.
		{name: "5.5 metadata-only update completes at once", state: `{"revision":"web-2","updateTimestamp":"2026-01-01T12:00:00Z","lastContainerStatuses":null}`, want: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := updatingPod(c.state)
			if c.mutate != nil {
				c.mutate(p)
			}
			got, err := Completed(p, c.gates)
			if got != c.want {
				t.Errorf("Completed = %v, want %v", got, c.want)
			}
			switch {
			case c.wantErr == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Errorf("error = %v, want one containing %q", err, c.wantErr)
			}
		})
	}
}
