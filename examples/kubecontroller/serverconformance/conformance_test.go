package serverconformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller"
	"github.com/clonecore/cloneset/internal/apiserver"
	"github.com/clonecore/cloneset/internal/cisummary"
	"github.com/clonecore/cloneset/requests"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The records (copies of ../shared, see their READMEs) and the worlds they
// were recorded on.
const (
	writesDir         = "../../../testdata/conformance-writes"
	writesWorldsDir   = "../../../testdata/conformance"
	revisionWritesDir = "../../../testdata/conformance-revisions"
)

// TestConformanceWritesOnKubeAPIServer sends the requests of every world of
// testdata/conformance-writes to kube-apiserver and compares the pods and
// PVCs it then holds with what the real controller left.
func TestConformanceWritesOnKubeAPIServer(t *testing.T) {
	replayFolder(t, writesDir, writesWorldsDir, []string{"pods", "persistentvolumeclaims"}, "conformance writes")
}

// TestRevisionWritesOnKubeAPIServer does the same over
// testdata/conformance-revisions, revisions included.
func TestRevisionWritesOnKubeAPIServer(t *testing.T) {
	replayFolder(t, revisionWritesDir, revisionWritesDir, nil, "revision writes")
}

// replayFolder replays every record of a folder, one subtest each, and
// prints "LABEL on kube-apiserver VERSION: passed/total".
func replayFolder(t *testing.T, recordsDir, worldsDir string, resources []string, label string) {
	files, err := filepath.Glob(filepath.Join(recordsDir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no records in %s (%v)", recordsDir, err)
	}
	sort.Strings(files)
	s := testServer(t)
	passed := 0
	for i, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		prefix := fmt.Sprintf("%s-%03d", strings.ReplaceAll(label, " ", "-"), i)
		if t.Run(name, func(t *testing.T) { replayRecord(t, s, f, worldsDir, resources, prefix) }) {
			passed++
		}
	}
	line := fmt.Sprintf("%s on kube-apiserver %s: %d/%d", label, s.version, passed, len(files))
	cisummary.Print(t, line)
}

// replayRecord loads one record's world, sends the world's requests, and
// compares.
func replayRecord(t *testing.T, s *server, file, worldsDir string, resources []string, prefix string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := apiserver.ParseRecord(data)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(worldsDir, rec.World))
	if err != nil {
		t.Fatal(err)
	}
	w, hashes, err := s.repairedWorld(t, raw)
	if err != nil {
		t.Fatalf("world %s: %v", rec.World, err)
	}
	repairRecord(rec, hashes)
	l, err := load(ctx, s.client, sharedCP.CreateNamespace, w, prefix)
	defer l.unload(context.Background(), s.client)
	if err != nil {
		t.Fatalf("world %s: loading it into kube-apiserver: %v", rec.World, err)
	}
	before, vBefore, err := l.snapshot(ctx, s.client)
	if err != nil {
		t.Fatal(err)
	}
	reqs := s.plan(t, w, l, "")
	if errs := l.send(ctx, s.client, s.writer, w, reqs); len(errs) > 0 {
		t.Errorf("world %s: kube-apiserver refused requests:%s", rec.World, describe(errs))
	}
	after, vAfter, err := l.snapshot(ctx, s.client)
	if err != nil {
		t.Fatal(err)
	}
	// Both sides of a create carry the server's defaults.
	for i := range rec.Writes {
		wr := &rec.Writes[i]
		if wr.Event != apiserver.EventCreated {
			continue
		}
		d, err := l.defaulted(ctx, s.client, wr.Resource, wr.After)
		if err != nil {
			t.Fatalf("world %s: kube-apiserver refuses the object upstream created, %s %s: %v", rec.World, wr.Resource, wr.Name, err)
		}
		wr.After = d
	}
	store := apiserver.Observed("", after, journal(before, after, vBefore, vAfter))
	if rep := apiserver.Compare(before, store, rec, resources); !rep.OK() {
		t.Errorf("world %s (record %s): the writes on kube-apiserver differ from upstream's\n%s", rec.World, filepath.Base(file), rep)
	}
}

// errLibraryRefuses is repairedWorld's answer for a world the library
// itself refuses (the CLI exits 1: there is no plan to send).
var errLibraryRefuses = errors.New("the library refuses the world")

