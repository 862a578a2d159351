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
// container that has a postStart hook or an env from a config map's key. A
// kubelet runs a postStart hook after it starts the container and reports
// the container ready only once the hook has returned, and starts a
// container only once the config map keys its env reads are there; the
// suite's specs of container launch priorities give a container a
// postStart hook `sleep 10` and check that the next container is restarted
// only after it, and the pod webhook gives each of their containers the
// launch barrier env, a key the launch priority reconciler writes from the
// highest priority down (kwok's stages report a restarted container ready
// at once and know neither hooks nor config maps). The stand-in labels such
// pods controlplane.LabelCustomKubelet, so that kwok's kubelet stage leaves
// them alone, and plays their kubelet:
//
//   - a container that has not started waits while a config map or a key
//     its env needs (valueFrom.configMapKeyRef, not optional) is missing:
//     waiting, reason CreateContainerConfigError, the kubelet's message, not
//     ready; it starts once they are there (the barrier of kruise's launch
//     priority);
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
// Like a kubelet (its generic PLEG), the stand-in syncs a pod only with a
// view of the containers newer than its last sync: the container runtime
// is listed once a second (the relist period), and a pod's sync waits for
// the first list after the previous sync ended, which itself ended only
// when the postStart hooks of the containers it started had returned. So a
// container whose hook ends at T is reported ready at the first relist
// after T, and a change the controller makes upon that (the next batch of
// an in-place update: a container killed) is carried out at the relist
// after that one, never less than a second later (kruise's e2e spec "in
// place update two container images with priorities successfully"
// expects the second container stopped more than 10 s, in whole seconds,
// after the first one's start, its hook 10 s). The relists of the stand-in
// fall on whole seconds (relistAfter; a kubelet's at its own phase, which
// changes none of the bounds).
//
// kwok still starts such a pod (it may run before the label is set) and
// deletes it once it is deleted and has no finalizer (its delete stage).

// customPod reports whether the stand-in plays the pod's kubelet: a
// container of the pod has a postStart hook or an env from a config map's
// key (the launch barrier, which kwok's stages do not wait for).
func customPod(p *corev1.Pod) bool {
	for i := range p.Spec.Containers {
		c := &p.Spec.Containers[i]
		if c.Lifecycle != nil && c.Lifecycle.PostStart != nil || len(configMapKeys(c)) > 0 {
			return true
		}
	}
	return false
}

// ConfigMaps looks up a config map's data by namespace and name (ok false
// when there is no such config map).
type ConfigMaps func(namespace, name string) (data map[string]string, ok bool)

// configMapKeys lists the config map keys the container's env needs to
// start (valueFrom.configMapKeyRef, not optional): name and key.
func configMapKeys(c *corev1.Container) [][2]string {
	var out [][2]string
	for _, e := range c.Env {
		if e.ValueFrom == nil || e.ValueFrom.ConfigMapKeyRef == nil {
			continue
		}
		ref := e.ValueFrom.ConfigMapKeyRef
		if ref.Optional != nil && *ref.Optional {
			continue
		}
		out = append(out, [2]string{ref.Name, ref.Key})
	}
	return out
}

// missingConfig says why the container cannot be started yet, as the
// kubelet words it: a config map or a key its env needs is not there; ""
// when it can start.
func missingConfig(p *corev1.Pod, c *corev1.Container, configMaps ConfigMaps) string {
	for _, ref := range configMapKeys(c) {
		data, ok := configMaps(p.Namespace, ref[0])
		if !ok {
			return fmt.Sprintf("configmap %q not found", ref[0])
		}
		if _, ok := data[ref[1]]; !ok {
			return fmt.Sprintf("couldn't find key %s in ConfigMap %s/%s", ref[1], p.Namespace, ref[0])
		}
	}
	return ""
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

// kubeletStatus is the status the stand-in reports for a pod at now, its
// config maps read from configMaps, and when it must look again (0: not
// before the pod or a config map changes).
func kubeletStatus(p *corev1.Pod, aliases map[string]string, configMaps ConfigMaps, now time.Time) (corev1.PodStatus, time.Duration) {
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
		s := containerStatus(p, c, aliases, configMaps, now)
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
	st.Phase = corev1.PodPending // until a container has started
	for _, s := range statuses {
		if s.State.Running != nil || s.State.Terminated != nil || s.LastTerminationState.Terminated != nil {
			st.Phase = corev1.PodRunning
		}
	}
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

// containerStatus is container c's status at now: waiting for its config
// (if it has not started and a config map key it needs is missing),
// started (if it has no status yet, or waited for its config), restarted
// (when its image changed), crash-looping (when its process exits at once)
// or as it was. A running container is reported not ready here;
// kubeletStatus makes it ready once its hook has run.
func containerStatus(p *corev1.Pod, c *corev1.Container, aliases map[string]string, configMaps ConfigMaps, now time.Time) corev1.ContainerStatus {
	image := RuntimeImage(c.Image)
	var old *corev1.ContainerStatus
	for i := range p.Status.ContainerStatuses {
		if p.Status.ContainerStatuses[i].Name == c.Name {
			old = &p.Status.ContainerStatuses[i]
		}
	}
	t := metav1.NewTime(now)
	if old != nil && old.State.Waiting != nil && old.State.Waiting.Reason == reasonConfigError {
		old = nil // never started: it starts as a new container
	}
	if old == nil {
		if why := missingConfig(p, c, configMaps); why != "" {
			return corev1.ContainerStatus{Name: c.Name, Image: image, Started: ptrTo(false),
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reasonConfigError, Message: why}}}
		}
	}
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

// reasonConfigError is the kubelet's waiting reason of a container whose
// env's config map or key is missing.
const reasonConfigError = "CreateContainerConfigError"

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

// relistPeriod is the kubelet's generic PLEG relist period.
const relistPeriod = time.Second

// relistAfter is the first relist of the container runtime after t (the
// relists fall on whole seconds): the earliest a pod whose last sync ended
// at t is synced again. The zero time (never synced) allows any time.
func relistAfter(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.Truncate(relistPeriod).Add(relistPeriod)
}

// syncEnd is when the kubelet's sync that reported st at now ends: once
// the postStart hooks of the containers it started (running since now)
// have returned.
func syncEnd(p *corev1.Pod, st corev1.PodStatus, now time.Time) time.Time {
	end := now
	for _, s := range st.ContainerStatuses {
		if s.State.Running == nil || !s.State.Running.StartedAt.Time.Equal(now) {
			continue
		}
		if c := specContainer(p, s.Name); c != nil {
			if e := now.Add(hookDuration(c)); e.After(end) {
				end = e
			}
		}
	}
	return end
}
