package serverconformance

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// server is the kube-apiserver the tests of this package share, and the
// CLI they plan with.
type server struct {
	cfg      *rest.Config
	client   client.Client
	version  string
	cli      string
	planArgs []string
}

var (
	shared     *server
	sharedErr  error
	sharedOnce sync.Once
	stop       func()
)

func TestMain(m *testing.M) {
	code := m.Run()
	if stop != nil {
		stop()
	}
	os.Exit(code)
}

// testServer starts the package's server on first use.
func testServer(t *testing.T) *server {
	t.Helper()
	sharedOnce.Do(func() { shared, sharedErr = startServer() })
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return shared
}

func startServer() (*server, error) {
	env := &envtest.Environment{BinaryAssetsDirectory: os.Getenv("DEV_BIN"), CRDDirectoryPaths: []string{"testdata/crd.yaml"}}
	cfg, err := env.Start()
	if err != nil {
		return nil, err
	}
	stop = func() { _ = env.Stop() }
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = apiextensionsv1.AddToScheme(scheme)
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	v, err := dc.ServerVersion()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "serverconformance-")
	if err != nil {
		return nil, err
	}
	cli := filepath.Join(dir, "clonesetplan")
	build := exec.Command("go", "build", "-o", cli, "github.com/clonecore/cloneset/cmd/clonesetplan")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building the CLI: %v\n%s", err, out)
	}
	_ = corev1.SchemeGroupVersion
	_ = context.Background
	return &server{cfg: cfg, client: c, version: v.GitVersion, cli: cli}, nil
}
