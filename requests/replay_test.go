package requests_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/requests"
)

// corpus returns every scenario file of the golden corpus and the
// conformance plan worlds.
func corpus(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"../testdata/scenarios/*.yaml", "../testdata/scenarios/*/*.yaml", "../testdata/scenarios/*/*/*.yaml", "../testdata/conformance/plan/*.yaml"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 200 {
		t.Fatalf("only %d scenarios found", len(files))
	}
	return files
}

// TestCorpusRequestsApply builds the requests of every plan of the corpus
// and applies them to the scenario's world: every request is well-formed and
// applies.
func TestCorpusRequestsApply(t *testing.T) {
	for _, f := range corpus(t) {
		scns, err := manifest.LoadAllFiles([]string{f}, nil)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, scn := range scns {
			checkCorpusWorld(t, f, scn)
		}
	}
}

func checkCorpusWorld(t *testing.T, f string, scn *model.Scenario) {
	t.Helper()
	{
		plan, err := clonesetcore.Plan(scn)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		reqs, err := requests.Build(scn, plan)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			return
		}
		w := requests.NewWorld(scn)
		errs, _ := w.ApplyAll(reqs)
		collision := false
		for _, n := range plan.Notes {
			collision = collision || strings.Contains(n, "upstream's creation fails with AlreadyExists")
		}
		for i, err := range errs {
			if collision && requests.ReasonOf(err) == requests.ReasonAlreadyExists {
				continue // the instance-id collision quirk (scale-and-budgets 5.5)
			}
			if err != nil && err != requests.ErrNotSent {
				t.Errorf("%s: request %d (%s): %v", f, i, reqs[i].Verb, err)
			}
		}
	}
}
