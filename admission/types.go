package admission

// The Go types kruise's webhooks read a CloneSet into, as encoding/json sees
// them: a hand-written table, from reading kruise v1.9.0
// (apis/apps/v1alpha1/cloneset_types.go, apis/apps/v1beta1/cloneset_types.go,
// apis/apps/pub) and the Kubernetes types it is built with
// (k8s.io/apimachinery v0.32: metav1.ObjectMeta, whose zero
// creationTimestamp is written as null, and metav1.LabelSelector). Field
// order is the Go field order, which is the order encoding/json writes;
// omitEmpty is the omitempty option of the json tag. The pod template
// (v1.PodTemplateSpec) and the claim templates (v1.PersistentVolumeClaim) are
// package podtemplate's (its table is generated from k8s.io/api).

// kind is what a Go type is to encoding/json, as in package podtemplate's
// table (podtemplate/table.go says how each kind reads and writes), plus the
// two kinds that package podtemplate reads and writes whole.
type kind uint8

// The kinds of the table.
const (
	kindString kind = iota + 1
	kindBool
	kindInt // bits: 32 or 64
	kindStruct
	kindPointer
	kindSlice
	kindMap // string keys
	kindIntOrString
	kindQuantity
	kindTime    // metav1.Time; the zero time is written as null
	kindRawJSON // metav1.FieldsV1
	// kindPodTemplate is v1.PodTemplateSpec (podtemplate.Encode, AppendJSON).
	kindPodTemplate
	// kindClaimTemplate is v1.PersistentVolumeClaim
	// (podtemplate.EncodeClaimTemplate, AppendClaimJSON).
	kindClaimTemplate
)

// typeInfo is one Go type of the table.
type typeInfo struct {
	// name is the Go type, for error messages.
	name string
	kind kind
	// bits is the size of a kindInt.
	bits int
	// elem is the element type of a pointer, slice or map.
	elem *typeInfo
	// fields are the JSON members of a struct, in Go field order (embedded
	// structs flattened as encoding/json flattens them).
	fields []fieldInfo
}

// fieldInfo is one JSON member of a struct.
type fieldInfo struct {
	name string
	typ  *typeInfo
	// omitEmpty: the member is left out when false, 0, "", a nil pointer,
	// or an empty slice or map (a struct is never left out).
	omitEmpty bool
}

// field is a member without omitempty; opt one with it.
func field(name string, t *typeInfo) fieldInfo { return fieldInfo{name: name, typ: t} }
func opt(name string, t *typeInfo) fieldInfo   { return fieldInfo{name: name, typ: t, omitEmpty: true} }

func structType(name string, fields ...fieldInfo) *typeInfo {
	return &typeInfo{name: name, kind: kindStruct, fields: fields}
}
func pointerTo(t *typeInfo) *typeInfo {
	return &typeInfo{name: "*" + t.name, kind: kindPointer, elem: t}
}
func sliceOf(t *typeInfo) *typeInfo { return &typeInfo{name: "[]" + t.name, kind: kindSlice, elem: t} }
func mapOf(t *typeInfo) *typeInfo {
	return &typeInfo{name: "map[string]" + t.name, kind: kindMap, elem: t}
}

// The scalar types.
var (
	tString      = &typeInfo{name: "string", kind: kindString}
	tBool        = &typeInfo{name: "bool", kind: kindBool}
	tInt32       = &typeInfo{name: "int32", kind: kindInt, bits: 32}
	tInt64       = &typeInfo{name: "int64", kind: kindInt, bits: 64}
	tIntOrString = &typeInfo{name: "intstr.IntOrString", kind: kindIntOrString}
	tQuantity    = &typeInfo{name: "resource.Quantity", kind: kindQuantity}
	tTime        = &typeInfo{name: "v1.Time", kind: kindTime}
	tFieldsV1    = &typeInfo{name: "v1.FieldsV1", kind: kindRawJSON}
	tTemplate    = &typeInfo{name: "v1.PodTemplateSpec", kind: kindPodTemplate}
	tClaim       = &typeInfo{name: "v1.PersistentVolumeClaim", kind: kindClaimTemplate}

	tResourceList = mapOf(tQuantity)
	tStringMap    = mapOf(tString)
	tStrings      = sliceOf(tString)
)

// k8s.io/apimachinery v0.32: metav1.
var (
	tObjectMeta = structType("v1.ObjectMeta",
		opt("name", tString),
		opt("generateName", tString),
		opt("namespace", tString),
		opt("selfLink", tString),
		opt("uid", tString),
		opt("resourceVersion", tString),
		opt("generation", tInt64),
		opt("creationTimestamp", tTime),
		opt("deletionTimestamp", pointerTo(tTime)),
		opt("deletionGracePeriodSeconds", pointerTo(tInt64)),
		opt("labels", tStringMap),
		opt("annotations", tStringMap),
		opt("ownerReferences", sliceOf(structType("v1.OwnerReference",
			field("apiVersion", tString),
			field("kind", tString),
			field("name", tString),
			field("uid", tString),
			opt("controller", pointerTo(tBool)),
			opt("blockOwnerDeletion", pointerTo(tBool)),
		))),
		opt("finalizers", tStrings),
		opt("managedFields", sliceOf(structType("v1.ManagedFieldsEntry",
			opt("manager", tString),
			opt("operation", tString),
			opt("apiVersion", tString),
			opt("time", pointerTo(tTime)),
			opt("fieldsType", tString),
			opt("fieldsV1", pointerTo(tFieldsV1)),
			opt("subresource", tString),
		))),
	)

	tLabelSelector = structType("v1.LabelSelector",
		opt("matchLabels", tStringMap),
		opt("matchExpressions", sliceOf(structType("v1.LabelSelectorRequirement",
			field("key", tString),
			field("operator", tString),
			opt("values", tStrings),
		))),
	)
)

