package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// Defaults of Certificates.
const (
	// DefaultCAValidity is how long a self-managed CA is valid (ten years,
	// as OpenKruise's).
	DefaultCAValidity = 10 * 365 * 24 * time.Hour
	// DefaultServingValidity is how long a self-managed serving
	// certificate is valid (one year).
	DefaultServingValidity = 365 * 24 * time.Hour
	// DefaultResync is how often Certificates checks the Secret and the
	// objects it publishes to even when no watch event comes.
	DefaultResync = time.Minute
	// retryAfter is how soon a failed sync is tried again.
	retryAfter = 2 * time.Second
)

// Certificates keeps the webhook server's certificates when the binary
// manages them itself, as OpenKruise's webhook controller does: a CA and a
// serving certificate in a Secret every replica shares (created by the
// first one), the CA bundle written into the webhook configurations and
// the CRD's conversion, the serving certificate renewed before it expires
// and the CA too (in steps: see Renew). It serves the current serving
// certificate to the webhook server (GetCertificate).
//
// It is a manager Runnable of every replica (no leader election): each
// replica watches the Secret and the objects it publishes to, by name, and
// syncs at every change, at the next renewal and at least every Resync.
type Certificates struct {
	// Client reads and writes the Secret and the webhook configurations;
	// APIExtensions reads and writes the CRD.
	Client        kubernetes.Interface
	APIExtensions apiextensionsclient.Interface
	// Namespace and SecretName name the Secret.
	Namespace, SecretName string
	// Policy: the serving certificate's hosts, the validities.
	Policy Policy
	// Targets are the objects the CA bundle is written to.
	Targets Targets
	// Log receives a line per change.
	Log logr.Logger
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Resync bounds the time between two syncs (DefaultResync when 0).
	Resync time.Duration

	current   atomic.Pointer[tls.Certificate]
	published atomic.Bool
	trigger   chan struct{}
	once      sync.Once
}

// Targets are the objects whose client configuration Certificates keeps.
type Targets struct {
	// MutatingConfiguration and ValidatingConfiguration name the webhook
	// configurations; CRD names the CustomResourceDefinition whose
	// conversion webhook is served.
	MutatingConfiguration, ValidatingConfiguration, CRD string
	// URLHost, when set ("host" or "host:port"), makes every client
	// configuration a URL, https://URLHost<path>, instead of the Service
	// the manifests name (OpenKruise's WEBHOOK_HOST: for a binary the API
	// server reaches without a Service, such as tests on one machine).
	URLHost string
	// ServiceNamespace and ServiceName, when set (and URLHost is not),
	// are written into every client configuration naming a Service, as
	// OpenKruise does: the manifests installed in another namespace (a
	// kustomize overlay) reach the binary's own Service.
	ServiceNamespace, ServiceName string
}

func (c *Certificates) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *Certificates) resync() time.Duration {
	if c.Resync > 0 {
		return c.Resync
	}
	return DefaultResync
}

func (c *Certificates) init() {
	c.once.Do(func() { c.trigger = make(chan struct{}, 1) })
}

// poke asks for a sync soon.
func (c *Certificates) poke() {
	c.init()
	select {
	case c.trigger <- struct{}{}:
	default:
	}
}

// GetCertificate serves the current serving certificate (tls.Config's
// GetCertificate).
func (c *Certificates) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	cert := c.current.Load()
	if cert == nil {
		return nil, errors.New("webhook: no serving certificate yet")
	}
	return cert, nil
}

// ReadyCheck is a readiness check (healthz.Checker): ready once a serving
// certificate is loaded and its CA bundle published everywhere once.
func (c *Certificates) ReadyCheck(*http.Request) error {
	if c.current.Load() == nil {
		return errors.New("no serving certificate yet")
	}
	if !c.published.Load() {
		return errors.New("the CA bundle is not published yet")
	}
	return nil
}

// NeedLeaderElection is false: every replica serves the webhooks.
func (c *Certificates) NeedLeaderElection() bool { return false }

