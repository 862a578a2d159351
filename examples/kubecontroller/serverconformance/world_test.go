package serverconformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/examples/kubecontroller"
	"github.com/clonecore/cloneset/internal/apiserver"
	"github.com/clonecore/cloneset/model"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The kinds a world's objects are loaded as, in the order they are created:
// owners before the objects they own. Other kinds (Services, ReplicaSets in
// a namespace dump) are left out: the library sets them aside.
var loadOrder = []string{"Node", "CloneSet", "ControllerRevision", "Pod", "PersistentVolumeClaim", "ImagePullJob"}

// resourceOf maps the loaded kinds to their plural resources.
var resourceOf = map[string]string{
	"Node":                  "nodes",
	"CloneSet":              "clonesets",
	"ControllerRevision":    "controllerrevisions",
	"Pod":                   "pods",
	"PersistentVolumeClaim": "persistentvolumeclaims",
	"ImagePullJob":          "imagepulljobs",
}

// listKinds are the kinds read back from a world's namespaces.
var listKinds = []struct{ apiVersion, kind string }{
	{"v1", "Pod"},
	{"v1", "PersistentVolumeClaim"},
	{"apps/v1", "ControllerRevision"},
}

// serverFinalizers are finalizers the API server's admission adds and
// kube-controller-manager removes: a deleted object held only by them is
// gone as far as a controller is concerned.
var serverFinalizers = []string{"kubernetes.io/pvc-protection"}

// world is a world file read as JSON objects.
type world struct {
	// docs are the documents in order, Lists unpacked (the Scenario
	// document included).
	docs []map[string]any
}

// readWorld reads a YAML or JSON stream of documents, as the library's
// loader reads it.
func readWorld(data []byte) (*world, error) {
	docs, err := apiserver.DecodeYAMLStream(data)
	if err != nil {
		return nil, err
	}
	w := &world{}
	for n, v := range docs {
		if v == nil {
			continue
		}
		doc, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("document %d is not a map", n+1)
		}
		if doc["kind"] == "List" {
			items, _ := doc["items"].([]any)
			for _, it := range items {
				if m, ok := it.(map[string]any); ok {
					w.docs = append(w.docs, m)
				}
			}
			continue
		}
		w.docs = append(w.docs, doc)
	}
	return w, nil
}

// namespaced reports whether a document is a namespaced object of a kind
// the library reads.
func namespaced(doc map[string]any) bool {
	k, _ := doc["kind"].(string)
	return k != "Node" && k != "Scenario" && k != "Namespace"
}

// withNamespaces returns the world as a stream of JSON documents, every
// namespaced object moved to the namespace rename gives its namespace
// (default when it has none).
func (w *world) withNamespaces(rename func(string) string) []byte {
	var b bytes.Buffer
	for _, d := range w.docs {
		c := apiserver.DeepCopy(d).(map[string]any)
		if namespaced(c) {
			md := metaOf(c)
			ns, _ := md["namespace"].(string)
			md["namespace"] = rename(ns)
		}
		j, _ := json.Marshal(c)
		b.WriteString("---\n")
		b.Write(j)
		b.WriteString("\n")
	}
	return b.Bytes()
}

// namespaces returns the world's namespaces, sorted.
func (w *world) namespaces() []string {
	seen := map[string]bool{}
	for _, d := range w.docs {
		if _, ok := resourceOf[kindOf(d)]; ok && namespaced(d) {
			ns, _ := metaOf(d)["namespace"].(string)
			if ns == "" {
				ns = "default"
			}
			seen[ns] = true
		}
	}
	out := make([]string, 0, len(seen))
	for ns := range seen {
		out = append(out, ns)
	}
	sort.Strings(out)
	return out
}

func kindOf(o map[string]any) string { k, _ := o["kind"].(string); return k }

func metaOf(o map[string]any) map[string]any {
	md, _ := o["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		o["metadata"] = md
	}
	return md
}

// loaded is a world put on the server: the namespaces it went to and the
// uids and resourceVersions the server handed out for the world's.
type loaded struct {
	// namespace maps the world's namespaces to the server's.
	namespace map[string]string
	// toServer maps world uids to server uids; toWorld the other way.
	toServer, toWorld map[string]string
	// versions maps "resource/namespace/name" (world names) to the world's
	// resourceVersion and the server's after loading.
	worldVersion, serverVersion map[string]string
	// nodes are the nodes created (cluster-scoped: deleted after the world).
	nodes []string
}

