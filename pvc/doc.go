// Package pvc holds the CloneSet rules about instance ids, pod and PVC names, and
// which PersistentVolumeClaims a round creates, reuses, re-owns or deletes
// (docs/spec/scale-and-budgets.md sections 5 and 7.2).
//
// Everything here is pure and deterministic: no clock, no randomness, no
// dependence on map iteration order or on the order of the input slices. Where
// upstream is random (instance ids) or walks an informer list, the package applies
// the spec's "Library rule (deterministic replacement)": instance ids come from
// GenerateID (7.2), whose sequence is seeded per round by the CloneSet's
// identity, generation and resourceVersion and the round's clock, which the
// caller passes (so ids do not repeat across rounds, yet the same inputs give
// the same ids); free ids are taken in ascending order, and PVCs are walked
// in canonical order (ascending byte-wise metadata.name).
//
// A round uses the package in this order:
//
//  1. Usable (or Cleanup when reuse is off) yields V, the PVCs the scale phase
//     sees, plus the SetPVCOwner and DeletePVC actions of the clean-up (5.4).
//  2. NewIndex(V) indexes V once; Index.ClaimsOfPod gives the deletePVCs of a
//     DeletePod action (4.5, 5.6).
//  3. AllocateIDs gives the instance ids of a scale-out (5.5, 7.2), and
//     Index.ClaimsForNewPod the createPVCs/reusePVCs of each CreatePod (4.4);
//     Collisions names reused ids whose pod name is still taken (the 5.5 quirk).
//
// NewInventory does the three steps from one reading of the round's pods and
// PVCs (Inventory.Cleanup, Inventory.Index, Inventory.Allocate): each
// instance id is read and decoded once, which is what a planner of large
// CloneSets wants; the functions above answer the same.
//
// Instance ids are kept by number in pointer-free hash tables and sorted
// arrays, never in a map per id, so the work stays O(n log n) and the
// allocations a few per round for CloneSets with 100k pods and PVCs.
package pvc
