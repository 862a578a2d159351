package faults

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller/controlplane"
	"github.com/clonecore/cloneset/examples/kubecontroller/installtest"
	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// controllerBinary is the controller built by TestMain, in buildDir (a
// directory of the run's, removed at its end, where the tests build what
// else they need: the kruise controller of the rollout comparison).
var controllerBinary, buildDir string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

// run builds the controller, runs the tests and stops the shared control
// plane (when a test started it).
func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "cloneset-faults-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	buildDir = dir
	controllerBinary = filepath.Join(dir, "clonesetcontroller")
	build := exec.Command("go", "build", "-o", controllerBinary, "../cmd/clonesetcontroller")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "faults: build the controller: %v\n%s", err, out)
		return 1
	}
	ctrllog.SetLogger(logr.Discard()) // the control plane's clients are controller-runtime's
	code := m.Run()
	if shared.cp != nil {
		if sys, ok := systems.Load(shared.cp); ok {
			sys.(*installtest.System).Close()
		}
		if err := shared.cp.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	return code
}

// shared is the control plane of the tests that need no API server flag
// of their own; each test has a namespace of its own in it.
var shared struct {
	once sync.Once
	cp   *controlplane.ControlPlane
	err  error
}

// systems holds the CloneSet system installed on each control plane of the
// tests (installtest.System by *controlplane.ControlPlane).
var systems sync.Map

// systemOf returns the system installed on cp.
func systemOf(tb testing.TB, cp *controlplane.ControlPlane) *installtest.System {
	tb.Helper()
	sys, ok := systems.Load(cp)
	if !ok {
		tb.Fatal("faults: no CloneSet system installed on the control plane")
	}
	return sys.(*installtest.System)
}

// sharedControlPlane starts the shared control plane on first use.
func sharedControlPlane(t testing.TB) *controlplane.ControlPlane {
	t.Helper()
	shared.once.Do(func() {
		start := time.Now()
		shared.cp, shared.err = controlplane.Start(context.Background(), controlPlaneOptions(nil))
		if shared.err == nil {
			_, shared.err = prepare(context.Background(), shared.cp)
		}
		t.Logf("shared control plane started in %s", time.Since(start).Round(time.Millisecond))
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(shared.cp.LogTails(30))
		}
	})
	return shared.cp
}

// ownControlPlane starts a control plane for t alone, with opts (see
// controlPlaneOptions), and prepares it as the shared one.
func ownControlPlane(t testing.TB, opts controlplane.Options) *controlplane.ControlPlane {
	t.Helper()
	cp := controlplane.StartForTest(t, opts)
	sys, err := prepare(t.Context(), cp)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sys.Close() })
	return cp
}

// The nodes of every control plane of these tests.
const (
	testNodes = 6
	testZones = 3
)

// controlPlaneOptions are the options of every control plane of these
// tests: the nodes, the audit log of the writes and of every request of a
// service account (the controller processes run as service accounts), and
// OwnerReferencesPermissionEnforcement, which holds the controller to the
// finalizers permission its owner references need; apiServerFlags are
// added.
func controlPlaneOptions(apiServerFlags []string) controlplane.Options {
	flags := append([]string{"--enable-admission-plugins=OwnerReferencesPermissionEnforcement"}, apiServerFlags...)
	return controlplane.Options{Nodes: testNodes, Zones: testZones, AuditPolicy: controlplane.AuditPolicyWritesAndServiceAccounts, APIServerFlags: flags}
}
