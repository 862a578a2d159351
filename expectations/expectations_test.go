package expectations

import (
	"reflect"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func pod(name string) Object { return Object{Kind: "Pod", Name: name} }

// cache is a Lookup over a fixed set of observations.
func cache(objs map[Object]Observation) Lookup {
	return func(o Object) Observation { return objs[o] }
}

func TestSatisfied(t *testing.T) {
	type write struct {
		op  Op
		obj Object
		rv  string
		at  time.Duration // after t0
	}
	tests := []struct {
		name        string
		writes      []write
		shows       map[Object]Observation
		now         time.Duration
		satisfied   bool
		pending     []string // "Kind/name op"
		dropped     []string
		requeue     time.Duration
		leftAfterwd int
	}{
		{name: "nothing expected", satisfied: true},
		{
			name:      "create not yet seen",
			writes:    []write{{op: OpCreate, obj: pod("a")}},
			now:       time.Second,
			pending:   []string{"Pod/a create"},
			requeue:   DefaultTimeout - time.Second,
			satisfied: false, leftAfterwd: 1,
		},
		{
			name:      "create seen",
			writes:    []write{{op: OpCreate, obj: pod("a")}},
			shows:     map[Object]Observation{pod("a"): {Present: true, ResourceVersion: "5"}},
			satisfied: true,
		},
		{
			name:      "delete: object still there",
			writes:    []write{{op: OpDelete, obj: pod("a")}},
			shows:     map[Object]Observation{pod("a"): {Present: true}},
			pending:   []string{"Pod/a delete"},
			requeue:   DefaultTimeout,
			satisfied: false, leftAfterwd: 1,
		},
		{
			name:      "delete: object terminating (finalizers hold it)",
			writes:    []write{{op: OpDelete, obj: pod("a")}},
			shows:     map[Object]Observation{pod("a"): {Present: true, Terminating: true}},
			satisfied: true,
		},
		{
			name:      "delete: object gone",
			writes:    []write{{op: OpDelete, obj: pod("a")}},
			satisfied: true,
		},
		{
			name:      "resourceVersion older in cache",
			writes:    []write{{op: OpResourceVersion, obj: pod("a"), rv: "12"}},
			shows:     map[Object]Observation{pod("a"): {Present: true, ResourceVersion: "9"}},
			pending:   []string{"Pod/a resourceVersion"},
			requeue:   DefaultTimeout,
			satisfied: false, leftAfterwd: 1,
		},
		{
			name:      "resourceVersion reached",
			writes:    []write{{op: OpResourceVersion, obj: pod("a"), rv: "12"}},
			shows:     map[Object]Observation{pod("a"): {Present: true, ResourceVersion: "12"}},
			satisfied: true,
		},
		{
			name:      "resourceVersion passed (numeric, not textual, order)",
			writes:    []write{{op: OpResourceVersion, obj: pod("a"), rv: "9"}},
			shows:     map[Object]Observation{pod("a"): {Present: true, ResourceVersion: "10"}},
			satisfied: true,
		},
		{
			name:      "resourceVersion: object gone",
			writes:    []write{{op: OpResourceVersion, obj: pod("a"), rv: "9"}},
			satisfied: true,
		},
		{
			name:      "empty resourceVersion records nothing",
			writes:    []write{{op: OpResourceVersion, obj: pod("a"), rv: ""}},
			shows:     map[Object]Observation{pod("a"): {Present: true, ResourceVersion: "1"}},
			satisfied: true,
		},
		{
			name: "timeout drops the old one, keeps the young one",
			writes: []write{
				{op: OpCreate, obj: pod("old")},
				{op: OpCreate, obj: Object{Kind: "PersistentVolumeClaim", Name: "data-young"}, at: 4 * time.Minute},
			},
			now:       DefaultTimeout,
			pending:   []string{"PersistentVolumeClaim/data-young create"},
			dropped:   []string{"Pod/old create"},
			requeue:   4 * time.Minute,
			satisfied: false, leftAfterwd: 1,
		},
		{
			name: "pending sorted by kind, name, op; requeue from the oldest",
			writes: []write{
				{op: OpDelete, obj: pod("b"), at: time.Minute},
				{op: OpCreate, obj: pod("b"), at: 2 * time.Minute},
				{op: OpCreate, obj: pod("a"), at: 3 * time.Minute},
			},
			shows:     map[Object]Observation{pod("b"): {Present: false}},
			now:       3 * time.Minute,
			pending:   []string{"Pod/a create", "Pod/b create"},
			requeue:   4 * time.Minute,
			satisfied: false, leftAfterwd: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New(0)
			for _, w := range tc.writes {
				at := t0.Add(w.at)
				switch w.op {
				case OpCreate:
					s.ExpectCreate("ns/cs", w.obj, at)
				case OpDelete:
					s.ExpectDelete("ns/cs", w.obj, at)
				case OpResourceVersion:
					s.ExpectResourceVersion("ns/cs", w.obj, w.rv, at)
				}
			}
			v := s.Satisfied("ns/cs", t0.Add(tc.now), cache(tc.shows))
			if v.Satisfied != tc.satisfied {
				t.Errorf("Satisfied = %v, want %v", v.Satisfied, tc.satisfied)
			}
			if got := names(v.Pending); !reflect.DeepEqual(got, tc.pending) {
				t.Errorf("Pending = %v, want %v", got, tc.pending)
			}
			if got := names(v.Dropped); !reflect.DeepEqual(got, tc.dropped) {
				t.Errorf("Dropped = %v, want %v", got, tc.dropped)
			}
			if v.RequeueAfter != tc.requeue {
				t.Errorf("RequeueAfter = %v, want %v", v.RequeueAfter, tc.requeue)
			}
			if got := len(s.Pending("ns/cs")); got != tc.leftAfterwd {
				t.Errorf("%d expectations left, want %d", got, tc.leftAfterwd)
			}
		})
	}
}

