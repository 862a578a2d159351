package ordering

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/clonecore/cloneset/model"
)

// Ranked is one pod of a ranking, in ranking order, with the key that placed
// it before the next pod.
type Ranked struct {
	// Pod is the ranked pod (the caller's pointer, never a copy).
	Pod *model.Pod
	// Why names the comparison key or pass that placed Pod before the next
	// entry (docs/spec/update-and-ordering.md 9.1); one of the Why* constants, or
	// WhyScatterPrefix followed by "<key>=<value>". The final entry has
	// WhyLast unless a pass of the update pipeline moved it.
	Why string
	// SpreadRank is the key-5 rank RankForDeletion used for the pod: the
	// spread-constraints rank when topology keys are given, else the
	// same-node rank. It is 0 for a pod without rank and always 0 in the
	// output of SortForUpdate.
	SpreadRank float64
	// Index is the position of Pod in the slice given to RankForDeletion or
	// SortForUpdate, for callers that keep facts about the pods in a slice
	// parallel to it.
	Index int
}

// Explanation keys of docs/spec/update-and-ordering.md 9.1, the values of Ranked.Why.
const (
	// WhyUnscheduled: exactly one of the two pods has no node; it goes first.
	WhyUnscheduled = "unscheduled"
	// WhyPhase: the phase rank (Pending 0, Unknown 1, Running 2, others 0)
	// differs; the lower goes first.
	WhyPhase = "phase"
	// WhyUnavailable: deletion only; the unavailable pod goes first.
	WhyUnavailable = "unavailable"
	// WhyNotReady: the pod whose Ready condition is not True goes first.
	WhyNotReady = "notReady"
	// WhyDeletionCost: deletion only; the lower pod-deletion-cost goes first.
	WhyDeletionCost = "deletionCost"
	// WhyRank: deletion only; the higher same-node or spread rank goes first.
	WhyRank = "rank"
	// WhyReadyTime: both ready; a zero ready time, else the more recent one,
	// goes first.
	WhyReadyTime = "readyTime"
	// WhyRestarts: the higher container restart count goes first.
	WhyRestarts = "restarts"
	// WhySidecarRestarts: update only; the higher restart count of sidecar
	// init containers goes first.
	WhySidecarRestarts = "sidecarRestarts"
	// WhyCreationTime: a zero creation time, else the newer pod, goes first.
	WhyCreationTime = "creationTime"
	// WhyName: every key ties; the library tie-break (name ascending) decides.
	WhyName = "name"
	// WhyLast marks the final pod of a ranking.
	WhyLast = "last"
	// WhyPriority: update only; the priority strategy placed the pod before
	// its successor.
	WhyPriority = "priority"
	// WhyPreparingUpdate: update only; the PreparingUpdate-first pass moved
	// the pod forward.
	WhyPreparingUpdate = "preparingUpdate"
	// WhyScatterPrefix prefixes "<key>=<value>" of the scatter term whose pass
	// last changed the pod's position.
	WhyScatterPrefix = "scatter:"
)

// whyExplained are the sentences of Explain, by Why value.
var whyExplained = map[string]string{
	WhyUnscheduled:     "it has no node yet and the next pod has one",
	WhyPhase:           "its phase comes first (Pending and others, then Unknown, then Running)",
	WhyUnavailable:     "it is not available and the next pod is",
	WhyNotReady:        "it is not ready and the next pod is",
	WhyDeletionCost:    "its pod-deletion-cost annotation is lower",
	WhyRank:            "it shares its node (or topology domain) with more pods of the CloneSet",
	WhyReadyTime:       "it became ready more recently",
	WhyRestarts:        "its containers restarted more often",
	WhySidecarRestarts: "its sidecar init containers restarted more often",
	WhyCreationTime:    "it was created more recently",
	WhyName:            "every key ties: its name sorts first",
	WhyLast:            "the last pod of the ranking",
	WhyPriority:        "the update priority strategy (weight or order) puts it first",
	WhyPreparingUpdate: "it is in PreparingUpdate, and those pods go first",
}