// serverNamespace returns the server namespace of a world namespace.
func (l *loaded) serverNamespace(ns string) string {
	if ns == "" {
		ns = "default"
	}
	return l.namespace[ns]
}

// worldNamespace returns the world namespace of a server namespace.
func (l *loaded) worldNamespace(ns string) string {
	for w, s := range l.namespace {
		if s == ns {
			return w
		}
	}
	return ns
}

// mapUIDs replaces, in a JSON tree, every string that is a key of m by its
// value (uids sit in metadata.uid, owner references and preconditions).
func mapUIDs(v any, m map[string]string) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = mapUIDs(x, m)
		}
	case []any:
		for i, x := range t {
			t[i] = mapUIDs(x, m)
		}
	case string:
		if r, ok := m[t]; ok {
			return r
		}
	}
	return v
}

// stripServerOnly removes what the server sets and a create may not carry.
func stripServerOnly(o map[string]any) {
	md := metaOf(o)
	for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds"} {
		delete(md, f)
	}
}

// load creates the world's objects on the server, each world namespace in
// a new namespace named prefix + "-" + its name (made by createNamespace:
// the control plane's CreateNamespace).
func load(ctx context.Context, c client.Client, createNamespace func(context.Context, string) error, w *world, prefix string) (*loaded, error) {
	l := &loaded{namespace: map[string]string{}, toServer: map[string]string{}, toWorld: map[string]string{}, worldVersion: map[string]string{}, serverVersion: map[string]string{}}
	for _, ns := range w.namespaces() {
		sns := prefix + "-" + ns
		if len(sns) > 63 {
			sns = sns[:63]
		}
		l.namespace[ns] = sns
		// With its default service account, which mounts no token: pods
		// keep the world's volumes.
		if err := createNamespace(ctx, sns); err != nil {
			return l, err
		}
	}
	for _, kind := range loadOrder {
		if kind == "Pod" {
			if err := l.createMissingNodes(ctx, c, w); err != nil {
				return l, err
			}
		}
		for _, d := range w.docs {
			if kindOf(d) != kind {
				continue
			}
			if err := l.create(ctx, c, d); err != nil {
				return l, err
			}
		}
	}
	return l, nil
}

// nodeNames returns the names of the world's nodes.
func (w *world) nodeNames() map[string]bool {
	out := map[string]bool{}
	for _, d := range w.docs {
		if kindOf(d) == "Node" {
			out[metaString(d, "name")] = true
		}
	}
	return out
}

// createMissingNodes gives the server a node for every node a world pod is
// bound to that the world lacks (the server refuses a resize of a pod on a
// node it does not know, or whose allocatable resources are too few). They are the server's only: the library plans on
// the world as it is.
func (l *loaded) createMissingNodes(ctx context.Context, c client.Client, w *world) error {
	have := w.nodeNames()
	for _, d := range w.docs {
		if kindOf(d) != "Pod" {
			continue
		}
		spec, _ := d["spec"].(map[string]any)
		n, _ := spec["nodeName"].(string)
		if n == "" || have[n] {
			continue
		}
		have[n] = true
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n, Labels: map[string]string{corev1.LabelHostname: n}}}
		if err := c.Create(ctx, node); err != nil {
			return fmt.Errorf("node %s of the world's pods: %w", n, err)
		}
		node.Status.Capacity = corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("1000"), corev1.ResourceMemory: resource.MustParse("1Ti"), corev1.ResourcePods: resource.MustParse("1000"),
		}
		node.Status.Allocatable = node.Status.Capacity
		if err := c.Status().Update(ctx, node); err != nil {
			return fmt.Errorf("status of node %s: %w", n, err)
		}
		l.nodes = append(l.nodes, n)
	}
	return nil
}

