// Package config holds the manifests a user applies to run
// clonesetcontroller in a cluster, kubebuilder-style, as plain YAML in
// manifests/ (applied in the order of their names):
//
//		kubectl apply -f config/manifests/     # or: kubectl apply -k config/
//
//	  - 00-namespace.yaml: the namespace clonesetcontroller-system;
//	  - 01-crd-clonesets.yaml: the CloneSet CustomResourceDefinition (v1beta1
//	    stored, v1alpha1 served, conversion by webhook);
//	  - 02-rbac.yaml: the service account, the ClusterRole with exactly what
//	    the binary does, the Role of its namespace (leader election, the
//	    certificates' Secret), their bindings;
//	  - 03-webhooks.yaml: the webhook Service and the mutating and validating
//	    webhook configurations;
//	  - 04-deployment.yaml: the Deployment (two replicas, leader election,
//	    probes) and its PodDisruptionBudget.
//
// Programs and tests read them with Files and Objects.
package config

import (
	"bufio"
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

//go:embed manifests/*.yaml kustomization.yaml
var files embed.FS

// CRD is manifests/01-crd-clonesets.yaml: the CloneSet
// CustomResourceDefinition.
//
//go:embed manifests/01-crd-clonesets.yaml
var CRD []byte

// Kustomization is kustomization.yaml.
//
//go:embed kustomization.yaml
var Kustomization []byte

// File is one manifest: its path under config/ and its content.
type File struct {
	Path string
	Data []byte
}

// Files returns the manifests of manifests/, in the order kubectl applies
// them (by name).
func Files() []File {
	entries, err := fs.ReadDir(files, "manifests")
	if err != nil {
		panic(err) // embedded at build time: cannot fail
	}
	var out []File
	for _, e := range entries {
		p := path.Join("manifests", e.Name())
		data, err := files.ReadFile(p)
		if err != nil {
			panic(err)
		}
		out = append(out, File{Path: p, Data: data})
	}
	return out // fs.ReadDir sorts by name
}

// Scheme returns a scheme knowing every kind of the manifests.
func Scheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	return scheme, nil
}

// Objects decodes every document of the manifests, in order, strictly (a
// field its type does not have, or a field written twice, is an error
// naming the file and the document) into typed objects of Scheme.
func Objects() ([]client.Object, error) {
	scheme, err := Scheme()
	if err != nil {
		return nil, err
	}
	decoder := serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer()
	var out []client.Object
	for _, f := range Files() {
		docs, err := documents(f.Data)
		if err != nil {
			return nil, fmt.Errorf("config: %s: %w", f.Path, err)
		}
		for i, doc := range docs {
			obj, _, err := decoder.Decode(doc, nil, nil)
			if err != nil {
				return nil, fmt.Errorf("config: %s, document %d: %w", f.Path, i+1, err)
			}
			co, ok := obj.(client.Object)
			if !ok {
				return nil, fmt.Errorf("config: %s, document %d: a %T is not an object", f.Path, i+1, obj)
			}
			out = append(out, co)
		}
	}
	return out, nil
}

// documents splits a YAML stream into its non-empty documents.
func documents(data []byte) ([][]byte, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out [][]byte
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(stripComments(doc))) > 0 {
			out = append(out, doc)
		}
	}
}

// stripComments drops the comment lines of a document (a document of
// comments only is empty).
func stripComments(doc []byte) []byte {
	var b bytes.Buffer
	for line := range bytes.SplitSeq(doc, []byte("\n")) {
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' {
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}
