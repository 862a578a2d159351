// Package installtest installs the CloneSet system a user deploys (the
// manifests of package config) on a control plane of package controlplane,
// and runs clonesetcontroller there as a user would: as a service account
// bound to the shipped roles only, with its webhooks, which kube-apiserver
// calls over TLS. It is for tests.
//
// Install creates every object of config/ but the Deployment and its
// PodDisruptionBudget (the tests run the binary as processes of their own)
// and starts Endpoint, the stand-in for the webhook Service: a TCP
// forwarder on loopback to the webhook servers of the controller processes
// that are ready, as the Service sends to the ready pods of the
// Deployment. Each process runs with --webhook-url-host set to the
// Endpoint, so its self-managed certificates are issued for 127.0.0.1 and
// it writes that URL, with its CA, into the webhook configurations and the
// CRD's conversion (the shipped manifests name the Service); the processes
// share the Secret of the manifests' namespace, as the replicas of the
// Deployment do.
//
// ServiceAccount makes a service account bound to the shipped ClusterRole,
// to the shipped Role in the system's namespace (the certificates' Secret)
// and to a copy of the shipped Role in its own namespace (a leader-election
// Lease there), and writes a kubeconfig with a token of it; StartController
// runs the binary with it (StartProcessEnv: the admin kubeconfig is not in
// its environment) and returns once its webhooks are ready. Forbidden reads
// the requests of service accounts refused with 403 Forbidden from the
// audit log, which needs controlplane.AuditPolicyWritesAndServiceAccounts.
//
// ServeInProcess serves the same webhooks from the test's own process, for
// tests that run the controller in process (clustertest) or none at all
// (serverconformance: the conversion only).
package installtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller/config"
	"github.com/clonecore/cloneset/examples/kubecontroller/controlplane"
	"github.com/clonecore/cloneset/examples/kubecontroller/crd"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Namespace is the namespace of the shipped manifests (the Secret of the
// self-managed certificates, the Service).
const Namespace = "clonesetcontroller-system"

// ServiceAccountGroup is the group of the service accounts of namespace ns.
func ServiceAccountGroup(ns string) string { return "system:serviceaccounts:" + ns }

// ServiceAccountUser is the user name of service account name in ns.
func ServiceAccountUser(ns, name string) string {
	return "system:serviceaccount:" + ns + ":" + name
}

// System is the CloneSet system installed on a control plane.
type System struct {
	// ControlPlane is where it is installed.
	ControlPlane *controlplane.ControlPlane
	// Binary is the clonesetcontroller binary the processes run.
	Binary string
	// Client talks to the API server as the admin.
	Client client.Client
	// Endpoint is the webhook Service's stand-in.
	Endpoint *Endpoint
	// ClusterRole and Role are the shipped roles.
	ClusterRole *rbacv1.ClusterRole
	Role        *rbacv1.Role
	// Env ("NAME=value") is added to the environment of every controller
	// StartController starts from then on (e.g. GOGC=50 in a benchmark).
	Env []string
}

// Install creates the objects of config/ on cp (but the Deployment and its
// PodDisruptionBudget), waits until the CRD is Established, and starts the
// Endpoint. Close stops the Endpoint.
func Install(ctx context.Context, cp *controlplane.ControlPlane, binary string) (*System, error) {
	c, err := adminClient(cp)
	if err != nil {
		return nil, err
	}
	objs, err := config.Objects()
	if err != nil {
		return nil, err
	}
	s := &System{ControlPlane: cp, Binary: binary, Client: c}
	for _, o := range objs {
		switch o := o.(type) {
		case *appsv1.Deployment, *policyv1.PodDisruptionBudget:
			continue
		case *apiextensionsv1.CustomResourceDefinition:
			if err := crd.Install(ctx, c); err != nil {
				return nil, err
			}
			continue
		case *rbacv1.ClusterRole:
			s.ClusterRole = o.DeepCopy()
		case *rbacv1.Role:
			s.Role = o.DeepCopy()
		}
		if err := c.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("installtest: create %s %s: %w", o.GetObjectKind().GroupVersionKind().Kind, o.GetName(), err)
		}
	}
	if s.ClusterRole == nil || s.Role == nil {
		return nil, errors.New("installtest: config/ has no ClusterRole or no Role")
	}
	if s.Endpoint, err = NewEndpoint(); err != nil {
		return nil, err
	}
	return s, nil
}

