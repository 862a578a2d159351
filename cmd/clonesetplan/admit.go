package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/clonecore/cloneset/admission"
	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
)

// admitOptions are the flags of admit and convert.
type admitOptions struct {
	file, old string
	delete    bool
	output    string // yaml or json
	gates     admission.Gates
	to        string // convert
}

// admitUsage is the help of admit.
const admitUsage = `Usage: clonesetplan admit -f FILE [--old FILE | --delete] [-o yaml|json] [--feature-gates G=true,...]

Runs kruise's CloneSet admission webhooks on a CloneSet of apps.kruise.io/v1alpha1
or v1beta1, as a create (or, with --old, an update of the stored object OLD; with
--delete, a deletion of FILE):

  - prints (standard output) the object as the mutating webhook leaves it: the
    CloneSet's defaults of its version and the pod template's and claim
    templates' defaults, as the typed API writes it (members in Go field order);
  - exits 1 when the validating webhook refuses it, with one line per refusal on
    standard error, each starting with the field path:
      spec.template.spec.volumes[2].name: Duplicate value: "data"

A member the CloneSet's types do not know (a misplaced one of the other API
version, say) is dropped, as the API server drops it, with a warning on standard
error as kubectl prints it: Warning: unknown field "spec.updateStrategy.partition".
An object without metadata.namespace is in namespace default (kubectl sends it
so). OLD is taken as stored: it gets the defaults of its create first. FILE may
also hold Pods: a v1alpha1 CloneSet's podsToDelete names are looked up among them
(on a cluster the webhook reads them from the API server). --delete prints
nothing; deletion protection (label policy.kruise.io/delete-protection) is on
only with --feature-gates ResourcesDeletionProtection=true, as in kruise.

Flags:
  -f FILE          the CloneSet (YAML or JSON; - reads standard input)
  --old FILE       the stored CloneSet: FILE updates it
  --delete         check deleting FILE instead
  -o FORMAT        yaml (default) or json
  --feature-gates  kruise's gates that change the webhooks, as kruise's flag takes
                   them: TemplateNoDefaults, DefaultHostNetworkHostPortsInPodTemplates,
                   ResourcesDeletionProtection (all false by default)

Exit status: 0 admitted, 1 refused or bad input, 2 bad usage.
`

// convertUsage is the help of convert.
const convertUsage = `Usage: clonesetplan convert -f FILE --to v1alpha1|v1beta1 [-o yaml|json]

Prints the CloneSet of FILE in the other API version as kruise's conversion
webhook returns it (v1alpha1 to the v1beta1 hub and back; the losses of the
conversion are upstream's: docs/spec/admission-and-conversion.md). The object is
converted as it is given; a stored object has its defaults, so to see what the
API server serves for a CloneSet you write, admit it first:

  clonesetplan admit -f cs.yaml | clonesetplan convert -f - --to v1beta1

Flags:
  -f FILE      the CloneSet (YAML or JSON; - reads standard input)
  --to V       v1alpha1 or v1beta1
  -o FORMAT    yaml (default) or json

Exit status: 0 success, 1 bad input, 2 bad usage.
`

