package installtest

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller/controlplane"
	"github.com/clonecore/cloneset/examples/kubecontroller/crd"
	"github.com/clonecore/cloneset/examples/kubecontroller/webhook"
	"github.com/go-logr/logr"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// InProcess serves the binary's webhooks from the test's own process
// (package webhook's handlers on the library's rules, over TLS with a CA
// of its own) for a control plane whose tests run the controller in
// process, or no controller at all.
type InProcess struct {
	server *http.Server
	done   chan struct{}
}

// Webhooks says which webhooks ServeInProcess serves.
type Webhooks int

const (
	// ConversionOnly: the CRD's conversion (the CRD alone is installed):
	// objects written in v1alpha1 are stored as v1beta1 as the binary
	// converts them, and nothing else is defaulted or judged.
	ConversionOnly Webhooks = iota
	// AllWebhooks: the system of config/ installed (Install) and every
	// webhook served: the CloneSet mutating and validating webhooks, the
	// pod webhook and the conversion.
	AllWebhooks
)

// inProcessValidity is how long the in-process certificates are valid.
const inProcessValidity = 24 * time.Hour

// ServeInProcess installs what hooks need on cp, starts an InProcess
// server on a free loopback port, writes its URL and CA into the CRD's
// conversion (and the webhook configurations, with AllWebhooks), and
// returns once kube-apiserver calls it (a v1alpha1 CloneSet written with
// dry run in namespace is accepted). Close stops it.
func ServeInProcess(ctx context.Context, cp *controlplane.ControlPlane, hooks Webhooks, namespace string) (*InProcess, error) {
	c, err := adminClient(cp)
	if err != nil {
		return nil, err
	}
	targets := webhook.Targets{CRD: crd.Name}
	if hooks == AllWebhooks {
		sys, err := Install(ctx, cp, "")
		if err != nil {
			return nil, err
		}
		sys.Close() // its Endpoint: the webhooks are served here
		targets.MutatingConfiguration, targets.ValidatingConfiguration = webhook.MutatingConfigurationName, webhook.ValidatingConfigurationName
	} else if err := crd.Install(ctx, c); err != nil {
		return nil, err
	}
	a, _, err := webhook.Renew(webhook.Artifacts{}, webhook.Policy{Hosts: []string{"127.0.0.1"}, CAValidity: inProcessValidity, ServingValidity: inProcessValidity}, time.Now())
	if err != nil {
		return nil, err
	}
	pair, err := tls.X509KeyPair(a.ServingCert, a.ServingKey)
	if err != nil {
		return nil, err
	}
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{pair}, NextProtos: []string{"http/1.1"}})
	if err != nil {
		return nil, err
	}
	handlers := &webhook.Handlers{Rules: webhook.NewLibraryRules(c), Log: logr.Discard()}
	mux := http.NewServeMux()
	for path, h := range handlers.Paths() {
		if hooks == AllWebhooks || path == webhook.PathConvert {
			mux.Handle(path, h)
		}
	}
	s := &InProcess{server: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		_ = s.server.Serve(l)
	}()
	targets.URLHost = l.Addr().String()
	ext, err := apiextensionsclient.NewForConfig(cp.Config())
	if err == nil {
		err = targets.Publish(ctx, cp.Clientset(), ext, a.CABundle, logr.Discard())
	}
	if err == nil {
		err = waitConverting(ctx, c, namespace)
	}
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("installtest: the webhooks in process: %w", err)
	}
	return s, nil
}

// waitConverting writes a v1alpha1 CloneSet with dry run until
// kube-apiserver accepts it (it converts it to v1beta1 to store it).
func waitConverting(ctx context.Context, c client.Client, namespace string) error {
	probe := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps.kruise.io/v1alpha1", "kind": "CloneSet",
		"metadata": map[string]any{"name": "conversion-probe", "namespace": namespace},
		"spec": map[string]any{
			"replicas": int64(0),
			"selector": map[string]any{"matchLabels": map[string]any{"app": "probe"}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "probe"}},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "probe", "image": "probe"}}},
			},
		},
	}}
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := c.Create(ctx, probe.DeepCopy(), client.DryRunAll)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("kube-apiserver does not call them after 30 s: %w", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Close stops the server.
func (s *InProcess) Close() error {
	err := s.server.Close()
	<-s.done
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
