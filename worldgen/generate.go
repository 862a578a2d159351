package worldgen

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/clonecore/cloneset/model"
)

// readiness stages of a pod (Readiness).
const (
	stageReady = iota
	stageUnscheduled
	stagePending
	stageNotReady
	stageMaturing
)

const (
	idAlphabet  = "bcdfghjklmnpqrstvwxz2456789" // the controller's instance-id alphabet
	idSpace     = 27 * 27 * 27 * 27 * 27
	mainName    = "main"
	sidecarName = "log-agent"
	sidecarImg  = "registry.example.com/log-agent:1.4.2"
	appImage    = "registry.example.com/shop/web:"
)

// gen is the state of one generation.
type gen struct {
	o       Options
	rng     *rand.Rand
	name    string
	ns      string
	uid     string
	idMul   uint64
	idOff   uint64
	labels  map[string]string // selector labels
	vcts    []string
	inPlace bool
}

// Generate builds the world the options describe. It panics only on options
// that cannot describe a world (negative Pods).
func Generate(o Options) *model.Scenario {
	if o.Pods < 0 {
		panic("worldgen: negative Pods")
	}
	g := &gen{o: o, rng: rand.New(rand.NewPCG(uint64(o.Seed), 0x636c6f6e65736574))}
	g.name = orDefault(o.Name, "sample")
	g.ns = orDefault(o.Namespace, "default")
	g.uid = fmt.Sprintf("%08x-0000-4000-8000-%012x", uint32(o.Seed), uint64(o.Seed)>>16&0xffffffffffff)
	// Instance ids: i -> (i*idMul + idOff) mod 27^5 is a bijection because
	// idMul is not a multiple of 3.
	g.idMul = g.rng.Uint64N(idSpace/3)*3 + 1 + g.rng.Uint64N(2)
	g.idOff = g.rng.Uint64N(idSpace)
	g.labels = map[string]string{"app": g.name}
	for i := range o.VolumeClaimTemplates {
		g.vcts = append(g.vcts, vctName(i))
	}
	g.inPlace = o.Policy == model.PolicyInPlaceIfPossible || o.Policy == model.PolicyInPlaceOnly
	return g.world()
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func vctName(i int) string {
	names := []string{"data", "logs", "cache"}
	if i < len(names) {
		return names[i]
	}
	return "vol-" + strconv.Itoa(i)
}

// id returns instance id number i (distinct for distinct i below 27^5).
func (g *gen) id(i int) string {
	h := (uint64(i)*g.idMul + g.idOff) % idSpace
	var b [5]byte
	for j := range b {
		b[j] = idAlphabet[h%27]
		h /= 27
	}
	return string(b[:])
}

// share turns a share of n into a whole count in [0, n].
func share(f float64, n int) int {
	return min(max(int(math.Round(f*float64(n))), 0), n)
}

// revision is one generated revision: its image, template and name.
type revision struct {
	image string
	tmpl  model.PodTemplate
	name  string
	hash  string
}

func (g *gen) revision(version int) revision {
	img := appImage + "1." + strconv.Itoa(version) + ".0"
	t := g.template(img)
	data, _ := model.RevisionData(t) // the generated templates are readable by the API types
	hash := model.TemplateHash(data, 0)
	return revision{image: img, tmpl: t, name: model.RevisionName(g.name, hash), hash: hash}
}

// podPlan is what the generator decided about one active pod.
type podPlan struct {
	updated  bool
	stage    int
	state    string
	hooked   bool
	deleteBy int // 0 none, 1 label, 2 podsToDelete
}

func (g *gen) world() *model.Scenario {
	o := g.o
	n := o.Pods
	r := g.rng

	// Revisions: History older ones, the current one, and the update one
	// when a rollout is under way.
	var revs []revision
	for v := 0; v <= o.History; v++ {
		revs = append(revs, g.revision(v))
	}
	cur := revs[len(revs)-1]
	upd := cur
	if o.Rollout {
		upd = g.revision(o.History + 1)
		revs = append(revs, upd)
	}

	plans := make([]podPlan, n)
	// Revisions.
	if o.Rollout {
		for _, i := range r.Perm(n)[:share(o.Updated, n)] {
			plans[i].updated = true
		}
	} else {
		for i := range plans {
			plans[i].updated = true
		}
	}
	// Readiness stages, exclusive.
	perm := r.Perm(n)
	k := 0
	for _, st := range []struct {
		stage int
		f     float64
	}{
		{stageUnscheduled, o.Readiness.Unscheduled}, {stagePending, o.Readiness.Pending},
		{stageNotReady, o.Readiness.NotReady}, {stageMaturing, o.Readiness.Maturing},
	} {
		for c := share(st.f, n); c > 0 && k < n; c-- {
			plans[perm[k]].stage = st.stage
			k++
		}
	}
	// Hook markers.
	if o.Hooks {
		for _, i := range r.Perm(n)[:share(o.Hooked, n)] {
			plans[i].hooked = true
		}
	}
	// Lifecycle states, on scheduled pods whose containers started.
	quota := struct{ pd, pu, uing, uted int }{}
	if o.Hooks {
		quota.pd = share(o.States.PreparingDelete, n)
		if o.Rollout {
			quota.pu = share(o.States.PreparingUpdate, n)
			if g.inPlace {
				quota.uted = share(o.States.Updated, n)
			}
		}
	}
	if o.Rollout && g.inPlace {
		quota.uing = share(o.States.Updating, n)
	}
	for _, i := range r.Perm(n) {
		p := &plans[i]
		switch {
		case p.stage == stageUnscheduled:
			p.state = model.StatePreparingNormal
			continue
		case p.stage == stagePending:
			if o.Hooks {
				p.state = model.StatePreparingNormal // waiting for the preNormal label
			} else {
				p.state = model.StateNormal
			}
			continue
		}
		p.state = model.StateNormal
		switch {
		case quota.pd > 0:
			p.state, p.hooked = model.StatePreparingDelete, true
			quota.pd--
		case !p.updated && quota.pu > 0:
			p.state, p.hooked = model.StatePreparingUpdate, true
			quota.pu--
		case p.updated && o.Rollout && quota.uing > 0:
			p.state = model.StateUpdating
			quota.uing--
		case p.updated && o.Rollout && quota.uted > 0:
			p.state = model.StateUpdated
			quota.uted--
		}
	}
	// Specified deletes.
	del := r.Perm(n)
	nLabel := min(o.SpecifiedDelete, n)
	nNamed := min(o.PodsToDelete, n-nLabel)
	for _, i := range del[:nLabel] {
		plans[i].deleteBy = 1
	}
	for _, i := range del[nLabel : nLabel+nNamed] {
		plans[i].deleteBy = 2
	}

	// Nodes.
	perNode := o.PodsPerNode
	if perNode <= 0 {
		perNode = 8
	}
	zones := o.Zones
	if zones <= 0 {
		zones = 3
	}
	numNodes := max((n+perNode-1)/perNode, 1)
	nodes := make([]*model.Node, numNodes)
	for i := range nodes {
		name := fmt.Sprintf("node-%05d", i)
		nodes[i] = &model.Node{Name: name, Labels: map[string]string{
			LabelHostname:      name,
			LabelZone:          zoneName(i % zones),
			"kubernetes.io/os": "linux",
		}}
	}

	s := &model.Scenario{
		Description: fmt.Sprintf("worldgen seed %d: %d pods", o.Seed, n),
		Now:         Epoch,
		Gates:       model.DefaultFeatureGates(),
		Nodes:       nodes,
	}
	if o.Gates != nil {
		s.Gates = *o.Gates
	}
	var podsToDelete []string
	for i := range plans {
		p := g.pod(i, &plans[i], cur, upd, numNodes)
		s.Pods = append(s.Pods, p)
		if plans[i].deleteBy == 2 {
			podsToDelete = append(podsToDelete, p.Name)
		}
		s.PVCs = append(s.PVCs, g.claims(g.id(i))...)
	}
	for j := range o.Terminating {
		i := n + j
		pl := podPlan{updated: !o.Rollout || r.IntN(2) == 0, state: model.StateNormal}
		p := g.pod(i, &pl, cur, upd, numNodes)
		p.DeletionTimestamp = Epoch.Add(-time.Duration(5+r.IntN(60)) * time.Second)
		s.Pods = append(s.Pods, p)
		s.PVCs = append(s.PVCs, g.claims(g.id(i))...)
	}
	for j := range o.OrphanPVCs {
		s.PVCs = append(s.PVCs, g.claims(g.id(n+o.Terminating+j))...)
	}
	if o.APIVersion != model.APIVersionV1alpha1 {
		for j := range o.StalePodsToDelete {
			podsToDelete = append(podsToDelete, g.name+"-"+g.id(n+o.Terminating+o.OrphanPVCs+j))
		}
	}
	for v, rv := range revs {
		s.Revisions = append(s.Revisions, g.controllerRevision(rv, v+1))
	}
	s.CloneSet = g.cloneSet(upd.tmpl, cur, upd, podsToDelete)
	g.setStatus(s.CloneSet, s.Pods, cur, upd)
	for j := range o.ImagePullJobs {
		name := upd.name + "-" + mainName
		if j > 0 {
			name += "-" + strconv.Itoa(j)
		}
		s.ImagePullJobs = append(s.ImagePullJobs, &model.ImagePullJob{
			Name: name, Namespace: g.ns, UID: fmt.Sprintf("%08x-%04x-4000-a000-%012x", uint32(o.Seed), j&0xffff, uint64(j)),
			Labels: maps.Clone(g.labels), Image: upd.image,
			OwnerReferences: []model.OwnerReference{{
				APIVersion: model.APIVersionV1beta1, Kind: "CloneSet", Name: g.name, UID: g.uid, Controller: true,
			}},
		})
	}
	return s
}

func zoneName(i int) string {
	if i < 26 {
		return "zone-" + string(rune('a'+i))
	}
	return "zone-" + strconv.Itoa(i)
}

// template builds the pod template of a revision, as a raw tree and typed
// fields that agree.
func (g *gen) template(image string) model.PodTemplate {
	num := func(v int) json.Number { return json.Number(strconv.Itoa(v)) }
	main := map[string]any{
		"name":  mainName,
		"image": image,
		"ports": []any{map[string]any{"name": "http", "containerPort": num(8080), "protocol": "TCP"}},
		"env": []any{
			map[string]any{"name": "POD_NAME", "valueFrom": map[string]any{"fieldRef": map[string]any{"fieldPath": "metadata.name"}}},
			map[string]any{"name": "LOG_LEVEL", "value": "info"},
		},
		"resources": map[string]any{
			"requests": map[string]any{"cpu": "250m", "memory": "256Mi"},
			"limits":   map[string]any{"cpu": "1", "memory": "512Mi"},
		},
		"readinessProbe": map[string]any{
			"httpGet":       map[string]any{"path": "/healthz", "port": "http"},
			"periodSeconds": num(5),
		},
	}
	if len(g.vcts) > 0 {
		var mounts []any
		for _, v := range g.vcts {
			mounts = append(mounts, map[string]any{"name": v, "mountPath": "/var/lib/" + v})
		}
		main["volumeMounts"] = mounts
	}
	sidecar := map[string]any{
		"name":      sidecarName,
		"image":     sidecarImg,
		"resources": map[string]any{"requests": map[string]any{"cpu": "50m", "memory": "64Mi"}},
	}
	spec := map[string]any{
		"containers":                    []any{main, sidecar},
		"restartPolicy":                 "Always",
		"terminationGracePeriodSeconds": num(30),
	}
	t := model.PodTemplate{
		Labels: maps.Clone(g.labels),
		Spec: model.PodSpec{
			Containers: []model.Container{
				{
					Name: mainName, Image: image,
					Env: []model.EnvVar{{Name: "POD_NAME", FieldPath: "metadata.name"}, {Name: "LOG_LEVEL", Value: "info", HasValue: true}},
					Resources: model.ResourceRequirements{
						Requests: map[string]model.Quantity{"cpu": model.MustParseQuantity("250m"), "memory": model.MustParseQuantity("256Mi")},
						Limits:   map[string]model.Quantity{"cpu": model.MustParseQuantity("1"), "memory": model.MustParseQuantity("512Mi")},
					},
				},
				{
					Name: sidecarName, Image: sidecarImg,
					Resources: model.ResourceRequirements{
						Requests: map[string]model.Quantity{"cpu": model.MustParseQuantity("50m"), "memory": model.MustParseQuantity("64Mi")},
					},
				},
			},
			RestartPolicy: "Always",
		},
	}
	if g.o.SpreadConstraints {
		var tscs []any
		for _, key := range []string{LabelZone, LabelHostname} {
			tscs = append(tscs, map[string]any{
				"maxSkew": num(1), "topologyKey": key, "whenUnsatisfiable": "ScheduleAnyway",
				"labelSelector": map[string]any{"matchLabels": map[string]any{"app": g.name}},
			})
			t.Spec.TopologySpreadConstraints = append(t.Spec.TopologySpreadConstraints, model.TopologySpreadConstraint{TopologyKey: key})
		}
		spec["topologySpreadConstraints"] = tscs
	}
	t.Raw = map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"app": g.name}},
		"spec":     spec,
	}
	return t
}

