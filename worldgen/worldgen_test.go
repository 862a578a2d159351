package worldgen_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/worldgen"
	"pgregory.net/rapid"
)

func encode(t interface {
	Helper()
	Fatal(args ...any)
}, s *model.Scenario) []byte {
	t.Helper()
	b, err := manifest.EncodeJSON(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDeterministic(t *testing.T) {
	a, b := encode(t, worldgen.Realistic(7, 300)), encode(t, worldgen.Realistic(7, 300))
	if !bytes.Equal(a, b) {
		t.Fatal("the same seed gave two worlds")
	}
	if bytes.Equal(a, encode(t, worldgen.Realistic(8, 300))) {
		t.Fatal("two seeds gave the same world")
	}
}

// countShare is the count a share of n stands for.
func countShare(f float64, n int) int { return int(math.Round(f * float64(n))) }

func TestRealisticShape(t *testing.T) {
	const n = 2000
	o := worldgen.RealisticOptions(1, n)
	s := worldgen.Generate(o)
	cs := s.CloneSet
	if got := len(s.Pods); got != n+o.Terminating {
		t.Fatalf("%d pods, want %d active + %d terminating", got, n, o.Terminating)
	}
	if errs := model.Validate(cs, s.Pods); len(errs) > 0 {
		t.Fatalf("the webhook would reject the CloneSet: %v", errs)
	}
	names := map[string]bool{}
	var updated, active, specified, unscheduled int
	states := map[string]int{}
	for _, p := range s.Pods {
		if names[p.Name] {
			t.Fatalf("pod name %s twice", p.Name)
		}
		names[p.Name] = true
		if p.Name != cs.Name+"-"+p.InstanceID() {
			t.Fatalf("pod %s has instance id %s", p.Name, p.InstanceID())
		}
		if !p.IsActive() {
			continue
		}
		active++
		if p.InRevision(cs.Status.UpdateRevision) {
			updated++
		}
		if p.HasSpecifiedDeleteLabel() {
			specified++
		}
		if !p.IsScheduled() {
			unscheduled++
		}
		states[p.LifecycleState()]++
	}
	checks := []struct {
		what      string
		got, want int
	}{
		{"active pods", active, n},
		{"pods at the update revision", updated, countShare(o.Updated, n)},
		{"specified-delete labels", specified, o.SpecifiedDelete},
		{"unscheduled pods", unscheduled, countShare(o.Readiness.Unscheduled, n)},
		{"PreparingDelete pods", states[model.StatePreparingDelete], countShare(o.States.PreparingDelete, n)},
		{"PreparingUpdate pods", states[model.StatePreparingUpdate], countShare(o.States.PreparingUpdate, n)},
		{"Updating pods", states[model.StateUpdating], countShare(o.States.Updating, n)},
		{"Updated pods", states[model.StateUpdated], countShare(o.States.Updated, n)},
		{"podsToDelete names", len(cs.Spec.ScaleStrategy.PodsToDelete), o.PodsToDelete + o.StalePodsToDelete},
		{"PVCs", len(s.PVCs), n + o.Terminating + o.OrphanPVCs},
		{"nodes", len(s.Nodes), n / 8},
		{"revisions", len(s.Revisions), o.History + 2},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.what, c.got, c.want)
		}
	}
	if len(cs.Spec.Template.Spec.TopologySpreadConstraints) != 2 || cs.Spec.Lifecycle == nil {
		t.Errorf("spread constraints %v, lifecycle %v", cs.Spec.Template.Spec.TopologySpreadConstraints, cs.Spec.Lifecycle)
	}
}

