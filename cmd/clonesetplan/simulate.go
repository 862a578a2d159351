package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/sim"
)

// Flag defaults of simulate (see parseFlags): a flag left at its default
// yields to the Simulation document's setting.
const (
	defaultSeed  = 1
	defaultSteps = 10
)

// runSimulate runs the reconcile loop of package sim over the scenario: plan,
// apply to a simulated cluster (scheduler, kubelet, hook controller, faults),
// advance virtual time, repeat, checking the simulator's invariants at every
// round; the run is made twice to check that it is deterministic.
//
// The settings come from the optional clonesetcore/v1alpha1 Simulation
// document of the scenario files or standard input (manifest.LoadSimulation), with
// --seed and --steps on top when they are given a value other than their
// default (1 and 10). --steps 0 means the simulator's own limit
// (sim.DefaultMaxSteps).
//
// -o text prints the timeline, the final state and the invariants; json and
// yaml print the whole result. --svg FILE also draws the timeline. A violated
// invariant is reported on standard error and the exit status is 1.
func runSimulate(scn *model.Scenario, opts options, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintf(stderr, "clonesetplan simulate: %v\n", err)
		return exitInput
	}
	doc, err := simulationDocument(opts.files, opts.stdin)
	if err != nil {
		return fail(err)
	}
	cfg, err := sim.FromManifest(doc)
	if err != nil {
		return fail(err)
	}
	if opts.seed != defaultSeed || doc == nil || doc.Seed == nil {
		cfg.Seed = uint64(opts.seed)
	}
	if opts.steps != defaultSteps || doc == nil || doc.Steps == nil {
		cfg.MaxSteps = opts.steps
	}
	res, err := sim.Verify(scn, cfg)
	if err != nil {
		return fail(err)
	}
	if opts.svg != "" {
		if err := os.WriteFile(opts.svg, res.SVG(), 0o644); err != nil {
			return fail(err)
		}
	}
	code := exitOK
	switch opts.output {
	case "text":
		if err := res.WriteText(stdout, false); err != nil {
			return fail(err)
		}
		if res.Outcome == sim.StepLimit {
			fmt.Fprintf(stdout, "\n%s\n", stepLimitHint(cfg.MaxSteps))
		}
	default:
		code = writeDoc(res, opts.output, "simulate", stdout, stderr)
		if code == exitOK && res.Outcome == sim.StepLimit {
			fmt.Fprintf(stderr, "clonesetplan simulate: %s\n", stepLimitHint(cfg.MaxSteps))
		}
	}
	if code == exitOK && !res.OK() {
		fmt.Fprintf(stderr, "clonesetplan simulate: %d invariant %s violated:\n", len(res.Violations()), pluralWord(len(res.Violations()), "check", "checks"))
		for _, v := range res.Violations() {
			fmt.Fprintf(stderr, "  %s\n", v)
		}
		return exitInput
	}
	return code
}

// stepLimitHint says that a run stopped at its step limit, and how to raise
// the limit.
func stepLimitHint(maxSteps int) string {
	if maxSteps == 0 {
		maxSteps = sim.DefaultMaxSteps
	}
	hint := fmt.Sprintf("The run stopped at the step limit (%d rounds) before the CloneSet came to rest: raise it with --steps N "+
		"(or steps in the Simulation document), at most %d", maxSteps, manifest.MaxSimulationSteps)
	if maxSteps < sim.DefaultMaxSteps {
		hint += fmt.Sprintf("; --steps 0 runs up to %d rounds", sim.DefaultMaxSteps)
	}
	return hint + "."
}

// simulationDocument reads the Simulation document of the scenario files;
// "-" is standard input, already read into stdin.
func simulationDocument(files []string, stdin []byte) (*manifest.Simulation, error) {
	var found *manifest.Simulation
	for _, f := range files {
		data := stdin
		if f != "-" {
			var err error
			if data, err = os.ReadFile(f); err != nil {
				return nil, err
			}
		}
		doc, err := manifest.LoadSimulation(data, f)
		if err != nil {
			return nil, err
		}
		if doc != nil {
			if found != nil {
				return nil, errors.New("two Simulation documents, at most one is allowed: " + found.Source + " and " + doc.Source)
			}
			found = doc
		}
	}
	return found, nil
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
