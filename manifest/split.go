package manifest

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/clonecore/cloneset/model"
)

// LoadAll reads a stream that may hold many CloneSets (a namespace dump such as
// `kubectl get cloneset,pods,pvc,controllerrevisions,nodes -n prod -o yaml`) with
// the default Options and returns one scenario per CloneSet, in namespace/name
// order; source names the stream in error messages.
//
// Each CloneSet gets the objects it would claim (Options.LoadAll states the
// rules), every Node, and the settings of the stream's Scenario document, which
// applies to all of them. A stream with exactly one CloneSet gives exactly the
// scenario Load gives; a stream without a CloneSet is the same error as for
// Load.
func LoadAll(r io.Reader, source string) ([]*model.Scenario, error) {
	return Options{}.LoadAll(r, source)
}

// LoadAllBytes is LoadAll for a stream held in memory.
func LoadAllBytes(data []byte, source string) ([]*model.Scenario, error) {
	return Options{}.LoadAllBytes(data, source)
}

// LoadAllFiles is LoadAll over several files taken as one stream, in order, as
// LoadFiles takes them ("-" is stdin, read once).
func LoadAllFiles(paths []string, stdin io.Reader) ([]*model.Scenario, error) {
	return Options{}.LoadAllFiles(paths, stdin)
}

// LoadAll is the package-level LoadAll with these options.
//
// How a stream is split (each CloneSet claims objects the way its controller
// would, and only objects of its own namespace):
//
//   - A Pod with a controller owner reference belongs to the CloneSet the
//     reference designates (by uid, by kind and name when either uid is
//     missing). A Pod without one belongs to the CloneSet whose selector
//     matches its labels, unless the Pod or that CloneSet is being deleted
//     (neither adopts then).
//   - A PersistentVolumeClaim belongs to the CloneSet its controller owner
//     reference designates, or to the CloneSet of the Pod it designates.
//   - With several CloneSets, a ControllerRevision belongs to the CloneSet its
//     controller owner reference designates, and one without a controller
//     owner reference to the CloneSet whose selector matches its labels. (With
//     one CloneSet, as for Load, every ControllerRevision of its namespace is
//     read.)
//   - An ImagePullJob belongs to the CloneSet its controller owner reference
//     designates (ImagePullJobLeftOut).
//   - Every Node goes to every scenario (each scenario has its own copies).
//
// An object claimed by two CloneSets (an orphan pod both selectors match) is
// given to neither, since which controller adopts it is a race: each of them
// lists it in Scenario.SetAside with the other claimants, so both plans name it
// in their notes. An object claimed by none is listed in Scenario.SetAside (and
// so named in the plan's notes) of every CloneSet of its namespace, with the
// reason that CloneSet leaves it out; when its namespace has no CloneSet, of
// every CloneSet of the stream, as Load does for a stream of one CloneSet.
// Objects of other kinds are ignored, as by Load.
//
// Objects without a namespace are in the CloneSets' namespace when all
// CloneSets share one, else in "default". The default clock (the newest
// timestamp of the objects) is the stream's, the same for every scenario.
// Bad input is an error naming the object and field, as for Load; two
// CloneSets with one namespace and name, or with one uid, are bad input too.
func (o Options) LoadAll(r io.Reader, source string) ([]*model.Scenario, error) {
	data, err := o.ReadAll(r, source)
	if err != nil {
		return nil, err
	}
	return o.LoadAllBytes(data, source)
}

// LoadAllBytes is the package-level LoadAllBytes with these options.
func (o Options) LoadAllBytes(data []byte, source string) ([]*model.Scenario, error) {
	return o.loadAll([]input{{source, data}})
}

// LoadAllFiles is the package-level LoadAllFiles with these options.
func (o Options) LoadAllFiles(paths []string, stdin io.Reader) ([]*model.Scenario, error) {
	inputs, err := o.readInputs(paths, stdin)
	if err != nil {
		return nil, err
	}
	return o.loadAll(inputs)
}

func (o Options) loadAll(inputs []input) ([]*model.Scenario, error) {
	l, err := o.read(inputs)
	if err != nil {
		return nil, err
	}
	return l.assembleAll()
}

