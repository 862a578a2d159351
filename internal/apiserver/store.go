package apiserver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"

	"gopkg.in/yaml.v3"
)

// Key names one object: its plural resource, namespace and name.
type Key struct {
	Resource  string
	Namespace string
	Name      string
}

// String renders the key as resource/namespace/name.
func (k Key) String() string { return k.Resource + "/" + k.Namespace + "/" + k.Name }

// kindResources maps the kinds a world holds to their resources.
var kindResources = map[string]string{
	"Pod":                   "pods",
	"PersistentVolumeClaim": "persistentvolumeclaims",
	"ControllerRevision":    "controllerrevisions",
	"CloneSet":              "clonesets",
	"Node":                  "nodes",
}

// resourceKinds maps resources back to kinds.
var resourceKinds = func() map[string]string {
	m := map[string]string{}
	for k, r := range kindResources {
		m[r] = k
	}
	return m
}()

// statusSubresource lists the resources with a status subresource: their
// main resource ignores status changes, their status subresource changes
// only the status.
var statusSubresource = map[string]bool{
	"pods":                   true,
	"persistentvolumeclaims": true,
	"clonesets":              true,
	"nodes":                  true,
}

// clusterScoped lists the resources without a namespace.
var clusterScoped = map[string]bool{"nodes": true}

// Verb is the kind of a successful write, in a Store's journal.
type Verb string

// The verbs of the journal.
const (
	VerbCreate Verb = "create"
	VerbPatch  Verb = "patch"
	// VerbDelete is a delete that removed the object.
	VerbDelete Verb = "delete"
	// VerbMarkDeleted is a delete of an object with finalizers: the object
	// stays with its deletionTimestamp set.
	VerbMarkDeleted Verb = "mark-deleted"
)

// Op is one successful write of the journal.
type Op struct {
	Verb Verb
	Key  Key
}

// Preconditions are conditions on the stored object for a patch or delete
// to apply; an empty field is not checked.
type Preconditions struct {
	// UID must equal the object's metadata.uid.
	UID string
	// ResourceVersion must equal the object's metadata.resourceVersion.
	ResourceVersion string
}

// Patch types (the Content-Type of a patch request).
const (
	MergePatchType          = "application/merge-patch+json"
	StrategicMergePatchType = "application/strategic-merge-patch+json"
	JSONPatchType           = "application/json-patch+json"
)

// Store is an in-memory API server: objects by key, the world's clock (the
// time a delete stamps as deletionTimestamp and a create as
// creationTimestamp), counters for resource versions and generated names,
// and a journal of the writes it accepted.
type Store struct {
	now     string
	objects map[Key]Object
	version int
	names   int
	uids    int
	journal []Op
}

// NewStore returns an empty store whose clock reads now (RFC 3339).
func NewStore(now string) *Store {
	return &Store{now: now, objects: map[Key]Object{}}
}

// Now returns the store's clock.
func (s *Store) Now() string { return s.now }

// Load reads a world: YAML documents (a multi-document stream; lists of
// objects are not unpacked) of the kinds Pod, PersistentVolumeClaim,
// ControllerRevision, CloneSet and Node, plus the world's Scenario document,
// whose `now` sets the clock. Objects keep what they carry (no uid or
// resourceVersion is added); an object without a namespace is put in
// "default" unless its resource is cluster-scoped. Any other kind, a
// document that is not a map, an object without a name and a duplicate
// object are errors.
func Load(data []byte) (*Store, error) {
	s := NewStore("")
	docs, err := DecodeYAMLStream(data)
	if err != nil {
		return nil, err
	}
	for i, v := range docs {
		n := i + 1
		if v == nil {
			continue
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("document %d is not a map", n)
		}
		kind, _ := obj["kind"].(string)
		if kind == "Scenario" {
			now, _ := obj["now"].(string)
			s.now = now
			continue
		}
		if err := s.Add(obj); err != nil {
			return nil, fmt.Errorf("document %d: %v", n, err)
		}
	}
	return s, nil
}

