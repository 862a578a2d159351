package clustertest

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller"
	"github.com/clonecore/cloneset/examples/kubecontroller/controlplane"
	"github.com/clonecore/cloneset/examples/kubecontroller/internal/e2ekit"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// labelVolumeOf labels the volumes the Run makes with the namespace of
// their claim (so that Stop deletes them).
const labelVolumeOf = "clustertest.cloneset.dev/namespace"

// play is one look at the cluster: the hook owners remove the finalizers
// of pods that have waited HookDelay for them, the storage provisioner
// makes a volume for each new claim; settled tells whether nothing is left
// for the cluster to do (why: the first thing that is not).
func (r *Run) play() (settled bool, why string, err error) {
	ctx := r.ctx
	cs, err := kubecontroller.CloneSetFromUnstructured(r.CloneSet())
	if err != nil {
		return false, "", err
	}
	var hookFinalizers []string
	if l := cs.Spec.Lifecycle; l != nil && l.PreDelete != nil {
		hookFinalizers = l.PreDelete.FinalizersHandler
	}
	settled = true
	note := func(s string) {
		if settled {
			settled, why = false, s
		}
	}
	for _, p := range r.Pods() {
		if keep, hooked := e2ekit.HookOwners(&p, hookFinalizers); hooked {
			note("pod " + p.Name + " waits for its hook owner")
			first, seen := r.hooked[p.UID]
			if !seen {
				r.hooked[p.UID] = time.Now()
				continue
			}
			if time.Since(first) < r.Scenario.HookDelay {
				continue
			}
			p.Finalizers = keep
			switch err := r.Cluster.Client.Update(ctx, &p); {
			case err == nil:
				delete(r.hooked, p.UID)
			case apierrors.IsConflict(err) || apierrors.IsNotFound(err): // next look
			default:
				return false, "", fmt.Errorf("hook owner: update pod %s: %w", p.Name, err)
			}
			continue
		}
		if ok, w := podSettled(&p); !ok {
			note("pod " + p.Name + ": " + w)
		}
	}
	for _, v := range r.Claims() {
		if v.Spec.VolumeName != "" && v.Status.Phase == corev1.ClaimBound {
			continue
		}
		note("claim " + v.Name + " is not bound")
		if v.DeletionTimestamp != nil || r.provisioned[v.UID] {
			continue
		}
		if err := r.Cluster.Client.Create(ctx, volumeFor(&v)); err != nil && !apierrors.IsAlreadyExists(err) {
			return false, "", fmt.Errorf("provisioner: volume for claim %s: %w", v.Name, err)
		}
		r.provisioned[v.UID] = true
	}
	return settled, why, nil
}

// podSettled tells whether kwok has nothing left to do for the pod: it is
// not terminating, is scheduled and running, its status is of its current
// spec (observedGeneration, the images as the runtime reports them), and
// Ready is what a kubelet would say (True unless the pod is labelled
// never-ready or a readiness gate's condition is not True).
func podSettled(p *corev1.Pod) (bool, string) {
	switch {
	case p.DeletionTimestamp != nil:
		return false, "terminating"
	case p.Spec.NodeName == "":
		return false, "not scheduled"
	case p.Status.Phase != corev1.PodRunning:
		return false, "phase " + string(p.Status.Phase)
	case p.Status.ObservedGeneration != p.Generation:
		return false, fmt.Sprintf("status of generation %d, spec %d", p.Status.ObservedGeneration, p.Generation)
	}
	for _, c := range p.Spec.Containers {
		i := slices.IndexFunc(p.Status.ContainerStatuses, func(s corev1.ContainerStatus) bool { return s.Name == c.Name })
		if i < 0 || p.Status.ContainerStatuses[i].Image != runtimeImage(c.Image) {
			return false, "container " + c.Name + " does not run " + c.Image + " yet"
		}
	}
	want := p.Labels[controlplane.LabelNeverReady] != "true"
	for _, g := range p.Spec.ReadinessGates {
		want = want && conditionTrue(p, g.ConditionType)
	}
	if conditionTrue(p, corev1.PodReady) != want {
		return false, fmt.Sprintf("Ready is not %v yet", want)
	}
	return true, ""
}

// runtimeImage is the image as the container runtime reports it: an
// untagged image gets ":latest".
func runtimeImage(image string) string {
	if strings.Contains(image[strings.LastIndex(image, "/")+1:], ":") || strings.Contains(image, "@") {
		return image
	}
	return image + ":latest"
}

func conditionTrue(p *corev1.Pod, typ corev1.PodConditionType) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == typ {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// volumeFor is the volume a provisioner makes for a claim: pre-bound to
// it (claimRef), of the claim's size and access modes; the control plane's
// persistent volume controller then binds the claim.
func volumeFor(v *corev1.PersistentVolumeClaim) *corev1.PersistentVolume {
	capacity := corev1.ResourceList{corev1.ResourceStorage: v.Spec.Resources.Requests[corev1.ResourceStorage]}
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv-" + string(v.UID), Labels: map[string]string{labelVolumeOf: v.Namespace}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      capacity,
			AccessModes:                   v.Spec.AccessModes,
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			StorageClassName:              ptrValue(v.Spec.StorageClassName),
			VolumeMode:                    v.Spec.VolumeMode,
			ClaimRef:                      &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: v.Namespace, Name: v.Name, UID: v.UID},
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp/clustertest/" + string(v.UID)}},
		},
	}
}

func ptrValue(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
