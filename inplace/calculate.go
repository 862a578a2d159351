package inplace

import (
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/podtemplate"
)

// Options are the inputs of Calculate besides the two revisions
// (update-and-ordering 4.2).
type Options struct {
	// Policy is rollingUpdate.podUpdatePolicy. With model.PolicyInPlaceOnly the
	// volume-claim-template comparison of 4.4 is skipped.
	Policy string
	// Gates are the controller feature gates; RecreatePodWhenChangeVCTInCloneSetGate,
	// InPlaceWorkloadVerticalScaling and InPlaceUpdateEnvFromMetadata matter here.
	Gates model.FeatureGates
}

// Spec describes what an in-place update from one revision to another would change
// (upstream's "update spec"), or why no in-place update is possible.
type Spec struct {
	// Feasible is true when the pod can be moved to the target revision in place.
	Feasible bool
	// Reason says, when Feasible is false, why not, naming the field
	// ("spec.containers[0].env[1] added"). Empty when Feasible.
	Reason string
	// Revision is the name of the target revision.
	Revision string
	// Images maps a container name (as named by the old template) to its new image.
	// Nil when no image changes.
	Images map[string]string
	// Resources maps a container name to the cpu/memory limits and requests that
	// change (only the changed keys; needs InPlaceWorkloadVerticalScaling). Nil when
	// no resource changes.
	Resources map[string]model.ResourceRequirements
	// MetadataChanged is true when the template metadata differs at all.
	MetadataChanged bool
	// EnvFromMetadata is true when at least one added or changed label or
	// annotation is referenced by a container env fieldRef
	// (InPlaceUpdateEnvFromMetadata); completion then waits for the runtime hashes.
	EnvFromMetadata bool
	// RefMetadata maps a container name to the labels and annotations its env
	// references that the update sets. Nil when EnvFromMetadata is false.
	RefMetadata map[string]RefMetadata
	// Metadata is the plain metadata patch: the metadata differences that no
	// container env references.
	Metadata MetadataPatch
}

// RefMetadata is the set of labels and annotations a container's env refers to
// through fieldRef, with their new values.
type RefMetadata struct {
	// Labels are the referenced labels and their new values.
	Labels map[string]string
	// Annotations are the referenced annotations and their new values.
	Annotations map[string]string
}

// MetadataPatch is the plain metadata patch of an in-place update.
type MetadataPatch struct {
	// SetLabels are labels added or changed, with their new values.
	SetLabels map[string]string
	// RemoveLabels are labels removed, sorted.
	RemoveLabels []string
	// SetAnnotations are annotations added or changed, with their new values.
	SetAnnotations map[string]string
	// RemoveAnnotations are annotations removed, sorted.
	RemoveAnnotations []string
	// Other names the other metadata members that differ (for example
	// "finalizers"), sorted.
	Other []string
}

// Empty reports whether the patch changes nothing.
func (m MetadataPatch) Empty() bool {
	return len(m.SetLabels) == 0 && len(m.RemoveLabels) == 0 && len(m.SetAnnotations) == 0 &&
		len(m.RemoveAnnotations) == 0 && len(m.Other) == 0
}

