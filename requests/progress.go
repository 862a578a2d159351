package requests

// Progress applies the rules by which a round's requests are sent (the
// caller's contract of package clonesetcore, as the package doc applies it to
// requests), one request after the other: ShouldSend says
// whether the next request goes, Failed records that a sent one failed.
// World.ApplyAll follows it, and so can a controller's sender, so that the
// rules live in one place. The zero value is a round with no failure yet.
//
// What ShouldSend says of a request of a slow-start batch depends only on
// the failures of earlier batches and of the request's own action (a pod's
// claims, then the pod), so a sender may send the actions of one batch
// concurrently and record their failures in any order, as long as it calls
// ShouldSend and Failed under a lock (Progress itself is not safe for
// concurrent use) and finishes the batch before the next request: it sends
// and skips exactly what sending one after the other would
// (kubecontroller.Sender.ConcurrentBatches does so).
type Progress struct {
	stopped      bool         // an action request outside the batches failed
	jobsStopped  bool         // a tolerated ImagePullJob delete failed
	statusFailed bool         // the status write failed
	batchFailed  bool         // a batch had a failure: failedBatch is the first
	failedBatch  int          //
	failedCreate map[int]bool // actions of a batch with a failed create
}

// ShouldSend reports whether r is to be sent after what failed before it:
// not a request that follows the status write (podsToDelete, history) when
// the status write failed; not an action request after a failed one outside
// the batches; not a create of a later batch than one with a failure; not
// the pod of a claim whose create failed (upstream's createOnePod returns
// before the pod, scale-and-budgets 4.4); not an ImagePullJob delete after a
// failed one (upstream's DeleteJobsForWorkload returns at its first
// failure). The status write is always sent.
func (p *Progress) ShouldSend(r Request) bool {
	status, trailing := r.IsStatusWrite(), afterStatus(r)
	switch {
	case trailing:
		return !p.statusFailed
	case status:
		return true
	case p.stopped:
		return false
	case r.Tolerated && isJobDelete(r):
		return !p.jobsStopped
	case r.Batch >= 0:
		return !(p.batchFailed && r.Batch > p.failedBatch) && !p.failedCreate[r.Action]
	}
	return true
}

// Failed records that r was sent and failed. A Tolerated request stops
// nothing but the later ImagePullJob deletes, when it is one.
func (p *Progress) Failed(r Request) {
	switch {
	case r.Tolerated:
		if isJobDelete(r) {
			p.jobsStopped = true
		}
	case r.IsStatusWrite():
		p.statusFailed = true
	case r.Batch >= 0:
		if p.failedCreate == nil {
			p.failedCreate = map[int]bool{}
		}
		p.failedCreate[r.Action] = true
		if !p.batchFailed {
			p.batchFailed, p.failedBatch = true, r.Batch
		}
	case !afterStatus(r):
		p.stopped = true
	}
}

// isJobDelete reports whether r deletes an ImagePullJob.
func isJobDelete(r Request) bool { return r.Resource == ResourceImagePullJobs && r.Verb == VerbDelete }
