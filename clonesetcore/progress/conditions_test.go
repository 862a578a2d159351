package progress

import (
	"testing"

	"github.com/clonecore/cloneset/model"
	"github.com/google/go-cmp/cmp"
)

func cond(typ, status, reason, msg string, lut, ltt float64) model.CloneSetCondition {
	c := model.CloneSetCondition{Type: typ, Status: status, Reason: reason, Message: msg}
	if lut >= 0 {
		c.LastUpdateTime = at(lut)
	}
	if ltt >= 0 {
		c.LastTransitionTime = at(ltt)
	}
	return c
}

const (
	prog = model.ConditionProgressing
	fs   = model.ConditionFailedScale
	fu   = model.ConditionFailedUpdate
)

func TestSetConditionRules(t *testing.T) {
	other1 := cond(fs, StatusTrue, "", "scale failed", -1, 1)
	other2 := cond(fu, StatusTrue, "", "update failed", -1, 2)
	cases := []struct {
		name  string
		conds []model.CloneSetCondition
		c     model.CloneSetCondition
		now   float64
		want  []model.CloneSetCondition
	}{
		{
			name:  "rule 2: same status and reason keeps E entirely, in place",
			conds: []model.CloneSetCondition{other1, cond(prog, StatusTrue, ReasonUpdated, "old message", 10, 5), other2},
			c:     cond(prog, StatusTrue, ReasonUpdated, MessageUpdated, 50, 50),
			now:   50,
			want:  []model.CloneSetCondition{other1, cond(prog, StatusTrue, ReasonUpdated, "old message", 10, 5), other2},
		},
		{
			name:  "rule 3: same status, new reason keeps E's lastTransitionTime; appended at the end",
			conds: []model.CloneSetCondition{other1, cond(prog, StatusTrue, ReasonUpdated, MessageUpdated, 10, 5), other2},
			c:     cond(prog, StatusTrue, ReasonAvailable, MessageAvailable, 50, 50),
			now:   50,
			want:  []model.CloneSetCondition{other1, other2, cond(prog, StatusTrue, ReasonAvailable, MessageAvailable, 50, 5)},
		},
		{
			name:  "rule 3: status change takes the new times",
			conds: []model.CloneSetCondition{cond(prog, StatusTrue, ReasonUpdated, MessageUpdated, 10, 5), other1},
			c:     cond(prog, StatusFalse, ReasonDeadlineExceeded, TimedOutMessage(v2), 50, 50),
			now:   50,
			want:  []model.CloneSetCondition{other1, cond(prog, StatusFalse, ReasonDeadlineExceeded, TimedOutMessage(v2), 50, 50)},
		},
		{
			name:  "new type appended; times truncated to whole seconds",
			conds: []model.CloneSetCondition{other1},
			c:     cond(prog, StatusTrue, ReasonUpdated, MessageUpdated, 50.9, 50.9),
			now:   50.9,
			want:  []model.CloneSetCondition{other1, cond(prog, StatusTrue, ReasonUpdated, MessageUpdated, 50, 50)},
		},
		{
			name:  "zero lastTransitionTime defaults to now; zero lastUpdateTime stays zero",
			conds: nil,
			c:     cond(fs, StatusTrue, "", "boom", -1, -1),
			now:   7.5,
			want:  []model.CloneSetCondition{cond(fs, StatusTrue, "", "boom", -1, 7)},
		},
		{
			name: "duplicates of the type: the first decides, all are removed",
			conds: []model.CloneSetCondition{cond(prog, StatusTrue, ReasonPaused, MessagePaused, 10, 3), other1,
				cond(prog, StatusTrue, ReasonUpdated, MessageUpdated, 20, 4)},
			c:    cond(prog, StatusTrue, ReasonUpdated, MessageUpdated, 50, 50),
			now:  50,
			want: []model.CloneSetCondition{other1, cond(prog, StatusTrue, ReasonUpdated, MessageUpdated, 50, 3)},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := append([]model.CloneSetCondition(nil), tc.conds...)
			got := SetCondition(tc.conds, tc.c, at(tc.now))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("SetCondition (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tc.conds); diff != "" {
				t.Errorf("input modified (-before +after):\n%s", diff)
			}
			if len(tc.conds) > 0 && len(got) > 0 && &got[0] == &tc.conds[0] {
				t.Error("result shares the input's backing array")
			}
		})
	}
}

