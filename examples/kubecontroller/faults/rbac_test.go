package faults

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller"
	"github.com/clonecore/cloneset/examples/kubecontroller/controlplane"
	"github.com/clonecore/cloneset/examples/kubecontroller/installtest"
	"github.com/clonecore/cloneset/examples/kubecontroller/internal/kruisecrd"
	"github.com/clonecore/cloneset/examples/kubecontroller/webhook"
	"github.com/clonecore/cloneset/internal/cisummary"
	"github.com/clonecore/cloneset/model"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// unexercised are the rules of the shipped roles no request of
// TestLeastPrivilege makes, each with the reason it is there: by
// "verb group/resource[/subresource]".
var unexercised = map[string]string{
	// Checked by the API server's OwnerReferencesPermissionEnforcement on
	// every create of a pod, a claim or a revision owned by a CloneSet
	// (blockOwnerDeletion), not a request of its own: without it those
	// creates are refused, which the test sees.
	"update apps.kruise.io/clonesets/finalizers": "blockOwnerDeletion owner references",
	// A repeated event is patched (its count or series) instead of
	// created again: the refusal of a CloneSet stored before the webhooks
	// is one event per generation, a leader's election one per term.
	"patch events.k8s.io/events": "an InvalidSpec event repeated",
	"patch /events":              "a leader-election event repeated",
	// The claims of a deleted pod handed to its replacement (PVC reuse,
	// docs/spec/scale-and-budgets.md): the owner reference moves.
	"patch /persistentvolumeclaims": "a claim reused by a replacement pod",
}

// listedOnOlderServers are the resources whose informers list them on an
// API server that does not stream the initial list in a watch (WatchList;
// kube-apiserver 1.37 does, client-go asks for it, and falls back to a
// list when a streamed one fails): "list" on each is granted for them.
var listedOnOlderServers = []string{"apps.kruise.io/clonesets", "/pods", "/persistentvolumeclaims", "apps/controllerrevisions", "/nodes", "apps.kruise.io/imagepulljobs",
	"admissionregistration.k8s.io/mutatingwebhookconfigurations", "admissionregistration.k8s.io/validatingwebhookconfigurations",
	"apiextensions.k8s.io/customresourcedefinitions", "/secrets"}

func init() {
	for _, r := range listedOnOlderServers {
		unexercised["list "+r] = "the informers' list without WatchList"
	}
}

// rbacRule is one verb on one resource (subresource included) of a rule.
type rbacRule struct{ verb, group, resource string }

func (r rbacRule) String() string { return r.verb + " " + r.group + "/" + r.resource }

// shippedRules are the verbs and resources the shipped roles grant.
func shippedRules(cr *rbacv1.ClusterRole, role *rbacv1.Role) []rbacRule {
	var out []rbacRule
	for _, rules := range [][]rbacv1.PolicyRule{cr.Rules, role.Rules} {
		for _, r := range rules {
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					for _, v := range r.Verbs {
						out = append(out, rbacRule{v, g, res})
					}
				}
			}
		}
	}
	return out
}

