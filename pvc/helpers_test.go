package pvc

import (
	"sort"
	"time"

	"github.com/clonecore/cloneset/model"
)

// The helpers build objects by hand (not with NewClaim) so the fixtures do not
// depend on the code under test.

var (
	t0          = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	specUID     = "6f1c2a9e-0000-4000-8000-000000000001"
	otherUID    = "99999999-0000-4000-8000-000000000009"
	foreignPod  = model.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: "someone", UID: "pod-uid", Controller: true}
	foreignUnit = model.OwnerReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db", UID: otherUID, Controller: true}
)

// newCS returns a v1beta1 CloneSet with selector app=<name> and the given claim
// templates; reuse sets spec.scaleStrategy.enablePVCReuse.
func newCS(name, uid string, reuse bool, templates ...string) *model.CloneSet {
	cs := &model.CloneSet{
		APIVersion: model.APIVersionV1beta1,
		Name:       name,
		Namespace:  "default",
		UID:        uid,
		Spec: model.CloneSetSpec{
			Selector: &model.LabelSelector{MatchLabels: map[string]string{"app": name}},
		},
	}
	cs.Spec.ScaleStrategy.EnablePVCReuse = reuse
	for _, t := range templates {
		cs.Spec.VolumeClaimTemplates = append(cs.Spec.VolumeClaimTemplates, model.VolumeClaimTemplate{Name: t})
	}
	return cs
}

func csRef(cs *model.CloneSet) model.OwnerReference {
	return model.OwnerReference{APIVersion: model.APIVersionV1beta1, Kind: "CloneSet", Name: cs.Name, UID: cs.UID, Controller: true}
}

// mkPod returns an active, Running pod of cs named <cs>-<id> with instance id id
// ("" = no label).
func mkPod(cs *model.CloneSet, id string) *model.Pod {
	return mkPodNamed(cs, cs.Name+"-"+id, id)
}

func mkPodNamed(cs *model.CloneSet, name, id string) *model.Pod {
	labels := map[string]string{"app": cs.Name}
	if id != "" {
		labels[model.LabelInstanceID] = id
	}
	return &model.Pod{
		Name: name, Namespace: cs.Namespace, UID: "uid-" + name, Labels: labels,
		OwnerReferences: []model.OwnerReference{csRef(cs)},
		Status:          model.PodStatus{Phase: model.PodRunning},
	}
}

func terminating(p *model.Pod) *model.Pod { p.DeletionTimestamp = t0; return p }
func succeeded(p *model.Pod) *model.Pod   { p.Status.Phase = model.PodSucceeded; return p }
func failed(p *model.Pod) *model.Pod      { p.Status.Phase = model.PodFailed; return p }

// unmatched makes the pod stop matching the CloneSet's selector.
func unmatched(p *model.Pod) *model.Pod { p.Labels["app"] = "elsewhere"; return p }

// mkClaim returns the PVC <tmpl>-<cs>-<id> owned by cs, labelled with id
// ("" = no label).
func mkClaim(cs *model.CloneSet, tmpl, id string) *model.PVC {
	c := &model.PVC{
		Name: tmpl + "-" + cs.Name + "-" + id, Namespace: cs.Namespace,
		Labels:          map[string]string{"app": cs.Name},
		OwnerReferences: []model.OwnerReference{csRef(cs)},
	}
	if id != "" {
		c.Labels[model.LabelInstanceID] = id
	}
	return c
}

func mkClaimNamed(cs *model.CloneSet, name, id string) *model.PVC {
	c := mkClaim(cs, "x", id)
	c.Name = name
	return c
}

func deletingClaim(c *model.PVC) *model.PVC { c.DeletionTimestamp = t0; return c }
func ownedBy(c *model.PVC, r model.OwnerReference) *model.PVC {
	c.OwnerReferences = []model.OwnerReference{r}
	return c
}

// world is a scenario as the planner would split it.
type world struct {
	cs   *model.CloneSet
	pods []*model.Pod
	pvcs []*model.PVC
}

// split returns the pod sets of section 0: observed (owned, active, matching),
// active (owned, active, matching or not) and inactive (owned, not active).
func (w world) split() (observed, active, inactive []*model.Pod) {
	for _, p := range w.pods {
		if !model.ControllerRef(p.OwnerReferences).OwnedBy(w.cs) {
			continue
		}
		if !p.IsActive() {
			inactive = append(inactive, p)
			continue
		}
		active = append(active, p)
		if w.cs.Spec.Selector.Matches(p.Labels) {
			observed = append(observed, p)
		}
	}
	return
}

// round is what one round decides about PVCs: clean-up, V, and (for n > 0) the
// ids of a scale-out with the claims of each new pod.
type round struct {
	V          []string
	Actions    []model.Action
	Allocs     []Allocation
	Create     map[string][]string // id -> createPVCs
	Reuse      map[string][]string // id -> reusePVCs
	Collisions []string
	idx        *Index
}

func (w world) round(n int) round {
	observed, active, inactive := w.split()
	v, actions := Usable(w.cs, active, inactive, w.pvcs)
	r := round{V: names(v), Actions: actions, Create: map[string][]string{}, Reuse: map[string][]string{}}
	r.idx = NewIndex(v)
	r.Allocs = AllocateIDs(w.cs, t0, n, observed, inactive, w.pvcs, v)
	for _, a := range r.Allocs {
		c, u := r.idx.ClaimsForNewPod(w.cs, a.ID)
		r.Create[a.ID], r.Reuse[a.ID] = c, u
	}
	r.Collisions = Collisions(w.cs, r.Allocs, inactive)
	return r
}

func names(pvcs []*model.PVC) []string {
	out := []string{}
	for _, c := range pvcs {
		out = append(out, c.Name)
	}
	return out
}

func ids(allocs []Allocation) []string {
	out := []string{}
	for _, a := range allocs {
		out = append(out, a.ID)
	}
	return out
}

func actionsOf(actions []model.Action, typ model.ActionType) []string {
	var out []string
	for _, a := range actions {
		if a.Type == typ {
			out = append(out, a.PVC)
		}
	}
	sort.Strings(out)
	return out
}

func del(pvc, reason string) model.Action {
	return model.Action{Type: model.ActionDeletePVC, PVC: pvc, Reason: reason}
}

func reown(pvc, pod, reason string) model.Action {
	return model.Action{Type: model.ActionSetPVCOwner, PVC: pvc, Pod: pod, Reason: reason}
}
