package kubecontroller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/clonecore/cloneset/expectations"
	"github.com/clonecore/cloneset/requests"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Outcome is what happened to one request.
type Outcome struct {
	// Request is the request.
	Request requests.Request
	// Sent is false for a request skipped after an earlier failure.
	Sent bool
	// Err is the error of a sent request that failed.
	Err error
}

// Sender sends the requests of one plan through a controller-runtime client
// or a RESTWriter, in order, and records the expectations of its writes.
type Sender struct {
	// Client writes to the API server, unless Writer is set.
	Client client.Client
	// Writer, when set, sends the requests instead of Client: their bytes
	// as they are, reading only the metadata of the answers (see
	// RESTWriter).
	Writer *RESTWriter
	// CloneSetGVK is the kind (and version) a patch of the CloneSet is sent
	// as; CloneSetV1beta1 when empty.
	CloneSetGVK schema.GroupVersionKind
	// Expectations, when set, get an expectation for every create and delete
	// of a pod, claim or revision (upstream follows pods and claims; a
	// revision followed too keeps a lagging cache from creating or deleting
	// one twice), and the resourceVersion of every patched pod, claim and
	// revision (upstream waits for its update revision's, after it marked
	// it for the image pre-download), under Owner.
	Expectations *Expectations
	// Owner is the key of the CloneSet ("namespace/name").
	Owner string
	// Now is the time the expectations are recorded at.
	Now time.Time
	// ConcurrentBatches sends the creates of one slow-start batch
	// (requests.Request.Batch) concurrently, as OpenKruise does: one
	// goroutine per pod of the batch, which creates the pod's claims and
	// then the pod, one after the other (a pod whose claim's create failed
	// is not sent). Send waits for the whole batch before it goes on. The
	// order in which the server sees the creates of a batch, and so the
	// resourceVersions it hands out, then varies from run to run; the
	// outcomes, the error and which requests are sent do not. Off (the
	// zero value) sends every request one after the other.
	ConcurrentBatches bool
	// MaxConcurrentCreates bounds, with ConcurrentBatches, the actions of
	// a batch in flight at once (a pod with its claims is one action): the
	// others wait for one to end. 0, the zero value, sends the whole batch
	// at once, as OpenKruise does (the batches double, 1, 2, 4, ... pods:
	// a scale-out from 0 to 10,000 pods sends 4,096 at once, each request
	// with its goroutine and buffers in memory until it ends).
	MaxConcurrentCreates int
}

// Send sends reqs in order and reports what happened to each, with the
// rules of package requests (requests.Progress, which World.ApplyAll follows
// too): the creates of one slow-start batch (Request.Batch) are all
// attempted, even when one fails, except the pod whose claim's create failed
// (upstream's createOnePod returns before the pod), and after a batch with a
// failure no later batch starts; any other failed request ends the action
// requests; the status write (Action -1) is sent all the same, as upstream
// writes the status of a round whose actions failed, and the requests that
// follow it (the podsToDelete rewrite, the history truncation) only when it
// succeeded. The failure of a Tolerated request (the image pre-download's)
// stops nothing but the later ImagePullJob deletes, and is reported in its
// Outcome only, not in the error: OpenKruise logs it and goes on. The next
// reconcile plans again from what the server then holds.
//
// Without ConcurrentBatches the creates of a batch are sent one after the
// other, which keeps the order of the writes, and the resourceVersions the
// server hands out, deterministic; with it they are sent concurrently (see
// ConcurrentBatches), and every other request still one after the other. A
// delete that finds the object gone counts as done. The outcomes are in the
// order of reqs, and the error joins the failures in that order (nil when
// none), whichever way the batches were sent.
func (s *Sender) Send(ctx context.Context, reqs []requests.Request) ([]Outcome, error) {
	out := make([]Outcome, len(reqs))
	for i, r := range reqs {
		out[i].Request = r
	}
	var progress requests.Progress
	for i := 0; i < len(reqs); {
		end := i + 1
		if s.ConcurrentBatches && reqs[i].Batch >= 0 {
			for end < len(reqs) && reqs[end].Batch == reqs[i].Batch {
				end++
			}
			s.sendBatch(ctx, &progress, out[i:end])
		} else {
			s.sendInOrder(ctx, &progress, out[i:end])
		}
		i = end
	}
	var errs []error
	for _, o := range out {
		if o.Err != nil && !o.Request.Tolerated {
			errs = append(errs, o.Err)
		}
	}
	return out, errors.Join(errs...)
}

