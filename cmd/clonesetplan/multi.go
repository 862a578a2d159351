package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/requests"
)

// An input may hold many CloneSets (a namespace dump). Every command runs on
// each of them, in namespace/name order, through its usual per-scenario
// function (command.run) writing into a buffer; a joiner, chosen by the -o
// format, then joins the outputs. With one CloneSet in the input (or one
// selected with --cloneset) the command runs alone, so its output is exactly
// that of a one-CloneSet input.

// listAPIVersion is the apiVersion of the list documents (PlanList, ...).
const listAPIVersion = "clonesetcore/v1alpha1"

// listKinds are the kinds of the list documents of each command's JSON and
// YAML output for many CloneSets (docs/plan-format.md).
var listKinds = map[string]string{
	"plan":     "PlanList",
	"rank":     "RankingList",
	"simulate": "SimulationList",
}

// itemOutput is what one command printed for one CloneSet.
type itemOutput struct {
	scn    *model.Scenario
	stdout []byte
	code   int
}

// joiner joins the outputs of one command for many CloneSets. Each CloneSet's
// command runs with -o itemFormat ("" keeps the user's format); join writes
// the whole output.
type joiner struct {
	itemFormat string
	join       func(cmd string, items []itemOutput, w io.Writer) error
}

// joiners are the joiners of the -o formats; any other format (text) is joined
// as sections, one per CloneSet under a header line. A new per-scenario
// format plugs in here: a format whose output is one JSON document per
// CloneSet can use listJoiner; one that is a list already can concatenate
// the items of its outputs.
var joiners = map[string]joiner{
	"json":     {"json", listJoiner(false)},
	"yaml":     {"json", listJoiner(true)},
	"requests": {"requests", joinRequests},
	"kubectl":  {"kubectl", joinKubectl},
}

