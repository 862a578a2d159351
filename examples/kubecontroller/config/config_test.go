package config_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/clonecore/cloneset/examples/kubecontroller/config"
	"github.com/clonecore/cloneset/examples/kubecontroller/webhook"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The names the manifests give.
const (
	namespace      = "clonesetcontroller-system"
	serviceAccount = "clonesetcontroller"
)

// installed are the manifests' objects by kind.
type installed struct {
	namespaces   []*corev1.Namespace
	crds         []*apiextensionsv1.CustomResourceDefinition
	accounts     []*corev1.ServiceAccount
	clusterRoles []*rbacv1.ClusterRole
	clusterBinds []*rbacv1.ClusterRoleBinding
	roles        []*rbacv1.Role
	roleBinds    []*rbacv1.RoleBinding
	services     []*corev1.Service
	mutating     []*admissionregistrationv1.MutatingWebhookConfiguration
	validating   []*admissionregistrationv1.ValidatingWebhookConfiguration
	deployments  []*appsv1.Deployment
	others       []client.Object
}

func load(t *testing.T) installed {
	t.Helper()
	objs, err := config.Objects()
	if err != nil {
		t.Fatal(err)
	}
	var in installed
	for _, o := range objs {
		switch o := o.(type) {
		case *corev1.Namespace:
			in.namespaces = append(in.namespaces, o)
		case *apiextensionsv1.CustomResourceDefinition:
			in.crds = append(in.crds, o)
		case *corev1.ServiceAccount:
			in.accounts = append(in.accounts, o)
		case *rbacv1.ClusterRole:
			in.clusterRoles = append(in.clusterRoles, o)
		case *rbacv1.ClusterRoleBinding:
			in.clusterBinds = append(in.clusterBinds, o)
		case *rbacv1.Role:
			in.roles = append(in.roles, o)
		case *rbacv1.RoleBinding:
			in.roleBinds = append(in.roleBinds, o)
		case *corev1.Service:
			in.services = append(in.services, o)
		case *admissionregistrationv1.MutatingWebhookConfiguration:
			in.mutating = append(in.mutating, o)
		case *admissionregistrationv1.ValidatingWebhookConfiguration:
			in.validating = append(in.validating, o)
		case *appsv1.Deployment:
			in.deployments = append(in.deployments, o)
		default:
			in.others = append(in.others, o)
		}
	}
	for name, n := range map[string]int{"Namespace": len(in.namespaces), "CustomResourceDefinition": len(in.crds), "ServiceAccount": len(in.accounts),
		"ClusterRole": len(in.clusterRoles), "ClusterRoleBinding": len(in.clusterBinds), "Role": len(in.roles), "RoleBinding": len(in.roleBinds),
		"Service": len(in.services), "MutatingWebhookConfiguration": len(in.mutating), "ValidatingWebhookConfiguration": len(in.validating), "Deployment": len(in.deployments)} {
		if n != 1 {
			t.Fatalf("%d %s objects, want 1", n, name)
		}
	}
	return in
}

// TestObjectsDecodeStrictly: every document decodes strictly into its
// type, and the decoder refuses an unknown field (the control).
func TestObjectsDecodeStrictly(t *testing.T) {
	in := load(t)
	if len(in.others) != 1 || in.others[0].GetObjectKind().GroupVersionKind().Kind != "PodDisruptionBudget" {
		t.Errorf("other objects %v, want the PodDisruptionBudget", in.others)
	}
	// Every namespaced object is in the namespace of the manifests.
	objs, _ := config.Objects()
	for _, o := range objs {
		kind := o.GetObjectKind().GroupVersionKind().Kind
		switch kind {
		case "Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration":
			if o.GetNamespace() != "" {
				t.Errorf("%s %s: namespace %q on a cluster-scoped object", kind, o.GetName(), o.GetNamespace())
			}
		default:
			if o.GetNamespace() != namespace {
				t.Errorf("%s %s: namespace %q, want %s", kind, o.GetName(), o.GetNamespace(), namespace)
			}
		}
		if o.GetLabels()["app.kubernetes.io/part-of"] != "cloneset" {
			t.Errorf("%s %s: no label app.kubernetes.io/part-of: cloneset", kind, o.GetName())
		}
	}
}

