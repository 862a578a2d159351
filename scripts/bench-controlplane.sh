#!/usr/bin/env bash
# Measures a CloneSet rollout on a real control plane: BenchmarkRollout in
# examples/kubecontroller/faults (kube-apiserver, etcd, kube-scheduler,
# kube-controller-manager and kwok nodes in three zones, the controller binary
# as a process of its own, the audit log on). Four steps: scale out from 0, an
# in-place image update with maxUnavailable 10 %, a recreate update with
# maxSurge 10 %, a scale-in to a tenth. For each: wall time to converge,
# reconciles, the controller's writes (from the audit log), the CPU time of the
# controller and of kube-apiserver, and their peak memory.
#
#   scripts/bench-controlplane.sh                  # 1,000 pods on 50 nodes, once
#   PODS=100 NODES=5 scripts/bench-controlplane.sh
#   RUNS=3 scripts/bench-controlplane.sh           # three rollouts (the machine is noisy: read ranges)
#
# Extra arguments go to `go test`. The control-plane binaries are built first
# (cached after the first time, see examples/kubecontroller/controlplane).
set -euo pipefail
cd "$(dirname "$0")/../examples/kubecontroller"
go run ./cmd/controlplane build
CLONESET_BENCH_PODS="${PODS:-1000}" CLONESET_BENCH_NODES="${NODES:-50}" \
	go test -run='^$' -bench='^BenchmarkRollout$' -benchtime=1x -count="${RUNS:-1}" -timeout=0 "$@" ./faults/
