package model

import (
	"strconv"
)

// Default values the mutating webhook writes (docs/spec/lifecycle-status-validation.md 4.1).
const (
	// DefaultReplicas is the default of spec.replicas in both API versions.
	DefaultReplicas int32 = 1
	// DefaultRevisionHistoryLimit is the default of spec.revisionHistoryLimit.
	DefaultRevisionHistoryLimit int32 = 10
	// DefaultMaxUnavailable is the default update maxUnavailable ("20%").
	DefaultMaxUnavailable = "20%"
)

// V1alpha1 update strategy types (the as-written values of updateStrategy.type in
// apps.kruise.io/v1alpha1). OnDelete shares its name with the v1beta1 type.
const (
	V1alpha1TypeReCreate          = "ReCreate"
	V1alpha1TypeInPlaceIfPossible = "InPlaceIfPossible"
	V1alpha1TypeInPlaceOnly       = "InPlaceOnly"
	V1alpha1TypeOnDelete          = "OnDelete"
)

// SetDefaults applies the defaults of the mutating webhook for the object's API
// version (docs/spec/lifecycle-status-validation.md 4.1), in place.
//
// For a v1beta1 object it fills spec.replicas, revisionHistoryLimit, the update
// strategy type and, for RollingUpdate, the rollingUpdate block (created when
// absent), its podUpdatePolicy, in-place strategy, partition, maxUnavailable and
// maxSurge.
//
// For a v1alpha1 object it fills spec.replicas, revisionHistoryLimit and the
// as-written v1alpha1 update strategy kept in cs.V1alpha1 (created when nil);
// it does not touch the v1beta1-shaped spec.updateStrategy: call
// ConvertV1alpha1 afterwards to derive it. Objects of any other API version are
// left unchanged.
func SetDefaults(cs *CloneSet) {
	if cs == nil {
		return
	}
	switch cs.APIVersion {
	case APIVersionV1alpha1:
		setCommonDefaults(&cs.Spec)
		if cs.V1alpha1 == nil {
			cs.V1alpha1 = &V1alpha1Fields{}
		}
		setV1alpha1Defaults(cs.V1alpha1)
	case APIVersionV1beta1:
		setCommonDefaults(&cs.Spec)
		setV1beta1UpdateDefaults(&cs.Spec.UpdateStrategy)
	}
}

func setCommonDefaults(s *CloneSetSpec) {
	if s.Replicas == nil {
		r := DefaultReplicas
		s.Replicas = &r
	}
	if s.RevisionHistoryLimit == nil {
		l := DefaultRevisionHistoryLimit
		s.RevisionHistoryLimit = &l
	}
}

func setV1alpha1Defaults(f *V1alpha1Fields) {
	if f.UpdateStrategyType == "" {
		f.UpdateStrategyType = V1alpha1TypeReCreate
	}
	u := &f.UpdateStrategy
	if (f.UpdateStrategyType == V1alpha1TypeInPlaceIfPossible || f.UpdateStrategyType == V1alpha1TypeInPlaceOnly) &&
		u.InPlaceUpdateStrategy == nil {
		u.InPlaceUpdateStrategy = &InPlaceUpdateStrategy{}
	}
	fillBudgetDefaults(u)
}

// fillBudgetDefaults sets partition 0, maxUnavailable "20%" and maxSurge 0 where
// they are absent.
func fillBudgetDefaults(u *RollingUpdateStrategy) {
	if u.Partition == nil {
		p := FromInt(0)
		u.Partition = &p
	}
	if u.MaxUnavailable == nil {
		m := FromString(DefaultMaxUnavailable)
		u.MaxUnavailable = &m
	}
	if u.MaxSurge == nil {
		s := FromInt(0)
		u.MaxSurge = &s
	}
}

func setV1beta1UpdateDefaults(us *UpdateStrategy) {
	if us.Type == "" {
		us.Type = UpdateStrategyRollingUpdate
	}
	if us.Type != UpdateStrategyRollingUpdate {
		return
	}
	if us.RollingUpdate == nil {
		us.RollingUpdate = &RollingUpdateStrategy{}
	}
	ru := us.RollingUpdate
	if ru.PodUpdatePolicy == "" {
		ru.PodUpdatePolicy = PolicyReCreate
	}
	if (ru.PodUpdatePolicy == PolicyInPlaceIfPossible || ru.PodUpdatePolicy == PolicyInPlaceOnly) &&
		ru.InPlaceUpdateStrategy == nil {
		ru.InPlaceUpdateStrategy = &InPlaceUpdateStrategy{}
	}
	fillBudgetDefaults(ru)
}

