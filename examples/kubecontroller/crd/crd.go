// Package crd installs the CloneSet CustomResourceDefinition of the
// cloneset project (config/manifests/01-crd-clonesets.yaml, this project's
// own manifest, one of the manifests of package config).
//
// The manifest declares apps.kruise.io CloneSet in v1beta1 (served, stored)
// and v1alpha1 (served), each with its own structural schema keeping every
// field the library reads or writes and OpenKruise's webhooks default or
// convert, the status and scale subresources, and the conversion webhook of
// clonesetcontroller. The comments at its top explain its decisions. Users
// apply it with the rest of config/:
//
//	kubectl apply -f config/manifests/
//
// Programs and tests call Install (which installs the definition alone:
// objects written in v1alpha1 then need the conversion webhook served).
package crd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller/config"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Manifest is the CloneSet CustomResourceDefinition as YAML
// (config.CRD).
var Manifest = config.CRD

// manifestPath is where Manifest is, for messages.
const manifestPath = "config/manifests/01-crd-clonesets.yaml"

// Name is the CustomResourceDefinition's name.
const Name = "clonesets.apps.kruise.io"

// DefaultEstablishTimeout is how long Install waits for the definition to
// be Established when its context has no deadline.
const DefaultEstablishTimeout = time.Minute

// establishPoll is how often Install reads the definition while it waits.
const establishPoll = 100 * time.Millisecond

// CustomResourceDefinition decodes Manifest into a new typed object. The
// decoding is strict: a field the type does not have, or a field written
// twice, is an error.
func CustomResourceDefinition() (*apiextensionsv1.CustomResourceDefinition, error) {
	return decode(Manifest)
}

// decode strictly decodes a CustomResourceDefinition manifest.
func decode(manifest []byte) (*apiextensionsv1.CustomResourceDefinition, error) {
	scheme := runtime.NewScheme()
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	decoder := serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer()
	obj, _, err := decoder.Decode(manifest, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("crd: %s: %w", manifestPath, err)
	}
	out, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
	if !ok {
		return nil, fmt.Errorf("crd: %s holds a %T, not a CustomResourceDefinition", manifestPath, obj)
	}
	return out, nil
}

// Install creates the CloneSet CustomResourceDefinition, or updates the one
// the cluster has to the manifest, and waits until the API server reports
// it Established (it then serves CloneSets). It waits until ctx's deadline,
// or DefaultEstablishTimeout when ctx has none. The client's scheme must
// know apiextensions.k8s.io/v1 (apiextensionsv1.AddToScheme).
func Install(ctx context.Context, c client.Client) error {
	want, err := CustomResourceDefinition()
	if err != nil {
		return err
	}
	return InstallDefinition(ctx, c, want)
}

// InstallDefinition is Install for any CustomResourceDefinition: it creates
// def, or replaces the spec of the definition of its name (and sets its
// labels and annotations), and waits until it is Established. Tests use it
// to install another project's CloneSet definition in place of this one
// (OpenKruise's, for its controller). def is not modified.
func InstallDefinition(ctx context.Context, c client.Client, def *apiextensionsv1.CustomResourceDefinition) error {
	if gvk := apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"); !c.Scheme().Recognizes(gvk) {
		return fmt.Errorf("crd: install %s: the client's scheme does not know %s (add apiextensionsv1.AddToScheme)", def.Name, gvk)
	}
	if err := createOrUpdate(ctx, c, def); err != nil {
		return fmt.Errorf("crd: install %s: %w", def.Name, err)
	}
	return waitEstablished(ctx, c, def.Name)
}

// createOrUpdate creates want, or replaces the spec, labels and
// annotations of the definition of that name, retrying on conflicts.
func createOrUpdate(ctx context.Context, c client.Client, want *apiextensionsv1.CustomResourceDefinition) error {
	err := c.Create(ctx, want.DeepCopy())
	if err == nil || !apierrors.IsAlreadyExists(err) {
		return err
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		have := &apiextensionsv1.CustomResourceDefinition{}
		if err := c.Get(ctx, client.ObjectKey{Name: want.Name}, have); err != nil {
			return err
		}
		have.Spec = *want.Spec.DeepCopy()
		have.Labels = mergeStrings(have.Labels, want.Labels)
		have.Annotations = mergeStrings(have.Annotations, want.Annotations)
		return c.Update(ctx, have)
	})
}

// mergeStrings returns have with the entries of want set.
func mergeStrings(have, want map[string]string) map[string]string {
	if len(want) == 0 {
		return have
	}
	if have == nil {
		have = map[string]string{}
	}
	for k, v := range want {
		have[k] = v
	}
	return have
}

// waitEstablished polls the definition named name until its Established condition is
// True. A NamesAccepted condition that is False (another definition holds
// the names) ends the wait at once.
func waitEstablished(ctx context.Context, c client.Client, name string) error {
	timeout := DefaultEstablishTimeout
	if deadline, ok := ctx.Deadline(); ok {
		timeout = time.Until(deadline)
	}
	var last *apiextensionsv1.CustomResourceDefinition
	var refused error
	err := wait.PollUntilContextTimeout(ctx, establishPoll, timeout, true, func(ctx context.Context) (bool, error) {
		have := &apiextensionsv1.CustomResourceDefinition{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, have); err != nil {
			if apierrors.IsNotFound(err) {
				return false, nil // the cache may not show the create yet
			}
			return false, err
		}
		last = have
		for _, cond := range have.Status.Conditions {
			switch {
			case cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue:
				return true, nil
			case cond.Type == apiextensionsv1.NamesAccepted && cond.Status == apiextensionsv1.ConditionFalse:
				refused = fmt.Errorf("crd: %s: names not accepted: %s: %s", name, cond.Reason, cond.Message)
				return false, refused
			}
		}
		return false, nil
	})
	switch {
	case err == nil:
		return nil
	case refused != nil:
		return refused
	case errors.Is(ctx.Err(), context.Canceled):
		return fmt.Errorf("crd: wait for %s: %w", name, ctx.Err())
	case errors.Is(err, context.DeadlineExceeded) || wait.Interrupted(err):
		return fmt.Errorf("crd: %s not Established after %s (conditions: %s)", name, timeout.Round(time.Millisecond), conditions(last))
	default:
		return fmt.Errorf("crd: wait for %s: %w", name, err)
	}
}

// conditions renders a definition's conditions for an error message.
func conditions(crd *apiextensionsv1.CustomResourceDefinition) string {
	if crd == nil {
		return "the definition was never read"
	}
	if len(crd.Status.Conditions) == 0 {
		return "none"
	}
	parts := make([]string, len(crd.Status.Conditions))
	for i, c := range crd.Status.Conditions {
		parts[i] = fmt.Sprintf("%s=%s", c.Type, c.Status)
		if c.Reason != "" {
			parts[i] += " (" + c.Reason + ")"
		}
	}
	return strings.Join(parts, ", ")
}
