package partition

import (
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
	"github.com/google/go-cmp/cmp"
)

// TestIsUpdated covers RevMatch and both variants of 1.9.
func TestIsUpdated(t *testing.T) {
	const upd = "web-6d8f7c9b5"
	on := model.FeatureGates{PreparingUpdateAsUpdate: true}
	off := model.FeatureGates{}
	cases := []struct {
		name   string
		p      *model.Pod
		gates  model.FeatureGates
		scale  bool // want under ScaleVariant
		update bool // want under UpdateVariant
	}{
		{"full name", mkPod("p", upd), off, true, true},
		{"short hash label (CloneSetShortHash)", mkPod("p", "6d8f7c9b5"), off, true, true},
		{"foreign prefix matches [quirk]", mkPod("p", "api-6d8f7c9b5"), off, true, true},
		{"other revision", mkPod("p", "web-5c7b9d8f6"), off, false, false},
		{"no label", mkPod("p", "", withoutLabel(model.LabelRevisionHash)), off, false, false},
		{"old PreparingUpdate, gate off", mkPod("p", "web-5c7b9d8f6", withState(model.StatePreparingUpdate)), off, false, false},
		{"old PreparingUpdate, gate on", mkPod("p", "web-5c7b9d8f6", withState(model.StatePreparingUpdate)), on, true, false},
		{"old Updating, gate on", mkPod("p", "web-5c7b9d8f6", withState(model.StateUpdating)), on, false, false},
		{"new PreparingUpdate, gate on", mkPod("p", upd, withState(model.StatePreparingUpdate)), on, true, true},
		{"nil pod", nil, on, false, false},
	}
	for _, c := range cases {
		if got := IsUpdated(c.p, upd, c.gates, ScaleVariant); got != c.scale {
			t.Errorf("%s: scale variant = %v, want %v", c.name, got, c.scale)
		}
		if got := IsUpdated(c.p, upd, c.gates, UpdateVariant); got != c.update {
			t.Errorf("%s: update variant = %v, want %v", c.name, got, c.update)
		}
		if got := IsUpdated(c.p, upd, c.gates, Variant(7)); got != c.update {
			t.Errorf("%s: unknown variant must behave as update variant, got %v", c.name, got)
		}
	}
}

func TestVariantString(t *testing.T) {
	for v, want := range map[Variant]string{ScaleVariant: "scale", UpdateVariant: "update", Variant(-3): "Variant(-3)"} {
		if got := v.String(); got != want {
			t.Errorf("Variant(%d).String() = %q, want %q", int(v), got, want)
		}
	}
}

func TestIsSpecifiedDelete(t *testing.T) {
	set := PodsToDeleteSet(mkCS(3, toDelete("listed", "gone")))
	cases := []struct {
		name string
		p    *model.Pod
		want bool
	}{
		{"label true", mkPod("x", revA, specDel()), true},
		{"label with empty value", mkPod("x", revA, withLabel(model.LabelSpecifiedDelete, "")), true},
		{"label false still counts", mkPod("x", revA, withLabel(model.LabelSpecifiedDelete, "false")), true},
		{"listed", mkPod("listed", revA), true},
		{"neither", mkPod("other", revA), false},
		{"nil pod", nil, false},
	}
	for _, c := range cases {
		if got := IsSpecifiedDelete(c.p, set); got != c.want {
			t.Errorf("%s: IsSpecifiedDelete = %v, want %v", c.name, got, c.want)
		}
	}
	if IsSpecifiedDelete(mkPod("listed", revA), nil) {
		t.Error("a nil set lists nothing")
	}
	if PodsToDeleteSet(mkCS(3)) != nil || PodsToDeleteSet(nil) != nil {
		t.Error("no podsToDelete must give a nil set")
	}
}

