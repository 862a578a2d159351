package requests_test

import (
	"strings"
	"testing"

	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/requests"
)

// claimsWorld is exampleWorld with three replicas and a claim template: the
// plan creates a pod in batch 0 and two in batch 1, each after its claim.
var claimsWorld = strings.Replace(strings.Replace(exampleWorld, "replicas: 2", "replicas: 3", 1),
	"  selector: {matchLabels: {app: web}}\n",
	"  selector: {matchLabels: {app: web}}\n  volumeClaimTemplates: [{metadata: {name: data}, spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}]\n", 1)

// TestApplyAllSkipsThePodOfAFailedClaim: a claim create that fails keeps its
// pod from being created (upstream's createOnePod returns before the pod),
// the other pod of the same batch is still created, no later batch starts,
// and the status is written.
func TestApplyAllSkipsThePodOfAFailedClaim(t *testing.T) {
	_, reqs := build(t, claimsWorld, nil)
	scn, err := manifest.LoadBytes([]byte(claimsWorld), "claims.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// The first claim of batch 1 exists already: its create meets
	// AlreadyExists.
	w := requests.NewWorld(scn)
	failing := -1
	for i, r := range reqs {
		if r.Batch == 1 && r.Resource == requests.ResourcePersistentVolumeClaims {
			failing = i
			if err := w.Apply(r); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if failing < 0 {
		t.Fatalf("no claim create in batch 1: %v", reqs)
	}
	errs, complete := w.ApplyAll(reqs)
	if complete {
		t.Fatal("complete, with a claim create that fails")
	}
	var skipped, created []string
	for i, r := range reqs {
		switch {
		case i == failing:
			if requests.ReasonOf(errs[i]) != requests.ReasonAlreadyExists {
				t.Fatalf("the claim create: %v, want AlreadyExists", errs[i])
			}
		case r.Resource == requests.ResourcePods && r.Verb == requests.VerbCreate && errs[i] == requests.ErrNotSent:
			skipped = append(skipped, r.Name)
		case r.Resource == requests.ResourcePods && r.Verb == requests.VerbCreate && errs[i] == nil:
			created = append(created, r.Name)
		case errs[i] != nil:
			t.Fatalf("request %d (%s %s %s): %v", i, r.Verb, r.Resource, r.Name, errs[i])
		}
	}
	podOfClaim := reqs[failing+1]
	if podOfClaim.Resource != requests.ResourcePods || podOfClaim.Action != reqs[failing].Action {
		t.Fatalf("the request after the claim is %s %s (action %d), not its pod", podOfClaim.Verb, podOfClaim.Name, podOfClaim.Action)
	}
	if len(skipped) != 1 || skipped[0] != podOfClaim.Name {
		t.Fatalf("pods not sent %v, want only %s, the pod of the failed claim", skipped, podOfClaim.Name)
	}
	if len(created) != 2 {
		t.Fatalf("pods created %v, want the pod of batch 0 and the other of batch 1", created)
	}
	if _, ok := w.Pods[podOfClaim.Name]; ok {
		t.Fatalf("pod %s created though its claim failed", podOfClaim.Name)
	}
	if last := errs[len(errs)-1]; last != nil || reqs[len(reqs)-1].Action != -1 {
		t.Fatalf("the status write: %v", last)
	}
}
