package pvc

import (
	"testing"

	"github.com/clonecore/cloneset/model"
	"github.com/google/go-cmp/cmp"
)

func TestClaimsForNewPod(t *testing.T) {
	cs := newCS("web", specUID, true, "logs", "data", "cache")
	usable := []*model.PVC{mkClaim(cs, "data", "abcde"), nil, mkClaim(cs, "cache", "abcde"), mkClaim(cs, "data", "other"), mkClaim(cs, "data", "abcde")}
	tests := []struct {
		name         string
		cs           *model.CloneSet
		id           string
		usable       []*model.PVC
		create, reus []string
	}{
		{"declaration order, split create/reuse", cs, "abcde", usable,
			[]string{"logs-web-abcde"}, []string{"data-web-abcde", "cache-web-abcde"}},
		{"new id: everything created", cs, "vt5vm", usable,
			[]string{"logs-web-vt5vm", "data-web-vt5vm", "cache-web-vt5vm"}, nil},
		{"no claim templates", newCS("web", specUID, true), "abcde", usable, nil, nil},
		{"duplicate template name counts once", newCS("web", specUID, true, "data", "logs", "data"), "abcde", usable,
			[]string{"logs-web-abcde"}, []string{"data-web-abcde"}},
		{"duplicate names among many templates count once", newCS("web", specUID, true, "t1", "t2", "t3", "t4", "data", "t5", "t6", "t7", "t8", "data", "t1"), "abcde", usable,
			[]string{"t1-web-abcde", "t2-web-abcde", "t3-web-abcde", "t4-web-abcde", "t5-web-abcde", "t6-web-abcde", "t7-web-abcde", "t8-web-abcde"}, []string{"data-web-abcde"}},
		{"nil CloneSet", nil, "abcde", usable, nil, nil},
		{"empty V", cs, "abcde", nil, []string{"logs-web-abcde", "data-web-abcde", "cache-web-abcde"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, r := ClaimsForNewPod(tc.cs, tc.id, tc.usable)
			c2, r2 := NewIndex(tc.usable).ClaimsForNewPod(tc.cs, tc.id)
			for _, got := range [][2][]string{{c, r}, {c2, r2}} {
				if diff := cmp.Diff(tc.create, got[0]); diff != "" {
					t.Errorf("create (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tc.reus, got[1]); diff != "" {
					t.Errorf("reuse (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestClaimsOfPod(t *testing.T) {
	cs := newCS("web", specUID, false, "data", "logs")
	usable := []*model.PVC{
		mkClaim(cs, "logs", "abcde"), mkClaim(cs, "data", "abcde"), mkClaim(cs, "data", "fghij"), nil,
		mkClaimNamed(cs, "nolabel-b", ""), mkClaimNamed(cs, "nolabel-a", ""),
		func() *model.PVC {
			c := mkClaimNamed(cs, "emptylabel", "")
			c.Labels[model.LabelInstanceID] = ""
			return c
		}(),
		mkClaim(cs, "data", "abcde"), // duplicate name
	}
	tests := []struct {
		name string
		pod  *model.Pod
		want []string
	}{
		{"all PVCs of the id, canonical order", mkPod(cs, "abcde"), []string{"data-web-abcde", "logs-web-abcde"}},
		{"pod name irrelevant, only the label", mkPodNamed(cs, "web-fghij", "abcde"), []string{"data-web-abcde", "logs-web-abcde"}},
		{"id without PVCs", mkPod(cs, "zzzzz"), nil},
		{"[quirk] id-less pod matches every id-less PVC (absent or empty label)", mkPodNamed(cs, "web-adopted", ""),
			[]string{"emptylabel", "nolabel-a", "nolabel-b"}},
		{"nil pod", nil, nil},
	}
	idx := NewIndex(usable)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ClaimsOfPod(tc.pod, usable)); diff != "" {
				t.Errorf("ClaimsOfPod (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, idx.ClaimsOfPod(tc.pod)); diff != "" {
				t.Errorf("Index.ClaimsOfPod (-want +got):\n%s", diff)
			}
		})
	}
	// The result is a fresh slice: changing it does not change the index.
	got := idx.ClaimsOfPod(mkPod(cs, "abcde"))
	got[0] = "changed"
	if again := idx.ClaimsOfPod(mkPod(cs, "abcde")); again[0] != "data-web-abcde" {
		t.Errorf("index modified through a result: %v", again)
	}
}

func TestNilIndex(t *testing.T) {
	var x *Index
	if x.Has("a") || x.ClaimsOfPod(&model.Pod{}) != nil {
		t.Error("nil index is not empty")
	}
	c, r := x.ClaimsForNewPod(newCS("web", "", false, "data"), "abcde")
	if diff := cmp.Diff([]string{"data-web-abcde"}, c); diff != "" || r != nil {
		t.Errorf("nil index: create %v reuse %v", c, r)
	}
}

func TestNewClaim(t *testing.T) {
	cs := newCS("web", specUID, false)
	cs.Spec.Selector.MatchLabels["tier"] = "db"
	tmpl := &model.VolumeClaimTemplate{
		Name:           "data",
		Labels:         map[string]string{"app": "template-value", "kept": "yes", model.LabelInstanceID: "template-id"},
		Annotations:    map[string]string{"note": "n"},
		StorageRequest: "20Gi",
		Raw: map[string]any{"metadata": map[string]any{"name": "data", "ownerReferences": []any{
			map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "cm", "uid": "cm-uid", "controller": false},
			"malformed",
		}}},
	}
	got := NewClaim(cs, tmpl, "abcde")
	want := &model.PVC{
		Name:      "data-web-abcde",
		Namespace: "default",
		Labels: map[string]string{
			"app": "web", "tier": "db", "kept": "yes", model.LabelInstanceID: "abcde",
		},
		Annotations: map[string]string{"note": "n"},
		OwnerReferences: []model.OwnerReference{
			{APIVersion: "v1", Kind: "ConfigMap", Name: "cm", UID: "cm-uid"},
			{APIVersion: model.APIVersionV1beta1, Kind: "CloneSet", Name: "web", UID: specUID, Controller: true},
		},
		StorageRequest: "20Gi",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NewClaim (-want +got):\n%s", diff)
	}
	got.Annotations["x"] = "y"
	if _, ok := tmpl.Annotations["x"]; ok {
		t.Error("annotations shared with the template")
	}
	// Without selector, raw tree or annotations.
	bare := newCS("web", specUID, false)
	bare.Spec.Selector = nil
	got = NewClaim(bare, &model.VolumeClaimTemplate{Name: "d"}, "x")
	if diff := cmp.Diff(map[string]string{model.LabelInstanceID: "x"}, got.Labels); diff != "" {
		t.Error(diff)
	}
	if got.Annotations != nil || len(got.OwnerReferences) != 1 {
		t.Errorf("bare claim: %+v", got)
	}
	if NewClaim(nil, tmpl, "x") != nil || NewClaim(cs, nil, "x") != nil {
		t.Error("nil input should yield nil")
	}
}

func TestPodVolumes(t *testing.T) {
	cs := newCS("web", specUID, false, "logs", "data", "logs")
	got := PodVolumes(cs, []string{"config", "data", "tmp"})
	if diff := cmp.Diff([]string{"logs", "data", "config", "tmp"}, got); diff != "" {
		t.Error(diff)
	}
	if diff := cmp.Diff([]string{"a"}, PodVolumes(nil, []string{"a"})); diff != "" {
		t.Error(diff)
	}
}
