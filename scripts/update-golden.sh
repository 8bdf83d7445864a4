#!/usr/bin/env bash
# Regenerates the golden CLI outputs in tests/data/golden/ from build/linksim. Run it only after
# checking by hand that a change in output is intended; the diff is the review.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${LINKSIM:-build/linksim}
g=tests/data/golden
"$bin" topo show rtx2080ti-2x > $g/topo-show-rtx2080ti-2x.txt
"$bin" topo show dgx-a100 > $g/topo-show-dgx-a100.txt
"$bin" nccl-tests all_reduce_perf -t rtx2080ti-2x -b 8 -e 1M -f 4 --explain > $g/nccl-tests-rtx2080ti-2x.txt
"$bin" topo show aws-p4de-x2 > $g/topo-show-aws-p4de-x2.txt
"$bin" nccl-tests all_reduce_perf -t aws-p4de-x2 -b 8 -e 1G -f 32 --explain > $g/nccl-tests-aws-p4de-x2.txt
"$bin" run llama3-405b > $g/run-llama3-405b.txt
"$bin" run seed-gradient-sync > $g/run-seed-gradient-sync.txt
"$bin" compare llama2-13b-training-cloud > $g/compare-llama2-13b-training-cloud.txt
"$bin" nvbandwidth --topology rtx3090-4x-nvlink-pairs > $g/nvbandwidth-rtx3090-4x.txt
"$bin" nvbandwidth --topology rtx3090-4x-nvlink-pairs -j -t device_to_device_bidirectional_memcpy_read_ce all_to_host_memcpy_sm host_device_latency_sm > $g/nvbandwidth-rtx3090-4x-json.txt
"$bin" nvbandwidth -l > $g/nvbandwidth-list.txt
"$bin" plan default > $g/plan-default.txt
"$bin" compare llama3-8b-serving > $g/compare-llama3-8b-serving.txt
