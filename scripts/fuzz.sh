#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, clang, ASan + UBSan) in build-fuzz/ and runs each
# for a bounded time on a copy of its seed corpus (tests/fuzz/corpus/<target>/).
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     default: 60 s, every target
# A crash leaves its input as build-fuzz/crash-<target>-*; copy it into the target's corpus as a
# regression input once fixed. Exit status: 0 when every target ran clean.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
all=(topology template_expr model task_graph nccl_tests p2p_matrix bandwidth_test nvbandwidth
     smi_printout nccl_graph nccl_xml)
targets=("${@:-${all[@]}}")

cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DLINKSIM_FUZZ=ON -DLINKSIM_SANITIZE=ON -DLINKSIM_BUILD_TESTS=OFF -DLINKSIM_BUILD_BENCH=OFF \
  -DLINKSIM_ENABLE_CUDA=OFF >/dev/null
cmake --build build-fuzz --target "${targets[@]/#/fuzz_}"

failed=()
for t in "${targets[@]}"; do
  work="build-fuzz/corpus/$t"
  mkdir -p "$work"
  cp -n tests/fuzz/corpus/"$t"/* "$work"/ 2>/dev/null || true
  echo "== fuzz_$t for ${seconds} s"
  # libFuzzer's running commentary goes to a log; its final statistics, or the log's end on a
  # failure, are shown.
  log="build-fuzz/fuzz_$t.log"
  if build-fuzz/fuzz_"$t" "$work" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -artifact_prefix="build-fuzz/crash-$t-" -print_final_stats=1 >"$log" 2>&1; then
    grep -E '^stat::(number_of_executed_units|peak_rss_mb)' "$log" || true
  else
    tail -n 40 "$log"
    failed+=("$t")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failures in: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: every target ran clean"
