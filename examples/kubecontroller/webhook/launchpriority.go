package webhook

import (
	"fmt"
	"strconv"

	"github.com/clonecore/cloneset/examples/kubecontroller"
	"github.com/clonecore/cloneset/model"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
)

// The container launch priority of OpenKruise's pod webhook (kruise
// pkg/webhook/pod/mutating container_launch_priority_initialization.go),
// for the pods this webhook is sent (config/: the pods of a CloneSet,
// those with the apps.kruise.io/cloneset-instance-id label; OpenKruise's
// own webhook is sent every pod). A pod of two or more containers asks for
// a launch order
//
//   - with the annotation apps.kruise.io/container-launch-priority:
//     Ordered: the containers start in their order (priorities 0, -1, -2,
//     ...);
//   - or with the env KRUISE_CONTAINER_PRIORITY (an integer; the last one
//     of a container counts; 0 for a container without it) in some
//     container, when the priorities are not all equal and one is not 0.
//
// Each container then gets the env KRUISE_CONTAINER_BARRIER, a
// configMapKeyRef to the key "p_<priority>" of the config map
// "<pod name>-barrier" (the pod given a name from its generateName first,
// as OpenKruise does, when it has none): the container starts only once
// the key is there. kubecontroller.LaunchPriorityReconciler writes the keys
// from the highest priority down, each once the containers before it are
// ready; the in-place update of the containers follows the same order
// (inplace.SplitBatch).
//
// Differences from OpenKruise: a priority that is not an integer is
// refused with a message naming the container and the env, as a 400
// (OpenKruise answers 500 with the parse error); a pod that already has a
// barrier env in a container (OpenKruise's webhook ran first, or this one
// is called again) is left as it is (OpenKruise would add a second one).

// launchPriorities returns the launch priority of each container, or nil
// when the pod does not ask for a launch order or already has barriers.
func launchPriorities(pod *podFacts) ([]int, error) {
	containers := pod.Spec.Containers
	if len(containers) < 2 {
		return nil, nil
	}
	for _, c := range containers {
		for _, e := range c.Env {
			if e.Name == model.EnvLaunchBarrier {
				return nil, nil
			}
		}
	}
	priorities := make([]int, len(containers))
	if pod.Metadata.Annotations[model.AnnotationContainerLaunchPriority] == model.ContainerLaunchOrdered {
		for i := range priorities {
			priorities[i] = -i
		}
		return priorities, nil
	}
	asked := false
	for i, c := range containers {
		for j, e := range c.Env {
			if e.Name != model.EnvLaunchPriority {
				continue
			}
			p, err := strconv.Atoi(e.Value)
			if err != nil {
				return nil, fmt.Errorf("spec.containers[%d].env[%d] (container %s): %s must be an integer (the container's launch priority), got %q",
					i, j, c.Name, model.EnvLaunchPriority, e.Value)
			}
			priorities[i] = p
			asked = asked || p != 0
		}
	}
	if !asked {
		return nil, nil
	}
	for _, p := range priorities[1:] {
		if p != priorities[0] {
			return priorities, nil
		}
	}
	return nil, nil
}

// generatedSuffixLength and maxGeneratedPrefixLength are the API server's
// for a name from generateName: the prefix cut to 58 characters, then 5
// random ones (a name of at most 63).
const (
	generatedSuffixLength    = 5
	maxGeneratedPrefixLength = 63 - generatedSuffixLength
)

// generateName names a pod from its generateName as the API server would
// (its SimpleNameGenerator): the prefix, cut to 58 characters, and 5
// random lower-case consonants and digits.
func generateName(prefix string) string {
	if len(prefix) > maxGeneratedPrefixLength {
		prefix = prefix[:maxGeneratedPrefixLength]
	}
	return prefix + utilrand.String(generatedSuffixLength)
}

// withLaunchBarriers adds to each container of the pod's tree the barrier
// env of its priority, and a name from the pod's generateName when it has
// none (the barrier's config map is named after the pod).
func withLaunchBarriers(tree, spec map[string]any, pod *podFacts, priorities []int) error {
	name := pod.Metadata.Name
	if name == "" {
		if pod.Metadata.GenerateName == "" {
			return fmt.Errorf("the pod has neither metadata.name nor metadata.generateName: its launch barrier needs a name")
		}
		name = generateName(pod.Metadata.GenerateName)
		meta, ok := tree["metadata"].(map[string]any)
		if !ok {
			return fmt.Errorf("the pod's metadata is not an object")
		}
		meta["name"] = name
	}
	containers, _ := spec["containers"].([]any)
	if len(containers) != len(priorities) {
		return fmt.Errorf("spec.containers: %d containers read, %d in the object", len(priorities), len(containers))
	}
	for i, c := range containers {
		container, ok := c.(map[string]any)
		if !ok {
			return fmt.Errorf("spec.containers[%d] is not an object", i)
		}
		env, _ := container["env"].([]any)
		container["env"] = append(env, barrierEnv(name, priorities[i]))
	}
	return nil
}

// barrierEnv is the launch barrier env of a container of priority
// priority in pod podName, as a JSON object tree.
func barrierEnv(podName string, priority int) map[string]any {
	return map[string]any{
		"name": model.EnvLaunchBarrier,
		"valueFrom": map[string]any{"configMapKeyRef": map[string]any{
			"name": kubecontroller.BarrierConfigMap(podName),
			"key":  kubecontroller.BarrierKey(priority),
		}},
	}
}