// parseAdmitFlags parses the flags of admit or convert (name).
func parseAdmitFlags(name string, args []string, stdout, stderr io.Writer) (opts admitOptions, code int, ok bool) {
	fs := flag.NewFlagSet("clonesetplan "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&opts.file, "f", "", "the CloneSet")
	fs.StringVar(&opts.output, "o", "yaml", "yaml or json")
	help := admitUsage
	var gates string
	if name == "admit" {
		fs.StringVar(&opts.old, "old", "", "the stored CloneSet")
		fs.BoolVar(&opts.delete, "delete", false, "check deleting the CloneSet")
		fs.StringVar(&gates, "feature-gates", "", "kruise's feature gates")
	} else {
		fs.StringVar(&opts.to, "to", "", "v1alpha1 or v1beta1")
		help = convertUsage
	}
	bad := func(format string, a ...any) (admitOptions, int, bool) {
		fmt.Fprintf(stderr, "clonesetplan %s: %s\n\n%s", name, fmt.Sprintf(format, a...), help)
		return opts, exitUsage, false
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, help)
			return opts, exitOK, false
		}
		return bad("%v", err)
	}
	if fs.NArg() > 0 {
		return bad("unexpected argument %q (the CloneSet is given with -f)", fs.Arg(0))
	}
	if opts.file == "" {
		return bad("no CloneSet: give -f FILE (or -f - for standard input)")
	}
	if opts.output != "yaml" && opts.output != "json" {
		return bad("-o %q: want yaml or json", opts.output)
	}
	switch {
	case opts.delete && opts.old != "":
		return bad("--old and --delete: a request is an update or a deletion, not both")
	case opts.old != "" && opts.old == opts.file && opts.file == "-":
		return bad("-f - and --old -: standard input holds one of them")
	}
	if name == "convert" {
		if _, err := admission.ParseVersion(opts.to); err != nil || strings.Contains(opts.to, "/") {
			return bad("--to %q: want v1alpha1 or v1beta1", opts.to)
		}
	}
	var err error
	if opts.gates, err = admission.ParseGates(gates); err != nil {
		return bad("--feature-gates: %v", err)
	}
	return opts, exitOK, true
}

// admitRun is one run of admit or convert: its flags, its input, where it
// reports.
type admitRun struct {
	name   string
	opts   admitOptions
	in     *cloneSetFile
	stderr io.Writer
}

// startAdmitRun parses the flags of admit or convert and reads the input;
// nil when the run is over already, with its exit status.
func startAdmitRun(name string, args []string, stdin io.Reader, stdout, stderr io.Writer) (*admitRun, int) {
	opts, code, ok := parseAdmitFlags(name, args, stdout, stderr)
	if !ok {
		return nil, code
	}
	r := &admitRun{name: name, opts: opts, stderr: stderr}
	var err error
	if r.in, err = readCloneSetFile(opts.file, stdin); err != nil {
		return nil, r.fail(err)
	}
	for _, f := range r.in.obj.UnknownFields() { // as the API server warns, kubectl prints
		fmt.Fprintf(stderr, "Warning: unknown field %q\n", f)
	}
	return r, exitOK
}

// fail reports bad input.
func (r *admitRun) fail(err error) int {
	fmt.Fprintf(r.stderr, "clonesetplan %s: %v\n", r.name, err)
	return exitInput
}

// runAdmit is `clonesetplan admit`.
func runAdmit(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	r, code := startAdmitRun("admit", args, stdin, stdout, stderr)
	if r == nil {
		return code
	}
	gates := r.opts.gates
	if r.opts.delete {
		errs, err := admission.Validate(admission.Delete, nil, r.in.obj, admission.Options{Gates: gates})
		if err != nil {
			return r.fail(err)
		}
		return refusals(errs, stderr)
	}
	var old *admission.Object
	if r.opts.old != "" {
		stored, err := readCloneSetFile(r.opts.old, stdin)
		if err != nil {
			return r.fail(err)
		}
		if old, err = admission.Default(stored.obj, nil, gates); err != nil { // as its create left it
			return r.fail(err)
		}
	}
	out, err := admission.Default(r.in.obj, old, gates)
	if err != nil {
		return r.fail(err)
	}
	if err := writeObject(out, r.opts.output, stdout); err != nil {
		return r.fail(err)
	}
	op := admission.Create
	if old != nil {
		op = admission.Update
	}
	errs, err := admission.Validate(op, out, old, admission.Options{Gates: gates, FindPod: r.in.findPod})
	if err != nil {
		return r.fail(err)
	}
	return refusals(errs, stderr)
}

// refusals prints one line per refusal and gives the exit status.
func refusals(errs admission.FieldErrors, stderr io.Writer) int {
	for _, e := range errs {
		fmt.Fprintln(stderr, e.Error())
	}
	if len(errs) > 0 {
		return exitInput
	}
	return exitOK
}

