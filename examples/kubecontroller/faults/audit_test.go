package faults

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller/controlplane"
)

// writeReport is what the audit log shows of the controller's writes in a
// namespace.
type writeReport struct {
	done    map[string]int // successful writes since the start, by "verb resource[/subresource]"
	refused map[string]int // refused ones since the start, by "verb resource[/subresource] code"
	twice   []string       // objects created or deleted twice
}

// writeVerbs are the verbs of writes (the audit log also has the
// controller processes' reads).
var writeVerbs = map[string]bool{"create": true, "update": true, "patch": true, "delete": true, "deletecollection": true}

// The resources whose objects must be created and deleted once.
var onceResources = map[string]bool{"pods": true, "persistentvolumeclaims": true, "controllerrevisions": true}

// auditWrites reads the audit log and reports the writes of the controller
// processes (every service account of the test's namespace) in ns
// (counted from start): an object (by resource and name) created again
// while it exists, or deleted again after a successful delete and before a
// new create, was written twice (whenever it happened). It waits for the log to stop growing first (the API server writes
// an event when a request completes).
func (e *env) auditWrites(start time.Time) writeReport {
	e.t.Helper()
	var events []controlplane.AuditEvent
	for prev := -1; ; prev = len(events) {
		var err error
		if events, err = e.cp.AuditEvents(); err != nil {
			e.t.Fatal(err)
		}
		if len(events) == prev {
			break
		}
		time.Sleep(300 * time.Millisecond)
	}
	r := writeReport{done: map[string]int{}, refused: map[string]int{}}
	type life struct{ live, deleted bool }
	objects := map[string]*life{}
	for _, ev := range events {
		ref := ev.ObjectRef
		if ref == nil || ref.Namespace != e.ns || !e.isController(ev.User) || !writeVerbs[ev.Verb] {
			continue
		}
		what := ev.Verb + " " + ref.Resource
		if ref.Subresource != "" {
			what += "/" + ref.Subresource
		}
		counted := !ev.RequestReceivedTimestamp.Before(start)
		if code := ev.Code(); code < 200 || code > 299 {
			if counted {
				r.refused[fmt.Sprintf("%s %d", what, code)]++
			}
			continue
		}
		if counted {
			r.done[what]++
		}
		if !onceResources[ref.Resource] || ref.Subresource != "" {
			continue
		}
		key := ref.Resource + " " + ref.Name
		o := objects[key]
		if o == nil {
			o = &life{}
			objects[key] = o
		}
		switch ev.Verb {
		case "create":
			if o.live {
				r.twice = append(r.twice, "created twice: "+key)
			}
			o.live, o.deleted = true, false
		case "delete":
			if o.deleted {
				r.twice = append(r.twice, "deleted twice: "+key)
			}
			o.live, o.deleted = false, true
		}
	}
	return r
}

// String is the report in one line: the successful writes, then the
// refused ones.
func (r writeReport) String() string {
	list := func(m map[string]int) string {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(m)) {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
		if len(parts) == 0 {
			return "none"
		}
		return strings.Join(parts, ", ")
	}
	return fmt.Sprintf("written: %s; refused: %s", list(r.done), list(r.refused))
}

// refusedWith counts the refused writes answered with code.
func (r writeReport) refusedWith(code int) int {
	n := 0
	for k, v := range r.refused {
		if strings.HasSuffix(k, fmt.Sprintf(" %d", code)) {
			n += v
		}
	}
	return n
}

// auditEventsOf returns the audit events of the controller processes'
// writes in ns to the
// CloneSet named cloneSet or to objects named after it (its pods, claims
// and revisions: "<cloneSet>-...").
func (e *env) auditEventsOf(cloneSet string) []controlplane.AuditEvent {
	e.t.Helper()
	events, err := e.cp.AuditEvents()
	if err != nil {
		e.t.Fatal(err)
	}
	var out []controlplane.AuditEvent
	for _, ev := range events {
		ref := ev.ObjectRef
		if ref != nil && ref.Namespace == e.ns && e.isController(ev.User) && writeVerbs[ev.Verb] && (ref.Name == cloneSet || strings.HasPrefix(ref.Name, cloneSet+"-")) {
			out = append(out, ev)
		}
	}
	return out
}
