#!/usr/bin/env bash
# Runs each linksim_bench case in its own process (so peak RSS is per case), REPS times, and
# prints one JSON line per run. Usage: bench/run.sh BUILD_DIR [REPS]
set -euo pipefail
bin="${1:-build}/linksim_bench"
reps="${2:-3}"
for case in 'BM_AllPairs8Gpu/8/0$' 'BM_AllPairs8Gpu/8/1$' \
            'BM_RingAllReduce/64/0/' 'BM_RingAllReduce/64/1/' \
            'BM_RingAllReduce/512/0/' 'BM_RingAllReduce/512/1/' \
            'BM_RingAllReduce/4096/1/' 'BM_RingAllReduce/4096/0/' \
            'BM_ConcurrentFlows16k/4096/0/' 'BM_ConcurrentFlows16k/4096/1/' \
            'BM_StaggeredFlows16k/4096/0/' \
            'BM_RingAllReducePeer/512/1/0/' 'BM_RingAllReducePeer/512/0/0/' \
            'BM_RingAllReducePeer/4096/1/512/' 'BM_RingAllReducePeer/4096/0/512/' \
            'BM_OneFOneB7B/100/' 'BM_OneFOneB7B/1000/'; do
  for ((i = 0; i < reps; ++i)); do
    "$bin" --benchmark_filter="$case" --benchmark_format=json 2>/dev/null |
      python3 -c 'import json,sys; b=json.load(sys.stdin)["benchmarks"][0]; print(json.dumps({k: b.get(k) for k in ("name","real_time","cpu_time","time_unit","flow_events","flow_events_per_s","makespan_s","peak_rss_MB")}))'
  done
done
