package webhook

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/go-logr/logr"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
)

// The names of the objects the manifests of config/ install and the binary
// keeps.
const (
	// MutatingConfigurationName names the MutatingWebhookConfiguration
	// (the CloneSet and pod mutating webhooks).
	MutatingConfigurationName = "clonesetcontroller-mutating-webhook-configuration"
	// ValidatingConfigurationName names the
	// ValidatingWebhookConfiguration (the CloneSet validating webhook).
	ValidatingConfigurationName = "clonesetcontroller-validating-webhook-configuration"
	// CRDName names the CloneSet CustomResourceDefinition.
	CRDName = "clonesets.apps.kruise.io"
	// DefaultServiceName is the Service the webhook configurations and
	// the CRD's conversion name.
	DefaultServiceName = "clonesetcontroller-webhook-service"
	// DefaultSecretName is the Secret of the self-managed certificates.
	DefaultSecretName = "clonesetcontroller-webhook-certs"
	// DefaultPort is the port the webhook server listens on (the
	// Service's targetPort).
	DefaultPort = 9443
)

// Options configure NewServer.
type Options struct {
	// Port is the port to listen on (DefaultPort when 0); BindHost the
	// address (every address when empty).
	Port     int
	BindHost string
	// CertDir, when set, holds the serving certificate and key given
	// (tls.crt and tls.key, reloaded when they change: cert-manager or
	// another issuer renews them, and puts its CA in the webhook
	// configurations and the CRD itself). Empty: the binary manages its
	// certificates (Certificates), in the Secret SecretName of Namespace.
	CertDir string
	// Namespace is where the Service and the Secret are (the binary's
	// own, in a cluster); ServiceName and SecretName default to
	// DefaultServiceName and DefaultSecretName.
	Namespace, ServiceName, SecretName string
	// URLHost, when set, is "host" or "host:port" at which the API
	// server reaches the webhooks (port: Port when absent): the
	// self-managed certificates are issued for that host and the
	// configurations get a URL instead of the Service.
	URLHost string
	// CAValidity and ServingValidity of the self-managed certificates
	// (DefaultCAValidity and DefaultServingValidity when 0).
	CAValidity, ServingValidity time.Duration
	// Log receives the webhooks' and the certificates' lines.
	Log logr.Logger
}

// Server is the webhook server of the binary: the controller-runtime server
// and, with self-managed certificates, the Certificates feeding it.
type Server struct {
	webhook.Server
	// Certificates is nil when the certificates are given (CertDir).
	Certificates *Certificates
	handlers     *Handlers
}

// NewServer builds the webhook server of opts; cfg is the cluster's, for
// the self-managed certificates' writes. Install it in the manager
// (ctrl.Options.WebhookServer), then call Setup.
func NewServer(cfg *rest.Config, opts Options) (*Server, error) {
	if opts.Port == 0 {
		opts.Port = DefaultPort
	}
	if opts.ServiceName == "" {
		opts.ServiceName = DefaultServiceName
	}
	if opts.SecretName == "" {
		opts.SecretName = DefaultSecretName
	}
	if opts.CAValidity == 0 {
		opts.CAValidity = DefaultCAValidity
	}
	if opts.ServingValidity == 0 {
		opts.ServingValidity = DefaultServingValidity
	}
	// HTTP/2 off, as kubebuilder's projects do (its rapid reset attacks);
	// kube-apiserver calls webhooks over HTTP/1.1 as well.
	tlsOpts := []func(*tls.Config){func(c *tls.Config) { c.NextProtos = []string{"http/1.1"}; c.MinVersion = tls.VersionTLS12 }}
	s := &Server{handlers: &Handlers{Log: opts.Log.WithName("webhook")}}
	if opts.CertDir == "" {
		certs, err := newCertificates(cfg, opts)
		if err != nil {
			return nil, err
		}
		s.Certificates = certs
		tlsOpts = append(tlsOpts, func(c *tls.Config) { c.GetCertificate = certs.GetCertificate })
	}
	s.Server = webhook.NewServer(webhook.Options{Host: opts.BindHost, Port: opts.Port, CertDir: opts.CertDir, TLSOpts: tlsOpts})
	return s, nil
}

// newCertificates builds the self-managed certificates of opts.
func newCertificates(cfg *rest.Config, opts Options) (*Certificates, error) {
	if opts.Namespace == "" {
		return nil, errors.New("webhook: self-managed certificates need the namespace of their Secret and the Service (give one, or a certificate directory)")
	}
	hosts, urlHost, err := certificateHosts(opts)
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	ext, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &Certificates{
		Client: cs, APIExtensions: ext,
		Namespace: opts.Namespace, SecretName: opts.SecretName,
		Policy: Policy{Hosts: hosts, CAValidity: opts.CAValidity, ServingValidity: opts.ServingValidity},
		Targets: Targets{MutatingConfiguration: MutatingConfigurationName, ValidatingConfiguration: ValidatingConfigurationName, CRD: CRDName,
			URLHost: urlHost, ServiceNamespace: opts.Namespace, ServiceName: opts.ServiceName},
		Log: opts.Log.WithName("certificates"),
	}, nil
}

// certificateHosts are the hosts the serving certificate is for: URLHost's
// host (and the URL host with its port), or the Service's DNS names.
func certificateHosts(opts Options) (hosts []string, urlHost string, err error) {
	if opts.URLHost == "" {
		svc, ns := opts.ServiceName, opts.Namespace
		return []string{svc + "." + ns + ".svc", svc + "." + ns + ".svc.cluster.local", svc + "." + ns, svc}, "", nil
	}
	host, port, err := net.SplitHostPort(opts.URLHost)
	if err != nil {
		host, port = opts.URLHost, fmt.Sprint(opts.Port)
	}
	if host == "" {
		return nil, "", fmt.Errorf("webhook: URL host %q: no host", opts.URLHost)
	}
	return []string{host}, net.JoinHostPort(host, port), nil
}

// Setup registers the webhooks' paths with rules, adds the self-managed
// certificates to the manager, and the readiness checks: the server
// answers TLS, and the certificates are published.
func (s *Server) Setup(mgr manager.Manager, rules Rules) error {
	if rules == nil {
		return errors.New("webhook: no Rules")
	}
	s.handlers.Rules = rules
	// The manager starts its webhook server once asked for it.
	if mgr.GetWebhookServer() != s {
		return errors.New("webhook: the manager's webhook server is not this one (set ctrl.Options.WebhookServer)")
	}
	for path, h := range s.handlers.Paths() {
		s.Register(path, h)
	}
	if s.Certificates != nil {
		if err := mgr.Add(s.Certificates); err != nil {
			return err
		}
		if err := mgr.AddReadyzCheck("webhook-certificates", s.Certificates.ReadyCheck); err != nil {
			return err
		}
	}
	return mgr.AddReadyzCheck("webhook-server", s.StartedChecker())
}