// kruise apis/apps/pub and the parts both versions share.
var (
	tInPlaceUpdateStrategy = structType("pub.InPlaceUpdateStrategy",
		opt("gracePeriodSeconds", tInt32),
		opt("imagePreDownloadParallelism", pointerTo(tIntOrString)),
		opt("imagePreDownloadTimeoutSeconds", pointerTo(tInt32)),
		opt("imagePreDownloadMinUpdatedReadyPods", pointerTo(tInt32)),
	)

	tUpdatePriorityStrategy = structType("pub.UpdatePriorityStrategy",
		opt("orderPriority", sliceOf(structType("pub.UpdatePriorityOrderTerm",
			field("orderedKey", tString),
		))),
		opt("weightPriority", sliceOf(structType("pub.UpdatePriorityWeightTerm",
			field("weight", tInt32),
			field("matchSelector", tLabelSelector),
		))),
	)

	tScatterStrategy = sliceOf(structType("UpdateScatterTerm",
		field("key", tString),
		field("value", tString),
	))

	tLifecycleHook = structType("pub.LifecycleHook",
		opt("labelsHandler", tStringMap),
		opt("finalizersHandler", tStrings),
		opt("markPodNotReady", tBool),
	)

	tLifecycle = structType("pub.Lifecycle",
		opt("preDelete", pointerTo(tLifecycleHook)),
		opt("inPlaceUpdate", pointerTo(tLifecycleHook)),
		opt("preNormal", pointerTo(tLifecycleHook)),
	)

	tCloneSetStatus = structType("CloneSetStatus",
		opt("observedGeneration", tInt64),
		field("replicas", tInt32),
		field("readyReplicas", tInt32),
		field("availableReplicas", tInt32),
		field("updatedReplicas", tInt32),
		field("updatedReadyReplicas", tInt32),
		opt("updatedAvailableReplicas", tInt32),
		opt("expectedUpdatedReplicas", tInt32),
		opt("updateRevision", tString),
		opt("currentRevision", tString),
		opt("collisionCount", pointerTo(tInt32)),
		opt("conditions", sliceOf(structType("CloneSetCondition",
			field("type", tString),
			field("status", tString),
			opt("lastUpdateTime", tTime),
			opt("lastTransitionTime", tTime),
			opt("reason", tString),
			opt("message", tString),
		))),
		opt("labelSelector", tString),
	)
)

// cloneSetType is a CloneSet of one API version: TypeMeta, metadata, spec
// and status, with the spec's scale and update strategies of that version.
func cloneSetType(version string, scaleStrategy, updateStrategy *typeInfo) *typeInfo {
	return structType(version+".CloneSet",
		opt("kind", tString),
		opt("apiVersion", tString),
		opt("metadata", tObjectMeta),
		opt("spec", structType(version+".CloneSetSpec",
			opt("replicas", pointerTo(tInt32)),
			field("selector", pointerTo(tLabelSelector)),
			field("template", tTemplate),
			opt("volumeClaimTemplates", sliceOf(tClaim)),
			opt("scaleStrategy", scaleStrategy),
			opt("updateStrategy", updateStrategy),
			opt("revisionHistoryLimit", pointerTo(tInt32)),
			opt("minReadySeconds", tInt32),
			opt("lifecycle", pointerTo(tLifecycle)),
			opt("progressDeadlineSeconds", pointerTo(tInt32)),
		)),
		opt("status", tCloneSetStatus),
	)
}

// The CloneSet of each version.
var (
	tCloneSetV1alpha1 = cloneSetType("v1alpha1",
		structType("v1alpha1.CloneSetScaleStrategy",
			opt("podsToDelete", tStrings),
			opt("maxUnavailable", pointerTo(tIntOrString)),
			opt("disablePVCReuse", tBool),
		),
		structType("v1alpha1.CloneSetUpdateStrategy",
			opt("type", tString),
			opt("partition", pointerTo(tIntOrString)),
			opt("maxUnavailable", pointerTo(tIntOrString)),
			opt("maxSurge", pointerTo(tIntOrString)),
			opt("paused", tBool),
			opt("priorityStrategy", pointerTo(tUpdatePriorityStrategy)),
			opt("scatterStrategy", tScatterStrategy),
			opt("inPlaceUpdateStrategy", pointerTo(tInPlaceUpdateStrategy)),
		),
	)

	tCloneSetV1beta1 = cloneSetType("v1beta1",
		structType("v1beta1.CloneSetScaleStrategy",
			opt("podsToDelete", tStrings),
			opt("maxUnavailable", pointerTo(tIntOrString)),
			opt("enablePVCReuse", tBool),
			opt("excludePreparingDelete", tBool),
		),
		structType("v1beta1.CloneSetUpdateStrategy",
			opt("type", tString),
			opt("rollingUpdate", pointerTo(structType("v1beta1.RollingUpdateCloneSetStrategy",
				opt("partition", pointerTo(tIntOrString)),
				opt("maxUnavailable", pointerTo(tIntOrString)),
				opt("maxSurge", pointerTo(tIntOrString)),
				opt("podUpdatePolicy", tString),
				opt("paused", tBool),
				opt("priorityStrategy", pointerTo(tUpdatePriorityStrategy)),
				opt("scatterStrategy", tScatterStrategy),
				opt("inPlaceUpdateStrategy", pointerTo(tInPlaceUpdateStrategy)),
			))),
		),
	)
)