// joinRequests concatenates the requests of every CloneSet into one
// RequestList (each request names its namespace and object; the action
// indexes refer to the plan of the request's own CloneSet).
func joinRequests(_ string, items []itemOutput, w io.Writer) error {
	var all []requests.Request
	for _, it := range items {
		var l requests.List
		if err := json.Unmarshal(it.stdout, &l); err != nil {
			return fmt.Errorf("CloneSet %s: the output is not a RequestList: %v", cloneSetName(it.scn), err)
		}
		all = append(all, l.Items...)
	}
	b, err := requests.NewList(all).JSON()
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// joinKubectl concatenates the scripts of every CloneSet under a comment
// line naming it; each script stops itself first (a dry run for reading).
func joinKubectl(_ string, items []itemOutput, w io.Writer) error {
	for i, it := range items {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if _, err := fmt.Fprintf(w, "# ==> CloneSet %s (%d of %d) <==\n", cloneSetName(it.scn), i+1, len(items)); err != nil {
			return err
		}
		if _, err := w.Write(it.stdout); err != nil {
			return err
		}
	}
	return nil
}

// cloneSetName is "namespace/name".
func cloneSetName(s *model.Scenario) string {
	return s.CloneSet.Namespace + "/" + s.CloneSet.Name
}

// selectCloneSet keeps the CloneSet named by --cloneset (NAME, or
// NAMESPACE/NAME); every scenario when sel is empty.
func selectCloneSet(scns []*model.Scenario, sel string) ([]*model.Scenario, error) {
	if sel == "" {
		return scns, nil
	}
	var found, names []string
	var picked []*model.Scenario
	for _, s := range scns {
		names = append(names, cloneSetName(s))
		if sel == cloneSetName(s) || (!strings.Contains(sel, "/") && sel == s.CloneSet.Name) {
			found = append(found, cloneSetName(s))
			picked = append(picked, s)
		}
	}
	switch len(picked) {
	case 1:
		return picked, nil
	case 0:
		return nil, fmt.Errorf("--cloneset %s: no such CloneSet in the input (it holds %s)", sel, strings.Join(names, ", "))
	default:
		return nil, fmt.Errorf("--cloneset %s: %d CloneSets of that name (%s): give NAMESPACE/NAME", sel, len(picked), strings.Join(found, ", "))
	}
}

// runEach runs cmd on every scenario: alone when there is one, else once per
// CloneSet with the outputs joined (joiners). The exit status is the worst of
// the CloneSets'; errors name the CloneSet. A list document is written only
// when every CloneSet has its document.
func runEach(cmd *command, scns []*model.Scenario, opts options, stdout, stderr io.Writer) int {
	if len(scns) == 1 {
		return cmd.run(scns[0], opts, stdout, stderr)
	}
	if opts.svg != "" {
		fmt.Fprintf(stderr, "clonesetplan %s: --svg draws one CloneSet and the input holds %d: select one with --cloneset NAME\n", cmd.name, len(scns))
		return exitUsage
	}
	j, ok := joiners[opts.output]
	if !ok {
		j = joiner{"", sectionJoin}
	}
	itemOpts := opts
	if j.itemFormat != "" {
		itemOpts.output = j.itemFormat
	}
	prefix := "clonesetplan " + cmd.name + ": "
	items := make([]itemOutput, len(scns))
	code := exitOK
	complete := true
	for i, s := range scns {
		var out, errs bytes.Buffer
		items[i] = itemOutput{scn: s, code: cmd.run(s, itemOpts, &out, &errs)}
		items[i].stdout = out.Bytes()
		if errs.Len() > 0 {
			msg := strings.ReplaceAll(errs.String(), prefix, prefix+"CloneSet "+cloneSetName(s)+": ")
			_, _ = io.WriteString(stderr, msg)
		}
		code = max(code, items[i].code)
		if out.Len() == 0 {
			complete = false
		}
	}
	if !complete && j.itemFormat != "" {
		return code
	}
	if err := j.join(cmd.name, items, stdout); err != nil {
		fmt.Fprintf(stderr, "%s%v\n", prefix, err)
		return max(code, exitInput)
	}
	return code
}

// sectionJoin prints each CloneSet's output under a header line, a blank line
// between sections.
func sectionJoin(_ string, items []itemOutput, w io.Writer) error {
	var b bytes.Buffer
	for i, it := range items {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "==> CloneSet %s (%d of %d) <==\n", cloneSetName(it.scn), i+1, len(items))
		if len(it.stdout) == 0 {
			b.WriteString("(no output: see the error on standard error)\n")
			continue
		}
		b.Write(it.stdout)
		if it.stdout[len(it.stdout)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// listJoiner returns the join of JSON documents into one list document,
// {"apiVersion", "kind": "<Kind>List", "items": [...]}, written as indented
// JSON, or as YAML with the same member order. An item that does not name its
// CloneSet (a ranking) gets a first member "cloneSet": {"namespace", "name"}.
func listJoiner(asYAML bool) func(cmd string, items []itemOutput, w io.Writer) error {
	return func(cmd string, items []itemOutput, w io.Writer) error {
		kind := listKinds[cmd]
		if kind == "" {
			kind = "List"
		}
		var raw bytes.Buffer
		fmt.Fprintf(&raw, `{"apiVersion":%q,"kind":%q,"items":[`, listAPIVersion, kind)
		for i, it := range items {
			if i > 0 {
				raw.WriteByte(',')
			}
			item, err := namedItem(it)
			if err != nil {
				return err
			}
			raw.Write(item)
		}
		raw.WriteString("]}")
		var out bytes.Buffer
		if err := json.Indent(&out, raw.Bytes(), "", "  "); err != nil {
			return err
		}
		out.WriteByte('\n')
		b := out.Bytes()
		if asYAML {
			var err error
			if b, err = manifest.MarshalYAML(b); err != nil {
				return err
			}
		}
		_, err := w.Write(b)
		return err
	}
}

// namedItem is the JSON object of one CloneSet's output, with a cloneSet
// member added first when it has none.
func namedItem(it itemOutput) ([]byte, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(it.stdout, &members); err != nil {
		return nil, fmt.Errorf("CloneSet %s: the output is not a JSON object: %v", cloneSetName(it.scn), err)
	}
	if _, ok := members["cloneSet"]; ok {
		return it.stdout, nil
	}
	name, err := json.Marshal(struct {
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
	}{it.scn.CloneSet.Namespace, it.scn.CloneSet.Name})
	if err != nil {
		return nil, err
	}
	rest := bytes.TrimSpace(it.stdout)[1:] // after "{"
	item := append([]byte(`{"cloneSet":`), name...)
	if len(bytes.TrimSpace(rest)) > 1 { // not "}"
		item = append(item, ',')
	}
	return append(item, rest...), nil
}
