package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// orderedJSON builds a JSON object whose members keep insertion order.
type orderedJSON struct {
	buf bytes.Buffer
	n   int
	err error
}

func (o *orderedJSON) add(key string, v any) {
	if o.err != nil {
		return
	}
	if o.n == 0 {
		o.buf.WriteByte('{')
	} else {
		o.buf.WriteByte(',')
	}
	o.n++
	k, _ := json.Marshal(key)
	o.buf.Write(k)
	o.buf.WriteByte(':')
	b, err := json.Marshal(v)
	if err != nil {
		o.err = err
		return
	}
	o.buf.Write(b)
}

func (o *orderedJSON) bytes() ([]byte, error) {
	if o.err != nil {
		return nil, o.err
	}
	if o.n == 0 {
		return []byte("{}"), nil
	}
	o.buf.WriteByte('}')
	return o.buf.Bytes(), nil
}

func nonNilMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// MarshalJSON writes the fields of the action's type in contract order.
func (a Action) MarshalJSON() ([]byte, error) {
	var o orderedJSON
	o.add("type", a.Type)
	switch a.Type {
	case ActionCreatePod:
		o.add("pod", a.Pod)
		o.add("instanceID", a.InstanceID)
		o.add("revision", a.Revision)
		if a.RevisionLabel != "" {
			o.add("revisionLabel", a.RevisionLabel)
		}
		o.add("lifecycleState", a.LifecycleState)
		o.add("createPVCs", nonNil(a.CreatePVCs))
		o.add("reusePVCs", nonNil(a.ReusePVCs))
		o.add("batch", a.Batch)
	case ActionDeletePod:
		o.add("pod", a.Pod)
		o.add("deletePVCs", nonNil(a.DeletePVCs))
	case ActionSetLifecycleState:
		o.add("pod", a.Pod)
		o.add("from", a.From)
		o.add("to", a.To)
		o.add("markPodNotReady", a.MarkPodNotReady)
		if len(a.SetLabels) > 0 {
			o.add("setLabels", a.SetLabels)
		}
		if len(a.AddFinalizers) > 0 {
			o.add("addFinalizers", a.AddFinalizers)
		}
	case ActionUpdatePodInPlace:
		o.add("pod", a.Pod)
		o.add("fromRevision", a.FromRevision)
		o.add("toRevision", a.ToRevision)
		if a.RevisionLabel != "" {
			o.add("revisionLabel", a.RevisionLabel)
		}
		o.add("gracePeriodSeconds", a.GracePeriodSeconds)
	case ActionRecreatePod:
		o.add("pod", a.Pod)
		o.add("toRevision", a.ToRevision)
	case ActionDeletePVC:
		o.add("pvc", a.PVC)
	case ActionSetPVCOwner:
		o.add("pvc", a.PVC)
		o.add("pod", a.Pod)
	case ActionUpdatePodsToDelete:
		o.add("remove", nonNil(a.Remove))
	case ActionCreateRevision, ActionUpdateRevision:
		o.add("revision", a.Revision)
		o.add("revisionNumber", a.RevisionNumber)
	case ActionDeleteRevision:
		o.add("revision", a.Revision)
	case ActionLabelRevision:
		o.add("revision", a.Revision)
		o.add("setLabels", nonNilMap(a.SetLabels))
	case ActionCreateImagePullJob:
		o.add("imagePullJob", a.ImagePullJob)
		o.add("revision", a.Revision)
		o.add("container", a.Container)
		o.add("image", a.Image)
	case ActionDeleteImagePullJob:
		o.add("imagePullJob", a.ImagePullJob)
	case ActionPatchPod:
		o.add("pod", a.Pod)
		if len(a.SetLabels) > 0 {
			o.add("setLabels", a.SetLabels)
		}
		if len(a.RemoveLabels) > 0 {
			o.add("removeLabels", a.RemoveLabels)
		}
		if len(a.SetAnnotations) > 0 {
			o.add("setAnnotations", a.SetAnnotations)
		}
		if len(a.RemoveAnnotations) > 0 {
			o.add("removeAnnotations", a.RemoveAnnotations)
		}
		if len(a.SetConditions) > 0 {
			conds := make([]json.RawMessage, len(a.SetConditions))
			for i, c := range a.SetConditions {
				var co orderedJSON
				co.add("type", c.Type)
				co.add("status", c.Status)
				if c.Reason != "" {
					co.add("reason", c.Reason)
				}
				if c.Message != "" {
					co.add("message", c.Message)
				}
				b, err := co.bytes()
				if err != nil {
					return nil, err
				}
				conds[i] = b
			}
			o.add("setConditions", conds)
		}
		if len(a.SetImages) > 0 {
			o.add("setImages", a.SetImages)
		}
		if len(a.SetResources) > 0 {
			o.add("setResources", a.SetResources)
		}
	default:
		return nil, fmt.Errorf("action: unknown type %q", a.Type)
	}
	if a.Reason != "" || a.Type != ActionUpdatePodsToDelete {
		o.add("reason", a.Reason)
	}
	return o.bytes()
}

