package clonesetcore

import (
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/predownload"
)

// preDownload is the image pre-download of the round
// (docs/spec/image-predownload.md; package predownload): with the
// PreDownloadImageForInPlaceUpdate gate on, the ImagePullJobs of the
// update revision's new images and the revision's mark (LabelRevision), or
// the deletion of the CloneSet's ImagePullJobs once the rollout is done.
// Upstream decides it after its revisions and before the scale and update
// phases, from the status it read; the CloneSet being deleted changes
// nothing.
func (r *round) preDownload() {
	d := predownload.Decide(predownload.Input{
		CloneSet: r.cs, Current: r.revs.current, Update: r.revs.update,
		Jobs: r.s.ImagePullJobs, Gates: r.gates,
	})
	if d.Reason != "" {
		r.notes.addText(d.Reason)
	}
	for _, j := range d.Delete {
		r.emit(model.Action{Type: model.ActionDeleteImagePullJob, ImagePullJob: j.Name,
			Reason: "image pre-download: the rollout is done"})
	}
	exists := map[string]bool{}
	for _, j := range r.s.ImagePullJobs {
		if j != nil {
			exists[j.Name] = true
		}
	}
	for _, j := range d.Create {
		if exists[j.Name] {
			r.notes.add("ImagePullJob %s exists already: its create will be refused (AlreadyExists), which upstream ignores", j.Name)
		}
		r.emit(model.Action{Type: model.ActionCreateImagePullJob, ImagePullJob: j.Name, Revision: r.revs.update.Name,
			Container: j.Container, Image: j.Image,
			Reason: sprintf("image pre-download: container %s changes its image in place", j.Container)})
		if len(j.Name) > predownload.MaxJobNameLength {
			r.notes.add("ImagePullJob %s: its name is longer than %d characters: the API server will refuse it (upstream creates it all the same, and goes on)", j.Name, predownload.MaxJobNameLength)
		}
	}
	if d.Label != "" {
		why := "image pre-download: the ImagePullJobs of this revision are created"
		if d.Outcome == predownload.Ignored {
			why = "image pre-download: not done for this revision"
		}
		r.emit(model.Action{Type: model.ActionLabelRevision, Revision: r.revs.update.Name,
			SetLabels: map[string]string{d.Label: "true"}, Reason: why})
	}
}