// adminClient is a client of cp as the admin, with config.Scheme.
func adminClient(cp *controlplane.ControlPlane) (client.Client, error) {
	scheme, err := config.Scheme()
	if err != nil {
		return nil, err
	}
	return cp.Client(scheme)
}

// Close stops the Endpoint (the control plane is the caller's).
func (s *System) Close() error { return s.Endpoint.Close() }

// Identity is a service account of a test, with a kubeconfig holding a
// token of it.
type Identity struct {
	Namespace, Name string
	// User is its user name (system:serviceaccount:<namespace>:<name>).
	User string
	// Config is a client configuration with its token; Kubeconfig the
	// same as a file.
	Config     *rest.Config
	Kubeconfig string
}

// tokenLifetime is how long the tokens of ServiceAccount are valid.
const tokenLifetime = 24 * time.Hour

// ServiceAccount creates service account name in namespace (which must
// exist), binds it to the shipped ClusterRole and to the shipped Role in
// the system's namespace, and, in namespace, to a copy of the shipped Role
// (the Lease of a leader election there), and returns its identity, with
// a kubeconfig in the control plane's directory.
func (s *System) ServiceAccount(ctx context.Context, namespace, name string) (Identity, error) {
	id := Identity{Namespace: namespace, Name: name, User: ServiceAccountUser(namespace, name)}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	if err := s.create(ctx, sa); err != nil {
		return id, err
	}
	subject := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: name}}
	objs := []client.Object{
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "installtest-" + namespace + "-" + name},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: s.ClusterRole.Name},
			Subjects: subject},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: "installtest-" + namespace + "-" + name},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: s.Role.Name},
			Subjects: subject},
	}
	if namespace != Namespace {
		role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: s.Role.Name, Labels: s.Role.Labels}, Rules: s.Role.Rules}
		objs = append(objs, role, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "installtest-" + name},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: s.Role.Name},
			Subjects: subject})
	}
	for _, o := range objs {
		if err := s.create(ctx, o); err != nil {
			return id, err
		}
	}
	expiry := int64(tokenLifetime / time.Second)
	tr, err := s.ControlPlane.Clientset().CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	if err != nil {
		return id, fmt.Errorf("installtest: token of %s: %w", id.User, err)
	}
	admin := s.ControlPlane.Config()
	id.Config = &rest.Config{Host: admin.Host, TLSClientConfig: rest.TLSClientConfig{CAData: admin.CAData}, BearerToken: tr.Status.Token, QPS: -1}
	id.Kubeconfig = filepath.Join(s.ControlPlane.Dir(), fmt.Sprintf("sa-%s-%s.kubeconfig", namespace, name))
	return id, writeKubeconfig(id.Kubeconfig, id.Config, id.User)
}

// create creates o, an object already there being no error.
func (s *System) create(ctx context.Context, o client.Object) error {
	if err := s.Client.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("installtest: create %T %s/%s: %w", o, o.GetNamespace(), o.GetName(), err)
	}
	return nil
}

// writeKubeconfig writes cfg (host, CA, token) as a kubeconfig at path.
func writeKubeconfig(path string, cfg *rest.Config, user string) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["controlplane"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: cfg.BearerToken}
	kc.Contexts["controlplane"] = &clientcmdapi.Context{Cluster: "controlplane", AuthInfo: user}
	kc.CurrentContext = "controlplane"
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		return fmt.Errorf("installtest: kubeconfig %s: %w", path, err)
	}
	return nil
}

// Controller is a clonesetcontroller process of StartController.
type Controller struct {
	*controlplane.Process
	// WebhookAddress is its webhook server's host:port ("" with the
	// webhooks off); HealthAddress its probes'.
	WebhookAddress, HealthAddress string
	endpoint                      *Endpoint
}

// ReadyTimeout bounds StartController's wait for the webhooks.
const ReadyTimeout = time.Minute

