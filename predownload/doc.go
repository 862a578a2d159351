// Package predownload is the image pre-download of in-place updates, the
// chapter docs/spec/image-predownload.md: with the
// PreDownloadImageForInPlaceUpdate gate on, OpenKruise's CloneSet controller
// creates an ImagePullJob for each container image an in-place update
// changes, so that the nodes pull the new images before the pods are
// updated, marks the update revision with a label once it decided (created
// or ignored), and deletes the CloneSet's ImagePullJobs once the rollout is
// done.
//
// Decide makes the decision of one round from the CloneSet, its current and
// update revisions and the ImagePullJobs it controls (rules P1-P6);
// clonesetcore turns it into plan actions (CreateImagePullJob,
// LabelRevision, DeleteImagePullJob) and notes. NewObject builds the
// ImagePullJob upstream creates (P7), which package requests sends:
// Object.JSON gives the bytes of upstream's request body.
//
// The package is pure: it reads no clock and changes none of its inputs.
package predownload