// Start syncs until ctx ends (a manager Runnable). Sync errors are logged
// and retried; Start returns nil when ctx ends.
func (c *Certificates) Start(ctx context.Context) error {
	c.init()
	c.watch(ctx)
	for {
		next, err := c.Sync(ctx)
		wait := c.resync()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			c.Log.Error(err, "webhook certificates: sync failed; trying again", "after", retryAfter)
			wait = retryAfter
		} else if d := next.Sub(c.now()); d < wait {
			wait = max(d, 0)
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil
		case <-c.trigger:
			timer.Stop()
		case <-timer.C:
		}
	}
}

// Sync takes every step due (Renew), publishing the bundle after each
// change of it, loads the serving certificate, and returns when the next
// step is due.
func (c *Certificates) Sync(ctx context.Context) (time.Time, error) {
	secrets := c.Client.CoreV1().Secrets(c.Namespace)
	secret, err := secrets.Get(ctx, c.SecretName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		secret = nil
	case err != nil:
		return time.Time{}, fmt.Errorf("read Secret %s/%s: %w", c.Namespace, c.SecretName, err)
	}
	var have Artifacts
	if secret != nil {
		have = FromSecretData(secret.Data)
	}
	for range 4 { // at most: new CA, new serving certificate, pruned; then none
		next, step, err := Renew(have, c.Policy, c.now())
		if err != nil {
			return time.Time{}, err
		}
		if step == StepNone {
			break
		}
		if secret, err = c.write(ctx, secret, next); err != nil {
			return time.Time{}, err
		}
		c.Log.Info("webhook certificates: renewed", "step", step.String(), "secret", c.Namespace+"/"+c.SecretName)
		bundleChanged := !bytes.Equal(next.CABundle, have.CABundle)
		have = next
		if bundleChanged {
			if err := c.publish(ctx, have.CABundle); err != nil {
				return time.Time{}, err
			}
		}
	}
	if err := c.publish(ctx, have.CABundle); err != nil {
		return time.Time{}, err
	}
	if err := c.load(have); err != nil {
		return time.Time{}, err
	}
	c.published.Store(true)
	return Inspect(have, c.now()).NextRenewal(c.Policy), nil
}

// write stores a in the Secret (creating it when secret is nil); a
// conflict with another replica's write is an error (the next sync reads
// theirs).
func (c *Certificates) write(ctx context.Context, secret *corev1.Secret, a Artifacts) (*corev1.Secret, error) {
	secrets := c.Client.CoreV1().Secrets(c.Namespace)
	if secret == nil {
		s := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: c.SecretName, Namespace: c.Namespace, Labels: map[string]string{"app.kubernetes.io/part-of": "cloneset", "app.kubernetes.io/component": "webhook"}},
			Type:       corev1.SecretTypeTLS,
			Data:       a.SecretData(),
		}
		out, err := secrets.Create(ctx, s, metav1.CreateOptions{})
		if err != nil {
			return nil, fmt.Errorf("create Secret %s/%s: %w", c.Namespace, c.SecretName, err)
		}
		return out, nil
	}
	s := secret.DeepCopy()
	s.Data = a.SecretData()
	out, err := secrets.Update(ctx, s, metav1.UpdateOptions{})
	if err != nil {
		return nil, fmt.Errorf("update Secret %s/%s: %w", c.Namespace, c.SecretName, err)
	}
	return out, nil
}

// load makes a's serving certificate the one served, when it differs.
func (c *Certificates) load(a Artifacts) error {
	if block, _ := pem.Decode(a.ServingCert); block != nil {
		if cur := c.current.Load(); cur != nil && len(cur.Certificate) > 0 && bytes.Equal(cur.Certificate[0], block.Bytes) {
			return nil
		}
	}
	pair, err := tls.X509KeyPair(a.ServingCert, a.ServingKey)
	if err != nil {
		return fmt.Errorf("Secret %s/%s: the serving certificate: %w", c.Namespace, c.SecretName, err)
	}
	c.current.Store(&pair)
	c.Log.Info("webhook certificates: serving certificate loaded", "notAfter", pair.Leaf.NotAfter.Format(time.RFC3339), "hosts", c.Policy.Hosts)
	return nil
}

