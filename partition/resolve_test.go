package partition

import (
	"errors"
	"strings"
	"testing"

	"github.com/clonecore/cloneset/model"
	"github.com/google/go-cmp/cmp"
)

// TestPartitionCount covers 1.3, the partition list of example 8.1 (R = 7) and
// the table of LSV 7.5 (R = 10).
func TestPartitionCount(t *testing.T) {
	cases := []struct {
		name    string
		cs      *model.CloneSet
		want    int
		wantErr bool
	}{
		// 8.1, R = 7.
		{"8.1 50% of 7", mkCS(7, partitionOf(S("50%"))), 4, false},
		{"8.1 95% of 7 keeps one updated", mkCS(7, partitionOf(S("95%"))), 6, false},
		{"8.1 100% of 7", mkCS(7, partitionOf(S("100%"))), 7, false},
		{"8.1 100.0% of 7 [quirk]", mkCS(7, partitionOf(S("100.0%"))), 6, false},
		{"8.1 integer 9 clamps to 7", mkCS(7, partitionOf(I(9))), 7, false},
		{"8.1 150% of 7 clamps [quirk]", mkCS(7, partitionOf(S("150%"))), 7, false},
		{"8.1 14.3% of 7 (IEEE 1.001)", mkCS(7, partitionOf(S("14.3%"))), 2, false},
		{"8.1 1% of 7", mkCS(7, partitionOf(S("1%"))), 1, false},
		{"8.1 0% of 7", mkCS(7, partitionOf(S("0%"))), 0, false},
		// LSV 7.5, R = 10.
		{"LSV7.5 3", mkCS(10, partitionOf(I(3))), 3, false},
		{"LSV7.5 30%", mkCS(10, partitionOf(S("30%"))), 3, false},
		{"LSV7.5 95%", mkCS(10, partitionOf(S("95%"))), 9, false},
		{"LSV7.5 100%", mkCS(10, partitionOf(S("100%"))), 10, false},
		{"LSV7.5 1%", mkCS(10, partitionOf(S("1%"))), 1, false},
		{"LSV7.5 12", mkCS(10, partitionOf(I(12))), 10, false},
		{"LSV7.5 string without % is an error", mkCS(10, partitionOf(S("7"))), 0, true},
		// Rule 3 needs R > 1 and a string.
		{"50% of 1 (rule 3 needs R>1)", mkCS(1, partitionOf(S("50%"))), 1, false},
		{"integer R of R is not reduced", mkCS(5, partitionOf(I(5))), 5, false},
		{"99% of 5 keeps one updated", mkCS(5, partitionOf(S("99%"))), 4, false},
		{"100% of 2", mkCS(2, partitionOf(S("100%"))), 2, false},
		{"99% of 2", mkCS(2, partitionOf(S("99%"))), 1, false},
		// R = 0, absent, negative, nil.
		{"any partition of 0 replicas", mkCS(0, partitionOf(S("50%"))), 0, false},
		{"integer partition of 0 replicas", mkCS(0, partitionOf(I(3))), 0, false},
		{"absent partition", mkCS(7), 0, false},
		{"absent rollingUpdate", mkCS(7, onDelete()), 0, false},
		{"negative integer clamps to 0", mkCS(7, partitionOf(I(-2))), 0, false},
		{"negative percent clamps to 0", mkCS(7, partitionOf(S("-50%"))), 0, false},
		{"replicas absent means 1", mkCS(0, noReplicas(), partitionOf(S("50%"))), 1, false},
		{"replicas absent, integer 3 clamps to 1", mkCS(0, noReplicas(), partitionOf(I(3))), 1, false},
		{"not a number", mkCS(7, partitionOf(S("x%"))), 0, true},
		{"negative replicas clamp to 0", mkCS(-3, partitionOf(I(2))), 0, false},
		{"nil CloneSet", nil, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := PartitionCount(c.cs)
			if got != c.want || (err != nil) != c.wantErr {
				t.Errorf("PartitionCount = %d, err %v; want %d, err %v", got, err, c.want, c.wantErr)
			}
		})
	}
	if _, err := PartitionCount(mkCS(10, partitionOf(S("7")))); !errors.Is(err, model.ErrNotPercentage) {
		t.Errorf("a string without %% must report model.ErrNotPercentage, got %v", err)
	}
}