// The lifecycle states a world holds are waiting ones: in the update world
// the refresh step changes nothing, and the planner updates pods.
func TestUpdateWorldReachesTheUpdate(t *testing.T) {
	plan, err := clonesetcore.Plan(worldgen.Update(2, 1000))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range plan.Notes {
		if strings.Contains(n, "refresh step changed pods") || strings.Contains(n, "scale phase changed pods") {
			t.Fatalf("note %q", n)
		}
	}
	inPlace := 0
	for _, a := range plan.Actions {
		if a.Type == model.ActionUpdatePodInPlace {
			inPlace++
		}
	}
	if inPlace < 50 {
		t.Fatalf("%d in-place updates", inPlace)
	}
}

func TestScaleInWorldScalesIn(t *testing.T) {
	plan, err := clonesetcore.Plan(worldgen.ScaleIn(3, 500))
	if err != nil {
		t.Fatal(err)
	}
	if plan.Budget.ScaleDown != 50 {
		t.Fatalf("scaleDown %d, want 50", plan.Budget.ScaleDown)
	}
	removed := 0
	for _, a := range plan.Actions {
		if a.Type == model.ActionDeletePod || (a.Type == model.ActionSetLifecycleState && a.To == model.StatePreparingDelete) {
			removed++
		}
	}
	if removed == 0 {
		t.Fatal("nothing removed")
	}
}

// Any options give a world the loader accepts (unless the webhook rejects
// the options themselves) and that plans without error.
func TestGenerateProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 60).Draw(rt, "pods")
		share := func(name string) float64 { return rapid.Float64Range(0, 0.3).Draw(rt, name) }
		o := worldgen.Options{
			Seed:                 rapid.Int64().Draw(rt, "seed"),
			Pods:                 n,
			Rollout:              rapid.Bool().Draw(rt, "rollout"),
			Updated:              rapid.Float64Range(0, 1).Draw(rt, "updated"),
			History:              rapid.IntRange(0, 3).Draw(rt, "history"),
			Policy:               rapid.SampledFrom([]string{"", model.PolicyReCreate, model.PolicyInPlaceIfPossible, model.PolicyInPlaceOnly}).Draw(rt, "policy"),
			MinReadySeconds:      int32(rapid.IntRange(0, 30).Draw(rt, "minReady")),
			UpdatePriority:       rapid.Bool().Draw(rt, "priority"),
			Hooks:                rapid.Bool().Draw(rt, "hooks"),
			Hooked:               share("hooked"),
			States:               worldgen.States{PreparingDelete: share("pd"), PreparingUpdate: share("pu"), Updating: share("uing"), Updated: share("uted")},
			Readiness:            worldgen.Readiness{Unscheduled: share("unsched"), Pending: share("pending"), NotReady: share("notReady"), Maturing: share("maturing")},
			Zones:                rapid.IntRange(0, 5).Draw(rt, "zones"),
			PodsPerNode:          rapid.IntRange(0, 12).Draw(rt, "perNode"),
			SpreadConstraints:    rapid.Bool().Draw(rt, "spread"),
			SpecifiedDelete:      rapid.IntRange(0, 5).Draw(rt, "sd"),
			PodsToDelete:         rapid.IntRange(0, 5).Draw(rt, "ptd"),
			StalePodsToDelete:    rapid.IntRange(0, 2).Draw(rt, "stale"),
			VolumeClaimTemplates: rapid.IntRange(0, 4).Draw(rt, "vcts"),
			PVCReuse:             rapid.Bool().Draw(rt, "reuse"),
			OrphanPVCs:           rapid.IntRange(0, 3).Draw(rt, "orphans"),
			DeletionCosts:        share("costs"),
			Terminating:          rapid.IntRange(0, 3).Draw(rt, "terminating"),
		}
		if rapid.Bool().Draw(rt, "alpha") {
			o.APIVersion = model.APIVersionV1alpha1
		}
		s := worldgen.Generate(o)
		if _, err := manifest.LoadBytes(encode(rt, s), "world.json"); err != nil {
			rt.Fatalf("the loader rejects the world: %v", err)
		}
		if _, err := clonesetcore.Plan(s); err != nil {
			rt.Fatalf("plan: %v", err)
		}
	})
}