// Explain says in words what a Ranked.Why value means: why the pod went
// before the next one of its ranking (docs/spec/update-and-ordering.md 9.1).
// A scatter value names its term. An unknown value gives "".
func Explain(why string) string {
	if term, ok := strings.CutPrefix(why, WhyScatterPrefix); ok {
		return "the scatter strategy's term " + term + " spread the pods that carry it"
	}
	return whyExplained[why]
}

// DeletionCost returns the pod-deletion-cost of p (docs/spec/update-and-ordering.md 8.3):
// the annotation controller.kubernetes.io/pod-deletion-cost parsed as a base-10
// int32. The value must be non-empty and start with '-', or with a digit 1-9,
// or be exactly "0"; anything else, and any value that does not parse or does
// not fit in 32 bits, counts as 0, as does an absent annotation or a nil pod.
// So "-05" is -5 while "008", "+10", " 5" and "1e3" are 0.
func DeletionCost(p *model.Pod) int32 {
	if p == nil {
		return 0
	}
	v, ok := p.Annotations[model.AnnotationDeletionCost]
	if !ok || v == "" {
		return 0
	}
	if !(v[0] == '-' || (v[0] >= '1' && v[0] <= '9') || v == "0") {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0
	}
	return int32(n)
}

// IntSuffix returns the integer at the end of v, as the order priority strategy
// reads label values (docs/spec/update-and-ordering.md 6.2): the longest run of ASCII
// digits ending v, parsed as a base-10 int64. Without such a run, or when it
// does not fit in 64 bits, the result is 0. A sign is never part of the run:
// IntSuffix("sts-10") is 10, IntSuffix("-5") is 5, IntSuffix("10a") is 0.
func IntSuffix(v string) int64 {
	i := len(v)
	for i > 0 && v[i-1] >= '0' && v[i-1] <= '9' {
		i--
	}
	if i == len(v) {
		return 0
	}
	n, err := strconv.ParseInt(v[i:], 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// recency turns a time into a key sorted in descending order to get "a zero
// time first, otherwise the more recent first" (Kubernetes' afterOrZero): a zero
// time maps to the largest key. Times compare as instants.
func recency(t time.Time) (sec int64, nsec int32) {
	if t.IsZero() {
		return math.MaxInt64, 0
	}
	return t.Unix(), int32(t.Nanosecond())
}

// phaseRank is model.PhaseRank as a small integer.
func phaseRank(phase string) int8 { return int8(model.PhaseRank(phase)) }

// keyID identifies the comparison key that decided a comparison; whyNames maps
// it to its explanation.
type keyID uint8

const (
	keyUnscheduled keyID = iota
	keyPhase
	keyUnavailable
	keyNotReady
	keyDeletionCost
	keyRank
	keyReadyTime
	keyRestarts
	keySidecarRestarts
	keyCreationTime
	keyName
)

var whyNames = [...]string{
	keyUnscheduled:     WhyUnscheduled,
	keyPhase:           WhyPhase,
	keyUnavailable:     WhyUnavailable,
	keyNotReady:        WhyNotReady,
	keyDeletionCost:    WhyDeletionCost,
	keyRank:            WhyRank,
	keyReadyTime:       WhyReadyTime,
	keyRestarts:        WhyRestarts,
	keySidecarRestarts: WhySidecarRestarts,
	keyCreationTime:    WhyCreationTime,
	keyName:            WhyName,
}

// cmpName is the library tie-break: name ascending, then input position (only
// pods sharing a name reach it; it makes every sort behave like a stable sort).
func cmpName(an string, ai int32, bn string, bi int32) int {
	switch {
	case an < bn:
		return -1
	case an > bn:
		return 1
	case ai < bi:
		return -1
	case ai > bi:
		return 1
	}
	return 0
}
