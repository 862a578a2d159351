package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"

	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/requests"
)

const tutorialGolden = "../../testdata/scenarios/namespace/redis-tutorial.yaml"

// cliRun runs the CLI with input on standard input.
func cliRun(t *testing.T, input string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(input), &out, &errb)
	return code, out.String(), errb.String()
}

// aloneStreams splits a stream into the streams of each CloneSet alone: every
// document but the other CloneSets, in the same order.
func aloneStreams(t *testing.T, input string) []string {
	t.Helper()
	docs := strings.Split(input, "\n---\n")
	var sets []int
	for i, d := range docs {
		if strings.Contains(d, "\nkind: CloneSet\n") {
			sets = append(sets, i)
		}
	}
	if len(sets) < 2 {
		t.Fatalf("%d CloneSets in the stream, want several", len(sets))
	}
	var out []string
	for _, keep := range sets {
		var alone []string
		for i, d := range docs {
			if i == keep || !slicesContains(sets, i) {
				alone = append(alone, d)
			}
		}
		out = append(out, strings.Join(alone, "\n---\n"))
	}
	return out
}

func slicesContains(list []int, x int) bool {
	for _, v := range list {
		if v == x {
			return true
		}
	}
	return false
}

// listItems decodes a list document and checks its header.
func listItems(t *testing.T, out, kind string) []json.RawMessage {
	t.Helper()
	var list struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Items      []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("not a JSON document: %v\n%s", err, out)
	}
	if list.APIVersion != "clonesetcore/v1alpha1" || list.Kind != kind {
		t.Fatalf("apiVersion %q kind %q, want clonesetcore/v1alpha1 %s", list.APIVersion, list.Kind, kind)
	}
	return list.Items
}

func compactJSON(t *testing.T, b []byte) string {
	t.Helper()
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		t.Fatal(err)
	}
	return c.String()
}

