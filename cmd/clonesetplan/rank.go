package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/ordering"
)

// runRank prints the deletion or update ranking (docs/spec/scenario-format.md section 3)
// in opts.output format.
func runRank(scn *model.Scenario, opts options, stdout, stderr io.Writer) int {
	ranking, err := clonesetcore.Rank(scn, opts.forWhat)
	if err != nil {
		fmt.Fprintf(stderr, "clonesetplan rank: %v\n", err)
		return exitUsage
	}
	if opts.output != "text" {
		return writeDoc(ranking, opts.output, "rank", stdout, stderr)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s order (first = %s first):\n", ranking.For, map[string]string{"deletion": "deleted", "update": "updated"}[ranking.For])
	for i, p := range ranking.Pods {
		fmt.Fprintf(&b, "  %3d. %-30s %s\n", i+1, p.Name, p.Why)
	}
	if len(ranking.Pods) == 0 {
		b.WriteString("  (no pods)\n")
	}
	writeRankLegend(&b, ranking.Pods)
	_, _ = io.WriteString(stdout, b.String())
	return exitOK
}

// writeRankLegend explains each key the ranking shows, in the order they
// first appear (ordering.Explain).
func writeRankLegend(b *strings.Builder, pods []clonesetcore.RankedPod) {
	seen := map[string]bool{}
	var keys []string
	width := 0
	for _, p := range pods {
		if !seen[p.Why] {
			seen[p.Why] = true
			keys = append(keys, p.Why)
			width = max(width, len(p.Why))
		}
	}
	if len(keys) == 0 {
		return
	}
	b.WriteString("\nWhy each pod goes before the next one:\n")
	for _, k := range keys {
		fmt.Fprintf(b, "  %-*s  %s\n", width, k, ordering.Explain(k))
	}
}

func marshalIndent(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
