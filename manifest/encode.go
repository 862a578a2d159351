package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/clonecore/cloneset/model"
)

// EncodeJSON writes a scenario as a kubectl-style manifest stream of JSON
// documents, one compact document a line: the clonesetcore/v1alpha1 Scenario
// settings (description, clock, every feature gate, controller flags), the
// CloneSet in the shape of its API version, then its ControllerRevisions,
// Nodes, Pods, PVCs and ImagePullJobs in the scenario's order. Load reads it back into a
// scenario that plans exactly like s.
//
// Every field the loader reads is written; empty ones are left out. A
// template's raw tree (PodTemplate.Raw, VolumeClaimTemplate.Raw) is written as
// it is, being the whole template as it was read; a template without one is
// written from its typed fields. Revisions are written in the CloneSet's
// namespace. The names listed in s.SetAside are not objects and are not
// written. A scenario without a clock gets none, and Load then takes the
// newest timestamp of the objects.
func EncodeJSON(s *model.Scenario) ([]byte, error) {
	docs, err := encEncodeDocs(s)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	for _, d := range docs {
		buf.Write(d)
		buf.WriteByte('\n')
	}
	return buf.Bytes(), nil
}

// EncodeYAML writes the documents of EncodeJSON as block-style YAML separated
// by "---" lines, with the members in the same order (see MarshalYAML).
func EncodeYAML(s *model.Scenario) ([]byte, error) {
	docs, err := encEncodeDocs(s)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	for i, d := range docs {
		y, err := MarshalYAML(d)
		if err != nil {
			return nil, fmt.Errorf("EncodeYAML: %v", err)
		}
		if i > 0 {
			buf.WriteString("---\n")
		}
		buf.Write(y)
	}
	return buf.Bytes(), nil
}

// encEncodeDocs renders every document of the scenario as compact JSON.
func encEncodeDocs(s *model.Scenario) ([][]byte, error) {
	if s == nil || s.CloneSet == nil {
		return nil, errors.New("encode: the scenario has no CloneSet")
	}
	cs := s.CloneSet
	objs := []encObject{encScenarioDoc(s), encCloneSetDoc(cs)}
	for _, r := range s.Revisions {
		if r != nil {
			objs = append(objs, encRevisionDoc(r, cs.Namespace))
		}
	}
	for _, n := range s.Nodes {
		if n != nil {
			objs = append(objs, encObject{{"apiVersion", "v1"}, {"kind", kindNode},
				{"metadata", encMetaDoc(encMetaFields{name: n.Name, labels: n.Labels})}})
		}
	}
	for _, p := range s.Pods {
		if p != nil {
			objs = append(objs, encPodDoc(p))
		}
	}
	for _, c := range s.PVCs {
		if c != nil {
			objs = append(objs, encPvcDoc(c))
		}
	}
	for _, j := range s.ImagePullJobs {
		if j != nil {
			objs = append(objs, encImagePullJobDoc(j))
		}
	}
	docs := make([][]byte, len(objs))
	for i, o := range objs {
		b, err := json.Marshal(o)
		if err != nil {
			return nil, fmt.Errorf("encode: document %d: %v", i+1, err)
		}
		docs[i] = b
	}
	return docs, nil
}

// encMember is one member of a JSON object; encObject keeps its members in
// order.
type encMember struct {
	key string
	val any
}

type encObject []encMember

// MarshalJSON writes the members in order.
func (o encObject) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		buf.Write(k)
		buf.WriteByte(':')
		v, err := json.Marshal(m.val)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.key, err)
		}
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// add appends a member unless its value is empty: "", false, 0 of the plain
// types, a nil pointer, an empty map or list, an empty object or the zero time.
// Pointers to numbers and booleans are written when set, even to 0 or false.
func (o *encObject) add(key string, val any) {
	switch v := val.(type) {
	case nil:
		return
	case string:
		if v == "" {
			return
		}
	case bool:
		if !v {
			return
		}
	case int32:
		if v == 0 {
			return
		}
	case int64:
		if v == 0 {
			return
		}
	case *int32:
		if v == nil {
			return
		}
		val = *v
	case *int64:
		if v == nil {
			return
		}
		val = *v
	case time.Time:
		if v.IsZero() {
			return
		}
		val = v.UTC().Format(time.RFC3339Nano)
	case map[string]string:
		if len(v) == 0 {
			return
		}
	case map[string]any:
		if v == nil {
			return
		}
	case []string:
		if len(v) == 0 {
			return
		}
	case []any:
		if len(v) == 0 {
			return
		}
	case []encObject:
		if len(v) == 0 {
			return
		}
	case encObject:
		if len(v) == 0 {
			return
		}
	case *model.IntOrPercent:
		if v == nil {
			return
		}
		if v.IsString {
			val = v.Str
		} else {
			val = v.Int
		}
	}
	*o = append(*o, encMember{key, val})
}

