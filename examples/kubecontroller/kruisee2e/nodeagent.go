package kruisee2e

import (
	"encoding/json"
	"regexp"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller"
	"github.com/clonecore/cloneset/inplace"
	"github.com/clonecore/cloneset/model"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The node agent stand-in: the part of kruise's node agent (kruise-daemon,
// its container-meta controller) that the CloneSet's in-place updates of
// env from metadata rely on. A container whose env takes a value from the
// pod's labels or annotations (a fieldRef to metadata.labels['k'] or
// metadata.annotations['k']) sees the values it was started with; when an
// in-place update changes them, the controller patches the pod's metadata,
// sets the InPlaceUpdateReady condition False, and waits until the node
// agent has restarted the container and reported, in the annotation
// apps.kruise.io/runtime-containers-meta, the containerID of every
// container. The stand-in does that agent's part, for pods with such env:
//
//   - it remembers, per containerID, the hash of the env-from-metadata
//     values the container was started with (the values of the pod's
//     metadata when it first sees the container), kruise's hash
//     (inplace.EnvFromMetadataHash), which the controller compares with the
//     hash of the pod's metadata as it is;
//   - while the pod's InPlaceUpdateReady condition is False, a running
//     container whose image is the spec's (a changed image is the kubelet's
//     restart, which starts the container with the new values) and whose
//     values changed is restarted, as the agent does through the container
//     runtime and the kubelet then reports: restartCount+1, a new
//     containerID (the kwok stage's formula), lastState terminated (exit
//     code 0), running from now, not ready until the kubelet says so;
//   - it writes the annotation: every container status's name,
//     containerID, restartCount and hashes (plainHash 0: the kubelet's
//     hash of a container is not known here; extractedEnvFromMetadataHash
//     the remembered hash), in the agent's JSON form, whenever it changes.

// runtimeContainersMeta is the annotation the node agent writes.
const runtimeContainersMeta = "apps.kruise.io/runtime-containers-meta"

// inPlaceUpdateReady is the condition type of kruise's in-place update
// readiness gate.
const inPlaceUpdateReady corev1.PodConditionType = "InPlaceUpdateReady"

// metadataField matches the field paths an env var can take from the pod's
// labels or annotations.
var metadataField = regexp.MustCompile(`^metadata\.(labels|annotations)\['(.+)'\]$`)

// envFromMetadata reports whether a container of the pod takes env from the
// pod's labels or annotations.
func envFromMetadata(p *corev1.Pod) bool {
	for i := range p.Spec.Containers {
		if len(metadataEnv(&p.Spec.Containers[i])) > 0 {
			return true
		}
	}
	return false
}

// metadataEnv lists the container's env vars that take a value from the
// pod's labels or annotations: name, "labels" or "annotations", key.
func metadataEnv(c *corev1.Container) [][3]string {
	var out [][3]string
	for _, e := range c.Env {
		if e.ValueFrom == nil || e.ValueFrom.FieldRef == nil {
			continue
		}
		if m := metadataField.FindStringSubmatch(e.ValueFrom.FieldRef.FieldPath); m != nil {
			out = append(out, [3]string{e.Name, m[1], m[2]})
		}
	}
	return out
}

// envHash is the hash of the env-from-metadata values container c of the
// pod would be started with now, as kruise's node agent computes it
// (inplace.EnvFromMetadataHash, the hash the controller's completion check
// expects).
func envHash(p *model.Pod, c string) uint64 {
	ctr := p.Container(c)
	if ctr == nil {
		return inplace.EnvFromMetadataHash(nil, p.Labels, p.Annotations)
	}
	return inplace.EnvFromMetadataHash(ctr.Env, p.Labels, p.Annotations)
}

// containerMeta is one entry of the annotation, in the agent's JSON form.
type containerMeta struct {
	Name         string `json:"name"`
	ContainerID  string `json:"containerID"`
	RestartCount int32  `json:"restartCount"`
	Hashes       struct {
		PlainHash                    uint64 `json:"plainHash"`
		ExtractedEnvFromMetadataHash uint64 `json:"extractedEnvFromMetadataHash,omitempty"`
	} `json:"hashes"`
}

// nodeAgent holds the hashes the containers were started with.
type nodeAgent struct {
	started map[string]uint64 // containerID -> env hash at start
}

// agentResult is what the node agent does to a pod: a status with the
// containers it restarted (nil: none) and the annotation's new value (""
// when it is unchanged).
type agentResult struct {
	status     *corev1.PodStatus
	annotation string
}

// sync is the agent's look at a pod at now.
func (a *nodeAgent) sync(p *corev1.Pod, now time.Time) agentResult {
	var res agentResult
	if p.DeletionTimestamp != nil || len(p.Status.ContainerStatuses) == 0 || !envFromMetadata(p) {
		return res
	}
	updating := conditionIs(p.Status.Conditions, inPlaceUpdateReady, corev1.ConditionFalse)
	mp := kubecontroller.PodFromObject(p)
	status := p.Status.DeepCopy()
	metas := make([]containerMeta, 0, len(status.ContainerStatuses))
	for i := range status.ContainerStatuses {
		cs := &status.ContainerStatuses[i]
		c := specContainer(p, cs.Name)
		if c == nil || cs.ContainerID == "" {
			continue
		}
		want := envHash(mp, c.Name)
		had, seen := a.started[cs.ContainerID]
		if !seen {
			a.started[cs.ContainerID], had = want, want
		}
		if updating && had != want && cs.State.Running != nil && cs.Image == RuntimeImage(c.Image) {
			restart(p, cs, now)
			a.started[cs.ContainerID], had = want, want
			res.status = status
		}
		m := containerMeta{Name: cs.Name, ContainerID: cs.ContainerID, RestartCount: cs.RestartCount}
		m.Hashes.ExtractedEnvFromMetadataHash = had
		metas = append(metas, m)
	}
	data, _ := json.Marshal(struct {
		Containers []containerMeta `json:"containers"`
	}{metas})
	if string(data) != p.Annotations[runtimeContainersMeta] {
		res.annotation = string(data)
	}
	return res
}

// restart restarts a running container's status in place: the agent kills
// it, the kubelet starts it again.
func restart(p *corev1.Pod, cs *corev1.ContainerStatus, now time.Time) {
	t := metav1.NewTime(now)
	cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
		ExitCode: 0, Reason: "Completed", ContainerID: cs.ContainerID, StartedAt: cs.State.Running.StartedAt, FinishedAt: t,
	}}
	cs.RestartCount++
	cs.ContainerID = ContainerID(p, cs.Name, cs.RestartCount)
	cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: t}}
	cs.Ready = false
}

func specContainer(p *corev1.Pod, name string) *corev1.Container {
	for i := range p.Spec.Containers {
		if p.Spec.Containers[i].Name == name {
			return &p.Spec.Containers[i]
		}
	}
	return nil
}
