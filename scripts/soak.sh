#!/usr/bin/env bash
# soak.sh: every rapid property of the project with many more cases than CI
# draws, then every fuzz target for longer than CI's few seconds. A failure
# leaves rapid's fail file under the package's testdata/rapid (replayed by
# every later run until it is removed) or the fuzzer's input under
# testdata/fuzz; see README "Reproducing a failure from CI".
#
#   CHECKS=20000 FUZZTIME=3m scripts/soak.sh          # the whole soak
#   ONLY=rapid scripts/soak.sh                        # properties only
#   ONLY=fuzz FUZZTIME=30s scripts/soak.sh            # fuzz targets only
#   SKIP='clonesetcore|sim' scripts/soak.sh           # packages or targets left out
#
# It prints one line per package or target (ok / FAIL and the time it took)
# and exits 1 when anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
CHECKS=${CHECKS:-20000}
FUZZTIME=${FUZZTIME:-3m}
ONLY=${ONLY:-}
SKIP=${SKIP:-}
LOG=${LOG:-/tmp/cloneset-soak}
mkdir -p "$LOG"
status=0

# run NAME DIR CMD...: runs CMD in DIR, its output in $LOG/NAME.log.
run() {
  local name=$1 dir=$2
  shift 2
  if [[ -n "$SKIP" && "$name" =~ $SKIP ]]; then
    echo "skip $name"
    return
  fi
  local start=$SECONDS
  if (cd "$dir" && "$@") >"$LOG/$name.log" 2>&1; then
    echo "ok   $name ($((SECONDS - start))s)"
  else
    echo "FAIL $name ($((SECONDS - start))s): $LOG/$name.log"
    status=1
  fi
}

# The packages of module DIR (nested modules are their own) whose tests
# hold rapid properties: every test of each runs, each rapid.Check with
# CHECKS cases.
rapid_packages() { # dir
  (cd "$1" && go list -f '{{.Dir}}' ./... | while read -r d; do
    if grep -lqE 'rapid\.(Check|MakeCheck)' "$d"/*_test.go 2>/dev/null; then
      echo ".${d#"$PWD"}"
    fi
  done)
}

if [[ "$ONLY" != fuzz ]]; then
  for mod in . examples/kubecontroller; do
    for pkg in $(rapid_packages "$mod"); do
      name="rapid ${mod#./}/${pkg#./}"
      name=${name// /_}
      name=${name//\//_}
      run "$name" "$mod" go test -count=1 -timeout 0 -v "$pkg" -rapid.checks="$CHECKS"
      # One line per property: its test and what rapid says of it.
      [[ -f "$LOG/$name.log" ]] && awk '/^=== RUN/ {t=$3} /\[rapid\] (OK|failed|panic)/ {sub(/^.*\[rapid\] /, ""); print "       " t ": " $0}' "$LOG/$name.log"
    done
  done
fi

if [[ "$ONLY" != rapid ]]; then
  # Every fuzz target of each module, found by name.
  for mod in . examples/kubecontroller; do
    while IFS=: read -r file target; do
      run "fuzz_${target}" "$mod" go test -run='^$' -fuzz="^${target}\$" -fuzztime="$FUZZTIME" "./$(dirname "$file")"
    done < <(cd "$mod" && go list -f '{{.Dir}}' ./... | while read -r d; do
      grep -oE '^func Fuzz[A-Za-z0-9_]+' "$d"/*_test.go 2>/dev/null |
        sed -E "s|^$PWD/||; s|:func |:|"
    done | sort)
  done
fi
exit $status