// Summary describes the update in one line, listing every change in sorted order,
// for example "images main=nginx:2; metadata labels +new=y". An infeasible spec is
// summarized by its reason.
func (s Spec) Summary() string {
	if !s.Feasible {
		return "not possible in place: " + s.Reason
	}
	var parts []string
	if len(s.Images) > 0 {
		var xs []string
		for _, c := range model.SortedKeys(s.Images) {
			xs = append(xs, c+"="+s.Images[c])
		}
		parts = append(parts, "images "+strings.Join(xs, ", "))
	}
	if len(s.Resources) > 0 {
		var xs []string
		for _, c := range model.SortedKeys(s.Resources) {
			r := s.Resources[c]
			var ys []string
			for _, k := range model.SortedKeys(r.Limits) {
				ys = append(ys, "limits."+k+"="+r.Limits[k].String())
			}
			for _, k := range model.SortedKeys(r.Requests) {
				ys = append(ys, "requests."+k+"="+r.Requests[k].String())
			}
			xs = append(xs, c+" "+strings.Join(ys, " "))
		}
		parts = append(parts, "resources "+strings.Join(xs, ", "))
	}
	if len(s.RefMetadata) > 0 {
		var xs []string
		for _, c := range model.SortedKeys(s.RefMetadata) {
			m := s.RefMetadata[c]
			var ys []string
			for _, k := range model.SortedKeys(m.Labels) {
				ys = append(ys, "label "+k+"="+m.Labels[k])
			}
			for _, k := range model.SortedKeys(m.Annotations) {
				ys = append(ys, "annotation "+k+"="+m.Annotations[k])
			}
			xs = append(xs, c+" "+strings.Join(ys, " "))
		}
		parts = append(parts, "env from metadata "+strings.Join(xs, ", "))
	}
	if !s.Metadata.Empty() {
		var xs []string
		for _, k := range model.SortedKeys(s.Metadata.SetLabels) {
			xs = append(xs, "label +"+k+"="+s.Metadata.SetLabels[k])
		}
		for _, k := range s.Metadata.RemoveLabels {
			xs = append(xs, "label -"+k)
		}
		for _, k := range model.SortedKeys(s.Metadata.SetAnnotations) {
			xs = append(xs, "annotation +"+k+"="+s.Metadata.SetAnnotations[k])
		}
		for _, k := range s.Metadata.RemoveAnnotations {
			xs = append(xs, "annotation -"+k)
		}
		for _, k := range s.Metadata.Other {
			xs = append(xs, k+" changed")
		}
		parts = append(parts, "metadata "+strings.Join(xs, ", "))
	}
	if len(parts) == 0 {
		return "no change (empty in-place update)"
	}
	return strings.Join(parts, "; ")
}

func infeasible(format string, args ...any) Spec {
	return Spec{Reason: fmt.Sprintf(format, args...)}
}

// Calculate decides whether a pod of revision old can be updated in place to
// revision target, and what the update would change (update-and-ordering 4.3, 4.4).
//
// It is infeasible when either revision is nil; when the
// RecreatePodWhenChangeVCTInCloneSetGate gate is on, the policy is not InPlaceOnly,
// both revisions carry the volume-claim-template hash annotation and the hashes
// differ; or when the template trees differ anywhere but in metadata below the
// metadata object, in a container image, or (with InPlaceWorkloadVerticalScaling) in
// the value of an existing cpu/memory limit or request without a change of QoS class.
//
// The trees compared are the revisions' templates as the API types write them
// (podtemplate.RevisionTemplate of Template.Raw): what upstream's own revisions store,
// so that a revision written otherwise (by the library before it wrote
// upstream's data, by hand) compares as upstream's would: a member only one
// of two revisions writes out ("resources":{}), an unknown member or a
// quantity's spelling is no difference. When either template is not readable
// by the API types both are compared as written. A revision whose Raw is nil
// (built in code) is compared through a tree rendered from its typed
// template.
func Calculate(old, target *model.Revision, opts Options) Spec {
	if old == nil {
		return infeasible("old revision not found")
	}
	if target == nil {
		return infeasible("target revision not found")
	}
	if opts.Gates.RecreatePodWhenChangeVCTInCloneSetGate && opts.Policy != model.PolicyInPlaceOnly {
		a, okA := old.VCTHash()
		b, okB := target.VCTHash()
		if okA && okB && a != b {
			return infeasible("volume claim templates changed (RecreatePodWhenChangeVCTInCloneSetGate): hash %q of %s differs from %q of %s",
				a, old.Name, b, target.Name)
		}
	}
	oldT, newT := templateTrees(old, target)
	ops := diffTrees(oldT, newT)
	oldContainers := list(member(oldT, "spec"), "containers")

	spec := Spec{Revision: target.Name}
	var metaOps []op
	type badOp struct {
		o      op
		reason string
	}
	var bad []badOp
	for _, o := range ops {
		switch {
		case o.under("metadata"):
			metaOps = append(metaOps, o)
		case o.at("metadata"):
			switch o.kind {
			case opAdd:
				bad = append(bad, badOp{o, fmt.Sprintf("template metadata missing in old revision %s", old.Name)})
			case opRemove:
				bad = append(bad, badOp{o, fmt.Sprintf("template metadata missing in target revision %s", target.Name)})
			default:
				bad = append(bad, badOp{o, "template metadata changed as a whole"})
			}
		case !o.under("spec"):
			bad = append(bad, badOp{o, o.describe()})
		case o.kind != opReplace:
			bad = append(bad, badOp{o, o.describe()})
		case o.at("spec", "containers", "#", "image"):
			img, ok := o.value.(string)
			if !ok {
				bad = append(bad, badOp{o, o.describe() + " to a value that is not a string"})
				continue
			}
			c, _ := canonValue(oldContainers[o.path[2].index]).(map[string]any)
			if spec.Images == nil {
				spec.Images = map[string]string{}
			}
			spec.Images[text(c, "name")] = img
		case o.under("spec", "containers", "#", "resources"):
			if !opts.Gates.InPlaceWorkloadVerticalScaling {
				bad = append(bad, badOp{o, o.describe() + " (resource changes need InPlaceWorkloadVerticalScaling)"})
				continue
			}
			if reason := addResource(&spec, o, oldContainers); reason != "" {
				bad = append(bad, badOp{o, reason})
			}
		default:
			bad = append(bad, badOp{o, o.describe()})
		}
	}
	if len(bad) > 0 {
		// A renamed or reordered container explains everything else at its index.
		pick := bad[0]
		for _, b := range bad {
			if b.o.at("spec", "containers", "#", "name") {
				pick = b
				break
			}
		}
		reason := pick.reason
		if len(bad) > 1 {
			reason += fmt.Sprintf(" (and %d more differences)", len(bad)-1)
		}
		return Spec{Reason: reason}
	}
	if opts.Gates.InPlaceWorkloadVerticalScaling && len(spec.Resources) > 0 {
		qOld := QoSClass(podSpecFromTree(oldT))
		qNew := QoSClass(podSpecFromTree(newT))
		if qOld != qNew {
			return infeasible("resources change the QoS class from %s to %s", qOld, qNew)
		}
	}
	spec.Feasible = true
	if len(metaOps) > 0 {
		spec.MetadataChanged = true
		calculateMetadata(&spec, oldT, newT, metaOps, opts.Gates.InPlaceUpdateEnvFromMetadata)
	}
	return spec
}

