package kruisee2e

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller/controlplane"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The kubelet stand-in of the pods kwok's stages cannot play: pods with a
// container that has a postStart hook. A kubelet runs a postStart hook
// after it starts the container and reports the container ready only once
// the hook has returned; the suite's specs of container launch priorities
// give a container a postStart hook `sleep 10` and check that the next
// container is restarted only after it (kwok's stages report a restarted
// container ready at once and know no hooks). The stand-in labels such
// pods controlplane.LabelCustomKubelet, so that kwok's kubelet stage leaves
// them alone, and plays their kubelet:
//
//   - a container whose spec image differs from its status is restarted:
//     restartCount+1, a new containerID (the kwok stage's formula), its
//     lastState terminated (exit code 0) when it was killed, running from
//     then on, the spec image and its imageID (with the image aliases);
//   - a running container is ready once its postStart hook has run: a hook
//     `sleep N` (exec, directly or through `sh -c`) runs N seconds from the
//     container's start; any other hook returns at once;
//   - a container whose image's default command exits at once (busybox
//     without a command: its shell has no terminal) crash-loops, as a
//     kubelet shows it: waiting (CrashLoopBackOff), lastState terminated,
//     not ready;
//   - the pod's ContainersReady and Ready conditions follow the containers
//     and spec.readinessGates, as the kubelet computes them, and
//     status.observedGeneration follows metadata.generation.
//
// kwok still starts such a pod (it may run before the label is set) and
// deletes it once it is deleted and has no finalizer (its delete stage).

// hookedPod reports whether a container of the pod has a postStart hook.
func hookedPod(p *corev1.Pod) bool {
	for _, c := range p.Spec.Containers {
		if c.Lifecycle != nil && c.Lifecycle.PostStart != nil {
			return true
		}
	}
	return false
}

// sleepCommand matches a shell command that is one sleep of whole seconds.
var sleepCommand = regexp.MustCompile(`^\s*sleep\s+([0-9]+)\s*$`)

// hookDuration is how long a container's postStart hook runs: N seconds for
// an exec hook `sleep N` (or `sh -c "sleep N"`), else nothing.
func hookDuration(c *corev1.Container) time.Duration {
	if c.Lifecycle == nil || c.Lifecycle.PostStart == nil || c.Lifecycle.PostStart.Exec == nil {
		return 0
	}
	cmd := c.Lifecycle.PostStart.Exec.Command
	if len(cmd) == 3 && (cmd[0] == "sh" || cmd[0] == "/bin/sh") && cmd[1] == "-c" {
		cmd = []string{cmd[2]}
	}
	if m := sleepCommand.FindStringSubmatch(strings.Join(cmd, " ")); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			return time.Duration(n) * time.Second
		}
	}
	return 0
}

// exitsAtOnce reports whether the container's process ends as soon as it
// starts: busybox's default command is a shell, which exits without a
// terminal.
func exitsAtOnce(c *corev1.Container) bool {
	repo := c.Image
	if i := strings.LastIndex(repo, "@"); i >= 0 {
		repo = repo[:i]
	}
	if i := strings.LastIndex(repo, ":"); i > strings.LastIndex(repo, "/") {
		repo = repo[:i]
	}
	return path.Base(repo) == "busybox" && len(c.Command) == 0 && len(c.Args) == 0
}

// RuntimeImage is an image as the container runtime reports it: ":latest"
// added to an image with neither tag nor digest (as kwok's kubelet stage
// does).
func RuntimeImage(image string) string {
	if strings.Contains(image, "@") || strings.LastIndex(image, ":") > strings.LastIndex(image, "/") {
		return image
	}
	return image + ":latest"
}

// ImageID is the imageID kwok's kubelet stage reports for an image (as the
// runtime reports it), with the image aliases: "<repository>@sha256:<sha256
// of the image>", the image itself when it is a digest.
func ImageID(image string, aliases map[string]string) string {
	if of, ok := aliases[image]; ok {
		image = of
	}
	if strings.Contains(image, "@") {
		return image
	}
	repo := image[:strings.LastIndex(image, ":")]
	sum := sha256.Sum256([]byte(image))
	return repo + "@sha256:" + hex.EncodeToString(sum[:])
}

// ContainerID is the containerID kwok's kubelet stage gives a pod's
// container after restarts restarts (the node agent uses it too, so that
// either may restart a container and the other carries on).
func ContainerID(pod *corev1.Pod, container string, restarts int32) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s/%s/%d", pod.UID, container, restarts))
	return "containerd://" + hex.EncodeToString(sum[:])
}

