// Command controllerloop is a CloneSet controller in a few lines: the loop a
// real controller runs around clonesetcore.Plan, driving an in-memory cluster
// (sim.Cluster, the simulator's cluster, so that this example and the
// simulator share one implementation of every action).
//
// Each round it reads a snapshot of the cluster, asks the planner what to do,
// applies the actions and the status, and then waits, as a controller waits,
// for whichever comes first: the requeue the plan asked for, or the next thing
// that happens in the cluster (a pod scheduled, started, ready: a watch event).
// Halfway through it changes the pod template, as `kubectl set image` would,
// and the loop rolls the change out in place.
//
// Run it from the repository root (without -f it reads the bundled
// scenario, examples/controllerloop/scenario.yaml, built into the program):
//
//	go run ./examples/controllerloop
//	go run ./examples/controllerloop -f examples/controllerloop/scenario.yaml -image web:3
package main

import (
	_ "embed"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/sim"
)

// bundled is the scenario the example reads without -f.
//
//go:embed scenario.yaml
var bundled []byte

func main() {
	os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
}

// realMain is the program without os.Exit: its arguments, output streams and
// exit status (0; 1 when the loop fails; 2 for bad usage).
func realMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("controllerloop", flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("f", "", "scenario file (YAML or JSON); default: the bundled examples/controllerloop/scenario.yaml")
	image := fs.String("image", "web:2", "image to roll out after the first quiet round")
	rounds := fs.Int("rounds", 60, "most reconciles to run")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "controllerloop: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	data, source := bundled, "examples/controllerloop/scenario.yaml"
	if *file != "" {
		var err error
		if data, err = os.ReadFile(*file); err != nil {
			fmt.Fprintln(stderr, "controllerloop:", err)
			return 1
		}
		source = *file
	}
	if err := run(stdout, data, source, *image, *rounds); err != nil {
		fmt.Fprintln(stderr, "controllerloop:", err)
		return 1
	}
	return 0
}

// run is the controller loop. It returns after the rollout of image is done
// and a round finds nothing to do, or after rounds reconciles.
func run(w io.Writer, data []byte, source, image string, rounds int) error {
	scn, err := manifest.LoadBytes(data, source)
	if err != nil {
		return err
	}
	// A small cluster with a fixed seed: the run is the same every time.
	world := sim.DefaultConfig().World
	world.Seed = 42
	cluster, err := sim.NewCluster(scn, world)
	if err != nil {
		return err
	}
	start := cluster.Now()
	changed := false
	for round := 0; round < rounds; round++ {
		// 1. Observe: one consistent snapshot of the CloneSet and its objects.
		snapshot := cluster.Snapshot()
		// 2. Decide.
		plan, err := clonesetcore.Plan(snapshot)
		if err != nil {
			return err
		}
		// 3. Act: the actions in order, then the status (Apply does both and
		//    reports every write that failed).
		report := cluster.Apply(plan)

		fmt.Fprintf(w, "round %2d at +%-8s %s\n", round, cluster.Now().Sub(start).Round(time.Millisecond), pods(snapshot))
		for _, a := range plan.Actions {
			fmt.Fprintf(w, "           %s\n", describe(a))
		}
		for _, f := range report.Failures() {
			fmt.Fprintf(w, "           FAILED %s %s: %s\n", f.Action.Type, f.Action.Pod, f.Err)
		}

		// The user changes the template once the CloneSet is at rest.
		if len(plan.Actions) == 0 && !changed && allAvailable(plan, snapshot) {
			desc, err := cluster.Change(sim.Change{Image: image})
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "           user: %s\n", desc)
			changed = true
			continue // the change is a watch event: reconcile again
		}
		if changed && len(plan.Actions) == 0 && allAvailable(plan, snapshot) && plan.Status.UpdatedReplicas == plan.Status.Replicas {
			fmt.Fprintf(w, "done: %d of %d pods run %s, currentRevision %s\n", plan.Status.UpdatedReplicas, plan.Status.Replicas, image, plan.Status.CurrentRevision)
			return nil
		}

		// 4. Wait: for the requeue, or for the next event in the cluster.
		next, ok := cluster.NextEvent()
		if plan.RequeueAfterSeconds > 0 {
			if t := cluster.Now().Add(plan.RequeueAfter()); !ok || t.Before(next) {
				next, ok = t, true
			}
		}
		if report.Changed {
			// Our own writes come back as watch events at once.
			next, ok = cluster.Now(), true
		}
		if !ok {
			return fmt.Errorf("round %d: nothing will ever happen again", round)
		}
		cluster.AdvanceTo(next)
		for _, e := range cluster.TakeLog() {
			fmt.Fprintf(w, "           cluster: %s\n", e)
		}
	}
	return fmt.Errorf("no rest after %d rounds", rounds)
}

func allAvailable(plan *clonesetcore.Result, scn *model.Scenario) bool {
	r := int32(scn.CloneSet.Spec.DesiredReplicas())
	return plan.Status.Replicas == r && plan.Status.AvailableReplicas == r
}

// pods summarizes the snapshot: each pod with its image, state and readiness.
func pods(scn *model.Scenario) string {
	var parts []string
	for _, p := range scn.Pods {
		img := ""
		if len(p.Spec.Containers) > 0 {
			img = p.Spec.Containers[0].Image
		}
		ready := "ready"
		if !p.IsReady() {
			ready = "not ready"
		}
		if !p.DeletionTimestamp.IsZero() {
			ready = "terminating"
		}
		parts = append(parts, fmt.Sprintf("%s %s %s %s", p.Name, img, orNone(p.LifecycleState()), ready))
	}
	sort.Strings(parts)
	return strings.Join(parts, " | ")
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func describe(a model.Action) string {
	switch a.Type {
	case model.ActionUpdatePodInPlace:
		return fmt.Sprintf("update %s in place to %s", a.Pod, a.ToRevision)
	case model.ActionSetLifecycleState:
		return fmt.Sprintf("%s: %s -> %s (%s)", a.Pod, orNone(a.From), a.To, a.Reason)
	case model.ActionPatchPod:
		return fmt.Sprintf("patch %s: %s", a.Pod, a.Reason)
	case model.ActionCreatePod:
		return fmt.Sprintf("create %s at %s", a.Pod, a.Revision)
	case model.ActionDeletePod:
		return fmt.Sprintf("delete %s (%s)", a.Pod, a.Reason)
	}
	return fmt.Sprintf("%s %s %s", a.Type, a.Pod, a.Reason)
}
