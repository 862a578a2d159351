// Command clonesetplan explains what the OpenKruise CloneSet controller would do
// with a scenario: a CloneSet, its pods, PVCs, revisions and nodes as
// `kubectl get -o yaml` prints them (format: docs/spec/scenario-format.md).
//
// Usage:
//
//	clonesetplan plan     -f FILE [-f FILE ...] [-o text|json|yaml|requests|kubectl] [--server-version V] [--now TIME] [--cloneset NAME] [--skip-budget-rule] [--strict]
//	clonesetplan rank     -f FILE [-f FILE ...] [--for deletion|update] [-o text|json|yaml] [--now TIME] [--cloneset NAME] [--skip-budget-rule] [--strict]
//	clonesetplan simulate -f FILE [-f FILE ...] [--seed N] [--steps N] [--svg FILE] [-o text|json|yaml] [--now TIME] [--cloneset NAME] [--skip-budget-rule] [--strict]
//	clonesetplan admit    -f FILE [--old FILE | --delete] [-o yaml|json] [--feature-gates G=true,...]
//	clonesetplan convert  -f FILE --to v1alpha1|v1beta1 [-o yaml|json]
//	clonesetplan version  [-o text|json]
//
// Each command's -h lists its flags. A field an object's API type does not
// have is a warning on standard error (--strict: an error); the clock is the
// Scenario document's now, else the newest timestamp in the input (--now
// sets it).
//
// An input that holds several CloneSets (a namespace dump) is planned for each
// of them, in namespace/name order: -o text prints one section per CloneSet,
// -o json and -o yaml one list document (PlanList, RankingList,
// SimulationList; docs/plan-format.md); --cloneset NAME or NAMESPACE/NAME
// selects one.
//
// Exit status: 0 success, 1 bad input (the message is on standard error),
// 2 bad usage.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/requests"
)

// Exit codes.
const (
	exitOK    = 0
	exitInput = 1
	exitUsage = 2
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// options are the parsed flags of one subcommand.
type options struct {
	files  []string
	output string // json, yaml or text
	// skipBudgetRule accepts CloneSets that break only the webhook rule
	// "maxUnavailable and maxSurge should not both be less than 1".
	skipBudgetRule bool
	// strict refuses an input with a field its object's API type does not
	// have; by default such a field is a warning on standard error.
	strict bool
	// cloneSet selects one CloneSet of the input (NAME or NAMESPACE/NAME);
	// empty: every CloneSet.
	cloneSet string
	// serverVersion is the Kubernetes version of the API server the
	// requests of plan -o requests|kubectl are for (requests.Options).
	serverVersion string
	// now is the clock of --now (zero: the Scenario document's now, else the
	// newest timestamp of the objects).
	now time.Time
	// stdin holds standard input when a -f is "-".
	stdin []byte
	// rank
	forWhat string // deletion or update
	// simulate
	seed  int64
	steps int
	svg   string
}

// fileList is the repeatable -f flag.
type fileList []string

// String joins the files with commas (flag.Value).
func (f *fileList) String() string { return strings.Join(*f, ",") }

// Set adds one file (flag.Value).
func (f *fileList) Set(s string) error {
	if s == "" {
		return errors.New("empty file name")
	}
	*f = append(*f, s)
	return nil
}

// command is one command that reads a scenario: run does it for one
// CloneSet (runEach calls it for each CloneSet of the input). Its synopsis
// and summary are in helps.
type command struct {
	name string
	run  func(scn *model.Scenario, opts options, stdout, stderr io.Writer) int
}

var commands = []command{
	{"plan", runPlan},
	{"rank", runRank},
	{"simulate", runSimulate},
}

// run is the whole program: args without the program name.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "--help", "-help", "help":
		usage(stdout)
		return exitOK
	case "version":
		return runVersion(args[1:], stdout, stderr)
	case "admit":
		return runAdmit(args[1:], stdin, stdout, stderr)
	case "convert":
		return runConvert(args[1:], stdin, stdout, stderr)
	}
	var cmd *command
	for i := range commands {
		if commands[i].name == args[0] {
			cmd = &commands[i]
		}
	}
	if cmd == nil {
		fmt.Fprintf(stderr, "clonesetplan: unknown command %q\n\n", args[0])
		usage(stderr)
		return exitUsage
	}

	opts, code, ok := parseFlags(cmd.name, args[1:], stdout, stderr)
	if !ok {
		return code
	}
	// Standard input is read once (up to the loader's size limit): the
	// scenario loader and the simulate command's Simulation document both
	// read these bytes.
	load := manifest.Options{SkipBudgetRule: opts.skipBudgetRule, Now: opts.now, StrictFields: opts.strict,
		Warn: func(w manifest.Warning) { fmt.Fprintf(stderr, "clonesetplan %s: warning: %s\n", cmd.name, w) }}
	for _, f := range opts.files {
		if f == "-" {
			data, err := load.ReadAll(stdin, "standard input")
			if err != nil {
				fmt.Fprintf(stderr, "clonesetplan %s: %v\n", cmd.name, err)
				return exitInput
			}
			opts.stdin = data
			break
		}
	}
	scns, err := load.LoadAllFiles(opts.files, bytes.NewReader(opts.stdin))
	if err == nil {
		scns, err = selectCloneSet(scns, opts.cloneSet)
	}
	if err != nil {
		fmt.Fprintf(stderr, "clonesetplan %s: %v\n", cmd.name, err)
		return exitInput
	}
	return runEach(cmd, scns, opts, stdout, stderr)
}

