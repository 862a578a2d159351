package pvc

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// genWorld draws a random scenario around CloneSet "web": pods in every state
// and PVCs with every kind of owner, over a small id pool that includes the
// first candidates of the 7.2 sequence, so exclusions really happen.
func genWorld(t *rapid.T) world {
	uid := rapid.SampledFrom([]string{"", specUID}).Draw(t, "uid")
	cs := newCS("web", uid, rapid.Bool().Draw(t, "reuse"))
	for _, tmpl := range []string{"data", "logs"} {
		if rapid.Bool().Draw(t, "tmpl-"+tmpl) {
			cs.Spec.VolumeClaimTemplates = append(cs.Spec.VolumeClaimTemplates, model.VolumeClaimTemplate{Name: tmpl})
		}
	}
	pool := []string{"", "bbbbb", "ccccc", "ddddd", "x-odd-id"}
	for k := 0; k < 6; k++ {
		pool = append(pool, GenerateID(IDSeed{UID: uid, Name: "web", Now: t0}, k))
	}
	id := rapid.SampledFrom(pool)
	w := world{cs: cs}
	usedPod := map[string]bool{}
	for i, n := 0, rapid.IntRange(0, 12).Draw(t, "pods"); i < n; i++ {
		pid := id.Draw(t, "pod-id")
		name := "web-" + pid
		if pid == "" || usedPod[name] {
			name = fmt.Sprintf("web-p%d", i)
		}
		usedPod[name] = true
		p := mkPodNamed(cs, name, pid)
		switch rapid.IntRange(0, 5).Draw(t, "pod-state") {
		case 1:
			unmatched(p)
		case 2:
			terminating(p)
		case 3:
			succeeded(p)
		case 4:
			failed(p)
		}
		w.pods = append(w.pods, p)
	}
	usedPVC := map[string]bool{}
	for i, n := 0, rapid.IntRange(0, 16).Draw(t, "pvcs"); i < n; i++ {
		tmpl := rapid.SampledFrom([]string{"data", "logs", "cache"}).Draw(t, "pvc-tmpl")
		c := mkClaim(cs, tmpl, id.Draw(t, "pvc-id"))
		if usedPVC[c.Name] {
			c.Name = fmt.Sprintf("%s-%d", c.Name, i)
		}
		usedPVC[c.Name] = true
		switch rapid.IntRange(0, 5).Draw(t, "pvc-owner") {
		case 1:
			ownedBy(c, foreignPod)
		case 2:
			c.OwnerReferences[0].Controller = false
		}
		if rapid.IntRange(0, 4).Draw(t, "pvc-deleting") == 0 {
			deletingClaim(c)
		}
		w.pvcs = append(w.pvcs, c)
	}
	return w
}

func idSet[T any](xs []T, id func(T) string) map[string]bool {
	out := map[string]bool{}
	for _, x := range xs {
		if v := id(x); v != "" {
			out[v] = true
		}
	}
	return out
}

func permuted[T any](t *rapid.T, xs []T, label string) []T {
	return rapid.Permutation(xs).Draw(t, label)
}

// Generated ids are unique against all existing ids, and identical for
// identical inputs in any order; AllocateIDs always returns exactly n ids, each
// generated one 5 characters of Alphabet.
func TestPropAllocateIDs(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := genWorld(t)
		n := rapid.IntRange(0, 40).Draw(t, "n")
		observed, active, inactive := w.split()
		v, _ := Usable(w.cs, active, inactive, w.pvcs)
		got := AllocateIDs(w.cs, t0, n, observed, inactive, w.pvcs, v)

		if len(got) != n {
			t.Fatalf("got %d ids, want %d", len(got), n)
		}
		existing := idSet(observed, podID)
		for id := range idSet(inactive, podID) {
			existing[id] = true
		}
		for id := range idSet(w.pvcs, InstanceIDOf) {
			existing[id] = true
		}
		held := idSet(observed, podID)
		var free []string
		for id := range idSet(v, InstanceIDOf) {
			if !held[id] {
				free = append(free, id)
			}
		}
		slices.Sort(free)
		var reused []string
		seen := map[string]bool{}
		for i, a := range got {
			if seen[a.ID] {
				t.Fatalf("id %q handed out twice", a.ID)
			}
			seen[a.ID] = true
			if i > 0 && got[i-1].ID >= a.ID {
				t.Fatalf("not ascending: %q then %q", got[i-1].ID, a.ID)
			}
			if a.Reused {
				reused = append(reused, a.ID)
				continue
			}
			if len(a.ID) != 5 || !IsGeneratedForm(a.ID) {
				t.Fatalf("generated id %q is not 5 characters of the alphabet", a.ID)
			}
			if existing[a.ID] {
				t.Fatalf("generated id %q already exists", a.ID)
			}
		}
		if want := free[:min(n, len(free))]; !slices.Equal(reused, want) {
			t.Fatalf("reused %v, want the smallest free ids %v", reused, want)
		}

		again := AllocateIDs(w.cs, t0, n, permuted(t, observed, "perm-observed"), permuted(t, inactive, "perm-inactive"),
			permuted(t, w.pvcs, "perm-pvcs"), permuted(t, v, "perm-v"))
		if diff := cmp.Diff(got, again); diff != "" {
			t.Fatalf("input order changed the result:\n%s", diff)
		}

		// Another round (the clock moved): the same free ids and as many ids,
		// the generated ones still clear of every existing id.
		later := t0.Add(time.Duration(rapid.Int64Range(1, int64(time.Hour)).Draw(t, "later")))
		moved := AllocateIDs(w.cs, later, n, observed, inactive, w.pvcs, v)
		if len(moved) != n {
			t.Fatalf("at %v: got %d ids, want %d", later, len(moved), n)
		}
		var reusedLater []string
		for _, a := range moved {
			switch {
			case a.Reused:
				reusedLater = append(reusedLater, a.ID)
			case existing[a.ID]:
				t.Fatalf("at %v: generated id %q already exists", later, a.ID)
			}
		}
		if !slices.Equal(reusedLater, reused) {
			t.Fatalf("at %v: reused %v, at t0 %v", later, reusedLater, reused)
		}
	})
}

