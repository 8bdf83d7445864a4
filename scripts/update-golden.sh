#!/usr/bin/env bash
# Regenerates the golden CLI outputs in tests/data/golden/ from build/linksim. Run it only after
# checking by hand that a change in output is intended; the diff is the review.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${LINKSIM:-build/linksim}
g=tests/data/golden
"$bin" topo show rtx2080ti-2x > $g/topo-show-rtx2080ti-2x.txt
"$bin" topo show dgx-a100 > $g/topo-show-dgx-a100.txt
"$bin" nccl-tests --topology rtx2080ti-2x all_reduce_perf -b 8 -e 1M -f 4 -g 2 > $g/nccl-tests-rtx2080ti-2x.txt
"$bin" nccl-tests --topology dgx-a100 all_reduce_perf -b 1M -e 64M -f 4 -g 8 --explain > $g/nccl-tests-dgx-a100-explain.txt
"$bin" topo show aws-p4de-x2 --summary > $g/topo-show-aws-p4de-x2.txt
"$bin" nccl-tests --topology aws-p4de-x2 --np 16 all_reduce_perf -b 8 -e 1G -f 32 -g 1 --explain > $g/nccl-tests-aws-p4de-x2.txt
"$bin" nccl-tests --topology aws-p4d-x2 --np 16 alltoall_perf -b 1K -e 1G -f 8 -g 1 --explain > $g/nccl-tests-aws-p4d-x2-alltoall.txt
"$bin" nccl-tests --topology dgx-h100-superpod-su --np 256 all_reduce_perf -b 1M -e 64M -f 8 -g 1 --algo CollNetDirect --explain > $g/nccl-tests-dgx-h100-superpod-su-collnet.txt
"$bin" run llama3-405b > $g/run-llama3-405b.txt
"$bin" run seed-gradient-sync > $g/run-seed-gradient-sync.txt
"$bin" run-graph scenarios/graphs/ring-8-repeat.json --topology dgx-h100 > $g/run-graph-ring-8-repeat.txt
"$bin" compare llama2-13b-training-cloud > $g/compare-llama2-13b-training-cloud.txt
"$bin" nvbandwidth --topology rtx3090-4x-nvlink-pairs > $g/nvbandwidth-rtx3090-4x.txt
"$bin" nvbandwidth --topology rtx3090-4x-nvlink-pairs -j -t device_to_device_bidirectional_memcpy_read_ce all_to_host_memcpy_sm host_device_latency_sm > $g/nvbandwidth-rtx3090-4x-json.txt
"$bin" nvbandwidth -l > $g/nvbandwidth-list.txt
"$bin" p2p -t dgx-1v > $g/p2p-dgx-1v.txt
"$bin" p2p -t rtx2080ti-2x --p2p_read > $g/p2p-rtx2080ti-2x-p2p_read.txt
"$bin" bandwidth -t dgx-h100 --device=all > $g/bandwidth-dgx-h100-all.txt
"$bin" p2p -t rtx2080ti-2x --format json > $g/p2p-rtx2080ti-2x.json
"$bin" bandwidth -t rtx2080ti-2x --device=all --format csv > $g/bandwidth-rtx2080ti-2x-all.csv
"$bin" bandwidth -t rtx2080ti-2x --mode=range --start=1000 --end=21000 --increment=5000 > $g/bandwidth-rtx2080ti-2x-range.txt
"$bin" topo check dgx-1v | sed "s|$(cd "$(dirname "$0")/.." && pwd)|\$SRC|g" > $g/topo-check-dgx-1v.txt
"$bin" topo check dgx-1v --format json | sed "s|$(cd "$(dirname "$0")/.." && pwd)|\$SRC|g" > $g/topo-check-dgx-1v.json
"$bin" topo check aws-p4de-x2 --format csv | sed "s|$(cd "$(dirname "$0")/.." && pwd)|\$SRC|g" > $g/topo-check-aws-p4de-x2.csv
"$bin" topo list --format csv > $g/topo-list.csv
"$bin" plan default > $g/plan-default.txt
"$bin" compare llama3-8b-serving > $g/compare-llama3-8b-serving.txt
"$bin" topo show aws-p5en-x2 --summary > $g/topo-show-aws-p5en-x2.txt
"$bin" topo graphs dgx-h100 --compare "$(pwd)/tests/data/nccl/dgx-h100-graphs.xml" | sed "s|$(pwd)|\$SRC|g" > $g/topo-graphs-dgx-h100.txt
"$bin" topo graphs rtx4090-8x --compare "$(pwd)/tests/data/nccl/rtx4090-8x-graphs.xml" | sed "s|$(pwd)|\$SRC|g" > $g/topo-graphs-rtx4090-8x.txt
"$bin" topo graphs rtx4090-8x > $g/topo-graphs-rtx4090-8x.xml
"$bin" tune -t dgx-h100 --max-bytes 256M > $g/tune-dgx-h100.conf
