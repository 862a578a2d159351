package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

const (
	testNamespace = "clonesetcontroller-system"
	testSecret    = "webhook-certs"
	testMutating  = "test-mutating"
	testValidate  = "test-validating"
	testCRD       = "clonesets.apps.kruise.io"
)

// fakeCluster holds the objects Certificates publishes to, each
// webhook reaching a Service.
func fakeCluster() (*fake.Clientset, *apiextensionsfake.Clientset) {
	svc := func(path string) admissionregistrationv1.WebhookClientConfig {
		return admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: testNamespace, Name: "webhook", Path: &path}}
	}
	m := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: testMutating}, Webhooks: []admissionregistrationv1.MutatingWebhook{
		{Name: "mcloneset.example.com", ClientConfig: svc(PathMutateCloneSet)},
		{Name: "mpod.example.com", ClientConfig: svc(PathMutatePod)},
	}}
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: testValidate}, Webhooks: []admissionregistrationv1.ValidatingWebhook{
		{Name: "vcloneset.example.com", ClientConfig: svc(PathValidateCloneSet)},
	}}
	path := PathConvert
	crd := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: testCRD}, Spec: apiextensionsv1.CustomResourceDefinitionSpec{
		Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter, Webhook: &apiextensionsv1.WebhookConversion{
			ClientConfig:             &apiextensionsv1.WebhookClientConfig{Service: &apiextensionsv1.ServiceReference{Namespace: testNamespace, Name: "webhook", Path: &path}},
			ConversionReviewVersions: []string{"v1"},
		}},
	}}
	return fake.NewClientset(m, v), apiextensionsfake.NewClientset(crd)
}

func newTestCertificates(cs *fake.Clientset, ext *apiextensionsfake.Clientset, now *time.Time, urlHost string) *Certificates {
	return &Certificates{
		Client: cs, APIExtensions: ext,
		Namespace: testNamespace, SecretName: testSecret,
		Policy:  testPolicy,
		Targets: Targets{MutatingConfiguration: testMutating, ValidatingConfiguration: testValidate, CRD: testCRD, URLHost: urlHost},
		Log:     logr.Discard(),
		Now:     func() time.Time { return *now },
	}
}

// published reads the client configurations of the three targets.
func published(t *testing.T, cs *fake.Clientset, ext *apiextensionsfake.Clientset) (bundles [][]byte, urls []string) {
	t.Helper()
	ctx := context.Background()
	m, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, testMutating, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, testValidate, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	crd, err := ext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, testCRD, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	url := func(u *string) string {
		if u == nil {
			return ""
		}
		return *u
	}
	for _, w := range m.Webhooks {
		bundles, urls = append(bundles, w.ClientConfig.CABundle), append(urls, url(w.ClientConfig.URL))
	}
	for _, w := range v.Webhooks {
		bundles, urls = append(bundles, w.ClientConfig.CABundle), append(urls, url(w.ClientConfig.URL))
	}
	cc := crd.Spec.Conversion.Webhook.ClientConfig
	bundles, urls = append(bundles, cc.CABundle), append(urls, url(cc.URL))
	return bundles, urls
}

// writes counts the write actions a fake clientset recorded.
func writes(actions []k8stesting.Action) int {
	n := 0
	for _, a := range actions {
		switch a.GetVerb() {
		case "create", "update", "patch", "delete":
			n++
		}
	}
	return n
}