// cloneContainers copies containers deeply enough that no two pods share a
// slice or a map.
func cloneContainers(cs []model.Container) []model.Container {
	out := slices.Clone(cs)
	for i := range out {
		out[i].Env = slices.Clone(out[i].Env)
		out[i].Resources = model.ResourceRequirements{
			Limits: maps.Clone(out[i].Resources.Limits), Requests: maps.Clone(out[i].Resources.Requests),
		}
	}
	return out
}

// imageID is the digest a kubelet reports for an image.
func imageID(image string) string {
	h := uint64(14695981039346656037)
	for i := 0; i < len(image); i++ {
		h = (h ^ uint64(image[i])) * 1099511628211
	}
	return fmt.Sprintf("registry.example.com/shop/web@sha256:%016x%016x", h, h*31)
}

// pod builds active (or, once the caller sets deletionTimestamp, terminating)
// pod number i.
func (g *gen) pod(i int, pl *podPlan, cur, upd revision, numNodes int) *model.Pod {
	o, r := g.o, g.rng
	id := g.id(i)
	rev := cur
	if pl.updated {
		rev = upd
	}
	m := o.MinReadySeconds
	created := Epoch.Add(-time.Hour - time.Duration(r.IntN(7*24*3600))*time.Second)
	p := &model.Pod{
		Name:              g.name + "-" + id,
		Namespace:         g.ns,
		UID:               fmt.Sprintf("%08x-%04x-4000-9000-%012x", uint32(o.Seed)^uint32(i), i&0xffff, uint64(i)),
		CreationTimestamp: created,
		OwnerReferences: []model.OwnerReference{{
			APIVersion: orDefault(o.APIVersion, model.APIVersionV1beta1), Kind: "CloneSet",
			Name: g.name, UID: g.uid, Controller: true,
		}},
	}
	p.Labels = maps.Clone(g.labels)
	p.Labels[model.LabelRevisionHash] = rev.name
	p.Labels[model.LabelPodTemplateHash] = rev.hash
	p.Labels[model.LabelInstanceID] = id
	p.Labels[model.LabelLifecycleState] = pl.state
	if o.UpdatePriority {
		p.Labels[LabelRack] = "r" + strconv.Itoa(r.IntN(4))
	}
	if o.Hooks && pl.state != model.StatePreparingNormal {
		p.Labels[LabelWarmedUp] = "true"
	}
	if pl.hooked {
		p.Finalizers = []string{FinalizerPreDelete}
		if pl.state != model.StateUpdated {
			p.Labels[LabelHoldUpdate] = "true"
		}
	}
	if pl.deleteBy == 1 {
		p.Labels[model.LabelSpecifiedDelete] = "true"
	}
	p.Annotations = map[string]string{
		model.AnnotationLifecycleTimestamp: created.Add(30 * time.Second).Format(time.RFC3339),
	}
	if r.Float64() < o.DeletionCosts {
		p.Annotations[model.AnnotationDeletionCost] = strconv.Itoa(r.IntN(201) - 100)
	}

	// Spec: the revision's containers (an Updating pod runs the new spec).
	specImage := rev.image
	p.Spec = model.PodSpec{
		Containers:                cloneContainers(rev.tmpl.Spec.Containers),
		TopologySpreadConstraints: slices.Clone(rev.tmpl.Spec.TopologySpreadConstraints),
		Volumes:                   slices.Clone(g.vcts),
		RestartPolicy:             "Always",
		ReadinessGates:            []string{model.ConditionInPlaceUpdateReady},
	}
	if pl.stage != stageUnscheduled {
		p.Spec.NodeName = fmt.Sprintf("node-%05d", r.IntN(numNodes))
	}

	// Status.
	statusImage := specImage
	// Three updated pods in four were updated in place (they keep the state
	// annotation), the others recreated.
	inPlaceDone := g.inPlace && pl.updated && o.Rollout &&
		(pl.state == model.StateUpdated || pl.state != model.StateUpdating && r.IntN(4) != 0)
	if pl.state == model.StateUpdating {
		statusImage = cur.image // the new image is not running yet
	}
	readyAt := created.Add(time.Duration(20+r.IntN(60)) * time.Second)
	if pl.updated && o.Rollout {
		readyAt = Epoch.Add(-time.Duration(int(m)+1+r.IntN(1800)) * time.Second)
		if !inPlaceDone && pl.state != model.StateUpdating {
			p.CreationTimestamp = readyAt.Add(-20 * time.Second)
		}
	}
	p.Status.Phase = model.PodRunning
	ready, inPlaceReady := true, true
	switch pl.stage {
	case stageUnscheduled:
		p.Status.Phase = model.PodPending
		p.Status.Conditions = []model.PodCondition{{Type: "PodScheduled", Status: "False", Reason: "Unschedulable",
			Message: "0/" + strconv.Itoa(numNodes) + " nodes are available: insufficient cpu.", LastTransitionTime: p.CreationTimestamp}}
		return p
	case stagePending:
		p.Status.Phase = model.PodPending
		ready = false
	case stageNotReady:
		ready = false
	case stageMaturing:
		if m > 0 {
			readyAt = Epoch.Add(-time.Duration(r.IntN(int(m))) * time.Second)
		}
	}
	if pl.state == model.StateUpdating {
		ready, inPlaceReady = false, false
	}
	cond := func(t string, ok bool, at time.Time) model.PodCondition {
		c := model.PodCondition{Type: t, Status: "True", LastTransitionTime: at}
		if !ok {
			c.Status = "False"
		}
		return c
	}
	started := p.CreationTimestamp.Add(5 * time.Second)
	readyCond := cond(model.ConditionReady, ready, readyAt)
	if !ready {
		readyCond.Reason = "ContainersNotReady"
		readyCond.Message = "containers with unready status: [" + mainName + "]"
		readyCond.LastTransitionTime = Epoch.Add(-time.Duration(1+r.IntN(120)) * time.Second)
	}
	ipr := cond(model.ConditionInPlaceUpdateReady, inPlaceReady, p.CreationTimestamp)
	if !inPlaceReady {
		ipr.Reason = "StartInPlaceUpdate"
		ipr.LastTransitionTime = Epoch.Add(-30 * time.Second)
	}
	p.Status.Conditions = []model.PodCondition{
		ipr,
		cond("Initialized", true, started),
		readyCond,
		cond(model.ConditionContainersReady, ready, readyCond.LastTransitionTime),
		cond("PodScheduled", true, p.CreationTimestamp),
	}
	restarts := int32(0)
	if r.IntN(10) == 0 {
		restarts = int32(1 + r.IntN(3))
	}
	running := pl.stage != stagePending
	p.Status.ContainerStatuses = []model.ContainerStatus{
		{Name: mainName, Image: statusImage, ImageID: imageID(statusImage), ContainerID: containerID(p.UID, 0),
			Ready: ready && running, RestartCount: restarts},
		{Name: sidecarName, Image: sidecarImg, ImageID: imageID(sidecarImg), ContainerID: containerID(p.UID, 1),
			Ready: running},
	}
	if !running {
		for j := range p.Status.ContainerStatuses {
			p.Status.ContainerStatuses[j].ImageID, p.Status.ContainerStatuses[j].ContainerID = "", ""
		}
	}
	switch {
	case pl.state == model.StateUpdating:
		p.Annotations[model.AnnotationInPlaceUpdateState] = inPlaceState(upd.name, Epoch.Add(-30*time.Second), imageID(cur.image))
	case inPlaceDone:
		p.Annotations[model.AnnotationInPlaceUpdateState] = inPlaceState(upd.name, readyAt.Add(-10*time.Second), imageID(cur.image))
	}
	return p
}

