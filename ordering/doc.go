// Package ordering ranks the pods of a CloneSet the way the OpenKruise CloneSet
// controller does, as pure deterministic functions:
//
//   - RankForDeletion orders a scale-in group, first = deleted first, with the
//     comparison keys of docs/spec/update-and-ordering.md 8.2 (docs/spec/scale-and-budgets.md 4.6)
//     and, as key 5, the rank given by the same-node ranker (8.4) or, when the
//     update revision's template has topology spread constraints, by the
//     spread-constraints ranker (8.5); FirstForDeletion returns only the
//     first k pods of that order, faster;
//   - SortForUpdate orders update candidates, first = updated first, with the
//     pipeline of docs/spec/update-and-ordering.md 2.6: default order (section 5),
//     priority strategy (section 6), scatter strategy (section 7) and the
//     PreparingUpdate-first pass.
//
// Every returned entry carries a Why key (docs/spec/update-and-ordering.md 9.1) naming the
// comparison key or pass that placed the pod before the next one.
//
// # Determinism
//
// Upstream sorts with unstable algorithms and iterates maps; this package
// applies the library rules D1-D11 of docs/spec/update-and-ordering.md section 9 instead.
// Every comparison ends with the pod name (ascending, byte-wise), and every
// sort behaves as a stable sort over the pods put in canonical order (ascending
// name). Because the name is the last key, the result never depends on the
// order of the input slice as long as pod names are unique (a scenario never
// has two pods with one name); pods sharing a name keep their input order.
// Nothing reads the wall clock: the clock is DeletionOptions.Now. Spread ranks
// are float64 sums of k·ln(D+2) computed with math.Log, multiplied then added
// in constraint order, compared exactly (D8).
//
// # Cost
//
// Every key is read once per pod, in input order, and packed into unsigned
// integers whose ascending order is the ranking order; the sorts move small
// pointer-free entries holding the three most significant words, so that
// most comparisons are three integer comparisons, and only ties on all three
// look further (package-internal details: delKey, ent, updKey). All three
// functions are O(n log n) in the number of pods (plus O(n·t) for t scatter
// terms, priority terms or spread constraints):
//
//   - RankForDeletion distributes the pods by node and by topology value with
//     counting sorts, O(n), and sorts each node's or topology's pods
//     separately; the hostname topology key needs no sort when each hostname
//     is one node (the same-node order already ranks it); then one sort of
//     every pod gives the scale-in order;
//   - FirstForDeletion computes the same ranks but selects the first k pods
//     (quickselect, O(n) expected) and sorts only those: O(n log b + k log k)
//     for b pods per node when no topology key needs a sort;
//   - SortForUpdate merges the default order and the stable priority sort into
//     one sort by (priority, default keys); the scatter and PreparingUpdate
//     passes are linear.
//
// # Callers that keep facts between calls
//
// A caller that ranks the same pods again and again (clonesetcore.Tracker)
// can pass what it read once: the keys of each pod (ReadKeys, PodKeys; by
// index with KeyIndex), an id for each pod's node (PodKeys.SetNodeID with
// DeletionOptions.NodeNames), and a scratch (DeletionScratch,
// UpdateScratch) that lends its buffers from call to call and remembers the
// order the last call found, by KeyIndex value, so that the next sort reads
// its input almost sorted and finishes in close to linear time.
// FirstIndexesForDeletion returns positions instead of pods. None of these
// changes a result: the orders are strict total orders, whatever order the
// input is read in (TestPropPodKeys checks each against the plain call).
//
// Nil entries of the input slices are ignored: they do not appear in the
// output. The functions never modify their inputs.
package ordering
