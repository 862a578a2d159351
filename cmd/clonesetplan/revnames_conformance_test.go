package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/clonecore/cloneset/internal/cisummary"
	"github.com/clonecore/cloneset/requests"
)

// revNamesDir holds CloneSets with rich templates and, for each, the
// ControllerRevision the real controller builds (copied unchanged from
// ../shared/conformance-revnames; see its README).
const revNamesDir = "../../testdata/conformance-revnames"

// revNamesOracle is one line of the folder's oracle.jsonl.
type revNamesOracle struct {
	ID          string            `json:"id"`
	Name        string            `json:"name"`
	Hash        string            `json:"hash"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	Data        string            `json:"data"`
}

// TestConformanceRevisionNames replays testdata/conformance-revnames as its
// README says: for each world, the create controllerrevisions request of
// `clonesetplan plan -f worlds/NNNN.json -o requests` has exactly the
// oracle's name, labels, annotations and data bytes. It prints
// "conformance revision names: passed/total".
func TestConformanceRevisionNames(t *testing.T) {
	f, err := os.Open(filepath.Join(revNamesDir, "oracle.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []revNamesOracle
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var o revNamesOracle
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			t.Fatalf("oracle.jsonl line %d: %v", len(lines)+1, err)
		}
		lines = append(lines, o)
	}
	if err := sc.Err(); err != nil || len(lines) == 0 {
		t.Fatalf("no oracle lines (%v)", err)
	}
	passed := 0
	for _, o := range lines {
		if t.Run(o.ID, func(t *testing.T) { replayRevisionName(t, o) }) {
			passed++
		}
	}
	line := fmt.Sprintf("conformance revision names: %d/%d", passed, len(lines))
	cisummary.Print(t, line)
}

// replayRevisionName compares one world's created revision with the oracle.
func replayRevisionName(t *testing.T, o revNamesOracle) {
	world := filepath.Join(revNamesDir, "worlds", o.ID+".json")
	out := runCLI(t, []string{"plan", "-f", world, "-o", "requests"}, nil)
	var list requests.List
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatalf("%s: the output is not a request list: %v", world, err)
	}
	var creates []requests.Request
	for _, r := range list.Items {
		if r.Verb == requests.VerbCreate && r.Resource == requests.ResourceControllerRevisions {
			creates = append(creates, r)
		}
	}
	if len(creates) != 1 {
		t.Fatalf("%s: %d create controllerrevisions requests, want 1", world, len(creates))
	}
	var obj struct {
		Metadata struct {
			Name        string            `json:"name"`
			Labels      map[string]string `json:"labels"`
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(creates[0].Object, &obj); err != nil {
		t.Fatalf("%s: %v", world, err)
	}
	// The request list is indented; the data's bytes are its compact form.
	var data bytes.Buffer
	if err := json.Compact(&data, obj.Data); err != nil {
		t.Fatalf("%s: data: %v", world, err)
	}
	if obj.Metadata.Name != o.Name || creates[0].Name != o.Name {
		t.Errorf("%s: name %s (request %s), upstream's %s", world, obj.Metadata.Name, creates[0].Name, o.Name)
	}
	if h := obj.Metadata.Labels[requests.LabelRevisionHashKey]; h != o.Hash {
		t.Errorf("%s: hash label %s, upstream's %s", world, h, o.Hash)
	}
	if !maps.Equal(obj.Metadata.Labels, o.Labels) {
		t.Errorf("%s: labels %v, upstream's %v", world, obj.Metadata.Labels, o.Labels)
	}
	if !maps.Equal(obj.Metadata.Annotations, o.Annotations) {
		t.Errorf("%s: annotations %v, upstream's %v", world, obj.Metadata.Annotations, o.Annotations)
	}
	if data.String() != o.Data {
		t.Errorf("%s: data differs from upstream's\n got  %s\n want %s", world, data.String(), o.Data)
	}
}
