#!/usr/bin/env python3
"""A ring all-reduce of 1e9 bytes on N GPUs as a linksim task graph, one task per transfer
(docs/BENCHMARKS.md, run-graph): 2(N-1) steps of N transfers of 1e9 // N bytes, GPU i to i+1,
a barrier after each. GPUs are named as a cluster names them: node<k>/gpu<j>, 8 per node.
With --repeat, the same graph in the repeat form (docs/task-graph-format.md, "Repeated tasks"):
three tasks with "for" loops instead of 2(N-1)(N+1) + 1.
Usage: bench/ring_graph.py N [--repeat] > ring.json"""
import sys

n = int(sys.argv[1])
repeat = "--repeat" in sys.argv[2:]
gpus = [f"node{i // 8}/gpu{i % 8}" for i in range(n)]
chunk = 10**9 // n
out = sys.stdout
if repeat:
    steps = 2 * (n - 1)
    out.write(f'''{{"tasks": [
{{"id": "b0", "kind": "barrier"}},
{{"id": "s{{s}}.{{i}}", "for": {{"s": "0..{steps - 1}", "i": "0..{n - 1}"}}, "kind": "transfer",
 "src": "node{{i / 8}}/gpu{{i % 8}}", "dst": "node{{(i + 1) % {n} / 8}}/gpu{{(i + 1) % {n} % 8}}",
 "bytes": {chunk}, "deps": ["b{{s}}"]}},
{{"id": "b{{s + 1}}", "for": {{"s": "0..{steps - 1}"}}, "kind": "barrier",
 "deps": [{{"for": {{"i": "0..{n - 1}"}}, "id": "s{{s}}.{{i}}"}}]}}
]}}
''')
    sys.exit(0)
out.write('{"tasks": [\n{"id": "b0", "kind": "barrier"}')
for s in range(2 * (n - 1)):
    for i in range(n):
        out.write(f',\n{{"id": "s{s}.{i}", "kind": "transfer", "src": "{gpus[i]}", '
                  f'"dst": "{gpus[(i + 1) % n]}", "bytes": {chunk}, "deps": ["b{s}"]}}')
    deps = ",".join(f'"s{s}.{i}"' for i in range(n))
    out.write(f',\n{{"id": "b{s + 1}", "kind": "barrier", "deps": [{deps}]}}')
out.write('\n]}\n')
