package controlplane

import (
	"embed"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strconv"
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

// aliasesLine is the line of the kubelet stage's template that holds the
// image aliases (an empty table as shipped); kwokConfig fills it.
const aliasesLine = "{{- $aliases := dict }}"

// kwokConfig is the file kwok reads with --config: the built-in stages
// (the kubelet's with the image aliases) followed by extra, as YAML
// documents (Stage documents only: a KwokConfiguration document in the same
// file would replace kwok's defaults).
func kwokConfig(extra []string, aliases map[string]string) string {
	var b strings.Builder
	for _, doc := range append(Stages(), extra...) {
		if len(aliases) > 0 && strings.Contains(doc, aliasesLine) {
			doc = strings.Replace(doc, aliasesLine, aliasesTemplate(aliases), 1)
		}
		b.WriteString("---\n")
		b.WriteString(strings.TrimSpace(doc))
		b.WriteString("\n")
	}
	return b.String()
}

// aliasesTemplate is aliasesLine with the table filled in, in key order:
// Go template string literals (the keys and values were checked by
// validateAliases).
func aliasesTemplate(aliases map[string]string) string {
	keys := make([]string, 0, len(aliases))
	for k := range aliases {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString("{{- $aliases := dict")
	for _, k := range keys {
		b.WriteString(" " + strconv.Quote(k) + " " + strconv.Quote(aliases[k]))
	}
	b.WriteString(" }}")
	return b.String()
}

// validateAliases checks Options.ImageAliases: images as the runtime
// reports them (a tag or a digest), printable, without spaces.
func validateAliases(aliases map[string]string) error {
	for image, of := range aliases {
		for _, s := range []string{image, of} {
			if s == "" || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == '"' || r == '\\' || r > '~' }) {
				return fmt.Errorf("controlplane: Options.ImageAliases %q: %q: want an image reference (printable ASCII, no space or quote)", image, s)
			}
			if !runtimeImageForm.MatchString(s) {
				return fmt.Errorf("controlplane: Options.ImageAliases %q: %q: want the image as the runtime reports it, with a tag or a digest", image, s)
			}
		}
	}
	return nil
}

// runtimeImageForm matches an image with a tag or a digest, the form the
// kubelet stage reports (":latest" added to an untagged image).
var runtimeImageForm = regexp.MustCompile(`@|:[^/]*$`)
