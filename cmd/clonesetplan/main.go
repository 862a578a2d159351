// Command clonesetplan explains what the OpenKruise CloneSet controller would do
// with a scenario: a CloneSet, its pods, PVCs, revisions and nodes as
// `kubectl get -o yaml` prints them (format: docs/spec/scenario-format.md).
//
// Usage:
//
//	clonesetplan plan     -f FILE [-f FILE ...] [-o json|yaml|text|requests|kubectl] [--server-version V] [--skip-budget-rule] [--cloneset NAME]
//	clonesetplan rank     -f FILE [--for deletion|update] [-o json|yaml|text] [--skip-budget-rule] [--cloneset NAME]
//	clonesetplan simulate -f FILE [--seed N] [--steps N] [--svg FILE] [-o json|yaml|text] [--skip-budget-rule] [--cloneset NAME]
//	clonesetplan admit    -f FILE [--old FILE | --delete] [-o yaml|json] [--feature-gates G=true,...]
//	clonesetplan convert  -f FILE --to v1alpha1|v1beta1 [-o yaml|json]
//	clonesetplan version  [-o text|json]
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
	strict         bool // the default; accepted for compatibility
	// cloneSet selects one CloneSet of the input (NAME or NAMESPACE/NAME);
	// empty: every CloneSet.
	cloneSet string
	// serverVersion is the Kubernetes version of the API server the
	// requests of plan -o requests|kubectl are for (requests.Options).
	serverVersion string
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

type command struct {
	name    string
	summary string
	run     func(scn *model.Scenario, opts options, stdout, stderr io.Writer) int
}

var commands = []command{
	{"plan", "print the decision of one reconcile of the CloneSet", runPlan},
	{"rank", "print the pods in the order they would be deleted (--for deletion) or updated (--for update)", runRank},
	{"simulate", "run several reconciles in a row", runSimulate},
}

func usage(w io.Writer) {
	fmt.Fprint(w, `Usage: clonesetplan <command> -f FILE [flags]

Reads a scenario (a CloneSet with its Pods, PVCs, ControllerRevisions, Nodes
and an optional clonesetcore/v1alpha1 Scenario document, as YAML or JSON) and
explains what the OpenKruise CloneSet controller would do. An input with
several CloneSets (a namespace dump) is handled CloneSet by CloneSet.

Commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "  %-9s %s\n", "admit", "run kruise's admission webhooks on a CloneSet: defaults, verdict (admit -h)")
	fmt.Fprintf(w, "  %-9s %s\n", "convert", "convert a CloneSet between apps.kruise.io/v1alpha1 and v1beta1 (convert -h)")
	fmt.Fprintf(w, "  %-9s %s\n", "version", "print the module version, VCS revision and Go version")
	fmt.Fprint(w, `
Flags (all commands):
  -f FILE        scenario file; repeatable, the files form one stream; - reads standard input
  -o FORMAT      output format: json, yaml or text (default text); plan also
                 prints the API requests that carry the plan out: requests (a
                 RequestList document) or kubectl (the same as kubectl commands)
  --cloneset NAME
                 only this CloneSet of the input (NAME or NAMESPACE/NAME); by default
                 every CloneSet is handled: text in sections, json/yaml as a List
  --skip-budget-rule
                 accept a CloneSet whose maxUnavailable and maxSurge are both below 1
                 (an object that bypassed admission); rejected by default
  -h, --help     show help

Flags of plan:
  --server-version V
                 the Kubernetes version of the API server the requests of -o requests
                 and -o kubectl are for, as its /version reports it (v1.31.4) or as
                 MAJOR.MINOR; from 1.32 (and by default) resource changes of an in-place
                 update go to the pods/resize subresource, before 1.32 in the pod patch

Flags of rank:
  --for WHAT     deletion (default) or update

Flags of simulate:
  --seed N       random seed of the simulation (default 1)
  --steps N      number of reconciles (default 10)
  --svg FILE     also write an SVG picture of the run to FILE

Exit status: 0 success, 1 bad input, 2 bad usage.
Run 'clonesetplan <command> -h' for the flags of one command.
`)
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
	load := manifest.Options{SkipBudgetRule: opts.skipBudgetRule}
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
	fs.Var(&files, "f", "scenario file (repeatable; - for standard input)")
	fs.StringVar(&opts.output, "o", "text", "output format: json, yaml or text")
	fs.BoolVar(&opts.skipBudgetRule, "skip-budget-rule", false, "accept CloneSets whose maxUnavailable and maxSurge are both below 1 (objects that bypassed admission)")
	fs.BoolVar(&opts.strict, "strict", false, "the default (kept for compatibility): every webhook rule is enforced")
	fs.StringVar(&opts.cloneSet, "cloneset", "", "only this CloneSet of the input: NAME or NAMESPACE/NAME (default: every CloneSet)")
	switch name {
	case "plan":
		fs.StringVar(&opts.serverVersion, "server-version", "", "Kubernetes version of the API server the requests of -o requests|kubectl are for, as in v1.31.4 (default: the newest behavior, 1.32+: resource changes through pods/resize)")
	case "rank":
		fs.StringVar(&opts.forWhat, "for", "deletion", "deletion or update")
	case "simulate":
		fs.Int64Var(&opts.seed, "seed", 1, "random seed of the simulation")
		fs.IntVar(&opts.steps, "steps", 10, "number of reconciles")
		fs.StringVar(&opts.svg, "svg", "", "also write an SVG picture of the run to this file")
	}
	commandUsage := func(w io.Writer) {
		fmt.Fprintf(w, "Usage: clonesetplan %s -f FILE [flags]\n\nFlags:\n", name)
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	bad := func(format string, a ...any) (options, int, bool) {
		fmt.Fprintf(stderr, "clonesetplan %s: %s\n\n", name, fmt.Sprintf(format, a...))
		commandUsage(stderr)
		return opts, exitUsage, false
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			commandUsage(stdout)
			return opts, exitOK, false
		}
		return bad("%v", err)
	}
	if fs.NArg() > 0 {
		return bad("unexpected argument %q (scenario files are given with -f)", fs.Arg(0))
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
