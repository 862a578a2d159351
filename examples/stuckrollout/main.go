// Command stuckrollout explains why a CloneSet rollout is not moving. It plans
// one reconcile of a scenario (clonesetcore.Plan) and prints, in words: how far
// the rollout is, the update budget and who is using it up, what this round
// does, the Progressing condition, whether the controller will look again by
// itself, and the plan's notes, which name every reason nothing happens.
//
// Run it from the repository root on one of the bundled scenarios (without
// -f it reads examples/stuckrollout/unready.yaml, built into the program):
//
//	go run ./examples/stuckrollout
//	go run ./examples/stuckrollout -f examples/stuckrollout/unready.yaml
//	go run ./examples/stuckrollout -f examples/stuckrollout/prehook.yaml
package main

import (
	_ "embed"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
)

// bundled is the scenario the example reads without -f.
//
//go:embed unready.yaml
var bundled []byte

// bundledName names the bundled scenario in messages.
const bundledName = "examples/stuckrollout/unready.yaml"

func main() {
	os.Exit(realMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// realMain is the program without os.Exit: its arguments, standard streams
// and exit status (0; 1 for a bad scenario; 2 for bad usage).
func realMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("stuckrollout", flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("f", "", "scenario file (YAML or JSON stream; - for standard input); default: the bundled "+bundledName)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "stuckrollout: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if err := run(stdout, stdin, *file); err != nil {
		fmt.Fprintln(stderr, "stuckrollout:", err)
		return 1
	}
	return 0
}

// run plans the scenario in file (the bundled one when file is "") and
// writes the explanation to w.
func run(w io.Writer, stdin io.Reader, file string) error {
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
	plan, err := clonesetcore.Plan(scn)
	if err != nil {
		return err
	}
	cs := scn.CloneSet
	b := plan.Budget
	if plan.UpdateBudget != nil {
		b = *plan.UpdateBudget // the update phase's own arithmetic
	}
	st := plan.Status

	fmt.Fprintf(w, "CloneSet %s/%s: rolling update from %s to %s\n", cs.Namespace, cs.Name, plan.CurrentRevision, plan.UpdateRevision)
	fmt.Fprintf(w, "  pods: %d, of which %d at the update revision (%d of them available)\n",
		st.Replicas, st.UpdatedReplicas, st.UpdatedAvailableReplicas)
	switch {
	case b.UpdateNum > 0:
		fmt.Fprintf(w, "  still to update: %s (partition %d)\n", pods(b.UpdateNum), b.Partition)
	case b.UpdateNum < 0:
		fmt.Fprintf(w, "  to roll back: %s\n", pods(-b.UpdateNum))
	default:
		fmt.Fprintf(w, "  still to update: none (partition %d)\n", b.Partition)
	}
	fmt.Fprintf(w, "  unavailability budget of the update: %s (maxUnavailable %d + %d pods - %d replicas)\n",
		pods(max(b.UpdateMaxUnavailable, 0)), b.MaxUnavailable, st.Replicas, b.Replicas)

	fmt.Fprintln(w, "  unavailable now:")
	none := true
	for _, p := range observed(scn) {
		if p.IsAvailable(cs.Spec.MinReadySeconds, scn.Now) {
			continue
		}
		none = false
		rev := "old revision"
		if p.InRevision(plan.UpdateRevision) {
			rev = "update revision"
		}
		fmt.Fprintf(w, "    - %s (%s): %s\n", p.Name, rev, whyUnavailable(cs, p, scn))
	}
	if none {
		fmt.Fprintln(w, "    none")
	}

	moving := 0
	for _, a := range plan.Actions {
		switch a.Type {
		case model.ActionCreatePod, model.ActionDeletePod, model.ActionUpdatePodInPlace, model.ActionRecreatePod, model.ActionSetLifecycleState:
			moving++
		}
	}
	if len(plan.Actions) == 0 {
		fmt.Fprintln(w, "  actions this round: none")
	} else {
		fmt.Fprintln(w, "  actions this round:")
		for _, a := range plan.Actions {
			fmt.Fprintf(w, "    - %s %s: %s\n", a.Type, a.Pod+a.PVC, a.Reason)
		}
	}
	for _, c := range st.Conditions {
		if c.Type == model.ConditionProgressing {
			fmt.Fprintf(w, "  condition: Progressing=%s (%s): %s\n", c.Status, c.Reason, c.Message)
		}
	}
	if plan.RequeueAfterSeconds > 0 {
		fmt.Fprintf(w, "  requeue: the controller looks again in %gs by itself\n", plan.RequeueAfterSeconds)
	} else {
		fmt.Fprintln(w, "  requeue: none; only a change to a pod or to the CloneSet wakes the controller")
	}

	fmt.Fprintln(w, "\nWhy, according to the plan:")
	for _, n := range plan.Notes {
		fmt.Fprintf(w, "  - %s\n", n)
	}

	waiting := max(b.UpdateNum, -b.UpdateNum)
	switch {
	case waiting == 0:
		fmt.Fprintln(w, "\nVerdict: nothing left to roll out.")
	case moving == 0:
		fmt.Fprintf(w, "\nVerdict: STUCK. %s %s for the update and nothing moves this round", pods(waiting), verb(waiting, "waits", "wait"))
		if plan.RequeueAfterSeconds > 0 {
			fmt.Fprintln(w, ", but the controller will look again by itself.")
		} else {
			fmt.Fprintln(w, "; fix the pods named above (or the CloneSet) to unblock it.")
		}
	default:
		fmt.Fprintf(w, "\nVerdict: moving. %d %s this round, %s still %s.\n", moving, verb(moving, "action", "actions"), pods(waiting), verb(waiting, "waits", "wait"))
	}
	return nil
}

// observed returns the pods the planner decides on: active and selected.
func observed(scn *model.Scenario) []*model.Pod {
	var out []*model.Pod
	for _, p := range scn.Pods {
		if p.IsActive() && scn.CloneSet.Spec.Selector.Matches(p.Labels) {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b *model.Pod) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// whyUnavailable says in words why a pod does not count as available.
func whyUnavailable(cs *model.CloneSet, p *model.Pod, scn *model.Scenario) string {
	var why []string
	switch s := p.LifecycleState(); s {
	case "", model.StateNormal:
	case model.StatePreparingDelete:
		w := "PreparingDelete, waiting to be deleted"
		if l := cs.Spec.Lifecycle; l != nil && l.PreDelete != nil {
			var held []string
			for _, f := range l.PreDelete.FinalizersHandler {
				if slices.Contains(p.Finalizers, f) {
					held = append(held, f)
				}
			}
			if len(held) > 0 {
				w = "PreparingDelete, held by the preDelete hook (finalizer " + strings.Join(held, ", ") + " still on the pod)"
			}
		}
		why = append(why, w)
	default:
		why = append(why, "lifecycle state "+s)
	}
	switch {
	case p.Status.Phase != model.PodRunning:
		why = append(why, "phase "+p.Status.Phase)
	case !p.IsReady():
		why = append(why, "not ready")
	case !p.KubernetesAvailable(cs.Spec.MinReadySeconds, scn.Now):
		why = append(why, "ready for less than minReadySeconds")
	case !p.InPlaceUpdateReadyOK():
		why = append(why, "in-place update not finished")
	}
	if r := p.MaxRestarts(); r > 0 {
		why = append(why, fmt.Sprintf("%d restarts", r))
	}
	return strings.Join(why, ", ")
}

// verb is one when n is 1, else many.
func verb(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func pods(n int) string {
	if n == 1 {
		return "1 pod"
	}
	return fmt.Sprintf("%d pods", n)
}
