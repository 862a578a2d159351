package requests

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
)

// Reason classifies a failed request the way the API server's status reasons
// do.
type Reason string

// The reasons a request fails for.
const (
	ReasonNotFound      Reason = "NotFound"
	ReasonAlreadyExists Reason = "AlreadyExists"
	ReasonConflict      Reason = "Conflict"
	ReasonInvalid       Reason = "Invalid"
)

// Error is a request the world refused.
type Error struct {
	Reason  Reason
	Request string // "patch pods/status web-a"
	Message string
}

// Error implements error.
func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s: %s", e.Request, e.Reason, e.Message)
}

// ReasonOf returns the Reason of a world error, "" for any other error.
func ReasonOf(err error) Reason {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ""
}

// World is an in-memory API server for the objects of one CloneSet: it
// applies requests to model objects as the API server applies them to the
// real ones, for the writes Build produces (creates, deletes, merge and
// strategic merge patches of the fields the controller writes, JSON patches
// of owner references, the status subresource, a pod's resize subresource,
// the ImagePullJobs and the revision marks of the image pre-download).
// A patch touching a field the model does not hold is refused
// (ReasonInvalid), so a request that would be lost in memory never passes
// silently; so is a pod patch a real server of ServerVersion refuses: from
// 1.32 on, one that changes a container's resources (only pods/resize may),
// with the real server's message.
//
// Its maps and lists may be shared with the caller (the simulator keeps its
// own objects in them); World changes them in place. Every successful write
// gives its object a new resourceVersion.
type World struct {
	CloneSet  *model.CloneSet
	Pods      map[string]*model.Pod
	PVCs      map[string]*model.PVC
	Revisions []*model.Revision
	// ImagePullJobs are the ImagePullJobs of the CloneSet's namespace, by
	// name (created when nil).
	ImagePullJobs map[string]*model.ImagePullJob
	// Now is the time deletions and creations are stamped with.
	Now time.Time
	// AdmitPod, when set, is called with every pod about to be created (an
	// admission webhook: the simulator injects a readiness gate and assigns
	// the uid); an error refuses the create.
	AdmitPod func(*model.Pod) error
	// GracefulPodDeletion keeps a deleted pod, marked with a
	// deletionTimestamp, until someone removes it (the kubelet); otherwise
	// a pod without finalizers disappears at once.
	GracefulPodDeletion bool
	// ServerVersion is the Kubernetes version of the API server the world
	// acts as (the form of Options.ServerVersion; empty: the newest). From
	// 1.32 it has the pods/resize subresource and a pod patch may not
	// change a container's resources; before 1.32 it has no resize
	// subresource and a pod patch may change them (a server with the
	// InPlacePodVerticalScaling feature gate, which the in-place vertical
	// update needs there).
	ServerVersion string

	version int64
}

// NewWorld returns a world holding deep copies of the scenario's objects.
func NewWorld(s *model.Scenario) *World {
	w := &World{Pods: map[string]*model.Pod{}, PVCs: map[string]*model.PVC{}, Now: s.Now}
	if s.CloneSet != nil {
		w.CloneSet = s.CloneSet.DeepCopy()
	}
	for _, p := range s.Pods {
		if p != nil {
			w.Pods[p.Name] = p.DeepCopy()
		}
	}
	for _, v := range s.PVCs {
		if v != nil {
			w.PVCs[v.Name] = v.DeepCopy()
		}
	}
	for _, r := range s.Revisions {
		if r != nil {
			w.Revisions = append(w.Revisions, r.DeepCopy())
		}
	}
	for _, j := range s.ImagePullJobs {
		if j != nil {
			if w.ImagePullJobs == nil {
				w.ImagePullJobs = map[string]*model.ImagePullJob{}
			}
			w.ImagePullJobs[j.Name] = j.DeepCopy()
		}
	}
	return w
}

// Scenario returns the world's objects as a scenario at now (shared, not
// copied), sorted as the loader sorts them.
func (w *World) Scenario(base *model.Scenario) *model.Scenario {
	s := &model.Scenario{CloneSet: w.CloneSet, Now: w.Now}
	if base != nil {
		s.Description, s.Gates, s.Controller, s.Nodes = base.Description, base.Gates, base.Controller, base.Nodes
	}
	for _, name := range model.SortedKeys(w.Pods) {
		s.Pods = append(s.Pods, w.Pods[name])
	}
	for _, name := range model.SortedKeys(w.PVCs) {
		s.PVCs = append(s.PVCs, w.PVCs[name])
	}
	s.Revisions = model.SortRevisions(w.Revisions)
	for _, name := range model.SortedKeys(w.ImagePullJobs) {
		s.ImagePullJobs = append(s.ImagePullJobs, w.ImagePullJobs[name])
	}
	return s
}

