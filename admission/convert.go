package admission

import (
	"strconv"

	"github.com/clonecore/cloneset/model"
)

// Convert returns obj in the given version, as kruise's conversion webhook
// returns it (apis/apps/v1alpha1/cloneset_conversion.go: ConvertTo the
// v1beta1 hub, ConvertFrom it), field by field as
// docs/spec/admission-and-conversion.md 4 says, with upstream's losses. An
// object already in that version is returned as it is. obj is not changed.
func Convert(obj *Object, to Version) (*Object, error) {
	if err := obj.check(); err != nil {
		return nil, err
	}
	if _, err := ParseVersion(string(to)); err != nil {
		return nil, err
	}
	switch {
	case obj.version == to:
		return obj, nil
	case to == V1beta1:
		return &Object{version: V1beta1, tree: toV1beta1(obj.tree)}, nil
	}
	return &Object{version: V1alpha1, tree: fromV1beta1(obj.tree)}, nil
}

// specMembers are the spec members both versions share, copied as they are.
var specMembers = []string{"replicas", "selector", "template", "volumeClaimTemplates",
	"revisionHistoryLimit", "minReadySeconds", "lifecycle", "progressDeadlineSeconds"}

// strategyMembers are the members of the v1alpha1 updateStrategy and the
// v1beta1 rollingUpdate block that the conversion copies as they are.
var strategyMembers = []string{"partition", "maxUnavailable", "maxSurge", "paused", "priorityStrategy", "scatterStrategy"}

// converted starts the converted object: type meta, metadata and the shared
// spec members copied, status copied (both versions' statuses are alike).
func converted(src map[string]any, to Version) (tree, metadata, spec map[string]any) {
	metadata = copyTree(src["metadata"]).(map[string]any)
	spec = map[string]any{}
	srcSpec := src["spec"].(map[string]any)
	copyMembers(spec, srcSpec, specMembers)
	tree = map[string]any{
		"kind":       kindCloneSet,
		"apiVersion": to.APIVersion(),
		"metadata":   metadata,
		"spec":       spec,
		"status":     copyTree(src["status"]),
	}
	return tree, metadata, spec
}

// copyMembers deep-copies the members of src named in names that are
// present into dst.
func copyMembers(dst, src map[string]any, names []string) {
	for _, k := range names {
		if v, ok := src[k]; ok {
			dst[k] = copyTree(v)
		}
	}
}

// toV1beta1 is ConvertTo: a canonical v1alpha1 tree in the v1beta1 hub.
func toV1beta1(src map[string]any) map[string]any {
	tree, metadata, spec := converted(src, V1beta1)
	srcSpec := src["spec"].(map[string]any)
	labels, annotations := stringMap(metadata["labels"]), stringMap(metadata["annotations"])

	ss := srcSpec["scaleStrategy"].(map[string]any)
	scale := map[string]any{}
	copyMembers(scale, ss, []string{"podsToDelete", "maxUnavailable"})
	if ss["disablePVCReuse"] != true {
		scale["enablePVCReuse"] = true
	}
	if labels[model.LabelScalingExcludePreparingDelete] == "true" {
		scale["excludePreparingDelete"] = true
	}
	spec["scaleStrategy"] = scale

	us := srcSpec["updateStrategy"].(map[string]any)
	v1alpha1Type, _ := us["type"].(string)
	typ, policy := model.V1beta1UpdateType(v1alpha1Type)
	update := map[string]any{"type": typ}
	if typ != model.UpdateStrategyOnDelete {
		ru := map[string]any{"podUpdatePolicy": policy}
		copyMembers(ru, us, strategyMembers)
		if ip := inPlaceToV1beta1(us["inPlaceUpdateStrategy"], annotations); ip != nil {
			ru["inPlaceUpdateStrategy"] = ip
		}
		update["rollingUpdate"] = ru
	}
	spec["updateStrategy"] = update
	return tree
}

