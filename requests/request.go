package requests

import (
	"bytes"
	"encoding/json"
)

// ListAPIVersion and ListKind identify a request list document.
const (
	ListAPIVersion = "clonesetcore/v1alpha1"
	ListKind       = "RequestList"
)

// Verb is what a request does to its object.
type Verb string

// The verbs of a request.
const (
	VerbCreate Verb = "create"
	VerbPatch  Verb = "patch"
	VerbDelete Verb = "delete"
)

// Resource is the plural resource name of a request's object, as in a
// Kubernetes API path.
type Resource string

// The resources a CloneSet controller writes.
const (
	ResourcePods                   Resource = "pods"
	ResourcePersistentVolumeClaims Resource = "persistentvolumeclaims"
	ResourceControllerRevisions    Resource = "controllerrevisions"
	ResourceCloneSets              Resource = "clonesets"
	// ResourceImagePullJobs are OpenKruise's ImagePullJobs, written as
	// apps.kruise.io/v1beta1 (the image pre-download of in-place updates).
	ResourceImagePullJobs Resource = "imagepulljobs"
)

// The subresources a CloneSet controller writes.
const (
	// SubresourceStatus is the status subresource: a patch of it changes
	// only the object's status.
	SubresourceStatus = "status"
	// SubresourceResize is the pods/resize subresource (Kubernetes 1.32 and
	// later): a patch of it changes only the containers' resources, which
	// a pod update may no longer change.
	SubresourceResize = "resize"
)

// PatchType is the media type of a patch body, as sent in the Content-Type
// header (and as client libraries name it).
type PatchType string

// The patch types of a request.
const (
	// PatchMerge is a JSON merge patch (RFC 7386): objects merge member by
	// member, null removes a member, any other value (a list included)
	// replaces it.
	PatchMerge PatchType = "application/merge-patch+json"
	// PatchStrategicMerge is a Kubernetes strategic merge patch: like a merge
	// patch, except that the lists it touches merge by their key (containers
	// by name, pod conditions by type, readiness gates by conditionType) and
	// finalizers merge as a set.
	PatchStrategicMerge PatchType = "application/strategic-merge-patch+json"
	// PatchJSON is a JSON patch (RFC 6902): a list of operations.
	PatchJSON PatchType = "application/json-patch+json"
)

// Preconditions are what the object on the server must still be for a
// request to succeed: the API server answers 409 Conflict otherwise.
type Preconditions struct {
	// UID is the object's metadata.uid: the write must not reach a new
	// object of the same name.
	UID string `json:"uid,omitempty"`
	// ResourceVersion is the metadata.resourceVersion the decision was made
	// on, where upstream relies on optimistic concurrency: the CloneSet
	// status write, which replaces the whole status computed from what the
	// round read. (Upstream's other writes re-read the object before
	// writing it, or are patches; the podsToDelete rewrite guards the list
	// it replaces with a JSON patch test operation instead.)
	ResourceVersion string `json:"resourceVersion,omitempty"`
}

// Request is one write a controller sends to the API server: plain data, in
// the terms of the Kubernetes API, so that any client can send it.
//
// A create carries the whole object (Object, in the JSON shape of the
// Kubernetes API, so it unmarshals into the client library's types). A patch
// carries its PatchType and body, which touch exactly the fields the library
// decides and nothing else: the library knows only part of each object and
// never replaces a whole one. A delete carries only the object's name and
// its preconditions.
type Request struct {
	// Verb is create, patch or delete.
	Verb Verb `json:"verb"`
	// Resource is the plural resource of the object.
	Resource Resource `json:"resource"`
	// Subresource is "status" for a write of the status subresource,
	// "resize" for a write of a pod's resize subresource, else "".
	Subresource string `json:"subresource,omitempty"`
	// Namespace and Name name the object (for a create, the object's own).
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Object is the whole object of a create.
	Object json.RawMessage `json:"object,omitempty"`
	// PatchType and Patch are the patch of a patch request.
	PatchType PatchType       `json:"patchType,omitempty"`
	Patch     json.RawMessage `json:"patch,omitempty"`
	// Preconditions must hold on the server for the write to apply; nil
	// when there are none.
	Preconditions *Preconditions `json:"preconditions,omitempty"`
	// Batch is the slow-start batch of a pod create (0, 1, 2, ...: batches of
	// 1, 2, 4, ... pods; scale-and-budgets 4.4) and of the claims created for
	// that pod: the creates of one batch may be sent concurrently, and no
	// later batch starts after a batch with a failure. -1 for every other
	// request.
	Batch int `json:"batch"`
	// Action is the index, in the plan's actions, of the action the request
	// carries out; -1 for the status write, which no action names.
	Action int `json:"action"`
	// Tolerated is set on the requests of the image pre-download (an
	// ImagePullJob's create or delete, a revision's mark): upstream logs
	// their failure and goes on, so a failure ends no other request, except
	// that a failed ImagePullJob delete skips the later ones
	// (docs/spec/image-predownload.md P8, Progress).
	Tolerated bool `json:"tolerated,omitempty"`
}

// IsStatusWrite reports whether the request is the round's write of the
// CloneSet's status (Action -1), which no plan action names.
func (r *Request) IsStatusWrite() bool { return r.Action == -1 }

// IsCreate, IsPatch and IsDelete report the request's verb.
func (r *Request) IsCreate() bool { return r.Verb == VerbCreate }

// IsPatch reports whether the request is a patch.
func (r *Request) IsPatch() bool { return r.Verb == VerbPatch }

// IsDelete reports whether the request is a delete.
func (r *Request) IsDelete() bool { return r.Verb == VerbDelete }

// List is the document `clonesetplan plan -o requests` prints: the requests
// of one plan, in the order a controller sends them.
type List struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Items      []Request `json:"items"`
}

// NewList wraps requests in a List document.
func NewList(items []Request) List {
	if items == nil {
		items = []Request{}
	}
	return List{APIVersion: ListAPIVersion, Kind: ListKind, Items: items}
}

// JSON renders the list as indented JSON with a final newline.
func (l List) JSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(l); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