// RevisionLabelValue returns what the controller writes into a pod's
// controller-revision-hash label for revision rev: the short hash under the
// CloneSetShortHash gate, else the full name (docs/spec/update-and-ordering.md 1.1).
func RevisionLabelValue(rev string, gates FeatureGates) string {
	if gates.CloneSetShortHash {
		return ShortHash(rev)
	}
	return rev
}

// UnmarshalJSON reads an action written by MarshalJSON.
func (a *Action) UnmarshalJSON(b []byte) error {
	var w struct {
		Type               ActionType                `json:"type"`
		Pod                string                    `json:"pod"`
		PVC                string                    `json:"pvc"`
		InstanceID         string                    `json:"instanceID"`
		Revision           string                    `json:"revision"`
		RevisionLabel      string                    `json:"revisionLabel"`
		LifecycleState     string                    `json:"lifecycleState"`
		CreatePVCs         []string                  `json:"createPVCs"`
		ReusePVCs          []string                  `json:"reusePVCs"`
		Batch              int                       `json:"batch"`
		DeletePVCs         []string                  `json:"deletePVCs"`
		From               string                    `json:"from"`
		To                 string                    `json:"to"`
		MarkPodNotReady    bool                      `json:"markPodNotReady"`
		FromRevision       string                    `json:"fromRevision"`
		ToRevision         string                    `json:"toRevision"`
		GracePeriodSeconds int32                     `json:"gracePeriodSeconds"`
		Remove             []string                  `json:"remove"`
		RevisionNumber     int64                     `json:"revisionNumber"`
		ImagePullJob       string                    `json:"imagePullJob"`
		Container          string                    `json:"container"`
		Image              string                    `json:"image"`
		SetLabels          map[string]string         `json:"setLabels"`
		AddFinalizers      []string                  `json:"addFinalizers"`
		RemoveLabels       []string                  `json:"removeLabels"`
		SetImages          map[string]string         `json:"setImages"`
		SetResources       map[string]ResourceValues `json:"setResources"`
		SetAnnotations     map[string]string         `json:"setAnnotations"`
		RemoveAnnotations  []string                  `json:"removeAnnotations"`
		SetConditions      []struct {
			Type    string `json:"type"`
			Status  string `json:"status"`
			Reason  string `json:"reason"`
			Message string `json:"message"`
		} `json:"setConditions"`
		Reason string `json:"reason"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*a = Action{Type: w.Type, Pod: w.Pod, PVC: w.PVC, InstanceID: w.InstanceID, Revision: w.Revision, RevisionLabel: w.RevisionLabel,
		LifecycleState: w.LifecycleState, CreatePVCs: w.CreatePVCs, ReusePVCs: w.ReusePVCs, Batch: w.Batch,
		DeletePVCs: w.DeletePVCs, From: w.From, To: w.To, MarkPodNotReady: w.MarkPodNotReady,
		FromRevision: w.FromRevision, ToRevision: w.ToRevision, GracePeriodSeconds: w.GracePeriodSeconds,
		Remove: w.Remove, RevisionNumber: w.RevisionNumber, ImagePullJob: w.ImagePullJob, Container: w.Container, Image: w.Image, SetLabels: w.SetLabels, AddFinalizers: w.AddFinalizers, RemoveLabels: w.RemoveLabels,
		SetImages: w.SetImages, SetResources: w.SetResources, SetAnnotations: w.SetAnnotations,
		RemoveAnnotations: w.RemoveAnnotations, Reason: w.Reason}
	for _, c := range w.SetConditions {
		a.SetConditions = append(a.SetConditions, ConditionPatch(c))
	}
	return nil
}

// SortedKeys returns the keys of m in ascending order.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
