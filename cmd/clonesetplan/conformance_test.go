package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/clonecore/cloneset/internal/cisummary"
)

// conformanceDir holds the real controller's decisions on random worlds, copied
// unchanged from ../shared/conformance (see its README for the comparison rules
// implemented below).
const conformanceDir = "../../testdata/conformance"

// specSection names the spec section a compared field belongs to, for failure
// messages.
var specSection = map[string]string{
	"budget":               "docs/spec/scale-and-budgets.md sections 1-3 (the diff record)",
	"actions":              "docs/spec/scale-and-budgets.md section 4 (scale phase), docs/spec/update-and-ordering.md sections 2-4 (update phase), LSV 1.7 (lifecycle)",
	"status":               "docs/spec/lifecycle-status-validation.md section 2.2-2.3 (counters, revisions)",
	"conditions":           "docs/spec/lifecycle-status-validation.md section 2.4 (Progressing)",
	"rank-deletion":        "docs/spec/scale-and-budgets.md 4.6 / docs/spec/update-and-ordering.md 8 (deletion ranking, same-node ranker)",
	"rank-deletion-spread": "docs/spec/update-and-ordering.md 8.5 (spread-constraints ranker)",
	"rank-update":          "docs/spec/update-and-ordering.md 2.6, 5-7 (update order)",
	"reusedInstanceIDs":    "docs/spec/scale-and-budgets.md 5.5 (free ids and reuse)",
	"requeueAfterSeconds":  "docs/spec/lifecycle-status-validation.md (requeue R1-R4)",
}

type expectation struct {
	Command           string              `json:"command"`
	Budget            map[string]int      `json:"budget"`
	Actions           []map[string]any    `json:"actions"`
	ActionsMode       string              `json:"actionsMode"`
	ActionCounts      map[string]int      `json:"actionCounts"`
	ReusedInstanceIDs []string            `json:"reusedInstanceIDs"`
	Status            map[string]any      `json:"status"`
	Conditions        []map[string]string `json:"conditions"`
	Rank              []string            `json:"rank"`
	// RequeueAfterSeconds is present in every plan/ expectation; a pointer
	// tells an absent field from 0 (no requeue).
	RequeueAfterSeconds *float64 `json:"requeueAfterSeconds"`
}

// TestConformance replays every world of testdata/conformance through the CLI
// (the same code path users run) and compares with what the real controller
// decided; each case also runs twice with its documents shuffled, and the plan
// must not change (determinism, permutation invariance).
func TestConformance(t *testing.T) {
	folders := []string{"budget", "plan", "status", "rank-deletion", "rank-deletion-spread", "rank-update"}
	for _, folder := range folders {
		files, err := filepath.Glob(filepath.Join(conformanceDir, folder, "*.yaml"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no conformance cases in %s (%v)", folder, err)
		}
		passed := 0
		for _, f := range files {
			if ok := t.Run(folder+"/"+strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) { replayCase(t, folder, f) }); ok {
				passed++
			}
		}
		summary := fmt.Sprintf("conformance %s: %d/%d", folder, passed, len(files))
		cisummary.Print(t, summary)
	}
}

