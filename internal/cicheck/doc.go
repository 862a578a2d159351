// Package cicheck holds tests that keep the CI script (.ci/run) in step with
// the repository: every fuzz target of the project gets its short run in CI.
// It has no code of its own.
package cicheck