func containerID(uid string, k int) string {
	return fmt.Sprintf("containerd://%s%02d", uid[len(uid)-12:], k)
}

// inPlaceState is the apps.kruise.io/inplace-update-state annotation of an
// in-place update of the main container to revision rev.
func inPlaceState(rev string, at time.Time, oldImageID string) string {
	return `{"revision":"` + rev + `","updateTimestamp":"` + at.UTC().Format(time.RFC3339) +
		`","lastContainerStatuses":{"` + mainName + `":{"imageID":"` + oldImageID + `"}},"updateImages":true}`
}

// claims returns the PVCs of instance id id, one per volume claim template.
func (g *gen) claims(id string) []*model.PVC {
	var out []*model.PVC
	for _, v := range g.vcts {
		c := &model.PVC{
			Name:      v + "-" + g.name + "-" + id,
			Namespace: g.ns,
			Labels:    maps.Clone(g.labels),
			Annotations: map[string]string{
				"pv.kubernetes.io/bind-completed": "yes",
			},
			OwnerReferences: []model.OwnerReference{{
				APIVersion: model.APIVersionV1beta1, Kind: "CloneSet", Name: g.name, UID: g.uid, Controller: true,
			}},
			StorageRequest: "10Gi",
		}
		c.Labels[model.LabelInstanceID] = id
		out = append(out, c)
	}
	return out
}

