package lifecycle

import (
	"testing"

	"github.com/clonecore/cloneset/model"
)

// BenchmarkRefreshInState is BenchmarkRefresh with the lifecycle state
// already read, as the planner has it.
func BenchmarkRefreshInState(b *testing.B) {
	cs := benchCloneSet(model.PolicyInPlaceIfPossible)
	for _, c := range benchRefreshCases() {
		b.Run(c.name, func(b *testing.B) {
			state := c.p.LifecycleState()
			b.ReportAllocs()
			for b.Loop() {
				sinkActions = RefreshInState(cs, c.p, state, "web-2", c.completed)
			}
		})
	}
}

// BenchmarkAppendDecideUpdate is BenchmarkDecideUpdate with the actions
// appended to one slice, as the planner collects the actions of a round.
func BenchmarkAppendDecideUpdate(b *testing.B) {
	for _, c := range benchDecideCases() {
		b.Run(c.name, func(b *testing.B) {
			in := c.input()
			dst := make([]model.Action, 0, 64)
			b.ReportAllocs()
			for b.Loop() {
				dst, sinkDecision = AppendDecideUpdate(dst[:0], in)
			}
		})
	}
}
