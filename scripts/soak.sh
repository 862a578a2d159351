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
#
# It prints one line per package or target (ok / FAIL and the time it took)
# and exits 1 when anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
CHECKS=${CHECKS:-20000}
FUZZTIME=${FUZZTIME:-3m}
ONLY=${ONLY:-}
LOG=${LOG:-/tmp/cloneset-soak}
mkdir -p "$LOG"
status=0

# run NAME DIR CMD...: runs CMD in DIR, its output in $LOG/NAME.log.
run() {
  local name=$1 dir=$2
  shift 2
  local start=$SECONDS
  if (cd "$dir" && "$@") >"$LOG/$name.log" 2>&1; then
    echo "ok   $name ($((SECONDS - start))s)"
  else
    echo "FAIL $name ($((SECONDS - start))s): $LOG/$name.log"
    status=1
  fi
}

# The packages whose tests hold rapid properties: every test of each runs,
# each rapid.Check with CHECKS cases.
rapid_packages() { # dir
  (cd "$1" && grep -rl --include='*_test.go' -E 'rapid\.(Check|MakeCheck)' . |
    grep -v '/testdata/' | xargs -n1 dirname | sort -u)
}

if [[ "$ONLY" != fuzz ]]; then
  for mod in . examples/kubecontroller; do
    for pkg in $(rapid_packages "$mod"); do
      name="rapid ${mod#./}/${pkg#./}"
      name=${name// /_}
      name=${name//\//_}
      run "$name" "$mod" go test -count=1 -timeout 0 -v "$pkg" -rapid.checks="$CHECKS"
      # One line per property: its test and what rapid says of it.
      awk '/^=== RUN/ {t=$3} /\[rapid\] (OK|failed|panic)/ {sub(/^.*\[rapid\] /, ""); print "       " t ": " $0}' "$LOG/$name.log"
    done
  done
fi

if [[ "$ONLY" != rapid ]]; then
  # Every fuzz target of the root module, found by name.
  while IFS=: read -r file target; do
    pkg=./$(dirname "$file")
    run "fuzz_${target}" . go test -run='^$' -fuzz="^${target}\$" -fuzztime="$FUZZTIME" "$pkg"
  done < <(grep -roE --include='*_test.go' '^func Fuzz[A-Za-z0-9_]+' . |
    sed -E 's|^\./||; s|:func |:|' | sort)
fi
exit $status
