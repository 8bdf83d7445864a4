#!/usr/bin/env bash
# The C++ package (docs/cpp-api.md): `cmake --install` of this build into a fresh prefix, then a
# program outside the build (tests/package/consumer/) configured with find_package(linksim)
# against it, built and run on the installed data. Its nccl-tests printout and JSON report must
# be the CLI's bytes, and the installed headers must include nothing but each other and the
# standard library.
# Usage: package_consumer_test.sh LINKSIM BUILD_DIR SOURCE_DIR CXX [CMAKE_ARGS...]
set -euo pipefail
linksim=$1
build_dir=$2
source_dir=$3
cxx=$4
shift 4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build_dir" --prefix "$work/prefix" > "$work/install.log" ||
  fail "cmake --install: $(tail -5 "$work/install.log")"
headers=("$work"/prefix/include/linksim/*.hpp)
[ -e "${headers[0]}" ] || fail "no headers in include/linksim/"
# Façade headers only: <linksim/...> and standard headers (no dot in the name), nothing of
# linksim's internals or of a third-party package.
if grep -h '^#include' "${headers[@]}" | grep -v -E '^#include <(linksim/[a-z_]+\.hpp|[a-z_]+)>'; then
  fail "an installed header includes more than the package and the standard library"
fi
echo "ok: ${#headers[@]} headers in include/linksim/, standard headers only"

cmake -S "$source_dir/tests/package/consumer" -B "$work/consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_CXX_COMPILER="$cxx" "$@" > "$work/configure.log" ||
  fail "configuring the consumer: $(tail -20 "$work/configure.log")"
cmake --build "$work/consumer" > "$work/build.log" ||
  fail "building the consumer: $(tail -30 "$work/build.log")"
consumer=$work/consumer/linksim_consumer
echo "ok: find_package(linksim) built a consumer"

# The installed data, not the source tree's: the consumer names it unless LINKSIM_DATA is set.
unset LINKSIM_DATA
args=(all_reduce_perf -b 1M -e 64M -f 4 -g 8)
"$consumer" nccl-tests dgx-a100 "${args[@]}" > "$work/consumer.nccl"
LINKSIM_DATA="$work/prefix/share/linksim" "$linksim" nccl-tests --topology dgx-a100 "${args[@]}" \
  > "$work/cli.nccl"
cmp "$work/cli.nccl" "$work/consumer.nccl" || fail "nccl-tests printout differs from the CLI's"
echo "ok: simulate_nccl_tests prints the CLI's bytes"

"$consumer" run default dgx-h100 > "$work/consumer.json"
LINKSIM_DATA="$work/prefix/share/linksim" "$linksim" run default -t dgx-h100 --format json \
  --no-range > "$work/cli.json"
cmp "$work/cli.json" "$work/consumer.json" || fail "run_scenario's report differs from the CLI's"
echo "ok: run_scenario reports the CLI's bytes, and its steps add up"

"$consumer" machine dgx-a100 > "$work/machine.txt"
grep -qx 'dgx-a100: 8 GPUs, [0-9]* links' "$work/machine.txt" || fail "$(cat "$work/machine.txt")"
printf '{"gpus": 3}' > "$work/bad.json"
"$consumer" machine "$work/bad.json" > "$work/error.txt"
grep -qx "file: $work/bad.json" "$work/error.txt" || fail "error: $(cat "$work/error.txt")"
echo "ok: load_machine, and an InputError naming the file"