// TestManyEqualsAlone: the golden with two CloneSets in one stream, planned
// side by side, gives for each CloneSet exactly what planning it alone gives,
// for every command and format.
func TestManyEqualsAlone(t *testing.T) {
	data, err := os.ReadFile(tutorialGolden)
	if err != nil {
		t.Fatal(err)
	}
	input := string(data)
	alone := aloneStreams(t, input)
	// The CloneSets of the stream in namespace/name order (follower, leader)
	// are the second and first CloneSet documents.
	alone[0], alone[1] = alone[1], alone[0]

	for _, c := range []struct {
		args []string
		kind string
	}{
		{[]string{"plan", "-o", "json"}, "PlanList"},
		{[]string{"rank", "--for", "deletion", "-o", "json"}, "RankingList"},
		{[]string{"rank", "--for", "update", "-o", "json"}, "RankingList"},
		{[]string{"simulate", "--steps", "5", "-o", "json"}, "SimulationList"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			args := append([]string{c.args[0], "-f", "-"}, c.args[1:]...)
			code, out, errs := cliRun(t, input, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			items := listItems(t, out, c.kind)
			if len(items) != 2 {
				t.Fatalf("%d items", len(items))
			}
			for i, a := range alone {
				code, want, errs := cliRun(t, a, args...)
				if code != 0 {
					t.Fatalf("alone: exit %d: %s", code, errs)
				}
				got := items[i]
				if c.kind == "RankingList" {
					// The list names the CloneSet of a ranking; the rest is the
					// ranking alone.
					var m map[string]json.RawMessage
					if err := json.Unmarshal(got, &m); err != nil {
						t.Fatal(err)
					}
					name := compactJSON(t, m["cloneSet"])
					if !strings.Contains(name, `"name":"redis-`) {
						t.Errorf("item %d: cloneSet %s", i, name)
					}
					first := `{"cloneSet":` + name + ","
					if !strings.HasPrefix(compactJSON(t, got), first) {
						t.Fatalf("item %d: cloneSet is not the first member: %s", i, got)
					}
					got = []byte("{" + strings.TrimPrefix(compactJSON(t, got), first))
				}
				if compactJSON(t, got) != compactJSON(t, []byte(want)) {
					t.Errorf("item %d differs from the CloneSet planned alone:\n%s\nalone:\n%s", i, got, want)
				}
			}
		})
	}

	// Text: one section per CloneSet, each the output of the CloneSet alone.
	code, out, errs := cliRun(t, input, "plan", "-f", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var want strings.Builder
	for i, a := range alone {
		_, o, _ := cliRun(t, a, "plan", "-f", "-")
		if i > 0 {
			want.WriteString("\n")
		}
		fmt.Fprintf(&want, "==> CloneSet default/redis-%s (%d of 2) <==\n%s", []string{"follower", "leader"}[i], i+1, o)
	}
	if out != want.String() {
		t.Errorf("text:\n%s\nwant:\n%s", out, want.String())
	}

	// YAML: the same list.
	code, out, _ = cliRun(t, input, "plan", "-f", "-", "-o", "yaml")
	var y struct {
		Kind  string           `yaml:"kind"`
		Items []map[string]any `yaml:"items"`
	}
	if err := yaml.Unmarshal([]byte(out), &y); code != 0 || err != nil || y.Kind != "PlanList" || len(y.Items) != 2 || y.Items[1]["kind"] != "Plan" {
		t.Errorf("yaml: exit %d, %v, %+v\n%s", code, err, y, out)
	}
}

// TestOneCloneSetKeepsThePlan: selecting one CloneSet prints its Plan
// document, as for an input with one CloneSet.
func TestOneCloneSetKeepsThePlan(t *testing.T) {
	data, err := os.ReadFile(tutorialGolden)
	if err != nil {
		t.Fatal(err)
	}
	alone := aloneStreams(t, string(data)) // leader, follower
	for i, sel := range []string{"redis-leader", "default/redis-follower"} {
		code, got, errs := cliRun(t, string(data), "plan", "-f", "-", "-o", "json", "--cloneset", sel)
		_, want, _ := cliRun(t, alone[i], "plan", "-f", "-", "-o", "json")
		if code != 0 || got != want {
			t.Errorf("--cloneset %s: exit %d %s\n%s\nwant\n%s", sel, code, errs, got, want)
		}
	}
}

func TestCloneSetFlag(t *testing.T) {
	two := validScenario + "---\n" + strings.NewReplacer("name: sample", "name: other", "app: sample", "app: other").Replace(validScenario)
	twoNS := validScenario + "---\n" + strings.Replace(validScenario, "namespace: default", "namespace: prod", 1)
	cases := []struct {
		name  string
		input string
		args  []string
		code  int
		out   string
		err   string
	}{
		{"by name", two, []string{"--cloneset", "other"}, 0, "CloneSet default/other", ""},
		{"by namespace/name", twoNS, []string{"--cloneset", "prod/sample"}, 0, "CloneSet prod/sample", ""},
		{"ambiguous", twoNS, []string{"--cloneset", "sample"}, 1, "", "--cloneset sample: 2 CloneSets of that name (default/sample, prod/sample): give NAMESPACE/NAME"},
		{"missing", two, []string{"--cloneset", "nope"}, 1, "", "--cloneset nope: no such CloneSet in the input (it holds default/other, default/sample)"},
		{"wrong namespace", two, []string{"--cloneset", "prod/other"}, 1, "", "no such CloneSet"},
		{"single input", validScenario, []string{"--cloneset", "sample"}, 0, "CloneSet default/sample", ""},
		{"svg of many", two, []string{"--svg", "x.svg"}, 2, "", "--svg draws one CloneSet and the input holds 2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := "plan"
			if c.name == "svg of many" {
				cmd = "simulate"
			}
			code, out, errs := cliRun(t, c.input, append([]string{cmd, "-f", "-"}, c.args...)...)
			if code != c.code || !strings.Contains(out, c.out) || !strings.Contains(errs, c.err) {
				t.Errorf("exit %d (want %d)\nstdout %s\nstderr %s", code, c.code, out, errs)
			}
			if c.code == 0 && strings.Contains(out, "==> ") {
				t.Errorf("one CloneSet selected, yet sections:\n%s", out)
			}
		})
	}
	// Text sections are in namespace/name order whatever the input order.
	_, out, _ := cliRun(t, two, "rank", "-f", "-")
	if i, j := strings.Index(out, "==> CloneSet default/other (1 of 2) <=="), strings.Index(out, "==> CloneSet default/sample (2 of 2) <=="); i < 0 || j < i {
		t.Errorf("sections:\n%s", out)
	}
	// Errors of a whole input still come first (bad CloneSet names it).
	code, _, errs := cliRun(t, strings.Replace(two, "replicas: 2", "replicas: -1", 1), "plan", "-f", "-")
	if code != 1 || !strings.Contains(errs, "CloneSet default/sample: spec.replicas: Invalid value: -1") {
		t.Errorf("exit %d: %s", code, errs)
	}
}

