package clustertest

import (
	"errors"
	"fmt"

	"github.com/clonecore/cloneset/examples/kubecontroller/internal/e2ekit"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// CloneSet is the JSON of a CloneSet named "web" (apps.kruise.io/v1beta1)
// with selector and template label app=web, one container "main" of image
// web:1, the given replicas and update strategy (JSON), and extra (JSON
// members, each starting with a comma) added to its spec. With a preDelete
// hook in extra, the template carries the hook's finalizer
// example.com/hook (as a pod must, to be held by it). TestEndToEnd rolls out
// the same CloneSets.
func CloneSet(replicas int, strategy, extra string) string {
	return e2ekit.CloneSet(`{"name": "web"}`, replicas, strategy, extra)
}

// Update strategies for CloneSet.
const (
	// InPlace updates in place when it can, one pod unavailable at a time.
	InPlace = e2ekit.InPlace
	// RecreateSurge recreates pods, one unavailable and one surge pod at a
	// time.
	RecreateSurge = e2ekit.RecreateSurge
)

// firstContainer returns the template's containers and the first one.
func firstContainer(cs *unstructured.Unstructured) ([]any, map[string]any, error) {
	containers, _, err := unstructured.NestedSlice(cs.Object, "spec", "template", "spec", "containers")
	if err != nil {
		return nil, nil, err
	}
	if len(containers) == 0 {
		return nil, nil, errors.New("the template has no container")
	}
	first, ok := containers[0].(map[string]any)
	if !ok {
		return nil, nil, errors.New("the template's first container is not an object")
	}
	return containers, first, nil
}

// editFirstContainer changes the template's first container with edit.
func editFirstContainer(cs *unstructured.Unstructured, edit func(map[string]any)) error {
	containers, first, err := firstContainer(cs)
	if err != nil {
		return err
	}
	edit(first)
	return unstructured.SetNestedSlice(cs.Object, containers, "spec", "template", "spec", "containers")
}

// SetImage sets the first container's image.
func SetImage(image string) Change {
	return Change{Name: "image " + image, Edit: func(cs *unstructured.Unstructured, _ []corev1.Pod) error {
		return editFirstContainer(cs, func(c map[string]any) { c["image"] = image })
	}}
}

// SetEnv sets an environment variable of the first container (a change
// that cannot be made in place).
func SetEnv(name, value string) Change {
	return Change{Name: fmt.Sprintf("env %s=%s", name, value), Edit: func(cs *unstructured.Unstructured, _ []corev1.Pod) error {
		return editFirstContainer(cs, func(c map[string]any) {
			c["env"] = []any{map[string]any{"name": name, "value": value}}
		})
	}}
}

// SetResources sets the first container's resources (requests and limits
// of cpu and memory, as quantities).
func SetResources(requestCPU, requestMemory, limitCPU, limitMemory string) Change {
	return Change{Name: fmt.Sprintf("resources %s/%s, limits %s/%s", requestCPU, requestMemory, limitCPU, limitMemory),
		Edit: func(cs *unstructured.Unstructured, _ []corev1.Pod) error {
			return editFirstContainer(cs, func(c map[string]any) {
				c["resources"] = map[string]any{
					"requests": map[string]any{"cpu": requestCPU, "memory": requestMemory},
					"limits":   map[string]any{"cpu": limitCPU, "memory": limitMemory},
				}
			})
		}}
}

// SetTemplateLabel sets a label of the pod template.
func SetTemplateLabel(key, value string) Change {
	return Change{Name: fmt.Sprintf("template label %s=%s", key, value), Edit: func(cs *unstructured.Unstructured, _ []corev1.Pod) error {
		return unstructured.SetNestedField(cs.Object, value, "spec", "template", "metadata", "labels", key)
	}}
}

// SetPartition sets rollingUpdate.partition (an int or a percentage).
func SetPartition(partition any) Change {
	return Change{Name: fmt.Sprintf("partition %v", partition), Edit: func(cs *unstructured.Unstructured, _ []corev1.Pod) error {
		v := partition
		if n, ok := partition.(int); ok {
			v = int64(n)
		}
		return unstructured.SetNestedField(cs.Object, v, "spec", "updateStrategy", "rollingUpdate", "partition")
	}}
}

// Scale sets spec.replicas.
func Scale(replicas int) Change {
	return Change{Name: fmt.Sprintf("replicas %d", replicas), Edit: func(cs *unstructured.Unstructured, _ []corev1.Pod) error {
		return unstructured.SetNestedField(cs.Object, int64(replicas), "spec", "replicas")
	}}
}

// ScaleInDeletingFirst sets spec.replicas and names the first pod (by name)
// in spec.scaleStrategy.podsToDelete.
func ScaleInDeletingFirst(replicas int) Change {
	return Change{Name: fmt.Sprintf("replicas %d, podsToDelete the first pod", replicas), Edit: func(cs *unstructured.Unstructured, pods []corev1.Pod) error {
		if len(pods) == 0 {
			return errors.New("no pod to delete")
		}
		if err := unstructured.SetNestedField(cs.Object, int64(replicas), "spec", "replicas"); err != nil {
			return err
		}
		return unstructured.SetNestedStringSlice(cs.Object, []string{pods[0].Name}, "spec", "scaleStrategy", "podsToDelete")
	}}
}

// Combine makes one change (one update of the CloneSet) of several.
func Combine(changes ...Change) Change {
	name := ""
	for i, c := range changes {
		if i > 0 {
			name += ", "
		}
		name += c.Name
	}
	return Change{Name: name, Edit: func(cs *unstructured.Unstructured, pods []corev1.Pod) error {
		for _, c := range changes {
			if err := c.Edit(cs, pods); err != nil {
				return err
			}
		}
		return nil
	}}
}
