package inplace

import (
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
)

func podWithRevision(label string, set bool) *model.Pod {
	p := &model.Pod{Name: "p", Labels: map[string]string{}}
	if set {
		p.Labels[model.LabelRevisionHash] = label
	}
	return p
}

// TestOldRevisionExample1 is update-and-ordering Example 1.
func TestOldRevisionExample1(t *testing.T) {
	revs := []*model.Revision{
		{Name: "web-58f9c7bd4", Revision: 2},
		{Name: "web-6d4c8b97f", Revision: 1},
	}
	cases := []struct {
		label string
		set   bool
		want  string
	}{
		{"web-6d4c8b97f", true, "web-6d4c8b97f"},
		{"58f9c7bd4", true, "web-58f9c7bd4"},
		{"api-58f9c7bd4", true, "web-58f9c7bd4"},
		{"", false, ""},
		{"web-7777", true, ""},
	}
	for _, c := range cases {
		got := OldRevision(podWithRevision(c.label, c.set), revs)
		name := ""
		if got != nil {
			name = got.Name
		}
		if name != c.want {
			t.Errorf("label %q (set %v): old revision %q, want %q", c.label, c.set, name, c.want)
		}
	}
}

func TestOldRevisionOrder(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// All share the short hash "abc": the order decides.
	revs := []*model.Revision{
		{Name: "z-abc", Revision: 3, CreationTimestamp: t0},
		{Name: "y-abc", Revision: 2, CreationTimestamp: t0.Add(time.Hour)},
		{Name: "x-abc", Revision: 2, CreationTimestamp: t0},
		{Name: "w-abc", Revision: 2, CreationTimestamp: t0},
		nil,
	}
	p := podWithRevision("abc", true)
	if got := OldRevision(p, revs); got == nil || got.Name != "w-abc" {
		t.Fatalf("old revision = %v, want w-abc (lowest revision, oldest, then name)", got)
	}
	revs[3].CreationTimestamp = t0.Add(2 * time.Hour)
	if got := OldRevision(p, revs); got == nil || got.Name != "x-abc" {
		t.Fatalf("old revision = %v, want x-abc (older creationTimestamp first)", got)
	}
	revs[2].Revision = 5
	if got := OldRevision(p, revs); got == nil || got.Name != "y-abc" {
		t.Fatalf("old revision = %v, want y-abc", got)
	}
	if revs[0].Name != "z-abc" {
		t.Errorf("input slice reordered")
	}
	if got := OldRevision(p, nil); got != nil {
		t.Errorf("no revisions: %v", got)
	}
}

func TestFindRevision(t *testing.T) {
	revs := []*model.Revision{{Name: "web-abc", Revision: 1}, {Name: "web-def", Revision: 2}}
	if got := FindRevision("web-def", revs); got == nil || got.Name != "web-def" {
		t.Errorf("exact: %v", got)
	}
	if got := FindRevision("abc", revs); got == nil || got.Name != "web-abc" {
		t.Errorf("short hash: %v", got)
	}
	if got := FindRevision("web-xyz", revs); got != nil {
		t.Errorf("unknown: %v", got)
	}
}