// TestRunEachJoins checks the joining of per-CloneSet outputs with a command
// that fails for one CloneSet: its error names the CloneSet, the exit status
// is the worst, no list is printed, text sections say what is missing.
func TestRunEachJoins(t *testing.T) {
	scns := []*model.Scenario{
		{CloneSet: &model.CloneSet{Name: "a", Namespace: "ns"}},
		{CloneSet: &model.CloneSet{Name: "b", Namespace: "ns"}},
	}
	fake := &command{name: "plan", run: func(s *model.Scenario, opts options, stdout, stderr io.Writer) int {
		if s.CloneSet.Name == "b" {
			fmt.Fprintln(stderr, "clonesetplan plan: cannot plan")
			return exitInput
		}
		if opts.output == "json" {
			fmt.Fprintln(stdout, `{"kind": "Plan"}`)
		} else {
			fmt.Fprintln(stdout, "plan of a")
		}
		return exitOK
	}}
	for _, format := range []string{"json", "yaml", "text"} {
		var out, errs bytes.Buffer
		code := runEach(fake, scns, options{output: format}, &out, &errs)
		if code != exitInput || errs.String() != "clonesetplan plan: CloneSet ns/b: cannot plan\n" {
			t.Errorf("%s: exit %d, stderr %q", format, code, errs.String())
		}
		want := ""
		if format == "text" {
			want = "==> CloneSet ns/a (1 of 2) <==\nplan of a\n\n==> CloneSet ns/b (2 of 2) <==\n(no output: see the error on standard error)\n"
		}
		if out.String() != want {
			t.Errorf("%s: stdout %q, want %q", format, out.String(), want)
		}
	}
	// When every CloneSet has its document the list holds them all, a
	// cloneSet member added to items that have none.
	ok := &command{name: "rank", run: func(s *model.Scenario, opts options, stdout, stderr io.Writer) int {
		fmt.Fprintln(stdout, `{"for": "deletion", "pods": []}`)
		return exitOK
	}}
	var out bytes.Buffer
	if code := runEach(ok, scns, options{output: "json"}, &out, io.Discard); code != exitOK {
		t.Fatalf("exit %d", code)
	}
	var list map[string]any
	if err := json.Unmarshal(out.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"apiVersion": "clonesetcore/v1alpha1", "kind": "RankingList", "items": []any{
		map[string]any{"cloneSet": map[string]any{"namespace": "ns", "name": "a"}, "for": "deletion", "pods": []any{}},
		map[string]any{"cloneSet": map[string]any{"namespace": "ns", "name": "b"}, "for": "deletion", "pods": []any{}},
	}}
	if !reflect.DeepEqual(list, want) {
		t.Errorf("list %v", list)
	}
	if !strings.HasPrefix(out.String(), "{\n  \"apiVersion\": \"clonesetcore/v1alpha1\",\n  \"kind\": \"RankingList\",\n  \"items\": [\n    {\n      \"cloneSet\": {") {
		t.Errorf("member order or indentation:\n%s", out.String())
	}
}

// TestManyRequestsEqualAlone: the RequestList of a two-CloneSet stream is the
// requests of each CloneSet alone, one after the other (namespace/name
// order); the kubectl script is each one's script under a header.
func TestManyRequestsEqualAlone(t *testing.T) {
	data, err := os.ReadFile(tutorialGolden)
	if err != nil {
		t.Fatal(err)
	}
	input := string(data)
	alone := aloneStreams(t, input)
	alone[0], alone[1] = alone[1], alone[0]
	code, out, errs := cliRun(t, input, "plan", "-f", "-", "-o", "requests")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got requests.List
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	var want []requests.Request
	for _, a := range alone {
		code, o, errs := cliRun(t, a, "plan", "-f", "-", "-o", "requests")
		if code != 0 {
			t.Fatalf("alone: exit %d: %s", code, errs)
		}
		var l requests.List
		if err := json.Unmarshal([]byte(o), &l); err != nil {
			t.Fatal(err)
		}
		if len(l.Items) == 0 {
			t.Fatal("a CloneSet alone has no requests")
		}
		want = append(want, l.Items...)
	}
	if diff := cmp.Diff(want, got.Items); diff != "" || got.Kind != "RequestList" {
		t.Errorf("kind %s; (-alone +together):\n%s", got.Kind, diff)
	}
	code, script, errs := cliRun(t, input, "plan", "-f", "-", "-o", "kubectl")
	if code != 0 || strings.Count(script, "# ==> CloneSet ") != 2 || strings.Count(script, "exit 1") != 2 {
		t.Errorf("kubectl: exit %d %s\n%s", code, errs, script)
	}
}
