#!/usr/bin/env bash
# Leave-one-machine-out check of the data-movement model's fitted constants
# (sim/coll/pipeline_constants.cpp): rebuild linksim with each candidate value, print every
# reference machine's median |busbw error| (from `linksim accuracy`), then, for each machine
# held out, the value the others prefer and the held-out machine's error at it.
# Usage: scripts/loo-pipeline-constants.sh [build-dir]   (about a minute per grid point)
# The grid: SYNC_GRID and COPY_GRID (space-separated microseconds and GB/s) override it.
set -euo pipefail
build=${1:-build-loo}
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for sync in ${SYNC_GRID:-1.5 2.5 3.5 4.5 5.5 6.5}; do
  for copy in ${COPY_GRID:-200 250 300 400 550}; do
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLINKSIM_BUILD_TESTS=OFF \
      -DLINKSIM_BUILD_BENCH=OFF \
      "-DLINKSIM_PIPELINE_CONSTANTS=LINKSIM_SIMPLE_SLICE_SYNC_US=$sync;LINKSIM_NVLS_COPY_GBPS=$copy" \
      >/dev/null
    cmake --build "$build" --target linksim >/dev/null
    "$build/linksim" accuracy | awk -F'|' -v s="$sync" -v c="$copy" \
      '/^\| .*`/ && $4 ~ /^ *[0-9]+ *$/ && $4+0 > 1 { gsub(/[ `%]/, "", $3); gsub(/[ %]/, "", $5); print s, c, $3, $5 }' \
      >>"$out/grid"
  done
done
if [[ -n ${LOO_GRID_OUT:-} ]]; then cp "$out/grid" "$LOO_GRID_OUT"; fi
python3 - "$out/grid" <<'PY'
import sys, collections
rows = [l.split() for l in open(sys.argv[1])]
err = collections.defaultdict(dict)  # (sync, copy) -> machine -> median abs error %
for s, c, m, e in rows:
    err[(float(s), float(c))][m] = float(e)
machines = sorted({m for v in err.values() for m in v})
print("| held out | sync (us), copy (GB/s) chosen on the others | held-out median abs error |")
print("|---|---|---|")
for held in machines:
    def others(k):
        v = [e for m, e in err[k].items() if m != held]
        return sum(v) / len(v)
    best = min(err, key=others)
    print(f"| {held} | {best[0]:g}, {best[1]:g} | {err[best][held]:.1f}% |")
PY