// replayCase compares one world with what the real controller decided, field
// by field as the conformance README says.
func replayCase(t *testing.T, folder, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(strings.TrimSuffix(file, ".yaml") + ".expect.json")
	if err != nil {
		t.Fatal(err)
	}
	var exp expectation
	if err := json.Unmarshal(raw, &exp); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	args := []string{"plan", "-f", "-", "-o", "json"}
	switch exp.Command {
	case "rank-deletion":
		args = []string{"rank", "-f", "-", "--for", "deletion", "-o", "json"}
	case "rank-update":
		args = []string{"rank", "-f", "-", "--for", "update", "-o", "json"}
	}
	out := runCLI(t, args, data)
	// Determinism: the same world with its documents in another order.
	for seed := int64(1); seed <= 2; seed++ {
		if again := runCLI(t, args, shuffleDocuments(data, seed)); !bytes.Equal(again, out) {
			t.Fatalf("%s: output changes when the documents are shuffled (seed %d)\nfirst:\n%s\nshuffled:\n%s", file, seed, out, again)
		}
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%s: output is not JSON: %v\n%s", file, err, out)
	}
	fail := func(field string, format string, args ...any) {
		t.Helper()
		t.Errorf("%s [%s; spec: %s]: %s", file, field, specSection[field], fmt.Sprintf(format, args...))
	}
	if exp.Rank != nil {
		var names []string
		for _, p := range asList(got["pods"]) {
			names = append(names, fmt.Sprint(asMap(p)["name"]))
		}
		if !reflect.DeepEqual(names, exp.Rank) {
			fail(folder, "rank differs\n  want %v\n  got  %v", exp.Rank, names)
		}
		return
	}
	if exp.Budget != nil {
		budget := asMap(got["budget"])
		for k, want := range exp.Budget {
			if g, ok := budget[k].(float64); !ok || int(g) != want {
				fail("budget", "budget.%s: want %d, got %v", k, want, budget[k])
			}
		}
	}
	actions := asList(got["actions"])
	if exp.ActionCounts != nil {
		counts := map[string]int{}
		for _, a := range actions {
			counts[fmt.Sprint(asMap(a)["type"])]++
		}
		for typ, want := range exp.ActionCounts {
			if counts[typ] != want {
				fail("actions", "%d %s actions, want %d\n  plan actions: %s", counts[typ], typ, want, compact(actions))
			}
		}
	}
	if exp.ActionsMode == "unordered" {
		var counted []map[string]any
		for _, a := range actions {
			m := asMap(a)
			if _, ok := exp.ActionCounts[fmt.Sprint(m["type"])]; ok || exp.ActionCounts == nil {
				counted = append(counted, m)
			}
		}
		if len(counted) != len(exp.Actions) || !pairActions(exp.Actions, counted) {
			fail("actions", "actions cannot be paired\n  want %s\n  got  %s", compact(exp.Actions), compact(counted))
		}
	}
	if exp.ReusedInstanceIDs != nil {
		var ids []string
		for _, a := range actions {
			m := asMap(a)
			if m["type"] == "CreatePod" && len(asList(m["reusePVCs"])) > 0 {
				ids = append(ids, fmt.Sprint(m["instanceID"]))
			}
		}
		sort.Strings(ids)
		if ids == nil {
			ids = []string{}
		}
		if !reflect.DeepEqual(ids, exp.ReusedInstanceIDs) {
			fail("reusedInstanceIDs", "want %v, got %v", exp.ReusedInstanceIDs, ids)
		}
	}
	status := asMap(got["status"])
	for k, want := range exp.Status {
		if k == "conditions" {
			if len(asList(want)) == 0 && len(asList(status["conditions"])) != 0 {
				fail("conditions", "want no conditions, got %s", compact(asList(status["conditions"])))
			}
			continue
		}
		if !jsonEqual(status[k], want) {
			fail("status", "status.%s: want %v, got %v", k, want, status[k])
		}
	}
	if exp.Conditions != nil {
		conds := asList(status["conditions"])
		used := make([]bool, len(conds))
		for _, w := range exp.Conditions {
			found := false
			for i, c := range conds {
				if used[i] {
					continue
				}
				cm := asMap(c)
				match := true
				for k, v := range w {
					if fmt.Sprint(cm[k]) != v {
						match = false
					}
				}
				if match {
					used[i], found = true, true
					break
				}
			}
			if !found {
				fail("conditions", "no condition matches %v; got %s", w, compact(conds))
			}
		}
	}
	if exp.RequeueAfterSeconds != nil {
		// The recording ran on a wall clock: equal within one second.
		g, _ := got["requeueAfterSeconds"].(float64)
		if d := g - *exp.RequeueAfterSeconds; d < -1 || d > 1 {
			fail("requeueAfterSeconds", "want %v, got %v", *exp.RequeueAfterSeconds, got["requeueAfterSeconds"])
		}
	}
}

// pairActions reports whether expected and actual actions can be paired one to
// one so that every field an expected entry names equals the actual field
// (deletePVCs compared as sets). Backtracking: the lists are short.
func pairActions(want, got []map[string]any) bool {
	used := make([]bool, len(got))
	var try func(i int) bool
	try = func(i int) bool {
		if i == len(want) {
			return true
		}
		for j := range got {
			if !used[j] && actionMatches(want[i], got[j]) {
				used[j] = true
				if try(i + 1) {
					return true
				}
				used[j] = false
			}
		}
		return false
	}
	return try(0)
}

func actionMatches(want, got map[string]any) bool {
	for k, v := range want {
		if k == "deletePVCs" {
			if !sameSet(asList(v), asList(got[k])) {
				return false
			}
			continue
		}
		if !jsonEqual(v, got[k]) {
			return false
		}
	}
	return true
}

func sameSet(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	as, bs := make([]string, len(a)), make([]string, len(b))
	for i := range a {
		as[i] = fmt.Sprint(a[i])
	}
	for i := range b {
		bs[i] = fmt.Sprint(b[i])
	}
	sort.Strings(as)
	sort.Strings(bs)
	return reflect.DeepEqual(as, bs)
}

func jsonEqual(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func compact[T any](v []T) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// shuffleDocuments reorders the documents of a YAML stream deterministically.
func shuffleDocuments(data []byte, seed int64) []byte {
	docs := strings.Split("\n"+string(data), "\n---\n")
	var kept []string
	for _, d := range docs {
		if strings.TrimSpace(d) != "" {
			kept = append(kept, d)
		}
	}
	rng := rand.New(rand.NewSource(seed))
	rng.Shuffle(len(kept), func(i, j int) { kept[i], kept[j] = kept[j], kept[i] })
	return []byte("---\n" + strings.Join(kept, "\n---\n") + "\n")
}

func runCLI(t *testing.T, args []string, stdin []byte) []byte {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(args, bytes.NewReader(stdin), &stdout, &stderr); code != 0 {
		t.Fatalf("clonesetplan %s exited %d: %s", strings.Join(args, " "), code, stderr.String())
	}
	return stdout.Bytes()
}
