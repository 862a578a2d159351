package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// commandHelp is the help of one command: the arguments of its synopsis line
// ("clonesetplan NAME ARGS") and what it does.
type commandHelp struct {
	name    string
	args    string
	summary string
}

// helps are the synopses of every command, in the order the help shows them.
// The README's synopsis ("The CLI") and the package doc show the same lines,
// and each command's -h its own line and exactly the flags it names
// (TestHelpMatchesREADME): a new command adds its line here, to the README
// and to the package doc.
var helps = []commandHelp{
	{"plan", "-f FILE [-f FILE ...] [-o text|json|yaml|requests|kubectl] [--server-version V] [--now TIME] [--cloneset NAME] [--skip-budget-rule] [--strict]",
		"print the decision of one reconcile of each CloneSet: actions, budget, status, requeue and notes; -o requests|kubectl: the API requests that carry it out"},
	{"rank", "-f FILE [-f FILE ...] [--for deletion|update] [-o text|json|yaml] [--now TIME] [--cloneset NAME] [--skip-budget-rule] [--strict]",
		"print the pods in the order they would be deleted (--for deletion) or updated (--for update), with the key that placed each"},
	{"simulate", "-f FILE [-f FILE ...] [--seed N] [--steps N] [--svg FILE] [-o text|json|yaml] [--now TIME] [--cloneset NAME] [--skip-budget-rule] [--strict]",
		"run the planner reconcile after reconcile against a simulated cluster, checking invariants"},
	{"admit", "-f FILE [--old FILE | --delete] [-o yaml|json] [--feature-gates G=true,...]",
		"run kruise's CloneSet admission webhooks on a CloneSet: print it as the mutating webhook leaves it, and the validating webhook's refusals (create, --old: update, --delete: deletion)"},
	{"convert", "-f FILE --to v1alpha1|v1beta1 [-o yaml|json]",
		"print a CloneSet in the other API version as kruise's conversion webhook returns it"},
	{"version", "[-o text|json]",
		"print the module version, VCS revision and Go version"},
}

// helpOf returns the help of the command name (a zero value for none).
func helpOf(name string) commandHelp {
	for _, h := range helps {
		if h.name == name {
			return h
		}
	}
	return commandHelp{name: name}
}

// synopsis is the command's synopsis line, "clonesetplan NAME ARGS".
func (h commandHelp) synopsis() string {
	return strings.TrimSpace("clonesetplan " + h.name + " " + h.args)
}

func usage(w io.Writer) {
	fmt.Fprint(w, "Usage:\n")
	for _, h := range helps {
		fmt.Fprintf(w, "  clonesetplan %-9s%s\n", h.name, h.args)
	}
	fmt.Fprint(w, `
Reads a scenario (a CloneSet with its Pods, PVCs, ControllerRevisions, Nodes
and an optional clonesetcore/v1alpha1 Scenario document, as YAML or JSON, as
kubectl get -o yaml prints them; -f - reads standard input) and explains what
the OpenKruise CloneSet controller would do. An input with several CloneSets
(a namespace dump) is handled CloneSet by CloneSet: text in sections, json and
yaml as one List document.

Commands:
`)
	for _, h := range helps {
		fmt.Fprintf(w, "  %-9s %s\n", h.name, h.summary)
	}
	fmt.Fprint(w, `
Run 'clonesetplan <command> -h' for the flags of one command.
Exit status: 0 success, 1 bad input (the message names the object and field), 2 bad usage.
`)
}

// commandUsage writes the help of one command: its synopsis, what it does
// and its flags.
func commandUsage(w io.Writer, name string, fs *flag.FlagSet) {
	h := helpOf(name)
	fmt.Fprintf(w, "Usage: %s\n\n", h.synopsis())
	if h.summary != "" {
		fmt.Fprintf(w, "%s%s.\n\n", strings.ToUpper(h.summary[:1]), h.summary[1:])
	}
	fmt.Fprint(w, "Flags:\n")
	fs.VisitAll(func(f *flag.Flag) {
		arg, text := flag.UnquoteUsage(f)
		head := "  --" + f.Name
		if len(f.Name) == 1 {
			head = "  -" + f.Name
		}
		if arg != "" {
			head += " " + arg
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			text += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "%s\n      %s\n", head, text)
	})
	fmt.Fprint(w, "  -h, --help\n      show this help\n")
}
