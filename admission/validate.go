package admission

import (
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/clonecore/cloneset/model"
)

// FieldError is one refusal of the validating webhook: the field path with
// list indexes, the type as Kubernetes' field.ErrorType prints it ("Invalid
// value"; ErrorType.CauseType gives its API name), the bad value, the
// message, and the id of the rule of docs/spec/admission-and-conversion.md.
type FieldError = model.FieldError

// FieldErrors are all refusals of one request, in the webhook's order.
type FieldErrors = model.FieldErrors

// Operation is the operation of an admission request, spelled as
// admission.k8s.io/v1 spells it.
type Operation string

// The operations the CloneSet webhooks handle: the mutating webhook CREATE
// and UPDATE, the validating webhook all three.
const (
	Create Operation = "CREATE"
	Update Operation = "UPDATE"
	Delete Operation = "DELETE"
)

// Options are what the webhooks read besides the objects.
type Options struct {
	// Gates are kruise's feature gates (the zero value: its defaults).
	Gates Gates
	// FindPod returns the pod of the CloneSet's namespace with the given
	// name, or nil when there is none: the v1alpha1 podsToDelete rule (A10)
	// asks it for each name the old object does not list (the webhook reads
	// the pod from the API server). Nil: no pod exists.
	FindPod func(name string) *model.Pod
}

// The rule ids of deletion protection (docs/spec/admission-and-conversion.md 3.3).
const (
	RuleDeleteAlways    = "D1"
	RuleDeleteCascading = "D2"
)

// Validate is kruise's validating webhook: the refusals of creating obj
// (old nil), of updating old to obj, or of deleting old (obj nil), for the
// objects' version, in the webhook's order; none when it admits the
// request. obj is the object as the mutating webhook left it (Default): the
// webhook reads what it is given, and an absent spec.replicas counts as 1
// here. The error is for a request the webhook cannot judge (objects of two
// versions, a missing object).
func Validate(op Operation, obj, old *Object, opts Options) (FieldErrors, error) {
	for _, o := range []*Object{obj, old} {
		if o != nil && o.tree == nil {
			return nil, errNotRead
		}
	}
	switch op {
	case Create:
		if obj == nil {
			return nil, errors.New("admission: Validate CREATE: no object")
		}
		return validateWrite(obj, nil, opts)
	case Update:
		if obj == nil || old == nil {
			return nil, errors.New("admission: Validate UPDATE: need the object and the old object")
		}
		if old.version != obj.version {
			return nil, fmt.Errorf("%s: the old object is %s, the object %s", obj, old.version.APIVersion(), obj.version.APIVersion())
		}
		return validateWrite(obj, old, opts)
	case Delete:
		if old == nil {
			return nil, nil // upstream admits a delete without the old object (Kubernetes before 1.16)
		}
		return validateDelete(old, opts.Gates), nil
	}
	return nil, fmt.Errorf("admission: operation %q: want CREATE, UPDATE or DELETE", op)
}

// validateWrite is the verdict on a create (old nil) or an update: the
// model's rules (model.ValidateAdmission) with the pod template checked as
// the webhook checks it, with its defaults (kruise's
// ConvertPodTemplateSpec defaults it before Kubernetes' validation), and the
// update rules on the templates as received.
func validateWrite(obj, old *Object, opts Options) (FieldErrors, error) {
	checked, err := withTemplateDefaults(obj, opts.Gates)
	if err != nil {
		return nil, err
	}
	cs, err := modelOf(checked)
	if err != nil {
		return nil, err
	}
	var oldCS *model.CloneSet
	if old != nil {
		if oldCS, err = modelOf(old); err != nil {
			return nil, err
		}
	}
	pods := findPods(cs, oldCS, opts.FindPod)
	errs := model.ValidateAdmission(oldCS, cs, pods)
	if old == nil {
		return errs, nil
	}
	// The update rules (A19-A21) compare the objects as received: A21 diffs
	// the templates before the create rules default one of them.
	received := cs
	if checked != obj {
		if received, err = modelOf(obj); err != nil {
			return nil, err
		}
	}
	upd := model.ValidateUpdate(oldCS, received)
	return append(upd, slices.DeleteFunc(errs, isUpdateRule)...), nil
}

