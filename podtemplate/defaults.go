package podtemplate

import (
	"slices"
	"strconv"
)

// Default returns a pod template as kruise's CloneSet mutating webhook
// leaves it when it injects the template's defaults (on every create, and on
// an update that changes the template): the typed encoding of the template
// (Encode: unknown members dropped, members the types always write written,
// quantities canonical) with every Kubernetes core default kruise's
// SetDefaultPodSpec sets, as kruise v1.9.0 built against Kubernetes 1.32
// sets them, its feature gates at their defaults. docs/spec/pod-template-defaults.md
// lists the rules one by one:
//
//   - the pod spec: dnsPolicy ClusterFirst, restartPolicy Always, an empty
//     securityContext, terminationGracePeriodSeconds 30, schedulerName
//     default-scheduler;
//   - every volume: an emptyDir when it names no source; a hostPath's type
//     ""; the defaultMode 420 (0644) of secret, configMap, downwardAPI and
//     projected volumes; apiVersion v1 in a downward API item's fieldRef; a
//     projected service account token's expirationSeconds 3600;
//   - containers: imagePullPolicy Always; init containers: imagePullPolicy
//     Always for an image tagged latest or untagged, else IfNotPresent; both:
//     terminationMessagePath /dev/termination-log and
//     terminationMessagePolicy File;
//   - containers, init containers and ephemeral containers: port protocol
//     TCP; apiVersion v1 in an env fieldRef; the resource limits and
//     requests rounded up to millis; probes' timeoutSeconds 1, periodSeconds
//     10, successThreshold 1, failureThreshold 3; the path "/" and scheme
//     HTTP of an httpGet in a probe or a postStart or preStop hook;
//   - the pod's overhead rounded up to millis.
//
// The template is a JSON-like tree as Encode takes it; it is not modified.
// A member the types refuse is an *Error whose path starts at the template.
func Default(template map[string]any) (map[string]any, error) {
	typed, err := Encode(template)
	if err != nil {
		return nil, err
	}
	if err := defaultPodSpec(object(typed["spec"]), member(template, "spec")); err != nil {
		return nil, inside(err, "spec")
	}
	return typed, nil
}

// EncodeClaimTemplate returns a volume claim template (a
// PersistentVolumeClaim object tree) as the Kubernetes API types give it
// back after reading it, with the rules of Encode; a member the types refuse
// is an *Error whose path starts at the claim.
func EncodeClaimTemplate(claim map[string]any) (map[string]any, error) {
	v, err := walker{build: true}.value(claim, persistentVolumeClaimType)
	if err != nil {
		return nil, err
	}
	m, _ := v.out.(map[string]any)
	return m, nil
}

// DefaultClaimTemplate returns one volume claim template as kruise's CloneSet
// mutating webhook leaves it when it injects the template's defaults: its
// typed encoding (EncodeClaimTemplate) with status.phase Pending when it has
// none (SetDefaults_PersistentVolumeClaim; the spec's volumeMode is not
// defaulted, as kruise calls no spec defaulting) and the quantities of
// spec.resources.limits, spec.resources.requests and status.capacity
// rounded up to millis. The claim is not modified.
func DefaultClaimTemplate(claim map[string]any) (map[string]any, error) {
	typed, err := EncodeClaimTemplate(claim)
	if err != nil {
		return nil, err
	}
	status := object(typed["status"])
	setIfZero(status, "phase", "Pending")
	spec, rawSpec := object(typed["spec"]), member(claim, "spec")
	resources, rawResources := object(spec["resources"]), member(rawSpec, "resources")
	for _, name := range []string{"limits", "requests"} {
		if err := roundUpToMillis(resources, rawResources, name); err != nil {
			return nil, inside(err, "spec.resources")
		}
	}
	if err := roundUpToMillis(status, member(claim, "status"), "capacity"); err != nil {
		return nil, inside(err, "status")
	}
	return typed, nil
}