// publish writes bundle into the targets.
func (c *Certificates) publish(ctx context.Context, bundle []byte) error {
	return c.Targets.Publish(ctx, c.Client, c.APIExtensions, bundle, c.Log)
}

// Publish writes bundle, as the caBundle, into the webhook configurations
// and the CRD's conversion the targets name (with the URL or the Service
// they say), updating only what differs; log gets a line per update. A
// missing target is an error naming it.
func (t Targets) Publish(ctx context.Context, cs kubernetes.Interface, ext apiextensionsclient.Interface, bundle []byte, log logr.Logger) error {
	mutating := cs.AdmissionregistrationV1().MutatingWebhookConfigurations()
	if t.MutatingConfiguration != "" {
		cfg, err := mutating.Get(ctx, t.MutatingConfiguration, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("MutatingWebhookConfiguration %s (apply the manifests of config/ first): %w", t.MutatingConfiguration, err)
		}
		changed := false
		for i := range cfg.Webhooks {
			changed = t.configure(&cfg.Webhooks[i].ClientConfig, bundle) || changed
		}
		if changed {
			if _, err := mutating.Update(ctx, cfg, metav1.UpdateOptions{}); err != nil {
				return fmt.Errorf("update MutatingWebhookConfiguration %s: %w", cfg.Name, err)
			}
			log.Info("webhook certificates: CA bundle written", "mutatingWebhookConfiguration", cfg.Name)
		}
	}
	validating := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	if t.ValidatingConfiguration != "" {
		cfg, err := validating.Get(ctx, t.ValidatingConfiguration, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("ValidatingWebhookConfiguration %s (apply the manifests of config/ first): %w", t.ValidatingConfiguration, err)
		}
		changed := false
		for i := range cfg.Webhooks {
			changed = t.configure(&cfg.Webhooks[i].ClientConfig, bundle) || changed
		}
		if changed {
			if _, err := validating.Update(ctx, cfg, metav1.UpdateOptions{}); err != nil {
				return fmt.Errorf("update ValidatingWebhookConfiguration %s: %w", cfg.Name, err)
			}
			log.Info("webhook certificates: CA bundle written", "validatingWebhookConfiguration", cfg.Name)
		}
	}
	if t.CRD != "" {
		crds := ext.ApiextensionsV1().CustomResourceDefinitions()
		crd, err := crds.Get(ctx, t.CRD, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("CustomResourceDefinition %s: %w", t.CRD, err)
		}
		conv := crd.Spec.Conversion
		if conv == nil || conv.Strategy != apiextensionsv1.WebhookConverter || conv.Webhook == nil || conv.Webhook.ClientConfig == nil {
			return fmt.Errorf("CustomResourceDefinition %s: no conversion webhook (apply the definition of config/)", t.CRD)
		}
		if t.configureCRD(conv.Webhook.ClientConfig, bundle) {
			if _, err := crds.Update(ctx, crd, metav1.UpdateOptions{}); err != nil {
				return fmt.Errorf("update CustomResourceDefinition %s: %w", crd.Name, err)
			}
			log.Info("webhook certificates: CA bundle written", "customResourceDefinition", crd.Name)
		}
	}
	return nil
}

// clientConfig is what configure changes in a client configuration of
// either kind (a webhook's, the CRD conversion's).
type clientConfig struct {
	caBundle *[]byte
	url      **string
	// service is set when the configuration names a Service: its path,
	// namespace and name, and how to drop it.
	service                   bool
	servicePath               *string
	serviceNamespace, svcName *string
	dropService               func()
}

// configure sets a webhook's caBundle (and URL, with URLHost); it reports
// whether anything changed.
func (t Targets) configure(cc *admissionregistrationv1.WebhookClientConfig, bundle []byte) bool {
	c := clientConfig{caBundle: &cc.CABundle, url: &cc.URL, dropService: func() { cc.Service = nil }}
	if s := cc.Service; s != nil {
		c.service, c.servicePath, c.serviceNamespace, c.svcName = true, s.Path, &s.Namespace, &s.Name
	}
	return t.configureClient(c, bundle)
}

