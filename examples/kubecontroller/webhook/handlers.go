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

// Rules are the CloneSet admission and conversion decisions the webhooks
// serve, on objects as JSON (either API version, the object's apiVersion
// says which).
type Rules interface {
	// Default returns obj as the mutating webhook leaves it; old is the
	// stored object on an update, nil on a create.
	Default(obj, old []byte) ([]byte, error)
	// Validate returns the refusals of obj on a create (old nil) or an
	// update of old; none when it is accepted.
	Validate(obj, old []byte) (field.ErrorList, error)
	// ValidateDelete returns the refusals of deleting obj.
	ValidateDelete(obj []byte) (field.ErrorList, error)
	// Convert returns obj in apiVersion (apps.kruise.io/v1alpha1 or
	// v1beta1); obj is of the other version.
	Convert(obj []byte, apiVersion string) ([]byte, error)
}

// Handlers serve the webhooks with Rules.
type Handlers struct {
	Rules Rules
	// Log receives a line per refusal and per error.
	Log logr.Logger
}

// isCloneSet reports whether the request is about a CloneSet (the
// configurations send nothing else; a misconfigured one is let through).
func isCloneSet(req admission.Request) bool {
	return req.Kind.Group == Group && req.Kind.Kind == "CloneSet"
}

// MutateCloneSet is the CloneSet mutating webhook: on a create or an
// update it answers with the JSON patch from the object to the object as
// Rules.Default leaves it.
func (h *Handlers) MutateCloneSet(_ context.Context, req admission.Request) admission.Response {
	if !isCloneSet(req) {
		return admission.Allowed("not a CloneSet")
	}
	var old []byte
	switch req.Operation {
	case admissionv1.Create:
	case admissionv1.Update:
		old = req.OldObject.Raw
	default:
		return admission.Allowed("")
	}
	out, err := h.Rules.Default(req.Object.Raw, old)
	if err != nil {
		h.Log.Info("CloneSet not defaulted", "namespace", req.Namespace, "name", req.Name, "operation", req.Operation, "error", err.Error())
		return admission.Errored(http.StatusBadRequest, err)
	}
	return admission.PatchResponseFromRaw(req.Object.Raw, out)
}

// ValidateCloneSet is the CloneSet validating webhook: a create or an
// update Rules refuses is answered 422 Unprocessable Entity, a deletion
// 403 Forbidden (OpenKruise's deletion protection), with one cause per
// refused field and the message OpenKruise's webhook gives.
func (h *Handlers) ValidateCloneSet(_ context.Context, req admission.Request) admission.Response {
	if !isCloneSet(req) {
		return admission.Allowed("not a CloneSet")
	}
	var errs field.ErrorList
	var err error
	code := int32(http.StatusUnprocessableEntity)
	switch req.Operation {
	case admissionv1.Create:
		errs, err = h.Rules.Validate(req.Object.Raw, nil)
	case admissionv1.Update:
		errs, err = h.Rules.Validate(req.Object.Raw, req.OldObject.Raw)
	case admissionv1.Delete:
		if len(req.OldObject.Raw) == 0 {
			return admission.Allowed("")
		}
		code = http.StatusForbidden
		errs, err = h.Rules.ValidateDelete(req.OldObject.Raw)
	default:
		return admission.Allowed("")
	}
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
// relies on: a pod created with a controller owner of group
// apps.kruise.io gets the KruisePodReady readiness gate (once), which the
// lifecycle hooks' markPodNotReady turn False and the controller's pod
// readiness reconciler turns True at first. Anything else is let through
// unchanged.
func MutatePod(_ context.Context, req admission.Request) admission.Response {
	if req.Kind.Group != "" || req.Kind.Kind != "Pod" || req.Operation != admissionv1.Create || req.SubResource != "" {
		return admission.Allowed("")
	}
	out, changed, err := withReadinessGate(req.Object.Raw)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	if !changed {
		return admission.Allowed("")
	}
	return admission.PatchResponseFromRaw(req.Object.Raw, out)
}

// withReadinessGate returns the pod (JSON) with the KruisePodReady gate
// added when its controller owner is of group apps.kruise.io and it lacks
// the gate; changed is false (and out nil) otherwise.
func withReadinessGate(raw []byte) (out []byte, changed bool, err error) {
	var pod struct {
		Metadata struct {
			OwnerReferences []metav1.OwnerReference `json:"ownerReferences"`
		} `json:"metadata"`
		Spec struct {
			ReadinessGates []struct {
				ConditionType string `json:"conditionType"`
			} `json:"readinessGates"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(raw, &pod); err != nil {
		return nil, false, fmt.Errorf("decode the pod: %w", err)
	}
	owned := false
	for _, ref := range pod.Metadata.OwnerReferences {
		if ref.Controller != nil && *ref.Controller {
			gv, err := schema.ParseGroupVersion(ref.APIVersion)
			owned = err == nil && gv.Group == Group
			break
		}
	}
	if !owned {
		return nil, false, nil
	}
	for _, g := range pod.Spec.ReadinessGates {
		if g.ConditionType == KruisePodReady {
			return nil, false, nil
		}
	}
	tree, err := decodeTree(raw)
	if err != nil {
		return nil, false, err
	}
	spec, ok := tree["spec"].(map[string]any)
	if !ok {
		return nil, false, errors.New("the pod has no spec")
	}
	gates, _ := spec["readinessGates"].([]any)
	spec["readinessGates"] = append(gates, map[string]any{"conditionType": KruisePodReady})
	out, err = json.Marshal(tree)
	return out, err == nil, err
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
