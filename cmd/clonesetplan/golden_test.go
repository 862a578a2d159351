package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// goldenDir holds the golden scenario corpus: the user docs made executable
// (see testdata/README.md for the coverage table). Every scenario NAME.yaml has
// the plan it must produce in NAME.plan.json (the exact `plan -o json` output)
// and, where ordering is the point, NAME.rank-deletion.json and/or
// NAME.rank-update.json (the exact `rank --for ... -o json` output), and,
// for one scenario per kind of write, NAME.requests.json (the exact
// `plan -o requests` output: the API requests that carry the plan out, for
// the newest API servers) and, where the server version changes them,
// NAME.requests-1.31.json (the same for a server before 1.32:
// `--server-version 1.31`). A
// multi-step scenario is a directory of worlds step-01.yaml, step-02.yaml, ...
// along one rollout, each with its own goldens. A scenario with several
// CloneSets (namespace/) has the same goldens, whose documents are lists
// (PlanList, RankingList); multi_test.go checks their items against each
// CloneSet planned alone.
const goldenDir = "../../testdata/scenarios"

// updateGoldens regenerates the goldens instead of comparing:
//
//	go test ./cmd/clonesetplan -run TestGolden -update
//
// A regenerated golden is reviewed like code before it is committed.
var updateGoldens = flag.Bool("update", false, "rewrite the golden files of testdata/scenarios from the current planner output")

// goldenKind is one output compared for a scenario.
type goldenKind struct {
	suffix string   // golden file name = scenario base name + suffix
	args   []string // CLI arguments after "-f -"
	always bool     // every scenario must have this golden
}

var goldenKinds = []goldenKind{
	{".plan.json", []string{"plan", "-o", "json"}, true},
	{".rank-deletion.json", []string{"rank", "--for", "deletion", "-o", "json"}, false},
	{".rank-update.json", []string{"rank", "--for", "update", "-o", "json"}, false},
	{".requests.json", []string{"plan", "-o", "requests"}, false},
	{".requests-1.31.json", []string{"plan", "-o", "requests", "--server-version", "1.31"}, false},
}

// TestGolden replays every scenario of testdata/scenarios through the CLI and
// compares the output byte for byte with its goldens.
func TestGolden(t *testing.T) {
	scenarios, goldens := goldenCorpus(t)
	if len(scenarios) == 0 {
		t.Fatalf("no scenarios under %s", goldenDir)
	}
	// A golden without its scenario is stale: its scenario was renamed or
	// removed, so the golden checks nothing.
	for _, g := range goldens {
		base, _, ok := goldenSplit(g)
		if !ok {
			t.Errorf("%s: not a scenario (.yaml) nor a golden (%s): rename or remove it", g, goldenSuffixes())
			continue
		}
		if _, err := os.Stat(base + ".yaml"); err != nil {
			t.Errorf("%s: golden without a scenario (%s.yaml is missing)", g, base)
		}
	}
	for _, scn := range scenarios {
		rel, _ := filepath.Rel(goldenDir, scn)
		t.Run(filepath.ToSlash(strings.TrimSuffix(rel, ".yaml")), func(t *testing.T) {
			input, err := os.ReadFile(scn)
			if err != nil {
				t.Fatal(err)
			}
			base := strings.TrimSuffix(scn, ".yaml")
			for _, k := range goldenKinds {
				golden := base + k.suffix
				_, statErr := os.Stat(golden)
				exists := statErr == nil
				if !exists && !k.always {
					continue
				}
				got := goldenRun(t, k.args, input)
				if *updateGoldens {
					if exists {
						if old, err := os.ReadFile(golden); err == nil && bytes.Equal(old, got) {
							continue
						}
					}
					if err := os.WriteFile(golden, got, 0o644); err != nil {
						t.Fatal(err)
					}
					t.Logf("wrote %s", golden)
					continue
				}
				if !exists {
					t.Errorf("%s: golden file missing; review the output and create it with\n  go test ./cmd/clonesetplan -run TestGolden -update", golden)
					continue
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(want, got) {
					t.Errorf("%s differs from `clonesetplan %s` on %s:\n%s", golden, strings.Join(k.args, " "), scn, goldenDiff(want, got))
				}
			}
		})
	}
}

// goldenCorpus lists the scenario files and the other files (goldens) of the
// corpus, sorted. README files are documentation.
func goldenCorpus(t *testing.T) (scenarios, goldens []string) {
	t.Helper()
	err := filepath.WalkDir(goldenDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		switch {
		case strings.HasSuffix(path, ".yaml"):
			scenarios = append(scenarios, path)
		case strings.HasSuffix(path, ".md"):
		default:
			goldens = append(goldens, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(scenarios)
	sort.Strings(goldens)
	return scenarios, goldens
}

// goldenSplit splits a golden path into the scenario base path and its kind.
func goldenSplit(path string) (base string, kind goldenKind, ok bool) {
	for _, k := range goldenKinds {
		if strings.HasSuffix(path, k.suffix) {
			return strings.TrimSuffix(path, k.suffix), k, true
		}
	}
	return "", goldenKind{}, false
}

func goldenSuffixes() string {
	var s []string
	for _, k := range goldenKinds {
		s = append(s, k.suffix)
	}
	return strings.Join(s, ", ")
}

// goldenRun runs the CLI on the scenario read from standard input, the way
// users pipe cluster state into it.
func goldenRun(t *testing.T, args []string, input []byte) []byte {
	t.Helper()
	full := append([]string{args[0], "-f", "-"}, args[1:]...)
	var stdout, stderr bytes.Buffer
	if code := run(full, bytes.NewReader(input), &stdout, &stderr); code != 0 {
		t.Fatalf("clonesetplan %s exited %d: %s", strings.Join(full, " "), code, stderr.String())
	}
	return stdout.Bytes()
}

// goldenDiff explains a mismatch: a structural diff of the decoded JSON
// (-golden +got), or, when both decode to the same value, the first
// differing byte.
func goldenDiff(want, got []byte) string {
	var w, g any
	errW := json.Unmarshal(want, &w)
	errG := json.Unmarshal(got, &g)
	if errW != nil || errG != nil {
		return "golden or output is not JSON (golden: " + goldenErr(errW) + ", output: " + goldenErr(errG) + ")\n--- golden\n" + string(want) + "\n+++ got\n" + string(got)
	}
	if d := cmp.Diff(w, g); d != "" {
		return "(-golden +got)\n" + d
	}
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	return fmt.Sprintf("same JSON value, different bytes (formatting) from offset %d: regenerate with -update", i)
}

func goldenErr(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}
