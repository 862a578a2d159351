package clonesetcore_test

// Random worlds for the property tests and the fuzz target: one generator,
// driven by a source of small integers (rapid's draws, or the fuzzer's bytes),
// produces a worldSpec; build turns a worldSpec into a fresh scenario, with every
// slice of it in the order a permutation function chooses.

import (
	"fmt"
	"time"

	"github.com/clonecore/cloneset/model"
)

// source yields integers in [0, n).
type source interface {
	intn(label string, n int) int
}

func pick[T any](src source, label string, xs ...T) T { return xs[src.intn(label, len(xs))] }

// oneIn is true with probability 1/n. It tests the largest value, so that
// rapid's bias towards small draws makes it rarer, not likelier, and shrinking
// turns it off.
func oneIn(src source, label string, n int) bool { return src.intn(label, n) == n-1 }

// byteSource reads one byte per draw; once the bytes are used up every draw is 0.
type byteSource struct {
	data []byte
	pos  int
}

func (b *byteSource) intn(_ string, n int) int {
	if b.pos >= len(b.data) || n <= 1 {
		return 0
	}
	v := int(b.data[b.pos])
	b.pos++
	return v % n
}

// podSpec describes one pod of a random world.
type podSpec struct {
	Name          string
	Rev           string // controller-revision-hash label; "" = absent
	State         string
	Phase         string
	Ready         int // 0 not ready, 1 ready for an hour, 2 ready for 5 s
	IPURFalse     bool
	Terminating   bool
	SpecDelete    bool
	HookFin       bool // carries the preDelete finalizer
	HoldLabel     bool // carries the inPlaceUpdate hook label
	Node          string
	Owner         int // 0 owned, 1 orphan, 2 released (owned, no longer matching), 3 foreign
	NoHashLabel   bool
	ExtraOwnerRef bool
	Grace         int // 0 none, 1 in grace, 2 grace over, 3 malformed state
	Restarts      int32
	Cost          string
	CreatedAgo    time.Duration // 0 = zero creation time
	PVC           bool
	KruiseGate    bool
}

// worldSpec describes a random world.
type worldSpec struct {
	Replicas        int32
	Partition       model.IntOrPercent
	MaxSurge        model.IntOrPercent
	MaxUnavailable  model.IntOrPercent
	ScaleMaxUnavail *model.IntOrPercent
	Paused          bool
	OnDelete        bool
	Policy          string
	Grace           int32
	MinReady        int32
	PDS             *int32
	Lifecycle       int
	TemplateRev     string
	RevMask         int // bit i: revision i of [revA revB revC] is in the scenario
	VCTHashes       bool
	CurrentRev      string
	Reuse           bool
	VCT             bool
	Spread          bool
	NodeMask        int
	Deleting        bool
	ExcludePD       bool
	FlagExcludePD   bool
	Gates           model.FeatureGates
	Pods            []podSpec
	PodsToDelete    []string
	SpareIDs        []string
	SpareTerminated bool
	SetAside        int
	Progressing     int
	// Image pre-download (PreDownloadImageForInPlaceUpdate in Gates):
	// the strategy's minimum of updated ready pods and parallelism, the
	// status's updated ready pods and update revision, the mark of each
	// revision (RevMarks: 0 none, 1 created, 2 ignored, by revision of
	// allRevs) and the ImagePullJobs (0 the CloneSet's, 1 another
	// CloneSet's, 2 the CloneSet's by name without a uid).
	MinUpdatedReady *int32
	Parallelism     *model.IntOrPercent
	UpdatedReady    int32
	StatusUpdateRev string
	RevMarks        []int
	Jobs            []int
}

