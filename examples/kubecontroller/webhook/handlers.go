package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// Group is the CloneSet's API group.
const Group = "apps.kruise.io"

// Review is what a CloneSet webhook is asked: the operation, the version
// of the requested resource (v1alpha1 or v1beta1), the object's namespace
// and name, and the objects as JSON (Object on a create or an update,
// OldObject on an update or a delete).
type Review struct {
	Operation         admissionv1.Operation
	Version           string
	Namespace, Name   string
	Object, OldObject []byte
}

// Rules are the CloneSet admission and conversion decisions the webhooks
// serve, on objects as JSON.
type Rules interface {
	// Default returns the object of a create or an update as the
	// mutating webhook leaves it, and whether it changed (upstream answers
	// without a patch when it did not). An error is a 400 Bad Request.
	Default(ctx context.Context, r Review) (obj []byte, changed bool, err error)
	// Validate returns the refusals of a create, an update or a delete;
	// none when it is accepted. An error is a 400 Bad Request.
	Validate(ctx context.Context, r Review) (field.ErrorList, error)
	// Convert returns obj in apiVersion (apps.kruise.io/v1alpha1 or
	// v1beta1); obj is of the other version.
	Convert(obj []byte, apiVersion string) ([]byte, error)
}

// reviewOf is the Review of an admission request.
func reviewOf(req admission.Request) Review {
	return Review{Operation: req.Operation, Version: req.Resource.Version, Namespace: req.Namespace, Name: req.Name, Object: req.Object.Raw, OldObject: req.OldObject.Raw}
}

// Handlers serve the webhooks with Rules.
type Handlers struct {
	Rules Rules
	// Log receives a line per refusal and per error.
	Log logr.Logger
}

// Paths are the handlers by the path the server serves them at.
func (h *Handlers) Paths() map[string]http.Handler {
	return map[string]http.Handler{
		PathMutateCloneSet:   &admission.Webhook{Handler: admission.HandlerFunc(h.MutateCloneSet)},
		PathValidateCloneSet: &admission.Webhook{Handler: admission.HandlerFunc(h.ValidateCloneSet)},
		PathMutatePod:        &admission.Webhook{Handler: admission.HandlerFunc(MutatePod)},
		PathConvert:          http.HandlerFunc(h.ServeConvert),
	}
}

// isCloneSet reports whether the request is about a CloneSet (the
// configurations send nothing else; a misconfigured one is let through).
func isCloneSet(req admission.Request) bool {
	return req.Kind.Group == Group && req.Kind.Kind == "CloneSet"
}

// MutateCloneSet is the CloneSet mutating webhook: on a create or an
// update it answers with the JSON patch from the object to the object as
// Rules.Default leaves it (no patch when the defaults changed nothing).
func (h *Handlers) MutateCloneSet(ctx context.Context, req admission.Request) admission.Response {
	if !isCloneSet(req) || req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return admission.Allowed("")
	}
	out, changed, err := h.Rules.Default(ctx, reviewOf(req))
	if err != nil {
		h.Log.Info("CloneSet not defaulted", "namespace", req.Namespace, "name", req.Name, "operation", req.Operation, "error", err.Error())
		return admission.Errored(http.StatusBadRequest, err)
	}
	if !changed {
		return admission.Allowed("")
	}
	return admission.PatchResponseFromRaw(req.Object.Raw, out)
}

// ValidateCloneSet is the CloneSet validating webhook: a create or an
// update Rules refuses is answered 422 Unprocessable Entity, a deletion
// 403 Forbidden (OpenKruise's deletion protection), with one cause per
// refused field and the message OpenKruise's webhook gives. A delete
// without the old object is admitted, as upstream.
func (h *Handlers) ValidateCloneSet(ctx context.Context, req admission.Request) admission.Response {
	if !isCloneSet(req) {
		return admission.Allowed("")
	}
	code := int32(http.StatusUnprocessableEntity)
	switch req.Operation {
	case admissionv1.Create, admissionv1.Update:
	case admissionv1.Delete:
		if len(req.OldObject.Raw) == 0 {
			return admission.Allowed("")
		}
		code = http.StatusForbidden
	default:
		return admission.Allowed("")
	}
	errs, err := h.Rules.Validate(ctx, reviewOf(req))
	if err != nil {
		h.Log.Info("CloneSet not validated", "namespace", req.Namespace, "name", req.Name, "operation", req.Operation, "error", err.Error())
		return admission.Errored(http.StatusBadRequest, err)
	}
	if len(errs) == 0 {
		return admission.Allowed("")
	}
	h.Log.Info("CloneSet refused", "namespace", req.Namespace, "name", req.Name, "operation", req.Operation, "user", req.UserInfo.Username, "refusal", errs.ToAggregate().Error())
	return refused(code, req, errs)
}

// refused is a refusal with the status kube-apiserver's own validation
// gives (reason Invalid or Forbidden, one cause per field error) and
// OpenKruise's message (the field errors' aggregate).
func refused(code int32, req admission.Request, errs field.ErrorList) admission.Response {
	gk := schema.GroupKind{Group: req.Kind.Group, Kind: req.Kind.Kind}
	status := apierrors.NewInvalid(gk, req.Name, errs).ErrStatus
	status.Code = code
	status.Message = errs.ToAggregate().Error()
	if code == http.StatusForbidden {
		status.Reason = metav1.StatusReasonForbidden
	}
	return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{Allowed: false, Result: &status}}
}