// parseFlags parses the flags of one command. When ok is false the program
// ends with code (help printed: 0; bad usage: 2).
func parseFlags(name string, args []string, stdout, stderr io.Writer) (opts options, code int, ok bool) {
	fs := flag.NewFlagSet("clonesetplan "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var files fileList
	fs.Var(&files, "f", "scenario `FILE` (YAML or JSON); repeatable, the files form one stream; - reads standard input")
	formats := "text, json or yaml"
	if name == "plan" {
		formats = "text, json, yaml, requests (the API requests that carry the plan out, a RequestList) or kubectl (the same as kubectl commands, a dry run for reading)"
	}
	fs.StringVar(&opts.output, "o", "text", "output `FORMAT`: "+formats)
	fs.BoolVar(&opts.skipBudgetRule, "skip-budget-rule", false, "accept a CloneSet whose maxUnavailable and maxSurge are both below 1 (an object that bypassed admission); refused by default")
	fs.BoolVar(&opts.strict, "strict", false, "refuse an input with a field its object's API type does not have (by default: a warning on standard error), as kubectl --validate=strict")
	fs.StringVar(&opts.cloneSet, "cloneset", "", "only this CloneSet of the input: `NAME` or NAMESPACE/NAME (default: every CloneSet: text in sections, json and yaml as one List)")
	var now string
	fs.StringVar(&now, "now", "", "the planner's clock, a `TIME` in RFC 3339 (2026-01-01T00:00:30Z); default: the Scenario document's now, else the newest timestamp in the input")
	switch name {
	case "plan":
		fs.StringVar(&opts.serverVersion, "server-version", "", "the Kubernetes version `V` of the API server the requests of -o requests|kubectl are for, as its /version reports it (v1.31.4) or MAJOR.MINOR; "+
			"from 1.32 (and by default) the resource changes of an in-place update go to the pods/resize subresource, before 1.32 in the pod patch")
	case "rank":
		fs.StringVar(&opts.forWhat, "for", "deletion", "rank for `deletion` or update")
	case "simulate":
		fs.Int64Var(&opts.seed, "seed", defaultSeed, "random seed `N` of the simulated cluster (a value other than the default overrides the Simulation document's seed)")
		fs.IntVar(&opts.steps, "steps", defaultSteps, "most reconciles `N` to run; 0: the simulator's own limit (a value other than the default overrides the Simulation document's steps)")
		fs.StringVar(&opts.svg, "svg", "", "also draw the run as an SVG picture into `FILE`")
	}
	bad := func(format string, a ...any) (options, int, bool) {
		fmt.Fprintf(stderr, "clonesetplan %s: %s\n\n", name, fmt.Sprintf(format, a...))
		commandUsage(stderr, name, fs)
		return opts, exitUsage, false
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			commandUsage(stdout, name, fs)
			return opts, exitOK, false
		}
		return bad("%v", err)
	}
	if fs.NArg() > 0 {
		return bad("unexpected argument %q (scenario files are given with -f)", fs.Arg(0))
	}
	if now != "" {
		t, err := time.Parse(time.RFC3339Nano, now)
		if err != nil {
			return bad("--now %q: want an RFC 3339 time such as 2026-01-01T00:00:30Z", now)
		}
		opts.now = t
	}
	opts.files = files
	if len(opts.files) == 0 {
		return bad("no scenario: give -f FILE (or -f - for standard input)")
	}
	switch opts.output {
	case "json", "yaml", "text":
	case "requests", "kubectl":
		if name != "plan" {
			return bad("-o %q: only plan prints requests (want json, yaml or text)", opts.output)
		}
	default:
		if name == "plan" {
			return bad("-o %q: want json, yaml, text, requests or kubectl", opts.output)
		}
		return bad("-o %q: want json, yaml or text", opts.output)
	}
	switch name {
	case "plan":
		if err := (requests.Options{ServerVersion: opts.serverVersion}).Validate(); err != nil {
			return bad("--server-version %q: want a Kubernetes version such as v1.32.0 or 1.31", opts.serverVersion)
		}
	case "rank":
		if opts.forWhat != "deletion" && opts.forWhat != "update" {
			return bad("--for %q: want deletion or update", opts.forWhat)
		}
	case "simulate":
		if opts.steps < 0 {
			return bad("--steps %d: must not be negative", opts.steps)
		}
	}
	return opts, exitOK, true
}
