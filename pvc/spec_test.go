package pvc

import (
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestExample8_3 is docs/spec/scale-and-budgets.md 8.3: scale-out during a partitioned
// update, with PVC reuse.
func TestExample8_3(t *testing.T) {
	build := func(reuse bool) world {
		cs := newCS("foo", "foo-uid", reuse, "datadir")
		w := world{cs: cs}
		for _, id := range []string{"aaaaa", "bbbbb", "ccccc", "ddddd"} {
			w.pods = append(w.pods, mkPod(cs, id))
			w.pvcs = append(w.pvcs, mkClaim(cs, "datadir", id))
		}
		w.pvcs = append(w.pvcs, mkClaim(cs, "datadir", "p2222"), mkClaim(cs, "datadir", "h7777"))
		return w
	}
	t.Run("reuse on", func(t *testing.T) {
		r := build(true).round(2)
		if len(r.Actions) != 0 {
			t.Errorf("clean-up with reuse on: %v", r.Actions)
		}
		// Free ids sorted: h7777 first (the current-revision pod), then p2222.
		want := []Allocation{{ID: "h7777", Reused: true}, {ID: "p2222", Reused: true}}
		if diff := cmp.Diff(want, r.Allocs); diff != "" {
			t.Fatalf("allocations (-want +got):\n%s", diff)
		}
		for _, id := range []string{"h7777", "p2222"} {
			if diff := cmp.Diff([]string{"datadir-foo-" + id}, r.Reuse[id]); diff != "" {
				t.Errorf("reusePVCs of %s: %s", id, diff)
			}
			if r.Create[id] != nil {
				t.Errorf("createPVCs of %s: %v", id, r.Create[id])
			}
		}
		if r.Collisions != nil {
			t.Errorf("collisions %v", r.Collisions)
		}
	})
	t.Run("reuse off", func(t *testing.T) {
		r := build(false).round(2)
		want := []model.Action{del("datadir-foo-h7777", rNoPod("h7777")), del("datadir-foo-p2222", rNoPod("p2222"))}
		if diff := cmp.Diff(want, r.Actions); diff != "" {
			t.Errorf("clean-up (-want +got):\n%s", diff)
		}
		wantAllocs := sortedAllocs(Allocation{ID: GenerateID(IDSeed{UID: "foo-uid", Name: "foo", Now: t0}, 0)}, Allocation{ID: GenerateID(IDSeed{UID: "foo-uid", Name: "foo", Now: t0}, 1)})
		if diff := cmp.Diff(wantAllocs, r.Allocs); diff != "" {
			t.Fatalf("allocations (-want +got):\n%s", diff)
		}
		for _, a := range r.Allocs {
			if diff := cmp.Diff([]string{"datadir-foo-" + a.ID}, r.Create[a.ID]); diff != "" || r.Reuse[a.ID] != nil {
				t.Errorf("claims of %s: create %v reuse %v", a.ID, r.Create[a.ID], r.Reuse[a.ID])
			}
		}
	})
}

// TestExample8_12 is docs/spec/scale-and-budgets.md 8.12: clean-up with reuse off, and
// the collision with reuse on.
func TestExample8_12(t *testing.T) {
	build := func(reuse bool) world {
		cs := newCS("web", "", reuse, "data", "logs")
		return world{cs: cs,
			pods: []*model.Pod{mkPod(cs, "abcde"), terminating(mkPod(cs, "fghij"))},
			pvcs: []*model.PVC{mkClaim(cs, "data", "abcde"), mkClaim(cs, "logs", "abcde"), mkClaim(cs, "data", "fghij"), mkClaim(cs, "data", "zzzzz")},
		}
	}
	t.Run("reuse off", func(t *testing.T) {
		r := build(false).round(2)
		want := []model.Action{
			reown("data-web-fghij", "web-fghij", rInactive("fghij", "web-fghij")),
			del("data-web-zzzzz", rNoPod("zzzzz")),
		}
		if diff := cmp.Diff(want, r.Actions); diff != "" {
			t.Errorf("clean-up (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"data-web-abcde", "logs-web-abcde"}, r.V); diff != "" {
			t.Errorf("V (-want +got):\n%s", diff)
		}
		// Empty uid, name web, generation 0, at t0: candidates wsp9c, 88r6h
		// (7.2), neither excluded.
		if diff := cmp.Diff([]Allocation{{ID: "88r6h"}, {ID: "wsp9c"}}, r.Allocs); diff != "" {
			t.Fatalf("allocations (-want +got):\n%s", diff)
		}
		for _, id := range []string{"88r6h", "wsp9c"} {
			if diff := cmp.Diff([]string{"data-web-" + id, "logs-web-" + id}, r.Create[id]); diff != "" {
				t.Errorf("createPVCs of %s: %s", id, diff)
			}
		}
		if r.Collisions != nil {
			t.Errorf("collisions %v", r.Collisions)
		}
	})
	t.Run("reuse off, a candidate equal to the terminating pod's id is skipped", func(t *testing.T) {
		w := build(false)
		cs := w.cs
		// Rename the terminating pod to the first candidate: it is in Excl.
		w.pods[1] = terminating(mkPod(cs, "wsp9c"))
		w.pvcs[2] = mkClaim(cs, "data", "wsp9c")
		r := w.round(2)
		if diff := cmp.Diff([]Allocation{{ID: "88r6h"}, {ID: "czjh4"}}, r.Allocs); diff != "" {
			t.Errorf("allocations (-want +got):\n%s", diff)
		}
	})
	t.Run("reuse on", func(t *testing.T) {
		r := build(true).round(2)
		if len(r.Actions) != 0 {
			t.Errorf("clean-up with reuse on: %v", r.Actions)
		}
		want := []Allocation{{ID: "fghij", Reused: true}, {ID: "zzzzz", Reused: true}}
		if diff := cmp.Diff(want, r.Allocs); diff != "" {
			t.Fatalf("allocations (-want +got):\n%s", diff)
		}
		for _, id := range []string{"fghij", "zzzzz"} {
			if diff := cmp.Diff([]string{"data-web-" + id}, r.Reuse[id]); diff != "" {
				t.Errorf("reusePVCs of %s: %s", id, diff)
			}
			if diff := cmp.Diff([]string{"logs-web-" + id}, r.Create[id]); diff != "" {
				t.Errorf("createPVCs of %s: %s", id, diff)
			}
		}
		if diff := cmp.Diff([]string{"fghij"}, r.Collisions); diff != "" {
			t.Errorf("collisions (-want +got):\n%s", diff)
		}
	})
}

// TestExample8_13 is docs/spec/scale-and-budgets.md 8.13: deterministic ids
// that do not come back in a later round.
func TestExample8_13(t *testing.T) {
	cs := newCS("web", specUID, false)
	cs.Generation = 1
	w := world{cs: cs, pods: []*model.Pod{mkPod(cs, "6qhdd")}}
	r := w.round(2) // at t0 = 2026-01-01T00:00:00Z
	// k=0 g7k9h accepted, k=1 6qhdd excluded, k=2 2zq2r accepted; sorted.
	if diff := cmp.Diff([]Allocation{{ID: "2zq2r"}, {ID: "g7k9h"}}, r.Allocs); diff != "" {
		t.Errorf("allocations (-want +got):\n%s", diff)
	}
	if got := []string{PodName(cs, r.Allocs[0].ID), PodName(cs, r.Allocs[1].ID)}; !cmp.Equal(got, []string{"web-2zq2r", "web-g7k9h"}) {
		t.Errorf("creation order %v", got)
	}
	// Identical input, identical output.
	if diff := cmp.Diff(r.Allocs, w.round(2).Allocs); diff != "" {
		t.Errorf("second run differs: %s", diff)
	}
	// The two new pods are deleted (scale-in) and all their PVCs are gone; a
	// round one second later creates two pods again: the sequence of that
	// round is another, so the names do not come back.
	later := AllocateIDs(cs, t0.Add(time.Second), 2, w.pods, nil, nil, nil)
	if diff := cmp.Diff([]Allocation{{ID: "jxln5"}, {ID: "sdpk9"}}, later); diff != "" {
		t.Errorf("allocations one second later (-want +got):\n%s", diff)
	}
}

// TestSummary5_8 checks every row of the table of docs/spec/scale-and-budgets.md 5.8, in
// both columns.
func TestSummary5_8(t *testing.T) {
	x := "xxxxx"
	xClaims := func(cs *model.CloneSet) []*model.PVC {
		return []*model.PVC{mkClaim(cs, "data", x), mkClaim(cs, "logs", x)}
	}
	gen0 := GenerateID(specSeed, 0)

	t.Run("scale-in / specified delete / recreate update of pod x: pod and PVCs of x deleted (reuse off and on)", func(t *testing.T) {
		for _, reuse := range []bool{false, true} {
			cs := newCS("web", specUID, reuse, "data", "logs")
			px := mkPod(cs, x)
			w := world{cs: cs, pods: []*model.Pod{px, mkPod(cs, "yyyyy")}, pvcs: append(xClaims(cs), mkClaim(cs, "data", "yyyyy"))}
			r := w.round(0)
			if len(r.Actions) != 0 {
				t.Errorf("reuse=%v: clean-up %v", reuse, r.Actions)
			}
			if diff := cmp.Diff([]string{"data-web-xxxxx", "logs-web-xxxxx"}, r.idx.ClaimsOfPod(px)); diff != "" {
				t.Errorf("reuse=%v: deletePVCs (-want +got):\n%s", reuse, diff)
			}
		}
	})
	t.Run("pod x deleted by someone else, fully gone: reuse off: its PVCs deleted at the next round's clean-up", func(t *testing.T) {
		cs := newCS("web", specUID, false, "data", "logs")
		r := world{cs: cs, pvcs: xClaims(cs)}.round(1)
		want := []model.Action{del("data-web-xxxxx", rNoPod(x)), del("logs-web-xxxxx", rNoPod(x))}
		if diff := cmp.Diff(want, r.Actions); diff != "" {
			t.Errorf("clean-up (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]Allocation{{ID: gen0}}, r.Allocs); diff != "" {
			t.Errorf("allocations (-want +got):\n%s", diff)
		}
	})
	t.Run("pod x deleted by someone else, fully gone: reuse on: PVCs kept; next scale-out reuses id x (same pod name)", func(t *testing.T) {
		cs := newCS("web", specUID, true, "data", "logs")
		r := world{cs: cs, pvcs: xClaims(cs)}.round(1)
		if len(r.Actions) != 0 {
			t.Errorf("clean-up %v", r.Actions)
		}
		if diff := cmp.Diff([]Allocation{{ID: x, Reused: true}}, r.Allocs); diff != "" {
			t.Errorf("allocations (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"data-web-xxxxx", "logs-web-xxxxx"}, r.Reuse[x]); diff != "" {
			t.Errorf("reusePVCs (-want +got):\n%s", diff)
		}
		if PodName(cs, x) != "web-xxxxx" || r.Collisions != nil {
			t.Errorf("pod name %q, collisions %v", PodName(cs, x), r.Collisions)
		}
	})
	for _, state := range []struct {
		name string
		mk   func(*model.Pod) *model.Pod
	}{{"terminating", terminating}, {"Succeeded", succeeded}, {"Failed", failed}} {
		t.Run("pod x "+state.name+", still present: reuse off: its PVCs re-owned to the pod", func(t *testing.T) {
			cs := newCS("web", specUID, false, "data", "logs")
			r := world{cs: cs, pods: []*model.Pod{state.mk(mkPod(cs, x))}, pvcs: xClaims(cs)}.round(1)
			want := []model.Action{
				reown("data-web-xxxxx", "web-xxxxx", rInactive(x, "web-xxxxx")),
				reown("logs-web-xxxxx", "web-xxxxx", rInactive(x, "web-xxxxx")),
			}
			if diff := cmp.Diff(want, r.Actions); diff != "" {
				t.Errorf("clean-up (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]Allocation{{ID: gen0}}, r.Allocs); diff != "" || r.Collisions != nil {
				t.Errorf("allocations %+v collisions %v", r.Allocs, r.Collisions)
			}
		})
		t.Run("pod x "+state.name+", still present: reuse on: PVCs kept; id x looks free => name collision [quirk]", func(t *testing.T) {
			cs := newCS("web", specUID, true, "data", "logs")
			r := world{cs: cs, pods: []*model.Pod{state.mk(mkPod(cs, x))}, pvcs: xClaims(cs)}.round(1)
			if len(r.Actions) != 0 {
				t.Errorf("clean-up %v", r.Actions)
			}
			if diff := cmp.Diff([]Allocation{{ID: x, Reused: true}}, r.Allocs); diff != "" {
				t.Errorf("allocations (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{x}, r.Collisions); diff != "" {
				t.Errorf("collisions (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("PVC without instance-id label, owned by the CloneSet: reuse off: deleted at clean-up", func(t *testing.T) {
		cs := newCS("web", specUID, false, "data")
		r := world{cs: cs, pods: []*model.Pod{mkPodNamed(cs, "web-adopted", "")}, pvcs: []*model.PVC{mkClaimNamed(cs, "data-web", "")}}.round(0)
		if diff := cmp.Diff([]model.Action{del("data-web", rNoLabel)}, r.Actions); diff != "" {
			t.Errorf("clean-up (-want +got):\n%s", diff)
		}
		if len(r.V) != 0 {
			t.Errorf("V %v", r.V)
		}
	})
	t.Run("PVC without instance-id label, owned by the CloneSet: reuse on: kept; matches any id-less pod at deletion [quirk]", func(t *testing.T) {
		cs := newCS("web", specUID, true, "data")
		adopted := mkPodNamed(cs, "web-adopted", "")
		withID := mkPod(cs, "yyyyy")
		r := world{cs: cs, pods: []*model.Pod{adopted, withID}, pvcs: []*model.PVC{mkClaimNamed(cs, "data-web", ""), mkClaim(cs, "data", "yyyyy")}}.round(1)
		if len(r.Actions) != 0 {
			t.Errorf("clean-up %v", r.Actions)
		}
		if diff := cmp.Diff([]string{"data-web"}, r.idx.ClaimsOfPod(adopted)); diff != "" {
			t.Errorf("id-less pod deletePVCs (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"data-web-yyyyy"}, r.idx.ClaimsOfPod(withID)); diff != "" {
			t.Errorf("pod with id deletePVCs (-want +got):\n%s", diff)
		}
		// The id-less PVC gives no free id.
		if diff := cmp.Diff([]Allocation{{ID: gen0}}, r.Allocs, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("allocations (-want +got):\n%s", diff)
		}
	})
}

// TestReleasedPodKeepsPVCs documents what 5.4 and 5.5 give for a pod that
// stopped matching the selector, with reuse off: its PVCs survive clean-up (it is
// still an owned active pod then), but it is not observed, so its id is free and
// the scale-out reuses it; the pod name is still taken by the released pod.
func TestReleasedPodKeepsPVCs(t *testing.T) {
	cs := newCS("web", specUID, false, "data")
	released := unmatched(mkPod(cs, "rrrrr"))
	w := world{cs: cs, pods: []*model.Pod{released}, pvcs: []*model.PVC{mkClaim(cs, "data", "rrrrr")}}
	r := w.round(1)
	if len(r.Actions) != 0 || !cmp.Equal(r.V, []string{"data-web-rrrrr"}) {
		t.Errorf("V %v actions %v", r.V, r.Actions)
	}
	if diff := cmp.Diff([]Allocation{{ID: "rrrrr", Reused: true}}, r.Allocs); diff != "" {
		t.Errorf("allocations (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"rrrrr"}, Collisions(cs, r.Allocs, []*model.Pod{released})); diff != "" {
		t.Errorf("collisions (-want +got):\n%s", diff)
	}
}
