package sim_test

import (
	"testing"

	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/sim"
)

// TestVerticalResizeCompletes runs the in-place vertical resize of the
// golden scenario (testdata/scenarios/vertical-resize/gate-on-inplace.yaml)
// to the end. The simulator's API server is a requests.World of the newest
// behavior, which refuses a pod patch that changes container resources, so
// the rollout completes only if every resource change goes through
// pods/resize; every pod ends with the template's resources, reported by the
// kubelet, with no failed action.
func TestVerticalResizeCompletes(t *testing.T) {
	scn, err := manifest.LoadFiles([]string{"../testdata/scenarios/vertical-resize/gate-on-inplace.yaml"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := scn.CloneSet.Spec.Template.Spec.Containers[0].Resources
	s, err := sim.New(scn, sim.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != sim.Converged || !res.OK() {
		t.Fatalf("outcome %s (%s), violations %v", res.Outcome, res.Reason, res.Violations())
	}
	for _, st := range res.Steps {
		if len(st.Failures) > 0 {
			t.Errorf("step %d: failed actions %v", st.Index, st.Failures)
		}
	}
	pods := s.Cluster().Pods()
	if len(pods) != 3 {
		t.Fatalf("%d pods at the end", len(pods))
	}
	for _, p := range pods {
		c := p.Spec.Containers[0]
		cs := p.ContainerStatus(c.Name)
		if !c.Resources.Equal(want) || cs == nil || cs.Resources == nil || !cs.Resources.Equal(want) {
			t.Errorf("pod %s: spec resources %v, reported %v; want %v", p.Name, c.Resources, cs, want)
		}
		if !p.InRevision(res.Final.Status.UpdateRevision) {
			t.Errorf("pod %s is at %s, not the update revision %s", p.Name, p.RevisionLabel(), res.Final.Status.UpdateRevision)
		}
	}
}