func genWorld(src source) *worldSpec {
	ws := &worldSpec{}
	// Calm worlds (half of them) have about as many pods as replicas, mostly
	// plain ready pods, and settings that let the update phase run; every
	// setting still takes a random value with probability 1/8. Wild worlds draw
	// everything freely.
	calm := oneIn(src, "calm", 2)
	// draw returns plain in a calm world (except with probability 1/8), else
	// the value chosen by random.
	draw := func(label string, plain int, random func() int) int {
		if calm && !oneIn(src, label+"Odd", 8) {
			return plain
		}
		return random()
	}
	ws.Replicas = int32(src.intn("replicas", 9))
	partitions := []model.IntOrPercent{model.FromInt(0), model.FromInt(0), model.FromInt(1), model.FromInt(2),
		model.FromInt(3), model.FromInt(ws.Replicas), model.FromInt(ws.Replicas + 2),
		model.FromString("0%"), model.FromString("50%"), model.FromString("95%"), model.FromString("100%"), model.FromString("14.3%")}
	ws.Partition = partitions[draw("partition", pick(src, "calmPartition", 0, 2, 8), func() int { return src.intn("partition", len(partitions)) })]
	surges := []model.IntOrPercent{model.FromInt(0), model.FromInt(0), model.FromInt(1), model.FromInt(2),
		model.FromString("50%"), model.FromString("10%")}
	ws.MaxSurge = surges[draw("maxSurge", 0, func() int { return src.intn("maxSurge", len(surges)) })]
	unavails := []model.IntOrPercent{model.FromInt(1), model.FromInt(2), model.FromInt(0),
		model.FromString("20%"), model.FromString("50%"), model.FromString("100%")}
	ws.MaxUnavailable = unavails[draw("maxUnavailable", pick(src, "calmMaxUnavailable", 0, 1, 4), func() int { return src.intn("maxUnavailable", len(unavails)) })]
	ws.ScaleMaxUnavail = pick(src, "scaleMaxUnavailable", nil, nil, nil, intv(1), intv(2), strv("50%"), strv("12.5%"), intv(0))
	ws.Paused = draw("paused", 0, func() int { return src.intn("paused", 6) }) == 5
	ws.OnDelete = draw("onDelete", 0, func() int { return src.intn("onDelete", 7) }) == 6
	ws.Policy = pick(src, "policy", model.PolicyReCreate, model.PolicyInPlaceIfPossible, model.PolicyInPlaceOnly)
	if ws.Policy == model.PolicyInPlaceOnly {
		ws.MaxSurge = model.FromInt(0) // the webhook forbids maxSurge with InPlaceOnly
	}
	ws.Grace = pick(src, "grace", int32(0), 0, 10)
	ws.MinReady = pick(src, "minReady", int32(0), 0, 10, 600)
	ws.PDS = pick(src, "pds", nil, nil, ptr(int32(900)), ptr(int32(3600)))
	ws.Lifecycle = src.intn("lifecycle", 7)
	revs := []string{revA, revB, revB, revC}
	ws.TemplateRev = revs[draw("templateRev", 1, func() int { return src.intn("templateRev", len(revs)) })]
	masks := []int{7, 7, 3, 3, 1, 2, 6, 0, 5}
	ws.RevMask = masks[draw("revMask", 0, func() int { return src.intn("revMask", len(masks)) })]
	ws.VCTHashes = oneIn(src, "vctHashes", 3)
	currents := []string{revA, revA, revB, revC, "", "web-9"}
	ws.CurrentRev = currents[draw("currentRev", 0, func() int { return src.intn("currentRev", len(currents)) })]
	ws.Reuse = oneIn(src, "reuse", 2)
	ws.VCT = oneIn(src, "vct", 2)
	ws.Spread = oneIn(src, "spread", 4)
	ws.NodeMask = src.intn("nodeMask", 16)
	ws.Deleting = draw("deleting", 0, func() int { return src.intn("deleting", 15) }) == 14
	ws.ExcludePD = oneIn(src, "excludePD", 5)
	ws.FlagExcludePD = oneIn(src, "flagExcludePD", 8)
	ws.Gates = model.DefaultFeatureGates()
	ws.Gates.CloneSetPartitionRollback = oneIn(src, "gateRollback", 2)
	ws.Gates.PreparingUpdateAsUpdate = oneIn(src, "gatePUAU", 3)
	ws.Gates.CloneSetShortHash = oneIn(src, "gateShortHash", 4)
	ws.Gates.RecreatePodWhenChangeVCTInCloneSetGate = oneIn(src, "gateVCT", 4)
	ws.Gates.InPlaceUpdateEnvFromMetadata = !oneIn(src, "gateEnvMeta", 5)
	ws.SetAside = src.intn("setAside", 3)
	ws.Progressing = src.intn("progressing", 4)

	n := draw("pods", int(ws.Replicas), func() int { return src.intn("pods", 10) })
	for i := range n {
		ws.Pods = append(ws.Pods, genPod(src, fmt.Sprintf("p%d", i), calm))
	}
	seen := map[string]bool{}
	for range draw("podsToDelete", 0, func() int { return src.intn("podsToDelete", 4) }) {
		name := "ghost"
		if n > 0 && !oneIn(src, "ptdGhost", 4) {
			name = ws.Pods[src.intn("ptdPod", n)].Name
		}
		if !seen[name] {
			seen[name] = true
			ws.PodsToDelete = append(ws.PodsToDelete, name)
		}
	}
	for i := range src.intn("spareIDs", 3) {
		ws.SpareIDs = append(ws.SpareIDs, fmt.Sprintf("s%d", i))
	}
	ws.SpareTerminated = oneIn(src, "spareTerminated", 3)
	ws.Gates.PreDownloadImageForInPlaceUpdate = oneIn(src, "gatePreDownload", 2)
	ws.MinUpdatedReady = pick(src, "minUpdatedReady", nil, nil, ptr(int32(0)), ptr(int32(1)), ptr(int32(3)))
	ws.Parallelism = pick(src, "parallelism", nil, nil, intv(2), strv("3"))
	ws.UpdatedReady = int32(src.intn("updatedReady", 4))
	ws.StatusUpdateRev = pick(src, "statusUpdateRev", ws.CurrentRev, ws.CurrentRev, ws.TemplateRev)
	for range allRevs {
		ws.RevMarks = append(ws.RevMarks, pick(src, "revMark", 0, 0, 1, 2))
	}
	for range src.intn("jobs", 4) {
		ws.Jobs = append(ws.Jobs, pick(src, "job", 0, 0, 1, 2))
	}
	return ws
}