// kubeletStatus is the status the stand-in reports for a pod at now, and
// when it must look again (0: not before the pod changes).
func kubeletStatus(p *corev1.Pod, aliases map[string]string, now time.Time) (corev1.PodStatus, time.Duration) {
	st := *p.Status.DeepCopy()
	st.Phase = corev1.PodRunning
	if p.Generation != 0 {
		st.ObservedGeneration = p.Generation
	}
	if st.StartTime == nil {
		t := metav1.NewTime(now)
		st.StartTime = &t
	}
	var again time.Duration
	statuses := make([]corev1.ContainerStatus, 0, len(p.Spec.Containers))
	var unready []string
	for i := range p.Spec.Containers {
		c := &p.Spec.Containers[i]
		s := containerStatus(p, c, aliases, now)
		if run := s.State.Running; run != nil && !s.Ready {
			if left := run.StartedAt.Add(hookDuration(c)).Sub(now); left > 0 {
				again = max(again, left)
			} else {
				s.Ready = true
			}
		}
		if !s.Ready {
			unready = append(unready, c.Name)
		}
		statuses = append(statuses, s)
	}
	st.ContainerStatuses = statuses
	containersReady := len(unready) == 0
	ready := containersReady
	for _, g := range p.Spec.ReadinessGates {
		ready = ready && conditionIs(st.Conditions, g.ConditionType, corev1.ConditionTrue)
	}
	st.Conditions = setCondition(st.Conditions, corev1.ContainersReady, containersReady, now)
	st.Conditions = setCondition(st.Conditions, corev1.PodReady, ready, now)
	for _, t := range []corev1.PodConditionType{corev1.PodInitialized, corev1.PodReadyToStartContainers, corev1.PodScheduled} {
		st.Conditions = setCondition(st.Conditions, t, true, now)
	}
	if again > 0 {
		again += 100 * time.Millisecond // past the hook's end
	}
	return st, again
}

// containerStatus is container c's status at now: started (if it has no
// status yet), restarted (when its image changed), crash-looping (when its
// process exits at once) or as it was. A running container is reported not
// ready here; kubeletStatus makes it ready once its hook has run.
func containerStatus(p *corev1.Pod, c *corev1.Container, aliases map[string]string, now time.Time) corev1.ContainerStatus {
	image := RuntimeImage(c.Image)
	var old *corev1.ContainerStatus
	for i := range p.Status.ContainerStatuses {
		if p.Status.ContainerStatuses[i].Name == c.Name {
			old = &p.Status.ContainerStatuses[i]
		}
	}
	t := metav1.NewTime(now)
	if old != nil && old.Image == image {
		return *old.DeepCopy()
	}
	s := corev1.ContainerStatus{Name: c.Name, Image: image, ImageID: ImageID(image, aliases), Started: ptrTo(true)}
	if old != nil {
		s.RestartCount = old.RestartCount + 1
		s.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: 0, Reason: "Completed", ContainerID: old.ContainerID, StartedAt: startedAt(old), FinishedAt: t,
		}}
	}
	s.ContainerID = ContainerID(p, c.Name, s.RestartCount)
	if exitsAtOnce(c) {
		s.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: 0, Reason: "Completed", ContainerID: s.ContainerID, StartedAt: t, FinishedAt: t,
		}}
		s.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
			Reason:  "CrashLoopBackOff",
			Message: fmt.Sprintf("back-off 10s restarting failed container=%s pod=%s_%s(%s)", c.Name, p.Name, p.Namespace, p.UID),
		}}
		s.Started = ptrTo(false)
		return s
	}
	s.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: t}}
	return s
}

func startedAt(s *corev1.ContainerStatus) metav1.Time {
	if s.State.Running != nil {
		return s.State.Running.StartedAt
	}
	return metav1.Time{}
}

func conditionIs(conds []corev1.PodCondition, t corev1.PodConditionType, want corev1.ConditionStatus) bool {
	for _, c := range conds {
		if c.Type == t {
			return c.Status == want
		}
	}
	return false
}

// setCondition sets condition t to on, keeping its transition time when it
// does not change.
func setCondition(conds []corev1.PodCondition, t corev1.PodConditionType, on bool, now time.Time) []corev1.PodCondition {
	status := corev1.ConditionFalse
	if on {
		status = corev1.ConditionTrue
	}
	for i := range conds {
		if conds[i].Type == t {
			if conds[i].Status != status {
				conds[i].Status = status
				conds[i].LastTransitionTime = metav1.NewTime(now)
				conds[i].Reason, conds[i].Message = "", ""
			}
			return conds
		}
	}
	return append(conds, corev1.PodCondition{Type: t, Status: status, LastTransitionTime: metav1.NewTime(now)})
}

func ptrTo[T any](v T) *T { return &v }

// customKubelet reports whether the stand-in plays the pod's kubelet.
func customKubelet(p *corev1.Pod) bool {
	return p.Labels[controlplane.LabelCustomKubelet] == "true"
}
