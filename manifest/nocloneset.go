package manifest

import (
	"errors"
	"fmt"
	"strings"

	"github.com/clonecore/cloneset/model"
)

// kindCounts counts the objects of an input by kind, in the order the kinds
// first appear.
type kindCounts struct {
	kinds []string
	count map[string]int
}

// add counts one object of kind.
func (k *kindCounts) add(kind string) {
	if k.count == nil {
		k.count = map[string]int{}
	}
	if k.count[kind] == 0 {
		k.kinds = append(k.kinds, kind)
	}
	k.count[kind]++
}

// String lists the kinds: "Cloneset (1), Pod (3)".
func (k *kindCounts) String() string {
	parts := make([]string, len(k.kinds))
	for i, kind := range k.kinds {
		parts[i] = fmt.Sprintf("%s (%d)", kind, k.count[kind])
	}
	return strings.Join(parts, ", ")
}

// noCloneSet is the error of an input without a CloneSet: it names the
// inputs, and says whether they were empty or which kinds they held, with a
// hint for a kind that is CloneSet but for its case, and the CloneSets of an
// API version the loader does not read.
func (l *loader) noCloneSet() error {
	inputs := l.sourceList()
	if inputs == "" {
		inputs = "the input"
	}
	want := fmt.Sprintf("want a CloneSet (apiVersion %s or %s, kind CloneSet)", model.APIVersionV1alpha1, model.APIVersionV1beta1)
	var msg string
	if len(l.seen.kinds) == 0 {
		msg = fmt.Sprintf("%s: no CloneSet: the input is empty (no Kubernetes object in it); %s", inputs, want)
	} else {
		msg = fmt.Sprintf("%s: no CloneSet: the input holds %s; %s", inputs, l.seen.String(), want)
		for _, kind := range l.seen.kinds {
			if kind != kindCloneSet && strings.EqualFold(kind, kindCloneSet) {
				msg += fmt.Sprintf(" (kind %q is not %q: kinds are case-sensitive)", kind, kindCloneSet)
			}
		}
	}
	if len(l.ignored) > 0 {
		msg += "; ignored: " + strings.Join(l.ignored, "; ")
	}
	return errors.New(msg)
}
