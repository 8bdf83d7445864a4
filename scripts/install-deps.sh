#!/usr/bin/env bash
# Installs everything linksim needs to build and test, from Debian 12 packages.
# Idempotent: packages already present are left alone. CUDA (nvcc) is optional and not installed here.
set -euo pipefail
packages=(
  build-essential cmake ninja-build clang-format clang
  libboost-graph-dev nlohmann-json3-dev libeigen3-dev libvalijson-dev
  libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev libfmt-dev
  libtinyxml2-dev libsimdjson-dev gnuplot-nox help2man lld
  python3-venv python3-dev  # the Python package: pip install . in a venv (scripts/test-python.sh)
  libopenmpi-dev openmpi-bin  # linksim sweep under mpirun (optional at build time)
  libprotobuf-dev protobuf-compiler  # run-graph reading Chakra execution traces (sim/work/chakra_et.proto)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