// genPod draws one pod. In a calm world each attribute keeps its plain value
// (Running, ready, Normal, owned, ...) except with probability 1/16.
func genPod(src source, name string, calm bool) podSpec {
	odd := func(label string) bool { return !calm || oneIn(src, label+"Odd", 16) }
	ps := podSpec{Name: name, Rev: pick(src, "podRev", revA, revB), State: model.StateNormal, Phase: model.PodRunning,
		Ready: 1, Node: fmt.Sprintf("node-%d", src.intn("podNode", 4))}
	if odd("podRev") {
		ps.Rev = pick(src, "podRev", revA, revA, revB, revB, revC, model.ShortHash(revB), "", "web-9")
	}
	if odd("podState") {
		ps.State = pick(src, "podState", model.StateNormal, model.StateNormal, model.StateNormal, "",
			model.StatePreparingNormal, model.StatePreparingUpdate, model.StateUpdating, model.StateUpdated,
			model.StatePreparingDelete, model.StatePreparingDelete, "Weird")
	}
	if odd("podPhase") {
		ps.Phase = pick(src, "podPhase", model.PodRunning, model.PodRunning, model.PodRunning, model.PodRunning,
			model.PodRunning, model.PodPending, model.PodSucceeded, model.PodFailed, model.PodUnknown)
	}
	if odd("podReady") {
		ps.Ready = pick(src, "podReady", 1, 1, 1, 2, 0)
	}
	if odd("podFlags") {
		ps.IPURFalse = oneIn(src, "podIPURFalse", 8)
		ps.Terminating = oneIn(src, "podTerminating", 8)
		ps.SpecDelete = oneIn(src, "podSpecDelete", 6)
		ps.NoHashLabel = oneIn(src, "podNoHash", 8)
		ps.Grace = pick(src, "podGrace", 0, 0, 0, 0, 0, 0, 1, 2, 3)
		ps.Owner = pick(src, "podOwner", 0, 0, 0, 0, 0, 0, 1, 2, 3)
		if oneIn(src, "podUnscheduled", 5) {
			ps.Node = ""
		}
	}
	ps.HookFin = oneIn(src, "podHookFin", 2)
	ps.HoldLabel = oneIn(src, "podHoldLabel", 3)
	ps.ExtraOwnerRef = oneIn(src, "podExtraRef", 4)
	ps.Restarts = int32(src.intn("podRestarts", 3))
	ps.Cost = pick(src, "podCost", "", "", "", "-5", "10", "+3")
	ps.CreatedAgo = time.Duration(src.intn("podCreated", 5)) * time.Hour
	ps.PVC = oneIn(src, "podPVC", 2)
	ps.KruiseGate = oneIn(src, "podKruiseGate", 4)
	return ps
}