// TestLeastPrivilege: the shipped roles hold exactly what the binary does.
// Two controller processes (leader election, certificates self-managed
// from a new Secret, the serving certificate renewed) run a scenario that
// takes every path the roles are for: a CloneSet with a claim template
// scaled out and in; a CloneSet updated in place with new resources (a
// resize), twice with one revision kept, then rolled back to its first
// template (a revision reused), with the image pre-download on (an
// ImagePullJob created and deleted); a v1alpha1 CloneSet given a pod to delete
// (the validating webhook reads the pod); a CloneSet whose containers
// launch in order (the barrier config map); a CloneSet stored before the
// webhooks, which the controller refuses with an event. No request of
// theirs is refused (403), and every rule of the roles is used by a request
// the audit log shows, but those of unexercised, each there for a reason
// named with it.
func TestLeastPrivilege(t *testing.T) {
	cp := sharedControlPlane(t)
	e := newEnv(t, cp)
	start := time.Now()
	// A Secret of its own, renewed soon after.
	if err := e.cs.CoreV1().Secrets(installtest.Namespace).Delete(t.Context(), webhook.DefaultSecretName, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	// OpenKruise's ImagePullJobs served and the image pre-download on: the
	// in-place rollouts create an ImagePullJob, and delete it once done.
	if err := kruisecrd.InstallImagePullJob(t.Context(), cp); err != nil {
		t.Fatal(err)
	}
	election := []string{"--leader-elect", "--leader-election-namespace", e.ns, "--webhook-cert-validity", "8s",
		"--feature-gates", "InPlaceWorkloadVerticalScaling=true,PreDownloadImageForInPlaceUpdate=true",
		"--leader-election-lease-duration", "4s", "--leader-election-renew-deadline", "3s", "--leader-election-retry-period", "500ms"}
	procs := []*installtest.Controller{e.startController("controller-1", e.identity(1), election...), e.startController("controller-2", e.identity(2), election...)}
	for _, p := range procs {
		e.waitLog(p.Process, "webhook certificates: serving certificate loaded")
	}

	// Claims: one pod and its claim, then none.
	claims := rollout{name: "claims", replicas: 1, policy: "ReCreate", maxUnavailable: 1}
	e.createCloneSetWith(claims, imageV1, func(spec map[string]any) {
		spec["volumeClaimTemplates"] = []any{map[string]any{"metadata": map[string]any{"name": "data"},
			"spec": map[string]any{"accessModes": []any{"ReadWriteOnce"}, "resources": map[string]any{"requests": map[string]any{"storage": "1Gi"}}}}}
	})
	e.waitClaims("claims", 1)
	e.setReplicas(claims.name, 0)
	e.waitClaims("claims", 0)

	// In place: a new image, back to the first template (its revision
	// reused), new resources alone (a resize; one revision kept: the
	// oldest goes).
	withCPU := func(image, cpu string) map[string]any {
		return map[string]any{"name": "main", "image": image, "resources": map[string]any{"requests": map[string]any{"cpu": cpu}, "limits": map[string]any{"cpu": "1"}}}
	}
	e.createCloneSetWith(inPlace, imageV1, func(spec map[string]any) {
		spec["revisionHistoryLimit"] = int64(1)
		spec["template"].(map[string]any)["spec"] = map[string]any{"containers": []any{withCPU(imageV1, "100m")}}
	})
	e.waitConverged(inPlace.name, inPlace.replicas, imageV1, time.Now())
	first := e.template(inPlace.name)
	e.patchCloneSet(inPlace.name, map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{withCPU(imageV2, "100m")}}}})
	e.waitConverged(inPlace.name, inPlace.replicas, imageV2, time.Now())
	e.patchCloneSet(inPlace.name, map[string]any{"template": first})
	e.waitConverged(inPlace.name, inPlace.replicas, imageV1, time.Now())
	created := e.requestsOfControllers(start)["create /pods"]
	e.patchCloneSet(inPlace.name, map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{withCPU(imageV1, "200m")}}}})
	e.waitResized(inPlace.name, "200m")
	if again := e.requestsOfControllers(start)["create /pods"]; again != created {
		t.Errorf("the resize created %d pods: not in place", again-created)
	}

	// A v1alpha1 CloneSet and a pod to delete.
	alpha := schema.GroupVersionResource{Group: "apps.kruise.io", Version: "v1alpha1", Resource: "clonesets"}
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps.kruise.io/v1alpha1", "kind": "CloneSet",
		"metadata": map[string]any{"name": "alpha", "namespace": e.ns},
		"spec": map[string]any{"replicas": int64(2), "selector": map[string]any{"matchLabels": map[string]any{"app": "alpha"}},
			"template":       map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "alpha"}}, "spec": map[string]any{"containers": []any{map[string]any{"name": "main", "image": imageV1}}}},
			"updateStrategy": map[string]any{"maxUnavailable": int64(1)}}}}
	if _, err := e.dyn.Resource(alpha).Namespace(e.ns).Create(t.Context(), obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitConverged("alpha", 2, imageV1, time.Now())
	victim := e.pods.names("alpha")[0]
	if _, err := e.dyn.Resource(alpha).Namespace(e.ns).Patch(t.Context(), "alpha", types.MergePatchType,
		fmt.Appendf(nil, `{"spec":{"scaleStrategy":{"podsToDelete":[%q]}}}`, victim), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(convergeTimeout); slices.Contains(e.pods.names("alpha"), victim); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("pod %s of podsToDelete still there after %s", victim, convergeTimeout)
		}
	}

	// Containers launched in order: the pod webhook injects the barriers,
	// the launch priority reconciler creates the config map and writes
	// the first key. Left to no kubelet, the pod waits there.
	launch := rollout{name: "launch", replicas: 1, policy: "ReCreate", maxUnavailable: 1}
	e.createCloneSetWith(launch, imageV1, func(spec map[string]any) {
		template := spec["template"].(map[string]any)
		template["metadata"].(map[string]any)["labels"].(map[string]any)[controlplane.LabelCustomKubelet] = "true"
		template["spec"] = map[string]any{"containers": []any{
			map[string]any{"name": "main", "image": imageV1},
			map[string]any{"name": "first", "image": imageV1, "env": []any{map[string]any{"name": model.EnvLaunchPriority, "value": "1"}}},
		}}
	})
	e.waitBarrierKey(launch.name, kubecontroller.BarrierKey(1))

	// A CloneSet stored before the webhooks.
	refused := rollout{name: "refused", replicas: 1, policy: "ReCreate"}
	e.createBeforeWebhooks(refused, imageV1)
	e.waitEvent(refused.name, kubecontroller.ReasonInvalidSpec)
	// The serving certificate renewed at least once (8 s, renewed at ~5 s).
	for deadline := time.Now().Add(30 * time.Second); !e.secretUpdated(start); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the certificates' Secret was never updated")
		}
	}
	for _, p := range procs {
		p.Remove()
		p.Stop()
	}

	used := e.requestsOfControllers(start)
	var missing []string
	for _, r := range shippedRules(e.sys.ClusterRole, e.sys.Role) {
		if used[r.String()] > 0 {
			continue
		}
		if _, ok := unexercised[r.String()]; ok {
			continue
		}
		missing = append(missing, r.String())
	}
	t.Logf("requests of the controller processes by verb and resource: %v", used)
	for _, m := range missing {
		t.Errorf("the shipped roles grant %q, which no request of the scenario used (remove it, or name why in unexercised)", m)
	}
	for r := range unexercised {
		if used[r] > 0 {
			t.Errorf("%q is listed as unexercised but the scenario used it: take it out of the list", r)
		}
	}
	cisummary.Print(t, fmt.Sprintf("least privilege on kube-apiserver %s: %d rules, %d used by the scenario, %d named unexercised, 0 forbidden",
		cp.Version().GitVersion, len(shippedRules(e.sys.ClusterRole, e.sys.Role)), len(shippedRules(e.sys.ClusterRole, e.sys.Role))-len(unexercised)-len(missing), len(unexercised)))
}

