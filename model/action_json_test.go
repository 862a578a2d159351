package model

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestActionJSON pins the contract's field order per type and that the fields
// this library adds (docs/plan-format.md) are written only when set and read
// back unchanged.
func TestActionJSON(t *testing.T) {
	cases := []struct {
		a    Action
		want string
	}{
		{Action{Type: ActionCreatePod, Pod: "web-x", InstanceID: "x", Revision: "web-1", LifecycleState: StatePreparingNormal, Reason: "scale out"},
			`{"type":"CreatePod","pod":"web-x","instanceID":"x","revision":"web-1","lifecycleState":"PreparingNormal","createPVCs":[],"reusePVCs":[],"batch":0,"reason":"scale out"}`},
		{Action{Type: ActionCreatePod, Pod: "web-x", InstanceID: "x", Revision: "web-1", RevisionLabel: "1", LifecycleState: StatePreparingNormal, Batch: 2, CreatePVCs: []string{"d-web-x"}},
			`{"type":"CreatePod","pod":"web-x","instanceID":"x","revision":"web-1","revisionLabel":"1","lifecycleState":"PreparingNormal","createPVCs":["d-web-x"],"reusePVCs":[],"batch":2,"reason":""}`},
		{Action{Type: ActionUpdatePodInPlace, Pod: "web-a", FromRevision: "web-1", ToRevision: "web-2", RevisionLabel: "2", GracePeriodSeconds: 10},
			`{"type":"UpdatePodInPlace","pod":"web-a","fromRevision":"web-1","toRevision":"web-2","revisionLabel":"2","gracePeriodSeconds":10,"reason":""}`},
		{Action{Type: ActionSetLifecycleState, Pod: "web-a", From: StateUpdated, To: StatePreparingUpdate, SetLabels: map[string]string{"k": "v"}, AddFinalizers: []string{"f"}},
			`{"type":"SetLifecycleState","pod":"web-a","from":"Updated","to":"PreparingUpdate","markPodNotReady":false,"setLabels":{"k":"v"},"addFinalizers":["f"],"reason":""}`},
		{Action{Type: ActionPatchPod, Pod: "web-a", RemoveLabels: []string{"old"}, SetImages: map[string]string{"main": "nginx:2"},
			SetResources: map[string]ResourceValues{"main": {Limits: map[string]string{"cpu": "2"}}}},
			`{"type":"PatchPod","pod":"web-a","removeLabels":["old"],"setImages":{"main":"nginx:2"},"setResources":{"main":{"limits":{"cpu":"2"}}},"reason":""}`},
		{Action{Type: ActionUpdatePodsToDelete, Remove: []string{"web-gone"}},
			`{"type":"UpdatePodsToDelete","remove":["web-gone"]}`},
		{Action{Type: ActionCreateRevision, Revision: "web-7c9d", RevisionNumber: 3, Reason: "new template"},
			`{"type":"CreateRevision","revision":"web-7c9d","revisionNumber":3,"reason":"new template"}`},
		{Action{Type: ActionUpdateRevision, Revision: "web-1", RevisionNumber: 4, Reason: "roll-back"},
			`{"type":"UpdateRevision","revision":"web-1","revisionNumber":4,"reason":"roll-back"}`},
		{Action{Type: ActionDeleteRevision, Revision: "web-0", Reason: "history"},
			`{"type":"DeleteRevision","revision":"web-0","reason":"history"}`},
		{Action{Type: ActionCreateImagePullJob, ImagePullJob: "web-2-main", Revision: "web-2", Container: "main", Image: "nginx:2", Reason: "pre-download"},
			`{"type":"CreateImagePullJob","imagePullJob":"web-2-main","revision":"web-2","container":"main","image":"nginx:2","reason":"pre-download"}`},
		{Action{Type: ActionLabelRevision, Revision: "web-2", SetLabels: map[string]string{LabelImagePreDownloadCreated: "true"}},
			`{"type":"LabelRevision","revision":"web-2","setLabels":{"apps.kruise.io/pre-predownload-created":"true"},"reason":""}`},
		{Action{Type: ActionDeleteImagePullJob, ImagePullJob: "web-2-main", Reason: "rollout done"},
			`{"type":"DeleteImagePullJob","imagePullJob":"web-2-main","reason":"rollout done"}`},
	}
	for _, c := range cases {
		b, err := json.Marshal(c.a)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != c.want {
			t.Errorf("%s:\n got  %s\n want %s", c.a.Type, b, c.want)
		}
		var back Action
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		want := c.a
		if want.Type == ActionCreatePod {
			// The contract always writes both PVC lists.
			if want.CreatePVCs == nil {
				want.CreatePVCs = []string{}
			}
			if want.ReusePVCs == nil {
				want.ReusePVCs = []string{}
			}
		}
		if diff := cmp.Diff(want, back); diff != "" {
			t.Errorf("%s round trip (-want +got):\n%s", c.a.Type, diff)
		}
	}
	if _, err := json.Marshal(Action{Type: "Bogus"}); err == nil {
		t.Error("an unknown action type must not marshal")
	}
}
