package partition

import (
	"fmt"
	"strings"
	"time"

	"github.com/clonecore/cloneset/model"
)

// Test fixtures: the conventions of docs/spec/scale-and-budgets.md section 8. Every pod is
// Running with a Ready condition that turned True an hour ago, state Normal
// unless stated otherwise; "rev-a" is the current and "rev-b" the update
// revision.

const (
	revA = "rev-a"
	revB = "rev-b"
)

var testNow = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

type podOpt func(*model.Pod)

// mkPod returns a Running pod at revision rev, Ready for an hour, state Normal.
func mkPod(name, rev string, opts ...podOpt) *model.Pod {
	p := &model.Pod{
		Name:      name,
		Namespace: "default",
		Labels: map[string]string{
			model.LabelRevisionHash:   rev,
			model.LabelLifecycleState: model.StateNormal,
		},
		Status: model.PodStatus{
			Phase: model.PodRunning,
			Conditions: []model.PodCondition{
				{Type: model.ConditionReady, Status: "True", LastTransitionTime: testNow.Add(-time.Hour)},
			},
		},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func withState(s string) podOpt {
	return func(p *model.Pod) {
		if s == "" {
			delete(p.Labels, model.LabelLifecycleState)
			return
		}
		p.Labels[model.LabelLifecycleState] = s
	}
}

func notReady() podOpt {
	return func(p *model.Pod) { p.Status.Conditions[0].Status = "False" }
}

func readySince(d time.Duration) podOpt {
	return func(p *model.Pod) { p.Status.Conditions[0].LastTransitionTime = testNow.Add(-d) }
}

func withPhase(ph string) podOpt {
	return func(p *model.Pod) { p.Status.Phase = ph }
}

func withLabel(k, v string) podOpt {
	return func(p *model.Pod) { p.Labels[k] = v }
}

func withoutLabel(k string) podOpt {
	return func(p *model.Pod) { delete(p.Labels, k) }
}

func specDel() podOpt { return withLabel(model.LabelSpecifiedDelete, "true") }

func inPlaceNotReady() podOpt {
	return func(p *model.Pod) {
		p.Status.Conditions = append(p.Status.Conditions, model.PodCondition{Type: model.ConditionInPlaceUpdateReady, Status: "False"})
	}
}

// pods builds n pods named prefix0..prefix(n-1) with the same options.
func pods(prefix, rev string, n int, opts ...podOpt) []*model.Pod {
	out := make([]*model.Pod, n)
	for i := range out {
		out[i] = mkPod(fmt.Sprintf("%s%d", prefix, i), rev, opts...)
	}
	return out
}

func join(ps ...[]*model.Pod) []*model.Pod {
	var out []*model.Pod
	for _, p := range ps {
		out = append(out, p...)
	}
	return out
}

type csOpt func(*model.CloneSet)

func iop(v model.IntOrPercent) *model.IntOrPercent { return &v }
func I(n int32) *model.IntOrPercent                { return iop(model.FromInt(n)) }
func S(s string) *model.IntOrPercent               { return iop(model.FromString(s)) }

// mkCS returns a v1beta1 RollingUpdate CloneSet with an empty rollingUpdate block.
func mkCS(replicas int32, opts ...csOpt) *model.CloneSet {
	cs := &model.CloneSet{
		APIVersion: model.APIVersionV1beta1,
		Name:       "sample",
		Namespace:  "default",
		UID:        "uid-1",
		Spec: model.CloneSetSpec{
			Replicas: &replicas,
			UpdateStrategy: model.UpdateStrategy{
				Type:          model.UpdateStrategyRollingUpdate,
				RollingUpdate: &model.RollingUpdateStrategy{PodUpdatePolicy: model.PolicyReCreate},
			},
		},
	}
	for _, o := range opts {
		o(cs)
	}
	return cs
}

func partitionOf(v *model.IntOrPercent) csOpt {
	return func(cs *model.CloneSet) { cs.Spec.UpdateStrategy.RollingUpdate.Partition = v }
}
func surgeOf(v *model.IntOrPercent) csOpt {
	return func(cs *model.CloneSet) { cs.Spec.UpdateStrategy.RollingUpdate.MaxSurge = v }
}
func unavOf(v *model.IntOrPercent) csOpt {
	return func(cs *model.CloneSet) { cs.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = v }
}
func paused() csOpt {
	return func(cs *model.CloneSet) { cs.Spec.UpdateStrategy.RollingUpdate.Paused = true }
}
func onDelete() csOpt {
	return func(cs *model.CloneSet) {
		cs.Spec.UpdateStrategy = model.UpdateStrategy{Type: model.UpdateStrategyOnDelete}
	}
}
func scaleUnavOf(v *model.IntOrPercent) csOpt {
	return func(cs *model.CloneSet) { cs.Spec.ScaleStrategy.MaxUnavailable = v }
}
func toDelete(names ...string) csOpt {
	return func(cs *model.CloneSet) {
		cs.Spec.ScaleStrategy.PodsToDelete = append(cs.Spec.ScaleStrategy.PodsToDelete, names...)
	}
}
func minReady(s int32) csOpt { return func(cs *model.CloneSet) { cs.Spec.MinReadySeconds = s } }
func excludePD() csOpt {
	return func(cs *model.CloneSet) { cs.Spec.ScaleStrategy.ExcludePreparingDelete = true }
}
func noReplicas() csOpt { return func(cs *model.CloneSet) { cs.Spec.Replicas = nil } }

// in builds an Input with current rev-a, update rev-b, gates off, at testNow.
func in(cs *model.CloneSet, ps []*model.Pod) Input {
	return Input{CloneSet: cs, Pods: ps, CurrentRevision: revA, UpdateRevision: revB, Now: testNow}
}

// same returns an Input whose current and update revisions are both rev-b.
func same(cs *model.CloneSet, ps []*model.Pod) Input {
	i := in(cs, ps)
	i.CurrentRevision = revB
	return i
}

func rollbackGate(i Input) Input { i.Gates.CloneSetPartitionRollback = true; return i }
func puauGate(i Input) Input     { i.Gates.PreparingUpdateAsUpdate = true; return i }

// B builds a budget from the sixteen numbers in field order, so expectations
// read like the spec: R P S U SU | up upOld upLimit | down downOld delReady |
// surge surgeOld | updNum updMaxUnav.
func B(r, p, s, u, su, up, upOld, upLim, down, downOld, delReady, surge, surgeOld, updNum, updMU int) Budget {
	return Budget{r, p, s, u, su, up, upOld, upLim, down, downOld, delReady, surge, surgeOld, updNum, updMU}
}

const maxI = model.MaxInt32

// describePods renders pods compactly for counter-example messages.
func describePods(ps []*model.Pod, del map[string]bool) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteString(" ")
		}
		if p == nil {
			b.WriteString("<nil>")
			continue
		}
		st := p.LifecycleState()
		if st == "" {
			st = "-"
		}
		ready := "ready"
		if !p.IsReady() {
			ready = "notReady"
		}
		sd := ""
		if p.HasSpecifiedDeleteLabel() {
			sd = ",sdLabel"
		}
		if del[p.Name] {
			sd += ",listed"
		}
		fmt.Fprintf(&b, "%s{%s,%s,%s%s}", p.Name, p.RevisionLabel(), st, ready, sd)
	}
	return b.String()
}