// ErrNotSent marks, in ApplyAll's errors, a request that was not sent
// because an earlier one failed.
var ErrNotSent = errors.New("not sent: an earlier request of the round failed")

// ApplyAll applies requests in order, as a controller sends them (see
// Build): the creates of one batch are all attempted, except a pod whose
// claim's create failed (upstream's createOnePod returns before the pod:
// scale-and-budgets 4.4), and no later batch starts after a batch with a
// failure; any other failure ends the action requests. The status write is
// sent all the same (upstream writes the status of a round whose actions
// failed), and the requests that follow it (podsToDelete, history) only when
// it succeeded: the rules of Progress. It returns the errors by
// request index (nil for a request that succeeded, ErrNotSent for one that
// was not sent) and whether every request succeeded.
func (w *World) ApplyAll(reqs []Request) (errs []error, complete bool) {
	errs = make([]error, len(reqs))
	var progress Progress
	complete = true
	for i, r := range reqs {
		if !progress.ShouldSend(r) {
			errs[i] = ErrNotSent
			complete = false
			continue
		}
		if err := w.Apply(r); err != nil {
			errs[i] = err
			complete = false
			progress.Failed(r)
		}
	}
	return errs, complete
}

func (r *Request) describe() string {
	res := string(r.Resource)
	if r.Subresource != "" {
		res += "/" + r.Subresource
	}
	return fmt.Sprintf("%s %s %s", r.Verb, res, r.Name)
}

// Apply carries out one request.
func (w *World) Apply(r Request) error {
	fail := func(reason Reason, format string, args ...any) error {
		return &Error{Reason: reason, Request: r.describe(), Message: fmt.Sprintf(format, args...)}
	}
	if w.CloneSet != nil && r.Namespace != "" && r.Namespace != w.CloneSet.Namespace {
		return fail(ReasonNotFound, "namespace %s is not the CloneSet's", r.Namespace)
	}
	switch r.Verb {
	case VerbCreate:
		return w.create(r, fail)
	case VerbDelete:
		return w.delete(r, fail)
	case VerbPatch:
		return w.patch(r, fail)
	}
	return fail(ReasonInvalid, "unknown verb %q", r.Verb)
}

type failFunc func(Reason, string, ...any) error

func (w *World) nextVersion() string {
	w.version++
	return strconv.FormatInt(w.version, 10)
}

func (w *World) create(r Request, fail failFunc) error {
	o, err := manifest.DecodeObject(r.Object, r.describe())
	if err != nil {
		return fail(ReasonInvalid, "%v", err)
	}
	switch x := o.(type) {
	case *model.Pod:
		if r.Resource != ResourcePods || x.Name != r.Name {
			return fail(ReasonInvalid, "the object is pod %s", x.Name)
		}
		if _, taken := w.Pods[x.Name]; taken {
			return fail(ReasonAlreadyExists, "pod %s already exists", x.Name)
		}
		if x.CreationTimestamp.IsZero() {
			x.CreationTimestamp = w.Now
		}
		if x.Status.Phase == "" {
			x.Status.Phase = model.PodPending
		}
		if w.AdmitPod != nil {
			if err := w.AdmitPod(x); err != nil {
				return fail(ReasonInvalid, "admission: %v", err)
			}
		}
		w.stamp(x.Name, &x.UID, &x.ResourceVersion)
		w.Pods[x.Name] = x
	case *model.PVC:
		if r.Resource != ResourcePersistentVolumeClaims || x.Name != r.Name {
			return fail(ReasonInvalid, "the object is PVC %s", x.Name)
		}
		if _, taken := w.PVCs[x.Name]; taken {
			return fail(ReasonAlreadyExists, "PVC %s already exists", x.Name)
		}
		w.stamp(x.Name, &x.UID, &x.ResourceVersion)
		w.PVCs[x.Name] = x
	case *model.Revision:
		if r.Resource != ResourceControllerRevisions || x.Name != r.Name {
			return fail(ReasonInvalid, "the object is ControllerRevision %s", x.Name)
		}
		if w.revision(x.Name) != nil {
			return fail(ReasonAlreadyExists, "ControllerRevision %s already exists", x.Name)
		}
		if x.CreationTimestamp.IsZero() {
			x.CreationTimestamp = w.Now
		}
		w.stamp(x.Name, &x.UID, &x.ResourceVersion)
		w.Revisions = append(w.Revisions, x)
	case *model.ImagePullJob:
		if r.Resource != ResourceImagePullJobs || x.Name != r.Name {
			return fail(ReasonInvalid, "the object is ImagePullJob %s", x.Name)
		}
		if _, taken := w.ImagePullJobs[x.Name]; taken {
			return fail(ReasonAlreadyExists, "ImagePullJob %s already exists", x.Name)
		}
		if w.ImagePullJobs == nil {
			w.ImagePullJobs = map[string]*model.ImagePullJob{}
		}
		w.stamp(x.Name, &x.UID, &x.ResourceVersion)
		w.ImagePullJobs[x.Name] = x
	default:
		return fail(ReasonInvalid, "cannot create a %T", o)
	}
	return nil
}