// addResource records one changed resource value; it returns why the change cannot
// be applied in place, or "".
func addResource(spec *Spec, o op, oldContainers []any) string {
	if len(o.path) != 6 {
		return o.describe() + " (only a cpu or memory limit or request can be resized in place)"
	}
	section, name := o.path[4].key, o.path[5].key
	if o.path[4].isIdx || o.path[5].isIdx || (section != "limits" && section != "requests") {
		return o.describe() + " (only a cpu or memory limit or request can be resized in place)"
	}
	if name != "cpu" && name != "memory" {
		return fmt.Sprintf("%s (resource %s cannot be resized in place)", o.describe(), name)
	}
	if kindOf(o.value) != "string" && kindOf(o.value) != "number" {
		return o.describe() + " to a value that is not a quantity"
	}
	q, err := model.ParseQuantity(scalarText(o.value))
	if err != nil {
		return fmt.Sprintf("%s to an invalid quantity: %v", o.describe(), err)
	}
	c, _ := canonValue(oldContainers[o.path[2].index]).(map[string]any)
	cname := text(c, "name")
	if spec.Resources == nil {
		spec.Resources = map[string]model.ResourceRequirements{}
	}
	r, ok := spec.Resources[cname]
	if !ok {
		r = model.ResourceRequirements{Limits: map[string]model.Quantity{}, Requests: map[string]model.Quantity{}}
	}
	if section == "limits" {
		r.Limits[name] = q
	} else {
		r.Requests[name] = q
	}
	spec.Resources[cname] = r
	return ""
}