func TestSyncCreatesPublishesAndServes(t *testing.T) {
	cs, ext := fakeCluster()
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	c := newTestCertificates(cs, ext, &now, "")
	if err := c.ReadyCheck(nil); err == nil {
		t.Error("ready before the first sync")
	}
	next, err := c.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	secret, err := cs.CoreV1().Secrets(testNamespace).Get(context.Background(), testSecret, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if secret.Type != corev1.SecretTypeTLS {
		t.Errorf("Secret type %s", secret.Type)
	}
	a := FromSecretData(secret.Data)
	bundles, urls := published(t, cs, ext)
	for i, b := range bundles {
		if !bytes.Equal(b, a.CABundle) {
			t.Errorf("target %d: caBundle is not the Secret's", i)
		}
		if urls[i] != "" {
			t.Errorf("target %d: URL %q set without a URL host", i, urls[i])
		}
	}
	if err := c.ReadyCheck(nil); err != nil {
		t.Errorf("not ready after a sync: %v", err)
	}
	served, err := c.GetCertificate(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(encodeCerts([]*x509.Certificate{served.Leaf}), a.ServingCert) {
		t.Error("the served certificate is not the Secret's")
	}
	if want := Inspect(a, now).NextRenewal(testPolicy); !next.Equal(want) || !next.After(now) {
		t.Errorf("next sync at %s, want %s", next, want)
	}

	// At rest, a sync writes nothing.
	cs.ClearActions()
	ext.ClearActions()
	now = now.Add(time.Minute)
	if _, err := c.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := writes(cs.Actions()) + writes(ext.Actions()); n != 0 {
		t.Errorf("a sync at rest wrote %d times: %v %v", n, cs.Actions(), ext.Actions())
	}

	// A bundle removed by someone (a manifest applied with an empty
	// caBundle) is written again.
	m, _ := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(context.Background(), testMutating, metav1.GetOptions{})
	m.Webhooks[1].ClientConfig.CABundle = nil
	if _, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Update(context.Background(), m, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if bundles, _ := published(t, cs, ext); !bytes.Equal(bundles[1], a.CABundle) {
		t.Error("a removed caBundle was not written again")
	}
}

func TestSyncURLHost(t *testing.T) {
	cs, ext := fakeCluster()
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	c := newTestCertificates(cs, ext, &now, "127.0.0.1:9443")
	if _, err := c.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, urls := published(t, cs, ext)
	want := []string{"https://127.0.0.1:9443" + PathMutateCloneSet, "https://127.0.0.1:9443" + PathMutatePod, "https://127.0.0.1:9443" + PathValidateCloneSet, "https://127.0.0.1:9443" + PathConvert}
	if strings.Join(urls, " ") != strings.Join(want, " ") {
		t.Errorf("URLs %v, want %v", urls, want)
	}
	m, _ := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(context.Background(), testMutating, metav1.GetOptions{})
	if m.Webhooks[0].ClientConfig.Service != nil {
		t.Error("the Service is kept next to the URL")
	}
}

// TestSyncServiceOfTheBinary: the Services of the client configurations
// become the binary's own (its namespace, its Service's name).
func TestSyncServiceOfTheBinary(t *testing.T) {
	cs, ext := fakeCluster()
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	c := newTestCertificates(cs, ext, &now, "")
	c.Targets.ServiceNamespace, c.Targets.ServiceName = "elsewhere", "hooks"
	if _, err := c.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	m, _ := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(context.Background(), testMutating, metav1.GetOptions{})
	v, _ := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(context.Background(), testValidate, metav1.GetOptions{})
	crd, _ := ext.ApiextensionsV1().CustomResourceDefinitions().Get(context.Background(), testCRD, metav1.GetOptions{})
	got := []string{m.Webhooks[0].ClientConfig.Service.Namespace + "/" + m.Webhooks[0].ClientConfig.Service.Name,
		m.Webhooks[1].ClientConfig.Service.Namespace + "/" + m.Webhooks[1].ClientConfig.Service.Name,
		v.Webhooks[0].ClientConfig.Service.Namespace + "/" + v.Webhooks[0].ClientConfig.Service.Name,
		crd.Spec.Conversion.Webhook.ClientConfig.Service.Namespace + "/" + crd.Spec.Conversion.Webhook.ClientConfig.Service.Name}
	for _, g := range got {
		if g != "elsewhere/hooks" {
			t.Errorf("Services %v, want elsewhere/hooks everywhere", got)
			break
		}
	}
	if *m.Webhooks[1].ClientConfig.Service.Path != PathMutatePod {
		t.Errorf("path %s changed", *m.Webhooks[1].ClientConfig.Service.Path)
	}
}

// TestSyncMissingTargets: without the webhook configurations (the
// manifests not applied), a sync fails naming what is missing, and the
// process is not ready.
func TestSyncMissingTargets(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	c := newTestCertificates(fake.NewClientset(), apiextensionsfake.NewClientset(), &now, "")
	_, err := c.Sync(context.Background())
	if err == nil || !strings.Contains(err.Error(), testMutating) {
		t.Fatalf("error %v, want one naming %s", err, testMutating)
	}
	if err := c.ReadyCheck(nil); err == nil {
		t.Error("ready without the targets")
	}
}

// TestSyncReplicas: two replicas share the Secret; one renews, the other
// loads what it wrote instead of renewing again; a conflict is an error
// the next sync resolves.
func TestSyncReplicas(t *testing.T) {
	cs, ext := fakeCluster()
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	a := newTestCertificates(cs, ext, &now, "")
	b := newTestCertificates(cs, ext, &now, "")
	if _, err := a.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	ca, _ := a.GetCertificate(nil)
	cb, _ := b.GetCertificate(nil)
	if !bytes.Equal(ca.Certificate[0], cb.Certificate[0]) {
		t.Fatal("the replicas serve different certificates")
	}
	now = now.Add(testPolicy.ServingValidity) // the serving certificate is due
	if _, err := a.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	cs.ClearActions()
	if _, err := b.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := writes(cs.Actions()); n != 0 {
		t.Errorf("the second replica wrote %d times after the first renewed", n)
	}
	ca, _ = a.GetCertificate(nil)
	cb, _ = b.GetCertificate(nil)
	if !bytes.Equal(ca.Certificate[0], cb.Certificate[0]) {
		t.Error("the second replica did not load the renewed certificate")
	}
}

// TestStartServesTLS: Start syncs at once; a TLS server using
// GetCertificate is trusted by a client with the published bundle, for the
// policy's IP address.
func TestStartServesTLS(t *testing.T) {
	cs, ext := fakeCluster()
	now := time.Now()
	c := newTestCertificates(cs, ext, &now, "")
	c.Now = time.Now
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	for deadline := time.Now().Add(10 * time.Second); c.ReadyCheck(nil) != nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not ready after 10 s: %v", c.ReadyCheck(nil))
		}
	}
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{GetCertificate: c.GetCertificate})
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok")) })}
	go srv.Serve(l)
	defer srv.Close()
	bundles, _ := published(t, cs, ext)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool(t, bundles[0])}}}
	_, port, _ := net.SplitHostPort(l.Addr().String())
	resp, err := client.Get("https://127.0.0.1:" + port)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}
