#!/usr/bin/env bash
# Runs OpenKruise v1.9.0's own CloneSet e2e specs (ginkgo label filter
# "CloneSet && workload": 43 specs) against clonesetcontroller on the
# project's control plane (etcd, kube-apiserver v1.37.2, kube-scheduler,
# kube-controller-manager, kwok nodes), with one command:
#
#   scripts/kruise-e2e.sh                       # all 43, 4 ginkgo processes
#   PROCS=2 scripts/kruise-e2e.sh
#   FOCUS='in-place update' scripts/kruise-e2e.sh
#   REPORT_DIR=/tmp/kruise-e2e scripts/kruise-e2e.sh   # keep the JSON report and the logs
#
# It prints
#   kruise e2e CloneSet specs (v1.9.0): P passed, F failed, S skipped of 43
# and a "kruise e2e failed: <spec>" line per failure (docs/kruise-e2e.md
# says why each fails). It fails only when the harness does.
#
# Builds first: the control-plane binaries (cached), kruise's e2e suite and
# the ginkgo CLI from the peer module examples/kubecontroller/kruisepeer
# (the checksum database does not know github.com/openkruise/kruise, hence
# GONOSUMDB; go.sum is committed), and the controller (the test builds it).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
kc="$root/examples/kubecontroller"
bin="${KRUISE_E2E_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/cloneset-kruise-e2e}"
mkdir -p "$bin"

(cd "$kc" && go run ./cmd/controlplane build >/dev/null)
(
	cd "$kc/kruisepeer"
	export GONOSUMDB=github.com/openkruise GOFLAGS=-mod=mod
	go test -c -o "$bin/kruise-e2e.test" github.com/openkruise/kruise/test/e2e
	go build -o "$bin/ginkgo" github.com/onsi/ginkgo/v2/ginkgo
)

cd "$kc"
CLONESET_KRUISE_E2E_SUITE="$bin/kruise-e2e.test" \
CLONESET_KRUISE_E2E_GINKGO="$bin/ginkgo" \
CLONESET_KRUISE_E2E_PROCS="${PROCS:-4}" \
CLONESET_KRUISE_E2E_FOCUS="${FOCUS:-}" \
CLONESET_KRUISE_E2E_REPORT_DIR="${REPORT_DIR:-}" \
	go test -count=1 -timeout=90m -run '^TestKruiseCloneSetSpecs$' -v ./kruisee2e/ "$@"
