package apiserver

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Write is one entry of a record's writes: an object the real controller
// created, changed or deleted in its round.
type Write struct {
	// Resource is pods, persistentvolumeclaims or controllerrevisions.
	Resource string `json:"resource"`
	// Name is the object's name.
	Name string `json:"name"`
	// Event is created, changed or deleted.
	Event string `json:"event"`
	// Before is the object before the round (changed objects, and deleted
	// objects that had finalizers).
	Before Object `json:"before,omitempty"`
	// After is the object the server held after the round (created and
	// changed objects, and deleted objects that had finalizers: only their
	// deletionTimestamp was set).
	After Object `json:"after,omitempty"`
}

// The events of a Write.
const (
	EventCreated = "created"
	EventChanged = "changed"
	EventDeleted = "deleted"
)

// Record is one recorded round (a file of conformance-writes or
// conformance-revisions).
type Record struct {
	// World is the world's file, relative to the record's base folder.
	World string `json:"world"`
	// Writes are the objects the round wrote, in name order.
	Writes []Write `json:"writes"`
	// RequeueAfterSeconds is the delay the controller asked for.
	RequeueAfterSeconds *float64 `json:"requeueAfterSeconds"`
	// CurrentRevision and UpdateRevision are upstream's revision names
	// (revision records only).
	CurrentRevision string `json:"currentRevision,omitempty"`
	UpdateRevision  string `json:"updateRevision,omitempty"`
}

// ParseRecord decodes a record and checks its writes' events.
func ParseRecord(data []byte) (*Record, error) {
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	for i, w := range r.Writes {
		switch w.Event {
		case EventCreated, EventChanged, EventDeleted:
		default:
			return nil, fmt.Errorf("write %d (%s %s): unknown event %q", i, w.Resource, w.Name, w.Event)
		}
		if w.Event == EventChanged && (w.Before == nil || w.After == nil) {
			return nil, fmt.Errorf("write %d (%s %s): a change without before and after", i, w.Resource, w.Name)
		}
		if w.Event == EventCreated && w.After == nil {
			return nil, fmt.Errorf("write %d (%s %s): a create without after", i, w.Resource, w.Name)
		}
	}
	return &r, nil
}

// Difference is one field that does not end as it should. Path names the
// field (map members joined with ".", list elements by their key as
// [name=x] or their index, a primitive list as a whole); an absent value is
// reported as Absent.
type Difference struct {
	Path string
	Want any
	Got  any
}

// Absent marks a field that is not there (or is null or empty).
const Absent = "<absent>"

// Finding is one object whose writes do not agree with the record.
type Finding struct {
	Resource string
	Name     string
	// Problem says what disagrees.
	Problem string
	// Differences are the fields that differ, where there are fields to
	// compare.
	Differences []Difference
}

// Report is the outcome of one comparison.
type Report struct {
	Findings []Finding
}

// OK reports whether the writes agree with the record.
func (r Report) OK() bool { return len(r.Findings) == 0 }

// String renders the findings, one object per paragraph.
func (r Report) String() string {
	var b strings.Builder
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "%s/%s: %s\n", f.Resource, f.Name, f.Problem)
		for _, d := range f.Differences {
			fmt.Fprintf(&b, "    %s: want %s, got %s\n", d.Path, render(d.Want), render(d.Got))
		}
	}
	return b.String()
}

func render(v any) string {
	if s, ok := v.(string); ok && s == Absent {
		return Absent
	}
	return compactJSON(v)
}

// jsonAnnotations are the annotations whose values are JSON documents,
// compared parsed.
var jsonAnnotations = map[string]bool{
	"apps.kruise.io/inplace-update-state": true,
	"apps.kruise.io/inplace-update-grace": true,
}

// Masks of the values drawn at random or named by the writer.
const (
	maskName        = "<name>"
	maskInstanceID  = "<instance-id>"
	maskClaimName   = "<claim-name>"
	maskRevision    = "<created-revision>"
	maskRevisionSum = "<created-revision-hash>"
	maskVCTHash     = "<volume-claim-template-hash>"
)

