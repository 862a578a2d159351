package pvc

import (
	"testing"

	"github.com/clonecore/cloneset/model"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

const (
	rNoLabel = "PVC clean-up: no instance-id label"
)

func rNoPod(id string) string { return "PVC clean-up: no pod with instance id " + id }
func rInactive(id, pod string) string {
	return "PVC clean-up: instance id " + id + " belongs to inactive pod " + pod
}

// TestCleanup covers every branch of docs/spec/scale-and-budgets.md 5.4.
func TestCleanup(t *testing.T) {
	cs := newCS("web", specUID, false, "data")
	reuseCS := newCS("web", specUID, true, "data")
	deletingCS := newCS("web", specUID, false, "data")
	deletingCS.DeletionTimestamp = t0
	noUID := newCS("web", "", false, "data")
	noUIDRef := model.OwnerReference{APIVersion: model.APIVersionV1beta1, Kind: "CloneSet", Name: "web", Controller: true}

	tests := []struct {
		name     string
		cs       *model.CloneSet
		active   []*model.Pod
		inactive []*model.Pod
		owned    []*model.PVC
		wantV    []string
		want     []model.Action
	}{
		{
			name:   "id of an active pod: kept in V, no action",
			cs:     cs,
			active: []*model.Pod{mkPod(cs, "aaaaa")},
			owned:  []*model.PVC{mkClaim(cs, "data", "aaaaa"), mkClaim(cs, "logs", "aaaaa")},
			wantV:  []string{"data-web-aaaaa", "logs-web-aaaaa"},
		},
		{
			name:   "id of an active pod that stopped matching the selector: still kept",
			cs:     cs,
			active: []*model.Pod{unmatched(mkPod(cs, "aaaaa"))},
			owned:  []*model.PVC{mkClaim(cs, "data", "aaaaa")},
			wantV:  []string{"data-web-aaaaa"},
		},
		{
			name:     "id of a terminating pod: re-owned to it",
			cs:       cs,
			inactive: []*model.Pod{terminating(mkPod(cs, "fghij"))},
			owned:    []*model.PVC{mkClaim(cs, "data", "fghij")},
			wantV:    []string{},
			want:     []model.Action{reown("data-web-fghij", "web-fghij", rInactive("fghij", "web-fghij"))},
		},
		{
			name:     "id of a Succeeded pod: re-owned to it",
			cs:       cs,
			inactive: []*model.Pod{succeeded(mkPod(cs, "fghij"))},
			owned:    []*model.PVC{mkClaim(cs, "data", "fghij")},
			wantV:    []string{},
			want:     []model.Action{reown("data-web-fghij", "web-fghij", rInactive("fghij", "web-fghij"))},
		},
		{
			name:     "id of a Failed pod: re-owned to it",
			cs:       cs,
			inactive: []*model.Pod{failed(mkPod(cs, "fghij"))},
			owned:    []*model.PVC{mkClaim(cs, "data", "fghij")},
			wantV:    []string{},
			want:     []model.Action{reown("data-web-fghij", "web-fghij", rInactive("fghij", "web-fghij"))},
		},
		{
			name: "duplicate id among inactive pods: greatest name wins (N12), whatever the input order",
			cs:   cs,
			inactive: []*model.Pod{
				terminating(mkPodNamed(cs, "web-zz", "dup")),
				terminating(mkPodNamed(cs, "web-aa", "dup")),
				failed(mkPodNamed(cs, "web-mm", "dup")),
			},
			owned: []*model.PVC{mkClaim(cs, "data", "dup")},
			wantV: []string{},
			want:  []model.Action{reown("data-web-dup", "web-zz", rInactive("dup", "web-zz"))},
		},
		{
			name:     "id both active and inactive: active wins, kept",
			cs:       cs,
			active:   []*model.Pod{mkPodNamed(cs, "web-new", "same")},
			inactive: []*model.Pod{terminating(mkPodNamed(cs, "web-old", "same"))},
			owned:    []*model.PVC{mkClaim(cs, "data", "same")},
			wantV:    []string{"data-web-same"},
		},
		{
			name:  "no pod of that id: deleted",
			cs:    cs,
			owned: []*model.PVC{mkClaim(cs, "data", "zzzzz")},
			wantV: []string{},
			want:  []model.Action{del("data-web-zzzzz", rNoPod("zzzzz"))},
		},
		{
			name:     "no instance-id label: deleted even when id-less pods exist",
			cs:       cs,
			active:   []*model.Pod{mkPodNamed(cs, "web-adopted", "")},
			inactive: []*model.Pod{terminating(mkPodNamed(cs, "web-gone", ""))},
			owned:    []*model.PVC{mkClaimNamed(cs, "data-web-nolabel", "")},
			wantV:    []string{},
			want:     []model.Action{del("data-web-nolabel", rNoLabel)},
		},
		{
			name: "empty instance-id label value: same as no label",
			cs:   cs,
			owned: []*model.PVC{func() *model.PVC {
				c := mkClaimNamed(cs, "data-web-empty", "")
				c.Labels[model.LabelInstanceID] = ""
				return c
			}()},
			wantV: []string{},
			want:  []model.Action{del("data-web-empty", rNoLabel)},
		},
		{
			name:   "terminating PVC: not owned in the sense of section 0, untouched",
			cs:     cs,
			active: nil,
			owned:  []*model.PVC{deletingClaim(mkClaim(cs, "data", "zzzzz"))},
			wantV:  []string{},
		},
		{
			name:  "PVC already owned by a pod or by another controller: untouched",
			cs:    cs,
			owned: []*model.PVC{ownedBy(mkClaim(cs, "data", "zzzzz"), foreignPod), ownedBy(mkClaim(cs, "data", "yyyyy"), foreignUnit)},
			wantV: []string{},
		},
		{
			name: "non-controller reference to the CloneSet: not owned, untouched",
			cs:   cs,
			owned: []*model.PVC{func() *model.PVC {
				c := mkClaim(cs, "data", "zzzzz")
				c.OwnerReferences[0].Controller = false
				return c
			}()},
			wantV: []string{},
		},
		{
			name: "mixed, canonical order of V and of the actions whatever the input order",
			cs:   cs,
			active: []*model.Pod{
				mkPod(cs, "abcde"), nil,
			},
			inactive: []*model.Pod{nil, terminating(mkPod(cs, "fghij"))},
			owned: []*model.PVC{
				mkClaim(cs, "logs", "abcde"), mkClaim(cs, "data", "zzzzz"), nil,
				mkClaim(cs, "data", "fghij"), mkClaim(cs, "data", "abcde"), mkClaim(cs, "logs", "fghij"),
				mkClaim(cs, "logs", "zzzzz"), mkClaimNamed(cs, "cache-web", ""),
			},
			wantV: []string{"data-web-abcde", "logs-web-abcde"},
			want: []model.Action{
				del("cache-web", rNoLabel),
				reown("data-web-fghij", "web-fghij", rInactive("fghij", "web-fghij")),
				del("data-web-zzzzz", rNoPod("zzzzz")),
				reown("logs-web-fghij", "web-fghij", rInactive("fghij", "web-fghij")),
				del("logs-web-zzzzz", rNoPod("zzzzz")),
			},
		},
		{
			name:  "duplicate PVC name in the input: handled once",
			cs:    cs,
			owned: []*model.PVC{mkClaim(cs, "data", "zzzzz"), mkClaim(cs, "data", "zzzzz")},
			wantV: []string{},
			want:  []model.Action{del("data-web-zzzzz", rNoPod("zzzzz"))},
		},
		{
			name:  "CloneSet being deleted: clean-up still runs (4.1 step 3)",
			cs:    deletingCS,
			owned: []*model.PVC{mkClaim(deletingCS, "data", "zzzzz")},
			wantV: []string{},
			want:  []model.Action{del("data-web-zzzzz", rNoPod("zzzzz"))},
		},
		{
			name:  "CloneSet without uid: ownership by kind and name",
			cs:    noUID,
			owned: []*model.PVC{ownedBy(mkClaim(noUID, "data", "zzzzz"), noUIDRef), ownedBy(mkClaim(noUID, "data", "yyyyy"), foreignPod)},
			wantV: []string{},
			want:  []model.Action{del("data-web-zzzzz", rNoPod("zzzzz"))},
		},
		{
			name:     "reuse enabled: no clean-up at all, V is every owned PVC",
			cs:       reuseCS,
			inactive: []*model.Pod{terminating(mkPod(reuseCS, "fghij"))},
			owned: []*model.PVC{
				mkClaim(reuseCS, "data", "zzzzz"), mkClaim(reuseCS, "data", "fghij"), mkClaimNamed(reuseCS, "nolabel", ""),
				deletingClaim(mkClaim(reuseCS, "data", "yyyyy")), ownedBy(mkClaim(reuseCS, "data", "xxxxx"), foreignPod),
			},
			wantV: []string{"data-web-fghij", "data-web-zzzzz", "nolabel"},
		},
		{
			name:  "nil CloneSet: owns nothing",
			cs:    nil,
			owned: []*model.PVC{mkClaim(cs, "data", "zzzzz")},
			wantV: []string{},
		},
		{
			name:  "nothing owned",
			cs:    cs,
			wantV: []string{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, fn := range []struct {
				name string
				f    func(*model.CloneSet, []*model.Pod, []*model.Pod, []*model.PVC) ([]*model.PVC, []model.Action)
			}{{"Cleanup", Cleanup}, {"Usable", Usable}} {
				v, actions := fn.f(tc.cs, tc.active, tc.inactive, tc.owned)
				if diff := cmp.Diff(tc.wantV, names(v)); diff != "" {
					t.Errorf("%s V (-want +got):\n%s", fn.name, diff)
				}
				if diff := cmp.Diff(tc.want, actions, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("%s actions (-want +got):\n%s", fn.name, diff)
				}
			}
		})
	}
}

// TestCleanupDoesNotMutate checks that the inputs are left as they were.
func TestCleanupDoesNotMutate(t *testing.T) {
	cs := newCS("web", specUID, false, "data")
	owned := []*model.PVC{mkClaim(cs, "data", "zzzzz"), mkClaim(cs, "data", "aaaaa")}
	Cleanup(cs, []*model.Pod{mkPod(cs, "aaaaa")}, nil, owned)
	if owned[0].Name != "data-web-zzzzz" || owned[1].Name != "data-web-aaaaa" {
		t.Errorf("input reordered: %v", names(owned))
	}
	if len(owned[0].OwnerReferences) != 1 || owned[0].OwnerReferences[0].Kind != "CloneSet" {
		t.Errorf("input PVC modified: %+v", owned[0].OwnerReferences)
	}
}

func TestOwned(t *testing.T) {
	cs := newCS("web", specUID, true, "data")
	got := Owned(cs, []*model.PVC{
		mkClaim(cs, "data", "c"), nil, mkClaim(cs, "data", "a"), deletingClaim(mkClaim(cs, "data", "b")),
		ownedBy(mkClaim(cs, "data", "d"), foreignPod), mkClaim(cs, "data", "a"),
	})
	if diff := cmp.Diff([]string{"data-web-a", "data-web-c"}, names(got)); diff != "" {
		t.Error(diff)
	}
	if got := Owned(nil, []*model.PVC{mkClaim(cs, "data", "a")}); len(got) != 0 {
		t.Errorf("nil CloneSet owns %v", names(got))
	}
	if IsOwnedBy(nil, cs) || IsOwnedBy(mkClaim(cs, "data", "a"), nil) {
		t.Error("nil arguments are owned")
	}
}

func TestReuseEnabled(t *testing.T) {
	if ReuseEnabled(nil) {
		t.Error("nil CloneSet reuses")
	}
	if ReuseEnabled(newCS("web", "", false)) {
		t.Error("enablePVCReuse false reuses")
	}
	if !ReuseEnabled(newCS("web", "", true)) {
		t.Error("enablePVCReuse true does not reuse")
	}
}

func TestReown(t *testing.T) {
	cs := newCS("web", specUID, false, "data")
	c := mkClaim(cs, "data", "fghij")
	// A second, non-controller reference to the CloneSet is removed too; an
	// unrelated one stays.
	other := model.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "cm", UID: "cm-uid"}
	c.OwnerReferences = append(c.OwnerReferences, model.OwnerReference{Kind: "CloneSet", Name: "web", UID: specUID}, other)
	c.Annotations = map[string]string{"a": "b"}
	p := terminating(mkPod(cs, "fghij"))
	got := Reown(c, cs, p)
	want := []model.OwnerReference{other, {APIVersion: "v1", Kind: "Pod", Name: "web-fghij", UID: "uid-web-fghij", Controller: true}}
	if diff := cmp.Diff(want, got.OwnerReferences); diff != "" {
		t.Errorf("owner references (-want +got):\n%s", diff)
	}
	if IsOwnedBy(got, cs) {
		t.Error("re-owned PVC still owned by the CloneSet")
	}
	got.Labels["x"] = "y"
	got.Annotations["x"] = "y"
	if _, ok := c.Labels["x"]; ok {
		t.Error("labels shared with the input")
	}
	if _, ok := c.Annotations["x"]; ok {
		t.Error("annotations shared with the input")
	}
	if len(c.OwnerReferences) != 3 {
		t.Error("input owner references modified")
	}
	// After re-owning, the next round's clean-up no longer sees the PVC.
	if v, a := Cleanup(cs, nil, nil, []*model.PVC{got}); len(v)+len(a) != 0 {
		t.Errorf("re-owned PVC seen again: %v %v", names(v), a)
	}
	// Without uid on the CloneSet: by kind and name.
	noUID := newCS("web", "", false)
	c2 := ownedBy(mkClaim(noUID, "data", "x"), model.OwnerReference{Kind: "CloneSet", Name: "web", Controller: true})
	if got := Reown(c2, noUID, p); len(got.OwnerReferences) != 1 || got.OwnerReferences[0].Kind != "Pod" {
		t.Errorf("got %+v", got.OwnerReferences)
	}
	if Reown(nil, cs, p) != nil || Reown(c, cs, nil) != nil {
		t.Error("nil input should yield nil")
	}
	if got := Reown(c2, nil, p); len(got.OwnerReferences) != 2 {
		t.Errorf("nil CloneSet: references %+v", got.OwnerReferences)
	}
	c3 := mkClaim(cs, "data", "x")
	c3.Labels, c3.Annotations = nil, nil
	if got := Reown(c3, cs, p); got.Labels != nil || got.Annotations != nil {
		t.Error("nil maps should stay nil")
	}
}