func (g *gen) controllerRevision(rv revision, number int) *model.Revision {
	out := &model.Revision{
		Name:              rv.name,
		Revision:          int64(number),
		CreationTimestamp: Epoch.Add(-time.Duration(30-number) * 24 * time.Hour),
		Labels:            map[string]string{"app": g.name, model.LabelPodTemplateHash: rv.hash},
		Template:          rv.tmpl,
		HasTemplate:       true,
	}
	if len(g.vcts) > 0 {
		out.Annotations = map[string]string{model.AnnotationVCTHash: g.vctHash()}
	}
	return out
}

// vctHash stands for the hash the controller writes on its revisions; only
// equality between revisions matters.
func (g *gen) vctHash() string {
	h := uint32(2166136261)
	for _, v := range g.vcts {
		for i := 0; i < len(v); i++ {
			h = (h ^ uint32(v[i])) * 16777619
		}
	}
	return strconv.FormatUint(uint64(h), 10)
}

func (g *gen) cloneSet(tmpl model.PodTemplate, cur, upd revision, podsToDelete []string) *model.CloneSet {
	o := g.o
	replicas := int32(o.Pods)
	if o.Replicas != nil {
		replicas = *o.Replicas
	}
	gen := int64(4)
	if o.Rollout {
		gen = 5
	}
	cs := &model.CloneSet{
		APIVersion: orDefault(o.APIVersion, model.APIVersionV1beta1),
		Name:       g.name,
		Namespace:  g.ns,
		UID:        g.uid,
		Generation: gen,
		Labels:     maps.Clone(g.labels),
	}
	spec := &cs.Spec
	spec.Replicas = &replicas
	spec.Selector = &model.LabelSelector{MatchLabels: maps.Clone(g.labels)}
	spec.Template = tmpl
	spec.MinReadySeconds = o.MinReadySeconds
	for _, v := range g.vcts {
		spec.VolumeClaimTemplates = append(spec.VolumeClaimTemplates, model.VolumeClaimTemplate{
			Name:           v,
			StorageRequest: "10Gi",
			Raw: map[string]any{
				"metadata": map[string]any{"name": v},
				"spec": map[string]any{
					"accessModes": []any{"ReadWriteOnce"},
					"resources":   map[string]any{"requests": map[string]any{"storage": "10Gi"}},
				},
			},
		})
	}
	spec.ScaleStrategy.PodsToDelete = podsToDelete
	spec.ScaleStrategy.MaxUnavailable = o.ScaleMaxUnavailable
	if o.Hooks {
		spec.Lifecycle = &model.Lifecycle{
			PreDelete:     &model.LifecycleHook{FinalizersHandler: []string{FinalizerPreDelete}},
			InPlaceUpdate: &model.LifecycleHook{LabelsHandler: map[string]string{LabelHoldUpdate: "true"}},
			PreNormal:     &model.LifecycleHook{LabelsHandler: map[string]string{LabelWarmedUp: "true"}},
		}
	}
	ru := model.RollingUpdateStrategy{
		Partition:      o.Partition,
		MaxUnavailable: o.MaxUnavailable,
		MaxSurge:       o.MaxSurge,
		Paused:         o.Paused,
	}
	if g.inPlace {
		ru.InPlaceUpdateStrategy = &model.InPlaceUpdateStrategy{GracePeriodSeconds: o.GracePeriodSeconds}
	}
	if o.UpdatePriority {
		ru.PriorityStrategy = &model.UpdatePriorityStrategy{WeightPriority: []model.UpdatePriorityWeightTerm{
			{Weight: 50, MatchSelector: model.LabelSelector{MatchLabels: map[string]string{LabelRack: "r1"}}},
		}}
		ru.ScatterStrategy = []model.ScatterTerm{{Key: LabelRack, Value: "r2"}}
	}
	policy := orDefault(o.Policy, model.PolicyReCreate)
	if cs.APIVersion == model.APIVersionV1alpha1 {
		cs.V1alpha1 = &model.V1alpha1Fields{UpdateStrategyType: policy, UpdateStrategy: ru, DisablePVCReuse: !o.PVCReuse}
		model.SetDefaults(cs)
		model.ConvertV1alpha1(cs)
	} else {
		ru.PodUpdatePolicy = policy
		spec.ScaleStrategy.EnablePVCReuse = o.PVCReuse
		spec.UpdateStrategy = model.UpdateStrategy{Type: model.UpdateStrategyRollingUpdate, RollingUpdate: &ru}
		model.SetDefaults(cs)
	}
	return cs
}

// setStatus writes the status the controller wrote at its previous
// reconcile: the counters of the active pods and the two revisions.
func (g *gen) setStatus(cs *model.CloneSet, pods []*model.Pod, cur, upd revision) {
	st := &cs.Status
	st.ObservedGeneration = cs.Generation
	st.CurrentRevision = cur.name
	st.UpdateRevision = upd.name
	st.CollisionCount = int32Ptr(0)
	st.LabelSelector = cs.Spec.Selector.String()
	for _, p := range pods {
		if !p.IsActive() {
			continue
		}
		st.Replicas++
		ready := p.IsStatusReady()
		avail := p.IsAvailable(cs.Spec.MinReadySeconds, Epoch)
		if ready {
			st.ReadyReplicas++
		}
		if avail {
			st.AvailableReplicas++
		}
		if p.InRevision(upd.name) {
			st.UpdatedReplicas++
			if ready {
				st.UpdatedReadyReplicas++
			}
			if avail {
				st.UpdatedAvailableReplicas++
			}
		}
	}
	st.ExpectedUpdatedReplicas = int32(cs.Spec.DesiredReplicas())
}