// DecodeYAMLStream decodes a stream of YAML documents (JSON is YAML) into
// JSON trees, one per document (nil for an empty one), reading scalars as
// the library's loader does (YAML 1.2: `y` and `on` are strings; a
// timestamp stays the string it was written as).
func DecodeYAMLStream(data []byte) ([]any, error) {
	var docs []any
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for n := 1; ; n++ {
		var node yaml.Node
		err := dec.Decode(&node)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %v", n, err)
		}
		v, err := yamlToJSON(&node)
		if err != nil {
			return nil, fmt.Errorf("document %d: %v", n, err)
		}
		docs = append(docs, v)
	}
}

// Add puts an object into the store as it is (no timestamps, uid or
// resource version added, nothing journaled): the state before a round.
func (s *Store) Add(obj Object) error {
	kind, _ := obj["kind"].(string)
	resource, ok := kindResources[kind]
	if !ok {
		return fmt.Errorf("unsupported kind %q", kind)
	}
	name := metaString(obj, "name")
	if name == "" {
		return fmt.Errorf("a %s without metadata.name", kind)
	}
	ns := metaString(obj, "namespace")
	if ns == "" && !clusterScoped[resource] {
		ns = "default"
		setMeta(obj, "namespace", ns)
	}
	k := Key{resource, ns, name}
	if _, dup := s.objects[k]; dup {
		return fmt.Errorf("duplicate object %s", k)
	}
	s.objects[k] = copyObject(obj)
	return nil
}

// Get returns a copy of an object.
func (s *Store) Get(resource, namespace, name string) (Object, bool) {
	o, ok := s.objects[Key{resource, namespace, name}]
	return copyObject(o), ok
}