// stamp gives a created object a uid (when it has none) and its first
// resourceVersion, as the API server does.
func (w *World) stamp(name string, uid, resourceVersion *string) {
	if *uid == "" {
		*uid = "uid-" + name + "-" + strconv.FormatInt(w.version+1, 10)
	}
	*resourceVersion = w.nextVersion()
}

func (w *World) revision(name string) *model.Revision {
	for _, x := range w.Revisions {
		if x.Name == name {
			return x
		}
	}
	return nil
}

// check tests the request's preconditions against an object's uid and
// resourceVersion.
func check(r Request, uid, rv string, fail failFunc) error {
	if p := r.Preconditions; p != nil {
		if p.UID != "" && p.UID != uid {
			return fail(ReasonConflict, "precondition uid %s, the object has uid %s", p.UID, uid)
		}
		if p.ResourceVersion != "" && p.ResourceVersion != rv {
			return fail(ReasonConflict, "precondition resourceVersion %s, the object has %s", p.ResourceVersion, rv)
		}
	}
	return nil
}

// find returns the object a delete or patch names (one of *model.Pod,
// *model.PVC, *model.Revision, *model.CloneSet, *model.ImagePullJob) once its
// preconditions hold.
func (w *World) find(r Request, fail failFunc) (any, error) {
	var obj any
	var uid, rv string
	switch r.Resource {
	case ResourcePods:
		if p := w.Pods[r.Name]; p != nil {
			obj, uid, rv = p, p.UID, p.ResourceVersion
		}
	case ResourcePersistentVolumeClaims:
		if v := w.PVCs[r.Name]; v != nil {
			obj, uid, rv = v, v.UID, v.ResourceVersion
		}
	case ResourceControllerRevisions:
		if x := w.revision(r.Name); x != nil {
			obj, uid, rv = x, x.UID, x.ResourceVersion
		}
	case ResourceCloneSets:
		if cs := w.CloneSet; cs != nil && cs.Name == r.Name {
			obj, uid, rv = cs, cs.UID, cs.ResourceVersion
		}
	case ResourceImagePullJobs:
		if j := w.ImagePullJobs[r.Name]; j != nil {
			obj, uid, rv = j, j.UID, j.ResourceVersion
		}
	default:
		return nil, fail(ReasonInvalid, "cannot %s %s", r.Verb, r.Resource)
	}
	if obj == nil {
		return nil, fail(ReasonNotFound, "no %s %s", r.Resource, r.Name)
	}
	return obj, check(r, uid, rv, fail)
}

func (w *World) delete(r Request, fail failFunc) error {
	obj, err := w.find(r, fail)
	if err != nil {
		return err
	}
	switch x := obj.(type) {
	case *model.Pod:
		switch {
		case !x.DeletionTimestamp.IsZero():
		case len(x.Finalizers) > 0 || w.GracefulPodDeletion:
			x.DeletionTimestamp = w.Now
			x.ResourceVersion = w.nextVersion()
		default:
			delete(w.Pods, x.Name)
		}
	case *model.PVC:
		delete(w.PVCs, x.Name)
	case *model.Revision:
		w.Revisions = slices.DeleteFunc(slices.Clone(w.Revisions), func(y *model.Revision) bool { return y == x })
	case *model.ImagePullJob:
		delete(w.ImagePullJobs, x.Name)
	default:
		return fail(ReasonInvalid, "cannot delete %s", r.Resource)
	}
	return nil
}

