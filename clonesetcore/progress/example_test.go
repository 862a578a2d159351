package progress_test

import (
	"fmt"
	"time"

	"github.com/clonecore/cloneset/clonesetcore/progress"
	"github.com/clonecore/cloneset/model"
)

// A rollout with progressDeadlineSeconds 120 that entered CloneSetUpdated at
// 10:00:00 and still has 2 of 3 pods updated: the condition is kept and R1 asks
// for a requeue when the deadline passes (40 s left, plus one second). One round
// after the deadline the CloneSet reports ProgressDeadlineExceeded.
func ExampleEvaluate() {
	pds := int32(120)
	replicas := int32(3)
	start := time.Date(2026, 7, 1, 10, 0, 0, 0, time.UTC)
	in := progress.Input{
		HasRollingUpdate:         true,
		ProgressDeadlineSeconds:  &pds,
		SpecReplicas:             &replicas,
		Replicas:                 3,
		UpdatedReplicas:          2,
		UpdatedAvailableReplicas: 2,
		ExpectedUpdatedReplicas:  3,
		CurrentRevision:          "web-v1",
		UpdateRevision:           "web-v2",
		Conditions: []model.CloneSetCondition{{
			Type: model.ConditionProgressing, Status: "True", Reason: progress.ReasonUpdated,
			Message: progress.MessageUpdated, LastUpdateTime: start, LastTransitionTime: start,
		}},
		Now: start.Add(80 * time.Second),
	}
	res := progress.Evaluate(in)
	c := res.Conditions[0]
	fmt.Println(res.Row, c.Status, c.Reason, res.Requeue)

	in.Conditions, in.Now = res.Conditions, start.Add(121*time.Second+500*time.Millisecond)
	res = progress.Evaluate(in)
	c = res.Conditions[0]
	fmt.Println(res.Row, c.Status, c.Reason, c.LastUpdateTime.Format(time.TimeOnly), res.Requeue)
	fmt.Println(c.Message)
	// Output:
	// Updated True CloneSetUpdated 41s
	// DeadlineExceeded False ProgressDeadlineExceeded 10:02:01 0s
	// CloneSet revision web-v2 has timed out progressing
}