// create creates one world object (and its status), recording its uid.
func (l *loaded) create(ctx context.Context, c client.Client, d map[string]any) error {
	o := apiserver.DeepCopy(d).(map[string]any)
	md := metaOf(o)
	name, _ := md["name"].(string)
	worldUID, _ := md["uid"].(string)
	worldRV, _ := md["resourceVersion"].(string)
	_, terminating := md["deletionTimestamp"]
	ns, _ := md["namespace"].(string)
	if namespaced(o) {
		md["namespace"] = l.serverNamespace(ns)
	}
	key := resourceOf[kindOf(o)] + "/" + worldKeyNamespace(o, ns) + "/" + name
	stripServerOnly(o)
	if refs, ok := md["ownerReferences"]; ok {
		md["ownerReferences"] = mapUIDs(refs, l.toServer)
	}
	status, hasStatus := o["status"].(map[string]any)
	delete(o, "status")
	u := &unstructured.Unstructured{Object: o}
	if err := c.Create(ctx, u); err != nil {
		return fmt.Errorf("create %s: %w", key, err)
	}
	if hasStatus && len(status) > 0 && kindOf(d) != "ControllerRevision" {
		u.Object["status"] = apiserver.DeepCopy(status)
		if err := c.Status().Update(ctx, u); err != nil {
			return fmt.Errorf("status of %s: %w", key, err)
		}
	}
	if kindOf(d) == "Node" {
		l.nodes = append(l.nodes, name)
	}
	// A terminating object is deleted: the server stamps its own
	// deletionTimestamp, and the object stays while its finalizers (or, for
	// a pod bound to a node, its kubelet, absent here) hold it.
	if terminating {
		if err := c.Delete(ctx, u); err != nil {
			return fmt.Errorf("delete %s (terminating in the world): %w", key, err)
		}
	}
	if worldUID != "" {
		l.toServer[worldUID] = string(u.GetUID())
		l.toWorld[string(u.GetUID())] = worldUID
	}
	l.worldVersion[key] = worldRV
	l.serverVersion[key] = u.GetResourceVersion()
	return nil
}

// worldKeyNamespace is the namespace of a world object in keys ("" for a
// cluster-scoped one, default when it has none).
func worldKeyNamespace(o map[string]any, ns string) string {
	if !namespaced(o) {
		return ""
	}
	if ns == "" {
		return "default"
	}
	return ns
}

// snapshot reads every object of the world's kinds back from the server,
// in the world's terms: world namespaces and uids, no managedFields. The
// second map holds each object's server resourceVersion, to tell what a
// round changed.
func (l *loaded) snapshot(ctx context.Context, c client.Client) (map[apiserver.Key]apiserver.Object, map[apiserver.Key]string, error) {
	objs := map[apiserver.Key]apiserver.Object{}
	versions := map[apiserver.Key]string{}
	for _, sns := range sortedValues(l.namespace) {
		for _, lk := range listKinds {
			list := &unstructured.UnstructuredList{}
			list.SetAPIVersion(lk.apiVersion)
			list.SetKind(lk.kind + "List")
			if err := c.List(ctx, list, client.InNamespace(sns)); err != nil {
				return nil, nil, err
			}
			for i := range list.Items {
				l.keep(objs, versions, list.Items[i].Object, lk.kind)
			}
		}
	}
	return objs, versions, nil
}

// keep adds a server object to a snapshot, unless it is gone in all but
// name (see the package doc).
func (l *loaded) keep(objs map[apiserver.Key]apiserver.Object, versions map[apiserver.Key]string, o map[string]any, kind string) {
	o = plainJSON(o)
	md := metaOf(o)
	if _, terminating := md["deletionTimestamp"]; terminating && onlyServerFinalizers(md) {
		return
	}
	ns, _ := md["namespace"].(string)
	name, _ := md["name"].(string)
	k := apiserver.Key{Resource: resourceOf[kind], Namespace: l.worldNamespace(ns), Name: name}
	versions[k], _ = md["resourceVersion"].(string)
	// What the server maintains itself and no controller writes: field
	// managers, the generation (1.33 and newer count a pod's spec changes),
	// the grace period stamped with a deletionTimestamp.
	for _, f := range []string{"managedFields", "generation", "deletionGracePeriodSeconds"} {
		delete(md, f)
	}
	md["namespace"] = k.Namespace
	mapUIDs(o, l.toWorld)
	if o["kind"] == nil {
		o["kind"] = kind
	}
	objs[k] = o
}

// plainJSON returns a copy of an object in the shape encoding/json gives
// (numbers as float64), the shape the records and the comparison use.
func plainJSON(o map[string]any) map[string]any {
	b, err := json.Marshal(o)
	if err != nil {
		panic(err) // an object read from the server always encodes
	}
	v, err := apiserver.DecodeJSON(b)
	if err != nil {
		panic(err)
	}
	return v.(map[string]any)
}

// onlyServerFinalizers reports whether an object's finalizers are all the
// server's own (or none).
func onlyServerFinalizers(md map[string]any) bool {
	fs, _ := md["finalizers"].([]any)
	for _, f := range fs {
		s, _ := f.(string)
		if !slices.Contains(serverFinalizers, s) {
			return false
		}
	}
	return true
}