// waitBarrierKey waits until the launch barrier of the CloneSet's pod holds
// key.
func (e *env) waitBarrierKey(cloneSet, key string) {
	e.t.Helper()
	for deadline := time.Now().Add(convergeTimeout); ; time.Sleep(100 * time.Millisecond) {
		for _, pod := range e.pods.names(cloneSet) {
			cm, err := e.cs.CoreV1().ConfigMaps(e.ns).Get(e.t.Context(), kubecontroller.BarrierConfigMap(pod), metav1.GetOptions{})
			if err == nil && cm.Data[key] == "true" {
				return
			}
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("no launch barrier of a pod of %s holds %s after %s", cloneSet, key, convergeTimeout)
		}
	}
}

// createCloneSetWith creates the CloneSet of r with image, its spec edited.
func (e *env) createCloneSetWith(r rollout, image string, edit func(spec map[string]any)) {
	e.t.Helper()
	obj := e.cloneSetObject(r, image)
	edit(obj.Object["spec"].(map[string]any))
	if _, err := e.dyn.Resource(cloneSets).Namespace(e.ns).Create(e.t.Context(), obj, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// template is the CloneSet's spec.template as the server holds it.
func (e *env) template(name string) map[string]any {
	e.t.Helper()
	u, err := e.dyn.Resource(cloneSets).Namespace(e.ns).Get(e.t.Context(), name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	t, _, _ := unstructured.NestedMap(u.Object, "spec", "template")
	return t
}

// waitClaims waits until the namespace holds n claims of the CloneSet (by
// the claims' names), none terminating.
func (e *env) waitClaims(cloneSet string, n int) {
	e.t.Helper()
	deadline := time.Now().Add(convergeTimeout)
	for {
		list, err := e.cs.CoreV1().PersistentVolumeClaims(e.ns).List(e.t.Context(), metav1.ListOptions{})
		if err != nil {
			e.t.Fatal(err)
		}
		count := 0
		for _, c := range list.Items {
			if strings.Contains(c.Name, "-"+cloneSet+"-") && c.DeletionTimestamp == nil {
				count++
			}
		}
		if count == n {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("%d claims of %s after %s, want %d", count, cloneSet, convergeTimeout, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitResized waits until every pod of the CloneSet requests cpu in its
// spec and its status (resized in place).
func (e *env) waitResized(cloneSet, cpu string) {
	e.t.Helper()
	deadline := time.Now().Add(convergeTimeout)
	for {
		pods, err := e.cs.CoreV1().Pods(e.ns).List(e.t.Context(), metav1.ListOptions{LabelSelector: "app=" + cloneSet})
		if err != nil {
			e.t.Fatal(err)
		}
		done := len(pods.Items) > 0
		for _, p := range pods.Items {
			c := p.Spec.Containers[0].Resources.Requests.Cpu()
			done = done && c.String() == cpu && len(p.Status.ContainerStatuses) > 0 && p.Status.ContainerStatuses[0].Resources != nil &&
				p.Status.ContainerStatuses[0].Resources.Requests.Cpu().String() == cpu
		}
		if done {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the pods of %s not resized to %s after %s", cloneSet, cpu, convergeTimeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// secretUpdated reports whether a controller process updated the
// certificates' Secret since start (the audit log).
func (e *env) secretUpdated(start time.Time) bool {
	return e.requestsOfControllers(start)["update /secrets"] > 0
}

// requestsOfControllers counts the requests of the test's controller
// processes since start, allowed ones, by "verb group/resource[/sub]".
func (e *env) requestsOfControllers(start time.Time) map[string]int {
	e.t.Helper()
	events, err := e.cp.AuditEvents()
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string]int{}
	for _, ev := range events {
		if !e.isController(ev.User) || ev.RequestReceivedTimestamp.Before(start) || ev.ObjectRef == nil || ev.Code() < 200 || ev.Code() > 299 {
			continue
		}
		res := ev.ObjectRef.Resource
		if ev.ObjectRef.Subresource != "" {
			res += "/" + ev.ObjectRef.Subresource
		}
		out[rbacRule{ev.Verb, ev.ObjectRef.APIGroup, res}.String()]++
	}
	return out
}
