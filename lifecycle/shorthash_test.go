package lifecycle

import (
	"testing"

	"github.com/clonecore/cloneset/model"
)

// TestInPlaceUpdateRevisionLabelUnderShortHash: an in-place update rewrites the
// pod's controller-revision-hash label to the target revision, in the short form
// under CloneSetShortHash (docs/spec/update-and-ordering.md 1.1, 4.5 step 2); the action
// says so in revisionLabel only when the label differs from the revision name.
func TestInPlaceUpdateRevisionLabelUnderShortHash(t *testing.T) {
	cs := cloneSet(model.PolicyInPlaceIfPossible, 0, nil)
	short := gates
	short.CloneSetShortHash = true
	for _, c := range []struct {
		gates model.FeatureGates
		want  string
	}{
		{gates, ""},
		{short, model.ShortHash("web-2")},
	} {
		d := decide(t, cs, pod("web-a", model.StateNormal), "web-2", c.gates)
		if len(d.Actions) != 1 || d.Actions[0].Type != model.ActionUpdatePodInPlace {
			t.Fatalf("shortHash=%v: actions %+v", c.gates.CloneSetShortHash, d.Actions)
		}
		if got := d.Actions[0].RevisionLabel; got != c.want {
			t.Errorf("shortHash=%v: revisionLabel %q, want %q", c.gates.CloneSetShortHash, got, c.want)
		}
	}
}