func (w *World) patch(r Request, fail failFunc) error {
	var body any
	if err := json.Unmarshal(r.Patch, &body); err != nil {
		return fail(ReasonInvalid, "the patch is not JSON: %v", err)
	}
	resize, err := Options{ServerVersion: w.ServerVersion}.ResizeSubresource()
	if err != nil {
		return fail(ReasonInvalid, "the world's %v", err)
	}
	if r.Subresource == SubresourceResize && (r.Resource != ResourcePods || !resize) {
		return fail(ReasonNotFound, "the server has no %s/%s subresource (pods have it from Kubernetes 1.%d)", r.Resource, r.Subresource, ResizeSubresourceMinor)
	}
	obj, err := w.find(r, fail)
	if err != nil {
		return err
	}
	switch x := obj.(type) {
	case *model.Pod:
		if r.PatchType != PatchMerge && r.PatchType != PatchStrategicMerge {
			return fail(ReasonInvalid, "patch type %s of a pod", r.PatchType)
		}
		q := x.DeepCopy()
		switch r.Subresource {
		case SubresourceStatus:
			err = patchPodStatus(q, body, r.PatchType)
		case SubresourceResize:
			err = patchPodResize(q, body, r.PatchType)
		case "":
			err = patchPod(q, body, r.PatchType)
			if err == nil && resize && !sameResources(x, q) {
				return fail(ReasonInvalid, "Pod %q is invalid: %s", x.Name, forbiddenPodUpdate)
			}
		default:
			err = fmt.Errorf("the in-memory world has no pods/%s subresource", r.Subresource)
		}
		if err != nil {
			return fail(ReasonInvalid, "%v", err)
		}
		q.ResourceVersion = w.nextVersion()
		*x = *q
	case *model.PVC:
		if r.PatchType != PatchJSON {
			return fail(ReasonInvalid, "patch type %s of a PVC", r.PatchType)
		}
		refs, err := patchOwnerRefs(x.OwnerReferences, body)
		if err != nil {
			return fail(ReasonInvalid, "%v", err)
		}
		x.OwnerReferences = refs
		x.ResourceVersion = w.nextVersion()
	case *model.Revision:
		if r.PatchType != PatchMerge && r.PatchType != PatchStrategicMerge {
			return fail(ReasonInvalid, "patch type %s of a ControllerRevision", r.PatchType)
		}
		if err := patchRevision(x, body); err != nil {
			return fail(ReasonInvalid, "%v", err)
		}
		x.ResourceVersion = w.nextVersion()
	case *model.ImagePullJob:
		return fail(ReasonInvalid, "the in-memory world does not patch ImagePullJobs")
	case *model.CloneSet:
		switch {
		case r.PatchType == PatchStrategicMerge:
			return fail(ReasonInvalid, "a custom resource takes no strategic merge patch")
		case r.Subresource == SubresourceStatus && r.PatchType == PatchMerge:
			err = patchCloneSetStatus(x, body)
		case r.Subresource == "" && r.PatchType == PatchJSON:
			err = patchPodsToDelete(x, body)
		default:
			return fail(ReasonInvalid, "patch type %s of the CloneSet's %s is not supported by the in-memory world", r.PatchType, orMain(r.Subresource))
		}
		if err != nil {
			return fail(ReasonInvalid, "%v", err)
		}
		x.ResourceVersion = w.nextVersion()
	}
	return nil
}

// members returns v as a JSON object, naming path in the error.
func members(v any, path string) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: want an object", path)
	}
	return m, nil
}

// only fails when m has a member not in allowed.
func only(m map[string]any, path string, allowed ...string) error {
	for k := range m {
		ok := false
		for _, a := range allowed {
			ok = ok || k == a
		}
		if !ok {
			return fmt.Errorf("%s.%s: not a field the in-memory world holds", path, k)
		}
	}
	return nil
}

