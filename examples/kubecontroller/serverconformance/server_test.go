package serverconformance

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller"
	"github.com/clonecore/cloneset/examples/kubecontroller/controlplane"
	"github.com/clonecore/cloneset/examples/kubecontroller/crd"
	"github.com/clonecore/cloneset/examples/kubecontroller/installtest"
	"github.com/clonecore/cloneset/examples/kubecontroller/internal/kruisecrd"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// server is the kube-apiserver the tests of this package share, and the
// CLI they plan with.
type server struct {
	client   client.Client
	writer   *kubecontroller.RESTWriter // the controller's writes (the conformance worlds'); the goldens' go through client
	version  string
	cli      string
	planArgs []string
}

var (
	shared     *server
	sharedErr  error
	sharedOnce sync.Once
	sharedCP   *controlplane.ControlPlane
	sharedConv *installtest.InProcess
	sharedDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if sharedConv != nil {
		sharedConv.Close()
	}
	if sharedCP != nil {
		if err := sharedCP.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the control plane:", err)
			code = 1
		}
	}
	if sharedDir != "" {
		os.RemoveAll(sharedDir)
	}
	os.Exit(code)
}

// testServer starts the package's server on first use: etcd and
// kube-apiserver alone (no scheduler, controller manager or kubelet may
// touch the worlds' objects between the requests and the read-back).
func testServer(t *testing.T) *server {
	t.Helper()
	sharedOnce.Do(func() { shared, sharedErr = startServer() })
	if sharedErr != nil {
		if sharedCP != nil {
			t.Log(sharedCP.LogTails(40))
		}
		t.Fatal(sharedErr)
	}
	return shared
}

func startServer() (*server, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir, err := os.MkdirTemp("", "serverconformance-")
	if err != nil {
		return nil, err
	}
	sharedDir = dir
	cp, err := controlplane.Start(ctx, controlplane.Options{
		WithoutScheduler: true, WithoutControllerManager: true, WithoutKwok: true,
		LogDir: filepath.Join(dir, "logs"),
	})
	if err != nil {
		return nil, fmt.Errorf("starting kube-apiserver: %w\n%s", err, tails(filepath.Join(dir, "logs")))
	}
	sharedCP = cp
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	c, err := cp.Client(scheme)
	if err != nil {
		return nil, err
	}
	// The CRD converts through a webhook: its conversion is served here
	// (the mutating and validating webhooks are not installed: the worlds
	// are stored as the records hold them).
	if sharedConv, err = installtest.ServeInProcess(ctx, cp, installtest.ConversionOnly, "default"); err != nil {
		return nil, err
	}
	// OpenKruise's ImagePullJob definition (read from its module): the
	// worlds of the image pre-download hold ImagePullJobs, and their
	// requests create and delete them.
	jobs, err := kruisecrd.ImagePullJob()
	if err != nil {
		return nil, err
	}
	if err := crd.InstallDefinition(ctx, c, jobs); err != nil {
		return nil, err
	}
	cli := filepath.Join(dir, "clonesetplan")
	build := exec.CommandContext(ctx, "go", "build", "-o", cli, "github.com/clonecore/cloneset/cmd/clonesetplan")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building the CLI: %v\n%s", err, out)
	}
	writer, err := kubecontroller.NewRESTWriter(cp.Config(), nil)
	if err != nil {
		return nil, err
	}
	v := cp.Version()
	return &server{client: c, writer: writer, version: v.GitVersion, cli: cli, planArgs: []string{"--server-version", v.GitVersion}}, nil
}

// tails returns the ends of the component logs in dir, for an error.
func tails(dir string) string {
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	var out string
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if len(b) > 2000 {
			b = b[len(b)-2000:]
		}
		out += fmt.Sprintf("--- %s\n%s\n", filepath.Base(f), b)
	}
	return out
}
