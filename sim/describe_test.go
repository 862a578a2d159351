package sim

import (
	"strings"
	"testing"

	"github.com/clonecore/cloneset/model"
)

// Every action type reads as a line naming what it acts on: the timeline
// once printed "-> CreateRevision " with no revision name.
func TestDescribeActionNamesItsObject(t *testing.T) {
	cases := []struct {
		action model.Action
		want   []string
	}{
		{model.Action{Type: model.ActionCreatePod, Pod: "web-a", Revision: "web-1", Reason: "scale out"}, []string{"create web-a at web-1"}},
		{model.Action{Type: model.ActionDeletePod, Pod: "web-a", Reason: "scale in"}, []string{"delete web-a (scale in)"}},
		{model.Action{Type: model.ActionSetLifecycleState, Pod: "web-a", From: model.StateNormal, To: model.StatePreparingDelete}, []string{"web-a: Normal -> PreparingDelete"}},
		{model.Action{Type: model.ActionUpdatePodInPlace, Pod: "web-a", FromRevision: "web-1", ToRevision: "web-2"}, []string{"update web-a in place web-1 -> web-2"}},
		{model.Action{Type: model.ActionRecreatePod, Pod: "web-a", ToRevision: "web-2"}, []string{"recreate web-a at web-2"}},
		{model.Action{Type: model.ActionPatchPod, Pod: "web-a", Reason: "ready"}, []string{"patch web-a (ready)"}},
		{model.Action{Type: model.ActionDeletePVC, PVC: "data-web-a"}, []string{"delete PVC data-web-a"}},
		{model.Action{Type: model.ActionSetPVCOwner, PVC: "data-web-a", Pod: "web-b"}, []string{"PVC data-web-a", "web-b"}},
		{model.Action{Type: model.ActionUpdatePodsToDelete, Remove: []string{"web-x"}}, []string{"podsToDelete", "web-x"}},
		{model.Action{Type: model.ActionCreateRevision, Revision: "web-86dffbbb48", RevisionNumber: 2}, []string{"create revision web-86dffbbb48", "revision number 2"}},
		{model.Action{Type: model.ActionUpdateRevision, Revision: "web-5dfc6c97c9", RevisionNumber: 3}, []string{"renumber revision web-5dfc6c97c9 to 3"}},
		{model.Action{Type: model.ActionDeleteRevision, Revision: "web-5dfc6c97c9"}, []string{"delete revision web-5dfc6c97c9"}},
	}
	seen := map[model.ActionType]bool{}
	for _, c := range cases {
		seen[c.action.Type] = true
		got := describeAction(c.action)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", c.action.Type, got, w)
			}
		}
		if strings.TrimSpace(got) != got || strings.HasPrefix(got, string(c.action.Type)) {
			t.Errorf("%s: %q is not a description", c.action.Type, got)
		}
	}
	if len(seen) != 12 {
		t.Errorf("%d action types described, want all 12", len(seen))
	}
}