func encScenarioDoc(s *model.Scenario) encObject {
	g := s.Gates
	o := encObject{{"apiVersion", apiScenario}, {"kind", kindScenario}}
	o.add("description", s.Description)
	o.add("now", s.Now)
	o = append(o, encMember{"featureGates", encObject{
		{model.GateCloneSetPartitionRollback, g.CloneSetPartitionRollback},
		{model.GatePreparingUpdateAsUpdate, g.PreparingUpdateAsUpdate},
		{model.GateRecreatePodWhenChangeVCTInCloneSetGate, g.RecreatePodWhenChangeVCTInCloneSetGate},
		{model.GateInPlaceWorkloadVerticalScaling, g.InPlaceWorkloadVerticalScaling},
		{model.GateCloneSetShortHash, g.CloneSetShortHash},
		{model.GateInPlaceUpdateEnvFromMetadata, g.InPlaceUpdateEnvFromMetadata},
		{model.GatePreDownloadImageForInPlaceUpdate, g.PreDownloadImageForInPlaceUpdate},
	}})
	o = append(o, encMember{"controller", encObject{{"scalingExcludePreparingDelete", s.Controller.ScalingExcludePreparingDelete}}})
	return o
}

// encMetaFields are the metadata members the loader reads.
type encMetaFields struct {
	name, namespace, uid string
	resourceVersion      string
	generation           int64
	labels, annotations  map[string]string
	finalizers           []string
	created, deleted     time.Time
	owners               []model.OwnerReference
}

func encMetaDoc(m encMetaFields) encObject {
	var o encObject
	o.add("name", m.name)
	o.add("namespace", m.namespace)
	o.add("uid", m.uid)
	o.add("resourceVersion", m.resourceVersion)
	o.add("generation", m.generation)
	o.add("creationTimestamp", m.created)
	o.add("deletionTimestamp", m.deleted)
	o.add("labels", m.labels)
	o.add("annotations", m.annotations)
	o.add("finalizers", m.finalizers)
	var refs []encObject
	for _, r := range m.owners {
		var ro encObject
		ro.add("apiVersion", r.APIVersion)
		ro.add("kind", r.Kind)
		ro.add("name", r.Name)
		ro.add("uid", r.UID)
		ro.add("controller", r.Controller)
		refs = append(refs, ro)
	}
	o.add("ownerReferences", refs)
	return o
}

func encSelectorDoc(s *model.LabelSelector) encObject {
	o := encObject{}
	o.add("matchLabels", s.MatchLabels)
	var exprs []encObject
	for _, e := range s.MatchExpressions {
		eo := encObject{{"key", e.Key}, {"operator", e.Operator}}
		eo.add("values", e.Values)
		exprs = append(exprs, eo)
	}
	o.add("matchExpressions", exprs)
	return o
}

func encQuantities(m map[string]model.Quantity) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, q := range m {
		out[k] = q.String()
	}
	return out
}

func encResourcesDoc(r model.ResourceRequirements) encObject {
	var o encObject
	o.add("limits", encQuantities(r.Limits))
	o.add("requests", encQuantities(r.Requests))
	return o
}

func encContainersDoc(list []model.Container) []encObject {
	var out []encObject
	for _, c := range list {
		var o encObject
		o.add("name", c.Name)
		o.add("image", c.Image)
		var env []encObject
		for _, e := range c.Env {
			eo := encObject{{"name", e.Name}}
			if e.HasValue {
				eo = append(eo, encMember{"value", e.Value})
			}
			var from encObject
			if e.FieldPath != "" {
				from = append(from, encMember{"fieldRef", encObject{{"fieldPath", e.FieldPath}}})
			}
			if e.IsConfigMapKeyRef() {
				from = append(from, encMember{"configMapKeyRef", encObject{{"name", e.ConfigMapName}, {"key", e.ConfigMapKey}}})
			}
			if len(from) > 0 {
				eo = append(eo, encMember{"valueFrom", from})
			}
			env = append(env, eo)
		}
		o.add("env", env)
		o.add("resources", encResourcesDoc(c.Resources))
		var rp []encObject
		for _, p := range c.ResizePolicy {
			var po encObject
			po.add("resourceName", p.ResourceName)
			po.add("restartPolicy", p.RestartPolicy)
			rp = append(rp, po)
		}
		o.add("resizePolicy", rp)
		o.add("restartPolicy", c.RestartPolicy)
		out = append(out, o)
	}
	return out
}

