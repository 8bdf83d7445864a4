#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz: clang, ASan + UBSan) with the `ci` preset in
# build-ci/, where the tests are built from the same libraries, and runs each for a bounded time
# on a copy of its seed corpus (tests/fuzz/corpus/<target>/), as many at once as there are cores.
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     default: 60 s, every target
# A crash leaves its input as build-ci/fuzz/crash-<target>-*; copy it into the target's corpus as
# a regression input once fixed. Exit status: 0 when every target ran clean.
# LINKSIM_FUZZ_JOBS sets how many targets run at once (default: the number of cores).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
all=(topology cluster template_expr model task_graph nccl_tests p2p_matrix bandwidth_test nvbandwidth
     smi_printout nccl_graph nccl_xml chakra_trace sweep_grid)
targets=("${@:-${all[@]}}")
parallel="${LINKSIM_FUZZ_JOBS:-$(nproc)}"

cmake --preset ci >/dev/null
cmake --build --preset ci --target "${targets[@]/#/fuzz_}"

out=build-ci/fuzz
mkdir -p "$out"
# One target: its running commentary goes to a log, its exit status to a file beside it.
run_target() {
  local t="$1"
  local work="$out/corpus/$t"
  mkdir -p "$work"
  cp -n tests/fuzz/corpus/"$t"/* "$work"/ 2>/dev/null || true
  local rc=0
  build-ci/fuzz_"$t" "$work" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -artifact_prefix="$out/crash-$t-" -print_final_stats=1 \
    >"$out/fuzz_$t.log" 2>&1 || rc=$?
  echo "$rc" >"$out/fuzz_$t.rc"
}

for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
  rm -f "$out/fuzz_$t.rc"
  run_target "$t" &
done
wait

# The results in the targets' order, whatever order they finished in: final statistics for a
# clean run, the log's end for a failure.
failed=()
for t in "${targets[@]}"; do
  echo "== fuzz_$t for ${seconds} s"
  if [ "$(cat "$out/fuzz_$t.rc" 2>/dev/null || echo missing)" = 0 ]; then
    grep -E '^stat::(number_of_executed_units|peak_rss_mb)' "$out/fuzz_$t.log" || true
  else
    tail -n 40 "$out/fuzz_$t.log"
    failed+=("$t")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failures in: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: every target ran clean"