// TestKustomizationListsTheManifests: kubectl apply -k config/ applies the
// same files, in the same order, as kubectl apply -f config/manifests/.
func TestKustomizationListsTheManifests(t *testing.T) {
	var k struct {
		APIVersion string   `json:"apiVersion"`
		Kind       string   `json:"kind"`
		Resources  []string `json:"resources"`
	}
	j, err := utilyaml.ToJSON(config.Kustomization)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(j))
	d.DisallowUnknownFields()
	if err := d.Decode(&k); err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range config.Files() {
		files = append(files, f.Path)
	}
	if k.Kind != "Kustomization" || !slices.Equal(k.Resources, files) {
		t.Errorf("kustomization %s resources %v, want %v", k.Kind, k.Resources, files)
	}
	if files[0] != "manifests/00-namespace.yaml" {
		t.Errorf("the namespace is not applied first: %v", files)
	}
}

// TestWebhooksReachTheServer: every webhook and the CRD's conversion name
// the Service, on its port, at a path the server serves, and the paths the
// server serves are all named; the Service sends to the Deployment's
// webhook port, which is the binary's; the names are the binary's.
func TestWebhooksReachTheServer(t *testing.T) {
	in := load(t)
	svc := in.services[0]
	if svc.Name != webhook.DefaultServiceName || len(svc.Spec.Ports) != 1 {
		t.Fatalf("Service %s with %d ports, want %s with one", svc.Name, len(svc.Spec.Ports), webhook.DefaultServiceName)
	}
	port := svc.Spec.Ports[0]
	paths := map[string]string{}
	checkService := func(who string, ns, name string, p *string, servicePort *int32) {
		if ns != namespace || name != svc.Name {
			t.Errorf("%s: Service %s/%s, want %s/%s", who, ns, name, namespace, svc.Name)
		}
		if servicePort == nil || *servicePort != port.Port {
			t.Errorf("%s: port %v, want the Service's %d", who, servicePort, port.Port)
		}
		if p == nil {
			t.Errorf("%s: no path", who)
			return
		}
		paths[*p] = who
	}
	m, v := in.mutating[0], in.validating[0]
	if m.Name != webhook.MutatingConfigurationName || v.Name != webhook.ValidatingConfigurationName {
		t.Errorf("configurations %s and %s, want %s and %s", m.Name, v.Name, webhook.MutatingConfigurationName, webhook.ValidatingConfigurationName)
	}
	type hook struct {
		name          string
		cc            admissionregistrationv1.WebhookClientConfig
		failure       *admissionregistrationv1.FailurePolicyType
		sideEffects   *admissionregistrationv1.SideEffectClass
		timeout       *int32
		reviews       []string
		rules         []admissionregistrationv1.RuleWithOperations
		objectSelects bool
	}
	var hooks []hook
	for _, w := range m.Webhooks {
		hooks = append(hooks, hook{w.Name, w.ClientConfig, w.FailurePolicy, w.SideEffects, w.TimeoutSeconds, w.AdmissionReviewVersions, w.Rules, w.ObjectSelector != nil})
	}
	for _, w := range v.Webhooks {
		hooks = append(hooks, hook{w.Name, w.ClientConfig, w.FailurePolicy, w.SideEffects, w.TimeoutSeconds, w.AdmissionReviewVersions, w.Rules, w.ObjectSelector != nil})
	}
	for _, h := range hooks {
		if h.cc.Service == nil || h.cc.URL != nil || len(h.cc.CABundle) > 0 {
			t.Errorf("webhook %s: client config %+v, want the Service alone (no URL, no caBundle)", h.name, h.cc)
			continue
		}
		checkService("webhook "+h.name, h.cc.Service.Namespace, h.cc.Service.Name, h.cc.Service.Path, h.cc.Service.Port)
		// As OpenKruise ships its webhooks: Fail, None, the default 10 s.
		if h.failure == nil || *h.failure != admissionregistrationv1.Fail || h.sideEffects == nil || *h.sideEffects != admissionregistrationv1.SideEffectClassNone ||
			h.timeout == nil || *h.timeout != 10 || !slices.Equal(h.reviews, []string{"v1"}) {
			t.Errorf("webhook %s: failurePolicy %v, sideEffects %v, timeout %v, reviews %v", h.name, h.failure, h.sideEffects, h.timeout, h.reviews)
		}
	}
	rules := map[string]string{}
	for _, h := range hooks {
		var parts []string
		for _, r := range h.rules {
			parts = append(parts, fmt.Sprintf("%v %v %v %v", r.APIGroups, r.APIVersions, r.Operations, r.Resources))
		}
		rules[*h.cc.Service.Path] = strings.Join(parts, "; ")
		if (*h.cc.Service.Path == webhook.PathMutatePod) != h.objectSelects {
			t.Errorf("webhook %s: object selector %v (want one on the pod webhook only)", h.name, h.objectSelects)
		}
	}
	wantRules := map[string]string{
		webhook.PathMutateCloneSet:   "[apps.kruise.io] [v1alpha1 v1beta1] [CREATE UPDATE] [clonesets]",
		webhook.PathValidateCloneSet: "[apps.kruise.io] [v1alpha1 v1beta1] [CREATE UPDATE DELETE] [clonesets]",
		webhook.PathMutatePod:        "[] [v1] [CREATE] [pods]",
	}
	if !maps.Equal(rules, wantRules) {
		t.Errorf("rules %v, want %v", rules, wantRules)
	}
	conv := in.crds[0].Spec.Conversion.Webhook.ClientConfig
	checkService("the CRD's conversion", conv.Service.Namespace, conv.Service.Name, conv.Service.Path, conv.Service.Port)
	served := []string{webhook.PathMutateCloneSet, webhook.PathValidateCloneSet, webhook.PathMutatePod, webhook.PathConvert}
	if got := slices.Sorted(maps.Keys(paths)); !slices.Equal(got, slices.Sorted(slices.Values(served))) {
		t.Errorf("the manifests name the paths %v, the server serves %v", got, served)
	}
	if in.crds[0].Name != webhook.CRDName {
		t.Errorf("CRD %s, want %s", in.crds[0].Name, webhook.CRDName)
	}

	// The Service's target is the Deployment's webhook port, the binary's.
	d := in.deployments[0]
	c := d.Spec.Template.Spec.Containers[0]
	var containerPort int32
	for _, p := range c.Ports {
		if port.TargetPort.Type == intstr.String && p.Name == port.TargetPort.StrVal {
			containerPort = p.ContainerPort
		}
	}
	if containerPort != webhook.DefaultPort {
		t.Errorf("the Service's target port %s is container port %d, want %d", port.TargetPort.String(), containerPort, webhook.DefaultPort)
	}
	for k, v := range svc.Spec.Selector {
		if d.Spec.Template.Labels[k] != v {
			t.Errorf("the Service selects %s=%s, the Deployment's pods do not carry it", k, v)
		}
	}
}

