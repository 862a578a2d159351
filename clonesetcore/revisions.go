package clonesetcore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/clonecore/cloneset/internal/debughash"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/podtemplate"
)

// revisionSet is the resolved revision bookkeeping of one round (LSV 2.3).
type revisionSet struct {
	sorted  []*model.Revision // model.SortRevisions order
	byName  map[string]*model.Revision
	update  *model.Revision
	current *model.Revision
	// derived is true when no ControllerRevision matched spec.template and the
	// update revision was synthesized from the template: the round creates it
	// (CreateRevision).
	derived bool
	// collisionCount is the collision count the round carries into the status:
	// status.collisionCount, plus one for every stored revision whose name the
	// derived update revision would have taken (LSV 2.3).
	collisionCount int32
	// bumpTo is the revision number a roll-back gives the update revision
	// (UpdateRevision), 0 when the update revision keeps its number.
	bumpTo int64
	// err is set when spec.template is not readable by the API types: the
	// plan is refused with it.
	err error
}

// resolveRevisions finds the update revision (the newest ControllerRevision
// whose stored template equals spec.template by meaning: model.TemplatesEqual,
// the same revision data once both are written as the API types write them;
// else the revision upstream would create, named from the revision data's
// hash) and the current revision (status.currentRevision when such a
// revision exists, else the update revision), and decides the revision
// writes of LSV 2.3: a derived update revision is created (see
// deriveRevision), an equal revision that is not the last in history order
// is renumbered to the newest stored number + 1 (bumpTo). A spec.template the
// API types cannot read sets rs.err and resolves nothing else (the plan is
// refused).
func resolveRevisions(cs *model.CloneSet, revs []*model.Revision, notes *notes) revisionSet {
	rs := revisionSet{sorted: model.SortRevisions(revs), byName: make(map[string]*model.Revision, len(revs))}
	for _, r := range rs.sorted {
		rs.byName[r.Name] = r
	}
	// The template's revision data is computed when a comparison needs it:
	// a stored template written exactly as spec.template is equal without it.
	var want []byte
	wantData := func() []byte {
		if want == nil && rs.err == nil {
			var err error
			if want, err = model.RevisionData(cs.Spec.Template); err != nil {
				rs.err = templateError(cs, err)
			}
		}
		return want
	}
	tree := cs.Spec.Template.Tree()
	if err := podtemplate.Check(tree, ""); err != nil {
		rs.err = templateError(cs, err)
		return rs // the plan is refused: nothing else is resolved
	}
	for i := len(rs.sorted) - 1; i >= 0 && rs.err == nil; i-- {
		r := rs.sorted[i]
		if !r.HasTemplate {
			continue
		}
		if sameTree(r.Template.Tree(), tree, true) {
			rs.update = r
			break
		}
		data, err := model.RevisionData(r.Template)
		if err != nil {
			notes.add("ControllerRevision %s: its template is not readable by the API types (%v): it equals no template", r.Name, err)
			continue
		}
		if bytes.Equal(data, wantData()) {
			rs.update = r
			break
		}
	}
	if cs.Status.CollisionCount != nil {
		rs.collisionCount = *cs.Status.CollisionCount
	}
	var next int64 = 1 // upstream's NextRevision: the newest stored revision's number + 1
	if n := len(rs.sorted); n > 0 {
		next = rs.sorted[n-1].Revision + 1
	}
	switch {
	case rs.update == nil:
		rs.update = deriveRevision(cs, wantData(), &rs, next, notes)
	case rs.update != rs.sorted[len(rs.sorted)-1]:
		// A stored revision equals spec.template but is not the newest one: a
		// roll-back, which makes it the newest (LSV 2.3).
		rs.bumpTo = next
		notes.add("roll-back: ControllerRevision %s equals spec.template but %s is newer: its revision %d becomes %d and it is the update revision again",
			rs.update.Name, rs.sorted[len(rs.sorted)-1].Name, rs.update.Revision, next)
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

// sameTree reports whether two JSON-like trees are written alike (a
// "$patch" member at the top left out when top is set): such templates are
// equal without encoding them.
func sameTree(a, b any, top bool) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return false
		}
		n := 0
		for k, v := range x {
			if top && k == "$patch" {
				continue
			}
			w, ok := y[k]
			if !ok || !sameTree(v, w, false) {
				return false
			}
			n++
		}
		if _, ok := y["$patch"]; top && ok {
			n++
		}
		return n == len(y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameTree(x[i], y[i], false) {
				return false
			}
		}
		return true
	case nil, string, bool, json.Number:
		return a == b
	}
	return false // other Go values: compared by their encoding
}