// No PVC is ever both reused and deleted (by clean-up, or with a pod the scale
// phase removes).
func TestPropNoPVCReusedAndDeleted(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := genWorld(t)
		observed, active, inactive := w.split()
		v, actions := Usable(w.cs, active, inactive, w.pvcs)
		idx := NewIndex(v)
		gone := map[string]string{}
		for _, a := range actions {
			gone[a.PVC] = string(a.Type)
		}
		for _, p := range observed {
			for _, name := range idx.ClaimsOfPod(p) {
				gone[name] = "DeletePod " + p.Name
			}
		}
		inV := map[string]bool{}
		for _, c := range v {
			inV[c.Name] = true
		}
		for _, a := range AllocateIDs(w.cs, t0, rapid.IntRange(0, 10).Draw(t, "n"), observed, inactive, w.pvcs, v) {
			create, reuse := idx.ClaimsForNewPod(w.cs, a.ID)
			for _, name := range reuse {
				if why, ok := gone[name]; ok {
					t.Fatalf("PVC %s reused by %s and deleted (%s)", name, a.ID, why)
				}
				if !inV[name] {
					t.Fatalf("PVC %s reused but not in V", name)
				}
			}
			for _, name := range create {
				if inV[name] {
					t.Fatalf("PVC %s of V listed for creation", name)
				}
			}
			if len(reuse) > 0 && !a.Reused {
				t.Fatalf("generated id %s reuses %v", a.ID, reuse)
			}
		}
	})
}

// With reuse off, no orphan PVC survives Cleanup: every owned PVC without a live
// pod of its id is deleted or re-owned, every other one is kept, exactly once,
// and nothing else is touched. With reuse on, nothing is touched.
func TestPropCleanupLeavesNoOrphan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := genWorld(t)
		_, active, inactive := w.split()
		v, actions := Cleanup(w.cs, active, inactive, w.pvcs)
		owned := Owned(w.cs, w.pvcs)
		if ReuseEnabled(w.cs) {
			if len(actions) != 0 || !slices.Equal(names(v), names(owned)) {
				t.Fatalf("reuse on: V %v actions %v", names(v), actions)
			}
			return
		}
		live := idSet(active, podID)
		owner := map[string]string{} // id -> greatest inactive pod name
		for _, p := range inactive {
			if id := podID(p); id != "" && p.Name > owner[id] {
				owner[id] = p.Name
			}
		}
		fate := map[string][]string{}
		for _, c := range v {
			fate[c.Name] = append(fate[c.Name], "kept")
		}
		for i, a := range actions {
			fate[a.PVC] = append(fate[a.PVC], string(a.Type)+" "+a.Pod)
			if i > 0 && actions[i-1].PVC >= a.PVC {
				t.Fatalf("actions not in canonical order: %s then %s", actions[i-1].PVC, a.PVC)
			}
		}
		for _, c := range owned {
			id := InstanceIDOf(c)
			var want string
			switch {
			case id != "" && live[id]:
				want = "kept"
			case id != "" && owner[id] != "":
				want = "SetPVCOwner " + owner[id]
			default:
				want = "DeletePVC "
			}
			if got := fate[c.Name]; len(got) != 1 || got[0] != want {
				t.Fatalf("PVC %s (id %q): fate %v, want %q", c.Name, id, got, want)
			}
			delete(fate, c.Name)
		}
		if len(fate) != 0 {
			t.Fatalf("PVCs not owned by the CloneSet were touched: %v", fate)
		}
		v2, actions2 := Cleanup(w.cs, permuted(t, active, "perm-active"), permuted(t, inactive, "perm-inactive"), permuted(t, w.pvcs, "perm-pvcs"))
		if !slices.Equal(names(v), names(v2)) || !cmp.Equal(actions, actions2) {
			t.Fatalf("input order changed the result")
		}
	})
}

// Index answers agree with a plain scan of V.
func TestPropIndexMatchesScan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := genWorld(t)
		owned := Owned(w.cs, w.pvcs)
		idx := NewIndex(permuted(t, owned, "perm"))
		for _, p := range w.pods {
			var want []string
			for _, c := range owned {
				if InstanceIDOf(c) == p.InstanceID() {
					want = append(want, c.Name)
				}
			}
			if got := idx.ClaimsOfPod(p); !slices.Equal(got, want) {
				t.Fatalf("ClaimsOfPod(%s) = %v, want %v", p.Name, got, want)
			}
		}
	})
}
