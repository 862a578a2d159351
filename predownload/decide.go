package predownload

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clonecore/cloneset/inplace"
	"github.com/clonecore/cloneset/lifecycle"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/partition"
)

// MinimumReplicas is the number of replicas at or below which the
// controller does not pre-download (P5 b): the images of so few pods are
// pulled by the update itself.
const MinimumReplicas = 3

// MaxJobNameLength is the longest name the API server accepts for an
// ImagePullJob (a DNS subdomain). A longer name, which a long revision name
// and container name can make, is planned all the same (upstream creates
// it) and refused by the server; the plan says so in a note.
const MaxJobNameLength = 253

// Input is what the image pre-download decision reads.
type Input struct {
	// CloneSet is the CloneSet: its spec (replicas, update strategy,
	// template) and its status as read (updateRevision,
	// updatedReadyReplicas).
	CloneSet *model.CloneSet
	// Current and Update are the round's current and update revisions
	// (both non-nil; the same revision when the rollout is done).
	Current, Update *model.Revision
	// Jobs are the ImagePullJobs of the scenario; only those the CloneSet
	// controls count.
	Jobs []*model.ImagePullJob
	// Gates are the controller's feature gates:
	// PreDownloadImageForInPlaceUpdate switches the decision on, and the
	// in-place check of P5 d reads the gates Calculate reads.
	Gates model.FeatureGates
}

// Outcome is the kind of a Decision.
type Outcome int

// The outcomes, one per rule that ends the decision.
const (
	// Off: the PreDownloadImageForInPlaceUpdate gate is off (P1): nothing.
	Off Outcome = iota
	// Done: the rollout is done (current = update revision): the
	// CloneSet's ImagePullJobs, if any, are deleted (P2).
	Done
	// Waiting: fewer updated ready pods than imagePreDownloadMinUpdatedReadyPods (P3).
	Waiting
	// Marked: the update revision is already labelled created or ignored (P4).
	Marked
	// Unresolved: the partition does not parse, upstream gives up this
	// round without a mark (P5 c); the next round decides again.
	Unresolved
	// Ignored: pre-download does not apply (P5): the update revision is
	// labelled ignored.
	Ignored
	// Created: an ImagePullJob per changed image, then the update revision
	// is labelled created (P6).
	Created
)

