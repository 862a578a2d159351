package inplace

import "github.com/clonecore/cloneset/model"

// RevisionIndex answers OldRevision, FindRevision, Calculate and
// Spec.Summary for the many pods of one round over the same revisions: the
// revisions are sorted once, and each answer is computed once per revision
// label, revision name or pair of revisions, then reused. The answers are
// exactly those of the plain functions on the revisions given to
// NewRevisionIndex, which must not change while the index is in use. Specs
// returned for the same pair share their maps: treat them as read-only.
type RevisionIndex struct {
	revisions []*model.Revision
	sorted    []*model.Revision
	old       map[string]*model.Revision // OldRevision by controller-revision-hash value
	found     map[string]*model.Revision // FindRevision by name
	specs     map[specKey]*specEntry
	// last is the entry of the latest Calculate or Summary: the pods of a
	// round mostly ask for the same pair.
	last    *specEntry
	lastKey specKey
}

type specKey struct {
	old, target *model.Revision
	opts        Options
}

type specEntry struct {
	spec    Spec
	summary string
	summed  bool
}

// NewRevisionIndex indexes the revisions (nil entries are ignored, as by the
// functions it stands for).
func NewRevisionIndex(revisions []*model.Revision) *RevisionIndex {
	return &RevisionIndex{
		revisions: revisions,
		sorted:    model.SortRevisions(revisions),
		old:       map[string]*model.Revision{},
		found:     map[string]*model.Revision{},
		specs:     map[specKey]*specEntry{},
	}
}

// OldRevision is OldRevision(p, revisions). The answer depends only on the
// pod's controller-revision-hash label, so it is computed once per value.
func (x *RevisionIndex) OldRevision(p *model.Pod) *model.Revision {
	h := p.RevisionLabel()
	if r, ok := x.old[h]; ok {
		return r
	}
	var out *model.Revision
	for _, r := range x.sorted {
		if model.RevisionMatches(h, r.Name) {
			out = r
			break
		}
	}
	x.old[h] = out
	return out
}

// FindRevision is FindRevision(name, revisions).
func (x *RevisionIndex) FindRevision(name string) *model.Revision {
	if r, ok := x.found[name]; ok {
		return r
	}
	r := FindRevision(name, x.revisions)
	x.found[name] = r
	return r
}

// Calculate is Calculate(old, target, opts), computed once per pair and
// options.
func (x *RevisionIndex) Calculate(old, target *model.Revision, opts Options) Spec {
	return x.entry(old, target, opts).spec
}

// Summary is Calculate(old, target, opts).Summary(), computed once per pair
// and options.
func (x *RevisionIndex) Summary(old, target *model.Revision, opts Options) string {
	e := x.entry(old, target, opts)
	if !e.summed {
		e.summary, e.summed = e.spec.Summary(), true
	}
	return e.summary
}

func (x *RevisionIndex) entry(old, target *model.Revision, opts Options) *specEntry {
	k := specKey{old, target, opts}
	if x.last != nil && x.lastKey == k {
		return x.last
	}
	e, ok := x.specs[k]
	if !ok {
		e = &specEntry{spec: Calculate(old, target, opts)}
		x.specs[k] = e
	}
	x.last, x.lastKey = e, k
	return e
}