func names(list []Expectation) []string {
	var out []string
	for _, e := range list {
		out = append(out, e.Object.String()+" "+string(e.Op))
	}
	return out
}

func TestOwnersAreSeparate(t *testing.T) {
	s := New(time.Minute)
	s.ExpectCreate("ns/a", pod("x"), t0)
	if v := s.Satisfied("ns/b", t0, cache(nil)); !v.Satisfied {
		t.Fatalf("ns/b blocked by an expectation of ns/a: %+v", v)
	}
	if v := s.Satisfied("ns/a", t0, cache(nil)); v.Satisfied {
		t.Fatal("ns/a not blocked by its own create")
	}
	s.Forget("ns/a")
	if v := s.Satisfied("ns/a", t0, cache(nil)); !v.Satisfied {
		t.Fatalf("Forget left expectations: %+v", v)
	}
}

func TestLowerUndoesAFailedWrite(t *testing.T) {
	s := New(0)
	s.ExpectCreate("ns/cs", pod("x"), t0)
	s.ExpectDelete("ns/cs", pod("y"), t0)
	s.Lower("ns/cs", pod("x"), OpCreate)
	v := s.Satisfied("ns/cs", t0, cache(map[Object]Observation{pod("y"): {Present: true}}))
	if got := names(v.Pending); !reflect.DeepEqual(got, []string{"Pod/y delete"}) {
		t.Fatalf("Pending = %v, want only the delete of y", got)
	}
	s.Lower("ns/cs", pod("y"), OpDelete)
	s.Lower("ns/cs", pod("y"), OpDelete) // lowering twice is harmless
	if v := s.Satisfied("ns/cs", t0, cache(nil)); !v.Satisfied {
		t.Fatalf("not satisfied after lowering everything: %+v", v)
	}
}

func TestLaterResourceVersionReplacesEarlier(t *testing.T) {
	s := New(0)
	s.ExpectResourceVersion("ns/cs", pod("a"), "5", t0)
	s.ExpectResourceVersion("ns/cs", pod("a"), "7", t0.Add(time.Second))
	v := s.Satisfied("ns/cs", t0.Add(time.Second), cache(map[Object]Observation{pod("a"): {Present: true, ResourceVersion: "6"}}))
	if v.Satisfied || len(v.Pending) != 1 || v.Pending[0].ResourceVersion != "7" {
		t.Fatalf("want one pending expectation at 7, got %+v", v)
	}
}

func TestAtLeast(t *testing.T) {
	tests := []struct {
		have, want string
		ok         bool
	}{
		{"10", "9", true},
		{"9", "10", false},
		{"10", "10", true},
		{"abc", "abc", true},
		{"abd", "abc", false},
		{"", "1", false},
	}
	for _, tc := range tests {
		if got := AtLeast(tc.have, tc.want); got != tc.ok {
			t.Errorf("AtLeast(%q, %q) = %v, want %v", tc.have, tc.want, got, tc.ok)
		}
	}
}
