package clonesetcore

import (
	"fmt"

	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/ordering"
)

// Ranking targets.
const (
	RankForDeletion = "deletion"
	RankForUpdate   = "update"
)

// RankedPod is one entry of a ranking: the pod and the key that placed it
// before the next one.
type RankedPod struct {
	Name string `json:"name"`
	Why  string `json:"why"`
}

// Ranking is the output of Rank (docs/spec/scenario-format.md section 3).
type Ranking struct {
	For  string      `json:"for"`
	Pods []RankedPod `json:"pods"`
}

// Rank orders the scenario's pods for scale-in deletion (all active pods of the
// CloneSet, first = deleted first, ranked as one group) or for update (the pods
// waiting for update, in the order they would be updated).
func Rank(s *model.Scenario, forWhat string) (*Ranking, error) {
	if s == nil || s.CloneSet == nil {
		return nil, ErrNoCloneSet
	}
	r := newRound(s)
	var ranked []ordering.Ranked
	switch forWhat {
	case RankForDeletion:
		ranked = ordering.RankForDeletion(r.observed, r.deletionOptions())
	case RankForUpdate:
		forward := r.updateBudget.UpdateNum >= 0
		cands, _ := r.candidates(forward)
		ranked = ordering.SortForUpdate(cands, ordering.UpdateOptions{
			RollingUpdate: r.cs.Spec.UpdateStrategy.RollingUpdate, AllPods: r.observed,
		})
	default:
		return nil, fmt.Errorf("rank: unknown target %q (want %q or %q)", forWhat, RankForDeletion, RankForUpdate)
	}
	out := &Ranking{For: forWhat, Pods: make([]RankedPod, len(ranked))}
	for i, x := range ranked {
		out.Pods[i] = RankedPod{Name: x.Pod.Name, Why: x.Why}
	}
	return out, nil
}
