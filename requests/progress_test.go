package requests_test

import (
	"testing"

	"github.com/clonecore/cloneset/requests"
)

// TestProgress pins each rule of a round's sending: which requests go after
// which failure.
func TestProgress(t *testing.T) {
	claim := func(batch, action int) requests.Request {
		return requests.Request{Verb: requests.VerbCreate, Resource: requests.ResourcePersistentVolumeClaims, Batch: batch, Action: action}
	}
	pod := func(batch, action int) requests.Request {
		return requests.Request{Verb: requests.VerbCreate, Resource: requests.ResourcePods, Batch: batch, Action: action}
	}
	patch := func(action int) requests.Request {
		return requests.Request{Verb: requests.VerbPatch, Resource: requests.ResourcePods, Batch: -1, Action: action}
	}
	status := requests.Request{Verb: requests.VerbPatch, Resource: requests.ResourceCloneSets, Subresource: requests.SubresourceStatus, Batch: -1, Action: -1}
	podsToDelete := requests.Request{Verb: requests.VerbPatch, Resource: requests.ResourceCloneSets, Batch: -1, Action: 9}
	history := requests.Request{Verb: requests.VerbDelete, Resource: requests.ResourceControllerRevisions, Batch: -1, Action: 10}
	jobCreate := requests.Request{Verb: requests.VerbCreate, Resource: requests.ResourceImagePullJobs, Batch: -1, Action: 0, Tolerated: true}
	mark := requests.Request{Verb: requests.VerbPatch, Resource: requests.ResourceControllerRevisions, Batch: -1, Action: 1, Tolerated: true}
	jobDelete := func(action int) requests.Request {
		return requests.Request{Verb: requests.VerbDelete, Resource: requests.ResourceImagePullJobs, Batch: -1, Action: action, Tolerated: true}
	}
	for _, tc := range []struct {
		name   string
		failed []requests.Request
		next   requests.Request
		want   bool
	}{
		{"nothing failed", nil, pod(3, 3), true},
		{"the same batch after a failed create", []requests.Request{pod(1, 1)}, pod(1, 2), true},
		{"a later batch after a failed create", []requests.Request{pod(1, 1)}, pod(2, 3), false},
		{"the pod of a failed claim", []requests.Request{claim(1, 1)}, pod(1, 1), false},
		{"another pod of the failed claim's batch", []requests.Request{claim(1, 1)}, pod(1, 2), true},
		{"an action after a failed patch", []requests.Request{patch(0)}, patch(1), false},
		{"a create after a failed patch", []requests.Request{patch(0)}, pod(0, 1), false},
		{"the status write after failures", []requests.Request{patch(0), pod(1, 1)}, status, true},
		{"podsToDelete after a failed action", []requests.Request{patch(0)}, podsToDelete, true},
		{"podsToDelete after a failed status write", []requests.Request{status}, podsToDelete, false},
		{"history after a failed status write", []requests.Request{status}, history, false},
		{"an action after a failed trailing request", []requests.Request{history}, patch(1), true},
		{"an action after a failed ImagePullJob create", []requests.Request{jobCreate}, patch(2), true},
		{"the mark after a failed ImagePullJob create", []requests.Request{jobCreate}, mark, true},
		{"a create after a failed mark", []requests.Request{mark}, pod(0, 2), true},
		{"an ImagePullJob delete after a failed one", []requests.Request{jobDelete(0)}, jobDelete(1), false},
		{"an action after a failed ImagePullJob delete", []requests.Request{jobDelete(0)}, patch(2), true},
		{"an ImagePullJob delete after a failed revision write", []requests.Request{patch(0)}, jobDelete(1), false},
	} {
		var p requests.Progress
		for _, f := range tc.failed {
			p.Failed(f)
		}
		if got := p.ShouldSend(tc.next); got != tc.want {
			t.Errorf("%s: ShouldSend = %v, want %v", tc.name, got, tc.want)
		}
	}
}