func describeCS(cs *model.CloneSet) string {
	if cs == nil {
		return "<nil CloneSet>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "replicas=%d minReady=%d", cs.Spec.DesiredReplicas(), cs.Spec.MinReadySeconds)
	if ru := cs.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		f := func(v *model.IntOrPercent) string {
			if v == nil {
				return "nil"
			}
			return quoted(*v)
		}
		fmt.Fprintf(&b, " partition=%s maxSurge=%s maxUnavailable=%s paused=%v", f(ru.Partition), f(ru.MaxSurge), f(ru.MaxUnavailable), ru.Paused)
	} else {
		b.WriteString(" rollingUpdate=absent")
	}
	if v := cs.Spec.ScaleStrategy.MaxUnavailable; v != nil {
		fmt.Fprintf(&b, " scaleMaxUnavailable=%s", quoted(*v))
	}
	fmt.Fprintf(&b, " excludePreparingDelete=%v podsToDelete=%v", cs.Spec.ScaleStrategy.ExcludePreparingDelete, cs.Spec.ScaleStrategy.PodsToDelete)
	return b.String()
}

func describeInput(i Input) string {
	return fmt.Sprintf("%s current=%s update=%s gates{rollback=%v puau=%v} flagExclude=%v pods=[%s]",
		describeCS(i.CloneSet), i.CurrentRevision, i.UpdateRevision, i.Gates.CloneSetPartitionRollback,
		i.Gates.PreparingUpdateAsUpdate, i.Controller.ScalingExcludePreparingDelete, describePods(i.Pods, PodsToDeleteSet(i.CloneSet)))
}