// mergeStrings merges a JSON object of strings (null removes) into *dst.
func mergeStrings(dst *map[string]string, v any, path string) error {
	m, err := members(v, path)
	if err != nil {
		return err
	}
	for k, x := range m {
		switch s := x.(type) {
		case nil:
			delete(*dst, k)
		case string:
			if *dst == nil {
				*dst = map[string]string{}
			}
			(*dst)[k] = s
		default:
			return fmt.Errorf("%s.%s: want a string or null", path, k)
		}
	}
	return nil
}

func patchPod(p *model.Pod, body any, pt PatchType) error {
	top, err := members(body, "patch")
	if err != nil {
		return err
	}
	if err := only(top, "patch", "metadata", "spec"); err != nil {
		return err
	}
	if v, ok := top["metadata"]; ok {
		meta, err := members(v, "metadata")
		if err != nil {
			return err
		}
		if err := only(meta, "metadata", "labels", "annotations", "finalizers"); err != nil {
			return err
		}
		if err := mergeStrings(&p.Labels, orEmpty(meta["labels"]), "metadata.labels"); err != nil {
			return err
		}
		if err := mergeStrings(&p.Annotations, orEmpty(meta["annotations"]), "metadata.annotations"); err != nil {
			return err
		}
		if f, ok := meta["finalizers"]; ok {
			list, ok := f.([]any)
			if !ok {
				return fmt.Errorf("metadata.finalizers: want a list")
			}
			var names []string
			for _, x := range list {
				s, ok := x.(string)
				if !ok {
					return fmt.Errorf("metadata.finalizers: want strings")
				}
				names = append(names, s)
			}
			if pt == PatchStrategicMerge { // a set union, keeping the pod's own
				for _, n := range names {
					if !slices.Contains(p.Finalizers, n) {
						p.Finalizers = append(p.Finalizers, n)
					}
				}
			} else {
				p.Finalizers = names
			}
		}
	}
	if v, ok := top["spec"]; ok {
		if pt != PatchStrategicMerge {
			return fmt.Errorf("spec: containers are patched with a strategic merge patch")
		}
		return patchContainers(p, v, "image", "resources")
	}
	return nil
}

// patchContainers applies the spec of a strategic merge patch that holds
// only spec.containers, merged by name, each entry holding only the name and
// the fields given.
func patchContainers(p *model.Pod, v any, fields ...string) error {
	spec, err := members(v, "spec")
	if err != nil {
		return err
	}
	if err := only(spec, "spec", "containers"); err != nil {
		return err
	}
	list, ok := spec["containers"].([]any)
	if !ok {
		return fmt.Errorf("spec.containers: want a list")
	}
	for i, x := range list {
		path := fmt.Sprintf("spec.containers[%d]", i)
		c, err := members(x, path)
		if err != nil {
			return err
		}
		if err := only(c, path, append([]string{"name"}, fields...)...); err != nil {
			return err
		}
		if err := patchContainer(p, c, path); err != nil {
			return err
		}
	}
	return nil
}

// forbiddenPodUpdate is the message of a real API server refusing a pod
// update that changes a spec field other than those it lets an update
// change (Kubernetes pod update validation; resources change only through
// pods/resize from 1.32).
const forbiddenPodUpdate = "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`," +
	"`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations)," +
	"`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"

// sameResources reports whether two versions of a pod have the same
// container resources.
func sameResources(a, b *model.Pod) bool {
	for i := range a.Spec.Containers {
		if !a.Spec.Containers[i].Resources.Equal(b.Spec.Containers[i].Resources) {
			return false
		}
	}
	return true
}

// patchPodResize applies a strategic merge patch of the pods/resize
// subresource: spec.containers[*].resources by container name, nothing else
// (the real subresource drops every other change, so the world refuses
// one: it would be lost).
func patchPodResize(p *model.Pod, body any, pt PatchType) error {
	if pt != PatchStrategicMerge {
		return fmt.Errorf("pods/resize: containers are patched with a strategic merge patch")
	}
	top, err := members(body, "patch")
	if err != nil {
		return err
	}
	if err := only(top, "patch", "spec"); err != nil {
		return fmt.Errorf("pods/resize changes only container resources: %v", err)
	}
	if err := patchContainers(p, top["spec"], "resources"); err != nil {
		return fmt.Errorf("pods/resize changes only container resources: %v", err)
	}
	return nil
}

