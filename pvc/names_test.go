package pvc

import (
	"strings"
	"testing"

	"github.com/clonecore/cloneset/model"
)

// TestGenerateIDVectors checks the test vectors of docs/spec/scale-and-budgets.md 7.2.
func TestGenerateIDVectors(t *testing.T) {
	tests := []struct {
		uid, name string
		k         int
		want      string
	}{
		{specUID, "web", 0, "vt5vm"},
		{specUID, "web", 1, "797rr"},
		{specUID, "web", 2, "b2w5c"},
		{specUID, "web", 3, "lg2zh"},
		{specUID, "web", 4, "p7qc4"},
		{specUID, "web", 5, "zlt87"},
		{"", "web", 0, "xp9ms"},
		{"", "web", 1, "95ckx"},
		{"", "web", 2, "dv4tj"},
	}
	for _, tc := range tests {
		if got := GenerateID(tc.uid, tc.name, tc.k); got != tc.want {
			t.Errorf("GenerateID(%q, %q, %d) = %q, want %q", tc.uid, tc.name, tc.k, got, tc.want)
		}
	}
}

// TestGenerateIDSeparators checks that the NUL separators are part of the
// hashed bytes: moving characters between uid and name changes the id.
func TestGenerateIDSeparators(t *testing.T) {
	if GenerateID("ab", "c", 0) == GenerateID("a", "bc", 0) {
		t.Error("uid/name boundary is not hashed")
	}
	if GenerateID("", "web1", 0) == GenerateID("", "web", 10) {
		t.Error("name/k boundary is not hashed")
	}
	// A negative k is hashed with its sign and still yields a well-formed id.
	if id := GenerateID("", "web", -1); !IsGeneratedForm(id) || id == GenerateID("", "web", 1) {
		t.Errorf("GenerateID(-1) = %q", id)
	}
}

func TestGenerateIDForm(t *testing.T) {
	for k := 0; k < 2000; k++ {
		id := GenerateID(specUID, "web", k)
		if len(id) != 5 || strings.Trim(id, Alphabet) != "" {
			t.Fatalf("k=%d: %q is not 5 characters of the alphabet", k, id)
		}
	}
}

func TestIsGeneratedForm(t *testing.T) {
	for id, want := range map[string]bool{
		"vt5vm": true, "bbbbb": true, "99999": true,
		"": false, "vt5v": false, "vt5vmm": false, "aaaaa": false, "vt5v1": false, "VT5VM": false, "vt5v\xff": false,
	} {
		if got := IsGeneratedForm(id); got != want {
			t.Errorf("IsGeneratedForm(%q) = %v, want %v", id, got, want)
		}
	}
	if len(Alphabet) != 27 {
		t.Errorf("alphabet has %d characters", len(Alphabet))
	}
}

func TestNames(t *testing.T) {
	cs := newCS("web", specUID, false, "data")
	if got := PodName(cs, "abcde"); got != "web-abcde" {
		t.Errorf("PodName = %q", got)
	}
	if got := ClaimName("data", cs, "abcde"); got != "data-web-abcde" {
		t.Errorf("ClaimName = %q", got)
	}
	// Nil CloneSet: no panic, empty name.
	if got := PodName(nil, "x"); got != "-x" {
		t.Errorf("PodName(nil) = %q", got)
	}
	if got := ClaimName("d", nil, "x"); got != "d--x" {
		t.Errorf("ClaimName(nil) = %q", got)
	}
}

func TestInstanceIDOf(t *testing.T) {
	cs := newCS("web", specUID, false)
	if got := InstanceIDOf(mkClaim(cs, "d", "abc")); got != "abc" {
		t.Errorf("got %q", got)
	}
	if got := InstanceIDOf(mkClaim(cs, "d", "")); got != "" {
		t.Errorf("got %q", got)
	}
	if got := InstanceIDOf(nil); got != "" {
		t.Errorf("got %q", got)
	}
	if got := InstanceIDOf(&model.PVC{Name: "no-labels"}); got != "" {
		t.Errorf("got %q", got)
	}
}
