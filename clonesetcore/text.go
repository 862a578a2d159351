package clonesetcore

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/clonecore/cloneset/model"
)

// WriteText writes a plan as a readable explanation: the pods by revision and
// state, the budget in words, the actions and the notes. It is the `-o text`
// output of clonesetplan plan.
func (p *Result) WriteText(w io.Writer, s *model.Scenario) error {
	var b strings.Builder
	fmt.Fprintf(&b, "CloneSet %s/%s\n", p.CloneSet.Namespace, p.CloneSet.Name)
	fmt.Fprintf(&b, "  revisions: current %s, update %s\n", p.CurrentRevision, p.UpdateRevision)
	b.WriteString(clockLine(p.Now, s))
	if s != nil {
		b.WriteString(podSummary(s, p.UpdateRevision))
	}
	bu := p.Budget
	fmt.Fprintf(&b, "\nBudget\n")
	fmt.Fprintf(&b, "  replicas %d, partition %d (pods kept at old revisions), maxSurge %d, maxUnavailable %d", bu.Replicas, bu.Partition, bu.MaxSurge, bu.MaxUnavailable)
	if bu.ScaleMaxUnavailable != model.MaxInt32 {
		fmt.Fprintf(&b, ", scale-out limit %d", bu.ScaleMaxUnavailable)
	}
	b.WriteString("\n")
	switch {
	case bu.ScaleUp > 0:
		fmt.Fprintf(&b, "  scale out: %s wanted (%d of them at the current revision), %d allowed now\n", plural(bu.ScaleUp, "pod", "pods"), min(bu.ScaleUpOldRevision, bu.ScaleUp), bu.ScaleUpLimit)
	case bu.ScaleDown > 0:
		fmt.Fprintf(&b, "  scale in: %s to remove (%d wished from old revisions)\n", plural(bu.ScaleDown, "pod", "pods"), bu.ScaleDownOldRevision)
	}
	if bu.UseSurge > 0 {
		fmt.Fprintf(&b, "  surge in use: %d (%d at the current revision)\n", bu.UseSurge, bu.UseSurgeOldRevision)
	}
	if bu.ScaleDown > 0 || bu.DeleteReadyLimit > 0 {
		fmt.Fprintf(&b, "  ready pods that may be deleted now: %d\n", bu.DeleteReadyLimit)
	}
	switch {
	case bu.UpdateNum > 0:
		fmt.Fprintf(&b, "  update: %s to move to the update revision, at most %d unavailable\n", plural(bu.UpdateNum, "pod", "pods"), bu.UpdateMaxUnavailable)
	case bu.UpdateNum < 0:
		fmt.Fprintf(&b, "  roll back: %s to move back to the current revision, at most %d unavailable\n", plural(-bu.UpdateNum, "pod", "pods"), bu.UpdateMaxUnavailable)
	default:
		b.WriteString("  update: nothing to move\n")
	}
	fmt.Fprintf(&b, "\nActions (%d)\n", len(p.Actions))
	if len(p.Actions) == 0 {
		b.WriteString("  none\n")
	}
	for i, a := range p.Actions {
		fmt.Fprintf(&b, "  %d. %s\n", i+1, describeAction(a))
	}
	st := p.Status
	fmt.Fprintf(&b, "\nStatus\n  replicas %d, ready %d, available %d, updated %d (ready %d, available %d), expected updated %d\n",
		st.Replicas, st.ReadyReplicas, st.AvailableReplicas, st.UpdatedReplicas, st.UpdatedReadyReplicas, st.UpdatedAvailableReplicas, st.ExpectedUpdatedReplicas)
	for _, c := range st.Conditions {
		fmt.Fprintf(&b, "  condition %s=%s %s %s\n", c.Type, c.Status, c.Reason, c.Message)
	}
	if p.RequeueAfterSeconds > 0 {
		fmt.Fprintf(&b, "  requeue after %gs\n", p.RequeueAfterSeconds)
	}
	if len(p.Notes) > 0 {
		b.WriteString("\nNotes\n")
		for _, n := range p.Notes {
			fmt.Fprintf(&b, "  - %s\n", n)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// clockLine says which clock the plan was made at, and where it comes from.
func clockLine(now string, s *model.Scenario) string {
	switch {
	case now == "":
		return "  clock: none (no timestamp in the input; set one with --now or a Scenario document's now)\n"
	case s != nil && s.NowFromObjects:
		return "  clock: " + now + " (the newest timestamp in the input; set another with --now or a Scenario document's now)\n"
	}
	return "  clock: " + now + "\n"
}

func podSummary(s *model.Scenario, updateRev string) string {
	counts := map[string]int{}
	for _, p := range s.Pods {
		if !p.IsActive() {
			continue
		}
		rev := "old revision"
		if p.InRevision(updateRev) {
			rev = "update revision"
		}
		st := p.LifecycleState()
		if st == "" {
			st = "no state"
		}
		counts[rev+", "+st]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "  pods %s: %d\n", k, counts[k])
	}
	return b.String()
}

func describeAction(a model.Action) string {
	var s string
	switch a.Type {
	case model.ActionCreatePod:
		s = fmt.Sprintf("create pod %s at %s (batch %d)", a.Pod, a.Revision, a.Batch)
		if len(a.CreatePVCs) > 0 {
			s += fmt.Sprintf(", new PVCs %s", strings.Join(a.CreatePVCs, ", "))
		}
		if len(a.ReusePVCs) > 0 {
			s += fmt.Sprintf(", reusing %s", strings.Join(a.ReusePVCs, ", "))
		}
	case model.ActionDeletePod:
		s = "delete pod " + a.Pod
		if len(a.DeletePVCs) > 0 {
			s += " and PVCs " + strings.Join(a.DeletePVCs, ", ")
		}
	case model.ActionSetLifecycleState:
		s = fmt.Sprintf("move pod %s from %s to %s", a.Pod, orNone(a.From), a.To)
		if a.MarkPodNotReady {
			s += " (marking it not ready)"
		}
	case model.ActionUpdatePodInPlace:
		s = fmt.Sprintf("update pod %s in place from %s to %s", a.Pod, a.FromRevision, a.ToRevision)
		if a.GracePeriodSeconds > 0 {
			s += fmt.Sprintf(" after a %ds grace period", a.GracePeriodSeconds)
		}
	case model.ActionRecreatePod:
		s = fmt.Sprintf("recreate pod %s at %s (mark it specified-delete)", a.Pod, a.ToRevision)
	case model.ActionDeletePVC:
		s = "delete PVC " + a.PVC
	case model.ActionSetPVCOwner:
		s = fmt.Sprintf("hand PVC %s to pod %s", a.PVC, a.Pod)
	case model.ActionUpdatePodsToDelete:
		s = "drop from podsToDelete: " + strings.Join(a.Remove, ", ")
	case model.ActionPatchPod:
		s = "patch pod " + a.Pod
	case model.ActionCreateRevision:
		s = fmt.Sprintf("create ControllerRevision %s with revision %d (spec.template)", a.Revision, a.RevisionNumber)
	case model.ActionUpdateRevision:
		s = fmt.Sprintf("set the revision of ControllerRevision %s to %d (it becomes the newest)", a.Revision, a.RevisionNumber)
	case model.ActionDeleteRevision:
		s = "delete ControllerRevision " + a.Revision
	case model.ActionCreateImagePullJob:
		s = fmt.Sprintf("create ImagePullJob %s pulling %s (container %s of %s)", a.ImagePullJob, a.Image, a.Container, a.Revision)
	case model.ActionLabelRevision:
		var kv []string
		for _, k := range model.SortedKeys(a.SetLabels) {
			kv = append(kv, k+"="+a.SetLabels[k])
		}
		s = fmt.Sprintf("label ControllerRevision %s %s", a.Revision, strings.Join(kv, ", "))
	case model.ActionDeleteImagePullJob:
		s = "delete ImagePullJob " + a.ImagePullJob
	default:
		s = string(a.Type)
	}
	if a.Reason != "" {
		s += ": " + a.Reason
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "(no state)"
	}
	return s
}
