#!/usr/bin/env bash
# Runs the hostile inputs of docs/reliability.md through `clonesetplan plan`
# (and `rank`/`simulate` for a few) and prints one markdown table row per run:
# input, outcome (exit status and the first line of the answer), wall time
# and peak memory (maximum resident set size, from /usr/bin/time).
#
#   scripts/hostile.sh            # needs /usr/bin/time (apt-get install time)
#
# Nothing here runs in plain `go test ./...`.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/clonesetplan" ./cmd/clonesetplan
go run ./scripts/hostile "$dir/in"

row() { # label command...
  local label=$1; shift
  local out="$dir/out" err="$dir/err" tm="$dir/time"
  set +e
  /usr/bin/time -f '%e %M' -o "$tm" "$@" >"$out" 2>"$err"
  local code=$?
  set -e
  read -r secs kb < <(tail -1 "$tm")
  local first
  if [ "$code" = 0 ]; then
    first=$(grep -m1 -E '^Actions \(|^Simulation|^[0-9]+ pods' "$out" || true)
    [ -n "$first" ] || first="$(wc -l <"$out") lines"
    first="answered: $first"
  else
    first=$(head -1 "$err" | sed -E 's#/tmp/[^ ]*/in/##' | cut -c1-200)
  fi
  first=${first//|/\\|}
  printf '| %s | exit %s: %s | %.2f s | %d MB |\n' "$label" "$code" "$first" "$secs" $((kb / 1024))
}

echo "| input | outcome | time | peak RSS |"
echo "|---|---|---|---|"
while IFS=$'\t' read -r file what; do
  row "$what (\`plan\`)" "$dir/clonesetplan" plan -f "$dir/in/$file"
done <"$dir/in/index.tsv"
truncate -s 2G "$dir/in/sparse-2g.yaml"
row "a 2 GB file (sparse; above manifest.Options.MaxInputBytes) (\`plan\`)" "$dir/clonesetplan" plan -f "$dir/in/sparse-2g.yaml"
row "100,000 owned pods, JSON (\`rank --for deletion\`)" "$dir/clonesetplan" rank -f "$dir/in/scale-in-100k-json.json" --for deletion
row "spec.replicas 2147483647 (\`simulate --steps 50\`)" "$dir/clonesetplan" simulate -f "$dir/in/replicas-max-scale-100pct.yaml" --steps 50
row "spec.replicas 2147483647, scale limit 100 (\`simulate --steps 20\`)" "$dir/clonesetplan" simulate -f "$dir/in/replicas-max-scale-100.yaml" --steps 20
{ cat "$dir/in/replicas-max-scale-100.yaml"; printf -- '---\napiVersion: clonesetcore/v1alpha1\nkind: Simulation\nnodes: 2147483647\nsteps: 2147483647\n'; } >"$dir/in/sim-huge.yaml"
row "a Simulation document with nodes and steps 2147483647 (\`simulate\`)" "$dir/clonesetplan" simulate -f "$dir/in/sim-huge.yaml"
