#!/usr/bin/env bash
# Compares a CloneSet rollout with the project's controller and with OpenKruise
# v1.9.0's CloneSet controller on a real control plane: BenchmarkRollout in
# examples/kubecontroller/faults (kube-apiserver, etcd, kube-scheduler,
# kube-controller-manager and kwok nodes in three zones, each controller binary
# as a process of its own, in turn on the same control plane, the audit log
# on). Four steps: scale out from 0, an in-place image update with
# maxUnavailable 10 %, a recreate update with maxSurge 10 %, a scale-in to a
# tenth. For each step and controller: wall time to converge, reconciles, the
# controller's writes (from the audit log), the CPU time of the controller and
# of kube-apiserver, their peak memory; then the ratios (ours / kruise's). Two
# client settings, a control plane each: no client-side rate limit for both
# (no-limit), and kruise-manager's defaults for both (qps30-burst50).
#
#   scripts/bench-controlplane.sh                       # 1,000 pods on 50 nodes, both settings, once
#   PODS=100 NODES=5 scripts/bench-controlplane.sh
#   RUNS=3 scripts/bench-controlplane.sh                # three comparisons per setting (read ranges)
#   LIMIT=no-limit scripts/bench-controlplane.sh        # one setting (no-limit or qps30-burst50)
#   CONTROLLERS=clonesetcontroller scripts/bench-controlplane.sh   # one controller (or kruise)
#   PODS=10000 NODES=100 scripts/bench-controlplane.sh  # the documented 10,000-pod run
#   OWN_ARGS=--kube-api-http2 scripts/bench-controlplane.sh        # flags for the project's controller
#   OWN_ENV='GOGC=50 GOMAXPROCS=1' scripts/bench-controlplane.sh   # its environment
#   PROFILE_DIR=/tmp/prof scripts/bench-controlplane.sh # CPU and heap profiles of both controllers
#
# Extra arguments go to `go test`. The control-plane binaries are built first
# (cached after the first time, see examples/kubecontroller/controlplane); the
# kruise controller is built from examples/kubecontroller/kruisepeer.
# Check `uptime` first: numbers taken on a loaded machine mean little.
set -euo pipefail
cd "$(dirname "$0")/../examples/kubecontroller"
go run ./cmd/controlplane build
CLONESET_BENCH_PODS="${PODS:-1000}" CLONESET_BENCH_NODES="${NODES:-50}" CLONESET_BENCH_CONTROLLERS="${CONTROLLERS:-}" \
	CLONESET_BENCH_OWN_ARGS="${OWN_ARGS:-}" CLONESET_BENCH_OWN_ENV="${OWN_ENV:-}" CLONESET_BENCH_PROFILE_DIR="${PROFILE_DIR:-}" \
	go test -run='^$' -bench="^BenchmarkRollout\$/^${LIMIT:-}" -benchtime=1x -count="${RUNS:-1}" -timeout=0 "$@" ./faults/
