#!/usr/bin/env bash
# `mpirun --oversubscribe -np 3 linksim sweep GRID -o OUT` writes the bytes `linksim sweep GRID
# -j 1` writes, for the shipped example grids (CSV and JSON), with more ranks than points too;
# and a failing point stops every rank: exit non-zero, the one-process error, nothing written.
# Registered with ctest where CMake finds MPI (CMakeLists.txt), with leak checks off (OpenMPI
# keeps allocations at exit) and root allowed (containers).
# Usage: sweep_mpi_test.sh LINKSIM MPIEXEC SOURCE_DIR
set -euo pipefail
linksim=$1
mpiexec=$2
source_dir=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mpirun_linksim() {  # NP ARGS...
  local np=$1
  shift
  # OMPI_MCA_*: no InfiniBand or shared-memory probing noise in a container; TCP on loopback.
  OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo \
    "$mpiexec" --oversubscribe -np "$np" "$linksim" "$@"
}

for grid in llama2-7b-plans all-reduce-sizes; do
  for format in csv json; do
    file="$source_dir/scenarios/sweeps/$grid.json"
    "$linksim" sweep "$file" --format "$format" -j 1 -o "$work/$grid.one.$format"
    for np in 3 13; do  # 13 ranks: more than either grid's points, so some are idle
      mpirun_linksim "$np" sweep "$file" --format "$format" -o "$work/$grid.np$np.$format"
      cmp "$work/$grid.one.$format" "$work/$grid.np$np.$format" ||
        fail "$grid ($format) under mpirun -np $np differs from -j 1"
    done
    echo "ok: $grid ($format): mpirun -np 3 and -np 13 are byte-identical to -j 1"
  done
done

# A failing point (tensor parallelism 3 does not divide 32 heads) on rank 1 of 3.
cat > "$work/bad.json" <<'JSON'
{"grid": {"scenario": ["llama2-7b-4090-vs-a100"], "machine": ["dgx-a100"], "data": [1],
          "tensor": [1, 3, 2]}}
JSON
set +e
"$linksim" sweep "$work/bad.json" -j 1 -o "$work/bad.one.csv" 2> "$work/bad.one.err"
one=$?
mpirun_linksim 3 sweep "$work/bad.json" -o "$work/bad.np3.csv" > "$work/bad.np3.out" 2> "$work/bad.np3.err"
np3=$?
set -e
[ "$one" -eq 2 ] || fail "one process: exit $one, expected 2"
[ "$np3" -ne 0 ] || fail "mpirun: exit 0 for a failing point"
[ ! -e "$work/bad.np3.csv" ] || fail "mpirun wrote an output for a failing sweep"
grep -qF "$(cat "$work/bad.one.err")" "$work/bad.np3.err" ||
  fail "mpirun's error differs from one process's: $(cat "$work/bad.np3.err")"
[ "$(grep -cF "linksim: error:" "$work/bad.np3.err")" -eq 1 ] ||
  fail "the error is printed more than once: $(cat "$work/bad.np3.err")"
echo "ok: a failing point stops every rank (exit $np3), prints the error once, writes nothing"
