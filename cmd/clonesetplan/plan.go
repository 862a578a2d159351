package main

import (
	"fmt"
	"io"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/requests"
)

// runPlan prints the plan of one reconcile (docs/spec/scenario-format.md section 2) in
// opts.output format.
func runPlan(scn *model.Scenario, opts options, stdout, stderr io.Writer) int {
	plan, err := clonesetcore.Plan(scn)
	if err != nil {
		fmt.Fprintf(stderr, "clonesetplan plan: %v\n", err)
		return exitInput
	}
	switch opts.output {
	case "requests", "kubectl":
		reqs, err := requests.BuildWithOptions(scn, plan, requests.Options{ServerVersion: opts.serverVersion})
		if err != nil {
			fmt.Fprintf(stderr, "clonesetplan plan: %v\n", err)
			return exitInput
		}
		var b []byte
		if opts.output == "kubectl" {
			b, err = requests.Kubectl(reqs, plan)
		} else {
			b, err = requests.NewList(reqs).JSON()
		}
		if err != nil {
			fmt.Fprintf(stderr, "clonesetplan plan: %v\n", err)
			return exitInput
		}
		if _, err := stdout.Write(b); err != nil {
			return exitInput
		}
		return exitOK
	case "text":
		if err := plan.WriteText(stdout, scn); err != nil {
			fmt.Fprintf(stderr, "clonesetplan plan: %v\n", err)
			return exitInput
		}
		return exitOK
	default:
		return writeDoc(plan, opts.output, "plan", stdout, stderr)
	}
}

// writeDoc writes v as indented JSON, or as YAML with the same member order.
func writeDoc(v any, format, cmd string, stdout, stderr io.Writer) int {
	b, err := marshalIndent(v)
	if err == nil && format == "yaml" {
		b, err = manifest.MarshalYAML(b)
	}
	if err != nil {
		fmt.Fprintf(stderr, "clonesetplan %s: %v\n", cmd, err)
		return exitInput
	}
	if _, err := stdout.Write(b); err != nil {
		return exitInput
	}
	return exitOK
}