func orEmpty(v any) any {
	if v == nil {
		return map[string]any{}
	}
	return v
}

// patchContainer applies one entry c of a strategic merge patch of
// spec.containers (at path) to the pod's container of that name.
func patchContainer(p *model.Pod, c map[string]any, path string) error {
	name, _ := c["name"].(string)
	var ctr *model.Container
	for j := range p.Spec.Containers {
		if p.Spec.Containers[j].Name == name {
			ctr = &p.Spec.Containers[j]
		}
	}
	if ctr == nil {
		return fmt.Errorf("%s: the pod has no container %q", path, name)
	}
	if v, ok := c["image"]; ok {
		img, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s.image: want a string", path)
		}
		ctr.Image = img
	}
	if v, ok := c["resources"]; ok {
		res, err := members(v, path+".resources")
		if err != nil {
			return err
		}
		if err := only(res, path+".resources", "limits", "requests"); err != nil {
			return err
		}
		for _, kind := range []string{"limits", "requests"} {
			vals, ok := res[kind]
			if !ok {
				continue
			}
			m, err := members(vals, path+".resources."+kind)
			if err != nil {
				return err
			}
			dst := &ctr.Resources.Limits
			if kind == "requests" {
				dst = &ctr.Resources.Requests
			}
			for k, x := range m {
				if x == nil {
					delete(*dst, k)
					continue
				}
				s, ok := x.(string)
				if !ok {
					return fmt.Errorf("%s.resources.%s.%s: want a quantity string", path, kind, k)
				}
				q, err := model.ParseQuantity(s)
				if err != nil {
					return fmt.Errorf("%s.resources.%s.%s: %v", path, kind, k, err)
				}
				if *dst == nil {
					*dst = map[string]model.Quantity{}
				}
				(*dst)[k] = q
			}
		}
	}
	return nil
}

// patchPodStatus merges pod conditions keyed by type (strategic merge patch
// of the status subresource).
func patchPodStatus(p *model.Pod, body any, pt PatchType) error {
	top, err := members(body, "patch")
	if err != nil {
		return err
	}
	if err := only(top, "patch", "status"); err != nil {
		return err
	}
	st, err := members(top["status"], "status")
	if err != nil {
		return err
	}
	if err := only(st, "status", "conditions"); err != nil {
		return err
	}
	if pt != PatchStrategicMerge {
		return fmt.Errorf("status.conditions: merged by type with a strategic merge patch")
	}
	list, ok := st["conditions"].([]any)
	if !ok {
		return fmt.Errorf("status.conditions: want a list")
	}
	for i, x := range list {
		path := fmt.Sprintf("status.conditions[%d]", i)
		c, err := members(x, path)
		if err != nil {
			return err
		}
		if err := only(c, path, "type", "status", "reason", "message", "lastTransitionTime"); err != nil {
			return err
		}
		typ, _ := c["type"].(string)
		if typ == "" {
			return fmt.Errorf("%s.type: required", path)
		}
		cond := p.Condition(typ)
		if cond == nil {
			p.Status.Conditions = append(p.Status.Conditions, model.PodCondition{Type: typ})
			cond = &p.Status.Conditions[len(p.Status.Conditions)-1]
		}
		for _, f := range []struct {
			key string
			dst *string
		}{{"status", &cond.Status}, {"reason", &cond.Reason}, {"message", &cond.Message}} {
			v, ok := c[f.key]
			if !ok {
				continue
			}
			switch s := v.(type) {
			case nil:
				*f.dst = ""
			case string:
				*f.dst = s
			default:
				return fmt.Errorf("%s.%s: want a string or null", path, f.key)
			}
		}
		if v, ok := c["lastTransitionTime"]; ok {
			t, err := parseTime(v)
			if err != nil {
				return fmt.Errorf("%s.lastTransitionTime: %v", path, err)
			}
			cond.LastTransitionTime = t
		}
	}
	return nil
}

func parseTime(v any) (time.Time, error) {
	if v == nil {
		return time.Time{}, nil
	}
	s, ok := v.(string)
	if !ok {
		return time.Time{}, fmt.Errorf("want an RFC 3339 time")
	}
	return time.Parse(time.RFC3339, s)
}

