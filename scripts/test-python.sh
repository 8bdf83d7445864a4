#!/usr/bin/env bash
# The Python package (docs/python.md), as CI checks it: a fresh virtual environment in
# build-py/venv, `pip install .` into it (warnings as errors; the CMake build is kept in
# build-py/<wheel tag>/, so a second run rebuilds only what changed), then the package's tests
# (tests/python, against the CLI at $LINKSIM_CLI, default build-ci/linksim, and the golden
# files) and the example notebook, executed with nbclient. scripts/test.sh runs it last.
set -euo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-python3}"
venv=build-py/venv
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet pytest nbclient ipykernel matplotlib pandas
echo "python: pip install . (the times below are its wall and CPU time)"
time "$venv/bin/python" -m pip install --quiet . --config-settings=cmake.define.LINKSIM_WERROR=ON
export LINKSIM_CLI="${LINKSIM_CLI:-$PWD/build-ci/linksim}"
"$venv/bin/python" -m pytest tests/python -q
"$venv/bin/python" scripts/run-notebook.py examples/linksim-quickstart.ipynb
