package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/clonecore/cloneset/internal/apiserver"
	"github.com/clonecore/cloneset/internal/cisummary"
	"github.com/clonecore/cloneset/requests"
)

// The records of what the real controller left on the API server after one
// round (copied unchanged from ../shared; see their READMEs): for the
// whole-reconcile worlds of conformanceDir/plan, and for the revision worlds
// that sit beside their records.
const (
	writesDir         = "../../testdata/conformance-writes"
	revisionWritesDir = "../../testdata/conformance-revisions"
)

// requestsArgs is the command whose output the replay carries out: the same
// code path as `clonesetplan plan -o requests`.
var requestsArgs = []string{"plan", "-f", "-", "-o", "requests"}

// TestConformanceWrites carries out, for every record of
// testdata/conformance-writes, the requests the CLI prints for the record's
// world on an in-memory API server holding the world's objects, and compares
// the pods and PVCs it ends with with what the real controller left
// (internal/apiserver.Compare).
func TestConformanceWrites(t *testing.T) {
	replayWritesFolder(t, writesDir, conformanceDir, []string{"pods", "persistentvolumeclaims"}, "conformance writes")
}

// TestConformanceRevisionWrites does the same over
// testdata/conformance-revisions, whose records also hold the
// ControllerRevisions the round created, changed or deleted.
func TestConformanceRevisionWrites(t *testing.T) {
	replayWritesFolder(t, revisionWritesDir, revisionWritesDir, nil, "conformance revision writes")
}

// replayWritesFolder replays every record of a folder, one subtest per
// world, and prints the summary line "LABEL: passed/total".
func replayWritesFolder(t *testing.T, recordsDir, worldsDir string, resources []string, label string) {
	files, err := filepath.Glob(filepath.Join(recordsDir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no records in %s (%v)", recordsDir, err)
	}
	sort.Strings(files)
	summary := func(passed int) {
		line := fmt.Sprintf("%s: %d/%d", label, passed, len(files))
		cisummary.Print(t, line)
	}
	// Without a requests output every world would fail alike: say so once.
	if rec, world, err := readWritesRecord(files[0], worldsDir); err == nil {
		var stdout, stderr bytes.Buffer
		if code := run(requestsArgs, bytes.NewReader(world), &stdout, &stderr); code != 0 {
			summary(0)
			t.Fatalf("clonesetplan %s fails on %s (exit %d), so no write can be compared; has `-o requests` landed on this branch?\nstderr: %s",
				strings.Join(requestsArgs, " "), rec.World, code, stderr.String())
		}
	}
	passed := 0
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		if t.Run(name, func(t *testing.T) { replayWrites(t, f, worldsDir, resources) }) {
			passed++
		}
	}
	summary(passed)
}

// readWritesRecord reads a record and its world.
func readWritesRecord(file, worldsDir string) (*apiserver.Record, []byte, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, err
	}
	rec, err := apiserver.ParseRecord(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", file, err)
	}
	world, err := os.ReadFile(filepath.Join(worldsDir, rec.World))
	if err != nil {
		return nil, nil, err
	}
	return rec, world, nil
}