// The values Kubernetes' defaulting writes.
const (
	defaultFileMode          = int64(0o644) // secret, configMap, downwardAPI, projected volumes
	defaultGracePeriod       = int64(30)
	defaultTokenExpiration   = int64(3600) // seconds: one hour
	defaultTerminationPath   = "/dev/termination-log"
	defaultFieldRefVersion   = "v1"
	defaultSchedulerName     = "default-scheduler"
	milliScale               = -3
	pullAlways, pullIfAbsent = "Always", "IfNotPresent"
)

// The types whose empty value a default writes, and the volume type, by
// their index in the table.
var (
	podSecurityContextType, _ = typeAt(podTemplateSpecType, "spec", "securityContext")
	emptyDirType, _           = typeAt(podTemplateSpecType, "spec", "volumes", "emptyDir")
	volumeType, _             = typeAt(podTemplateSpecType, "spec", "volumes")
)

// defaultPodSpec sets the defaults of a typed pod spec in place; raw is the
// spec as the caller wrote it (where quantities are read again to round
// them).
func defaultPodSpec(spec map[string]any, raw any) error {
	if spec == nil {
		return nil
	}
	// SetDefaults_PodSpec.
	setIfZero(spec, "dnsPolicy", "ClusterFirst")
	setIfZero(spec, "restartPolicy", "Always")
	setIfNil(spec, "securityContext", emptyValue(podSecurityContextType))
	setIfNil(spec, "terminationGracePeriodSeconds", defaultGracePeriod)
	setIfZero(spec, "schedulerName", defaultSchedulerName)
	// kruise's SetDefaultPodVolumes.
	for _, v := range list(spec["volumes"]) {
		defaultVolume(object(v))
	}
	// The containers of each kind: init containers and containers get
	// SetDefaults_Container (containers after their pull policy Always),
	// ephemeral containers only what every kind gets.
	for _, kind := range []string{"initContainers", "containers", "ephemeralContainers"} {
		raws := list(member(raw, kind))
		for i, c := range list(spec[kind]) {
			container := object(c)
			if container == nil {
				continue
			}
			switch kind {
			case "containers":
				setIfZero(container, "imagePullPolicy", pullAlways)
				defaultContainer(container)
			case "initContainers":
				defaultContainer(container)
			}
			if err := defaultEveryContainer(container, at(raws, i)); err != nil {
				return inside(err, kind+"["+strconv.Itoa(i)+"]")
			}
		}
	}
	return roundUpToMillis(spec, raw, "overhead")
}

// defaultContainer is SetDefaults_Container: the pull policy from the
// image's tag, the termination message's path and policy.
func defaultContainer(c map[string]any) {
	if isZero(c["imagePullPolicy"]) {
		image, _ := c["image"].(string)
		policy := pullIfAbsent
		if pullsAlways(image) {
			policy = pullAlways
		}
		c["imagePullPolicy"] = policy
	}
	setIfZero(c, "terminationMessagePath", defaultTerminationPath)
	setIfZero(c, "terminationMessagePolicy", "File")
}

// defaultEveryContainer sets what kruise defaults in a container of any
// kind: ports, env field references, resources, probes, lifecycle hooks.
func defaultEveryContainer(c map[string]any, raw any) error {
	for _, p := range list(c["ports"]) {
		setIfZero(object(p), "protocol", "TCP")
	}
	for _, e := range list(c["env"]) {
		defaultFieldRef(object(member(e, "valueFrom", "fieldRef")))
	}
	resources, rawResources := object(c["resources"]), member(raw, "resources")
	for _, name := range []string{"limits", "requests"} {
		if err := roundUpToMillis(resources, rawResources, name); err != nil {
			return inside(err, "resources")
		}
	}
	for _, name := range []string{"livenessProbe", "readinessProbe", "startupProbe"} {
		if probe := object(c[name]); probe != nil {
			defaultProbe(probe)
			defaultHTTPGet(object(probe["httpGet"]))
		}
	}
	for _, hook := range []string{"postStart", "preStop"} {
		defaultHTTPGet(object(member(c, "lifecycle", hook, "httpGet")))
	}
	return nil
}

