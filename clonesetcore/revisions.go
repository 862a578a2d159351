package clonesetcore

import (
	"encoding/json"
	"hash/fnv"
	"sort"
	"strconv"

	"github.com/clonecore/cloneset/model"
)

// revisionSet is the resolved revision bookkeeping of one round (LSV 2.3).
type revisionSet struct {
	sorted  []*model.Revision // model.SortRevisions order
	byName  map[string]*model.Revision
	update  *model.Revision
	current *model.Revision
	// derived is true when no ControllerRevision matched spec.template and the
	// update revision was synthesized from the template.
	derived bool
}

// resolveRevisions finds the update revision (the newest ControllerRevision
// whose stored template equals spec.template semantically, else one derived from
// a stable hash of the template) and the current revision (status.currentRevision
// when such a revision exists, else the update revision).
func resolveRevisions(cs *model.CloneSet, revs []*model.Revision, notes *notes) revisionSet {
	rs := revisionSet{sorted: model.SortRevisions(revs), byName: make(map[string]*model.Revision, len(revs))}
	for _, r := range rs.sorted {
		rs.byName[r.Name] = r
	}
	want := model.CanonicalJSON(cs.Spec.Template.Raw)
	for i := len(rs.sorted) - 1; i >= 0; i-- {
		r := rs.sorted[i]
		if r.HasTemplate && string(model.CanonicalJSON(r.Template.Raw)) == string(want) {
			rs.update = r
			break
		}
	}
	if rs.update == nil {
		var collisions int32
		if cs.Status.CollisionCount != nil {
			collisions = *cs.Status.CollisionCount
		}
		name := model.RevisionName(cs.Name, model.TemplateHash(cs.Spec.Template.Raw, collisions))
		rs.update = &model.Revision{
			Name:        name,
			Template:    cs.Spec.Template,
			HasTemplate: true,
			Annotations: map[string]string{model.AnnotationVCTHash: VolumeClaimTemplatesHash(cs.Spec.VolumeClaimTemplates)},
		}
		if len(rs.sorted) > 0 {
			rs.update.Revision = rs.sorted[len(rs.sorted)-1].Revision + 1
		} else {
			rs.update.Revision = 1
		}
		rs.derived = true
		if old, ok := rs.byName[name]; ok && old != nil {
			notes.add("update revision %s derived from spec.template collides with a ControllerRevision of the same name and a different template", name)
		}
		notes.add("no ControllerRevision matches spec.template: update revision %s is derived from the library's template hash", name)
	}
	rs.current = rs.update
	if cur := cs.Status.CurrentRevision; cur != "" {
		if r, ok := rs.byName[cur]; ok {
			rs.current = r
		} else if cur != rs.update.Name {
			if len(rs.sorted) == 0 {
				// No ControllerRevisions at all: trust the status (docs/spec/scenario-format.md
				// section 1), without a template.
				rs.current = &model.Revision{Name: cur}
				notes.add("current revision %s is taken from status.currentRevision; its ControllerRevision is not in the scenario (pods of it can only be recreated)", cur)
			} else {
				notes.add("status.currentRevision %s has no ControllerRevision in the scenario: the current revision is the update revision %s (as upstream)", cur, rs.update.Name)
			}
		}
	}
	return rs
}

// VolumeClaimTemplatesHash is the library's hash of spec.volumeClaimTemplates
// for revisions it derives itself: the decimal 32-bit FNV-1a of the canonical
// JSON of the templates reduced to {name, spec} and sorted by name; "" when there
// are none. Upstream hashes a different serialization (a documented
// incompatibility, docs/spec/DECISIONS.md): only equality between revisions matters.
func VolumeClaimTemplatesHash(vcts []model.VolumeClaimTemplate) string {
	if len(vcts) == 0 {
		return ""
	}
	type entry struct {
		Name string `json:"name"`
		Spec any    `json:"spec"`
	}
	entries := make([]entry, 0, len(vcts))
	for _, v := range vcts {
		var spec any
		if v.Raw != nil {
			spec = model.NormalizeTree(v.Raw["spec"])
		}
		entries = append(entries, entry{Name: v.Name, Spec: spec})
	}
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	b, _ := json.Marshal(entries)
	h := fnv.New32a()
	h.Write(b)
	return strconv.FormatUint(uint64(h.Sum32()), 10)
}
