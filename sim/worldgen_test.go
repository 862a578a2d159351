package sim

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/worldgen"
)

// TestRunFromGeneratedWorlds starts simulations from realistic mid-rollout
// worlds of package worldgen (the generator of the benchmarks and of the
// planner's property tests) and checks every invariant of every round.
func TestRunFromGeneratedWorlds(t *testing.T) {
	runs := 0
	rapid.Check(t, func(t *rapid.T) {
		o := worldgen.Options{
			Seed:                 rapid.Int64().Draw(t, "worldSeed"),
			Pods:                 rapid.IntRange(1, 12).Draw(t, "pods"),
			Rollout:              rapid.Bool().Draw(t, "rollout"),
			Updated:              float64(rapid.IntRange(0, 100).Draw(t, "updated")) / 100,
			Policy:               rapid.SampledFrom([]string{model.PolicyReCreate, model.PolicyInPlaceIfPossible}).Draw(t, "policy"),
			SpreadConstraints:    rapid.Bool().Draw(t, "spread"),
			SpecifiedDelete:      rapid.IntRange(0, 2).Draw(t, "specifiedDelete"),
			VolumeClaimTemplates: rapid.IntRange(0, 1).Draw(t, "vcts"),
			Hooks:                rapid.Bool().Draw(t, "hooks"),
			Hooked:               float64(rapid.IntRange(0, 50).Draw(t, "hooked")) / 100,
		}
		if rapid.Bool().Draw(t, "surge") {
			o.MaxSurge = &model.IntOrPercent{IsString: true, Str: "25%"}
		}
		scn := worldgen.Generate(o)
		cfg := DefaultConfig()
		cfg.Seed = rapid.Uint64().Draw(t, "simSeed")
		cfg.MaxSteps = 400
		res, err := Verify(scn, cfg)
		if err != nil {
			t.Fatalf("simulate: %v", err)
		}
		for _, v := range res.Violations() {
			t.Errorf("violation: %v", v)
		}
		runs++
	})
	t.Logf("%d simulations from generated worlds", runs)
}
