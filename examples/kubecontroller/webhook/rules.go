package webhook

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/clonecore/cloneset/admission"
	"github.com/clonecore/cloneset/examples/kubecontroller"
	"github.com/clonecore/cloneset/model"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/apis/core"
	corev1conversion "k8s.io/kubernetes/pkg/apis/core/v1"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// LibraryRules are the project's admission library (package admission:
// OpenKruise's defaults, verdicts and conversion) with Kubernetes' own
// validation of the pod template added, as OpenKruise's validating webhook
// calls it (k8s.io/kubernetes' ValidatePodTemplateSpec on the template with
// its defaults and the claim templates as volumes, OpenKruise's validation
// options): the library checks the part of the template's validation that
// needs no Kubernetes code, this adds the rest, each refused field once.
type LibraryRules struct {
	// Gates are OpenKruise's feature gates (the zero value: its defaults).
	Gates admission.Gates
	// Pods reads the pods a v1alpha1 CloneSet's new podsToDelete names
	// (the webhook reads them from the API server, as OpenKruise's does);
	// nil: no pod exists.
	Pods client.Reader
}

// operation maps an admission operation to the library's.
func operation(r Review) admission.Operation {
	return admission.Operation(r.Operation)
}

// request is the library's request of a review.
func (l *LibraryRules) request(ctx context.Context, r Review) admission.Request {
	req := admission.Request{Operation: operation(r), Version: r.Version, Object: r.Object, OldObject: r.OldObject, Options: admission.Options{Gates: l.Gates}}
	if l.Pods != nil {
		req.Options.FindPod = func(name string) *model.Pod {
			pod := &corev1.Pod{}
			if err := l.Pods.Get(ctx, types.NamespacedName{Namespace: r.Namespace, Name: name}, pod); err != nil {
				return nil
			}
			return kubecontroller.PodFromObject(pod)
		}
	}
	return req
}

// Default is the library's mutating webhook.
func (l *LibraryRules) Default(ctx context.Context, r Review) ([]byte, bool, error) {
	obj, changed, err := l.request(ctx, r).Default()
	if err != nil || !changed {
		return nil, false, err
	}
	out, err := obj.MarshalJSON()
	return out, err == nil, err
}

// Validate is the library's validating webhook, and Kubernetes' validation
// of the pod template on a create or an update.
func (l *LibraryRules) Validate(ctx context.Context, r Review) (field.ErrorList, error) {
	errs, err := l.request(ctx, r).Validate()
	if err != nil {
		return nil, err
	}
	out := make(field.ErrorList, 0, len(errs))
	seen := map[string]bool{}
	for _, e := range errs {
		out = append(out, fieldError(e))
		seen[e.Path+" "+e.Type.CauseType()] = true
	}
	if r.Operation == "CREATE" || r.Operation == "UPDATE" {
		more, err := l.validateTemplate(r.Object)
		if err != nil {
			return nil, err
		}
		for _, e := range more {
			if key := e.Field + " " + string(e.Type); !seen[key] {
				seen[key] = true
				out = append(out, e)
			}
		}
	}
	return out, nil
}

// Convert is the library's conversion webhook.
func (l *LibraryRules) Convert(obj []byte, apiVersion string) ([]byte, error) {
	v, err := admission.ParseVersion(apiVersion)
	if err != nil {
		return nil, err
	}
	return admission.ConvertJSON(obj, v)
}

// printed is a bad value as the library printed it: a field error shows it
// as it is.
type printed string

func (p printed) String() string { return string(p) }

// fieldError is a library refusal as a Kubernetes field error, its message
// the same text.
func fieldError(e model.FieldError) *field.Error {
	out := &field.Error{Type: field.ErrorType(e.Type.CauseType()), Field: e.Path, Detail: e.Message, BadValue: field.OmitValueType{}}
	if e.BadValue != "" {
		out.BadValue = printed(e.BadValue)
	}
	return out
}

// templateValidationOptions are OpenKruise's options of the template's
// validation (its webhooks' DefaultPodValidationOptions).
var templateValidationOptions = corevalidation.PodValidationOptions{
	AllowInvalidPodDeletionCost:                       true,
	AllowIndivisibleHugePagesValues:                   true,
	AllowInvalidLabelValueInSelector:                  true,
	AllowInvalidTopologySpreadConstraintLabelSelector: true,
}

// validateTemplate is Kubernetes' validation of the CloneSet's pod
// template (raw: the CloneSet as JSON, as the mutating webhook left it), as
// OpenKruise's webhook runs it: on the template with its defaults (a
// template stored without them, before the webhooks, is defaulted for the
// check), the claim templates added as claim volumes, unless the selector
// does not parse (the webhook then skips it).
func (l *LibraryRules) validateTemplate(raw []byte) (field.ErrorList, error) {
	obj, err := admission.Parse(raw)
	if err != nil {
		return nil, err
	}
	data, err := obj.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var cs struct {
		Spec struct {
			Selector             *metav1.LabelSelector  `json:"selector"`
			Template             corev1.PodTemplateSpec `json:"template"`
			VolumeClaimTemplates []struct {
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
			} `json:"volumeClaimTemplates"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(data, &cs); err != nil {
		return nil, fmt.Errorf("%s: read the pod template: %w", obj, err)
	}
	if _, err := metav1.LabelSelectorAsSelector(cs.Spec.Selector); err != nil {
		return nil, nil
	}
	// The defaults of the template, as OpenKruise sets them before it
	// converts it (SetDefaultPodSpec: the core/v1 defaults of the pod spec,
	// its containers, volumes, probes, ports and field references), here
	// Kubernetes' own, on a copy only this check reads.
	holder := &corev1.PodTemplate{Template: cs.Spec.Template}
	corev1conversion.SetObjectDefaults_PodTemplate(holder)
	cs.Spec.Template = holder.Template
	internal := &core.PodTemplateSpec{}
	if err := corev1conversion.Convert_v1_PodTemplateSpec_To_core_PodTemplateSpec(&cs.Spec.Template, internal, nil); err != nil {
		return field.ErrorList{field.Invalid(field.NewPath("spec", "template"), field.OmitValueType{}, "Convert_v1_PodTemplateSpec_To_core_PodTemplateSpec failed: "+err.Error())}, nil
	}
	// Kubernetes 1.37 keeps the deprecated serviceAccount equal to
	// serviceAccountName (its defaults set it, its validation checks it);
	// the Kubernetes 1.32 OpenKruise v1.9.0 builds on does neither, and its
	// defaults leave serviceAccount out: the check is made moot here, as
	// 1.37's own defaults would before it.
	internal.Spec.DeprecatedServiceAccount = internal.Spec.ServiceAccountName //nolint:staticcheck // the field the check reads
	for _, c := range cs.Spec.VolumeClaimTemplates {
		internal.Spec.Volumes = append(internal.Spec.Volumes, core.Volume{Name: c.Metadata.Name,
			VolumeSource: core.VolumeSource{PersistentVolumeClaim: &core.PersistentVolumeClaimVolumeSource{ClaimName: c.Metadata.Name}}})
	}
	return corevalidation.ValidatePodTemplateSpec(internal, field.NewPath("spec", "template"), templateValidationOptions), nil
}

// NewLibraryRules returns the library's rules with its default gates,
// reading pods with reader (an uncached reader: the webhook judges
// CloneSets of every namespace).
func NewLibraryRules(reader client.Reader) *LibraryRules {
	return &LibraryRules{Pods: reader}
}