// sendInOrder sends the requests of out one after the other, by the rules
// of progress, and fills in their outcomes.
func (s *Sender) sendInOrder(ctx context.Context, progress *requests.Progress, out []Outcome) {
	for i := range out {
		r := out[i].Request
		if !progress.ShouldSend(r) {
			continue
		}
		out[i].Sent = true
		if err := s.sendOne(ctx, r); err != nil {
			out[i].Err = err
			progress.Failed(r)
		}
	}
}

// sendBatch sends the creates of one slow-start batch (out, the requests
// of one Batch, in plan order) concurrently: the requests of one action
// (a pod's claims, then the pod) in order in a goroutine of their own, the
// actions side by side, at most MaxConcurrentCreates of them at once (when
// not 0), started in plan order. It returns when all are done.
//
// progress is shared under a lock. What it says of a request of the batch
// depends only on the failures of earlier batches and of the request's own
// action (a failure in a batch stops later batches and the rest of its
// action, nothing else of its batch), so each request is sent or skipped
// exactly as one after the other, whatever the order the goroutines run in.
func (s *Sender) sendBatch(ctx context.Context, progress *requests.Progress, out []Outcome) {
	var actions [][]int // indexes into out, per action, in first-seen order
	index := map[int]int{}
	for i := range out {
		a := out[i].Request.Action
		k, ok := index[a]
		if !ok {
			k = len(actions)
			index[a] = k
			actions = append(actions, nil)
		}
		actions[k] = append(actions[k], i)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	var slots chan struct{} // a token per action in flight, when bounded
	if s.MaxConcurrentCreates > 0 && s.MaxConcurrentCreates < len(actions) {
		slots = make(chan struct{}, s.MaxConcurrentCreates)
	}
	for _, idx := range actions {
		if slots != nil {
			slots <- struct{}{}
		}
		wg.Go(func() {
			if slots != nil {
				defer func() { <-slots }()
			}
			for _, i := range idx {
				r := out[i].Request
				mu.Lock()
				send := progress.ShouldSend(r)
				mu.Unlock()
				if !send {
					continue
				}
				out[i].Sent = true
				if err := s.sendOne(ctx, r); err != nil {
					out[i].Err = err
					mu.Lock()
					progress.Failed(r)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
}

// kindOf is the kind expectations follow for a resource ("" for none).
func kindOf(r requests.Resource) string {
	switch r {
	case requests.ResourcePods:
		return KindPod
	case requests.ResourcePersistentVolumeClaims:
		return KindPVC
	case requests.ResourceControllerRevisions:
		return KindRevision
	case requests.ResourceCloneSets:
		return KindCloneSet
	}
	return ""
}

func (s *Sender) expect(f func(*expectations.Store)) {
	if s.Expectations != nil {
		s.Expectations.Do(f)
	}
}

// sendOne sends one request and keeps the expectations.
func (s *Sender) sendOne(ctx context.Context, r requests.Request) error {
	obj := expectations.Object{Kind: kindOf(r.Resource), Name: r.Name}
	track := obj.Kind != ""
	var err error
	switch r.Verb {
	case requests.VerbCreate:
		if track {
			s.expect(func(st *expectations.Store) { st.ExpectCreate(s.Owner, obj, s.Now) })
		}
		err = s.create(ctx, r)
		if err != nil && track {
			s.expect(func(st *expectations.Store) { st.Lower(s.Owner, obj, expectations.OpCreate) })
		}
	case requests.VerbDelete:
		if track {
			s.expect(func(st *expectations.Store) { st.ExpectDelete(s.Owner, obj, s.Now) })
		}
		err = s.delete(ctx, r)
		if apierrors.IsNotFound(err) {
			err = nil
		}
		if err != nil && track {
			s.expect(func(st *expectations.Store) { st.Lower(s.Owner, obj, expectations.OpDelete) })
		}
	case requests.VerbPatch:
		var rv string
		rv, err = s.patch(ctx, r)
		if err == nil && track {
			s.expect(func(st *expectations.Store) { st.ExpectResourceVersion(s.Owner, obj, rv, s.Now) })
		}
	default:
		err = fmt.Errorf("unknown verb %q", r.Verb)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", target(r), err)
	}
	return nil
}

// target names what a request does to which object: "patch pods/status
// default/web-x".
func target(r requests.Request) string {
	return fmt.Sprintf("%s %s %s/%s", r.Verb, resourcePath(r), r.Namespace, r.Name)
}

// maxSummary is the most of a body describe shows.
const maxSummary = 300

// describe renders a request in one line for a log: its target, the patch
// type and the patch (cut at maxSummary bytes) or the size of the created
// object, and the preconditions.
func describe(r requests.Request) string {
	s := target(r)
	switch r.Verb {
	case requests.VerbPatch:
		body := string(r.Patch)
		if len(body) > maxSummary {
			body = fmt.Sprintf("%s... (%d bytes)", body[:maxSummary], len(r.Patch))
		}
		s += fmt.Sprintf(" (%s) %s", r.PatchType, body)
	case requests.VerbCreate:
		s += fmt.Sprintf(" (an object of %d bytes)", len(r.Object))
	}
	if p := r.Preconditions; p != nil && p.UID != "" {
		s += " if uid " + p.UID
	}
	if p := r.Preconditions; p != nil && p.ResourceVersion != "" {
		s += " if resourceVersion " + p.ResourceVersion
	}
	return s
}

func resourcePath(r requests.Request) string {
	if r.Subresource != "" {
		return string(r.Resource) + "/" + r.Subresource
	}
	return string(r.Resource)
}

// newObject returns an empty client object of the request's resource, named.
func (s *Sender) newObject(r requests.Request) (client.Object, error) {
	var o client.Object
	switch r.Resource {
	case requests.ResourcePods:
		o = &corev1.Pod{}
	case requests.ResourcePersistentVolumeClaims:
		o = &corev1.PersistentVolumeClaim{}
	case requests.ResourceControllerRevisions:
		o = &appsv1.ControllerRevision{}
	case requests.ResourceImagePullJobs:
		o = newImagePullJob()
	case requests.ResourceCloneSets:
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(s.cloneSetGVK())
		o = u
	default:
		return nil, fmt.Errorf("unknown resource %q", r.Resource)
	}
	o.SetNamespace(r.Namespace)
	o.SetName(r.Name)
	return o, nil
}

// cloneSetGVK is the kind a CloneSet is written as.
func (s *Sender) cloneSetGVK() schema.GroupVersionKind {
	if s.CloneSetGVK.Empty() {
		return CloneSetV1beta1
	}
	return s.CloneSetGVK
}

func (s *Sender) create(ctx context.Context, r requests.Request) error {
	if s.Writer != nil {
		return s.Writer.create(ctx, r, s.cloneSetGVK())
	}
	o, err := s.newObject(r)
	if err != nil {
		return err
	}
	if u, ok := o.(*unstructured.Unstructured); ok {
		err = u.UnmarshalJSON(r.Object)
	} else {
		err = json.Unmarshal(r.Object, o)
	}
	if err != nil {
		return fmt.Errorf("object: %v", err)
	}
	return s.Client.Create(ctx, o)
}

// deletePreconditions are the preconditions of a delete request as the
// API's delete options carry them (nil when it has none).
func deletePreconditions(r requests.Request) *metav1.Preconditions {
	p := r.Preconditions
	if p == nil || p.UID == "" && p.ResourceVersion == "" {
		return nil
	}
	pre := &metav1.Preconditions{}
	if p.UID != "" {
		uid := types.UID(p.UID)
		pre.UID = &uid
	}
	if p.ResourceVersion != "" {
		rv := p.ResourceVersion
		pre.ResourceVersion = &rv
	}
	return pre
}

func (s *Sender) delete(ctx context.Context, r requests.Request) error {
	pre := deletePreconditions(r)
	if s.Writer != nil {
		return s.Writer.delete(ctx, r, s.cloneSetGVK(), pre)
	}
	o, err := s.newObject(r)
	if err != nil {
		return err
	}
	var opts []client.DeleteOption
	if pre != nil {
		opts = append(opts, client.Preconditions(*pre))
	}
	return s.Client.Delete(ctx, o, opts...)
}

// patch sends a patch and returns the object's new resourceVersion.
func (s *Sender) patch(ctx context.Context, r requests.Request) (string, error) {
	body, err := withPreconditions(r.PatchType, r.Patch, r.Preconditions)
	if err != nil {
		return "", err
	}
	if s.Writer != nil {
		return s.Writer.patch(ctx, r, s.cloneSetGVK(), body)
	}
	o, err := s.newObject(r)
	if err != nil {
		return "", err
	}
	p := client.RawPatch(types.PatchType(r.PatchType), body)
	switch r.Subresource {
	case "":
		err = s.Client.Patch(ctx, o, p)
	case requests.SubresourceStatus:
		err = s.Client.Status().Patch(ctx, o, p)
	default:
		err = s.Client.SubResource(r.Subresource).Patch(ctx, o, p)
	}
	if err != nil {
		return "", err
	}
	return o.GetResourceVersion(), nil
}