// configureCRD is configure for the CRD's conversion webhook.
func (t Targets) configureCRD(cc *apiextensionsv1.WebhookClientConfig, bundle []byte) bool {
	c := clientConfig{caBundle: &cc.CABundle, url: &cc.URL, dropService: func() { cc.Service = nil }}
	if s := cc.Service; s != nil {
		c.service, c.servicePath, c.serviceNamespace, c.svcName = true, s.Path, &s.Namespace, &s.Name
	}
	return t.configureClient(c, bundle)
}

// configureClient sets the bundle, and the URL (URLHost) or the Service
// (ServiceNamespace, ServiceName) of a client configuration; it reports
// whether anything changed.
func (t Targets) configureClient(c clientConfig, bundle []byte) bool {
	changed := setBundle(c.caBundle, bundle)
	if t.URLHost == "" {
		if c.service {
			changed = t.setService(c.serviceNamespace, c.svcName) || changed
		}
		return changed
	}
	var path *string
	if c.service {
		path = c.servicePath
	}
	if want := t.url(path, *c.url); *c.url == nil || **c.url != want || c.service {
		*c.url, changed = &want, true
		c.dropService()
	}
	return changed
}

// setService sets a Service reference's namespace and name to the
// targets' (when they are set), reporting whether it changed.
func (t Targets) setService(namespace, name *string) bool {
	changed := false
	if t.ServiceNamespace != "" && *namespace != t.ServiceNamespace {
		*namespace, changed = t.ServiceNamespace, true
	}
	if t.ServiceName != "" && *name != t.ServiceName {
		*name, changed = t.ServiceName, true
	}
	return changed
}

// setBundle sets *have to want, reporting whether it changed.
func setBundle(have *[]byte, want []byte) bool {
	if bytes.Equal(*have, want) {
		return false
	}
	*have = bytes.Clone(want)
	return true
}

// url is the URL of a webhook at URLHost: the path of its Service
// (servicePath) or of its URL.
func (t Targets) url(servicePath, current *string) string {
	path := ""
	if servicePath != nil {
		path = *servicePath
	} else if current != nil {
		if u, err := url.Parse(*current); err == nil {
			path = u.Path
		}
	}
	return "https://" + t.URLHost + path
}

// watch starts informers, each on one object by name, that ask for a sync
// at every change: the Secret, the two webhook configurations, the CRD.
func (c *Certificates) watch(ctx context.Context) {
	poke := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { c.poke() },
		UpdateFunc: func(any, any) { c.poke() },
		DeleteFunc: func(any) { c.poke() },
	}
	byName := func(name string) string { return fields.OneTermEqualSelector("metadata.name", name).String() }
	run := func(example runtime.Object, name string, list func(context.Context, metav1.ListOptions) (runtime.Object, error), watchFn func(context.Context, metav1.ListOptions) (watch.Interface, error)) {
		if name == "" {
			return
		}
		sel := byName(name)
		lw := &cache.ListWatch{
			ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				o.FieldSelector = sel
				return list(ctx, o)
			},
			WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
				o.FieldSelector = sel
				return watchFn(ctx, o)
			},
		}
		inf := cache.NewSharedIndexInformer(lw, example, 0, cache.Indexers{})
		_, _ = inf.AddEventHandler(poke)
		go inf.RunWithContext(ctx)
	}
	secrets := c.Client.CoreV1().Secrets(c.Namespace)
	run(&corev1.Secret{}, c.SecretName,
		func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) { return secrets.List(ctx, o) },
		secrets.Watch)
	mutating := c.Client.AdmissionregistrationV1().MutatingWebhookConfigurations()
	run(&admissionregistrationv1.MutatingWebhookConfiguration{}, c.Targets.MutatingConfiguration,
		func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) { return mutating.List(ctx, o) },
		mutating.Watch)
	validating := c.Client.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	run(&admissionregistrationv1.ValidatingWebhookConfiguration{}, c.Targets.ValidatingConfiguration,
		func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return validating.List(ctx, o)
		},
		validating.Watch)
	crds := c.APIExtensions.ApiextensionsV1().CustomResourceDefinitions()
	run(&apiextensionsv1.CustomResourceDefinition{}, c.Targets.CRD,
		func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) { return crds.List(ctx, o) },
		crds.Watch)
}
