#!/usr/bin/env bash
# Installs dependencies, builds the release binary at build/linksim, and runs the main job on
# the shipped default scenario: Llama 2 7B training on a DGX A100, an 8x RTX 4090 box and a
# DGX H100, side by side; then the seed article's 10 GB gradient example.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default -j "$(nproc)"
echo "== build/linksim compare default"
build/linksim compare default
echo
echo "== build/linksim run default --topology rtx4090-8x"
build/linksim run default --topology rtx4090-8x
echo
echo "== build/linksim run seed-gradient-sync"
build/linksim run seed-gradient-sync