// isUpdateRule reports whether an error comes from model.ValidateUpdate.
func isUpdateRule(e FieldError) bool {
	return e.Rule == "A19" || e.Rule == "A20" || e.Rule == "A21"
}

// modelOf is an object in the model's internal shape, as the webhook's
// rules read it (no defaults added; the v1alpha1 conversion derived).
func modelOf(o *Object) (*model.CloneSet, error) {
	cs, err := o.CloneSet()
	if err != nil {
		return nil, err
	}
	model.ConvertV1alpha1(cs)
	return cs, nil
}

// withTemplateDefaults is obj with its pod template defaulted as the
// validating webhook defaults it before checking it (whatever
// TemplateNoDefaults says; the claim templates are not defaulted there);
// obj itself when that changes nothing.
func withTemplateDefaults(obj *Object, gates Gates) (*Object, error) {
	spec := obj.tree["spec"].(map[string]any)
	t, _ := spec["template"].(map[string]any)
	d, err := defaultPodTemplate(obj.templateAsRead()) // which does not change its input
	if err != nil {
		return nil, fmt.Errorf("%s: spec.template: %w", obj, err)
	}
	if gates.DefaultHostNetworkHostPortsInPodTemplates {
		defaultHostNetworkPorts(d)
	}
	if reflect.DeepEqual(d, t) {
		return obj, nil
	}
	tree := shallowWith(obj.tree, "spec", shallowWith(spec, "template", d))
	return &Object{version: obj.version, tree: tree}, nil
}

// findPods asks FindPod for the podsToDelete names the rule A10 looks up
// (those old does not list), for v1alpha1 objects.
func findPods(cs, old *model.CloneSet, find func(string) *model.Pod) []*model.Pod {
	if cs.APIVersion != model.APIVersionV1alpha1 || find == nil {
		return nil
	}
	var pods []*model.Pod
	for _, name := range cs.Spec.ScaleStrategy.PodsToDelete {
		if old != nil && slices.Contains(old.Spec.ScaleStrategy.PodsToDelete, name) {
			continue
		}
		p := find(name)
		if p == nil {
			continue
		}
		c := *p
		if c.Namespace == "" {
			c.Namespace = cs.Namespace
		}
		pods = append(pods, &c)
	}
	return pods
}

// validateDelete is deletion protection (kruise's ValidateWorkloadDeletion)
// on the stored object.
func validateDelete(old *Object, gates Gates) FieldErrors {
	md := old.metadata()
	if !gates.ResourcesDeletionProtection || md["deletionTimestamp"] != nil {
		return nil
	}
	path := "metadata.labels[" + LabelDeleteProtection + "]"
	switch v := stringMap(md["labels"])[LabelDeleteProtection]; v {
	case DeleteProtectionAlways:
		return FieldErrors{{Path: path, Type: model.ErrorTypeForbidden, Rule: RuleDeleteAlways,
			Message: fmt.Sprintf("forbidden by ResourcesProtectionDeletion for %s=%s", LabelDeleteProtection, v)}}
	case DeleteProtectionCascading:
		replicas, ok := canonicalInt(old.tree["spec"].(map[string]any)["replicas"])
		if ok && replicas > 0 {
			return FieldErrors{{Path: path, Type: model.ErrorTypeForbidden, Rule: RuleDeleteCascading,
				Message: fmt.Sprintf("forbidden by ResourcesProtectionDeletion for %s=%s and replicas %d>0", LabelDeleteProtection, v, replicas)}}
		}
	}
	return nil
}

// Deletion protection: the label and its values.
const (
	// LabelDeleteProtection protects the object it labels from deletion
	// (with gate ResourcesDeletionProtection).
	LabelDeleteProtection = "policy.kruise.io/delete-protection"
	// DeleteProtectionAlways refuses every deletion.
	DeleteProtectionAlways = "Always"
	// DeleteProtectionCascading refuses deleting a CloneSet whose
	// spec.replicas is above 0.
	DeleteProtectionCascading = "Cascading"
)
