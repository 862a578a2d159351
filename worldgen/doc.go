// Package worldgen generates realistic CloneSet worlds: complete
// model.Scenario values (a CloneSet, its pods, PVCs, ControllerRevisions and
// nodes, the clock and the feature gates) shaped like what `kubectl get -o
// yaml` returns from a cluster in the middle of its life: a rollout under way,
// lifecycle hooks holding some pods, pods spread over zones and hosts, pods
// marked for deletion, claims from volume claim templates, and pods in every
// stage of readiness.
//
// Benchmarks, property tests and the simulator share it. Generation is pure
// and deterministic: the world depends only on the Options (its Seed
// included), never on the clock or on map order, and a world is built with
// math/rand/v2 from a PCG source seeded with Options.Seed. The objects are in
// the shape the manifest loader produces (defaults applied, a v1alpha1
// CloneSet converted), so a world written with manifest.EncodeYAML and read
// back plans exactly like the world itself.
//
// Realistic is the world of the planner's benchmarks; ScaleIn and Update are
// its variants that drive the scale-in ranking and the rolling update. Generate
// builds any other world from Options.
package worldgen
