package clonesetcore

import (
	"time"

	"github.com/clonecore/cloneset/lifecycle"
	"github.com/clonecore/cloneset/model"
)

// decisionCache keeps the update decision of each pod of a Tracker between
// plans (lifecycle.AppendDecideUpdate). A decision depends on the pod, the
// CloneSet, the target revision, the revisions and the feature gates, not
// on the clock (lifecycle.UpdateInput.Now is not read): a pod admitted
// again while none of them changed gets the same decision without being
// read again. Each entry remembers what its decision was computed from and
// is used only when all of it is unchanged; a pod event also drops the
// pod's entry.
type decisionCache struct {
	entries []*cachedDecision // by Tracker slot
	// quiet records, by Tracker slot, that the refresh step had nothing to
	// do for the pod (see refreshIsQuiet).
	quiet []quietRefresh
	// revGen counts the resolutions of the Tracker's revisions (the
	// revisions handed to the decisions).
	revGen uint64
}

// cachedDecision is the decision of one pod and what it was computed from.
type cachedDecision struct {
	pod    *model.Pod
	cs     *model.CloneSet
	target string
	gates  model.FeatureGates
	revGen uint64

	action  model.Action // Type "": no action
	note    string
	requeue time.Duration
}

// quietRefresh is what a refresh step with nothing to do for a pod outside
// an in-place grace period was computed from. Outside a grace period the
// refresh step (inplace.Refresh, inplace.Completed, lifecycle.RefreshInState)
// reads the clock only to stamp an update it applies, so "nothing to do"
// holds at any time while the pod, the CloneSet, the update revision and
// the gates stay the same.
type quietRefresh struct {
	pod    *model.Pod
	cs     *model.CloneSet
	update string
	gates  model.FeatureGates
}

// grow makes room for slot i.
func (c *decisionCache) grow(i int32) {
	for int(i) >= len(c.entries) {
		c.entries = append(c.entries, nil)
		c.quiet = append(c.quiet, quietRefresh{})
	}
}

// forget drops the decision of slot i (its pod changed or went).
func (c *decisionCache) forget(i int32) {
	if int(i) < len(c.entries) {
		c.entries[i] = nil
		c.quiet[i] = quietRefresh{}
	}
}

// refreshIsQuiet reports whether the refresh step had nothing to do for the
// pod of slot i when computed from k.
func (c *decisionCache) refreshIsQuiet(i int, k quietRefresh) bool {
	return i < len(c.quiet) && c.quiet[i] == k
}

// setRefreshQuiet records that the refresh step had nothing to do for the
// pod of slot i, computed from k.
func (c *decisionCache) setRefreshQuiet(i int, k quietRefresh) {
	if i < len(c.quiet) {
		c.quiet[i] = k
	}
}

// appendDecide is lifecycle.AppendDecideUpdate(dst, in) for the pod of slot
// i, from the cache when the entry of the slot was computed from the same
// inputs. The decision returned carries the fields the round reads:
// Actions, Note, RequeueAfter and Err.
func (c *decisionCache) appendDecide(dst []model.Action, i int, in lifecycle.UpdateInput) ([]model.Action, lifecycle.UpdateDecision) {
	e := c.entries[i]
	if e != nil && e.pod == in.Pod && e.cs == in.CloneSet && e.target == in.Target && e.gates == in.Gates && e.revGen == c.revGen {
		d := lifecycle.UpdateDecision{Note: e.note, RequeueAfter: e.requeue}
		if e.action.Type != "" {
			dst = append(dst, e.action)
			d.Actions = dst[len(dst)-1 : len(dst) : len(dst)]
		}
		return dst, d
	}
	dst, d := lifecycle.AppendDecideUpdate(dst, in)
	// Errors are not kept (they end the loop; rare), nor actions holding
	// slices or maps, which plans must not share.
	if d.Err != nil || (len(d.Actions) == 1 && !flatAction(&d.Actions[0])) {
		c.entries[i] = nil
		return dst, d
	}
	if e == nil {
		e = new(cachedDecision)
		c.entries[i] = e
	}
	*e = cachedDecision{pod: in.Pod, cs: in.CloneSet, target: in.Target, gates: in.Gates, revGen: c.revGen, note: d.Note, requeue: d.RequeueAfter}
	if len(d.Actions) == 1 {
		e.action = d.Actions[0]
	}
	return dst, d
}

// flatAction reports whether a holds no slice and no map (only strings and
// numbers, which results can share).
func flatAction(a *model.Action) bool {
	return a.CreatePVCs == nil && a.ReusePVCs == nil && a.DeletePVCs == nil && a.AddFinalizers == nil &&
		a.Remove == nil && a.SetLabels == nil && a.RemoveLabels == nil && a.SetAnnotations == nil &&
		a.RemoveAnnotations == nil && a.SetConditions == nil && a.SetImages == nil && a.SetResources == nil
}