// Label and annotation keys the comparison knows.
const (
	labelInstanceID  = "apps.kruise.io/cloneset-instance-id"
	labelRevisionSum = "controller.kubernetes.io/hash"
	annotationVCT    = "kruise.io/cloneset-volumeclaimtemplate-hash"
)

// normalizer prepares objects for comparison.
type normalizer struct {
	// ignoreMeta are the metadata members not compared.
	ignoreMeta map[string]bool
	// replace maps string values to masks, wherever they occur.
	replace map[string]string
}

// changedIgnore are the metadata members a change comparison ignores
// (resourceVersion too: the records leave it out).
var changedIgnore = map[string]bool{"creationTimestamp": true, "uid": true, "generateName": true, "deletionTimestamp": true, "resourceVersion": true}

// createdIgnore are the metadata members a create comparison ignores.
var createdIgnore = map[string]bool{"creationTimestamp": true, "uid": true, "resourceVersion": true}

// normalize returns a copy of v ready to compare: ignored metadata members,
// lastProbeTime, null and empty values (nil, "", {}, []) dropped, JSON-valued
// annotations parsed, masked strings replaced. It returns nil for a value
// that is empty after all.
func (n *normalizer) normalize(v any, path []string) any {
	switch t := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range t {
			if k == "lastProbeTime" {
				continue
			}
			if len(path) == 1 && path[0] == "metadata" && n.ignoreMeta[k] {
				continue
			}
			if s, ok := x.(string); ok && len(path) == 2 && path[0] == "metadata" && path[1] == "annotations" && jsonAnnotations[k] {
				var parsed any
				if err := json.Unmarshal([]byte(s), &parsed); err == nil {
					x = parsed
				}
			}
			if y := n.normalize(x, append(path[:len(path):len(path)], k)); y != nil {
				out[k] = y
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		var out []any
		for _, x := range t {
			y := n.normalize(x, append(path[:len(path):len(path)], "[]"))
			if y == nil {
				y = map[string]any{}
			}
			out = append(out, y)
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case string:
		if t == "" {
			return nil
		}
		if m, ok := n.replace[t]; ok {
			return m
		}
		return t
	}
	return v
}

// listKeys are the members that identify list elements in paths.
var listKeys = []string{"name", "type", "conditionType", "uid", "containerPort", "mountPath", "devicePath", "ip"}

// flatten maps every leaf of a normalized tree to its value. Lists of maps
// are entered by element key where one identifies every element (with the
// order of the keys as a leaf "[#order]"), by index otherwise; other lists
// are leaves.
func flatten(v any, path string, out map[string]any) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			flatten(x, joinPath(path, k), out)
		}
	case []any:
		allMaps := true
		for _, x := range t {
			if _, ok := x.(map[string]any); !ok {
				allMaps = false
			}
		}
		if !allMaps {
			out[path] = t
			return
		}
		if key := elementKey(t); key != "" {
			var order []any
			for _, x := range t {
				id := fmt.Sprint(x.(map[string]any)[key])
				order = append(order, id)
				flatten(x, path+"["+key+"="+id+"]", out)
			}
			out[path+"[#order]"] = order
			return
		}
		for i, x := range t {
			flatten(x, fmt.Sprintf("%s[%d]", path, i), out)
		}
		out[path+"[#len]"] = float64(len(t))
	default:
		out[path] = v
	}
}

// elementKey returns the first of listKeys that every element carries as a
// scalar, uniquely; "" if none.
func elementKey(l []any) string {
	for _, key := range listKeys {
		seen := map[string]bool{}
		ok := true
		for _, x := range l {
			v, present := x.(map[string]any)[key]
			switch v.(type) {
			case string, float64, bool:
			default:
				present = false
			}
			id := fmt.Sprint(v)
			if !present || seen[id] {
				ok = false
				break
			}
			seen[id] = true
		}
		if ok {
			return key
		}
	}
	return ""
}

func joinPath(path, k string) string {
	if strings.ContainsAny(k, "./[]\" ") {
		k = "[" + fmt.Sprintf("%q", k) + "]"
		return path + k
	}
	if path == "" {
		return k
	}
	return path + "." + k
}

// flat normalizes and flattens an object.
func (n *normalizer) flat(o Object) map[string]any {
	out := map[string]any{}
	if o == nil {
		return out
	}
	flatten(n.normalize(o, nil), "", out)
	return out
}