// TestDeployment: the Deployment runs the binary as the service account,
// with leader election, health and readiness probes on the binary's probe
// port, the namespace from the downward API, and a PodDisruptionBudget for
// its pods.
func TestDeployment(t *testing.T) {
	in := load(t)
	d := in.deployments[0]
	spec := d.Spec.Template.Spec
	if spec.ServiceAccountName != serviceAccount || len(spec.Containers) != 1 {
		t.Fatalf("service account %q, %d containers", spec.ServiceAccountName, len(spec.Containers))
	}
	if d.Spec.Replicas == nil || *d.Spec.Replicas < 2 {
		t.Errorf("replicas %v: want at least 2 (the webhooks keep answering while one restarts)", d.Spec.Replicas)
	}
	c := spec.Containers[0]
	if !slices.Contains(c.Args, "--leader-elect") {
		t.Errorf("args %v: no --leader-elect", c.Args)
	}
	for probe, want := range map[*corev1.Probe]string{c.LivenessProbe: "/healthz", c.ReadinessProbe: "/readyz"} {
		if probe == nil || probe.HTTPGet == nil || probe.HTTPGet.Path != want || probe.HTTPGet.Port.StrVal != "health" {
			t.Errorf("probe %+v, want GET %s on port health", probe, want)
		}
	}
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	for name, flag := range map[string]string{"health": "--health-probe-bind-address=:%d", "metrics": "--metrics-bind-address=:%d", "webhook": "--webhook-port=%d"} {
		if !slices.Contains(c.Args, fmt.Sprintf(flag, ports[name])) {
			t.Errorf("port %s %d: no %s in the args %v", name, ports[name], fmt.Sprintf(flag, ports[name]), c.Args)
		}
	}
	env := map[string]string{}
	for _, e := range c.Env {
		if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil {
			env[e.Name] = e.ValueFrom.FieldRef.FieldPath
		}
	}
	if env["POD_NAMESPACE"] != "metadata.namespace" {
		t.Errorf("env %v: want POD_NAMESPACE from metadata.namespace", env)
	}
	pdb := in.others[0]
	if pdb.GetName() != d.Name {
		t.Errorf("PodDisruptionBudget %s for Deployment %s", pdb.GetName(), d.Name)
	}
}

