package ordering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
)

// The table of docs/spec/update-and-ordering.md 8.3, plus edge cases.
func TestDeletionCost(t *testing.T) {
	cases := []struct {
		value string
		want  int32
	}{
		{"12", 12},
		{"0", 0},
		{"-0", 0},
		{"-05", -5},
		{"-5", -5},
		{"008", 0},
		{"+10", 0},
		{" 5", 0},
		{"5 ", 0},
		{"1e3", 0},
		{"-", 0},
		{"", 0},
		{"2147483647", 2147483647},
		{"-2147483648", -2147483648},
		{"2147483648", 0},
		{"-2147483649", 0},
		{"99999999999", 0},
		{"abc", 0},
		{"1_000", 0},
		{"0x10", 0},
		{"100", 100},
		{"--5", 0},
		{"١٢", 0}, // non-ASCII digits
	}
	for _, c := range cases {
		p := newPod("p", cost(c.value))
		if got := DeletionCost(p); got != c.want {
			t.Errorf("DeletionCost(%q) = %d, want %d", c.value, got, c.want)
		}
	}
	if got := DeletionCost(newPod("absent")); got != 0 {
		t.Errorf("absent annotation: got %d, want 0", got)
	}
	if got := DeletionCost(nil); got != 0 {
		t.Errorf("nil pod: got %d, want 0", got)
	}
	if got := DeletionCost(&model.Pod{Name: "no-maps"}); got != 0 {
		t.Errorf("nil annotations: got %d, want 0", got)
	}
}

// The table of docs/spec/update-and-ordering.md 6.2, plus edge cases.
func TestIntSuffix(t *testing.T) {
	cases := []struct {
		v    string
		want int64
	}{
		{"5", 5},
		{"sts-10", 10},
		{"v1.2", 2},
		{"-5", 5},
		{"007", 7},
		{"10a", 0},
		{"a-0", 0},
		{"abc", 0},
		{"", 0},
		{strings.Repeat("9", 20), 0},
		{"9223372036854775807", 9223372036854775807},
		{"x9223372036854775808", 0},
		{"x-9223372036854775808", 0},
		{"0000000000000000000000000042", 42},
		{"web-3", 3},
		{"web-10", 10},
		{"x-2", 2},
		{"x", 0},
		{"a١", 0},
		{"+7", 7},
	}
	for _, c := range cases {
		if got := IntSuffix(c.v); got != c.want {
			t.Errorf("IntSuffix(%q) = %d, want %d", c.v, got, c.want)
		}
	}
}

func TestPhaseRank(t *testing.T) {
	cases := map[string]int8{
		model.PodPending: 0, model.PodUnknown: 1, model.PodRunning: 2,
		model.PodSucceeded: 0, model.PodFailed: 0, "": 0, "Weird": 0,
	}
	for ph, want := range cases {
		if got := phaseRank(ph); got != want {
			t.Errorf("phaseRank(%q) = %d, want %d", ph, got, want)
		}
	}
}

func TestRecencyKeys(t *testing.T) {
	// cmpRec compares two times the way the packed keys do: -1 when a goes
	// first (zero, or more recent).
	cmpRec := func(a, b time.Time) int {
		as, an := recencyKeys(a)
		bs, bn := recencyKeys(b)
		if as != bs {
			return cmpU64(as, bs)
		}
		return cmpU64(uint64(an), uint64(bn))
	}
	zero := time.Time{}
	// A zero instant in another location is still zero.
	if c := cmpRec(zero, zero.In(time.FixedZone("x", 3600))); c != 0 {
		t.Errorf("zero in other zone: %d", c)
	}
	y1960 := time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name string
		a, b time.Time
		want int
	}{
		{"zero before non-zero", zero, t0, -1},
		{"non-zero after zero", t0, zero, 1},
		{"zero ties zero", zero, zero, 0},
		{"more recent first (ns)", t0.Add(time.Nanosecond), t0, -1},
		{"older after", t0, t0.Add(time.Nanosecond), 1},
		{"same instant, other zone", t0, t0.In(time.FixedZone("y", -7200)), 0},
		{"second boundary", t0, t0.Add(-time.Nanosecond), -1},
		{"before 1970, ns", y1960.Add(time.Nanosecond), y1960, -1},
		{"before 1970, second boundary", y1960, y1960.Add(-time.Nanosecond), -1},
		{"across 1970", time.Unix(0, 0), time.Unix(-1, 999_999_999), -1},
		{"year 9999 before year 2", time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.UTC), time.Date(2, 1, 1, 0, 0, 0, 0, time.UTC), -1},
		{"zero before year 9999", zero, time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), -1},
	}
	for _, c := range cases {
		if got := cmpRec(c.a, c.b); got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, got, c.want)
		}
	}
}

func TestDescKeyAndRankKey(t *testing.T) {
	ints := []int64{math.MaxInt64, math.MaxInt64 - 1, 1, 0, -1, math.MinInt64 + 1, math.MinInt64}
	for i := 1; i < len(ints); i++ {
		if descKey(ints[i-1]) >= descKey(ints[i]) {
			t.Errorf("descKey(%d) >= descKey(%d)", ints[i-1], ints[i])
		}
	}
	// Ranks, highest first: the keys must ascend.
	ranks := []float64{math.MaxFloat64, 1e9, 3 * math.Log(5), 2, 1.3862943611198906, 1, math.SmallestNonzeroFloat64, 0}
	for i := 1; i < len(ranks); i++ {
		if rankKey(ranks[i-1]) >= rankKey(ranks[i]) {
			t.Errorf("rankKey(%v) >= rankKey(%v)", ranks[i-1], ranks[i])
		}
	}
}

// Every Why value has its sentence: the constants are read from keys.go, so
// a new one without a sentence fails here.
func TestExplainEveryWhy(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "keys.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			for i, name := range spec.(*ast.ValueSpec).Names {
				if !strings.HasPrefix(name.Name, "Why") {
					continue
				}
				lit := spec.(*ast.ValueSpec).Values[i].(*ast.BasicLit)
				why, _ := strconv.Unquote(lit.Value)
				if name.Name == "WhyScatterPrefix" {
					why += "zone=a"
				}
				n++
				if Explain(why) == "" {
					t.Errorf("%s (%q): Explain says nothing", name.Name, why)
				}
			}
		}
	}
	if n < 15 {
		t.Errorf("found %d Why constants in keys.go, want at least 15", n)
	}
	if got := Explain("scatter:zone=a"); !strings.Contains(got, "zone=a") {
		t.Errorf("Explain of a scatter term does not name it: %q", got)
	}
	if got := Explain("no such key"); got != "" {
		t.Errorf("Explain of an unknown value: %q, want empty", got)
	}
}
