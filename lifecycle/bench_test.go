package lifecycle

import (
	"testing"

	"github.com/clonecore/cloneset/inplace"
	"github.com/clonecore/cloneset/model"
)

// benchCloneSet is shaped like worldgen's update world: InPlaceIfPossible (or
// the given policy) and the three hooks, none marking pods not ready.
func benchCloneSet(policy string) *model.CloneSet {
	return cloneSet(policy, 0, &model.Lifecycle{
		PreDelete:     hook(false, nil, "example.com/drain-connections"),
		InPlaceUpdate: hook(false, map[string]string{"example.com/hold-update": "true"}),
		PreNormal:     hook(false, map[string]string{"example.com/warmed-up": "true"}),
	})
}

// benchPod is a pod of revision web-1 in the given state, shaped like the pods
// of worldgen's update world (seven labels, a finalizer, five conditions).
func benchPod(state string, opts ...podOpt) *model.Pod {
	p := pod("web-ztw5z", state, withLabel("app", "web"), withLabel("example.com/rack", "r2"),
		withLabel("example.com/warmed-up", "true"), withFinalizers("example.com/drain-connections"))
	p.Annotations[model.AnnotationLifecycleTimestamp] = "2026-03-01T06:04:54Z"
	p.Status.Conditions = append(p.Status.Conditions,
		model.PodCondition{Type: "Initialized", Status: "True"},
		model.PodCondition{Type: model.ConditionContainersReady, Status: "True"},
		model.PodCondition{Type: "PodScheduled", Status: "True"})
	for _, o := range opts {
		o(p)
	}
	return p
}

// Sinks keep the benchmarked results alive, as a caller would.
var (
	sinkActions  []model.Action
	sinkDecision UpdateDecision
)

// benchRefreshCase is a pod of BenchmarkRefresh.
type benchRefreshCase struct {
	name      string
	p         *model.Pod
	completed bool
}

func benchRefreshCases() []benchRefreshCase {
	return []benchRefreshCase{
		{"normal", benchPod(model.StateNormal), false},
		{"updating-completed", benchPod(model.StateUpdating, withRevision("web-2")), true},
		{"updated-hooked", benchPod(model.StateUpdated, withRevision("web-2"), withLabel("example.com/hold-update", "true")), false},
		{"repair", benchPod(model.StateNormal, withoutLabel(model.LabelPodTemplateHash)), false},
	}
}

// BenchmarkRefresh is the lifecycle part of the refresh step: a Normal pod
// (nothing to do, the common case), an Updating pod whose update completed,
// an Updated pod still hooked, and a pod missing its pod-template-hash label.
func BenchmarkRefresh(b *testing.B) {
	cs := benchCloneSet(model.PolicyInPlaceIfPossible)
	for _, c := range benchRefreshCases() {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkActions = Refresh(cs, c.p, "web-2", c.completed)
			}
		})

	}
}

// benchDecideCase is a candidate of BenchmarkDecideUpdate.
type benchDecideCase struct {
	name, policy, target string
	p                    *model.Pod
}

func benchDecideCases() []benchDecideCase {
	return []benchDecideCase{
		{"inplace", model.PolicyInPlaceIfPossible, "web-2", benchPod(model.StateNormal)},
		{"inplace-hooked", model.PolicyInPlaceIfPossible, "web-2", benchPod(model.StateNormal, withLabel("example.com/hold-update", "true"))},
		{"recreate", model.PolicyReCreate, "web-2", benchPod(model.StateNormal)},
		{"recreate-not-inplace", model.PolicyInPlaceIfPossible, "web-3", benchPod(model.StateNormal)},
	}
}

// input is the candidate's update input, with the round's revision index.
func (c benchDecideCase) input() UpdateInput {
	revs := revisions()
	return UpdateInput{CloneSet: benchCloneSet(c.policy), Pod: c.p, Target: c.target, Revisions: revs,
		Index: inplace.NewRevisionIndex(revs), Now: now}
}

// BenchmarkDecideUpdate is the per-pod update decision of admitted
// candidates, with the round's revision index as the planner passes it: in
// place (T4), into PreparingUpdate (T3), and recreate (policy ReCreate, and
// InPlaceIfPossible when the change is not possible in place).
func BenchmarkDecideUpdate(b *testing.B) {
	for _, c := range benchDecideCases() {
		b.Run(c.name, func(b *testing.B) {
			in := c.input()
			if d := DecideUpdate(in); d.Err != nil {
				b.Fatal(d.Err)
			}
			b.ReportAllocs()
			for b.Loop() {
				sinkDecision = DecideUpdate(in)
			}
		})
	}
}