// inPlaceToV1beta1 is the v1beta1 in-place strategy of a v1alpha1 one (nil
// when absent) and the pre-download annotations: absent when both are;
// else the grace period and the annotations' values (the v1alpha1 spec's
// own pre-download members are not read).
func inPlaceToV1beta1(src any, annotations map[string]string) map[string]any {
	pre := model.ImagePreDownloadFromAnnotations(annotations)
	if src == nil && !pre.Any {
		return nil
	}
	out := map[string]any{}
	if s, ok := src.(map[string]any); ok {
		copyMembers(out, s, []string{"gracePeriodSeconds"})
	}
	if p := pre.Parallelism; p != nil {
		if p.IsString {
			out["imagePreDownloadParallelism"] = p.Str
		} else {
			out["imagePreDownloadParallelism"] = int64(p.Int)
		}
	}
	if t := pre.TimeoutSeconds; t != nil {
		out["imagePreDownloadTimeoutSeconds"] = int64(*t)
	}
	if m := pre.MinUpdatedReadyPods; m != nil {
		out["imagePreDownloadMinUpdatedReadyPods"] = int64(*m)
	}
	return out
}

// fromV1beta1 is ConvertFrom: a canonical v1beta1 tree in v1alpha1.
func fromV1beta1(src map[string]any) map[string]any {
	tree, metadata, spec := converted(src, V1alpha1)
	srcSpec := src["spec"].(map[string]any)

	ss := srcSpec["scaleStrategy"].(map[string]any)
	scale := map[string]any{}
	copyMembers(scale, ss, []string{"podsToDelete", "maxUnavailable"})
	if ss["enablePVCReuse"] != true {
		scale["disablePVCReuse"] = true
	}
	spec["scaleStrategy"] = scale // excludePreparingDelete is not converted back

	us := srcSpec["updateStrategy"].(map[string]any)
	typ, _ := us["type"].(string)
	ru, hasRU := us["rollingUpdate"].(map[string]any)
	policy, _ := ru["podUpdatePolicy"].(string)
	update := map[string]any{"type": model.V1alpha1UpdateType(typ, policy, hasRU)}
	if hasRU {
		copyMembers(update, ru, strategyMembers)
		if ip, ok := ru["inPlaceUpdateStrategy"].(map[string]any); ok && len(ip) > 0 {
			// The v1alpha1 in-place strategy keeps the grace period; the
			// pre-download members go to the annotations (added or
			// overwritten, never removed). A strategy with no content is
			// dropped (its members are omitempty: content is a member).
			update["inPlaceUpdateStrategy"] = map[string]any{}
			copyMembers(update["inPlaceUpdateStrategy"].(map[string]any), ip, []string{"gracePeriodSeconds"})
			writePreDownloadAnnotations(metadata, ip)
		}
	}
	spec["updateStrategy"] = update
	return tree
}

// writePreDownloadAnnotations writes the pre-download members of a v1beta1
// in-place strategy to their annotations: the parallelism as its string
// form, the numbers in base 10.
func writePreDownloadAnnotations(metadata, ip map[string]any) {
	set := func(key string, v any) {
		annotations, _ := metadata["annotations"].(map[string]any)
		if annotations == nil {
			annotations = map[string]any{}
			metadata["annotations"] = annotations
		}
		switch x := v.(type) {
		case string:
			annotations[key] = x
		case int64:
			annotations[key] = strconv.FormatInt(x, 10)
		}
	}
	if v, ok := ip["imagePreDownloadParallelism"]; ok {
		set(model.AnnotationImagePreDownloadParallelism, v)
	}
	if v, ok := ip["imagePreDownloadTimeoutSeconds"]; ok {
		set(model.AnnotationImagePreDownloadTimeoutSeconds, v)
	}
	if v, ok := ip["imagePreDownloadMinUpdatedReadyPods"]; ok {
		set(model.AnnotationImagePreDownloadMinUpdatedReadyPods, v)
	}
}

// stringMap is a canonical map of strings as a Go map.
func stringMap(v any) map[string]string {
	m, _ := v.(map[string]any)
	out := make(map[string]string, len(m))
	for k, e := range m {
		out[k], _ = e.(string)
	}
	return out
}