// Keys returns the keys of all objects, sorted.
func (s *Store) Keys() []Key {
	keys := make([]Key, 0, len(s.objects))
	for k := range s.objects {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	return keys
}

// Snapshot returns a deep copy of every object by key.
func (s *Store) Snapshot() map[Key]Object {
	out := make(map[Key]Object, len(s.objects))
	for k, o := range s.objects {
		out[k] = copyObject(o)
	}
	return out
}

// Journal returns the writes the store accepted, in order.
func (s *Store) Journal() []Op { return append([]Op(nil), s.journal...) }

func (s *Store) nextVersion() string {
	s.version++
	return "rv-" + itoa(s.version)
}

func (s *Store) checkResource(resource string) error {
	if _, ok := resourceKinds[resource]; !ok {
		return errorf(ReasonNotFound, "the server could not find the requested resource %q", resource)
	}
	return nil
}

// Create creates an object of a resource in a namespace from its JSON, as
// the API server does: the body must be an object of the resource's kind
// (an absent apiVersion/kind is accepted), its namespace empty or the
// request's; a missing name is generated from metadata.generateName
// (deterministically: generateName plus a counter); a taken name fails with
// AlreadyExists. The server sets uid, creationTimestamp (the clock) and
// resourceVersion, and clears deletionTimestamp. It returns the stored
// object.
func (s *Store) Create(resource, namespace string, body []byte) (Object, error) {
	if err := s.checkResource(resource); err != nil {
		return nil, err
	}
	v, err := DecodeJSON(body)
	if err != nil {
		return nil, errorf(ReasonBadRequest, "create %s: %v", resource, err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, errorf(ReasonBadRequest, "create %s: the body is not a JSON object", resource)
	}
	if kind, ok := obj["kind"]; ok && kind != resourceKinds[resource] {
		return nil, errorf(ReasonBadRequest, "create %s: kind %v in the body", resource, kind)
	}
	if m, ok := obj["metadata"]; ok {
		if _, isMap := m.(map[string]any); !isMap {
			return nil, errorf(ReasonBadRequest, "create %s: metadata is not an object", resource)
		}
	}
	if clusterScoped[resource] {
		namespace = ""
	}
	switch ns := metaString(obj, "namespace"); {
	case ns == "":
		if namespace != "" {
			setMeta(obj, "namespace", namespace)
		}
	case ns != namespace:
		return nil, errorf(ReasonBadRequest, "create %s: the namespace of the body (%s) does not match the request (%s)", resource, ns, namespace)
	}
	name := metaString(obj, "name")
	if name == "" {
		gen := metaString(obj, "generateName")
		if gen == "" {
			return nil, errorf(ReasonInvalid, "create %s: metadata.name or metadata.generateName is required", resource)
		}
		for {
			s.names++
			name = fmt.Sprintf("%sgen%d", gen, s.names)
			if _, taken := s.objects[Key{resource, namespace, name}]; !taken {
				break
			}
		}
		setMeta(obj, "name", name)
	}
	k := Key{resource, namespace, name}
	if _, taken := s.objects[k]; taken {
		return nil, errorf(ReasonAlreadyExists, "%s %q already exists", resource, name)
	}
	s.uids++
	setMeta(obj, "uid", fmt.Sprintf("server-uid-%d", s.uids))
	setMeta(obj, "creationTimestamp", s.now)
	setMeta(obj, "resourceVersion", s.nextVersion())
	delete(metadata(obj), "deletionTimestamp")
	delete(metadata(obj), "deletionGracePeriodSeconds")
	s.objects[k] = obj
	s.journal = append(s.journal, Op{VerbCreate, k})
	return copyObject(obj), nil
}

// checkPreconditions compares preconditions with a stored object.
func checkPreconditions(cur Object, k Key, pre *Preconditions) error {
	if pre == nil {
		return nil
	}
	if pre.UID != "" && pre.UID != metaString(cur, "uid") {
		return errorf(ReasonConflict, "%s: precondition failed: uid %q, the object's is %q", k, pre.UID, metaString(cur, "uid"))
	}
	if pre.ResourceVersion != "" && pre.ResourceVersion != metaString(cur, "resourceVersion") {
		return errorf(ReasonConflict, "%s: precondition failed: resourceVersion %q, the object's is %q", k, pre.ResourceVersion, metaString(cur, "resourceVersion"))
	}
	return nil
}

// Patch patches an object (subresource "", "status", or "resize" of a pod)
// with a body of a patch type, as the API server does:
//   - the preconditions must hold (Conflict otherwise), and so must the
//     metadata.uid and metadata.resourceVersion the patch leaves on the
//     object when they differ from the stored ones (a body that sets them
//     acts as a precondition);
//   - a patch of the main resource of a resource with a status subresource
//     leaves the status as it was; a patch of the status subresource
//     changes only the status;
//   - a patch of a pod's main resource may change only the spec fields a
//     pod update may change (not container resources: checkPodUpdate); a
//     patch of its resize subresource changes only the containers'
//     resources and resize policies (resizePod);
//   - name and namespace cannot change (Invalid); creationTimestamp,
//     deletionTimestamp and deletionGracePeriodSeconds keep their stored
//     values; on an object being deleted no finalizer may be added
//     (Invalid), and removing its last finalizer removes the object;
//   - the result must be a JSON object whose kind and apiVersion do not
//     change.
//
// A write that changes nothing keeps the resourceVersion and is not
// journaled. It returns the stored object (nil when it was removed).
func (s *Store) Patch(resource, namespace, name, subresource, patchType string, body []byte, pre *Preconditions) (Object, error) {
	if err := s.checkResource(resource); err != nil {
		return nil, err
	}
	switch subresource {
	case "":
	case "status":
		if !statusSubresource[resource] {
			return nil, errorf(ReasonNotFound, "%s has no status subresource", resource)
		}
	case "resize":
		if resource != "pods" {
			return nil, errorf(ReasonNotFound, "%s has no resize subresource", resource)
		}
	default:
		return nil, errorf(ReasonNotFound, "unknown subresource %q of %s", subresource, resource)
	}
	k := Key{resource, namespace, name}
	cur, err := s.existing(k, pre)
	if err != nil {
		return nil, err
	}
	var patched Object
	switch patchType {
	case MergePatchType:
		patched, err = ApplyMergePatch(cur, body)
	case StrategicMergePatchType:
		patched, err = ApplyStrategicMergePatch(resource, cur, body)
	case JSONPatchType:
		patched, err = ApplyJSONPatch(cur, body)
	default:
		return nil, errorf(ReasonUnsupportedMediaType, "patch type %q", patchType)
	}
	if err != nil {
		return nil, err
	}
	if m, ok := patched["metadata"]; ok {
		if _, isMap := m.(map[string]any); !isMap {
			return nil, errorf(ReasonBadRequest, "%s: the patched metadata is not an object", k)
		}
	}
	for _, f := range []string{"uid", "resourceVersion"} {
		if v, ok := metadata(patched)[f]; ok && v != nil && !Equal(v, metadata(cur)[f]) {
			return nil, errorf(ReasonConflict, "%s: the patch sets metadata.%s to %s, the object's is %q", k, f, compactJSON(v), metaString(cur, f))
		}
	}
	for _, f := range []string{"kind", "apiVersion"} {
		if !Equal(patched[f], cur[f]) {
			return nil, errorf(ReasonBadRequest, "%s: the patch changes %s", k, f)
		}
	}
	for _, f := range []string{"name", "namespace"} {
		if metaString(patched, f) != metaString(cur, f) {
			return nil, errorf(ReasonInvalid, "%s: metadata.%s is immutable", k, f)
		}
	}
	var next Object
	switch subresource {
	case "status":
		next = copyObject(cur)
		if st, ok := patched["status"]; ok {
			next["status"] = st
		} else {
			delete(next, "status")
		}
	case "resize":
		if next, err = resizePod(k, cur, patched); err != nil {
			return nil, err
		}
	default:
		next = patched
		if statusSubresource[resource] {
			if st, ok := cur["status"]; ok {
				next["status"] = DeepCopy(st)
			} else {
				delete(next, "status")
			}
		}
		if resource == "pods" {
			if err := checkPodUpdate(k, cur, next); err != nil {
				return nil, err
			}
		}
	}
	// Server-managed metadata keeps its stored values.
	for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds"} {
		if v, ok := metadata(cur)[f]; ok {
			setMeta(next, f, v)
		} else if md := metadata(next); md != nil {
			delete(md, f)
		}
	}
	if metaString(cur, "deletionTimestamp") != "" {
		for _, f := range finalizers(next) {
			if !containsValue(finalizers(cur), f) {
				return nil, errorf(ReasonInvalid, "%s: no new finalizers can be added if the object is being deleted (%v)", k, f)
			}
		}
	}
	if Equal(next, cur) {
		return copyObject(cur), nil
	}
	if metaString(next, "deletionTimestamp") != "" && len(finalizers(next)) == 0 {
		delete(s.objects, k)
		s.journal = append(s.journal, Op{VerbPatch, k}, Op{VerbDelete, k})
		return nil, nil
	}
	setMeta(next, "resourceVersion", s.nextVersion())
	s.objects[k] = next
	s.journal = append(s.journal, Op{VerbPatch, k})
	return copyObject(next), nil
}

// Delete deletes an object, as the API server does: the preconditions must
// hold (Conflict otherwise); an object with finalizers is not removed but
// gets metadata.deletionTimestamp (the clock; a second delete changes
// nothing); any other object is removed at once (pods included: the store
// has no kubelet and no grace period). It returns the object left, nil when
// it was removed.
func (s *Store) Delete(resource, namespace, name string, pre *Preconditions) (Object, error) {
	if err := s.checkResource(resource); err != nil {
		return nil, err
	}
	k := Key{resource, namespace, name}
	cur, err := s.existing(k, pre)
	if err != nil {
		return nil, err
	}
	if len(finalizers(cur)) > 0 {
		if metaString(cur, "deletionTimestamp") == "" {
			next := copyObject(cur)
			setMeta(next, "deletionTimestamp", s.now)
			setMeta(next, "resourceVersion", s.nextVersion())
			s.objects[k] = next
			s.journal = append(s.journal, Op{VerbMarkDeleted, k})
		}
		return copyObject(s.objects[k]), nil
	}
	delete(s.objects, k)
	s.journal = append(s.journal, Op{VerbDelete, k})
	return nil, nil
}

// existing returns the stored object of key k, NotFound when there is none,
// Conflict when the preconditions pre do not hold (what a write to an
// existing object checks first).
func (s *Store) existing(k Key, pre *Preconditions) (Object, error) {
	cur, ok := s.objects[k]
	if !ok {
		return nil, errorf(ReasonNotFound, "%s %q not found", k.Resource, k.Name)
	}
	if err := checkPreconditions(cur, k, pre); err != nil {
		return nil, err
	}
	return cur, nil
}
