package pvc

import (
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
)

// vectorNow is the clock of the test vectors of docs/spec/scale-and-budgets.md
// 7.2: 2026-01-01T00:00:00Z, 1767225600 seconds after the Unix epoch.
var vectorNow = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// TestGenerateIDVectors checks the test vectors of docs/spec/scale-and-budgets.md
// 7.2 (computed from the spec's text by a separate implementation, not by
// this package).
func TestGenerateIDVectors(t *testing.T) {
	web := IDSeed{UID: specUID, Name: "web", Now: vectorNow, Generation: 1}
	with := func(f func(*IDSeed)) IDSeed { s := web; f(&s); return s }
	tests := []struct {
		name string
		seed IDSeed
		want []string // candidates k = 0, 1, ...
	}{
		{"uid, name web, generation 1", web, []string{"g7k9h", "6qhdd", "2zq2r", "qln6m", "9h8nw", "x45rr"}},
		{"one nanosecond later", with(func(s *IDSeed) { s.Now = s.Now.Add(time.Nanosecond) }), []string{"vgm2x", "7tpw5", "bmg9n"}},
		{"one second later", with(func(s *IDSeed) { s.Now = s.Now.Add(time.Second) }), []string{"jxln5", "sdpk9", "w5fvs"}},
		{"generation 2", with(func(s *IDSeed) { s.Generation = 2 }), []string{"jjlp4", "swnl8", "5crhd"}},
		{"resourceVersion 4711", with(func(s *IDSeed) { s.ResourceVersion = "4711" }), []string{"jtcs5", "s9fp9", "5njlf"}},
		{"empty uid, zero time, generation 0", IDSeed{Name: "web"}, []string{"c6hsn", "mklps", "wxnlx"}},
	}
	for _, tc := range tests {
		for k, want := range tc.want {
			if got := GenerateID(tc.seed, k); got != want {
				t.Errorf("%s: GenerateID(%+v, %d) = %q, want %q", tc.name, tc.seed, k, got, want)
			}
		}
	}
}

// TestGenerateIDClock checks that the clock is read as an instant: its
// location and monotonic reading do not change the sequence.
func TestGenerateIDClock(t *testing.T) {
	at := IDSeed{UID: specUID, Name: "web", Now: vectorNow}
	elsewhere := at
	elsewhere.Now = vectorNow.In(time.FixedZone("UTC+5", 5*3600))
	if GenerateID(at, 0) != GenerateID(elsewhere, 0) {
		t.Error("the clock's location changes the id")
	}
	now := time.Now() // carries a monotonic reading
	withMono, without := at, at
	withMono.Now, without.Now = now, now.Round(0)
	if GenerateID(withMono, 0) != GenerateID(without, 0) {
		t.Error("the clock's monotonic reading changes the id")
	}
}

// TestGenerateIDSeparators checks that the NUL separators are part of the
// hashed bytes: moving characters between fields changes the id.
func TestGenerateIDSeparators(t *testing.T) {
	seed := func(uid, name string, gen int64, rv string) IDSeed {
		return IDSeed{UID: uid, Name: name, Now: vectorNow, Generation: gen, ResourceVersion: rv}
	}
	if GenerateID(seed("ab", "c", 0, ""), 0) == GenerateID(seed("a", "bc", 0, ""), 0) {
		t.Error("uid/name boundary is not hashed")
	}
	if GenerateID(seed("", "web", 1, "2"), 0) == GenerateID(seed("", "web", 12, ""), 0) {
		t.Error("generation/resourceVersion boundary is not hashed")
	}
	if GenerateID(seed("", "web", 0, "1"), 0) == GenerateID(seed("", "web", 0, ""), 10) {
		t.Error("resourceVersion/k boundary is not hashed")
	}
	// A negative k is hashed with its sign and still yields a well-formed id.
	if id := GenerateID(seed("", "web", 0, ""), -1); !IsGeneratedForm(id) || id == GenerateID(seed("", "web", 0, ""), 1) {
		t.Errorf("GenerateID(-1) = %q", id)
	}
}

// TestSeedOf checks that a round's seed reads the CloneSet's identity,
// generation and resourceVersion, and that a nil CloneSet is the empty one.
func TestSeedOf(t *testing.T) {
	cs := newCS("web", specUID, false)
	cs.Generation, cs.ResourceVersion = 7, "4711"
	want := IDSeed{UID: specUID, Name: "web", Now: vectorNow, Generation: 7, ResourceVersion: "4711"}
	if got := SeedOf(cs, vectorNow); got != want {
		t.Errorf("SeedOf = %+v, want %+v", got, want)
	}
	if got := SeedOf(nil, vectorNow); got != (IDSeed{Now: vectorNow}) {
		t.Errorf("SeedOf(nil) = %+v", got)
	}
}

func TestGenerateIDForm(t *testing.T) {
	for k := 0; k < 2000; k++ {
		id := gen(k)
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