// replayWrites replays one record: the world's requests, in order, on a
// store loaded from the world; a failing request stops the round (as it
// would stop a controller) and is reported; then the comparison.
func replayWrites(t *testing.T, file, worldsDir string, resources []string) {
	rec, world, err := readWritesRecord(file, worldsDir)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run(requestsArgs, bytes.NewReader(world), &stdout, &stderr); code != 0 {
		t.Fatalf("world %s: clonesetplan %s exited %d: %s", rec.World, strings.Join(requestsArgs, " "), code, stderr.String())
	}
	var list requests.List
	dec := json.NewDecoder(bytes.NewReader(stdout.Bytes()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&list); err != nil {
		t.Fatalf("world %s: the output is not a request list: %v\n%s", rec.World, err, stdout.String())
	}
	if list.APIVersion != requests.ListAPIVersion || list.Kind != requests.ListKind {
		t.Fatalf("world %s: the output is a %s %s, want a %s %s", rec.World, list.APIVersion, list.Kind, requests.ListAPIVersion, requests.ListKind)
	}
	store, err := apiserver.Load(world)
	if err != nil {
		t.Fatalf("world %s: %v", rec.World, err)
	}
	before := store.Snapshot()
	for i, r := range list.Items {
		if err := applyRequest(store, r); err != nil {
			t.Errorf("world %s: request %d fails, the round stops there: %s\n  error: %v", rec.World, i, describeRequest(r), err)
			break
		}
	}
	if rep := apiserver.Compare(before, store, rec, resources); !rep.OK() {
		t.Errorf("world %s (record %s): the writes differ from upstream's\n%s", rec.World, filepath.Base(file), rep)
	}
}

// applyRequest sends one request to the store.
func applyRequest(s *apiserver.Store, r requests.Request) error {
	var pre *apiserver.Preconditions
	if r.Preconditions != nil {
		pre = &apiserver.Preconditions{UID: r.Preconditions.UID, ResourceVersion: r.Preconditions.ResourceVersion}
	}
	switch r.Verb {
	case requests.VerbCreate:
		if len(r.Object) == 0 {
			return fmt.Errorf("a create without an object")
		}
		o, err := s.Create(string(r.Resource), r.Namespace, r.Object)
		if err != nil {
			return err
		}
		if got, _ := o["metadata"].(map[string]any)["name"].(string); r.Name != "" && got != r.Name {
			return fmt.Errorf("the request names %q, the object is %q", r.Name, got)
		}
		return nil
	case requests.VerbPatch:
		_, err := s.Patch(string(r.Resource), r.Namespace, r.Name, r.Subresource, string(r.PatchType), r.Patch, pre)
		return err
	case requests.VerbDelete:
		_, err := s.Delete(string(r.Resource), r.Namespace, r.Name, pre)
		return err
	}
	return fmt.Errorf("unknown verb %q", r.Verb)
}

// describeRequest renders a request on one line for a failure message.
func describeRequest(r requests.Request) string {
	b, _ := json.Marshal(r)
	return string(b)
}

// TestWritesReplayHarness checks the replay itself with a hand-written
// request list for world plan/0000 (what upstream did: delete two pods, one
// with a finalizer, and their claims; plus a CloneSet status write, which
// the records do not cover), and that a wrong list is caught.
func TestWritesReplayHarness(t *testing.T) {
	rec, world, err := readWritesRecord(filepath.Join(writesDir, "0000.json"), conformanceDir)
	if err != nil {
		t.Fatal(err)
	}
	good := []requests.Request{
		{Verb: requests.VerbDelete, Resource: requests.ResourcePods, Namespace: "default", Name: "sample-p001", Preconditions: &requests.Preconditions{UID: "uid-sample-p001"}, Batch: -1},
		{Verb: requests.VerbDelete, Resource: requests.ResourcePersistentVolumeClaims, Namespace: "default", Name: "data-sample-p001", Batch: -1},
		{Verb: requests.VerbDelete, Resource: requests.ResourcePods, Namespace: "default", Name: "sample-p005", Preconditions: &requests.Preconditions{UID: "uid-sample-p005"}, Batch: -1},
		{Verb: requests.VerbDelete, Resource: requests.ResourcePersistentVolumeClaims, Namespace: "default", Name: "data-sample-p005", Batch: -1},
		{Verb: requests.VerbPatch, Resource: requests.ResourceCloneSets, Subresource: requests.SubresourceStatus, Namespace: "default", Name: "sample",
			PatchType: requests.PatchMerge, Patch: json.RawMessage(`{"status":{"observedGeneration":2}}`), Batch: -1, Action: -1},
	}
	replay := func(items []requests.Request) (apiserver.Report, error) {
		store, err := apiserver.Load(world)
		if err != nil {
			t.Fatal(err)
		}
		before := store.Snapshot()
		for _, r := range items {
			if err := applyRequest(store, r); err != nil {
				return apiserver.Report{}, err
			}
		}
		return apiserver.Compare(before, store, rec, []string{"pods", "persistentvolumeclaims"}), nil
	}
	if rep, err := replay(good); err != nil || !rep.OK() {
		t.Fatalf("upstream's writes do not replay: %v\n%s", err, rep)
	}
	// A stale uid stops the round with a conflict.
	stale := append([]requests.Request(nil), good...)
	stale[0].Preconditions = &requests.Preconditions{UID: "uid-other"}
	if _, err := replay(stale); !apiserver.IsConflict(err) {
		t.Errorf("a stale uid precondition: got %v", err)
	}
	// A missing delete and an extra label are both reported, by name.
	wrong := append([]requests.Request(nil), good[1:]...)
	wrong = append(wrong, requests.Request{Verb: requests.VerbPatch, Resource: requests.ResourcePods, Namespace: "default", Name: "sample-p000",
		PatchType: requests.PatchStrategicMerge, Patch: json.RawMessage(`{"metadata":{"labels":{"x":"y"}}}`), Batch: -1})
	rep, err := replay(wrong)
	if err != nil {
		t.Fatal(err)
	}
	s := rep.String()
	for _, want := range []string{"pods/sample-p001: upstream deletes it", "pods/sample-p000: the library changes it", "metadata.labels.x"} {
		if !strings.Contains(s, want) {
			t.Errorf("the report lacks %q:\n%s", want, s)
		}
	}
}

// TestResizeOnCurrentServer sends the requests of the vertical-resize golden
// scenario to the independent server model, which acts as a current API
// server (1.32 and later): the default requests (resources through
// pods/resize) all apply and leave the pod with the template's resources;
// the requests for a 1.31 server (resources in the pod patch) are refused
// with the API server's Forbidden message, as kube-apiserver refused them
// in issue 27.
func TestResizeOnCurrentServer(t *testing.T) {
	world, err := os.ReadFile(filepath.Join(goldenDir, "vertical-resize", "gate-on-inplace.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	send := func(extra ...string) (*apiserver.Store, error) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := run(append(append([]string(nil), requestsArgs...), extra...), bytes.NewReader(world), &stdout, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		var list requests.List
		if err := json.Unmarshal(stdout.Bytes(), &list); err != nil {
			t.Fatal(err)
		}
		store, err := apiserver.Load(world)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range list.Items {
			if err := applyRequest(store, r); err != nil {
				return store, fmt.Errorf("%s: %w", describeRequest(r), err)
			}
		}
		return store, nil
	}
	store, err := send()
	if err != nil {
		t.Fatalf("the default requests are refused: %v", err)
	}
	pod, _ := store.Get("pods", "default", "sample-ns85c")
	spec, _ := pod["spec"].(map[string]any)
	ctr, _ := spec["containers"].([]any)[0].(map[string]any)
	want := map[string]any{"requests": map[string]any{"cpu": "2", "memory": "2Gi"}, "limits": map[string]any{"cpu": "4", "memory": "4Gi"}}
	if !apiserver.Equal(ctr["resources"], want) {
		t.Errorf("resources after the round: %v, want %v", ctr["resources"], want)
	}
	if labels, _ := pod["metadata"].(map[string]any)["labels"].(map[string]any); labels["controller-revision-hash"] != "sample-9c6d4f8b5" {
		t.Errorf("labels after the round: %v", labels)
	}
	if _, err := send("--server-version", "1.31"); apiserver.ReasonOf(err) != apiserver.ReasonInvalid ||
		!strings.Contains(err.Error(), "pod updates may not change fields other than") {
		t.Errorf("the 1.31 requests on a current server: err = %v, want the Forbidden pod update", err)
	}
}
