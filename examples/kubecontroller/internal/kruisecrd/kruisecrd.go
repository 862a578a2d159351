// Package kruisecrd reads OpenKruise's CustomResourceDefinitions from its Go
// module, for tests that need a kind of OpenKruise's besides the CloneSet
// (the ImagePullJob of the image pre-download). Nothing of OpenKruise's is
// copied into this repository: the definitions are read at test time from
// the module cache, where `go mod download` puts github.com/openkruise/kruise
// at Version (downloading it when it is missing, which needs the module
// proxy; the checksum database does not know the module, hence
// GONOSUMDB=github.com/openkruise).
package kruisecrd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	"github.com/clonecore/cloneset/examples/kubecontroller/config"
	"github.com/clonecore/cloneset/examples/kubecontroller/controlplane"
	"github.com/clonecore/cloneset/examples/kubecontroller/crd"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

// Module and Version are the OpenKruise module the definitions come from:
// the version whose CloneSet controller the project reproduces.
const (
	Module  = "github.com/openkruise/kruise"
	Version = "v1.9.0"
)

// EnvDir, when set, is the directory of OpenKruise's module (a checkout or
// the module cache's copy): the definitions are read there, without the go
// command.
const EnvDir = "CLONESET_KRUISE_DIR"

// ImagePullJobFile is the ImagePullJob definition's file under
// config/crd/bases (v1alpha1 and v1beta1 served, v1beta1 stored).
const ImagePullJobFile = "apps.kruise.io_imagepulljobs.yaml"

var dir struct {
	once sync.Once
	path string
	err  error
}

// Dir returns the directory of OpenKruise's module at Version: EnvDir, else
// what `go mod download -json` reports (run outside any module, with
// GONOSUMDB=github.com/openkruise and GOFLAGS=-mod=mod), once per process.
func Dir() (string, error) {
	dir.once.Do(func() {
		if d := os.Getenv(EnvDir); d != "" {
			dir.path = d
			return
		}
		cmd := exec.Command("go", "mod", "download", "-json", Module+"@"+Version)
		cmd.Dir = os.TempDir()
		cmd.Env = append(os.Environ(), "GONOSUMDB=github.com/openkruise", "GOFLAGS=-mod=mod", "GOWORK=off")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			dir.err = fmt.Errorf("kruisecrd: go mod download %s@%s: %v\n%s(set %s to a copy of the module instead)", Module, Version, err, stderr.String(), EnvDir)
			return
		}
		var info struct{ Dir, Error string }
		if err := json.Unmarshal(stdout.Bytes(), &info); err != nil || info.Dir == "" {
			dir.err = fmt.Errorf("kruisecrd: go mod download %s@%s: no directory in %q (%v %s)", Module, Version, stdout.String(), err, info.Error)
			return
		}
		dir.path = info.Dir
	})
	return dir.path, dir.err
}

// Read reads the definition of file (a name under config/crd/bases of
// OpenKruise's module), strictly.
func Read(file string) (*apiextensionsv1.CustomResourceDefinition, error) {
	d, err := Dir()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(d, "config", "crd", "bases", file)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("kruisecrd: %w", err)
	}
	scheme := runtime.NewScheme()
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	obj, _, err := serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer().Decode(data, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("kruisecrd: %s: %w", path, err)
	}
	def, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
	if !ok {
		return nil, fmt.Errorf("kruisecrd: %s holds a %T, not a CustomResourceDefinition", path, obj)
	}
	return def, nil
}

// ImagePullJob reads OpenKruise's ImagePullJob definition.
func ImagePullJob() (*apiextensionsv1.CustomResourceDefinition, error) { return Read(ImagePullJobFile) }

// InstallImagePullJob installs OpenKruise's ImagePullJob definition on cp
// (created, or its spec replaced) and waits until it is served.
func InstallImagePullJob(ctx context.Context, cp *controlplane.ControlPlane) error {
	def, err := ImagePullJob()
	if err != nil {
		return err
	}
	return Install(ctx, cp, def)
}

// Install installs each definition on cp in turn (created, or its spec
// replaced: OpenKruise's CloneSet definition in place of the project's) and
// waits until each is served.
func Install(ctx context.Context, cp *controlplane.ControlPlane, defs ...*apiextensionsv1.CustomResourceDefinition) error {
	scheme, err := config.Scheme()
	if err != nil {
		return err
	}
	c, err := cp.Client(scheme)
	if err != nil {
		return err
	}
	for _, def := range defs {
		if err := crd.InstallDefinition(ctx, c, def); err != nil {
			return err
		}
	}
	return nil
}