// journal tells what a round did from two snapshots: objects that appeared
// were created, objects that went were deleted, objects that became
// terminating were marked deleted, objects whose resourceVersion moved were
// patched.
func journal(before, after map[apiserver.Key]apiserver.Object, vBefore, vAfter map[apiserver.Key]string) []apiserver.Op {
	var ops []apiserver.Op
	for k, o := range after {
		b, existed := before[k]
		switch {
		case !existed:
			ops = append(ops, apiserver.Op{Verb: apiserver.VerbCreate, Key: k})
		case metaOf(o)["deletionTimestamp"] != nil && metaOf(b)["deletionTimestamp"] == nil:
			ops = append(ops, apiserver.Op{Verb: apiserver.VerbMarkDeleted, Key: k})
		case vBefore[k] != vAfter[k]:
			ops = append(ops, apiserver.Op{Verb: apiserver.VerbPatch, Key: k})
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			ops = append(ops, apiserver.Op{Verb: apiserver.VerbDelete, Key: k})
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].Key.String() < ops[j].Key.String() })
	return ops
}

// defaulted returns what the server makes of an object the record says
// the controller created: a dry-run create of it in the world's namespace,
// read back in the world's terms.
func (l *loaded) defaulted(ctx context.Context, c client.Client, resource string, o apiserver.Object) (apiserver.Object, error) {
	kind := ""
	for k, r := range resourceOf {
		if r == resource {
			kind = k
		}
	}
	d := apiserver.DeepCopy(o).(map[string]any)
	if d["kind"] == nil {
		d["kind"] = kind
	}
	if d["apiVersion"] == nil {
		d["apiVersion"] = "v1"
		if kind == "ControllerRevision" {
			d["apiVersion"] = "apps/v1"
		}
	}
	md := metaOf(d)
	ns, _ := md["namespace"].(string)
	md["namespace"] = l.serverNamespace(ns)
	// Names are masked in the comparison: the server draws one for the dry
	// run, so that it never meets an object of the world, and the record's
	// name and generateName are put back after it.
	name, generateName := md["name"], md["generateName"]
	md["generateName"] = metaString(d, "name") + "-"
	delete(md, "name")
	stripServerOnly(d)
	mapUIDs(d, l.toServer)
	u := &unstructured.Unstructured{Object: d}
	if err := c.Create(ctx, u, client.DryRunAll); err != nil {
		return nil, err
	}
	objs := map[apiserver.Key]apiserver.Object{}
	l.keep(objs, map[apiserver.Key]string{}, u.Object, kind)
	for _, x := range objs {
		xm := metaOf(x)
		xm["name"] = name
		delete(xm, "generateName")
		if generateName != nil {
			xm["generateName"] = generateName
		}
		// The record's created objects carry no apiVersion or kind; keep
		// what the record has.
		if o["apiVersion"] == nil {
			delete(x, "apiVersion")
		}
		if o["kind"] == nil {
			delete(x, "kind")
		}
		return x, nil
	}
	return nil, fmt.Errorf("the dry-run create of %s %s gave nothing back", resource, metaString(o, "name"))
}

func metaString(o map[string]any, f string) string {
	s, _ := metaOf(o)[f].(string)
	return s
}

// unload deletes the world's namespaces and nodes (best effort: the server
// keeps going either way).
func (l *loaded) unload(ctx context.Context, c client.Client) {
	for _, sns := range sortedValues(l.namespace) {
		_ = c.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: sns}})
	}
	for _, n := range l.nodes {
		_ = c.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}})
	}
}

func sortedValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// describe is a short rendering of an error list for logs.
func describe(errs []error) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "\n  %v", e)
	}
	return b.String()
}

// defaultStorage and defaultAccessMode are given to claims and claim
// templates that have none (see repair).
const (
	defaultStorage    = "1Gi"
	defaultAccessMode = "ReadWriteOnce"
)

