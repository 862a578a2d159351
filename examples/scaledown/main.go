// Command scaledown answers "which pods would go first if I scaled this CloneSet
// down by N?". It loads a scenario, lowers spec.replicas by N, and prints what
// the next reconcile would delete (clonesetcore.Plan), the full deletion ranking
// with the reason for each place (clonesetcore.Rank, ordering.Explain), the
// delete budget, and the plan's notes about anything that has to wait.
//
// Run it from the repository root (without -f it reads the bundled scenario,
// examples/scaledown/scenario.yaml, built into the program):
//
//	go run ./examples/scaledown
//	go run ./examples/scaledown -f examples/scaledown/scenario.yaml -by 2
//
// Real cluster state works too (see the README for the kubectl commands).
package main

import (
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/ordering"
)

// bundled is the scenario the example reads without -f.
//
//go:embed scenario.yaml
var bundled []byte

// bundledName names the bundled scenario in messages.
const bundledName = "examples/scaledown/scenario.yaml"

func main() {
	os.Exit(realMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// realMain is the program without os.Exit: its arguments, standard streams
// and exit status (0; 1 for a bad scenario; 2 for bad usage).
func realMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("scaledown", flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("f", "", "scenario file (YAML or JSON stream; - for standard input); default: the bundled "+bundledName)
	by := fs.Int("by", 3, "how many replicas to remove")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "scaledown: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if err := run(stdout, stdin, *file, *by); err != nil {
		fmt.Fprintln(stderr, "scaledown:", err)
		return 1
	}
	return 0
}

// run plans the scenario in file (the bundled one when file is "") with
// spec.replicas lowered by `by` and writes the answer to w.
func run(w io.Writer, stdin io.Reader, file string, by int) error {
	if by < 0 {
		return errors.New("-by must not be negative")
	}
	var scn *model.Scenario
	var err error
	if file == "" {
		scn, err = manifest.LoadBytes(bundled, bundledName)
	} else {
		scn, err = manifest.LoadFiles([]string{file}, stdin)
	}
	if err != nil {
		return err
	}
	cs := scn.CloneSet
	from := cs.Spec.DesiredReplicas()
	to := int32(max(from-by, 0))
	cs.Spec.Replicas = &to

	plan, err := clonesetcore.Plan(scn)
	if err != nil {
		return err
	}
	ranking, err := clonesetcore.Rank(scn, clonesetcore.RankForDeletion)
	if err != nil {
		return err
	}

	fmt.Fprintf(w, "CloneSet %s/%s: replicas %d -> %d\n\n", cs.Namespace, cs.Name, from, to)
	removed := 0
	fmt.Fprintln(w, "The next reconcile removes:")
	for _, a := range plan.Actions {
		switch {
		case a.Type == model.ActionDeletePod:
			removed++
			fmt.Fprintf(w, "  - %s (deleted: %s)\n", a.Pod, a.Reason)
		case a.Type == model.ActionSetLifecycleState && a.To == model.StatePreparingDelete && a.From != a.To:
			removed++
			fmt.Fprintf(w, "  - %s (moved to PreparingDelete; deleted once its preDelete hook is released)\n", a.Pod)
		}
	}
	if removed == 0 {
		fmt.Fprintln(w, "  nothing")
	}
	b := plan.Budget
	fmt.Fprintf(w, "\nBudget: %d pods to remove, %d of them from old revisions; ready pods that may be deleted now: %d\n",
		b.ScaleDown, min(b.ScaleDownOldRevision, b.ScaleDown), b.DeleteReadyLimit)
	fmt.Fprintln(w, "(pods that are not ready are never charged to that budget)")

	fmt.Fprintln(w, "\nDeletion ranking (first = deleted first):")
	for i, p := range ranking.Pods {
		fmt.Fprintf(w, "  %d. %-8s %s\n", i+1, p.Name, ordering.Explain(p.Why))
	}
	fmt.Fprintln(w, "(each reason is the key that put the pod before the next one; with a partition,")
	fmt.Fprintln(w, " the planner ranks old-revision and updated pods separately)")

	if removed < by && len(plan.Notes) > 0 {
		fmt.Fprintln(w, "\nWhy not more this round:")
		for _, n := range plan.Notes {
			fmt.Fprintf(w, "  - %s\n", n)
		}
	}
	return nil
}
