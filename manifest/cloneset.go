package manifest

import (
	"github.com/clonecore/cloneset/model"
)

// decodeCloneSet reads a CloneSet document of either API version as written
// (no defaults): the v1beta1 fields into the spec, the v1alpha1-only ones into
// cs.V1alpha1.
func decodeCloneSet(v value, apiVersion string) *model.CloneSet {
	m := decodeMeta(v)
	cs := &model.CloneSet{
		APIVersion:        apiVersion,
		Name:              m.Name,
		Namespace:         m.Namespace,
		UID:               m.UID,
		ResourceVersion:   m.ResourceVersion,
		Generation:        m.Generation,
		Labels:            m.Labels,
		Annotations:       m.Annotations,
		DeletionTimestamp: m.Deletion,
	}
	sp := v.get("spec")
	sp.object()
	spec := &cs.Spec
	spec.Replicas = sp.get("replicas").int32Ptr()
	spec.Selector = decodeLabelSelector(sp.get("selector"))
	spec.Template = decodeTemplate(sp.get("template"))
	for _, t := range sp.get("volumeClaimTemplates").items() {
		if !t.object() {
			continue
		}
		md := t.get("metadata")
		md.object()
		spec.VolumeClaimTemplates = append(spec.VolumeClaimTemplates, model.VolumeClaimTemplate{
			Name:           md.get("name").str(),
			Labels:         md.get("labels").stringMap(),
			Annotations:    md.get("annotations").stringMap(),
			StorageRequest: t.get("spec").get("resources").get("requests").get("storage").quantityText(),
			Raw:            t.treeMap(),
		})
	}

	ss := sp.get("scaleStrategy")
	ss.object()
	spec.ScaleStrategy.PodsToDelete = ss.get("podsToDelete").stringList()
	spec.ScaleStrategy.MaxUnavailable = ss.get("maxUnavailable").intOrPercent()

	us := sp.get("updateStrategy")
	us.object()
	if apiVersion == model.APIVersionV1beta1 {
		spec.ScaleStrategy.EnablePVCReuse = ss.get("enablePVCReuse").boolean()
		spec.ScaleStrategy.ExcludePreparingDelete = ss.get("excludePreparingDelete").boolean()
		spec.UpdateStrategy.Type = us.get("type").str()
		if ru := us.get("rollingUpdate"); ru.object() {
			r := decodeStrategyBody(ru)
			r.PodUpdatePolicy = ru.get("podUpdatePolicy").str()
			spec.UpdateStrategy.RollingUpdate = &r
		}
	} else {
		cs.V1alpha1 = &model.V1alpha1Fields{
			UpdateStrategyType: us.get("type").str(),
			UpdateStrategy:     decodeStrategyBody(us),
			DisablePVCReuse:    ss.get("disablePVCReuse").boolean(),
		}
	}

	spec.RevisionHistoryLimit = sp.get("revisionHistoryLimit").int32Ptr()
	spec.MinReadySeconds = sp.get("minReadySeconds").int32()
	spec.ProgressDeadlineSeconds = sp.get("progressDeadlineSeconds").int32Ptr()
	if lc := sp.get("lifecycle"); lc.object() {
		spec.Lifecycle = &model.Lifecycle{
			PreDelete:     decodeHook(lc.get("preDelete")),
			InPlaceUpdate: decodeHook(lc.get("inPlaceUpdate")),
			PreNormal:     decodeHook(lc.get("preNormal")),
		}
	}

	st := v.get("status")
	st.object()
	status := &cs.Status
	status.ObservedGeneration = st.get("observedGeneration").int64()
	status.Replicas = st.get("replicas").int32()
	status.ReadyReplicas = st.get("readyReplicas").int32()
	status.AvailableReplicas = st.get("availableReplicas").int32()
	status.UpdatedReplicas = st.get("updatedReplicas").int32()
	status.UpdatedReadyReplicas = st.get("updatedReadyReplicas").int32()
	status.UpdatedAvailableReplicas = st.get("updatedAvailableReplicas").int32()
	status.ExpectedUpdatedReplicas = st.get("expectedUpdatedReplicas").int32()
	status.CurrentRevision = st.get("currentRevision").str()
	status.UpdateRevision = st.get("updateRevision").str()
	status.CollisionCount = st.get("collisionCount").int32Ptr()
	status.LabelSelector = st.get("labelSelector").str()
	for _, c := range st.get("conditions").items() {
		status.Conditions = append(status.Conditions, model.CloneSetCondition{
			Type:               c.get("type").str(),
			Status:             c.get("status").str(),
			Reason:             c.get("reason").str(),
			Message:            c.get("message").str(),
			LastUpdateTime:     c.get("lastUpdateTime").timestamp(),
			LastTransitionTime: c.get("lastTransitionTime").timestamp(),
		})
	}
	return cs
}

// decodeStrategyBody reads the members shared by the v1alpha1 updateStrategy
// and the v1beta1 rollingUpdate block.
func decodeStrategyBody(v value) model.RollingUpdateStrategy {
	r := model.RollingUpdateStrategy{
		Partition:      v.get("partition").intOrPercent(),
		MaxUnavailable: v.get("maxUnavailable").intOrPercent(),
		MaxSurge:       v.get("maxSurge").intOrPercent(),
		Paused:         v.get("paused").boolean(),
	}
	if ps := v.get("priorityStrategy"); ps.object() {
		p := &model.UpdatePriorityStrategy{}
		for _, w := range ps.get("weightPriority").items() {
			term := model.UpdatePriorityWeightTerm{Weight: w.get("weight").int32()}
			if s := decodeLabelSelector(w.get("matchSelector")); s != nil {
				term.MatchSelector = *s
			}
			p.WeightPriority = append(p.WeightPriority, term)
		}
		for _, o := range ps.get("orderPriority").items() {
			p.OrderPriority = append(p.OrderPriority, model.UpdatePriorityOrderTerm{OrderedKey: o.get("orderedKey").str()})
		}
		r.PriorityStrategy = p
	}
	for _, t := range v.get("scatterStrategy").items() {
		r.ScatterStrategy = append(r.ScatterStrategy, model.ScatterTerm{Key: t.get("key").str(), Value: t.get("value").str()})
	}
	if ip := v.get("inPlaceUpdateStrategy"); ip.object() {
		r.InPlaceUpdateStrategy = &model.InPlaceUpdateStrategy{
			GracePeriodSeconds:                  ip.get("gracePeriodSeconds").int32(),
			ImagePreDownloadParallelism:         ip.get("imagePreDownloadParallelism").intOrPercent(),
			ImagePreDownloadTimeoutSeconds:      ip.get("imagePreDownloadTimeoutSeconds").int32Ptr(),
			ImagePreDownloadMinUpdatedReadyPods: ip.get("imagePreDownloadMinUpdatedReadyPods").int32Ptr(),
		}
	}
	return r
}

func decodeHook(v value) *model.LifecycleHook {
	if !v.object() {
		return nil
	}
	return &model.LifecycleHook{
		LabelsHandler:     v.get("labelsHandler").stringMap(),
		FinalizersHandler: v.get("finalizersHandler").stringList(),
		MarkPodNotReady:   v.get("markPodNotReady").boolean(),
	}
}