// repair makes a world's objects valid for a real server where they are
// not for a mechanical reason the records' fake server and the library's
// loader did not check, without changing what the library decides (the
// tests check that the plan is the same before and after):
//
//   - a claim or claim template without a storage request gets
//     defaultStorage, and without access modes defaultAccessMode; a stored
//     revision's volume-claim-template hash annotation that was the hash of
//     its CloneSet's templates becomes the hash of the repaired templates;
//   - a pod container's volume mount that names no volume of the pod gets
//     the volume: the claim of the CloneSet's template of that name
//     (<template>-<pod>), as the controller would have created the pod, or
//     an emptyDir.
//
// It returns the map of old to new hashes, for the records (repairRecord).
func (w *world) repair() (map[string]string, error) {
	hashes := map[string]string{}
	vcts := map[string]bool{}
	for _, d := range w.docs {
		switch kindOf(d) {
		case "CloneSet":
			before, err := vctHash(d)
			if err != nil {
				return nil, err
			}
			spec, _ := d["spec"].(map[string]any)
			list, _ := spec["volumeClaimTemplates"].([]any)
			for _, v := range list {
				if m, ok := v.(map[string]any); ok {
					addStorage(m)
					vcts[metaString(m, "name")] = true
				}
			}
			after, err := vctHash(d)
			if err != nil {
				return nil, err
			}
			if before != after {
				hashes[before] = after
			}
		case "PersistentVolumeClaim":
			addStorage(d)
		}
	}
	for _, d := range w.docs {
		switch kindOf(d) {
		case "ControllerRevision":
			renameVCTHash(d, hashes)
		case "Pod":
			addMountedVolumes(d, vcts)
		}
	}
	return hashes, nil
}

// addMountedVolumes gives a pod the volumes its containers mount and it
// lacks.
func addMountedVolumes(pod map[string]any, vcts map[string]bool) {
	spec, _ := pod["spec"].(map[string]any)
	if spec == nil {
		return
	}
	volumes, _ := spec["volumes"].([]any)
	have := map[string]bool{}
	for _, v := range volumes {
		if m, ok := v.(map[string]any); ok {
			n, _ := m["name"].(string)
			have[n] = true
		}
	}
	for _, list := range []string{"initContainers", "containers"} {
		cs, _ := spec[list].([]any)
		for _, c := range cs {
			cm, _ := c.(map[string]any)
			mounts, _ := cm["volumeMounts"].([]any)
			for _, mt := range mounts {
				mm, _ := mt.(map[string]any)
				n, _ := mm["name"].(string)
				if n == "" || have[n] {
					continue
				}
				have[n] = true
				v := map[string]any{"name": n, "emptyDir": map[string]any{}}
				if vcts[n] {
					v = map[string]any{"name": n, "persistentVolumeClaim": map[string]any{"claimName": n + "-" + metaString(pod, "name")}}
				}
				volumes = append(volumes, v)
			}
		}
	}
	if len(volumes) > 0 {
		spec["volumes"] = volumes
	}
}

// repairRecord applies the world's repair to a record's objects.
func repairRecord(rec *apiserver.Record, hashes map[string]string) {
	for _, wr := range rec.Writes {
		for _, o := range []apiserver.Object{wr.Before, wr.After} {
			if o == nil {
				continue
			}
			switch wr.Resource {
			case "persistentvolumeclaims":
				addStorage(o)
			case "controllerrevisions":
				renameVCTHash(o, hashes)
			}
		}
	}
}

// addStorage gives a claim (or claim template) without a storage request
// defaultStorage.
func addStorage(o map[string]any) {
	spec, _ := o["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
		o["spec"] = spec
	}
	res, _ := spec["resources"].(map[string]any)
	if res == nil {
		res = map[string]any{}
		spec["resources"] = res
	}
	req, _ := res["requests"].(map[string]any)
	if req == nil {
		req = map[string]any{}
		res["requests"] = req
	}
	if _, ok := req["storage"]; !ok {
		req["storage"] = defaultStorage
	}
	if modes, _ := spec["accessModes"].([]any); len(modes) == 0 {
		spec["accessModes"] = []any{defaultAccessMode}
	}
}

// renameVCTHash rewrites a revision's volume-claim-template hash annotation
// through hashes (the world's hash to the one the server's objects give).
func renameVCTHash(o map[string]any, hashes map[string]string) {
	ann, _ := metaOf(o)["annotations"].(map[string]any)
	if h, ok := ann[model.AnnotationVCTHash].(string); ok {
		if n, ok := hashes[h]; ok {
			ann[model.AnnotationVCTHash] = n
		}
	}
}

// vctHash is the library's volume-claim-template hash of a CloneSet
// document.
func vctHash(d map[string]any) (string, error) {
	cs, err := kubecontroller.CloneSetFromUnstructured(&unstructured.Unstructured{Object: apiserver.DeepCopy(d).(map[string]any)})
	if err != nil {
		return "", fmt.Errorf("CloneSet %s: %v", metaString(d, "name"), err)
	}
	return clonesetcore.VolumeClaimTemplatesHash(cs.Spec.VolumeClaimTemplates), nil
}
