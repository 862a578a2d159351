package ordering

import (
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
)

// The table of update-and-ordering.md 8.3, plus edge cases.
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

// The table of update-and-ordering.md 6.2, plus edge cases.
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

func TestRecency(t *testing.T) {
	zs, zn := recency(time.Time{})
	// A zero instant in another location is still zero.
	ls, ln := recency(time.Time{}.In(time.FixedZone("x", 3600)))
	if zs != ls || zn != ln {
		t.Errorf("zero in other zone: %d,%d vs %d,%d", ls, ln, zs, zn)
	}
	as, an := recency(t0)
	bs, bn := recency(t0.Add(time.Nanosecond))
	cs, cn := recency(t0.In(time.FixedZone("y", -7200)))
	cases := []struct {
		name string
		got  int
		want int
	}{
		{"zero before non-zero", cmpRecent(zs, zn, as, an), -1},
		{"non-zero after zero", cmpRecent(as, an, zs, zn), 1},
		{"zero ties zero", cmpRecent(zs, zn, zs, zn), 0},
		{"more recent first (ns)", cmpRecent(bs, bn, as, an), -1},
		{"older after", cmpRecent(as, an, bs, bn), 1},
		{"same instant, other zone", cmpRecent(as, an, cs, cn), 0},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, c.got, c.want)
		}
	}
}