// StartController runs the binary as id: its kubeconfig, its webhook
// server on a free loopback port, its certificates self-managed in the
// system's namespace and issued for the Endpoint, its probes on a free
// loopback port; args are added after (a flag given twice takes its last
// value). With the webhooks on it waits until /readyz answers 200 (the
// certificate served and published) and adds the webhook server to the
// Endpoint. Stop or Kill the process; Remove takes it out of the Endpoint
// (a dead one is skipped anyway).
func (s *System) StartController(name string, id Identity, args ...string) (*Controller, error) {
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	c := &Controller{HealthAddress: "127.0.0.1:" + ports[1], endpoint: s.Endpoint}
	webhooks := !slices.Contains(args, "--enable-webhooks=false")
	all := []string{"--kubeconfig", id.Kubeconfig, "--health-probe-bind-address", c.HealthAddress}
	if webhooks {
		c.WebhookAddress = "127.0.0.1:" + ports[0]
		all = append(all, "--webhook-namespace", Namespace, "--webhook-bind-host", "127.0.0.1", "--webhook-port", ports[0],
			"--webhook-url-host", s.Endpoint.Addr())
	}
	all = append(all, args...)
	if c.Process, err = s.ControlPlane.StartProcessEnv(name, s.Env, s.Binary, all...); err != nil {
		return nil, err
	}
	if !webhooks {
		return c, nil
	}
	if err := c.waitReady(ReadyTimeout); err != nil {
		c.Kill()
		return nil, fmt.Errorf("installtest: %s: %w\n%s", name, err, c.LogTail(30))
	}
	s.Endpoint.Add(c.WebhookAddress)
	return c, nil
}

// waitReady polls the process's /readyz until it answers 200.
func (c *Controller) waitReady(timeout time.Duration) error {
	hc := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(timeout)
	last := "no answer"
	for {
		if c.Exited() {
			return errors.New("exited before its webhooks were ready")
		}
		resp, err := hc.Get("http://" + c.HealthAddress + "/readyz?verbose")
		if err == nil {
			body := make([]byte, 4096)
			n, _ := resp.Body.Read(body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("%d: %s", resp.StatusCode, strings.TrimSpace(string(body[:n])))
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %s: /readyz %s", timeout, last)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Remove takes the process's webhook server out of the Endpoint.
func (c *Controller) Remove() {
	if c.WebhookAddress != "" {
		c.endpoint.Remove(c.WebhookAddress)
	}
}

// freePorts returns n loopback ports free at the time.
func freePorts(n int) ([]string, error) {
	var out []string
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		_, port, _ := net.SplitHostPort(l.Addr().String())
		out = append(out, port)
	}
	return out, nil
}

// Forbidden returns the requests of service accounts the API server
// refused with 403 Forbidden, received at or after since (the audit
// policy must record them: controlplane.AuditPolicyWritesAndServiceAccounts).
// A refusal of a request the same user later made and was allowed (same
// verb and object) is left out: the roles never change during a test, so
// that was an API server just started, whose RBAC cache did not hold the
// roles or their bindings yet (a test restarts it); a request the roles do
// not allow is never allowed.
func (s *System) Forbidden(since time.Time) ([]controlplane.AuditEvent, error) {
	events, err := s.ControlPlane.AuditEvents()
	if err != nil {
		return nil, err
	}
	allowedAfter := map[string]time.Time{} // the last time each request was allowed
	for _, ev := range events {
		if c := ev.Code(); c >= 200 && c < 300 {
			allowedAfter[requestKey(ev)] = ev.RequestReceivedTimestamp
		}
	}
	var out []controlplane.AuditEvent
	for _, ev := range events {
		if ev.Code() != http.StatusForbidden || !strings.HasPrefix(ev.User.Username, "system:serviceaccount:") || ev.RequestReceivedTimestamp.Before(since) {
			continue
		}
		if later, ok := allowedAfter[requestKey(ev)]; ok && later.After(ev.RequestReceivedTimestamp) {
			continue
		}
		out = append(out, ev)
	}
	return out, nil
}

// requestKey names a request by user, verb and object.
func requestKey(ev controlplane.AuditEvent) string {
	key := ev.User.Username + " " + ev.Verb
	if ref := ev.ObjectRef; ref != nil {
		key += " " + ref.APIGroup + "/" + ref.Resource + "/" + ref.Subresource + " " + ref.Namespace + "/" + ref.Name
	}
	return key
}

// Describe renders an audit event in one line: user, verb, resource,
// namespace/name, code.
func Describe(ev controlplane.AuditEvent) string {
	what := ev.RequestURI
	if ref := ev.ObjectRef; ref != nil {
		what = ref.Resource
		if ref.APIGroup != "" {
			what += "." + ref.APIGroup
		}
		if ref.Subresource != "" {
			what += "/" + ref.Subresource
		}
		what += " " + ref.Namespace + "/" + ref.Name
	}
	return fmt.Sprintf("%s %s %s %s %d", ev.RequestReceivedTimestamp.Format("15:04:05.000"), ev.User.Username, ev.Verb, what, ev.Code())
}
