package controlplane

import (
	"embed"
	"io/fs"
	"slices"
	"strings"
)

// LabelNeverReady is the pod label that keeps a pod from ever becoming
// Ready: with the value "true" the kwok stages run its containers (phase
// Running, containers started) but report them not ready, as a container
// whose readiness probe never passes. Removing the label (or setting
// another value) makes the pod ready at the next stage evaluation.
const LabelNeverReady = "controlplane.cloneset.dev/never-ready"

// LabelCustomKubelet is the pod label that, with the value "true", makes
// the built-in kubelet stage leave a pod alone, for a stage of the test's
// own (Options.Stages) to play its kubelet. The built-in delete stage still
// removes the pod once it is deleted and has no finalizers.
const LabelCustomKubelet = "controlplane.cloneset.dev/custom-kubelet"

// NodeAnnotation is the annotation, with value "fake", that makes kwok
// manage a node (kwok runs with
// --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake).
const NodeAnnotation = "kwok.x-k8s.io/node"

//go:embed stages/*.yaml
var stageFiles embed.FS

// Stages returns the kwok Stage documents the control plane runs kwok with,
// in file name order, each a YAML document of its own: the node stages
// (initialize, heartbeat) and the pod stages (kubelet, delete). See the
// package documentation for what they emulate.
func Stages() []string {
	names, err := fs.Glob(stageFiles, "stages/*.yaml")
	if err != nil {
		panic(err) // the pattern is constant and valid
	}
	slices.Sort(names)
	docs := make([]string, 0, len(names))
	for _, name := range names {
		data, err := stageFiles.ReadFile(name)
		if err != nil {
			panic(err) // embedded files are always readable
		}
		docs = append(docs, string(data))
	}
	return docs
}

// kwokConfig is the file kwok reads with --config: the built-in stages
// followed by extra, as YAML documents (Stage documents only: a
// KwokConfiguration document in the same file would replace kwok's
// defaults).
func kwokConfig(extra []string) string {
	var b strings.Builder
	for _, doc := range append(Stages(), extra...) {
		b.WriteString("---\n")
		b.WriteString(strings.TrimSpace(doc))
		b.WriteString("\n")
	}
	return b.String()
}