// defaultProbe is SetDefaults_Probe.
func defaultProbe(p map[string]any) {
	setIfZero(p, "timeoutSeconds", int64(1))
	setIfZero(p, "periodSeconds", int64(10))
	setIfZero(p, "successThreshold", int64(1))
	setIfZero(p, "failureThreshold", int64(3))
}

// defaultHTTPGet is SetDefaults_HTTPGetAction (nothing for a nil action).
func defaultHTTPGet(a map[string]any) {
	setIfZero(a, "path", "/")
	setIfZero(a, "scheme", "HTTP")
}

// defaultFieldRef is SetDefaults_ObjectFieldSelector (nothing for nil).
func defaultFieldRef(f map[string]any) {
	setIfZero(f, "apiVersion", defaultFieldRefVersion)
}

// defaultVolume is kruise's SetDefaultPodVolumes for one volume.
func defaultVolume(v map[string]any) {
	if v == nil {
		return
	}
	// SetDefaults_Volume: a volume naming no source is an emptyDir. (Its
	// pull policy of an image volume is behind the ImageVolume gate, off in
	// Kubernetes 1.32: not set.)
	if !hasSource(v) {
		v["emptyDir"] = emptyValue(emptyDirType)
	}
	setIfNil(object(v["hostPath"]), "type", "")
	for _, source := range []string{"secret", "configMap", "downwardAPI", "projected"} {
		setIfNil(object(v[source]), "defaultMode", defaultFileMode)
	}
	for _, item := range list(member(v, "downwardAPI", "items")) {
		defaultFieldRef(object(member(item, "fieldRef")))
	}
	for _, s := range list(member(v, "projected", "sources")) {
		for _, item := range list(member(s, "downwardAPI", "items")) {
			defaultFieldRef(object(member(item, "fieldRef")))
		}
		setIfNil(object(member(s, "serviceAccountToken")), "expirationSeconds", defaultTokenExpiration)
	}
}

// hasSource says whether a typed volume has a source: any of its pointer
// members (the members of v1.VolumeSource) set.
func hasSource(v map[string]any) bool {
	for _, f := range corev1Types[volumeType].fields {
		if corev1Types[f.typ].kind == kindPointer && v[f.name] != nil {
			return true
		}
	}
	return false
}

// roundUpToMillis is SetDefaults_ResourceList on the list m[name]: each
// quantity rounded up to millis. The quantities are read again from raw (the
// same member as the caller wrote it): the rounding works on the value and
// the suffix family as read, which the canonical text alone does not keep.
func roundUpToMillis(m map[string]any, raw any, name string) error {
	quantities := object(m[name])
	if len(quantities) == 0 {
		return nil
	}
	written := object(member(raw, name))
	if !validKeys(written) { // keys as they read back, as the typed list holds them
		read := make(map[string]any, len(written))
		for _, k := range sortedKeys(written) {
			read[validUTF8(k)] = written[k]
		}
		written = read
	}
	keys := make([]string, 0, len(quantities))
	for k := range quantities {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v, err := ReadJSONValue(written[k], true)
		if err != nil {
			return inside(err, name+"["+k+"]")
		}
		q, err := readQuantity(v)
		if err != nil {
			return inside(err, name+"["+k+"]")
		}
		q.roundUp(milliScale)
		quantities[k] = q.String()
	}
	return nil
}

// setIfZero sets m[name] when it is absent, null, "", false or 0 (the zero
// value of a string or number member), as a defaulting function tests a
// string or integer field; nothing for a nil m.
func setIfZero(m map[string]any, name string, value any) {
	if m != nil && isZero(m[name]) {
		m[name] = value
	}
}

// setIfNil sets m[name] when it is absent or null, as a defaulting function
// tests a pointer field; nothing for a nil m.
func setIfNil(m map[string]any, name string, value any) {
	if m != nil && m[name] == nil {
		m[name] = value
	}
}

