#!/usr/bin/env bash
# Installs dependencies, builds with -Werror under AddressSanitizer and UndefinedBehaviorSanitizer
# (the `ci` preset, in build-ci/), and runs every test with ctest. This is what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset ci
cmake --build --preset ci -j "$(nproc)"
ctest --preset ci
# Every loader and importer under libFuzzer (clang, ASan + UBSan) for a bounded time each, from
# its seed corpus and regression inputs in tests/fuzz/corpus/. Longer runs: scripts/fuzz.sh 600.
bash scripts/fuzz.sh "${LINKSIM_FUZZ_SECONDS:-30}"
