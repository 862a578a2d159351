package clustertest

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/clonecore/cloneset/examples/kubecontroller/config"
	"github.com/clonecore/cloneset/examples/kubecontroller/controlplane"
	"github.com/clonecore/cloneset/examples/kubecontroller/installtest"
	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// Cluster is a running control plane prepared for CloneSet scenarios: kwok
// nodes in three zones, the CloneSet system of config/ installed with the
// binary's webhooks served from the test process (the CloneSet defaults and
// verdicts, the pod webhook's KruisePodReady gate, the conversion), and the
// API server's version read from discovery as the controller reads it.
// Its methods are safe for concurrent use; each Run has a namespace of its
// own.
type Cluster struct {
	// ControlPlane is the control plane (faults, audit log, logs).
	ControlPlane *controlplane.ControlPlane
	// Client talks to the API server directly (no cache), as user admin.
	Client client.Client
	// Scheme knows the core, apps and apiextensions types.
	Scheme *runtime.Scheme
	// ServerVersion is the API server's version from discovery
	// (/version's gitVersion, "v1.37.2"): the Reconciler builds its
	// requests for it.
	ServerVersion string
	// webhooks serves the binary's webhooks from the test process.
	webhooks *installtest.InProcess
}

// DefaultOptions are the control plane options of Start when none are
// given: three nodes, one per zone, and the audit log of every write of
// pods, claims, revisions and CloneSets (AuditPolicyWrites).
func DefaultOptions() controlplane.Options {
	return controlplane.Options{Nodes: 3, Zones: 3, AuditPolicy: controlplane.AuditPolicyWrites}
}

// NewScheme returns the scheme of the Cluster's clients: client-go's types
// (core, apps, ...) and apiextensions (the CRD): config.Scheme.
func NewScheme() (*runtime.Scheme, error) { return config.Scheme() }

// Start starts a control plane with opts (building missing binaries first,
// see controlplane.Binaries), installs the CloneSet CRD and reads the
// server's version. On error nothing is left running.
func Start(ctx context.Context, opts controlplane.Options) (_ *Cluster, err error) {
	cp, err := controlplane.Start(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = cp.Stop()
		}
	}()
	scheme, err := NewScheme()
	if err != nil {
		return nil, err
	}
	c, err := cp.Client(scheme)
	if err != nil {
		return nil, err
	}
	hooks, err := installtest.ServeInProcess(ctx, cp, installtest.AllWebhooks, "default")
	if err != nil {
		return nil, fmt.Errorf("clustertest: install the CloneSet system and its webhooks: %w", err)
	}
	info, err := cp.Clientset().Discovery().ServerVersion()
	if err != nil {
		hooks.Close()
		return nil, fmt.Errorf("clustertest: read the API server's version: %w", err)
	}
	return &Cluster{ControlPlane: cp, Client: c, Scheme: scheme, ServerVersion: info.GitVersion, webhooks: hooks}, nil
}

// Stop stops the webhooks and the control plane and removes its files.
func (c *Cluster) Stop() error {
	c.webhooks.Close()
	return c.ControlPlane.Stop()
}

// shared is the package's Cluster of Shared and Main.
var shared struct {
	mu      sync.Mutex
	opts    *controlplane.Options
	cluster *Cluster
	err     error
}

// Main runs a test package's tests (m.Run) with one Cluster shared by all
// of them: Shared starts it (with opts) the first time a test asks, and Main
// stops it after the tests, whatever they did. A package's TestMain calls
// os.Exit(clustertest.Main(m, clustertest.DefaultOptions())).
//
// Main also gives controller-runtime a logger that discards (the Runs'
// managers log through the Reconciler's Logf, kept for failure dumps).
func Main(m *testing.M, opts controlplane.Options) int {
	ctrllog.SetLogger(logr.Discard())
	shared.mu.Lock()
	shared.opts = &opts
	shared.mu.Unlock()
	code := m.Run()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.cluster != nil {
		if err := shared.cluster.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "clustertest: stop the shared control plane:", err)
			code = 1
		}
		shared.cluster = nil
	}
	return code
}

// Shared returns the package's shared Cluster, starting it on first use
// (the package's TestMain must call Main). A failed start fails every test
// that asks, with the same error.
func Shared(t testing.TB) *Cluster {
	t.Helper()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.opts == nil {
		t.Fatal("clustertest.Shared: the package's TestMain does not call clustertest.Main")
	}
	if shared.cluster == nil && shared.err == nil {
		opts := *shared.opts
		// The shared control plane outlives the test that starts it: not
		// t's context, and logs in a directory of the control plane's own.
		shared.cluster, shared.err = Start(context.Background(), opts)
	}
	if shared.err != nil {
		t.Fatalf("clustertest: start the shared control plane: %v", shared.err)
	}
	return shared.cluster
}