// deriveRevision names the revision the round creates for spec.template
// (revision data data) when no stored revision equals it (LSV 2.3), as
// upstream's revision creation does: the hash of the data and the collision
// count; while a stored revision already holds that name (its template
// differs, or it would have been found equal), the collision count grows by
// one and the name is hashed again (upstream's answer to AlreadyExists from
// a revision with other bytes). The revision's hash label keeps the hash
// of the collision count the round started with, as upstream's does. Its
// number is next.
func deriveRevision(cs *model.CloneSet, data []byte, rs *revisionSet, next int64, notes *notes) *model.Revision {
	rev := newRevision(cs, data, next, rs.collisionCount)
	for rs.byName[rev.Name] != nil {
		notes.add("revision name %s derived from spec.template with collisionCount %d is taken by a ControllerRevision with a different template: collisionCount becomes %d and the name is hashed again",
			rev.Name, rs.collisionCount, rs.collisionCount+1)
		rs.collisionCount++
		rev.Name = model.RevisionName(cs.Name, model.TemplateHash(data, rs.collisionCount))
	}
	rs.derived = true
	notes.add("no ControllerRevision matches spec.template: update revision %s is named from the hash of its revision data, as upstream names it", rev.Name)
	notes.add("ControllerRevision %s is created with revision %d (the newest stored revision's number + 1)", rev.Name, next)
	return rev
}

// NewRevision returns the ControllerRevision upstream builds for a CloneSet
// (kruise's revision control NewRevision with the collision count given), and
// its data bytes, which its Template stands for: the data is
// model.RevisionData of spec.template; the name is "<cloneset>-<hash>" and
// the controller.kubernetes.io/hash label is the hash, model.TemplateHash of
// the data and collisionCount; the other labels are the template's; the
// annotations are the CloneSet's with the volume-claim-template hash
// (VolumeClaimTemplatesHash). When the name is taken by a revision with other
// data, upstream creates it under the name of the next collision count and
// keeps the label (resolveRevisions does the same). The error names the
// template member the API types would refuse.
func NewRevision(cs *model.CloneSet, revision int64, collisionCount int32) (*model.Revision, []byte, error) {
	data, err := model.RevisionData(cs.Spec.Template)
	if err != nil {
		return nil, nil, templateError(cs, err)
	}
	rev := newRevision(cs, data, revision, collisionCount)
	rev.Template = cs.Spec.Template.DeepCopy()
	return rev, data, nil
}

// templateError is the error of a spec.template the API types cannot read,
// naming the CloneSet and the member's path.
func templateError(cs *model.CloneSet, err error) error {
	if e, ok := err.(*podtemplate.Error); ok {
		path := "spec.template"
		if e.Path != "" {
			path += "." + e.Path
		}
		err = &podtemplate.Error{Path: path, Value: e.Value, Reason: e.Reason}
	}
	return fmt.Errorf("CloneSet %s/%s: %w", cs.Namespace, cs.Name, err)
}

