package installtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller/controlplane"
	"github.com/clonecore/cloneset/examples/kubecontroller/webhook"
	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

func TestMain(m *testing.M) {
	ctrllog.SetLogger(logr.Discard())
	code := m.Run()
	if shared.sys != nil {
		shared.sys.Close()
		if err := shared.sys.ControlPlane.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// shared is the package's control plane (etcd and kube-apiserver alone:
// no pod runs) with the system installed and one controller process
// serving the webhooks (its controller watching a namespace of its own).
var shared struct {
	once sync.Once
	sys  *System
	dir  string
	err  error
}

// sharedSystem starts the package's system on first use.
func sharedSystem(t *testing.T) *System {
	t.Helper()
	shared.once.Do(func() {
		shared.err = func() error {
			dir, err := os.MkdirTemp("", "installtest-")
			if err != nil {
				return err
			}
			shared.dir = dir
			binary := filepath.Join(dir, "clonesetcontroller")
			if out, err := exec.Command("go", "build", "-o", binary, "../cmd/clonesetcontroller").CombinedOutput(); err != nil {
				return fmt.Errorf("build the controller: %v\n%s", err, out)
			}
			cp, err := controlplane.Start(context.Background(), controlplane.Options{AuditPolicy: controlplane.AuditPolicyWritesAndServiceAccounts,
				WithoutScheduler: true, WithoutKwok: true, WithoutControllerManager: true, LogDir: filepath.Join(dir, "logs")})
			if err != nil {
				return err
			}
			if shared.sys, err = Install(context.Background(), cp, binary); err != nil {
				cp.Stop()
				return err
			}
			return nil
		}()
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(shared.sys.ControlPlane.LogTails(30))
		}
	})
	return shared.sys
}

// startController starts a controller process for t in a namespace of
// its own, with the webhooks, stopped when t ends (its log shown when t
// failed).
func startController(t *testing.T, sys *System, args ...string) (ns string, c *Controller) {
	t.Helper()
	ns, err := sys.ControlPlane.NewNamespace(t.Context(), t.Name())
	if err != nil {
		t.Fatal(err)
	}
	id, err := sys.ServiceAccount(t.Context(), ns, "controller")
	if err != nil {
		t.Fatal(err)
	}
	c, err = sys.StartController(ns+"-controller", id, append([]string{"--namespace", ns}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Remove()
		c.Stop()
		if t.Failed() {
			t.Logf("controller log:\n%s", c.LogTail(40))
		}
	})
	return ns, c
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
	sys := sharedSystem(t)
	ctx := t.Context()
	start := time.Now()
	ns, _ := startController(t, sys, "--feature-gates", "ResourcesDeletionProtection=true")
	cp := sys.ControlPlane

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

// TestCertificatesGiven: with --webhook-cert-dir the binary serves the
// certificate of the directory, writes nothing of its own (no Secret, no
// webhook configuration, no CRD: the issuer publishes its CA, here the
// test), and serves a renewed certificate written into the directory.
func TestCertificatesGiven(t *testing.T) {
	sys := sharedSystem(t)
	ctx := t.Context()
	cp := sys.ControlPlane
	dir := t.TempDir()
	issue := func(now time.Time) webhook.Artifacts {
		a, _, err := webhook.Renew(webhook.Artifacts{}, webhook.Policy{Hosts: []string{"127.0.0.1"}, CAValidity: time.Hour, ServingValidity: time.Hour}, now)
		if err != nil {
			t.Fatal(err)
		}
		// Written as a mounted Secret is: the key first, the certificate
		// last (the watcher reloads on either).
		for name, data := range map[string][]byte{"tls.key": a.ServingKey, "tls.crt": a.ServingCert} {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return a
	}
	ext, err := apiextensionsclient.NewForConfig(cp.Config())
	if err != nil {
		t.Fatal(err)
	}
	publish := func(bundle []byte) {
		targets := webhook.Targets{MutatingConfiguration: webhook.MutatingConfigurationName, ValidatingConfiguration: webhook.ValidatingConfigurationName,
			CRD: webhook.CRDName, URLHost: sys.Endpoint.Addr()}
		if err := targets.Publish(ctx, cp.Clientset(), ext, bundle, logr.Discard()); err != nil {
			t.Fatal(err)
		}
	}
	first := issue(time.Now())
	publish(first.CABundle)
	start := time.Now()
	ns, _ := startController(t, sys, "--webhook-cert-dir", dir)
	dyn := dynamic.NewForConfigOrDie(cp.Config())
	create := func(name string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			created, err := dyn.Resource(resource("v1beta1")).Namespace(ns).Create(ctx, cloneSet("v1beta1", ns, name, nil), metav1.CreateOptions{})
			if err == nil {
				if limit, _, _ := unstructured.NestedInt64(created.Object, "spec", "revisionHistoryLimit"); limit != 10 {
					t.Errorf("%s: not defaulted", name)
				}
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %v", name, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	create("first")
	// A new CA and certificate: the bundle holds both CAs while the files
	// change, as an issuer rotating its CA does.
	second := issue(time.Now())
	publish(append(append([]byte{}, first.CABundle...), second.CABundle...))
	time.Sleep(2 * time.Second) // the certificate watcher's reload
	publish(second.CABundle)
	create("second")
	events, err := cp.AuditEvents()
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range events {
		if ev.RequestReceivedTimestamp.Before(start) || !strings.HasPrefix(ev.User.Username, "system:serviceaccount:"+ns+":") || ev.ObjectRef == nil {
			continue
		}
		switch ev.ObjectRef.Resource {
		case "secrets", "mutatingwebhookconfigurations", "validatingwebhookconfigurations", "customresourcedefinitions":
			t.Errorf("with certificates given the binary touched %s", Describe(ev))
		}
	}
}