// String names the outcome.
func (o Outcome) String() string {
	switch o {
	case Off:
		return "Off"
	case Done:
		return "Done"
	case Waiting:
		return "Waiting"
	case Marked:
		return "Marked"
	case Unresolved:
		return "Unresolved"
	case Ignored:
		return "Ignored"
	case Created:
		return "Created"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Job is an ImagePullJob to create: its name, the container whose new
// image it pulls, and that image.
type Job struct {
	Name      string
	Container string
	Image     string
}

// Decision is the image pre-download decision of one round.
type Decision struct {
	Outcome Outcome
	// Delete are the ImagePullJobs to delete (Done), in name order.
	Delete []*model.ImagePullJob
	// Create are the ImagePullJobs to create (Created), in the order of
	// the update revision's containers.
	Create []Job
	// Label is the label the update revision gets, with the value "true"
	// (LabelImagePreDownloadCreated or LabelImagePreDownloadIgnored;
	// "" for none).
	Label string
	// Reason says why, in words, for the plan's notes ("" when Off, or
	// Done with no job to delete).
	Reason string
}

// Decide makes the image pre-download decision of one round
// (docs/spec/image-predownload.md P1-P6). It is pure, and reads the
// CloneSet's status as the round read it (not the status the round
// writes). in.Current and in.Update must be non-nil unless the gate is off.
func Decide(in Input) Decision {
	if !in.Gates.PreDownloadImageForInPlaceUpdate {
		return Decision{Outcome: Off}
	}
	cs, cur, upd := in.CloneSet, in.Current, in.Update
	if cur.Name == upd.Name {
		return decideDone(cs, in.Jobs)
	}
	// P3: wait for enough updated ready pods.
	minReady := MinUpdatedReadyPods(cs)
	ready := cs.Status.UpdatedReadyReplicas
	if cs.Status.UpdateRevision != upd.Name {
		ready = 0 // the status counts the pods of another revision
	}
	if minReady > ready {
		return Decision{Outcome: Waiting, Reason: fmt.Sprintf(
			"image pre-download for %s waits: %d updated ready pods (status.updatedReadyReplicas, 0 when status.updateRevision is another revision), imagePreDownloadMinUpdatedReadyPods is %d",
			upd.Name, ready, minReady)}
	}
	// P4: decided already.
	for _, key := range []string{model.LabelImagePreDownloadCreated, model.LabelImagePreDownloadIgnored} {
		if v, ok := upd.Labels[key]; ok {
			return Decision{Outcome: Marked, Reason: fmt.Sprintf("image pre-download for %s was decided before (label %s=%q): nothing to do", upd.Name, key, v)}
		}
	}
	// P5: the cases where the images are not pre-downloaded.
	if why, outcome := skipReason(in); outcome != Created {
		d := Decision{Outcome: outcome, Reason: why}
		if outcome == Ignored {
			d.Label = model.LabelImagePreDownloadIgnored
		}
		return d
	}
	// P6: a job per changed image.
	d := Decision{Outcome: Created, Label: model.LabelImagePreDownloadCreated, Create: jobs(cur, upd)}
	par, timeout := Parallelism(cs), TimeoutSeconds(cs)
	if len(d.Create) == 0 {
		d.Reason = fmt.Sprintf("image pre-download for %s: no container image changes from %s: no ImagePullJob, the revision is labelled created", upd.Name, cur.Name)
		return d
	}
	names := make([]string, len(d.Create))
	for i, j := range d.Create {
		names[i] = j.Container + "=" + j.Image
	}
	d.Reason = fmt.Sprintf("image pre-download for the in-place update from %s to %s: an ImagePullJob per changed image (%s), parallelism %s, timeout %ds, on the pods not at %s",
		cur.Name, upd.Name, strings.Join(names, ", "), par.String(), timeout, upd.Name)
	return d
}

// decideDone is P2: every ImagePullJob the CloneSet controls is deleted, in
// name order.
func decideDone(cs *model.CloneSet, all []*model.ImagePullJob) Decision {
	d := Decision{Outcome: Done}
	for _, j := range all {
		if j != nil && Controls(cs, j) {
			d.Delete = append(d.Delete, j)
		}
	}
	if len(d.Delete) == 0 {
		return d
	}
	slices.SortStableFunc(d.Delete, func(a, b *model.ImagePullJob) int { return strings.Compare(a.Name, b.Name) })
	names := make([]string, len(d.Delete))
	for i, j := range d.Delete {
		names[i] = j.Name
	}
	d.Reason = fmt.Sprintf("the rollout is done (current revision = update revision): the CloneSet's ImagePullJobs are deleted: %s", strings.Join(names, ", "))
	return d
}

// Controls reports whether the CloneSet controls the job: its controller
// owner reference designates the CloneSet (by uid; by kind and name when
// either uid is missing, model.OwnerReference.OwnedBy).
func Controls(cs *model.CloneSet, j *model.ImagePullJob) bool {
	return model.ControllerRef(j.OwnerReferences).OwnedBy(cs)
}

// skipReason is P5: why the images are not pre-downloaded (outcome
// Ignored, or Unresolved for a partition that does not parse), or Created
// when they are.
func skipReason(in Input) (string, Outcome) {
	cs, cur, upd := in.CloneSet, in.Current, in.Update
	ru := cs.Spec.UpdateStrategy.RollingUpdate
	replicas := cs.Spec.DesiredReplicas()
	ignored := func(format string, args ...any) (string, Outcome) {
		return fmt.Sprintf("image pre-download for %s is ignored: ", upd.Name) + fmt.Sprintf(format, args...), Ignored
	}
	switch {
	case ru == nil:
		return ignored("no rollingUpdate strategy (updated as ReCreate)")
	case ru.PodUpdatePolicy == model.PolicyReCreate:
		return ignored("podUpdatePolicy is ReCreate")
	case replicas <= MinimumReplicas:
		return ignored("replicas %d <= %d", replicas, MinimumReplicas)
	}
	part, err := partition.PartitionCount(cs)
	if err != nil {
		return fmt.Sprintf("image pre-download for %s is not decided this round: partition %s does not parse (%v); upstream gives up without a mark and decides again next round", upd.Name, ru.Partition.String(), err), Unresolved
	}
	if unavail := OneBatchMaxUnavailable(cs); part == 0 && unavail >= replicas {
		return ignored("every pod updates in one batch (partition 0, maxUnavailable %d >= replicas %d)", unavail, replicas)
	}
	if !cur.HasTemplate || !upd.HasTemplate {
		return ignored("revision %s has no stored template: not updatable in place", pick(cur.HasTemplate, upd.Name, cur.Name))
	}
	spec := inplace.Calculate(cur, upd, inplace.Options{Policy: lifecycle.Policy(cs), Gates: in.Gates})
	if !spec.Feasible {
		return ignored("no in-place update from %s: %s", cur.Name, spec.Reason)
	}
	return "", Created
}

func pick(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}

// OneBatchMaxUnavailable is the maxUnavailable P5 c compares with the
// replicas: rollingUpdate.maxUnavailable (20% when absent) by Kubernetes'
// parser, rounded down, 0 when it does not parse. It is not the update
// budget's maxUnavailable, which rounds up when maxSurge is 0
// (scale-and-budgets 1.5).
func OneBatchMaxUnavailable(cs *model.CloneSet) int {
	v := model.FromString("20%")
	if ru := cs.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.MaxUnavailable != nil {
		v = *ru.MaxUnavailable
	}
	n, err := v.ScaledValueK8s(cs.Spec.DesiredReplicas(), false)
	if err != nil {
		return 0
	}
	return n
}

// jobs lists the containers of upd whose image is new (P6): a container
// name cur's template lacks, or whose image differs there. A name written
// twice keeps its first place; its image is set as upstream's map of names
// is (each occurrence that differs from cur's overwrites it).
func jobs(cur, upd *model.Revision) []Job {
	old := cur.Template.Spec.Containers
	var out []Job
	at := map[string]int{}
	for _, c := range upd.Template.Spec.Containers {
		i := slices.IndexFunc(old, func(o model.Container) bool { return o.Name == c.Name })
		if i >= 0 && old[i].Image == c.Image {
			continue
		}
		if k, ok := at[c.Name]; ok {
			out[k].Image = c.Image
			continue
		}
		at[c.Name] = len(out)
		out = append(out, Job{Name: JobName(upd.Name, c.Name), Container: c.Name, Image: c.Image})
	}
	return out
}

// JobName is the name of the ImagePullJob of a container's image for a
// revision: "<revision>-<container>".
func JobName(revision, container string) string { return revision + "-" + container }

// MinUpdatedReadyPods is rollingUpdate.inPlaceUpdateStrategy.imagePreDownloadMinUpdatedReadyPods
// (0 when absent): the updated ready pods the pre-download waits for (P3).
func MinUpdatedReadyPods(cs *model.CloneSet) int32 {
	if s := inPlaceStrategy(cs); s != nil && s.ImagePreDownloadMinUpdatedReadyPods != nil {
		return *s.ImagePreDownloadMinUpdatedReadyPods
	}
	return 0
}

// Parallelism is the ImagePullJobs' parallelism: inPlaceUpdateStrategy.imagePreDownloadParallelism,
// DefaultParallelism when absent (P7).
func Parallelism(cs *model.CloneSet) model.IntOrPercent {
	if s := inPlaceStrategy(cs); s != nil && s.ImagePreDownloadParallelism != nil {
		return *s.ImagePreDownloadParallelism
	}
	return model.FromInt(DefaultParallelism)
}

// TimeoutSeconds is the ImagePullJobs' pull timeout:
// inPlaceUpdateStrategy.imagePreDownloadTimeoutSeconds,
// DefaultTimeoutSeconds when absent (P7).
func TimeoutSeconds(cs *model.CloneSet) int32 {
	if s := inPlaceStrategy(cs); s != nil && s.ImagePreDownloadTimeoutSeconds != nil {
		return *s.ImagePreDownloadTimeoutSeconds
	}
	return DefaultTimeoutSeconds
}

func inPlaceStrategy(cs *model.CloneSet) *model.InPlaceUpdateStrategy {
	if ru := cs.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		return ru.InPlaceUpdateStrategy
	}
	return nil
}