// TestRBACBindsTheServiceAccount: the ClusterRole and the Role are bound to
// the Deployment's service account, and to nothing else; the Role's
// objects by name are the binary's.
func TestRBACBindsTheServiceAccount(t *testing.T) {
	in := load(t)
	sa := in.accounts[0]
	want := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: sa.Name, Namespace: sa.Namespace}
	cb, rb := in.clusterBinds[0], in.roleBinds[0]
	if cb.RoleRef != (rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: in.clusterRoles[0].Name}) || !slices.Equal(cb.Subjects, []rbacv1.Subject{want}) {
		t.Errorf("ClusterRoleBinding %+v %+v", cb.RoleRef, cb.Subjects)
	}
	if rb.RoleRef != (rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: in.roles[0].Name}) || !slices.Equal(rb.Subjects, []rbacv1.Subject{want}) {
		t.Errorf("RoleBinding %+v %+v", rb.RoleRef, rb.Subjects)
	}
	byName := map[string][]string{}
	for _, r := range append(slices.Clone(in.clusterRoles[0].Rules), in.roles[0].Rules...) {
		for _, res := range r.Resources {
			byName[res] = append(byName[res], r.ResourceNames...)
		}
	}
	for res, names := range map[string][]string{
		"secrets":                         {webhook.DefaultSecretName},
		"mutatingwebhookconfigurations":   {webhook.MutatingConfigurationName},
		"validatingwebhookconfigurations": {webhook.ValidatingConfigurationName},
		"customresourcedefinitions":       {webhook.CRDName},
	} {
		if !slices.Equal(byName[res], names) {
			t.Errorf("%s by name %v, want %v", res, byName[res], names)
		}
	}
	// Nothing is granted on every resource, group or verb.
	for _, r := range append(slices.Clone(in.clusterRoles[0].Rules), in.roles[0].Rules...) {
		if slices.Contains(r.Verbs, "*") || slices.Contains(r.Resources, "*") || slices.Contains(r.APIGroups, "*") || len(r.NonResourceURLs) > 0 {
			t.Errorf("rule %+v grants a wildcard", r)
		}
	}
}
