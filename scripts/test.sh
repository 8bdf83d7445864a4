#!/usr/bin/env bash
# Installs dependencies, builds with -Werror under AddressSanitizer and UndefinedBehaviorSanitizer
# (the `ci` preset, in build-ci/), runs every loader and importer under libFuzzer for a bounded
# time each (clang, ASan + UBSan, from the seed corpus and regression inputs in
# tests/fuzz/corpus/; longer runs: scripts/fuzz.sh 600), then every test with ctest. This is what
# CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset ci
cmake --build --preset ci -j "$(nproc)"
bash scripts/fuzz.sh "${LINKSIM_FUZZ_SECONDS:-30}"
ctest --preset ci