func encPodSpecDoc(s *model.PodSpec) encObject {
	var o encObject
	o.add("nodeName", s.NodeName)
	o.add("initContainers", encContainersDoc(s.InitContainers))
	o.add("containers", encContainersDoc(s.Containers))
	var gates []encObject
	for _, g := range s.ReadinessGates {
		gates = append(gates, encObject{{"conditionType", g}})
	}
	o.add("readinessGates", gates)
	var tscs []encObject
	for _, c := range s.TopologySpreadConstraints {
		tscs = append(tscs, encObject{{"topologyKey", c.TopologyKey}})
	}
	o.add("topologySpreadConstraints", tscs)
	var vols []encObject
	for _, v := range s.Volumes {
		vols = append(vols, encObject{{"name", v}})
	}
	o.add("volumes", vols)
	o.add("restartPolicy", s.RestartPolicy)
	o.add("activeDeadlineSeconds", s.ActiveDeadlineSeconds)
	return o
}

// encTemplateDoc is a pod template: its raw tree when it has one, else its typed
// fields.
func encTemplateDoc(t *model.PodTemplate) any {
	if t.Raw != nil {
		return t.Raw
	}
	var md encObject
	md.add("labels", t.Labels)
	md.add("annotations", t.Annotations)
	o := encObject{}
	o.add("metadata", md)
	o.add("spec", encPodSpecDoc(&t.Spec))
	return o
}

// encConditionDoc is a pod or CloneSet condition: type, status, reason,
// message, then its times in the order given (empty members left out).
func encConditionDoc(typ, status, reason, message string, times ...encMember) encObject {
	co := encObject{}
	co.add("type", typ)
	co.add("status", status)
	co.add("reason", reason)
	co.add("message", message)
	for _, t := range times {
		co.add(t.key, t.val)
	}
	return co
}

func encPodDoc(p *model.Pod) encObject {
	st := encObject{}
	st.add("phase", p.Status.Phase)
	var conds []encObject
	for _, c := range p.Status.Conditions {
		conds = append(conds, encConditionDoc(c.Type, c.Status, c.Reason, c.Message,
			encMember{"lastTransitionTime", c.LastTransitionTime}))
	}
	st.add("conditions", conds)
	st.add("initContainerStatuses", encContainerStatusesDoc(p.Status.InitContainerStatuses))
	st.add("containerStatuses", encContainerStatusesDoc(p.Status.ContainerStatuses))
	return encObject{
		{"apiVersion", "v1"}, {"kind", kindPod},
		{"metadata", encMetaDoc(encMetaFields{
			name: p.Name, namespace: p.Namespace, uid: p.UID, resourceVersion: p.ResourceVersion, labels: p.Labels, annotations: p.Annotations,
			finalizers: p.Finalizers, created: p.CreationTimestamp, deleted: p.DeletionTimestamp, owners: p.OwnerReferences,
		})},
		{"spec", encPodSpecDoc(&p.Spec)},
		{"status", st},
	}
}

func encContainerStatusesDoc(list []model.ContainerStatus) []encObject {
	var out []encObject
	for _, c := range list {
		o := encObject{}
		o.add("name", c.Name)
		o.add("image", c.Image)
		o.add("imageID", c.ImageID)
		o.add("containerID", c.ContainerID)
		o = append(o, encMember{"ready", c.Ready})
		o = append(o, encMember{"restartCount", c.RestartCount})
		if c.Resources != nil {
			o = append(o, encMember{"resources", encResourcesDoc(*c.Resources)})
		}
		out = append(out, o)
	}
	return out
}

func encPvcDoc(c *model.PVC) encObject {
	o := encObject{
		{"apiVersion", "v1"}, {"kind", kindPVC},
		{"metadata", encMetaDoc(encMetaFields{
			name: c.Name, namespace: c.Namespace, uid: c.UID, resourceVersion: c.ResourceVersion, labels: c.Labels, annotations: c.Annotations,
			deleted: c.DeletionTimestamp, owners: c.OwnerReferences,
		})},
	}
	if c.StorageRequest != "" {
		o = append(o, encMember{"spec", encObject{{"resources", encObject{{"requests", encObject{{"storage", c.StorageRequest}}}}}}})
	}
	return o
}

