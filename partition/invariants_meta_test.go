package partition

import (
	"strings"
	"testing"

	"github.com/clonecore/cloneset/model"
)

// TestInvariantChecksCanFail makes sure every named invariant rejects a
// hand-made violation, so the exhaustive and property tests cannot pass
// vacuously. Each entry breaks exactly the named property of an otherwise
// valid result.
func TestInvariantChecksCanFail(t *testing.T) {
	base := func() (world, results) {
		cs := mkCS(4, partitionOf(I(1)), surgeOf(I(2)), unavOf(I(1)))
		w := world{in: in(cs, pods("a", revA, 4)), hasToDel: 0}
		r, bad := evaluate(&w, pods("a", revA, 4))
		if bad != nil {
			t.Fatalf("baseline violates %v", bad)
		}
		return w, r
	}
	breakers := map[string]func(w *world, r *results){
		"scaleUpLimit <= scaleUp":                                    func(_ *world, r *results) { r.update.ScaleUpLimit = r.update.ScaleUp + 1 },
		"never both scaleUp and scaleDown":                           func(_ *world, r *results) { r.scale.ScaleUp, r.scale.ScaleDown = 1, 1 },
		"0 <= useSurge <= max(maxSurge, 0)":                          func(_ *world, r *results) { r.update.UseSurge = r.update.MaxSurge + 1 },
		"0 <= useSurgeOldRevision <= useSurge":                       func(_ *world, r *results) { r.scale.UseSurgeOldRevision = r.scale.UseSurge + 1 },
		"scaleUpOldRevision and scaleDownOldRevision never negative": func(_ *world, r *results) { r.update.ScaleDownOldRevision = -1 },
		"scaleUp, scaleDown, deleteReadyLimit never negative":        func(_ *world, r *results) { r.scale.DeleteReadyLimit = -1 },
		"updateNum never negative without effective rollback":        func(_ *world, r *results) { r.scale.UpdateNum = -1; r.scale.UpdateMaxUnavailable = 1 },
		"updateNum == 0 implies updateMaxUnavailable == 0":           func(_ *world, r *results) { r.update.UpdateNum, r.update.UpdateMaxUnavailable = 0, 3 },
		"updateMaxUnavailable == U + |Pods| - R when updateNum != 0": func(_ *world, r *results) { r.update.UpdateMaxUnavailable++ },
		"scaleUpLimit <= max(scaleMaxUnavailable, 0)": func(_ *world, r *results) {
			r.scale.ScaleMaxUnavailable = 1
			r.scale.ScaleUp, r.scale.ScaleUpLimit = 3, 2
		},
		"deleteReadyLimit only with toDel or scaleDown": func(_ *world, r *results) { r.scale.DeleteReadyLimit = 1 },
		"resolved inputs equal Resolve":                 func(_ *world, r *results) { r.update.Partition++ },
		"a CloneSet at rest has an empty record": func(w *world, r *results) {
			w.rest = true // the baseline has updateNum 3, so it is not empty
		},
		"variants agree without PreparingUpdateAsUpdate": func(_ *world, r *results) { r.update.ScaleUpOldRevision++ },
		"budget independent of pod order":                func(_ *world, r *results) { r.permuted.ScaleUp++ },
	}
	for _, inv := range invariants {
		brk, ok := breakers[inv.name]
		if !ok {
			t.Errorf("invariant %q has no violating example", inv.name)
			continue
		}
		w, r := base()
		brk(&w, &r)
		if inv.ok(&w, &r) {
			t.Errorf("invariant %q accepted a violation: %+v", inv.name, r)
		}
		delete(breakers, inv.name)
	}
	for name := range breakers {
		t.Errorf("breaker for unknown invariant %q", name)
	}

	// The rollback exemption: a negative updateNum is fine when rollback is
	// effective, and not when the gate is on but the revisions are equal.
	w, r := base()
	w.in.Gates.CloneSetPartitionRollback = true
	r.scale.UpdateNum = -1
	if !invariantByName(t, "updateNum never negative without effective rollback").ok(&w, &r) {
		t.Error("negative updateNum must be allowed with effective rollback")
	}
	w.in.CurrentRevision = w.in.UpdateRevision
	if invariantByName(t, "updateNum never negative without effective rollback").ok(&w, &r) {
		t.Error("negative updateNum must be rejected when current == update")
	}
	// The PUAU exemption.
	w, r = base()
	w.in.Gates.PreparingUpdateAsUpdate = true
	r.update.ScaleUpOldRevision++
	if !invariantByName(t, "variants agree without PreparingUpdateAsUpdate").ok(&w, &r) {
		t.Error("variants may differ with PreparingUpdateAsUpdate on")
	}
}

func invariantByName(t *testing.T, name string) invariant {
	t.Helper()
	for _, inv := range invariants {
		if inv.name == name {
			return inv
		}
	}
	t.Fatalf("no invariant %q", name)
	return invariant{}
}

// TestCounterExampleNamesTheWorld checks the failure message carries what is
// needed to reproduce a counter-example.
func TestCounterExampleNamesTheWorld(t *testing.T) {
	cs := mkCS(2, partitionOf(S("50%")), toDelete("a0"))
	w := world{in: in(cs, join(pods("a", revA, 1), pods("b", revB, 1, withState(model.StatePreparingDelete))))}
	r, _ := evaluate(&w, w.in.Pods)
	msg := counterExample(&w, &r, []string{"x"})
	for _, want := range []string{`"x"`, "replicas=2", `partition="50%"`, "a0{rev-a,Normal,ready,listed}", "b0{rev-b,PreparingDelete,ready}", "scale:", "update:", "permuted:"} {
		if !strings.Contains(msg, want) {
			t.Errorf("counter-example lacks %q:\n%s", want, msg)
		}
	}
}