func lookup(m map[string]any, p string) any {
	if v, ok := m[p]; ok {
		return v
	}
	return Absent
}

// diffFlat lists the paths where two flattened objects differ, sorted.
func diffFlat(want, got map[string]any) []Difference {
	var out []Difference
	for _, p := range unionPaths(want, got) {
		w, g := lookup(want, p), lookup(got, p)
		if !Equal(w, g) {
			out = append(out, Difference{Path: p, Want: w, Got: g})
		}
	}
	return out
}

func unionPaths(ms ...map[string]any) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range ms {
		for p := range m {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return out
}

// DefaultResources are the resources the records cover: pods, PVCs and
// ControllerRevisions (the conformance-writes records hold only pods and
// PVCs; pass those two to leave revisions out).
var DefaultResources = []string{"pods", "persistentvolumeclaims", "controllerrevisions"}

// recordKey is a record entry's object: resource and name (the worlds have
// one namespace).
type recordKey struct{ resource, name string }

// Compare compares one round's writes with a record, by the record's rules
// ("How to compare" of the conformance-writes README):
//
//   - deleted: the objects the library deleted (removed, or given a
//     deletionTimestamp because of finalizers) are exactly those marked
//     deleted;
//   - changed (and deleted with an after): every field that differs between
//     the record's before and after ends with the after value, and every
//     other field keeps the value it had before the round (before is the
//     world's object). JSON-valued annotations (the in-place update state
//     and grace) compare parsed; lastProbeTime, null and empty values, and
//     metadata creationTimestamp, uid, generateName, deletionTimestamp and
//     resourceVersion are ignored;
//   - created: the multiset of created objects of each resource is the
//     same once names, instance-id labels and PVC claim names are masked and
//     creationTimestamp, uid and resourceVersion are ignored; apiVersion and
//     kind are compared only where the record carries them (the records of
//     created objects lack them);
//   - the objects the library changes (beyond ignored fields) or deletes
//     appear in the record;
//   - a ControllerRevision the round creates compares by content, with its
//     name, its controller.kubernetes.io/hash label and its volume claim
//     template hash annotation masked; its name and hash are masked wherever
//     any object carries them (the pods' controller-revision-hash and
//     pod-template-hash labels, the in-place update state), on both sides.
//
// before is the world's objects before the round, after the store the
// library's requests were applied to (its journal tells what they did).
// resources are the resources the record covers (writes of other resources,
// such as the CloneSet's status, are not compared); nil means
// DefaultResources.
func Compare(before map[Key]Object, after *Store, rec *Record, resources []string) Report {
	if resources == nil {
		resources = DefaultResources
	}
	inScope := map[string]bool{}
	for _, r := range resources {
		inScope[r] = true
	}
	var rep Report
	add := func(resource, name, problem string, diffs []Difference) {
		rep.Findings = append(rep.Findings, Finding{Resource: resource, Name: name, Problem: problem, Differences: diffs})
	}
	beforeByName := map[recordKey]Key{}
	for k := range before {
		beforeByName[recordKey{k.Resource, k.Name}] = k
	}
	// What the library did, from the journal.
	created := map[Key]bool{}
	deleted := map[recordKey]bool{}
	patched := map[recordKey]bool{}
	for _, op := range after.journal {
		if !inScope[op.Key.Resource] {
			continue
		}
		rk := recordKey{op.Key.Resource, op.Key.Name}
		_, existed := before[op.Key]
		switch op.Verb {
		case VerbCreate:
			if !existed {
				created[op.Key] = true
			}
		case VerbDelete, VerbMarkDeleted:
			if existed {
				deleted[rk] = true
			}
		case VerbPatch:
			if existed {
				patched[rk] = true
			}
		}
	}
	// Masks of created revisions, both sides.
	replace := map[string]string{}
	for _, w := range rec.Writes {
		if w.Event == EventCreated && w.Resource == "controllerrevisions" {
			replace[w.Name] = maskRevision
			if h := revisionHash(w.After, w.Name); h != "" {
				replace[h] = maskRevisionSum
			}
		}
	}
	for k := range created {
		if k.Resource == "controllerrevisions" {
			if o, ok := after.objects[k]; ok {
				replace[k.Name] = maskRevision
				if h := revisionHash(o, k.Name); h != "" {
					replace[h] = maskRevisionSum
				}
			}
		}
	}
	changedN := &normalizer{ignoreMeta: changedIgnore, replace: replace}

	// Deletions.
	recorded := map[recordKey]Write{}
	for _, w := range rec.Writes {
		recorded[recordKey{w.Resource, w.Name}] = w
	}
	for _, w := range rec.Writes {
		rk := recordKey{w.Resource, w.Name}
		if w.Event == EventDeleted && !deleted[rk] {
			add(w.Resource, w.Name, "upstream deletes it, the library does not", nil)
		}
	}
	for _, rk := range sortedKeys(deleted) {
		if w, ok := recorded[rk]; !ok || w.Event != EventDeleted {
			problem := "the library deletes it, upstream does not"
			if ok {
				problem += " (upstream: " + w.Event + ")"
			}
			add(rk.resource, rk.name, problem, nil)
		}
	}
	// Changes.
	for _, w := range rec.Writes {
		if w.Before == nil || w.After == nil || w.Event == EventCreated {
			continue
		}
		rk := recordKey{w.Resource, w.Name}
		k, existed := beforeByName[rk]
		if !existed {
			add(w.Resource, w.Name, "upstream changes it, but the world has no such object", nil)
			continue
		}
		cur, still := after.objects[k]
		if !still {
			if w.Event == EventChanged {
				add(w.Resource, w.Name, "upstream changes it, the library removes it", nil)
			}
			continue
		}
		up0, up1 := changedN.flat(w.Before), changedN.flat(w.After)
		lib0, lib1 := changedN.flat(before[k]), changedN.flat(cur)
		var diffs []Difference
		for _, p := range unionPaths(up0, up1, lib0, lib1) {
			want := lookup(lib0, p)
			if !Equal(lookup(up0, p), lookup(up1, p)) {
				want = lookup(up1, p)
			}
			if got := lookup(lib1, p); !Equal(want, got) {
				diffs = append(diffs, Difference{Path: p, Want: want, Got: got})
			}
		}
		if len(diffs) > 0 {
			add(w.Resource, w.Name, w.Event+" by upstream: fields differ (want: upstream's after where upstream changed the field, else the value before the round)", diffs)
		}
	}
	for _, rk := range sortedKeys(patched) {
		if _, ok := recorded[rk]; ok {
			continue
		}
		k := beforeByName[rk]
		cur, still := after.objects[k]
		if !still {
			continue // reported as a deletion
		}
		if diffs := diffFlat(changedN.flat(before[k]), changedN.flat(cur)); len(diffs) > 0 {
			add(rk.resource, rk.name, "the library changes it, upstream leaves it alone (want: the value before the round)", diffs)
		}
	}
	// Creations.
	expected := map[string][]Object{}
	for _, w := range rec.Writes {
		if w.Event == EventCreated {
			expected[w.Resource] = append(expected[w.Resource], w.After)
		}
	}
	got := map[string][]Object{}
	var gotNames = map[string][]string{}
	for _, k := range sortedKeySet(created) {
		if o, ok := after.objects[k]; ok {
			got[k.Resource] = append(got[k.Resource], o)
			gotNames[k.Resource] = append(gotNames[k.Resource], k.Name)
		}
	}
	var kinds []string
	for r := range expected {
		kinds = append(kinds, r)
	}
	for r := range got {
		if _, ok := expected[r]; !ok {
			kinds = append(kinds, r)
		}
	}
	sort.Strings(kinds)
	for _, r := range kinds {
		compareCreated(r, expected[r], got[r], gotNames[r], replace, add)
	}
	return rep
}

// compareCreated matches created objects of one resource as multisets.
func compareCreated(resource string, want, got []Object, gotNames []string, replace map[string]string, add func(string, string, string, []Difference)) {
	n := &normalizer{ignoreMeta: createdIgnore, replace: replace}
	prep := func(o Object, typeMeta bool) map[string]any {
		c := maskCreated(resource, o)
		if !typeMeta {
			delete(c, "apiVersion")
			delete(c, "kind")
		}
		return n.flat(c)
	}
	wantFlat := make([]map[string]any, len(want))
	wantNames := make([]string, len(want))
	for i, o := range want {
		wantFlat[i] = prep(o, true)
		wantNames[i] = metaString(o, "name")
	}
	// apiVersion and kind count only where the record has them: each
	// library object is flattened with and without them.
	gotFull := make([]map[string]any, len(got))
	gotBare := make([]map[string]any, len(got))
	for i, o := range got {
		gotFull[i] = prep(o, true)
		gotBare[i] = prep(o, false)
	}
	gotFor := func(i, j int) map[string]any {
		_, hasKind := want[i]["kind"]
		_, hasVersion := want[i]["apiVersion"]
		if hasKind || hasVersion {
			return gotFull[j]
		}
		return gotBare[j]
	}
	usedGot := make([]bool, len(got))
	var missing []int
	for i := range wantFlat {
		found := false
		for j := range got {
			if !usedGot[j] && len(diffFlat(wantFlat[i], gotFor(i, j))) == 0 {
				usedGot[j], found = true, true
				break
			}
		}
		if !found {
			missing = append(missing, i)
		}
	}
	for _, i := range missing {
		best, bestDiffs := -1, []Difference(nil)
		for j := range got {
			if usedGot[j] {
				continue
			}
			d := diffFlat(wantFlat[i], gotFor(i, j))
			if best < 0 || len(d) < len(bestDiffs) {
				best, bestDiffs = j, d
			}
		}
		if best < 0 {
			add(resource, wantNames[i], "upstream creates it (names masked), the library creates no such object", nil)
			continue
		}
		usedGot[best] = true
		add(resource, wantNames[i], "upstream creates it; the library's closest create, "+gotNames[best]+", differs", bestDiffs)
	}
	for j := range got {
		if !usedGot[j] {
			add(resource, gotNames[j], "the library creates it, upstream creates no such object", diffFlat(map[string]any{}, gotFull[j]))
		}
	}
}

// maskCreated returns a copy of a created object with the values drawn at
// random masked: the name, the instance-id label, the claim names of a pod's
// volumes; for a ControllerRevision its hash label and volume claim template
// hash annotation.
func maskCreated(resource string, o Object) Object {
	c := copyObject(o)
	if md := metadata(c); md != nil {
		if _, ok := md["name"]; ok {
			md["name"] = maskName
		}
		if labels, ok := md["labels"].(map[string]any); ok {
			if _, ok := labels[labelInstanceID]; ok {
				labels[labelInstanceID] = maskInstanceID
			}
			if resource == "controllerrevisions" {
				if _, ok := labels[labelRevisionSum]; ok {
					labels[labelRevisionSum] = maskRevisionSum
				}
			}
		}
		if ann, ok := md["annotations"].(map[string]any); ok && resource == "controllerrevisions" {
			if _, ok := ann[annotationVCT]; ok {
				ann[annotationVCT] = maskVCTHash
			}
		}
	}
	if resource == "pods" {
		spec, _ := c["spec"].(map[string]any)
		vols, _ := spec["volumes"].([]any)
		for _, v := range vols {
			vm, _ := v.(map[string]any)
			if pvc, ok := vm["persistentVolumeClaim"].(map[string]any); ok {
				if _, ok := pvc["claimName"]; ok {
					pvc["claimName"] = maskClaimName
				}
			}
		}
	}
	return c
}

// revisionHash returns a ControllerRevision's hash: its
// controller.kubernetes.io/hash label, else what follows the last "-" of its
// name.
func revisionHash(o Object, name string) string {
	if labels, ok := metadata(o)["labels"].(map[string]any); ok {
		if h, ok := labels[labelRevisionSum].(string); ok && h != "" {
			return h
		}
	}
	if i := strings.LastIndex(name, "-"); i >= 0 && i+1 < len(name) {
		return name[i+1:]
	}
	return ""
}

func sortedKeys(m map[recordKey]bool) []recordKey {
	out := make([]recordKey, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].resource != out[j].resource {
			return out[i].resource < out[j].resource
		}
		return out[i].name < out[j].name
	})
	return out
}

func sortedKeySet(m map[Key]bool) []Key {
	out := make([]Key, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}
