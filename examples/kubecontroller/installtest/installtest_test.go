package installtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller/controlplane"
	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// buildBinary builds clonesetcontroller into the test's directory.
func buildBinary(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "clonesetcontroller")
	out, err := exec.Command("go", "build", "-o", path, "../cmd/clonesetcontroller").CombinedOutput()
	if err != nil {
		t.Fatalf("build the controller: %v\n%s", err, out)
	}
	return path
}

func TestMain(m *testing.M) {
	ctrllog.SetLogger(logr.Discard())
	os.Exit(m.Run())
}

// cloneSet is a small CloneSet of version in ns, as a user writes it.
func cloneSet(version, ns, name string, extra map[string]any) *unstructured.Unstructured {
	spec := map[string]any{
		"replicas": int64(1),
		"selector": map[string]any{"matchLabels": map[string]any{"app": name}},
		"template": map[string]any{
			"metadata": map[string]any{"labels": map[string]any{"app": name}},
			"spec":     map[string]any{"containers": []any{map[string]any{"name": "main", "image": "example.com/web:v1"}}},
		},
	}
	for k, v := range extra {
		spec[k] = v
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps.kruise.io/" + version, "kind": "CloneSet",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec":     spec,
	}}
}

func resource(version string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "apps.kruise.io", Version: version, Resource: "clonesets"}
}

// TestInstallServesTheWebhooks: the shipped manifests installed, the
// binary run as a service account with them: kube-apiserver calls its
// webhooks over TLS (a v1alpha1 CloneSet defaulted, stored as v1beta1 and
// read in both versions; an invalid one refused naming the field; a
// protected one's deletion refused), its CA is in the configurations and
// the CRD, each now a URL of the Endpoint, and not one of its requests is
// forbidden.
func TestInstallServesTheWebhooks(t *testing.T) {
	binary := buildBinary(t)
	cp := controlplane.StartForTest(t, controlplane.Options{AuditPolicy: controlplane.AuditPolicyWritesAndServiceAccounts, WithoutScheduler: true, WithoutKwok: true})
	ctx := t.Context()
	start := time.Now()
	sys, err := Install(ctx, cp, binary)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sys.Close() })
	ns, err := cp.NewNamespace(ctx, "install")
	if err != nil {
		t.Fatal(err)
	}
	id, err := sys.ServiceAccount(ctx, ns, "controller")
	if err != nil {
		t.Fatal(err)
	}
	c, err := sys.StartController("controller", id, "--namespace", ns, "--feature-gates", "ResourcesDeletionProtection=true")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Stop()
		if t.Failed() {
			t.Logf("controller log:\n%s", c.LogTail(40))
		}
	})

	checkPublished(ctx, t, sys)
	dyn := dynamic.NewForConfigOrDie(cp.Config())
	created, err := dyn.Resource(resource("v1alpha1")).Namespace(ns).Create(ctx, cloneSet("v1alpha1", ns, "web", map[string]any{"updateStrategy": map[string]any{"type": "InPlaceIfPossible"}}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if limit, _, _ := unstructured.NestedInt64(created.Object, "spec", "revisionHistoryLimit"); limit != 10 {
		t.Errorf("revisionHistoryLimit %d: the mutating webhook did not default it", limit)
	}
	beta, err := dyn.Resource(resource("v1beta1")).Namespace(ns).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if policy, _, _ := unstructured.NestedString(beta.Object, "spec", "updateStrategy", "rollingUpdate", "podUpdatePolicy"); policy != "InPlaceIfPossible" {
		t.Errorf("read as v1beta1: podUpdatePolicy %q, want InPlaceIfPossible (converted)", policy)
	}
	_, err = dyn.Resource(resource("v1beta1")).Namespace(ns).Create(ctx, cloneSet("v1beta1", ns, "bad", map[string]any{
		"updateStrategy": map[string]any{"rollingUpdate": map[string]any{"maxUnavailable": int64(0), "maxSurge": int64(0)}}}), metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.updateStrategy.rollingUpdate.maxUnavailable") {
		t.Errorf("invalid CloneSet: %v, want refused naming spec.updateStrategy.rollingUpdate.maxUnavailable", err)
	}
	protected := cloneSet("v1beta1", ns, "protected", nil)
	protected.SetLabels(map[string]string{"policy.kruise.io/delete-protection": "Always"})
	if _, err := dyn.Resource(resource("v1beta1")).Namespace(ns).Create(ctx, protected, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := dyn.Resource(resource("v1beta1")).Namespace(ns).Delete(ctx, "protected", metav1.DeleteOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("deleting a protected CloneSet: %v, want 403 Forbidden", err)
	}
	forbidden, err := sys.Forbidden(start)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range forbidden {
		t.Errorf("forbidden: %s", Describe(ev))
	}
}

// checkPublished checks that the webhook configurations and the CRD's
// conversion reach the Endpoint with a CA bundle.
func checkPublished(ctx context.Context, t *testing.T, sys *System) {
	t.Helper()
	want := "https://" + sys.Endpoint.Addr()
	var m admissionregistrationv1.MutatingWebhookConfigurationList
	if err := sys.Client.List(ctx, &m); err != nil {
		t.Fatal(err)
	}
	var v admissionregistrationv1.ValidatingWebhookConfigurationList
	if err := sys.Client.List(ctx, &v); err != nil {
		t.Fatal(err)
	}
	var configs []admissionregistrationv1.WebhookClientConfig
	for _, c := range m.Items {
		for _, w := range c.Webhooks {
			configs = append(configs, w.ClientConfig)
		}
	}
	for _, c := range v.Items {
		for _, w := range c.Webhooks {
			configs = append(configs, w.ClientConfig)
		}
	}
	if len(configs) != 3 {
		t.Fatalf("%d webhooks, want 3", len(configs))
	}
	for _, cc := range configs {
		if cc.URL == nil || !strings.HasPrefix(*cc.URL, want) || len(cc.CABundle) == 0 {
			t.Errorf("webhook client config %v %v, want a URL of %s and a CA bundle", cc.URL, cc.Service, want)
		}
	}
}
