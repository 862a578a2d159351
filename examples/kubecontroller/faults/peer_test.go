package faults

import (
	"context"
	"fmt"
	"github.com/clonecore/cloneset/examples/kubecontroller/config"
	"github.com/clonecore/cloneset/examples/kubecontroller/internal/kruisecrd"
	"github.com/clonecore/cloneset/examples/kubecontroller/internal/peerbuild"
	"path/filepath"
	"sync"
	"testing"

	"github.com/clonecore/cloneset/examples/kubecontroller/controlplane"
	"github.com/clonecore/cloneset/examples/kubecontroller/crd"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// The peer: OpenKruise v1.9.0's CloneSet controller alone, built from the
// peer module (../kruisepeer, cmd/kruise-cloneset-controller), which needs
// the checksum database left out for github.com/openkruise and go.mod
// resolved as the module asks.
const (
	peerCommand = "./cmd/kruise-cloneset-controller"
)

// kruiseCRDFiles are the CustomResourceDefinitions kruise's CloneSet
// controller needs, in config/crd/bases of its module (read by
// internal/kruisecrd, the version the peer module requires): the CloneSet's,
// and ImagePullJob's (without it the controller retries its discovery for
// about 15 s at start before it turns image pre-download off).
var kruiseCRDFiles = []string{"apps.kruise.io_clonesets.yaml", "apps.kruise.io_imagepulljobs.yaml"}

// peer is the kruise controller built for this run of the package (once,
// on first use) and kruise's definitions read from its module.
var peer struct {
	once   sync.Once
	binary string
	crds   []*apiextensionsv1.CustomResourceDefinition
	err    error
}

// kruisePeer builds the kruise controller and reads kruise's definitions,
// once per run of the package, into buildDir.
func kruisePeer(tb testing.TB) (binary string, crds []*apiextensionsv1.CustomResourceDefinition) {
	tb.Helper()
	peer.once.Do(func() {
		peer.binary = filepath.Join(buildDir, "kruise-cloneset-controller")
		if _, err := peerbuild.Go("build", "-o", peer.binary, peerCommand); err != nil {
			peer.err = fmt.Errorf("build kruise's controller: %w", err)
			return
		}
		for _, name := range kruiseCRDFiles {
			def, err := kruisecrd.Read(name)
			if err != nil {
				peer.err = err
				return
			}
			peer.crds = append(peer.crds, def)
		}
	})
	if peer.err != nil {
		tb.Fatal(peer.err)
	}
	return peer.binary, peer.crds
}

// installOwnCRD puts the project's CloneSet definition back.
func installOwnCRD(ctx context.Context, cp *controlplane.ControlPlane) error {
	scheme, err := config.Scheme()
	if err != nil {
		return err
	}
	c, err := cp.Client(scheme)
	if err != nil {
		return err
	}
	return crd.Install(ctx, c)
}