func TestSetConditionDoesNotAliasSpareCapacity(t *testing.T) {
	backing := make([]model.CloneSetCondition, 1, 4)
	backing[0] = cond(fs, StatusTrue, "", "x", -1, 1)
	a := SetCondition(backing, cond(prog, StatusTrue, ReasonUpdated, MessageUpdated, 2, 2), at(2))
	b := SetCondition(backing, cond(fu, StatusTrue, "", "y", -1, -1), at(3))
	if a[1].Type != prog || b[1].Type != fu {
		t.Errorf("results alias each other: %s / %s", fmtConds(a), fmtConds(b))
	}
	if got := backing[:2][1]; got.Type != "" {
		t.Errorf("spare capacity of the input was written: %s", fmtConds([]model.CloneSetCondition{got}))
	}
}

func TestRemoveCondition(t *testing.T) {
	a := cond(fs, StatusTrue, "", "a", -1, 1)
	b := cond(fu, StatusTrue, "", "b", -1, 2)
	p1 := cond(prog, StatusTrue, ReasonUpdated, MessageUpdated, 3, 3)
	p2 := cond(prog, StatusFalse, ReasonDeadlineExceeded, "x", 4, 4)
	in := []model.CloneSetCondition{p1, a, p2, b}
	got := RemoveCondition(in, prog)
	if diff := cmp.Diff([]model.CloneSetCondition{a, b}, got); diff != "" {
		t.Errorf("RemoveCondition (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]model.CloneSetCondition{p1, a, p2, b}, in); diff != "" {
		t.Errorf("input modified:\n%s", diff)
	}
	if got := RemoveCondition([]model.CloneSetCondition{p1}, prog); got != nil {
		t.Errorf("empty result %#v, want nil", got)
	}
	if got := RemoveCondition(in, "Absent"); len(got) != 4 || &got[0] == &in[0] {
		t.Errorf("removing an absent type must return an unaliased copy, got %s", fmtConds(got))
	}
}

// LSV 2.5: FailedScale/FailedUpdate are added once and never modified again, and
// the Progressing decision never removes them.
func TestFailedConditionPersistence(t *testing.T) {
	var conds []model.CloneSetCondition
	conds = SetCondition(conds, FailedCondition(fs, "spec.Replicas is nil", at(10.4)), at(10.4))
	want := []model.CloneSetCondition{cond(fs, StatusTrue, "", "spec.Replicas is nil", -1, 10)}
	if diff := cmp.Diff(want, conds); diff != "" {
		t.Fatalf("first failure (-want +got):\n%s", diff)
	}
	conds = SetCondition(conds, FailedCondition(fu, "pod web-a cannot be updated in place", at(20)), at(20))
	conds = SetCondition(conds, FailedCondition(fs, "a different error", at(30)), at(30))
	conds = SetCondition(conds, FailedCondition(fu, "another update error", at(40)), at(40))
	want = []model.CloneSetCondition{
		cond(fs, StatusTrue, "", "spec.Replicas is nil", -1, 10),
		cond(fu, StatusTrue, "", "pod web-a cannot be updated in place", -1, 20),
	}
	if diff := cmp.Diff(want, conds); diff != "" {
		t.Errorf("later failures must not modify the conditions (-want +got):\n%s", diff)
	}
	for _, pds := range []*int32{nil, i32(30)} {
		in := roundInput(observation{3, 3, 3, v1, v1, false}, 0, conds, at(100))
		in.ProgressDeadlineSeconds = pds
		res := Evaluate(in)
		if diff := cmp.Diff(want, nonProgressing(res.Conditions)); diff != "" {
			t.Errorf("pds %v: Evaluate changed FailedScale/FailedUpdate (-want +got):\n%s", pds, diff)
		}
	}
	if WriteNeeded(model.CloneSetStatus{Replicas: 3}, model.CloneSetStatus{Replicas: 3, Conditions: conds}) {
		t.Error("a new FailedScale/FailedUpdate alone must not cause a status write (LSV 2.6)")
	}
}

func TestWriteNeeded(t *testing.T) {
	progressing := cond(prog, StatusTrue, ReasonUpdated, MessageUpdated, 10, 10)
	base := model.CloneSetStatus{
		ObservedGeneration: 4, Replicas: 3, ReadyReplicas: 3, AvailableReplicas: 2, UpdatedReplicas: 2,
		UpdatedReadyReplicas: 2, UpdatedAvailableReplicas: 1, ExpectedUpdatedReplicas: 3,
		CurrentRevision: v1, UpdateRevision: v2, CollisionCount: i32(0), LabelSelector: "app=web",
		Conditions: []model.CloneSetCondition{progressing},
	}
	cases := []struct {
		name   string
		modify func(s *model.CloneSetStatus)
		want   bool
	}{
		{"identical", func(s *model.CloneSetStatus) {}, false},
		{"observedGeneration increased", func(s *model.CloneSetStatus) { s.ObservedGeneration = 5 }, true},
		{"observedGeneration decreased", func(s *model.CloneSetStatus) { s.ObservedGeneration = 3 }, false},
		{"replicas", func(s *model.CloneSetStatus) { s.Replicas = 4 }, true},
		{"readyReplicas", func(s *model.CloneSetStatus) { s.ReadyReplicas = 2 }, true},
		{"availableReplicas", func(s *model.CloneSetStatus) { s.AvailableReplicas = 3 }, true},
		{"updatedReplicas", func(s *model.CloneSetStatus) { s.UpdatedReplicas = 3 }, true},
		{"updatedReadyReplicas", func(s *model.CloneSetStatus) { s.UpdatedReadyReplicas = 3 }, true},
		{"updatedAvailableReplicas", func(s *model.CloneSetStatus) { s.UpdatedAvailableReplicas = 2 }, true},
		{"expectedUpdatedReplicas", func(s *model.CloneSetStatus) { s.ExpectedUpdatedReplicas = 2 }, true},
		{"updateRevision", func(s *model.CloneSetStatus) { s.UpdateRevision = "web-v3" }, true},
		{"currentRevision", func(s *model.CloneSetStatus) { s.CurrentRevision = v2 }, true},
		{"labelSelector", func(s *model.CloneSetStatus) { s.LabelSelector = "app=web,tier=fe" }, true},
		{"collisionCount only [quirk]", func(s *model.CloneSetStatus) { s.CollisionCount = i32(1) }, false},
		{"collisionCount nil vs set [quirk]", func(s *model.CloneSetStatus) { s.CollisionCount = nil }, false},
		{"FailedScale added only [quirk]", func(s *model.CloneSetStatus) {
			s.Conditions = append(s.Conditions, FailedCondition(fs, "boom", at(20)))
		}, false},
		{"FailedUpdate added only [quirk]", func(s *model.CloneSetStatus) {
			s.Conditions = []model.CloneSetCondition{FailedCondition(fu, "boom", at(20)), progressing}
		}, false},
		{"Progressing message and times only", func(s *model.CloneSetStatus) {
			s.Conditions = []model.CloneSetCondition{cond(prog, StatusTrue, ReasonUpdated, "other", 50, 50)}
		}, false},
		{"Progressing removed", func(s *model.CloneSetStatus) { s.Conditions = nil }, true},
		{"Progressing reason changed", func(s *model.CloneSetStatus) {
			s.Conditions = []model.CloneSetCondition{cond(prog, StatusTrue, ReasonAvailable, MessageAvailable, 10, 10)}
		}, true},
		{"Progressing status changed", func(s *model.CloneSetStatus) {
			s.Conditions = []model.CloneSetCondition{cond(prog, StatusFalse, ReasonUpdated, MessageUpdated, 10, 10)}
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			computed := base
			computed.Conditions = append([]model.CloneSetCondition(nil), base.Conditions...)
			tc.modify(&computed)
			if got := WriteNeeded(base, computed); got != tc.want {
				t.Errorf("WriteNeeded = %t, want %t", got, tc.want)
			}
		})
	}
	t.Run("Progressing added", func(t *testing.T) {
		old := base
		old.Conditions = nil
		if !WriteNeeded(old, base) {
			t.Error("adding Progressing must cause a write")
		}
	})
	t.Run("both without Progressing", func(t *testing.T) {
		old, computed := base, base
		old.Conditions, computed.Conditions = nil, []model.CloneSetCondition{FailedCondition(fs, "x", at(1))}
		if WriteNeeded(old, computed) {
			t.Error("no Progressing on either side and nothing else changed: no write")
		}
	})
}

func TestProgressingChangedUsesFirstCondition(t *testing.T) {
	old := []model.CloneSetCondition{cond(prog, StatusTrue, ReasonUpdated, "", 1, 1), cond(prog, StatusFalse, ReasonDeadlineExceeded, "", 1, 1)}
	computed := []model.CloneSetCondition{cond(prog, StatusTrue, ReasonUpdated, "", 2, 2)}
	if ProgressingChanged(old, computed) {
		t.Error("only the first Progressing condition is compared")
	}
}