// isZero says whether a typed scalar is its type's zero value (or absent).
func isZero(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case int64:
		return x == 0
	case bool:
		return !x
	}
	return false
}

// emptyValue is the typed encoding of the empty value of table type t (what
// a default writes for an empty struct).
func emptyValue(t int) any {
	e, err := walker{build: true}.value(map[string]any{}, t)
	if err != nil || e.out == nil {
		return map[string]any{}
	}
	return e.out
}

// typeAt is the struct type reached from table type t through the named
// members (pointers and lists passed through), ok false when a member is
// missing.
func typeAt(t int, names ...string) (int, bool) {
	t = structBehind(t)
	for _, name := range names {
		i := slices.IndexFunc(corev1Types[t].fields, func(f fieldInfo) bool { return f.name == name })
		if i < 0 {
			return 0, false
		}
		t = structBehind(corev1Types[t].fields[i].typ)
	}
	return t, true
}

// structBehind passes through pointers and lists to the element type.
func structBehind(t int) int {
	for corev1Types[t].kind == kindPointer || corev1Types[t].kind == kindSlice {
		t = corev1Types[t].elem
	}
	return t
}

// member follows object members from v; nil when one is missing or v is not
// an object (a json.RawMessage read as its value).
func member(v any, names ...string) any {
	for _, name := range names {
		v = object(v)[name]
	}
	return v
}

// object is v as an object, or nil (a json.RawMessage read as its value).
func object(v any) map[string]any {
	v, _ = ReadJSONValue(v, false)
	m, _ := v.(map[string]any)
	return m
}

// list is v as a list, or nil (a json.RawMessage read as its value).
func list(v any) []any {
	v, _ = ReadJSONValue(v, false)
	l, _ := v.([]any)
	return l
}

// at is the i-th element of l, or nil.
func at(l []any, i int) any {
	if i < len(l) {
		return l[i]
	}
	return nil
}

// DefaultRewritesQuantities reports whether Default's rounding of a
// template's resource lists (the pod's overhead, each container's limits
// and requests: resource.Quantity.RoundUp(-3)) rewrites how one of their
// quantities holds its value, which reflect.DeepEqual of the Go values sees
// even where the JSON written stays the same ("0.5Gi" is written "512Mi"
// before and after; "1" is not rewritten). kruise's mutating webhook
// answers with a patch exactly when the defaults change its typed object
// as reflect.DeepEqual sees it. A quantity the types refuse counts as no
// rewrite (Default refuses it).
func DefaultRewritesQuantities(template map[string]any) bool {
	spec := member(template, "spec")
	lists := []any{member(spec, "overhead")}
	for _, kind := range []string{"initContainers", "containers", "ephemeralContainers"} {
		for _, c := range list(member(spec, kind)) {
			lists = append(lists, member(c, "resources", "limits"), member(c, "resources", "requests"))
		}
	}
	return rewritesQuantities(lists)
}

// DefaultClaimRewritesQuantities is DefaultRewritesQuantities for
// DefaultClaimTemplate's rounding of a claim template (spec.resources'
// limits and requests, status.capacity).
func DefaultClaimRewritesQuantities(claim map[string]any) bool {
	resources := member(claim, "spec", "resources")
	return rewritesQuantities([]any{member(resources, "limits"), member(resources, "requests"), member(claim, "status", "capacity")})
}

// rewritesQuantities says whether RoundUp(-3) rewrites a quantity of the
// lists: one held as an int64Amount with a scale below milli (rescaled), or
// as an inf.Dec of any scale but milli (rounded into a new one).
func rewritesQuantities(lists []any) bool {
	for _, l := range lists {
		for _, v := range object(l) {
			v, err := ReadJSONValue(v, true)
			if err != nil {
				continue
			}
			q, err := readQuantity(v)
			if err != nil {
				continue
			}
			if h := q.held; (h.dec && h.scale != milliScale) || (!h.dec && h.scale < milliScale) {
				return true
			}
		}
	}
	return false
}
