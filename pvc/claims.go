package pvc

import (
	"cmp"
	"maps"
	"slices"
	"sync"

	"github.com/clonecore/cloneset/model"
)

// Index is V (the PVCs the scale phase sees, from Usable) indexed once for the
// per-pod questions of a round: which claims a new pod creates or reuses, and
// which claims go with a deleted pod. Build it with NewIndex; a lookup by name
// is then O(log |V|) and one by instance id O(1) (the first one builds the
// id table), plus the size of the answer. A nil *Index is an empty index.
// An Index is safe for concurrent use.
type Index struct {
	sorted []string            // the names of V, ascending (NewIndex)
	names  map[string]struct{} // the names of V, when sorted is not used
	claims []claim             // V in canonical order, for byID
	once   sync.Once
	byID   idRuns // instance id ("" included) -> PVC names, canonical order
}

// idRuns maps an instance id to the names of its PVCs, in canonical order.
// The generated-form ids (almost all) are kept as (number, claim) pairs
// sorted by number, canonical order inside a number, and found by binary
// search: no map and no string hashing. Other ids go to a map.
type idRuns struct {
	claims []claim
	nums   []numClaim
	other  map[string][]string
}

// numClaim is a claim whose instance id is in generated form: its number and
// its position in idRuns.claims.
type numClaim struct {
	num   uint32
	claim int32
}

// newIDRuns indexes claims (sorted by name) by instance id. A name given
// twice under one id is indexed once.
func newIDRuns(claims []claim) idRuns {
	r := idRuns{claims: claims, nums: make([]numClaim, 0, len(claims))}
	for i, c := range claims {
		if c.num >= 0 {
			r.nums = append(r.nums, numClaim{num: uint32(c.num), claim: int32(i)})
			continue
		}
		if r.other == nil {
			r.other = make(map[string][]string)
		}
		if names := r.other[c.id]; len(names) == 0 || names[len(names)-1] != c.name {
			r.other[c.id] = append(names, c.name)
		}
	}
	radixSortByNum(r.nums)
	return r
}

// radixSortByNum sorts by num (below 2^24), stably: three passes of a byte.
func radixSortByNum(s []numClaim) {
	if len(s) < 2 {
		return
	}
	buf := make([]numClaim, len(s))
	src, dst := s, buf
	for shift := 0; shift < slotNumBits; shift += 8 {
		var count [257]int
		for _, x := range src {
			count[(x.num>>shift)&0xff+1]++
		}
		for i := 1; i < len(count); i++ {
			count[i] += count[i-1]
		}
		for _, x := range src {
			b := (x.num >> shift) & 0xff
			dst[count[b]] = x
			count[b]++
		}
		src, dst = dst, src
	}
	copy(s, src) // three passes: the result is in buf
}

// lookup returns the names of the PVCs with instance id id, a fresh slice
// (nil when none).
func (r *idRuns) lookup(id string) []string {
	v, ok := decodeID(id)
	if !ok {
		return slices.Clone(r.other[id])
	}
	i, _ := slices.BinarySearchFunc(r.nums, uint32(v), func(x numClaim, v uint32) int { return cmp.Compare(x.num, v) })
	var out []string
	for ; i < len(r.nums) && r.nums[i].num == uint32(v); i++ {
		if name := r.claims[r.nums[i].claim].name; len(out) == 0 || out[len(out)-1] != name {
			out = append(out, name)
		}
	}
	return out
}

// NewIndex indexes the PVCs of V by name and by instance-id label. Nil entries
// are skipped and a name given twice under one instance id is indexed once, so
// the answers are those of the plain scans ClaimsForNewPod and ClaimsOfPod.
func NewIndex(usable []*model.PVC) *Index {
	claims := make([]claim, 0, len(usable))
	for _, c := range usable {
		if c != nil {
			claims = append(claims, newClaim(c, InstanceIDOf(c), 0))
		}
	}
	sortClaims(claims)
	return indexSorted(claims)
}

// indexSorted is the Index of claims already sorted by name.
func indexSorted(claims []claim) *Index {
	x := &Index{claims: claims, sorted: make([]string, len(claims))}
	for i, c := range claims {
		x.sorted[i] = c.name
	}
	return x
}

// ids returns the id table, built on the first call.
func (x *Index) ids() *idRuns {
	x.once.Do(func() { x.byID = newIDRuns(x.claims) })
	return &x.byID
}

// Has reports whether a PVC of that name is in V.
func (x *Index) Has(name string) bool {
	if x == nil {
		return false
	}
	if x.names != nil {
		_, ok := x.names[name]
		return ok
	}
	_, ok := slices.BinarySearch(x.sorted, name)
	return ok
}

// ClaimsForNewPod returns, for the new pod with instance id id, the PVC names of
// the CloneSet's volume claim templates in declaration order (docs/spec/scale-and-budgets.md
// 4.4 "PVCs of the pod", rule N5), split into the ones to create first and the
// ones that already exist in V and are reused. A template name given twice
// counts once (upstream keys the claims by template name). Both lists are nil
// when empty.
func (x *Index) ClaimsForNewPod(cs *model.CloneSet, id string) (create, reuse []string) {
	if cs == nil {
		return nil, nil
	}
	vcts := cs.Spec.VolumeClaimTemplates
	var seen map[string]struct{} // for many templates; few are compared in place
	if len(vcts) > 8 {
		seen = make(map[string]struct{}, len(vcts))
	}
	for i, t := range vcts {
		if seen != nil {
			if _, dup := seen[t.Name]; dup {
				continue
			}
			seen[t.Name] = struct{}{}
		} else if slices.ContainsFunc(vcts[:i], func(u model.VolumeClaimTemplate) bool { return u.Name == t.Name }) {
			continue
		}
		name := ClaimName(t.Name, cs, id)
		if x.Has(name) {
			reuse = append(reuse, name)
		} else {
			create = append(create, name)
		}
	}
	return create, reuse
}