// KruisePodReady is the readiness gate, and pod condition, OpenKruise's pod
// webhook injects into the pods of its workloads.
const KruisePodReady = "KruisePodReady"

// MutatePod is the part of OpenKruise's pod mutating webhook the CloneSet
// relies on, on a pod's create:
//
//   - a pod with a controller owner of group apps.kruise.io gets the
//     KruisePodReady readiness gate (once), which the lifecycle hooks'
//     markPodNotReady turn False and the controller's pod readiness
//     reconciler turns True at first;
//   - a pod of several containers that asks for a launch order gets the
//     launch barrier env in each container (withLaunchBarriers), which
//     kubecontroller.LaunchPriorityReconciler fills and the in-place update
//     splits its batches by.
//
// Anything else is let through unchanged; a pod that does not decode, or
// whose launch priority is not an integer, is refused (400).
func MutatePod(_ context.Context, req admission.Request) admission.Response {
	if req.Kind.Group != "" || req.Kind.Kind != "Pod" || req.Operation != admissionv1.Create || req.SubResource != "" {
		return admission.Allowed("")
	}
	out, changed, err := mutatePod(req.Object.Raw)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	if !changed {
		return admission.Allowed("")
	}
	return admission.PatchResponseFromRaw(req.Object.Raw, out)
}

// podFacts is what the pod webhook reads of a pod.
type podFacts struct {
	Metadata struct {
		Name            string                  `json:"name"`
		GenerateName    string                  `json:"generateName"`
		Annotations     map[string]string       `json:"annotations"`
		OwnerReferences []metav1.OwnerReference `json:"ownerReferences"`
	} `json:"metadata"`
	Spec struct {
		ReadinessGates []struct {
			ConditionType string `json:"conditionType"`
		} `json:"readinessGates"`
		Containers []struct {
			Name string `json:"name"`
			Env  []struct {
				Name      string          `json:"name"`
				Value     string          `json:"value"`
				ValueFrom json.RawMessage `json:"valueFrom"`
			} `json:"env"`
		} `json:"containers"`
	} `json:"spec"`
}

// mutatePod returns the pod (JSON) with the readiness gate and the launch
// barriers it needs; changed is false (and out nil) when it needs neither.
func mutatePod(raw []byte) (out []byte, changed bool, err error) {
	var pod podFacts
	if err := json.Unmarshal(raw, &pod); err != nil {
		return nil, false, fmt.Errorf("decode the pod: %w", err)
	}
	gate := needsReadinessGate(&pod)
	priorities, err := launchPriorities(&pod)
	if err != nil {
		return nil, false, err
	}
	if !gate && priorities == nil {
		return nil, false, nil
	}
	tree, err := decodeTree(raw)
	if err != nil {
		return nil, false, err
	}
	spec, ok := tree["spec"].(map[string]any)
	if !ok {
		return nil, false, errors.New("the pod has no spec")
	}
	if gate {
		gates, _ := spec["readinessGates"].([]any)
		spec["readinessGates"] = append(gates, map[string]any{"conditionType": KruisePodReady})
	}
	if priorities != nil {
		if err := withLaunchBarriers(tree, spec, &pod, priorities); err != nil {
			return nil, false, err
		}
	}
	out, err = json.Marshal(tree)
	return out, err == nil, err
}

// needsReadinessGate reports whether the pod's controller owner is of group
// apps.kruise.io and the pod lacks the KruisePodReady gate.
func needsReadinessGate(pod *podFacts) bool {
	owned := false
	for _, ref := range pod.Metadata.OwnerReferences {
		if ref.Controller != nil && *ref.Controller {
			gv, err := schema.ParseGroupVersion(ref.APIVersion)
			owned = err == nil && gv.Group == Group
			break
		}
	}
	if !owned {
		return false
	}
	for _, g := range pod.Spec.ReadinessGates {
		if g.ConditionType == KruisePodReady {
			return false
		}
	}
	return true
}

// decodeTree decodes a JSON object keeping numbers as written.
func decodeTree(raw []byte) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var tree map[string]any
	if err := d.Decode(&tree); err != nil {
		return nil, fmt.Errorf("decode the object: %w", err)
	}
	if tree == nil {
		return nil, errors.New("the object is null")
	}
	return tree, nil
}

// apiVersionOf reads an object's apiVersion.
func apiVersionOf(raw []byte) (string, error) {
	var head struct {
		APIVersion string `json:"apiVersion"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return "", err
	}
	return head.APIVersion, nil
}

// isCloneSetVersion reports whether apiVersion is a CloneSet version the
// conversion serves.
func isCloneSetVersion(apiVersion string) bool {
	return apiVersion == Group+"/v1alpha1" || apiVersion == Group+"/v1beta1"
}

// trimVersion is the version of a group/version string, for messages.
func trimVersion(apiVersion string) string {
	return strings.TrimPrefix(apiVersion, Group+"/")
}
