package manifest

import (
	"time"

	"github.com/clonecore/cloneset/model"
)

// meta is the object metadata the loader reads.
type meta struct {
	Name, Namespace, UID string                 // metadata.name, namespace, uid
	ResourceVersion      string                 // metadata.resourceVersion
	Generation           int64                  // metadata.generation
	Labels, Annotations  map[string]string      // metadata.labels, annotations
	Finalizers           []string               // metadata.finalizers
	Creation, Deletion   time.Time              // creation and deletion timestamps
	Owners               []model.OwnerReference // metadata.ownerReferences
}

func decodeMeta(v value) meta {
	m := v.get("metadata")
	m.object()
	out := meta{
		Name:            m.get("name").str(),
		Namespace:       m.get("namespace").str(),
		UID:             m.get("uid").str(),
		ResourceVersion: m.get("resourceVersion").str(),
		Generation:      m.get("generation").int64(),
		Labels:          m.get("labels").stringMap(),
		Annotations:     m.get("annotations").stringMap(),
		Finalizers:      m.get("finalizers").stringList(),
		Creation:        m.get("creationTimestamp").timestamp(),
		Deletion:        m.get("deletionTimestamp").timestamp(),
	}
	for _, o := range m.get("ownerReferences").items() {
		if !o.object() {
			continue
		}
		out.Owners = append(out.Owners, model.OwnerReference{
			APIVersion: o.get("apiVersion").str(),
			Kind:       o.get("kind").str(),
			Name:       o.get("name").str(),
			UID:        o.get("uid").str(),
			Controller: o.get("controller").boolean(),
		})
	}
	return out
}

// decodeTemplate reads a pod template: typed fields and the raw tree (the
// "$patch" member of stored revisions removed).
func decodeTemplate(v value) model.PodTemplate {
	var t model.PodTemplate
	if !v.object() {
		return t
	}
	md := v.get("metadata")
	md.object()
	t.Labels = md.get("labels").stringMap()
	t.Annotations = md.get("annotations").stringMap()
	t.Spec = decodePodSpec(v.get("spec"))
	t.Raw = v.treeMap()
	delete(t.Raw, "$patch")
	return t
}

func decodePodSpec(v value) model.PodSpec {
	var s model.PodSpec
	if !v.object() {
		return s
	}
	s.NodeName = v.get("nodeName").str()
	s.Containers = decodeContainers(v.get("containers"))
	s.InitContainers = decodeContainers(v.get("initContainers"))
	for _, g := range v.get("readinessGates").items() {
		s.ReadinessGates = append(s.ReadinessGates, g.get("conditionType").str())
	}
	for _, c := range v.get("topologySpreadConstraints").items() {
		s.TopologySpreadConstraints = append(s.TopologySpreadConstraints, model.TopologySpreadConstraint{TopologyKey: c.get("topologyKey").str()})
	}
	for _, vol := range v.get("volumes").items() {
		s.Volumes = append(s.Volumes, vol.get("name").str())
	}
	s.RestartPolicy = v.get("restartPolicy").str()
	s.ActiveDeadlineSeconds = v.get("activeDeadlineSeconds").int64Ptr()
	return s
}

func decodeContainers(v value) []model.Container {
	var out []model.Container
	for _, c := range v.items() {
		if !c.object() {
			continue
		}
		ct := model.Container{
			Name:          c.get("name").str(),
			Image:         c.get("image").str(),
			Resources:     decodeResources(c.get("resources")),
			RestartPolicy: c.get("restartPolicy").str(),
		}
		for _, e := range c.get("env").items() {
			ev := model.EnvVar{Name: e.get("name").str()}
			if val := e.get("value"); val.present() {
				ev.Value = val.str()
				ev.HasValue = true
			}
			ev.FieldPath = e.get("valueFrom").get("fieldRef").get("fieldPath").str()
			ref := e.get("valueFrom").get("configMapKeyRef")
			ev.ConfigMapName, ev.ConfigMapKey = ref.get("name").str(), ref.get("key").str()
			ct.Env = append(ct.Env, ev)
		}
		for _, r := range c.get("resizePolicy").items() {
			ct.ResizePolicy = append(ct.ResizePolicy, model.ContainerResizePolicy{
				ResourceName:  r.get("resourceName").str(),
				RestartPolicy: r.get("restartPolicy").str(),
			})
		}
		out = append(out, ct)
	}
	return out
}