// runConvert is `clonesetplan convert`.
func runConvert(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	r, code := startAdmitRun("convert", args, stdin, stdout, stderr)
	if r == nil {
		return code
	}
	to, _ := admission.ParseVersion(r.opts.to)
	out, err := admission.Convert(r.in.obj, to)
	if err != nil {
		return r.fail(err)
	}
	if err := writeObject(out, r.opts.output, stdout); err != nil {
		return r.fail(err)
	}
	return exitOK
}

// cloneSetFile is what admit and convert read from a file: one CloneSet and
// the Pods beside it.
type cloneSetFile struct {
	obj  *admission.Object
	pods []*model.Pod
}

// findPod looks a pod of the CloneSet's namespace up among the file's pods.
func (f *cloneSetFile) findPod(name string) *model.Pod {
	for _, p := range f.pods {
		if p.Name == name && (p.Namespace == "" || p.Namespace == f.obj.Namespace()) {
			return p
		}
	}
	return nil
}

// readCloneSetFile reads a file (or standard input for "-") holding exactly
// one CloneSet and any number of Pods. A CloneSet without a namespace is
// put in namespace default, as kubectl sends it.
func readCloneSetFile(path string, stdin io.Reader) (*cloneSetFile, error) {
	data, source, err := readInput(path, stdin)
	if err != nil {
		return nil, err
	}
	docs, err := manifest.DecodeDocuments(data, source)
	if err != nil {
		return nil, err
	}
	out := &cloneSetFile{}
	var seen []string
	for _, d := range docs {
		switch d.Kind {
		case "CloneSet":
			if out.obj != nil {
				return nil, fmt.Errorf("%s: a second CloneSet (the first is %s): give one CloneSet", d.Where, out.obj)
			}
			tree := withTypeMeta(d)
			if md, _ := tree["metadata"].(map[string]any); md == nil || md["namespace"] == nil {
				md = copyMap(md)
				md["namespace"] = "default"
				tree["metadata"] = md
			}
			obj, err := admission.FromTree(tree)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", d.Where, err)
			}
			out.obj = obj
		case "Pod":
			p, err := manifest.DecodePodTree(d.Tree, d.Where)
			if err != nil {
				return nil, err
			}
			out.pods = append(out.pods, p)
		default:
			seen = append(seen, fmt.Sprintf("%s (%s)", d.Kind, d.Where))
		}
	}
	if out.obj == nil {
		what := "the input is empty"
		if len(seen) > 0 {
			what = "it holds " + strings.Join(seen, ", ")
		}
		return nil, fmt.Errorf("%s: no CloneSet (apps.kruise.io/v1alpha1 or v1beta1): %s", source, what)
	}
	if len(seen) > 0 {
		return nil, fmt.Errorf("%s: %s: admit and convert read a CloneSet and its Pods only", source, strings.Join(seen, ", "))
	}
	return out, nil
}

// withTypeMeta is a document's tree with the apiVersion and kind a list
// gave its item.
func withTypeMeta(d manifest.Document) map[string]any {
	tree := copyMap(d.Tree)
	if tree["apiVersion"] == nil && tree["kind"] == nil {
		tree["apiVersion"], tree["kind"] = d.APIVersion, d.Kind
	}
	return tree
}

// copyMap is a shallow copy of m (an empty map for nil).
func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// readInput reads a file, or standard input for "-", within the loader's
// size limit; source names it in messages.
func readInput(path string, stdin io.Reader) (data []byte, source string, err error) {
	var opts manifest.Options
	if path == "-" {
		data, err = opts.ReadAll(stdin, "standard input")
		return data, "standard input", err
	}
	data, err = opts.ReadFile(path)
	return data, path, err
}

// writeObject writes an object's typed JSON, indented, or as YAML with the
// same member order.
func writeObject(obj *admission.Object, format string, stdout io.Writer) error {
	compact, err := obj.MarshalJSON()
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, compact, "", "  "); err != nil {
		return err
	}
	b.WriteByte('\n')
	out := b.Bytes()
	if format == "yaml" {
		if out, err = manifest.MarshalYAML(out); err != nil {
			return err
		}
	}
	_, err = stdout.Write(out)
	return err
}