// patchOwnerRefs applies a JSON patch (RFC 6902) whose operations touch only
// /metadata/ownerReferences.
func patchOwnerRefs(refs []model.OwnerReference, body any) ([]model.OwnerReference, error) {
	ops, ok := body.([]any)
	if !ok {
		return nil, fmt.Errorf("a JSON patch is a list of operations")
	}
	out := append([]model.OwnerReference(nil), refs...)
	const base = "/metadata/ownerReferences"
	for i, x := range ops {
		op, err := members(x, fmt.Sprintf("operation %d", i))
		if err != nil {
			return nil, err
		}
		kind, _ := op["op"].(string)
		path, _ := op["path"].(string)
		if path != base && !strings.HasPrefix(path, base+"/") {
			return nil, fmt.Errorf("operation %d: path %q is not a field the in-memory world patches", i, path)
		}
		rest := strings.TrimPrefix(strings.TrimPrefix(path, base), "/")
		switch {
		case kind == "add" && rest == "":
			list, err := refList(op["value"])
			if err != nil {
				return nil, fmt.Errorf("operation %d: %v", i, err)
			}
			out = list
		case kind == "add" && rest == "-":
			list, err := refList([]any{op["value"]})
			if err != nil {
				return nil, fmt.Errorf("operation %d: %v", i, err)
			}
			out = append(out, list...)
		case kind == "remove" || kind == "test":
			idx, field, _ := strings.Cut(rest, "/")
			n, err := strconv.Atoi(idx)
			if err != nil || n < 0 || n >= len(out) {
				return nil, fmt.Errorf("operation %d: no owner reference at %q", i, path)
			}
			if kind == "remove" {
				if field != "" {
					return nil, fmt.Errorf("operation %d: removes part of an owner reference", i)
				}
				out = append(out[:n:n], out[n+1:]...)
				continue
			}
			if field != "uid" || op["value"] != out[n].UID {
				return nil, fmt.Errorf("operation %d: test of %s failed", i, path)
			}
		default:
			return nil, fmt.Errorf("operation %d: %s %s is not supported by the in-memory world", i, kind, path)
		}
	}
	return out, nil
}

func refList(v any) ([]model.OwnerReference, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want a list of owner references")
	}
	var out []model.OwnerReference
	for _, x := range list {
		m, ok := x.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("want an owner reference object")
		}
		r := model.OwnerReference{}
		r.APIVersion, _ = m["apiVersion"].(string)
		r.Kind, _ = m["kind"].(string)
		r.Name, _ = m["name"].(string)
		r.UID, _ = m["uid"].(string)
		r.Controller, _ = m["controller"].(bool)
		out = append(out, r)
	}
	return out, nil
}

// patchRevision applies a merge (or strategic merge) patch of a
// ControllerRevision's revision number, labels and annotations (maps of
// strings: the two patch types merge them alike).
func patchRevision(x *model.Revision, body any) error {
	top, err := members(body, "patch")
	if err != nil {
		return err
	}
	if err := only(top, "patch", "revision", "metadata"); err != nil {
		return err
	}
	if v, ok := top["revision"]; ok {
		n, isNum := v.(float64)
		if !isNum || n != float64(int64(n)) {
			return fmt.Errorf("revision: want an integer")
		}
		x.Revision = int64(n)
	}
	if v, ok := top["metadata"]; ok {
		meta, err := members(v, "metadata")
		if err != nil {
			return err
		}
		if err := only(meta, "metadata", "labels", "annotations"); err != nil {
			return err
		}
		if err := mergeStrings(&x.Labels, orEmpty(meta["labels"]), "metadata.labels"); err != nil {
			return err
		}
		return mergeStrings(&x.Annotations, orEmpty(meta["annotations"]), "metadata.annotations")
	}
	return nil
}

func orMain(sub string) string {
	if sub == "" {
		return "spec"
	}
	return sub
}