// ClaimsOfPod returns the names of the PVCs of V whose instance-id label equals
// the pod's, in canonical order: the deletePVCs of a DeletePod action
// (docs/spec/scale-and-budgets.md 4.5, 5.6). [quirk] The match is plain label equality,
// so a pod without an instance-id label matches every PVC of V without one
// (docs/spec/DECISIONS.md, SB 9.6). The result is a fresh slice, nil when empty or when p
// is nil.
func (x *Index) ClaimsOfPod(p *model.Pod) []string {
	if x == nil || p == nil {
		return nil
	}
	return x.ids().lookup(podID(p))
}

// ClaimsOfID is ClaimsOfPod for a pod whose instance-id label (id, "" when
// absent) the caller has read already.
func (x *Index) ClaimsOfID(id string) []string {
	if x == nil {
		return nil
	}
	return x.ids().lookup(id)
}

// ClaimsForNewPod is Index.ClaimsForNewPod without an index: one pass over
// usable, O(|usable|) per call. To serve many pods, build one Index.
func ClaimsForNewPod(cs *model.CloneSet, id string, usable []*model.PVC) (create, reuse []string) {
	if cs == nil || len(cs.Spec.VolumeClaimTemplates) == 0 {
		return nil, nil
	}
	wanted := make(map[string]struct{}, len(cs.Spec.VolumeClaimTemplates))
	for _, t := range cs.Spec.VolumeClaimTemplates {
		wanted[ClaimName(t.Name, cs, id)] = struct{}{}
	}
	present := make(map[string]struct{}, len(wanted))
	for _, c := range usable {
		if c == nil {
			continue
		}
		if _, ok := wanted[c.Name]; ok {
			present[c.Name] = struct{}{}
		}
	}
	return (&Index{names: present}).ClaimsForNewPod(cs, id)
}

// ClaimsOfPod is Index.ClaimsOfPod without an index: one pass over usable and
// a sort of the matches. To serve many pods, build one Index.
func ClaimsOfPod(p *model.Pod, usable []*model.PVC) []string {
	if p == nil {
		return nil
	}
	id := podID(p)
	var out []string
	for _, c := range usable {
		if c != nil && InstanceIDOf(c) == id {
			out = append(out, c.Name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// OwnerAPIVersion is the apiVersion of the owner reference the CloneSet puts
// on the pods and PVCs it creates (docs/spec/scale-and-budgets.md 4.4).
const OwnerAPIVersion = model.APIVersionV1beta1

// NewClaim builds the PVC that template t gives the pod with instance id id
// (docs/spec/scale-and-budgets.md 5.2): name ClaimName(t.Name, cs, id), the CloneSet's
// namespace, labels = the template's, then the selector's matchLabels (which win),
// then the instance-id label; the template's annotations and storage request;
// owner references = the template's own (read from t.Raw metadata, normally
// none) followed by a controller reference to the CloneSet, so the PVC goes
// away with the CloneSet (cascading deletion). Maps are fresh copies. A nil
// CloneSet or template yields nil.
func NewClaim(cs *model.CloneSet, t *model.VolumeClaimTemplate, id string) *model.PVC {
	if cs == nil || t == nil {
		return nil
	}
	labels := make(map[string]string, len(t.Labels)+2)
	for k, v := range t.Labels {
		labels[k] = v
	}
	if cs.Spec.Selector != nil {
		for k, v := range cs.Spec.Selector.MatchLabels {
			labels[k] = v
		}
	}
	labels[model.LabelInstanceID] = id
	refs := templateOwnerRefs(t.Raw)
	refs = append(refs, model.OwnerReference{
		APIVersion: OwnerAPIVersion, Kind: "CloneSet", Name: cs.Name, UID: cs.UID, Controller: true,
	})
	return &model.PVC{
		Name:            ClaimName(t.Name, cs, id),
		Namespace:       cs.Namespace,
		Labels:          labels,
		Annotations:     maps.Clone(t.Annotations),
		OwnerReferences: refs,
		StorageRequest:  t.StorageRequest,
	}
}

// templateOwnerRefs reads metadata.ownerReferences from a raw claim template;
// malformed entries are skipped.
func templateOwnerRefs(raw map[string]any) []model.OwnerReference {
	meta, _ := raw["metadata"].(map[string]any)
	list, _ := meta["ownerReferences"].([]any)
	var out []model.OwnerReference
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		str := func(k string) string { s, _ := m[k].(string); return s }
		ctl, _ := m["controller"].(bool)
		out = append(out, model.OwnerReference{
			APIVersion: str("apiVersion"), Kind: str("kind"), Name: str("name"), UID: str("uid"), Controller: ctl,
		})
	}
	return out
}

// PodVolumes returns the volume names of a new pod (docs/spec/scale-and-budgets.md 5.3):
// one volume per volume claim template, named after it, in declaration order
// (rule N4), followed by the pod template's volumes (templateVolumes, in order)
// whose names are not claim template names.
func PodVolumes(cs *model.CloneSet, templateVolumes []string) []string {
	var vcts []model.VolumeClaimTemplate
	if cs != nil {
		vcts = cs.Spec.VolumeClaimTemplates
	}
	claim := make(map[string]struct{}, len(vcts))
	out := make([]string, 0, len(vcts)+len(templateVolumes))
	for _, t := range vcts {
		if _, dup := claim[t.Name]; dup {
			continue
		}
		claim[t.Name] = struct{}{}
		out = append(out, t.Name)
	}
	for _, v := range templateVolumes {
		if _, ok := claim[v]; !ok {
			out = append(out, v)
		}
	}
	return out
}
