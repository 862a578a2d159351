// Package e2ekit holds what the end-to-end tests on the fake client
// (package kubecontroller's TestEndToEnd) and on the real control plane
// (package clustertest) share: the CloneSets they roll out and the rule the
// hook owners they play follow. It imports nothing of package
// kubecontroller, whose own tests import it.
package e2ekit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clonecore/cloneset/model"
	corev1 "k8s.io/api/core/v1"
)

// Update strategies for CloneSet.
const (
	// InPlace updates in place when it can, one pod unavailable at a time.
	InPlace = `{"type": "RollingUpdate", "rollingUpdate": {"podUpdatePolicy": "InPlaceIfPossible", "maxUnavailable": 1}}`
	// RecreateSurge recreates pods, one unavailable and one surge pod at a
	// time.
	RecreateSurge = `{"type": "RollingUpdate", "rollingUpdate": {"podUpdatePolicy": "ReCreate", "maxUnavailable": 1, "maxSurge": 1}}`
)

// HookFinalizer is the finalizer of the preDelete hook of CloneSet's
// CloneSets.
const HookFinalizer = "example.com/hook"

// CloneSet is the JSON of a CloneSet named in metadata (a JSON object)
// (apps.kruise.io/v1beta1) with selector and template label app=web, one
// container "main" of image web:1, the given replicas and update strategy
// (JSON), and extra (JSON members, each starting with a comma) added to its
// spec. With a preDelete hook in extra, the template carries HookFinalizer
// (as a pod must, to be held by the hook).
func CloneSet(metadata string, replicas int, strategy, extra string) string {
	finalizers := ""
	if strings.Contains(extra, "preDelete") {
		finalizers = fmt.Sprintf(`, "finalizers": [%q]`, HookFinalizer)
	}
	return fmt.Sprintf(`{
  "apiVersion": "apps.kruise.io/v1beta1", "kind": "CloneSet",
  "metadata": %s,
  "spec": {
    "replicas": %d,
    "selector": {"matchLabels": {"app": "web"}},
    "template": {"metadata": {"labels": {"app": "web"}%s},
      "spec": {"containers": [{"name": "main", "image": "web:1"}]}},
    "updateStrategy": %s%s
  }
}`, metadata, replicas, finalizers, strategy, extra)
}

// HookOwners is what the owners of the hooks do to a pod: a terminating
// pod's finalizers all go; a PreparingDelete pod's preDelete hook
// finalizers (hookFinalizers) go. It returns the finalizers to keep and
// whether the pod waits for a hook owner.
func HookOwners(p *corev1.Pod, hookFinalizers []string) (keep []string, hooked bool) {
	switch {
	case p.DeletionTimestamp != nil && len(p.Finalizers) > 0:
		return nil, true
	case p.Labels[model.LabelLifecycleState] == model.StatePreparingDelete:
		for _, f := range p.Finalizers {
			if slices.Contains(hookFinalizers, f) {
				hooked = true
			} else {
				keep = append(keep, f)
			}
		}
	}
	return keep, hooked
}