// calculateMetadata splits the metadata differences into env-referenced keys and the
// plain metadata patch (update-and-ordering 4.3 "Env from metadata").
func calculateMetadata(spec *Spec, oldT, newT map[string]any, metaOps []op, envGate bool) {
	oldMeta, newMeta := member(oldT, "metadata"), member(newT, "metadata")
	oldMaps := map[string]map[string]string{"labels": stringMap(member(oldMeta, "labels")), "annotations": stringMap(member(oldMeta, "annotations"))}
	newMaps := map[string]map[string]string{"labels": stringMap(member(newMeta, "labels")), "annotations": stringMap(member(newMeta, "annotations"))}
	if envGate {
		containers := containersFromTree(member(newT, "spec"), "containers")
		for _, o := range metaOps {
			if o.kind != opAdd && o.kind != opReplace {
				continue
			}
			if len(o.path) != 3 || o.path[1].isIdx || o.path[2].isIdx {
				continue
			}
			kind, key := o.path[1].key, o.path[2].key
			if kind != "labels" && kind != "annotations" {
				continue
			}
			var fp string
			if kind == "labels" {
				fp = "metadata.labels['" + key + "']"
			} else {
				fp = "metadata.annotations['" + key + "']"
			}
			for _, c := range containers {
				if !referencesField(c, fp) {
					continue
				}
				if spec.RefMetadata == nil {
					spec.RefMetadata = map[string]RefMetadata{}
				}
				rm := spec.RefMetadata[c.Name]
				if kind == "labels" {
					if rm.Labels == nil {
						rm.Labels = map[string]string{}
					}
					rm.Labels[key] = scalarText(o.value)
				} else {
					if rm.Annotations == nil {
						rm.Annotations = map[string]string{}
					}
					rm.Annotations[key] = scalarText(o.value)
				}
				spec.RefMetadata[c.Name] = rm
				spec.EnvFromMetadata = true
				delete(oldMaps[kind], key)
				delete(newMaps[kind], key)
			}
		}
	}
	m := &spec.Metadata
	m.SetLabels, m.RemoveLabels = mapPatch(oldMaps["labels"], newMaps["labels"])
	m.SetAnnotations, m.RemoveAnnotations = mapPatch(oldMaps["annotations"], newMaps["annotations"])
	var others []op
	diffObjects(without(oldMeta, "labels", "annotations"), without(newMeta, "labels", "annotations"), nil, &others)
	seen := map[string]bool{}
	for _, o := range others {
		if k := o.path[0].key; !seen[k] {
			seen[k] = true
			m.Other = append(m.Other, k)
		}
	}
}

// referencesField is upstream's IsReferencedMetadata: an env var without a literal
// value whose fieldRef names fieldPath, SIDECARSET_VERSION(_ALT) excluded.
func referencesField(c model.Container, fieldPath string) bool {
	for _, e := range c.Env {
		if e.Name == "SIDECARSET_VERSION" || e.Name == "SIDECARSET_VERSION_ALT" {
			continue
		}
		if e.Value != "" || e.FieldPath == "" {
			continue
		}
		if e.FieldPath == fieldPath {
			return true
		}
	}
	return false
}

func mapPatch(old, cur map[string]string) (map[string]string, []string) {
	var set map[string]string
	var remove []string
	for _, k := range model.SortedKeys(cur) {
		if v, ok := old[k]; !ok || v != cur[k] {
			if set == nil {
				set = map[string]string{}
			}
			set[k] = cur[k]
		}
	}
	for _, k := range model.SortedKeys(old) {
		if _, ok := cur[k]; !ok {
			remove = append(remove, k)
		}
	}
	return set, remove
}

func without(m map[string]any, keys ...string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

func stringMap(m map[string]any) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = scalarText(v)
	}
	return out
}

// templateTrees returns the trees Calculate diffs for two revisions: their
// templates as the API types write them, or both as written when either is
// not readable by the API types (a mix would differ in every member only one
// of the forms writes).
func templateTrees(old, target *model.Revision) (oldT, newT map[string]any) {
	oldT, newT = writtenTree(old), writtenTree(target)
	typedOld, errOld := podtemplate.RevisionTemplate(oldT)
	typedNew, errNew := podtemplate.RevisionTemplate(newT)
	if errOld == nil && errNew == nil {
		return typedOld, typedNew
	}
	return oldT, newT
}

// writtenTree returns a revision's template as written, without the "$patch"
// member of stored revisions.
func writtenTree(r *model.Revision) map[string]any {
	if r.Template.Raw == nil && !r.HasTemplate && typedTemplateEmpty(r.Template) {
		return map[string]any{}
	}
	tree := r.Template.Tree()
	if _, ok := tree["$patch"]; ok {
		return without(tree, "$patch")
	}
	return tree
}

