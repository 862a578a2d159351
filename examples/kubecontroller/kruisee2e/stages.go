package kruisee2e

// Stages returns the kwok Stage documents the suite's control plane runs
// with besides the built-in ones (controlplane.Stages).
func Stages() []string {
	return nil
}

// ImageAliases are the tags of the suite's images that name one image in
// their registry: the suite's "in-place update images with the same
// imageID" specs update nginx:alpine to nginx:mainline-alpine, two tags of
// one image (mainline is nginx's default line), and expect the container
// to restart with the same imageID.
var ImageAliases = map[string]string{
	"docker.io/library/nginx:mainline-alpine": "docker.io/library/nginx:alpine",
}

// FeatureGates is the controller's --feature-gates in the suite: kruise's
// e2e installs kruise-manager with every alpha and beta gate on
// (config/manager/manager.yaml of kruise v1.9.0:
// --feature-gates=AllAlpha=true,AllBeta=true,...), so every gate of the
// library is on.
const FeatureGates = "CloneSetPartitionRollback=true,CloneSetShortHash=true,InPlaceUpdateEnvFromMetadata=true," +
	"InPlaceWorkloadVerticalScaling=true,PreDownloadImageForInPlaceUpdate=true,PreparingUpdateAsUpdate=true,RecreatePodWhenChangeVCTInCloneSetGate=true"

// KruiseFeatureGates is kruise's own controller's --feature-gates in the
// suite (EnvPeer): the gates of kruise's e2e that matter to its CloneSet
// controller without a node agent or webhooks.
const KruiseFeatureGates = "CloneSetPartitionRollback=true,CloneSetShortHash=true,PreparingUpdateAsUpdate=true," +
	"RecreatePodWhenChangeVCTInCloneSetGate=true,InPlaceWorkloadVerticalScaling=true,PreDownloadImageForInPlaceUpdate=true"
