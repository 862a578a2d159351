package clonesetcore_test

import (
	"bytes"
	"testing"

	"pgregory.net/rapid"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/worldgen"
)

// drawWorldgenOptions draws the shape of a realistic world (package worldgen,
// the generator the benchmarks use) small enough for a property test.
func drawWorldgenOptions(t *rapid.T) worldgen.Options {
	pct := func(label string, max int) float64 { return float64(rapid.IntRange(0, max).Draw(t, label)) / 100 }
	o := worldgen.Options{
		Seed:                 rapid.Int64().Draw(t, "seed"),
		Pods:                 rapid.IntRange(0, 40).Draw(t, "pods"),
		Rollout:              rapid.Bool().Draw(t, "rollout"),
		Policy:               rapid.SampledFrom([]string{model.PolicyReCreate, model.PolicyInPlaceIfPossible, model.PolicyInPlaceOnly}).Draw(t, "policy"),
		Hooks:                rapid.Bool().Draw(t, "hooks"),
		SpreadConstraints:    rapid.Bool().Draw(t, "spread"),
		UpdatePriority:       rapid.Bool().Draw(t, "priority"),
		SpecifiedDelete:      rapid.IntRange(0, 3).Draw(t, "specifiedDelete"),
		PodsToDelete:         rapid.IntRange(0, 3).Draw(t, "podsToDelete"),
		VolumeClaimTemplates: rapid.IntRange(0, 2).Draw(t, "vcts"),
		PVCReuse:             rapid.Bool().Draw(t, "reuse"),
		OrphanPVCs:           rapid.IntRange(0, 2).Draw(t, "orphanPVCs"),
		Terminating:          rapid.IntRange(0, 2).Draw(t, "terminating"),
		MinReadySeconds:      int32(rapid.IntRange(0, 30).Draw(t, "minReadySeconds")),
		Paused:               rapid.Bool().Draw(t, "paused"),
		DeletionCosts:        pct("deletionCosts", 50),
		Updated:              pct("updated", 100),
		Hooked:               pct("hooked", 50),
	}
	if o.Policy == model.PolicyInPlaceOnly {
		o.MaxSurge = nil // the webhook forbids maxSurge with InPlaceOnly
	} else if rapid.Bool().Draw(t, "surge") {
		o.MaxSurge = &model.IntOrPercent{IsString: true, Str: "25%"}
	}
	if rapid.Bool().Draw(t, "partition") {
		o.Partition = &model.IntOrPercent{IsString: true, Str: "30%"}
	}
	if rapid.Bool().Draw(t, "scaleChange") {
		r := int32(rapid.IntRange(0, 50).Draw(t, "replicas"))
		o.Replicas = &r
	}
	o.States = worldgen.States{PreparingDelete: pct("preparingDelete", 10), PreparingUpdate: pct("preparingUpdate", 10), Updating: pct("updating", 10), Updated: pct("updatedState", 10)}
	o.Readiness = worldgen.Readiness{Unscheduled: pct("unscheduled", 10), Pending: pct("pending", 10), NotReady: pct("notReady", 10), Maturing: pct("maturing", 10)}
	return o
}

// TestPlanPropertiesOnGeneratedWorlds runs the planner invariants on realistic
// worlds from package worldgen (the same generator as the benchmarks and the
// simulator's generated starts): no error, the same plan twice, and every
// invariant of planner_invariants_test.go.
func TestPlanPropertiesOnGeneratedWorlds(t *testing.T) {
	runs := 0
	rapid.Check(t, func(t *rapid.T) {
		o := drawWorldgenOptions(t)
		a, b := worldgen.Generate(o), worldgen.Generate(o)
		resA, err := clonesetcore.Plan(a)
		if err != nil {
			t.Fatalf("Plan: %v", err)
		}
		resB, err := clonesetcore.Plan(b)
		if err != nil {
			t.Fatalf("Plan: %v", err)
		}
		ja, _ := resA.JSON()
		jb, _ := resB.JSON()
		if !bytes.Equal(ja, jb) {
			t.Fatalf("the same generated world planned twice gives two plans")
		}
		for _, v := range invariantViolations(a, resA) {
			t.Errorf("invariant: %s", v)
		}
		runs++
	})
	t.Logf("%d generated worlds planned", runs)
}