func decodeResources(v value) model.ResourceRequirements {
	return model.ResourceRequirements{
		Limits:   v.get("limits").quantityMap(),
		Requests: v.get("requests").quantityMap(),
	}
}

func decodeLabelSelector(v value) *model.LabelSelector {
	if !v.object() {
		return nil
	}
	s := &model.LabelSelector{MatchLabels: v.get("matchLabels").stringMap()}
	for _, e := range v.get("matchExpressions").items() {
		s.MatchExpressions = append(s.MatchExpressions, model.LabelSelectorRequirement{
			Key:      e.get("key").str(),
			Operator: e.get("operator").str(),
			Values:   e.get("values").stringList(),
		})
	}
	return s
}

// decodePod reads a v1 Pod.
func decodePod(v value) *model.Pod {
	m := decodeMeta(v)
	p := &model.Pod{
		Name:              m.Name,
		Namespace:         m.Namespace,
		UID:               m.UID,
		ResourceVersion:   m.ResourceVersion,
		Labels:            m.Labels,
		Annotations:       m.Annotations,
		Finalizers:        m.Finalizers,
		CreationTimestamp: m.Creation,
		DeletionTimestamp: m.Deletion,
		OwnerReferences:   m.Owners,
		Spec:              decodePodSpec(v.get("spec")),
	}
	st := v.get("status")
	st.object()
	p.Status.Phase = st.get("phase").str()
	for _, c := range st.get("conditions").items() {
		p.Status.Conditions = append(p.Status.Conditions, model.PodCondition{
			Type:               c.get("type").str(),
			Status:             c.get("status").str(),
			Reason:             c.get("reason").str(),
			Message:            c.get("message").str(),
			LastTransitionTime: c.get("lastTransitionTime").timestamp(),
		})
	}
	p.Status.ContainerStatuses = decodeContainerStatuses(st.get("containerStatuses"))
	p.Status.InitContainerStatuses = decodeContainerStatuses(st.get("initContainerStatuses"))
	return p
}

func decodeContainerStatuses(v value) []model.ContainerStatus {
	var out []model.ContainerStatus
	for _, c := range v.items() {
		cs := model.ContainerStatus{
			Name:         c.get("name").str(),
			Image:        c.get("image").str(),
			ImageID:      c.get("imageID").str(),
			ContainerID:  c.get("containerID").str(),
			Ready:        c.get("ready").boolean(),
			RestartCount: c.get("restartCount").int32(),
		}
		if r := c.get("resources"); r.present() {
			res := decodeResources(r)
			cs.Resources = &res
		}
		out = append(out, cs)
	}
	return out
}

// decodePVC reads a v1 PersistentVolumeClaim.
func decodePVC(v value) *model.PVC {
	m := decodeMeta(v)
	return &model.PVC{
		Name:              m.Name,
		Namespace:         m.Namespace,
		UID:               m.UID,
		ResourceVersion:   m.ResourceVersion,
		Labels:            m.Labels,
		Annotations:       m.Annotations,
		OwnerReferences:   m.Owners,
		DeletionTimestamp: m.Deletion,
		StorageRequest:    v.get("spec").get("resources").get("requests").get("storage").quantityText(),
	}
}

// decodeRevision reads an apps/v1 ControllerRevision; namespace and owner
// references returned apart (the model keeps neither).
func decodeRevision(v value) (*model.Revision, string, []model.OwnerReference) {
	m := decodeMeta(v)
	r := &model.Revision{
		Name:              m.Name,
		UID:               m.UID,
		ResourceVersion:   m.ResourceVersion,
		Revision:          v.get("revision").int64(),
		CreationTimestamp: m.Creation,
		Labels:            m.Labels,
		Annotations:       m.Annotations,
	}
	tv := v.get("data").get("spec").get("template")
	if tv.present() {
		r.Template = decodeTemplate(tv)
		r.HasTemplate = r.Template.Raw != nil
	}
	return r, m.Namespace, m.Owners
}

// decodeNode reads a v1 Node.
func decodeNode(v value) *model.Node {
	m := decodeMeta(v)
	return &model.Node{Name: m.Name, Labels: m.Labels}
}

// decodeImagePullJob reads an OpenKruise ImagePullJob (v1alpha1 or v1beta1:
// the fields read are the same in both).
func decodeImagePullJob(v value) *model.ImagePullJob {
	m := decodeMeta(v)
	return &model.ImagePullJob{
		Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion,
		Labels: m.Labels, OwnerReferences: m.Owners, Image: v.get("spec").get("image").str(),
	}
}