// TestReadyForBudget covers Available(p, m), ReadyForBudget(p) and the quirk of
// 8.4: ready but younger than minReadySeconds is unavailable yet ready.
func TestReadyForBudget(t *testing.T) {
	cases := []struct {
		name      string
		p         *model.Pod
		available bool // Available(p, 30)
		ready     bool // ReadyForBudget
	}{
		{"ready for an hour", mkPod("p", revB), true, true},
		{"ready for 5s [quirk]", mkPod("p", revB, readySince(5*time.Second)), false, true},
		{"ready for exactly 30s (strictly before now)", mkPod("p", revB, readySince(30*time.Second)), false, true},
		{"ready for 31s", mkPod("p", revB, readySince(31*time.Second)), true, true},
		{"not ready", mkPod("p", revB, notReady()), false, false},
		{"pending", mkPod("p", revB, withPhase(model.PodPending)), false, false},
		{"in-place update not ready", mkPod("p", revB, inPlaceNotReady()), false, false},
		{"no state label", mkPod("p", revB, withState("")), true, true},
		{"PreparingNormal", mkPod("p", revB, withState(model.StatePreparingNormal)), false, false},
		{"PreparingDelete", mkPod("p", revB, withState(model.StatePreparingDelete)), false, false},
		{"unknown state", mkPod("p", revB, withState("Weird")), false, false},
		{"nil", nil, false, false},
	}
	for _, c := range cases {
		if c.p != nil {
			if got := c.p.IsAvailable(30, testNow); got != c.available {
				t.Errorf("%s: Available(p, 30) = %v, want %v", c.name, got, c.available)
			}
		}
		if got := ReadyForBudget(c.p, testNow); got != c.ready {
			t.Errorf("%s: ReadyForBudget = %v, want %v", c.name, got, c.ready)
		}
	}
}

// TestCountRows covers the classification table of section 2 and its key facts.
func TestCountRows(t *testing.T) {
	cases := []struct {
		name string
		in   Input
		v    Variant
		want Counters
	}{
		{"empty", in(mkCS(3), nil), ScaleVariant, Counters{}},
		{"available old and new", in(mkCS(3), join(pods("a", revA, 2), pods("b", revB, 1))), ScaleVariant,
			Counters{ActNew: 1, ActOld: 2, AllNew: 1, AllOld: 2, Total: 3}},
		{"row 1: PreparingDelete wins over specified-delete",
			in(mkCS(3, toDelete("b0")), join(
				pods("a", revA, 1, withState(model.StatePreparingDelete), specDel()),
				pods("b", revB, 1, withState(model.StatePreparingDelete)))), ScaleVariant,
			Counters{PreDelNew: 1, PreDelOld: 1, AllNew: 1, AllOld: 1, Total: 2}},
		{"row 2: specified-delete is never unavailable",
			in(mkCS(3, toDelete("a0")), join(
				pods("a", revA, 1, notReady()),
				pods("b", revB, 2, specDel(), withState(model.StatePreparingNormal)))), ScaleVariant,
			Counters{ToDelNew: 2, ToDelOld: 1, ActNew: 2, ActOld: 1, AllNew: 2, AllOld: 1, Total: 3}},
		{"row 3: every non-Normal state and every unready pod",
			in(mkCS(3), join(
				pods("s", revB, 1, withState(model.StatePreparingNormal)),
				pods("t", revB, 1, withState(model.StateUpdating)),
				pods("u", revB, 1, withState(model.StateUpdated)),
				pods("v", revB, 1, withState(model.StatePreparingUpdate)),
				pods("w", revB, 1, withState("SomethingElse")),
				pods("x", revA, 1, notReady()),
				pods("y", revA, 1, withPhase(model.PodPending)),
				pods("z", revA, 1, inPlaceNotReady()))), ScaleVariant,
			Counters{UnavNew: 5, UnavOld: 3, ActNew: 5, ActOld: 3, AllNew: 5, AllOld: 3, Total: 8}},
		{"row 3: minReadySeconds", in(mkCS(3, minReady(30)), join(pods("b", revB, 2), pods("f", revB, 1, readySince(5*time.Second)))), ScaleVariant,
			Counters{UnavNew: 1, ActNew: 3, AllNew: 3, Total: 3}},
		{"PUAU gate on, scale variant: old PreparingUpdate pod is new",
			puauGate(in(mkCS(3), join(pods("a", revA, 1, withState(model.StatePreparingUpdate)), pods("b", revB, 1)))), ScaleVariant,
			Counters{UnavNew: 1, ActNew: 2, AllNew: 2, Total: 2}},
		{"PUAU gate on, update variant: it is old again",
			puauGate(in(mkCS(3), join(pods("a", revA, 1, withState(model.StatePreparingUpdate)), pods("b", revB, 1)))), UpdateVariant,
			Counters{UnavOld: 1, ActNew: 1, ActOld: 1, AllNew: 1, AllOld: 1, Total: 2}},
		{"nil pods are skipped", in(mkCS(3), []*model.Pod{nil, mkPod("b", revB), nil}), ScaleVariant,
			Counters{ActNew: 1, AllNew: 1, Total: 1}},
		{"nil CloneSet", in(nil, pods("b", revB, 2, notReady())), ScaleVariant,
			Counters{UnavNew: 2, ActNew: 2, AllNew: 2, Total: 2}},
		{"pods on a third revision are old", same(mkCS(3), pods("a", revA, 2)), ScaleVariant,
			Counters{ActOld: 2, AllOld: 2, Total: 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Count(c.in, c.v)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("Count (-want +got):\n%s", diff)
			}
			if got.ToDel() != got.ToDelNew+got.ToDelOld || got.Unavailable() != got.PreDelNew+got.PreDelOld+got.UnavNew+got.UnavOld {
				t.Errorf("ToDel/Unavailable helpers disagree with the fields: %+v", got)
			}
		})
	}
}