// TestResolve covers 1.4 to 1.6 including the table of 1.5 and example 8.1.
func TestResolve(t *testing.T) {
	type want struct{ R, P, S, U, SU int }
	cases := []struct {
		name     string
		cs       *model.CloneSet
		want     want
		problems []string
	}{
		// Table of 1.5 (R = 7).
		{"1.5 rollingUpdate {}", mkCS(7), want{7, 0, 0, 2, maxI}, nil},
		{"1.5 maxSurge 10% floors U", mkCS(7, surgeOf(S("10%"))), want{7, 0, 1, 1, maxI}, nil},
		{"1.5 paused forces S=0 and ceil", mkCS(7, surgeOf(S("10%")), paused()), want{7, 0, 0, 2, maxI}, nil},
		{"1.5 rollingUpdate absent floors [quirk]", mkCS(7, onDelete()), want{7, 0, 0, 1, maxI}, nil},
		{"1.5 maxUnavailable 3.5% parse error", mkCS(7, unavOf(S("3.5%"))), want{7, 0, 0, 0, maxI},
			[]string{`maxUnavailable "3.5%" does not parse for the controller (uses 0)`}},
		{"1.5 maxUnavailable \"30\" is 30%", mkCS(7, unavOf(S("30"))), want{7, 0, 0, 3, maxI}, nil},
		{"1.5 negative integer passes through", mkCS(7, unavOf(I(-1))), want{7, 0, 0, -1, maxI}, nil},
		// 1.4.
		{"1.4 maxSurge absent", mkCS(7, unavOf(I(3))), want{7, 0, 0, 3, maxI}, nil},
		{"1.4 maxSurge integer", mkCS(7, surgeOf(I(2))), want{7, 0, 2, 1, maxI}, nil},
		{"1.4 maxSurge rounds up", mkCS(7, surgeOf(S("20%"))), want{7, 0, 2, 1, maxI}, nil},
		{"1.4 maxSurge 0 keeps ceil", mkCS(7, surgeOf(I(0))), want{7, 0, 0, 2, maxI}, nil},
		{"1.4 maxSurge parse error uses 0 (and ceil for U)", mkCS(7, surgeOf(S("12.5%"))), want{7, 0, 0, 2, maxI},
			[]string{`maxSurge "12.5%" does not parse for the controller (uses 0)`}},
		{"1.4 negative maxSurge keeps U floored (S != 0)", mkCS(7, surgeOf(I(-1))), want{7, 0, -1, 1, maxI}, nil},
		// 1.6.
		{"1.6 unset is MaxInt32", mkCS(8), want{8, 0, 0, 2, maxI}, nil},
		{"1.6 25% of 8", mkCS(8, scaleUnavOf(S("25%"))), want{8, 0, 0, 2, 2}, nil},
		{"1.6 rounds up", mkCS(8, scaleUnavOf(S("10%"))), want{8, 0, 0, 2, 1}, nil},
		{"1.6 12.5% blocks creation [quirk]", mkCS(8, scaleUnavOf(S("12.5%"))), want{8, 0, 0, 2, 0},
			[]string{`scaleStrategy.maxUnavailable "12.5%" does not parse for the controller (uses 0, which blocks every pod creation)`}},
		{"1.6 negative integer", mkCS(8, scaleUnavOf(I(-1))), want{8, 0, 0, 2, -1}, nil},
		{"1.6 percent of OnDelete", mkCS(8, onDelete(), scaleUnavOf(S("50%"))), want{8, 0, 0, 1, 4}, nil},
		// 8.1 and 8.10.
		{"8.10 paused", mkCS(6, partitionOf(S("50%")), surgeOf(S("40%")), unavOf(S("10%")), paused()), want{6, 3, 0, 1, maxI}, nil},
		{"8.10 not paused", mkCS(6, partitionOf(S("50%")), surgeOf(S("40%")), unavOf(S("10%"))), want{6, 3, 3, 0, maxI}, nil},
		{"8.7 maxSurge 50% of 4", mkCS(4, partitionOf(I(1)), surgeOf(S("50%"))), want{4, 1, 2, 0, maxI}, nil},
		// Replicas.
		{"replicas absent means 1", mkCS(0, noReplicas()), want{1, 0, 0, 1, maxI}, nil},
		{"zero replicas", mkCS(0, partitionOf(S("50%")), surgeOf(S("50%"))), want{0, 0, 0, 0, maxI}, nil},
		// Problems are reported in a fixed order.
		{"all four problems", mkCS(4, partitionOf(S("7")), surgeOf(S("x")), unavOf(S("1.5%")), scaleUnavOf(S("%%"))), want{4, 0, 0, 0, 0},
			[]string{
				`partition "7" does not parse for the controller (uses 0): invalid type: string is not a percentage`,
				`maxSurge "x" does not parse for the controller (uses 0)`,
				`maxUnavailable "1.5%" does not parse for the controller (uses 0)`,
				`scaleStrategy.maxUnavailable "%%" does not parse for the controller (uses 0, which blocks every pod creation)`,
			}},
		{"nil CloneSet", nil, want{1, 0, 0, 0, maxI}, []string{"no CloneSet given (resolved as an empty spec with 1 replica)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := Resolve(c.cs)
			got := want{p.Replicas, p.Partition, p.MaxSurge, p.MaxUnavailable, p.ScaleMaxUnavailable}
			if got != c.want {
				t.Errorf("Resolve = %+v, want %+v", got, c.want)
			}
			if diff := cmp.Diff(c.problems, p.Problems); diff != "" {
				t.Errorf("Problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestResolvePercentsAreOfReplicasNotPods checks "all percentages are taken of
// R, never of the current pod count" (1.1): Compute must give the same R, P, S,
// U, SU whatever the pods.
func TestResolvePercentsAreOfReplicasNotPods(t *testing.T) {
	cs := mkCS(10, partitionOf(S("30%")), surgeOf(S("20%")), unavOf(S("20%")), scaleUnavOf(S("10%")))
	for n := 0; n < 25; n += 6 {
		b := Compute(in(cs, pods("a", revA, n)), ScaleVariant)
		got := [5]int{b.Replicas, b.Partition, b.MaxSurge, b.MaxUnavailable, b.ScaleMaxUnavailable}
		if got != [5]int{10, 3, 2, 2, 1} {
			t.Errorf("%d pods: R,P,S,U,SU = %v, want [10 3 2 2 1]", n, got)
		}
	}
}

func TestExcludePreparingDelete(t *testing.T) {
	on := model.ControllerFlags{ScalingExcludePreparingDelete: true}
	cases := []struct {
		name  string
		cs    *model.CloneSet
		flags model.ControllerFlags
		want  bool
	}{
		{"neither", mkCS(3), model.ControllerFlags{}, false},
		{"field", mkCS(3, excludePD()), model.ControllerFlags{}, true},
		{"controller flag", mkCS(3), on, true},
		{"both", mkCS(3, excludePD()), on, true},
		{"v1beta1 label is ignored", func() *model.CloneSet {
			cs := mkCS(3)
			cs.Labels = map[string]string{model.LabelScalingExcludePreparingDelete: "true"}
			return cs
		}(), model.ControllerFlags{}, false},
		{"nil CloneSet, flag off", nil, model.ControllerFlags{}, false},
		{"nil CloneSet, flag on", nil, on, true},
	}
	for _, c := range cases {
		if got := ExcludePreparingDelete(c.cs, c.flags); got != c.want {
			t.Errorf("%s: ExcludePreparingDelete = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestRollback(t *testing.T) {
	on := model.FeatureGates{CloneSetPartitionRollback: true}
	cases := []struct {
		gates    model.FeatureGates
		cur, upd string
		want     bool
	}{
		{on, revA, revB, true},
		{on, revB, revB, false},
		{model.FeatureGates{}, revA, revB, false},
		// Compared as strings: a short-hash spelling of the same revision still differs.
		{on, "web-6d8f7c9b5", "6d8f7c9b5", true},
	}
	for _, c := range cases {
		if got := Rollback(c.gates, c.cur, c.upd); got != c.want {
			t.Errorf("Rollback(%+v, %q, %q) = %v, want %v", c.gates, c.cur, c.upd, got, c.want)
		}
	}
}

func TestProblemsNameTheField(t *testing.T) {
	// Every problem sentence starts with the field name so notes can be grepped.
	p := Resolve(mkCS(4, surgeOf(S("1.5%"))))
	if len(p.Problems) != 1 || !strings.HasPrefix(p.Problems[0], "maxSurge ") {
		t.Fatalf("Problems = %q", p.Problems)
	}
	if p := Resolve(mkCS(4)); p.Problems != nil {
		t.Fatalf("a valid spec must report no problems, got %q", p.Problems)
	}
}