// repairedWorld reads a world and repairs it (world.repair), checking that
// the repair leaves the library's plan as it was (the volume-claim-template
// hashes renamed). A world the library refuses gives errLibraryRefuses.
func (s *server) repairedWorld(t *testing.T, raw []byte) (*world, map[string]string, error) {
	t.Helper()
	original, err := readWorld(raw)
	if err != nil {
		t.Fatal(err)
	}
	w, err := readWorld(raw)
	if err != nil {
		t.Fatal(err)
	}
	hashes, err := w.repair()
	if err != nil {
		t.Fatal(err)
	}
	same := func(ns string) string { return ns }
	out, err := s.runCLI(original.withNamespaces(same), "plan", "-f", "-", "-o", "json")
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		return nil, nil, fmt.Errorf("%w: %v", errLibraryRefuses, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	want := string(out)
	for from, to := range hashes {
		want = strings.ReplaceAll(want, `"`+from+`"`, `"`+to+`"`)
	}
	if got := string(s.run(t, w.withNamespaces(same), "plan", "-f", "-", "-o", "json")); got != want {
		t.Fatalf("making the world valid for kube-apiserver changes the plan:\nbefore:\n%s\nafter:\n%s", want, got)
	}
	return w, hashes, nil
}

// run runs the CLI on input and returns its standard output; a failure
// fails the test.
func (s *server) run(t *testing.T, input []byte, args ...string) []byte {
	t.Helper()
	out, err := s.runCLI(input, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// runCLI runs the CLI on input and returns its standard output.
func (s *server) runCLI(input []byte, args ...string) ([]byte, error) {
	cmd := exec.Command(s.cli, args...)
	cmd.Stdin = bytes.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("clonesetplan %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes(), nil
}

// plan runs `clonesetplan plan -o requests` on the world, moved to its
// server namespaces, and returns the requests; cloneSet, when set, is the
// --cloneset of a world with many (NAMESPACE/NAME, server namespace).
func (s *server) plan(t *testing.T, w *world, l *loaded, cloneSet string) []requests.Request {
	t.Helper()
	args := append([]string{"plan", "-f", "-", "-o", "requests"}, s.planArgs...)
	if cloneSet != "" {
		args = append(args, "--cloneset", cloneSet)
	}
	out := s.run(t, w.withNamespaces(l.serverNamespace), args...)
	var list requests.List
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatalf("the output is not a RequestList: %v", err)
	}
	return list.Items
}

// send maps the requests' world uids and resourceVersions to the server's
// and sends them with the reference controller's Sender (the requests of
// one CloneSet), through writer when it is set (as the controller does),
// else through c. It returns the refused requests.
func (l *loaded) send(ctx context.Context, c client.Client, writer *kubecontroller.RESTWriter, w *world, reqs []requests.Request) []error {
	for i := range reqs {
		r := &reqs[i]
		if r.Preconditions != nil {
			if uid, ok := l.toServer[r.Preconditions.UID]; ok {
				r.Preconditions.UID = uid
			}
			if r.Preconditions.ResourceVersion != "" {
				key := string(r.Resource) + "/" + l.worldNamespace(r.Namespace) + "/" + r.Name
				if l.worldVersion[key] == r.Preconditions.ResourceVersion {
					r.Preconditions.ResourceVersion = l.serverVersion[key]
				}
			}
		}
		r.Object = remapJSON(r.Object, l.toServer)
		r.Patch = remapJSON(r.Patch, l.toServer)
	}
	var errs []error
	sender := &kubecontroller.Sender{Client: c, Writer: writer, CloneSetGVK: cloneSetGVK(w)}
	outcomes, _ := sender.Send(ctx, reqs)
	for _, o := range outcomes {
		if o.Err != nil {
			errs = append(errs, o.Err)
		}
	}
	return errs
}

// remapJSON replaces the uids of m in a JSON document.
func remapJSON(raw json.RawMessage, m map[string]string) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return raw
	}
	b, err := json.Marshal(mapUIDs(v, m))
	if err != nil {
		return raw
	}
	return b
}

// cloneSetGVK is the kind of the world's (first) CloneSet.
func cloneSetGVK(w *world) schema.GroupVersionKind {
	for _, d := range w.docs {
		if kindOf(d) == "CloneSet" {
			av, _ := d["apiVersion"].(string)
			gv, _ := schema.ParseGroupVersion(av)
			return gv.WithKind("CloneSet")
		}
	}
	return kubecontroller.CloneSetV1beta1
}