// patchPodsToDelete applies a JSON patch of spec.scaleStrategy.podsToDelete:
// test and replace (or add) operations on that path.
func patchPodsToDelete(cs *model.CloneSet, body any) error {
	ops, ok := body.([]any)
	if !ok {
		return fmt.Errorf("a JSON patch is a list of operations")
	}
	const path = "/spec/scaleStrategy/podsToDelete"
	names := cs.Spec.ScaleStrategy.PodsToDelete
	for i, x := range ops {
		op, err := members(x, fmt.Sprintf("operation %d", i))
		if err != nil {
			return err
		}
		if op["path"] != path {
			return fmt.Errorf("operation %d: path %v is not a field the in-memory world patches", i, op["path"])
		}
		list, ok := op["value"].([]any)
		if !ok {
			return fmt.Errorf("operation %d: want a list of names", i)
		}
		var value []string
		for _, n := range list {
			s, ok := n.(string)
			if !ok {
				return fmt.Errorf("operation %d: want a list of names", i)
			}
			value = append(value, s)
		}
		switch op["op"] {
		case "test":
			if !slices.Equal(value, names) {
				return fmt.Errorf("operation %d: test of %s failed", i, path)
			}
		case "replace", "add":
			names = value
		default:
			return fmt.Errorf("operation %d: %v is not supported by the in-memory world", i, op["op"])
		}
	}
	cs.Spec.ScaleStrategy.PodsToDelete = names
	cs.Generation++ // a spec change
	return nil
}

// patchCloneSetStatus applies the merge patch of the whole status Build
// writes.
func patchCloneSetStatus(cs *model.CloneSet, body any) error {
	top, err := members(body, "patch")
	if err != nil {
		return err
	}
	if err := only(top, "patch", "status"); err != nil {
		return err
	}
	raw, err := json.Marshal(top["status"])
	if err != nil {
		return err
	}
	var st struct {
		ObservedGeneration       *int64  `json:"observedGeneration"`
		Replicas                 *int32  `json:"replicas"`
		ReadyReplicas            *int32  `json:"readyReplicas"`
		AvailableReplicas        *int32  `json:"availableReplicas"`
		UpdatedReplicas          *int32  `json:"updatedReplicas"`
		UpdatedReadyReplicas     *int32  `json:"updatedReadyReplicas"`
		UpdatedAvailableReplicas *int32  `json:"updatedAvailableReplicas"`
		ExpectedUpdatedReplicas  *int32  `json:"expectedUpdatedReplicas"`
		CurrentRevision          *string `json:"currentRevision"`
		UpdateRevision           *string `json:"updateRevision"`
		CollisionCount           *int32  `json:"collisionCount"`
		LabelSelector            *string `json:"labelSelector"`
		Conditions               *[]struct {
			Type, Status, Reason, Message      string
			LastUpdateTime, LastTransitionTime string
		} `json:"conditions"`
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		return fmt.Errorf("status: %v", err)
	}
	s := &cs.Status
	setI64(&s.ObservedGeneration, st.ObservedGeneration)
	for _, f := range []struct {
		dst *int32
		v   *int32
	}{{&s.Replicas, st.Replicas}, {&s.ReadyReplicas, st.ReadyReplicas}, {&s.AvailableReplicas, st.AvailableReplicas},
		{&s.UpdatedReplicas, st.UpdatedReplicas}, {&s.UpdatedReadyReplicas, st.UpdatedReadyReplicas},
		{&s.UpdatedAvailableReplicas, st.UpdatedAvailableReplicas}, {&s.ExpectedUpdatedReplicas, st.ExpectedUpdatedReplicas}} {
		if f.v != nil {
			*f.dst = *f.v
		}
	}
	if st.CurrentRevision != nil {
		s.CurrentRevision = *st.CurrentRevision
	}
	if st.UpdateRevision != nil {
		s.UpdateRevision = *st.UpdateRevision
	}
	if st.LabelSelector != nil {
		s.LabelSelector = *st.LabelSelector
	}
	if st.CollisionCount != nil {
		c := *st.CollisionCount
		s.CollisionCount = &c
	}
	if st.Conditions != nil {
		s.Conditions = nil
		for _, c := range *st.Conditions {
			u, err := parseTime(nonEmpty(c.LastUpdateTime))
			if err != nil {
				return fmt.Errorf("status.conditions: %v", err)
			}
			t, err := parseTime(nonEmpty(c.LastTransitionTime))
			if err != nil {
				return fmt.Errorf("status.conditions: %v", err)
			}
			s.Conditions = append(s.Conditions, model.CloneSetCondition{Type: c.Type, Status: c.Status, Reason: c.Reason,
				Message: c.Message, LastUpdateTime: u, LastTransitionTime: t})
		}
	}
	return nil
}

func nonEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func setI64(dst *int64, v *int64) {
	if v != nil {
		*dst = *v
	}
}
