package inplace

import "github.com/clonecore/cloneset/model"

// OldRevision returns the pod's old revision (update-and-ordering 1.4): the first
// ControllerRevision, in the order ascending .revision, then older
// creationTimestamp (a zero time first), then name, that the pod belongs to
// (model.Pod.InRevision: equal names or equal short hashes). It returns nil when
// none matches; such a pod can only be recreated. Nil entries are ignored and the
// input slice is not reordered.
func OldRevision(p *model.Pod, revisions []*model.Revision) *model.Revision {
	sorted := model.SortRevisions(revisions)
	for _, r := range sorted {
		if p.InRevision(r.Name) {
			return r
		}
	}
	return nil
}

// FindRevision returns the revision named name: the one with exactly that name,
// else the first (in the order of OldRevision) whose short hash equals name's, else
// nil.
func FindRevision(name string, revisions []*model.Revision) *model.Revision {
	for _, r := range revisions {
		if r != nil && r.Name == name {
			return r
		}
	}
	return OldRevision(&model.Pod{Labels: map[string]string{model.LabelRevisionHash: name}}, revisions)
}