// ConvertV1alpha1 derives the internal (v1beta1) spec fields of a v1alpha1
// object from its as-written v1alpha1 facts (cs.V1alpha1), its labels and its
// annotations, exactly as docs/spec/lifecycle-status-validation.md 5.2 says:
// enablePVCReuse = !disablePVCReuse; excludePreparingDelete from the
// apps.kruise.io/cloneset-scaling-exclude-preparing-delete label equal to
// exactly "true"; updateStrategy.type OnDelete keeps type OnDelete and drops the
// whole rollingUpdate block; every other type becomes RollingUpdate with the
// matching podUpdatePolicy (ReCreate for an empty or unknown type); the
// in-place strategy carries the v1alpha1 gracePeriodSeconds and the three
// image pre-download annotations (the v1alpha1 spec's own imagePreDownload*
// fields are ignored). Apply SetDefaults first. Objects of another API version,
// or without V1alpha1 facts, are left unchanged.
func ConvertV1alpha1(cs *CloneSet) {
	if cs == nil || cs.APIVersion != APIVersionV1alpha1 || cs.V1alpha1 == nil {
		return
	}
	f := cs.V1alpha1
	cs.Spec.ScaleStrategy.EnablePVCReuse = !f.DisablePVCReuse
	cs.Spec.ScaleStrategy.ExcludePreparingDelete = cs.Labels[LabelScalingExcludePreparingDelete] == "true"

	typ, policy := V1beta1UpdateType(f.UpdateStrategyType)
	if typ == UpdateStrategyOnDelete {
		cs.Spec.UpdateStrategy = UpdateStrategy{Type: UpdateStrategyOnDelete}
		return
	}
	u := f.UpdateStrategy
	ru := &RollingUpdateStrategy{
		PodUpdatePolicy:  policy,
		Partition:        copyIntOrPercent(u.Partition),
		MaxUnavailable:   copyIntOrPercent(u.MaxUnavailable),
		MaxSurge:         copyIntOrPercent(u.MaxSurge),
		Paused:           u.Paused,
		PriorityStrategy: copyPriority(u.PriorityStrategy),
		ScatterStrategy:  append([]ScatterTerm(nil), u.ScatterStrategy...),
	}
	if len(ru.ScatterStrategy) == 0 {
		ru.ScatterStrategy = nil
	}
	ru.InPlaceUpdateStrategy = convertInPlaceStrategy(u.InPlaceUpdateStrategy, cs.Annotations)
	cs.Spec.UpdateStrategy = UpdateStrategy{Type: UpdateStrategyRollingUpdate, RollingUpdate: ru}
}

// V1beta1UpdateType maps a v1alpha1 updateStrategy.type to the v1beta1
// updateStrategy.type and rollingUpdate.podUpdatePolicy, as kruise's
// conversion to the hub does (docs/spec/lifecycle-status-validation.md 5.2):
// OnDelete stays OnDelete (no policy, and the conversion drops the whole
// rolling-update block); ReCreate, InPlaceIfPossible and InPlaceOnly become
// RollingUpdate with that policy; anything else (empty included) becomes
// RollingUpdate with ReCreate.
func V1beta1UpdateType(v1alpha1Type string) (typ, policy string) {
	switch v1alpha1Type {
	case V1alpha1TypeOnDelete:
		return UpdateStrategyOnDelete, ""
	case V1alpha1TypeInPlaceIfPossible:
		return UpdateStrategyRollingUpdate, PolicyInPlaceIfPossible
	case V1alpha1TypeInPlaceOnly:
		return UpdateStrategyRollingUpdate, PolicyInPlaceOnly
	}
	return UpdateStrategyRollingUpdate, PolicyReCreate
}

// V1alpha1UpdateType maps the v1beta1 updateStrategy.type and, when the
// rollingUpdate block is present (hasRollingUpdate), its podUpdatePolicy
// back to a v1alpha1 updateStrategy.type, as kruise's conversion from the
// hub does (docs/spec/lifecycle-status-validation.md 5.3): OnDelete stays
// OnDelete; otherwise InPlaceIfPossible and InPlaceOnly keep their name and
// everything else (no block, an empty, ReCreate or unknown policy) is
// ReCreate.
func V1alpha1UpdateType(typ, policy string, hasRollingUpdate bool) string {
	if typ == UpdateStrategyOnDelete {
		return V1alpha1TypeOnDelete
	}
	if hasRollingUpdate {
		switch policy {
		case PolicyInPlaceIfPossible:
			return V1alpha1TypeInPlaceIfPossible
		case PolicyInPlaceOnly:
			return V1alpha1TypeInPlaceOnly
		}
	}
	return V1alpha1TypeReCreate
}