// newRevision is NewRevision from the template's revision data.
func newRevision(cs *model.CloneSet, data []byte, revision int64, collisionCount int32) *model.Revision {
	hash := model.TemplateHash(data, collisionCount)
	labels := maps.Clone(cs.Spec.Template.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[model.LabelControllerRevisionHash] = hash
	annotations := maps.Clone(cs.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[model.AnnotationVCTHash] = VolumeClaimTemplatesHash(cs.Spec.VolumeClaimTemplates)
	return &model.Revision{
		Name:        model.RevisionName(cs.Name, hash),
		Revision:    revision,
		Labels:      labels,
		Annotations: annotations,
		Template:    cs.Spec.Template,
		HasTemplate: true,
	}
}

// revisionActions are the revision writes of revision bookkeeping (LSV 2.3):
// the CreateRevision of a derived update revision, or the UpdateRevision of a
// roll-back. They open the plan: upstream resolves its revisions before the PVC
// clean-up and the scale phase.
func (r *round) revisionActions() {
	switch {
	case r.revs.derived:
		r.emit(model.Action{Type: model.ActionCreateRevision, Revision: r.revs.update.Name, RevisionNumber: r.revs.update.Revision,
			Reason: "no ControllerRevision equals spec.template: the update revision is created"})
	case r.revs.bumpTo != 0:
		r.emit(model.Action{Type: model.ActionUpdateRevision, Revision: r.revs.update.Name, RevisionNumber: r.revs.bumpTo,
			Reason: sprintf("roll-back: the revision equal to spec.template becomes the newest (revision %d to %d)", r.revs.update.Revision, r.revs.bumpTo)})
	}
}

// truncateHistory deletes the ControllerRevisions beyond revisionHistoryLimit
// (LSV 2.7): the stored revisions that are neither the current nor the update
// revision nor the revision of an observed pod (full name or short hash) are
// unused; the oldest of them (model.SortRevisions order) are deleted until at
// most revisionHistoryLimit (absent: 10) remain. The current revision is the
// one the round started with, as upstream passes it. Upstream skips this when
// the status write fails, which a plan cannot know: the actions come last,
// after the status write in a controller's order.
func (r *round) truncateHistory() {
	limit := int(model.DefaultRevisionHistoryLimit)
	if l := r.cs.Spec.RevisionHistoryLimit; l != nil {
		limit = int(*l)
		if limit < 0 {
			r.notes.add("revisionHistoryLimit %d is negative: planned as 0 (upstream slices its history list past its end)", limit)
			limit = 0
		}
	}
	if len(r.revs.sorted) <= limit {
		return // at most limit unused revisions, whatever the pods use
	}
	used := make(map[string]bool, 2)
	for _, p := range r.observed {
		if h := p.RevisionLabel(); h != "" {
			used[model.ShortHash(h)] = true
		}
	}
	var unused []*model.Revision
	for _, rev := range r.revs.sorted {
		if rev.Name == r.revs.current.Name || rev.Name == r.revs.update.Name || used[model.ShortHash(rev.Name)] {
			continue
		}
		unused = append(unused, rev)
	}
	if len(unused) <= limit {
		return
	}
	drop := unused[:len(unused)-limit]
	names := make([]string, len(drop))
	for i, rev := range drop {
		names[i] = rev.Name
		r.emit(model.Action{Type: model.ActionDeleteRevision, Revision: rev.Name,
			Reason: sprintf("history beyond revisionHistoryLimit %d (after the status write; upstream skips it when that write fails)", limit)})
	}
	r.notes.add("revision history: %d unused ControllerRevisions (neither current, update, nor any pod's) exceed revisionHistoryLimit %d: the oldest are deleted: %s",
		len(unused), limit, strings.Join(names, ", "))
}

// VolumeClaimTemplatesHash is upstream's hash of spec.volumeClaimTemplates,
// the value of the kruise.io/cloneset-volumeclaimtemplate-hash annotation of
// every revision (scale-and-budgets 5.7), bit for bit: the templates reduced
// to their name and spec and sorted by name are encoded as the Kubernetes API
// types encode to JSON (vctJSON); that byte string is rendered the way
// upstream's debug printer renders a byte slice, "([]uint8)[b0 b1 ...]" with
// each byte in decimal; the hash is the decimal 32-bit FNV-1a of that text.
// "" when there are no templates. A quantity is encoded as written (the API
// server writes its canonical form, which is what a stored object holds).
func VolumeClaimTemplatesHash(vcts []model.VolumeClaimTemplate) string {
	if len(vcts) == 0 {
		return ""
	}
	sorted := slices.Clone(vcts)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	return strconv.FormatUint(uint64(debughash.Bytes(vctJSON(sorted))), 10)
}
