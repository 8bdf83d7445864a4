#!/usr/bin/env bash
# Installs dependencies, builds the release binary at build/linksim, and runs the main job on
# the shipped machines: list them, then show and compare the seed article's machines.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default -j "$(nproc)"
echo "== Shipped machines (build/linksim topo list)"
build/linksim topo list
for machine in dgx-a100 seed-dgx-a100-mesh dgx-h100 rtx4090-8x; do
  echo
  echo "== build/linksim topo show ${machine}"
  build/linksim topo show "${machine}"
done
