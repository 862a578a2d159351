package kubecontroller

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/clonecore/cloneset/model"
)

// ConversionCache keeps the model objects converted from client objects and
// hands the same model object back while the client object's uid and
// resourceVersion are unchanged. Converting 10,000 pods on every reconcile
// costs more than planning them; with the cache only the objects that
// changed are converted, and a clonesetcore.Tracker fed the same pointers
// reads only those again. The model objects it returns must not be
// modified: they are kept across rounds, and their Labels and Annotations
// are the maps of the client objects they were converted from, which
// Reconciler.List takes from the informer cache without copies (replaced,
// not changed, when the informer sees a new version). A ConversionCache is not safe for concurrent use; the
// Reconciler keeps one per CloneSet.
type ConversionCache struct {
	cloneSets map[string]cached[*model.CloneSet]
	pods      map[string]cached[*model.Pod]
	pvcs      map[string]cached[*model.PVC]
	revisions map[string]cached[*model.Revision]
	nodes     map[string]cached[*model.Node]
	// round counts the conversions (Scenario calls): an entry not looked
	// up in the current one is forgotten at its end (sweep).
	round uint64
}

// cached is one converted object, the version it was converted from and
// the round it was last looked up in.
type cached[T any] struct {
	uid     types.UID
	version string
	obj     T
	round   uint64
}

// NewConversionCache returns an empty cache.
func NewConversionCache() *ConversionCache {
	return &ConversionCache{
		cloneSets: map[string]cached[*model.CloneSet]{},
		pods:      map[string]cached[*model.Pod]{}, pvcs: map[string]cached[*model.PVC]{},
		revisions: map[string]cached[*model.Revision]{}, nodes: map[string]cached[*model.Node]{},
	}
}

// lookup returns the cached conversion of the object named name at uid and
// version, converting (and remembering) it when there is none, and marks it
// seen in round. An object without a resourceVersion is always converted.
func lookup[T any](m map[string]cached[T], round uint64, name string, uid types.UID, version string, convert func() (T, error)) (T, error) {
	if c, ok := m[name]; ok && version != "" && c.uid == uid && c.version == version {
		if c.round != round {
			c.round = round
			m[name] = c
		}
		return c.obj, nil
	}
	obj, err := convert()
	if err != nil {
		return obj, err
	}
	m[name] = cached[T]{uid: uid, version: version, obj: obj, round: round}
	return obj, nil
}

// sweepMap forgets the entries not looked up in round.
func sweepMap[T any](m map[string]cached[T], round uint64) {
	for name, c := range m {
		if c.round != round {
			delete(m, name)
		}
	}
}

// cloneSet returns the CloneSet converted by convert while u's uid and
// resourceVersion are unchanged: the same pointer round after round, so
// that the Tracker keeps what it derived from it.
func (c *ConversionCache) cloneSet(u *unstructured.Unstructured, convert func() (*model.CloneSet, error)) (*model.CloneSet, error) {
	return lookup(c.cloneSets, c.round, u.GetName(), u.GetUID(), u.GetResourceVersion(), convert)
}

func (c *ConversionCache) pod(p *corev1.Pod, q map[string]model.Quantity) *model.Pod {
	out, _ := lookup(c.pods, c.round, p.Name, p.UID, p.ResourceVersion, func() (*model.Pod, error) { return podFromObject(p, q), nil })
	return out
}

func (c *ConversionCache) pvc(v *corev1.PersistentVolumeClaim) *model.PVC {
	out, _ := lookup(c.pvcs, c.round, v.Name, v.UID, v.ResourceVersion, func() (*model.PVC, error) { return PVCFromObject(v), nil })
	return out
}

func (c *ConversionCache) revision(r *appsv1.ControllerRevision) (*model.Revision, error) {
	return lookup(c.revisions, c.round, r.Name, r.UID, r.ResourceVersion, func() (*model.Revision, error) { return RevisionFromObject(r) })
}

func (c *ConversionCache) node(n *corev1.Node) *model.Node {
	out, _ := lookup(c.nodes, c.round, n.Name, n.UID, n.ResourceVersion, func() (*model.Node, error) { return NodeFromObject(n), nil })
	return out
}

// begin starts a conversion: the objects it looks up are the ones kept.
func (c *ConversionCache) begin() { c.round++ }

// sweep ends a conversion: it forgets the objects the conversion did not
// look up (gone from the listing), without building sets of the names.
func (c *ConversionCache) sweep() {
	sweepMap(c.cloneSets, c.round)
	sweepMap(c.pods, c.round)
	sweepMap(c.pvcs, c.round)
	sweepMap(c.revisions, c.round)
	sweepMap(c.nodes, c.round)
}
