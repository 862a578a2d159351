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