// assembleAll is assemble for any number of CloneSets.
func (l *loader) assembleAll() ([]*model.Scenario, error) {
	if len(l.clone) <= 1 {
		scn, err := l.assemble()
		if err != nil {
			return nil, err
		}
		return []*model.Scenario{scn}, nil
	}
	if len(l.scn) > 1 {
		return nil, fmt.Errorf("%d Scenario documents in the input, at most one is allowed: %s and %s", len(l.scn), l.scn[0].where, l.scn[1].where)
	}

	sets := append([]located[*model.CloneSet](nil), l.clone...)
	for _, c := range sets {
		model.DefaultStored(c.obj)
	}
	sort.SliceStable(sets, func(i, j int) bool {
		a, b := sets[i].obj, sets[j].obj
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
	if err := duplicateCloneSets(sets); err != nil {
		return nil, err
	}

	ns := sets[0].obj.Namespace
	for _, c := range sets {
		if c.obj.Namespace != ns {
			ns = model.DefaultNamespace
			break
		}
	}
	l.inheritNamespace(ns)
	if err := l.duplicates(); err != nil {
		return nil, err
	}

	allPods := l.allPods()
	var errs []error
	for _, c := range sets {
		if err := l.validate(c, allPods); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}

	base := l.settings()
	out := make([]*model.Scenario, len(sets))
	for i, c := range sets {
		s := *base
		s.CloneSet = c.obj
		out[i] = &s
	}
	l.claim(out)
	return out, nil
}

// duplicateCloneSets rejects two CloneSets of one namespace and name, or of
// one uid; sets is sorted by namespace and name.
func duplicateCloneSets(sets []located[*model.CloneSet]) error {
	uids := map[string]located[*model.CloneSet]{}
	for i, c := range sets {
		cs := c.obj
		if i > 0 && sets[i-1].obj.Namespace == cs.Namespace && sets[i-1].obj.Name == cs.Name {
			return fmt.Errorf("%s: CloneSet %s/%s: metadata.name: Duplicate value: a second CloneSet with this name (the other is at %s); names are unique in a namespace", c.where, cs.Namespace, cs.Name, sets[i-1].where)
		}
		if cs.UID == "" {
			continue
		}
		if first, ok := uids[cs.UID]; ok {
			return fmt.Errorf("%s: CloneSet %s/%s: metadata.uid: Duplicate value: %q is also the uid of CloneSet %s/%s (%s); uids are unique in a cluster", c.where, cs.Namespace, cs.Name, cs.UID, first.obj.Namespace, first.obj.Name, first.where)
		}
		uids[cs.UID] = c
	}
	return nil
}

// duplicates rejects two pods, PVCs, revisions, ImagePullJobs or nodes of one name.
func (l *loader) duplicates() error {
	if err := duplicateNames(kindPod, l.pods, func(p *model.Pod) string { return p.Namespace + "/" + p.Name }); err != nil {
		return err
	}
	if err := duplicateNames(kindPVC, l.pvcs, func(p *model.PVC) string { return p.Namespace + "/" + p.Name }); err != nil {
		return err
	}
	if err := duplicateNamesNS(kindRevision, l.revs); err != nil {
		return err
	}
	if err := duplicateNames(kindJob, l.jobs, func(j *model.ImagePullJob) string { return j.Namespace + "/" + j.Name }); err != nil {
		return err
	}
	return duplicateNames(kindNode, l.nodes, func(n *model.Node) string { return n.Name })
}

// allPods are the pods of the stream, for the podsToDelete rule (A10).
func (l *loader) allPods() []*model.Pod {
	pods := make([]*model.Pod, len(l.pods))
	for i, p := range l.pods {
		pods[i] = p.obj
	}
	return pods
}

// validate applies the validating webhook's rules to a CloneSet
// model.DefaultStored prepared; each error points at the line of the
// offending field.
func (l *loader) validate(c located[*model.CloneSet], pods []*model.Pod) error {
	cs := c.obj
	var errs []error
	for _, fe := range (model.StoredOptions{SkipBudgetRule: l.opts.SkipBudgetRule}).Validate(cs, pods) {
		errs = append(errs, fmt.Errorf("%s: CloneSet %s/%s: %s", where(c.src, nodeAt(c.node, fe.Path)), cs.Namespace, cs.Name, fe.Error()))
	}
	return errors.Join(errs...)
}

// settings is the scenario of the Scenario document (or the defaults), with
// the clock of the Options, else the document's, else the stream's (the
// newest timestamp of its objects).
func (l *loader) settings() *model.Scenario {
	scn := &model.Scenario{Gates: model.DefaultFeatureGates()}
	if len(l.scn) == 1 {
		scn = l.scn[0].obj
	}
	switch {
	case !l.opts.Now.IsZero():
		scn.Now = l.opts.Now
	case scn.Now.IsZero():
		scn.Now = l.newest
		scn.NowFromObjects = !l.newest.IsZero()
	}
	return scn
}

// claim gives every pod, PVC, revision and ImagePullJob to the CloneSet that claims it and
// every node to every scenario; out holds one scenario per CloneSet, sorted.
// What no CloneSet or several claim goes to SetAside (see Options.LoadAll).
func (l *loader) claim(out []*model.Scenario) {
	byNS := map[string][]int{}
	all := make([]int, len(out))
	for i, s := range out {
		byNS[s.CloneSet.Namespace] = append(byNS[s.CloneSet.Namespace], i)
		all[i] = i
	}
	// witnesses are the CloneSets that name an object nobody claims.
	witnesses := func(ns string) []int {
		if w, ok := byNS[ns]; ok {
			return w
		}
		return all
	}
	// settle gives an object to its one claimant, or lists it in SetAside.
	settle := func(kind, name, ns string, leftOut func(i int) string, give func(i int), many string) {
		var claimants []int
		for _, i := range byNS[ns] {
			if leftOut(i) == "" {
				claimants = append(claimants, i)
			}
		}
		switch len(claimants) {
		case 1:
			give(claimants[0])
		case 0:
			for _, i := range witnesses(ns) {
				out[i].SetAside = append(out[i].SetAside, model.SetAside{Kind: kind, Name: name, Reason: leftOut(i)})
			}
		default:
			names := make([]string, len(claimants))
			for k, i := range claimants {
				names[k] = out[i].CloneSet.Namespace + "/" + out[i].CloneSet.Name
			}
			reason := fmt.Sprintf("claimed by CloneSets %s (%s)", strings.Join(names, " and "), many)
			for _, i := range claimants {
				out[i].SetAside = append(out[i].SetAside, model.SetAside{Kind: kind, Name: name, Reason: reason})
			}
		}
	}
	const race = "which one adopts it is a race between their reconciles"
	for _, lp := range l.pods {
		p := lp.obj
		many := "its controller owner reference designates each of them, by uid or by name"
		if model.ControllerRef(p.OwnerReferences) == nil {
			many = "an orphan pod their selectors all match; " + race
		}
		settle(kindPod, p.Name, p.Namespace,
			func(i int) string { return PodLeftOut(out[i].CloneSet, p) },
			func(i int) { out[i].Pods = append(out[i].Pods, p) }, many)
	}
	for _, lc := range l.pvcs {
		c := lc.obj
		settle(kindPVC, c.Name, c.Namespace,
			func(i int) string { return PVCLeftOut(out[i].CloneSet, c, out[i].Pods) },
			func(i int) { out[i].PVCs = append(out[i].PVCs, c) },
			"its controller owner reference designates each of them or one of their pods")
	}
	for _, lr := range l.revs {
		many := "its controller owner reference designates each of them, by uid or by name"
		if model.ControllerRef(lr.owners) == nil {
			many = "an orphan revision their selectors all match; " + race
		}
		settle(kindRevision, lr.obj.Name, lr.ns,
			func(i int) string { return revisionLeftOut(out[i].CloneSet, lr) },
			func(i int) { out[i].Revisions = append(out[i].Revisions, lr.obj) }, many)
	}
	for _, lj := range l.jobs {
		j := lj.obj
		settle(kindJob, j.Name, j.Namespace,
			func(i int) string { return ImagePullJobLeftOut(out[i].CloneSet, j) },
			func(i int) { out[i].ImagePullJobs = append(out[i].ImagePullJobs, j) },
			"its controller owner reference designates each of them, by uid or by name")
	}
	for i, s := range out {
		for _, ln := range l.nodes {
			nd := ln.obj
			if i > 0 {
				nd = nd.DeepCopy()
			}
			s.Nodes = append(s.Nodes, nd)
		}
	}
}

// otherNamespace is the reason an object of namespace ns is not cs's.
func otherNamespace(ns string, cs *model.CloneSet) string {
	return fmt.Sprintf("in namespace %q, the CloneSet is in %q", ns, cs.Namespace)
}

// PodLeftOut is why CloneSet cs does not claim pod p ("" when it does), in
// the words the plan's notes use: the claiming rules of
// docs/spec/scenario-format.md section 1 and of the controller (a
// controller owner reference decides; an orphan is adopted when the
// selector matches and neither it nor the CloneSet is being deleted).
// Adapters that list objects themselves sort them with it, as the loader
// does.
func PodLeftOut(cs *model.CloneSet, p *model.Pod) string {
	ref := model.ControllerRef(p.OwnerReferences)
	switch {
	case p.Namespace != cs.Namespace:
		return otherNamespace(p.Namespace, cs)
	case ref != nil && !ref.OwnedBy(cs):
		return fmt.Sprintf("controlled by %s %s", ref.Kind, ref.Name)
	case ref != nil:
		return "" // owned: kept, even when it no longer matches the selector
	case !cs.Spec.Selector.Matches(p.Labels):
		return "orphan pod not matched by the CloneSet's selector"
	case !p.DeletionTimestamp.IsZero():
		return "orphan pod being deleted: the controller does not adopt it"
	case !cs.DeletionTimestamp.IsZero():
		return "orphan pod: the CloneSet is being deleted and adopts nothing"
	}
	return ""
}

// PVCLeftOut is why CloneSet cs does not claim PVC c ("" when it does); pods
// are the pods cs claims (a claim handed to one of them stays cs's).
func PVCLeftOut(cs *model.CloneSet, c *model.PVC, pods []*model.Pod) string {
	ref := model.ControllerRef(c.OwnerReferences)
	switch {
	case c.Namespace != cs.Namespace:
		return otherNamespace(c.Namespace, cs)
	case ref == nil:
		return "no controller owner reference"
	case ref.OwnedBy(cs):
		return ""
	case ref.Kind == kindPod && ownedByKeptPod(ref, pods):
		return ""
	}
	return fmt.Sprintf("controlled by %s %s", ref.Kind, ref.Name)
}

// ImagePullJobLeftOut is why CloneSet cs does not claim ImagePullJob j (""
// when it does): only the jobs it controls are its (a controller owner
// reference that designates it, by uid, or by kind and name when either
// uid is missing), the ones its controller deletes once a rollout is done.
func ImagePullJobLeftOut(cs *model.CloneSet, j *model.ImagePullJob) string {
	ref := model.ControllerRef(j.OwnerReferences)
	switch {
	case j.Namespace != cs.Namespace:
		return otherNamespace(j.Namespace, cs)
	case ref == nil:
		return "no controller owner reference"
	case !ref.OwnedBy(cs):
		return fmt.Sprintf("controlled by %s %s", ref.Kind, ref.Name)
	}
	return ""
}

// revisionLeftOut is why cs does not claim a revision when the stream holds
// several CloneSets ("" when it does).
func revisionLeftOut(cs *model.CloneSet, r located[*model.Revision]) string {
	ref := model.ControllerRef(r.owners)
	switch {
	case r.ns != cs.Namespace:
		return otherNamespace(r.ns, cs)
	case ref != nil && !ref.OwnedBy(cs):
		return fmt.Sprintf("controlled by %s %s", ref.Kind, ref.Name)
	case ref != nil:
		return ""
	case !cs.Spec.Selector.Matches(r.obj.Labels):
		return "orphan revision not matched by the CloneSet's selector"
	}
	return ""
}