// TestCountSinglePodExhaustive classifies every single-pod world built from
// revision x state x readiness x specified-delete x PUAU gate x variant x
// minReadySeconds against an independent restatement of the section 2 table.
func TestCountSinglePodExhaustive(t *testing.T) {
	states := []string{"", model.StateNormal, model.StatePreparingNormal, model.StatePreparingUpdate,
		model.StateUpdating, model.StateUpdated, model.StatePreparingDelete, "Unknown"}
	type readiness struct {
		name string
		opts []podOpt
	}
	readies := []readiness{
		{"ready", nil},
		{"fresh", []podOpt{readySince(5 * time.Second)}},
		{"notReady", []podOpt{notReady()}},
		{"pending", []podOpt{withPhase(model.PodPending)}},
		{"ipuFalse", []podOpt{inPlaceNotReady()}},
	}
	n := 0
	for _, rev := range []string{revA, revB, "b", "x-b"} { // "b" and "x-b" match rev-b by short hash
		for _, st := range states {
			for _, rd := range readies {
				for _, del := range []string{"none", "label", "listed"} {
					for _, puau := range []bool{false, true} {
						for _, v := range []Variant{ScaleVariant, UpdateVariant} {
							for _, m := range []int32{0, 30} {
								opts := append([]podOpt{withState(st)}, rd.opts...)
								cs := mkCS(1, minReady(m))
								switch del {
								case "label":
									opts = append(opts, specDel())
								case "listed":
									cs.Spec.ScaleStrategy.PodsToDelete = []string{"p"}
								}
								p := mkPod("p", rev, opts...)
								input := in(cs, []*model.Pod{p})
								input.Gates.PreparingUpdateAsUpdate = puau
								got := Count(input, v)

								// Independent expectation.
								newSide := rev != revA || (v == ScaleVariant && puau && st == model.StatePreparingUpdate)
								ready := rd.name == "ready" || (rd.name == "fresh" && m == 0)
								want := Counters{Total: 1}
								row := ""
								switch {
								case st == model.StatePreparingDelete:
									row = "preDel"
								case del != "none":
									row = "toDel"
								case !(st == "" || st == model.StateNormal) || !ready:
									row = "unav"
								}
								side := func(newC, oldC *int) {
									if newSide {
										*newC++
									} else {
										*oldC++
									}
								}
								switch row {
								case "preDel":
									side(&want.PreDelNew, &want.PreDelOld)
								case "toDel":
									side(&want.ToDelNew, &want.ToDelOld)
								case "unav":
									side(&want.UnavNew, &want.UnavOld)
								}
								side(&want.AllNew, &want.AllOld)
								if row != "preDel" {
									side(&want.ActNew, &want.ActOld)
								}
								if got != want {
									t.Errorf("rev=%s state=%q %s del=%s puau=%v variant=%v m=%d: got %+v, want %+v",
										rev, st, rd.name, del, puau, v, m, got, want)
								}
								// The exported predicates agree with Count's inlined ones.
								if IsUpdated(p, revB, input.Gates, v) != newSide ||
									IsSpecifiedDelete(p, PodsToDeleteSet(cs)) != (del != "none") ||
									p.IsAvailable(m, testNow) != (row == "" || (row == "toDel" && (st == "" || st == model.StateNormal) && ready)) {
									t.Errorf("rev=%s state=%q %s del=%s puau=%v variant=%v m=%d: exported predicates disagree with Count",
										rev, st, rd.name, del, puau, v, m)
								}
								n++
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d single-pod worlds classified", n)
}
