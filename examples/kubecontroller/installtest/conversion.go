package installtest

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller/crd"
	"github.com/clonecore/cloneset/examples/kubecontroller/webhook"
	"github.com/go-logr/logr"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ConversionServer serves the CRD conversion webhook in the test's own
// process (package webhook's handler on the library's rules, over TLS with
// a CA of its own) for a control plane that runs kube-apiserver without
// the binary: objects written in v1alpha1 are stored as v1beta1 through
// it, as the binary's conversion webhook does it.
type ConversionServer struct {
	server *http.Server
	done   chan struct{}
}

// ServeConversion installs the CRD (crd.Install), starts a
// ConversionServer on a free loopback port, points the CRD's conversion
// at it, and returns once kube-apiserver converts through it (a v1alpha1
// CloneSet written with dry run in namespace is accepted). Close stops it.
func ServeConversion(ctx context.Context, c client.Client, namespace string) (*ConversionServer, error) {
	if err := crd.Install(ctx, c); err != nil {
		return nil, err
	}
	a, _, err := webhook.Renew(webhook.Artifacts{}, webhook.Policy{Hosts: []string{"127.0.0.1"}, CAValidity: 24 * time.Hour, ServingValidity: 24 * time.Hour}, time.Now())
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
	handlers := &webhook.Handlers{Rules: &webhook.LibraryRules{}, Log: logr.Discard()}
	mux := http.NewServeMux()
	mux.HandleFunc(webhook.PathConvert, handlers.ServeConvert)
	s := &ConversionServer{server: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		_ = s.server.Serve(l)
	}()
	url := "https://" + l.Addr().(*net.TCPAddr).String() + webhook.PathConvert
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		def := &apiextensionsv1.CustomResourceDefinition{}
		if err := c.Get(ctx, client.ObjectKey{Name: crd.Name}, def); err != nil {
			return err
		}
		def.Spec.Conversion.Webhook.ClientConfig = &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: a.CABundle}
		return c.Update(ctx, def)
	})
	if err == nil {
		err = waitConverting(ctx, c, namespace)
	}
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("installtest: the conversion webhook: %w", err)
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
			"selector": map[string]any{"matchLabels": map[string]any{"app": "probe"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "probe"}}},
		},
	}}
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := c.Create(ctx, probe.DeepCopy(), client.DryRunAll)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("kube-apiserver does not convert through it after 30 s: %w", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Close stops the server.
func (s *ConversionServer) Close() error {
	err := s.server.Close()
	<-s.done
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