// identity is the permutation function that keeps every slice in order.
func identity(_ string, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// permute returns xs reordered by perm.
func permute[T any](xs []T, label string, perm func(string, int) []int) []T {
	if len(xs) == 0 {
		return xs
	}
	idx := perm(label, len(xs))
	out := make([]T, len(xs))
	for i, j := range idx {
		out[i] = xs[j]
	}
	return out
}

var allRevs = []string{revA, revB, revC}

// build returns a fresh scenario for the spec; perm orders every slice.
func (ws *worldSpec) build(perm func(string, int) []int) *model.Scenario {
	cs := &model.CloneSet{
		APIVersion: model.APIVersionV1beta1, Name: "web", Namespace: "default", UID: "uid-web", Generation: 3,
		Labels: map[string]string{"app": "web"},
	}
	r := ws.Replicas
	cs.Spec.Replicas = &r
	cs.Spec.Selector = &model.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	cs.Spec.Template = templateFor(ws.TemplateRev, ws.Spread)
	cs.Spec.MinReadySeconds = ws.MinReady
	cs.Spec.ProgressDeadlineSeconds = ws.PDS
	cs.Spec.ScaleStrategy = model.ScaleStrategy{
		PodsToDelete: append([]string(nil), ws.PodsToDelete...), MaxUnavailable: ws.ScaleMaxUnavail,
		EnablePVCReuse: ws.Reuse, ExcludePreparingDelete: ws.ExcludePD,
	}
	if ws.VCT {
		cs.Spec.VolumeClaimTemplates = []model.VolumeClaimTemplate{{
			Name: "data", StorageRequest: "1Gi",
			Raw: map[string]any{"metadata": map[string]any{"name": "data"}, "spec": map[string]any{"resources": map[string]any{"requests": map[string]any{"storage": "1Gi"}}}},
		}}
	}
	if ws.OnDelete {
		cs.Spec.UpdateStrategy.Type = model.UpdateStrategyOnDelete
	} else {
		cs.Spec.UpdateStrategy.Type = model.UpdateStrategyRollingUpdate
		cs.Spec.UpdateStrategy.RollingUpdate = &model.RollingUpdateStrategy{
			PodUpdatePolicy: ws.Policy, Partition: ptr(ws.Partition), MaxSurge: ptr(ws.MaxSurge),
			MaxUnavailable: ptr(ws.MaxUnavailable), Paused: ws.Paused,
		}
		if ws.Policy != model.PolicyReCreate || ws.MinUpdatedReady != nil || ws.Parallelism != nil {
			cs.Spec.UpdateStrategy.RollingUpdate.InPlaceUpdateStrategy = &model.InPlaceUpdateStrategy{GracePeriodSeconds: ws.Grace,
				ImagePreDownloadMinUpdatedReadyPods: ws.MinUpdatedReady, ImagePreDownloadParallelism: ws.Parallelism}
		}
	}
	switch ws.Lifecycle {
	case 1:
		cs.Spec.Lifecycle = &model.Lifecycle{PreDelete: &model.LifecycleHook{FinalizersHandler: []string{hookFinalizer}}}
	case 2:
		cs.Spec.Lifecycle = &model.Lifecycle{PreDelete: &model.LifecycleHook{FinalizersHandler: []string{hookFinalizer}, MarkPodNotReady: true}}
	case 3:
		cs.Spec.Lifecycle = &model.Lifecycle{
			PreDelete:     &model.LifecycleHook{FinalizersHandler: []string{hookFinalizer}},
			InPlaceUpdate: &model.LifecycleHook{LabelsHandler: map[string]string{"example.com/hold": "true"}, MarkPodNotReady: true},
		}
	case 4:
		cs.Spec.Lifecycle = &model.Lifecycle{PreNormal: &model.LifecycleHook{FinalizersHandler: []string{hookFinalizer}}}
	case 5:
		cs.Spec.Lifecycle = &model.Lifecycle{}
	}
	model.SetDefaults(cs)
	cs.Status = model.CloneSetStatus{ObservedGeneration: 2, CurrentRevision: ws.CurrentRev, UpdateRevision: ws.StatusUpdateRev,
		UpdatedReadyReplicas: ws.UpdatedReady}
	if ws.Deleting {
		cs.DeletionTimestamp = t0.Add(-time.Minute)
	}
	switch ws.Progressing {
	case 1:
		cs.Status.Conditions = []model.CloneSetCondition{{Type: model.ConditionProgressing, Status: "True", Reason: "CloneSetUpdated",
			Message: "CloneSet is progressing", LastUpdateTime: t0.Add(-10 * time.Minute), LastTransitionTime: t0.Add(-10 * time.Minute)}}
	case 2:
		cs.Status.Conditions = []model.CloneSetCondition{{Type: model.ConditionFailedUpdate, Status: "True", Message: "earlier failure"}}
	}

	s := &model.Scenario{Now: t0, Gates: ws.Gates, CloneSet: cs}
	s.Controller.ScalingExcludePreparingDelete = ws.FlagExcludePD
	for i, name := range allRevs {
		if ws.RevMask&(1<<i) == 0 {
			continue
		}
		rv := revisionFor(name, ws.Spread)
		if ws.VCTHashes {
			rv.Annotations = map[string]string{model.AnnotationVCTHash: map[string]string{revA: "", revB: "1", revC: "1"}[name]}
		}
		if i < len(ws.RevMarks) && ws.RevMarks[i] > 0 {
			rv.Labels[[]string{model.LabelImagePreDownloadCreated, model.LabelImagePreDownloadIgnored}[ws.RevMarks[i]-1]] = "true"
		}
		s.Revisions = append(s.Revisions, rv)
	}
	for i := range 4 {
		if ws.NodeMask&(1<<i) != 0 {
			s.Nodes = append(s.Nodes, &model.Node{Name: fmt.Sprintf("node-%d", i),
				Labels: map[string]string{"zone": fmt.Sprintf("z%d", i%2), "kubernetes.io/hostname": fmt.Sprintf("node-%d", i)}})
		}
	}
	for _, ps := range ws.Pods {
		p := ps.build(perm)
		s.Pods = append(s.Pods, p)
		if ps.PVC {
			s.PVCs = append(s.PVCs, pvcOf(ps.Name))
		}
	}
	for _, id := range ws.SpareIDs {
		c := pvcOf(id)
		if ws.SpareTerminated {
			// The PVC of a pod that ended: the pod is still there, terminal.
			p := (&podSpec{Name: "web-" + id, Rev: revA, State: model.StateNormal, Phase: model.PodFailed, Node: "node-0"}).build(perm)
			p.Labels[model.LabelInstanceID] = id
			s.Pods = append(s.Pods, p)
		}
		s.PVCs = append(s.PVCs, c)
	}
	for i := range ws.SetAside {
		s.SetAside = append(s.SetAside, model.SetAside{Kind: "Pod", Name: fmt.Sprintf("other-%d", i), Reason: "controlled by ReplicaSet other"})
	}
	for i, kind := range ws.Jobs {
		owner := model.OwnerReference{APIVersion: "apps.kruise.io/v1beta1", Kind: "CloneSet", Name: "web", UID: "uid-web", Controller: true}
		switch kind {
		case 1:
			owner.Name, owner.UID = "other", "uid-other"
		case 2:
			owner.UID = ""
		}
		s.ImagePullJobs = append(s.ImagePullJobs, &model.ImagePullJob{Name: fmt.Sprintf("%s-main-%d", revB, i), Namespace: "default",
			UID: fmt.Sprintf("uid-job-%d", i), OwnerReferences: []model.OwnerReference{owner}, Image: imageOf(revB)})
	}
	s.ImagePullJobs = permute(s.ImagePullJobs, "imagePullJobs", perm)
	s.Pods = permute(s.Pods, "pods", perm)
	s.PVCs = permute(s.PVCs, "pvcs", perm)
	s.Revisions = permute(s.Revisions, "revisions", perm)
	s.Nodes = permute(s.Nodes, "nodes", perm)
	s.SetAside = permute(s.SetAside, "setAside", perm)
	return s
}

func (ps *podSpec) build(perm func(string, int) []int) *model.Pod {
	p := pod(ps.Name, ps.Rev, state(ps.State), onNode(ps.Node))
	if ps.Rev == "" {
		delete(p.Labels, model.LabelPodTemplateHash)
	}
	p.Status.Phase = ps.Phase
	switch ps.Ready {
	case 0:
		notReady(p)
	case 2:
		readySince(5 * time.Second)(p)
	}
	if ps.IPURFalse {
		p.Status.Conditions[1].Status = "False"
	}
	if ps.KruiseGate {
		p.Spec.ReadinessGates = append(p.Spec.ReadinessGates, model.ConditionKruisePodReady)
		p.Status.Conditions = append(p.Status.Conditions, model.PodCondition{Type: model.ConditionKruisePodReady, Status: "True"})
	}
	p.Status.ContainerStatuses = []model.ContainerStatus{{Name: "main", Image: imageOf(ps.Rev), ImageID: "img@sha256:1", Ready: ps.Ready != 0, RestartCount: ps.Restarts}}
	if ps.Terminating {
		terminating(p)
	}
	if ps.SpecDelete {
		specifiedDelete(p)
	}
	if ps.HookFin {
		p.Finalizers = []string{"example.com/other", hookFinalizer}
	}
	if ps.HoldLabel {
		p.Labels["example.com/hold"] = "true"
	}
	switch ps.Owner {
	case 1:
		orphan(p)
	case 2:
		p.Labels["app"] = "old-web"
	case 3:
		p.OwnerReferences = []model.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "other", UID: "uid-other", Controller: true}}
	}
	if ps.ExtraOwnerRef {
		p.OwnerReferences = append(p.OwnerReferences, model.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "cfg", UID: "uid-cfg"})
	}
	if ps.NoHashLabel {
		delete(p.Labels, model.LabelPodTemplateHash)
	}
	switch ps.Grace {
	case 1, 2:
		started := t0.Add(-3 * time.Second)
		if ps.Grace == 2 {
			started = t0.Add(-30 * time.Second)
		}
		p.Annotations[model.AnnotationInPlaceUpdateState] = fmt.Sprintf(
			`{"revision":%q,"updateTimestamp":%q,"lastContainerStatuses":{"main":{"imageID":"img@sha256:1"}},"updateImages":true}`,
			revB, started.Format(time.RFC3339))
		p.Annotations[model.AnnotationInPlaceUpdateGrace] = fmt.Sprintf(`{"revision":%q,"containerImages":{"main":"img:v2"},"graceSeconds":10}`, revB)
	case 3:
		p.Annotations[model.AnnotationInPlaceUpdateState] = "{not json"
	}
	if ps.Cost != "" {
		p.Annotations[model.AnnotationDeletionCost] = ps.Cost
	}
	if ps.CreatedAgo == 0 {
		p.CreationTimestamp = time.Time{}
	} else {
		p.CreationTimestamp = t0.Add(-ps.CreatedAgo)
	}
	p.Finalizers = permute(p.Finalizers, "finalizers/"+p.Name, perm)
	p.OwnerReferences = permute(p.OwnerReferences, "ownerRefs/"+p.Name, perm)
	p.Status.Conditions = permute(p.Status.Conditions, "conditions/"+p.Name, perm)
	return p
}