// ImagePreDownload is what the three image pre-download annotations of a
// v1alpha1 CloneSet say, as kruise's conversion to the hub reads them
// (docs/spec/lifecycle-status-validation.md 5.2): Parallelism from a
// non-empty apps.kruise.io/image-predownload-parallelism (an integer when
// the text is one, else the text); TimeoutSeconds and MinUpdatedReadyPods
// from the two other annotations when they are 32-bit base-10 integers
// (anything else is dropped silently). Any reports whether one of the three
// annotations is non-empty, which makes the v1beta1 in-place strategy exist.
type ImagePreDownload struct {
	Parallelism         *IntOrPercent
	TimeoutSeconds      *int32
	MinUpdatedReadyPods *int32
	Any                 bool
}

// ImagePreDownloadFromAnnotations reads the three image pre-download
// annotations (see ImagePreDownload).
func ImagePreDownloadFromAnnotations(annotations map[string]string) ImagePreDownload {
	par := annotations[AnnotationImagePreDownloadParallelism]
	timeout := annotations[AnnotationImagePreDownloadTimeoutSeconds]
	minReady := annotations[AnnotationImagePreDownloadMinUpdatedReadyPods]
	out := ImagePreDownload{Any: par != "" || timeout != "" || minReady != ""}
	if par != "" {
		v := parseParallelismAnnotation(par)
		out.Parallelism = &v
	}
	if v, ok := parseInt32Annotation(timeout); ok {
		out.TimeoutSeconds = &v
	}
	if v, ok := parseInt32Annotation(minReady); ok {
		out.MinUpdatedReadyPods = &v
	}
	return out
}

// convertInPlaceStrategy builds the v1beta1 in-place strategy from the v1alpha1
// one and the three pre-download annotations (LSV 5.2).
func convertInPlaceStrategy(src *InPlaceUpdateStrategy, annotations map[string]string) *InPlaceUpdateStrategy {
	pre := ImagePreDownloadFromAnnotations(annotations)
	if src == nil && !pre.Any {
		return nil
	}
	out := &InPlaceUpdateStrategy{
		ImagePreDownloadParallelism:         pre.Parallelism,
		ImagePreDownloadTimeoutSeconds:      pre.TimeoutSeconds,
		ImagePreDownloadMinUpdatedReadyPods: pre.MinUpdatedReadyPods,
	}
	if src != nil {
		out.GracePeriodSeconds = src.GracePeriodSeconds
	}
	return out
}

// parseParallelismAnnotation is Kubernetes' intstr.Parse as the amd64 controller
// runs it: text that strconv.Atoi accepts (digits with an optional sign) becomes
// an integer, truncated to 32 bits as intstr.FromInt does; anything else stays
// a string.
func parseParallelismAnnotation(s string) IntOrPercent {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return FromString(s)
	}
	return FromInt(int32(v))
}

// parseInt32Annotation parses a 32-bit base-10 integer; anything else is dropped.
func parseInt32Annotation(s string) (int32, bool) {
	if s == "" {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, false
	}
	return int32(v), true
}

func copyIntOrPercent(v *IntOrPercent) *IntOrPercent {
	if v == nil {
		return nil
	}
	c := *v
	return &c
}

func copyPriority(p *UpdatePriorityStrategy) *UpdatePriorityStrategy {
	if p == nil {
		return nil
	}
	c := &UpdatePriorityStrategy{}
	for _, w := range p.WeightPriority {
		c.WeightPriority = append(c.WeightPriority, UpdatePriorityWeightTerm{Weight: w.Weight, MatchSelector: copySelector(w.MatchSelector)})
	}
	c.OrderPriority = append(c.OrderPriority, p.OrderPriority...)
	return c
}

func copySelector(s LabelSelector) LabelSelector {
	c := LabelSelector{}
	if s.MatchLabels != nil {
		c.MatchLabels = make(map[string]string, len(s.MatchLabels))
		for k, v := range s.MatchLabels {
			c.MatchLabels[k] = v
		}
	}
	for _, e := range s.MatchExpressions {
		c.MatchExpressions = append(c.MatchExpressions, LabelSelectorRequirement{Key: e.Key, Operator: e.Operator, Values: append([]string(nil), e.Values...)})
	}
	return c
}

// v1alpha1View returns the v1alpha1 facts validation reads: cs.V1alpha1 when
// present, else a view derived from the v1beta1 spec with the mapping of
// docs/spec/lifecycle-status-validation.md 5.3 (for objects built in code).
func v1alpha1View(cs *CloneSet) V1alpha1Fields {
	if cs.V1alpha1 != nil {
		return *cs.V1alpha1
	}
	f := V1alpha1Fields{DisablePVCReuse: !cs.Spec.ScaleStrategy.EnablePVCReuse}
	us := cs.Spec.UpdateStrategy
	ru := us.RollingUpdate
	policy := ""
	if ru != nil {
		policy = ru.PodUpdatePolicy
	}
	f.UpdateStrategyType = V1alpha1UpdateType(us.Type, policy, ru != nil)
	if ru != nil {
		f.UpdateStrategy = *ru
		f.UpdateStrategy.PodUpdatePolicy = ""
	}
	return f
}
