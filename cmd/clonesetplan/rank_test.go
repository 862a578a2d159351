package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
)

// rankLine is one pod of the text ranking: "  12. web-a   creationTime".
var rankLine = regexp.MustCompile(`^\s+\d+\. \S+\s+(\S+)$`)

// The text ranking explains every key it shows, on every golden scenario and
// for both targets: a bare "creationTime" or "rank" with no legend left the
// reader guessing.
func TestRankTextExplainsEveryKey(t *testing.T) {
	scenarios, _ := goldenCorpus(t)
	keys := map[string]bool{}
	for _, scn := range scenarios {
		input, err := os.ReadFile(scn)
		if err != nil {
			t.Fatal(err)
		}
		for _, target := range []string{"deletion", "update"} {
			var stdout, stderr bytes.Buffer
			if code := run([]string{"rank", "-f", "-", "--for", target}, bytes.NewReader(input), &stdout, &stderr); code != exitOK {
				t.Fatalf("%s: rank --for %s exited %d: %s", scn, target, code, stderr.String())
			}
			out := stdout.String()
			legend := map[string]string{}
			if _, after, ok := strings.Cut(out, "\nWhy each pod goes before the next one:\n"); ok {
				for _, l := range strings.Split(after, "\n") {
					if key, text, ok := strings.Cut(strings.TrimSpace(l), "  "); ok {
						legend[key] = strings.TrimSpace(text)
					}
				}
			}
			for _, l := range strings.Split(out, "\n") {
				m := rankLine.FindStringSubmatch(l)
				if m == nil {
					continue
				}
				keys[m[1]] = true
				if legend[m[1]] == "" {
					t.Errorf("%s, rank --for %s: key %q has no explanation:\n%s", scn, target, m[1], out)
				}
			}
		}
	}
	// The corpus shows most keys; the ones it shows are all explained.
	if len(keys) < 8 {
		t.Errorf("the corpus's rankings show %d distinct keys (%v), expected at least 8", len(keys), keys)
	}
}