func encImagePullJobDoc(j *model.ImagePullJob) encObject {
	o := encObject{
		{"apiVersion", model.APIVersionV1beta1}, {"kind", kindJob},
		{"metadata", encMetaDoc(encMetaFields{
			name: j.Name, namespace: j.Namespace, uid: j.UID, resourceVersion: j.ResourceVersion, labels: j.Labels, owners: j.OwnerReferences,
		})},
	}
	return append(o, encMember{"spec", encObject{{"image", j.Image}}})
}

func encRevisionDoc(r *model.Revision, namespace string) encObject {
	o := encObject{
		{"apiVersion", "apps/v1"}, {"kind", kindRevision},
		{"metadata", encMetaDoc(encMetaFields{
			name: r.Name, namespace: namespace, uid: r.UID, resourceVersion: r.ResourceVersion, labels: r.Labels, annotations: r.Annotations, created: r.CreationTimestamp,
		})},
		{"revision", r.Revision},
	}
	data := encObject{}
	if r.HasTemplate {
		data = encObject{{"spec", encObject{{"template", encTemplateDoc(&r.Template)}}}}
	}
	return append(o, encMember{"data", data})
}

func encCloneSetDoc(cs *model.CloneSet) encObject {
	sp := &cs.Spec
	spec := encObject{}
	spec.add("replicas", sp.Replicas)
	if sp.Selector != nil { // an empty selector is not an absent one
		spec = append(spec, encMember{"selector", encSelectorDoc(sp.Selector)})
	}
	spec.add("template", encTemplateDoc(&sp.Template))
	var vcts []any
	for _, t := range sp.VolumeClaimTemplates {
		if t.Raw != nil {
			vcts = append(vcts, t.Raw)
			continue
		}
		md := encObject{}
		md.add("name", t.Name)
		md.add("labels", t.Labels)
		md.add("annotations", t.Annotations)
		vo := encObject{{"metadata", md}}
		if t.StorageRequest != "" {
			vo = append(vo, encMember{"spec", encObject{{"resources", encObject{{"requests", encObject{{"storage", t.StorageRequest}}}}}}})
		}
		vcts = append(vcts, vo)
	}
	spec.add("volumeClaimTemplates", vcts)

	ss := encObject{}
	ss.add("podsToDelete", sp.ScaleStrategy.PodsToDelete)
	ss.add("maxUnavailable", sp.ScaleStrategy.MaxUnavailable)
	var us encObject
	if cs.APIVersion == model.APIVersionV1alpha1 {
		f := encV1alpha1Facts(cs)
		ss.add("disablePVCReuse", f.DisablePVCReuse)
		us = encObject{{"type", f.UpdateStrategyType}}
		us = append(us, encStrategyBodyDoc(&f.UpdateStrategy)...)
	} else {
		ss.add("enablePVCReuse", sp.ScaleStrategy.EnablePVCReuse)
		ss.add("excludePreparingDelete", sp.ScaleStrategy.ExcludePreparingDelete)
		us = encObject{}
		us.add("type", sp.UpdateStrategy.Type)
		if ru := sp.UpdateStrategy.RollingUpdate; ru != nil {
			ro := encObject{}
			ro.add("podUpdatePolicy", ru.PodUpdatePolicy)
			ro = append(ro, encStrategyBodyDoc(ru)...)
			us = append(us, encMember{"rollingUpdate", ro})
		}
	}
	spec.add("scaleStrategy", ss)
	spec.add("updateStrategy", us)
	spec.add("revisionHistoryLimit", sp.RevisionHistoryLimit)
	spec.add("minReadySeconds", sp.MinReadySeconds)
	spec.add("progressDeadlineSeconds", sp.ProgressDeadlineSeconds)
	if l := sp.Lifecycle; l != nil {
		lo := encObject{}
		for _, h := range []struct {
			key  string
			hook *model.LifecycleHook
		}{{"preDelete", l.PreDelete}, {"inPlaceUpdate", l.InPlaceUpdate}, {"preNormal", l.PreNormal}} {
			if h.hook != nil { // a hook without markers is not an absent one
				lo = append(lo, encMember{h.key, encHookDoc(h.hook)})
			}
		}
		spec = append(spec, encMember{"lifecycle", lo})
	}

	s := &cs.Status
	st := encObject{}
	st.add("observedGeneration", s.ObservedGeneration)
	st.add("replicas", s.Replicas)
	st.add("readyReplicas", s.ReadyReplicas)
	st.add("availableReplicas", s.AvailableReplicas)
	st.add("updatedReplicas", s.UpdatedReplicas)
	st.add("updatedReadyReplicas", s.UpdatedReadyReplicas)
	st.add("updatedAvailableReplicas", s.UpdatedAvailableReplicas)
	st.add("expectedUpdatedReplicas", s.ExpectedUpdatedReplicas)
	st.add("currentRevision", s.CurrentRevision)
	st.add("updateRevision", s.UpdateRevision)
	st.add("collisionCount", s.CollisionCount)
	st.add("labelSelector", s.LabelSelector)
	var conds []encObject
	for _, c := range s.Conditions {
		conds = append(conds, encConditionDoc(c.Type, c.Status, c.Reason, c.Message,
			encMember{"lastUpdateTime", c.LastUpdateTime}, encMember{"lastTransitionTime", c.LastTransitionTime}))
	}
	st.add("conditions", conds)

	return encObject{
		{"apiVersion", cs.APIVersion}, {"kind", kindCloneSet},
		{"metadata", encMetaDoc(encMetaFields{
			name: cs.Name, namespace: cs.Namespace, uid: cs.UID, resourceVersion: cs.ResourceVersion, generation: cs.Generation,
			labels: cs.Labels, annotations: cs.Annotations, deleted: cs.DeletionTimestamp,
		})},
		{"spec", spec},
		{"status", st},
	}
}

