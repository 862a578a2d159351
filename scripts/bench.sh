#!/usr/bin/env bash
# Runs the planner and loader benchmarks of docs/performance.md and prints
# them with the growth ratios between sizes. Usage:
#
#   scripts/bench.sh                 # Plan (100 to 100k pods), Tracker (1k to 100k pods,
#                                    # one event then Plan; one event; 100k fed by events),
#                                    # Load (10k), ranking
#   scripts/bench.sh -count=5        # extra flags go to go test
#
# Nothing here runs in plain `go test ./...`: benchmarks only run with -bench.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp)
trap 'rm -f "$out"' EXIT
go test -run='^$' -bench='^BenchmarkPlan$' -benchmem -timeout=60m "$@" ./clonesetcore/ | tee "$out"
go test -run='^$' -bench='^BenchmarkTrackerPlan$|^BenchmarkTrackerEvent$|^BenchmarkTrackerPlanFedByEvents$' -benchmem -timeout=60m "$@" ./clonesetcore/ | tee -a "$out"
go test -run='^$' -bench='^BenchmarkLoad$' -benchmem "$@" ./manifest/ | tee -a "$out"
go test -run='^$' -bench='^BenchmarkRankForDeletion$|^BenchmarkFirstForDeletion$|^BenchmarkSortForUpdate$' -benchmem "$@" ./ordering/ | tee -a "$out"

# Growth of ns/op between consecutive Plan and Tracker.Plan sizes, against
# n log n (with -count above 1, the first run of each size is used).
growth() {
	echo
	echo "$1 growth (ratio of ns/op between sizes; n log n would give 10x log ratio):"
	awk -v pat="^Benchmark$2/" '
$1 ~ pat {
	split($1, parts, "/"); world = parts[2]; sub(/-[0-9]+$/, "", parts[3]); split(parts[3], kv, "=")
	n = kv[2] + 0; ns = $3 + 0
	if (((world, "n") in last) && last[world, "n"] != n) {
		pn = last[world, "n"]; pns = last[world, "ns"]
		nlogn = (n * log(n)) / (pn * log(pn))
		printf "  %-10s %7d -> %-7d x%6.1f   (n log n: x%5.1f)\n", world, pn, n, ns / pns, nlogn
	}
	if (last[world, "n"] != n) { last[world, "n"] = n; last[world, "ns"] = ns }
}' "$out"
}
growth Plan Plan
growth Tracker.Plan TrackerPlan