func typedTemplateEmpty(t model.PodTemplate) bool {
	s := t.Spec
	return len(t.Labels) == 0 && len(t.Annotations) == 0 && len(s.Containers) == 0 && len(s.InitContainers) == 0 &&
		len(s.Volumes) == 0 && len(s.ReadinessGates) == 0 && len(s.TopologySpreadConstraints) == 0 &&
		s.NodeName == "" && s.RestartPolicy == "" && s.ActiveDeadlineSeconds == nil
}

// containersFromTree reads the containers (key "containers" or "initContainers") of
// a pod spec tree: names, env and resources. Unparsable quantities are left out.
func containersFromTree(spec map[string]any, key string) []model.Container {
	var out []model.Container
	for _, x := range list(spec, key) {
		cm, _ := canonValue(x).(map[string]any)
		c := model.Container{Name: text(cm, "name"), Image: text(cm, "image")}
		for _, ex := range list(cm, "env") {
			em, _ := canonValue(ex).(map[string]any)
			e := model.EnvVar{Name: text(em, "name")}
			if v, ok := em["value"]; ok && v != nil {
				e.Value, e.HasValue = scalarText(v), true
			}
			e.FieldPath = text(member(member(em, "valueFrom"), "fieldRef"), "fieldPath")
			c.Env = append(c.Env, e)
		}
		res := member(cm, "resources")
		c.Resources.Limits = quantities(member(res, "limits"))
		c.Resources.Requests = quantities(member(res, "requests"))
		out = append(out, c)
	}
	return out
}

func quantities(m map[string]any) map[string]model.Quantity {
	if len(m) == 0 {
		return nil
	}
	out := map[string]model.Quantity{}
	for k, v := range m {
		if kind := kindOf(v); kind != "string" && kind != "number" {
			continue
		}
		if q, err := model.ParseQuantity(scalarText(v)); err == nil {
			out[k] = q
		}
	}
	return out
}

func podSpecFromTree(t map[string]any) model.PodSpec {
	spec := member(t, "spec")
	return model.PodSpec{
		Containers:     containersFromTree(spec, "containers"),
		InitContainers: containersFromTree(spec, "initContainers"),
	}
}

// QoS classes.
const (
	QoSBestEffort = "BestEffort"
	QoSBurstable  = "Burstable"
	QoSGuaranteed = "Guaranteed"
)

// QoSClass computes the pod QoS class of a pod spec the way Kubernetes'
// ComputePodQOS does without pod-level resources (update-and-ordering 4.3): the
// strictly positive cpu and memory requests and limits are summed over all
// containers and init containers; none at all is BestEffort; Guaranteed needs every
// container to have positive cpu and memory limits, request totals equal to limit
// totals, and both totals to cover the same resources; anything else is Burstable.
func QoSClass(spec model.PodSpec) string {
	requests := map[string]*big.Rat{}
	limits := map[string]*big.Rat{}
	guaranteed := true
	all := append(append([]model.Container(nil), spec.Containers...), spec.InitContainers...)
	add := func(sum map[string]*big.Rat, name string, q model.Quantity) {
		if sum[name] == nil {
			sum[name] = new(big.Rat)
		}
		sum[name].Add(sum[name], q.Rat())
	}
	for _, c := range all {
		for _, name := range model.SortedKeys(c.Resources.Requests) {
			if q := c.Resources.Requests[name]; qosResource(name) && q.Sign() > 0 {
				add(requests, name, q)
			}
		}
		found := map[string]bool{}
		for _, name := range model.SortedKeys(c.Resources.Limits) {
			if q := c.Resources.Limits[name]; qosResource(name) && q.Sign() > 0 {
				found[name] = true
				add(limits, name, q)
			}
		}
		if !found["cpu"] || !found["memory"] {
			guaranteed = false
		}
	}
	if len(requests) == 0 && len(limits) == 0 {
		return QoSBestEffort
	}
	if guaranteed {
		names := make([]string, 0, len(requests))
		for n := range requests {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if l, ok := limits[n]; !ok || l.Cmp(requests[n]) != 0 {
				guaranteed = false
				break
			}
		}
	}
	if guaranteed && len(requests) == len(limits) {
		return QoSGuaranteed
	}
	return QoSBurstable
}

func qosResource(name string) bool { return name == "cpu" || name == "memory" }