// encStrategyBodyDoc writes the members shared by the v1alpha1 updateStrategy
// and the v1beta1 rollingUpdate block.
func encStrategyBodyDoc(u *model.RollingUpdateStrategy) encObject {
	o := encObject{}
	o.add("partition", u.Partition)
	o.add("maxUnavailable", u.MaxUnavailable)
	o.add("maxSurge", u.MaxSurge)
	o.add("paused", u.Paused)
	if p := u.PriorityStrategy; p != nil {
		var ws, os []encObject
		for _, w := range p.WeightPriority {
			ws = append(ws, encObject{{"weight", w.Weight}, {"matchSelector", encSelectorDoc(&w.MatchSelector)}})
		}
		for _, t := range p.OrderPriority {
			os = append(os, encObject{{"orderedKey", t.OrderedKey}})
		}
		po := encObject{}
		po.add("weightPriority", ws)
		po.add("orderPriority", os)
		o = append(o, encMember{"priorityStrategy", po})
	}
	var terms []encObject
	for _, t := range u.ScatterStrategy {
		terms = append(terms, encObject{{"key", t.Key}, {"value", t.Value}})
	}
	o.add("scatterStrategy", terms)
	if ip := u.InPlaceUpdateStrategy; ip != nil {
		io := encObject{}
		io.add("gracePeriodSeconds", ip.GracePeriodSeconds)
		io.add("imagePreDownloadParallelism", ip.ImagePreDownloadParallelism)
		io.add("imagePreDownloadTimeoutSeconds", ip.ImagePreDownloadTimeoutSeconds)
		io.add("imagePreDownloadMinUpdatedReadyPods", ip.ImagePreDownloadMinUpdatedReadyPods)
		o = append(o, encMember{"inPlaceUpdateStrategy", io})
	}
	return o
}

func encHookDoc(h *model.LifecycleHook) encObject {
	o := encObject{}
	o.add("labelsHandler", h.LabelsHandler)
	o.add("finalizersHandler", h.FinalizersHandler)
	o.add("markPodNotReady", h.MarkPodNotReady)
	return o
}

// encV1alpha1Facts returns the as-written v1alpha1 strategy of a v1alpha1
// CloneSet: cs.V1alpha1 when the loader kept it, else the facts the v1beta1
// spec maps back to (docs/spec/lifecycle-status-validation.md 5.3).
func encV1alpha1Facts(cs *model.CloneSet) model.V1alpha1Fields {
	if cs.V1alpha1 != nil {
		return *cs.V1alpha1
	}
	f := model.V1alpha1Fields{DisablePVCReuse: !cs.Spec.ScaleStrategy.EnablePVCReuse}
	us := cs.Spec.UpdateStrategy
	f.UpdateStrategyType = model.V1alpha1TypeReCreate
	if us.Type == model.UpdateStrategyOnDelete {
		f.UpdateStrategyType = model.V1alpha1TypeOnDelete
	}
	if ru := us.RollingUpdate; ru != nil {
		if us.Type != model.UpdateStrategyOnDelete {
			switch ru.PodUpdatePolicy {
			case model.PolicyInPlaceIfPossible:
				f.UpdateStrategyType = model.V1alpha1TypeInPlaceIfPossible
			case model.PolicyInPlaceOnly:
				f.UpdateStrategyType = model.V1alpha1TypeInPlaceOnly
			}
		}
		f.UpdateStrategy = *ru
		f.UpdateStrategy.PodUpdatePolicy = ""
	}
	return f
}
