#!/usr/bin/env python3
"""A ring all-reduce of 1e9 bytes on N GPUs as a linksim task graph, one task per transfer
(docs/BENCHMARKS.md, run-graph): 2(N-1) steps of N transfers of 1e9 // N bytes, GPU i to i+1,
a barrier after each. GPUs are named as a cluster names them: node<k>/gpu<j>, 8 per node.
Usage: bench/ring_graph.py N > ring.json"""
import sys

n = int(sys.argv[1])
gpus = [f"node{i // 8}/gpu{i % 8}" for i in range(n)]
chunk = 10**9 // n
out = sys.stdout
out.write('{"tasks": [\n{"id": "b0", "kind": "barrier"}')
for s in range(2 * (n - 1)):
    for i in range(n):
        out.write(f',\n{{"id": "s{s}.{i}", "kind": "transfer", "src": "{gpus[i]}", '
                  f'"dst": "{gpus[(i + 1) % n]}", "bytes": {chunk}, "deps": ["b{s}"]}}')
    deps = ",".join(f'"s{s}.{i}"' for i in range(n))
    out.write(f',\n{{"id": "b{s + 1}", "kind": "barrier", "deps": [{deps}]}}')
out.write('\n]}\n')
