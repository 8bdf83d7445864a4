#!/usr/bin/env bash
# Installs dependencies, checks the formatting (scripts/check-format.sh), builds with -Werror
# under AddressSanitizer and UndefinedBehaviorSanitizer (the `ci` preset, in build-ci/: clang,
# the tests and the libFuzzer targets from one compile of the libraries), runs every loader and
# importer under libFuzzer for a bounded time each (from the seed corpus and regression inputs in
# tests/fuzz/corpus/, as many at once as there are cores; longer runs: scripts/fuzz.sh 600), then
# every test with ctest, then the Python package (scripts/test-python.sh: `pip install .` in a
# fresh virtual environment, its pytest tests and the example notebook). This is what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/check-format.sh
cmake --preset ci
cmake --build --preset ci -j "$(nproc)"
bash scripts/fuzz.sh "${LINKSIM_FUZZ_SECONDS:-30}"
ctest --preset ci
bash scripts/test-python.sh
