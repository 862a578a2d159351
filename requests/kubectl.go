package requests

import (
	"fmt"
	"strings"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/model"
)

// kubectlResource is the name kubectl knows each resource by.
var kubectlResource = map[Resource]string{
	ResourcePods:                   "pod",
	ResourcePersistentVolumeClaims: "pvc",
	ResourceControllerRevisions:    "controllerrevision",
	ResourceCloneSets:              "clonesets.apps.kruise.io",
	ResourceImagePullJobs:          "imagepulljobs.apps.kruise.io",
}

// kubectlPatchType is kubectl patch's --type for each patch type.
var kubectlPatchType = map[PatchType]string{
	PatchMerge:          "merge",
	PatchStrategicMerge: "strategic",
	PatchJSON:           "json",
}

// Kubectl renders requests as the kubectl commands a person could run to act
// as the controller by hand: creates as `kubectl create -f -` with the object
// in a heredoc, patches as `kubectl patch --type merge|strategic|json` (with
// `--subresource status` for status writes), deletes as `kubectl delete`.
// The script is a dry run for reading: it starts with a line that stops it,
// and says so. kubectl cannot express preconditions, so each command that has
// some is preceded by a comment naming them; every command is preceded by
// the plan action it carries out.
func Kubectl(reqs []Request, plan *clonesetcore.Result) ([]byte, error) {
	var b strings.Builder
	name := ""
	if plan != nil {
		name = plan.CloneSet.Namespace + "/" + plan.CloneSet.Name
	}
	fmt.Fprintf(&b, "#!/bin/sh\n# The API requests of one reconcile of CloneSet %s, as kubectl commands.\n", name)
	b.WriteString("# DRY RUN FOR READING: this is what the controller would send. Running it acts as\n")
	b.WriteString("# the controller; kubectl cannot check the preconditions, which are listed as comments.\n")
	b.WriteString("echo 'clonesetplan: a dry run for reading; remove this line to run it' >&2; exit 1\n")
	if len(reqs) == 0 {
		b.WriteString("\n# nothing to send\n")
	}
	for _, r := range reqs {
		b.WriteString("\n")
		b.WriteString("# " + describe(r, plan) + "\n")
		if p := r.Preconditions; p != nil {
			var parts []string
			if p.UID != "" {
				parts = append(parts, "uid "+p.UID)
			}
			if p.ResourceVersion != "" {
				parts = append(parts, "resourceVersion "+p.ResourceVersion)
			}
			b.WriteString("# precondition: " + strings.Join(parts, ", ") + "\n")
		}
		if r.Tolerated {
			b.WriteString("# upstream logs a failure of this request and goes on\n")
		}
		res, ok := kubectlResource[r.Resource]
		if !ok {
			return nil, fmt.Errorf("requests: unknown resource %q", r.Resource)
		}
		switch r.Verb {
		case VerbCreate:
			fmt.Fprintf(&b, "kubectl create -n %s -f - <<'CLONESETPLAN_EOF'\n%s\nCLONESETPLAN_EOF\n", shellQuote(r.Namespace), r.Object)
		case VerbPatch:
			t, ok := kubectlPatchType[r.PatchType]
			if !ok {
				return nil, fmt.Errorf("requests: unknown patch type %q", r.PatchType)
			}
			sub := ""
			if r.Subresource != "" {
				sub = " --subresource " + shellQuote(r.Subresource)
			}
			fmt.Fprintf(&b, "kubectl patch %s %s -n %s%s --type %s -p %s\n", res, shellQuote(r.Name), shellQuote(r.Namespace), sub, t, shellQuote(string(r.Patch)))
		case VerbDelete:
			fmt.Fprintf(&b, "kubectl delete %s %s -n %s\n", res, shellQuote(r.Name), shellQuote(r.Namespace))
		default:
			return nil, fmt.Errorf("requests: unknown verb %q", r.Verb)
		}
	}
	return []byte(b.String()), nil
}

// describe names the plan action a request carries out.
func describe(r Request, plan *clonesetcore.Result) string {
	what := fmt.Sprintf("%s %s %s", r.Verb, r.Resource, r.Name)
	if r.Subresource != "" {
		what = fmt.Sprintf("%s %s/%s %s", r.Verb, r.Resource, r.Subresource, r.Name)
	}
	if r.Action < 0 || plan == nil || r.Action >= len(plan.Actions) {
		if r.Resource == ResourceCloneSets && r.Subresource == SubresourceStatus {
			return what + ": the status of this round"
		}
		return what
	}
	a := plan.Actions[r.Action]
	s := fmt.Sprintf("%s: action %d, %s", what, r.Action, a.Type)
	if a.Type == model.ActionCreatePod {
		s += fmt.Sprintf(" (batch %d)", a.Batch)
	}
	return s
}

// shellQuote quotes s for a POSIX shell: single quotes, with each single
// quote written as '\”.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
