#!/usr/bin/env python3
"""Fits the one EFA constant that cannot be derived, nic_latency (what one message pays at each
NIC on top of NCCL's network step latency), once per EFA generation, on the reference multi-node
EFA sweeps, and checks it leave-one-machine-out where a generation has more than one. Prints the
Markdown tables docs/ACCURACY.md quotes.

Usage: scripts/fit-efa-latency.py [LINKSIM] [MEASUREMENTS_JSON]
Only sizes up to 64 KiB enter the fit: there the time is latency, not bandwidth. A size whose
measured time exceeds, by more than 5%, that of a size at least 16 times larger is left out too:
one algorithm cannot move 16 times the data in less time, so NCCL ran another one there than at
the larger size (on the p5 pair, 64 KiB takes 135 us and 1 MiB 123 us), and the time says
nothing about the NIC. Neighbours closer in size are not compared: their gaps are within the
sweeps' run-to-run noise (p5: 8 B 69.1 us, 64 B 65.5 us)."""
import json, math, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINKSIM = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "linksim")
MEAS = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "..", "shared", "reference",
                                                          "measurements.json")
# EFA generation (AWS's own labels: the EFA page groups instances under "Nitro v3 (EFA v1)" to
# "Nitro v6 (EFA v4)") -> cluster file -> measurements.json "machine" prefix. Only nccl-tests
# sweeps with times enter: the P6-B200 (EFA v4) figures are torch's all_reduce_bench.py busbw,
# which times each call after a barrier, so they are held out as a check, not fitted.
GENERATIONS = {
    "efa (EFA v1)": {
        "aws-p3dn-x2": "AWS p3dn.24xlarge x2",
        "aws-p3dn-x4": "AWS p3dn.24xlarge x4",
        "aws-p3dn-x8": "AWS p3dn.24xlarge x8",
        "aws-p4de-x2": "AWS p4de.24xlarge x2",
    },
    "efa_v2 (EFA v2)": {
        "aws-p5-x2": "AWS p5.48xlarge x2",
    },
}
MAX_BYTES = 65536
GRID_US = [x * 0.5 for x in range(0, 161)]  # 0 .. 80 us

NOISE = 1.05

records = json.load(open(MEAS))
def latency_points(prefix):
    sweep = {int(r["size_bytes"]): float(r["time_us"]) for r in records
             if r.get("machine", "").startswith(prefix) and r.get("op") == "all_reduce_perf"
             and r.get("time_us")}
    return {s: t for s, t in sweep.items() if s <= MAX_BYTES
            and all(t <= NOISE * u for v, u in sweep.items() if v >= 16 * s)}
measured = {c: latency_points(p) for g in GENERATIONS.values() for c, p in g.items()}

cache = {}
def predict(cluster, nic_us):
    key = (cluster, nic_us)
    if key in cache: return cache[key]
    doc = json.load(open(os.path.join(ROOT, "topologies", "clusters", cluster + ".json")))
    doc["cluster"]["host"] = os.path.join(ROOT, "topologies", doc["cluster"]["host"][3:])
    doc["cluster"]["fabric"]["nic_latency"] = f"{nic_us} us"
    sizes = sorted(measured[cluster])
    out = {}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(doc, f)
    try:
        for s in sizes:
            # The reference runs are mpirun ... -g 1 on every GPU (8 a host on these clusters).
            ranks = str(doc["cluster"]["nodes"] * 8)
            text = subprocess.run([LINKSIM, "nccl-tests", "--topology", f.name, "--np", ranks,
                                   "all_reduce_perf", "-b", str(s), "-e", str(s), "-g", "1"],
                                  capture_output=True, text=True, check=True).stdout
            row = [l for l in text.splitlines() if l.strip() and not l.startswith("#")][0]
            out[s] = float(row.split()[5])
    finally:
        os.unlink(f.name)
    cache[key] = out
    return out

def log_error(clusters, nic_us):
    e = 0
    for c in clusters:
        p = predict(c, nic_us)
        e += sum(math.log(p[s] / t) ** 2 for s, t in measured[c].items())
    return e

def best(clusters):
    return min(GRID_US, key=lambda x: log_error(clusters, x))

def errors(cluster, nic_us):
    p = predict(cluster, nic_us)
    errs = sorted((p[s] / t - 1) * 100 for s, t in measured[cluster].items())
    n = len(errs)
    med = errs[n // 2] if n % 2 else (errs[n // 2 - 1] + errs[n // 2]) / 2
    return med, max(errs, key=abs)

for generation, clusters in GENERATIONS.items():
    for c in clusters:
        print(f"{c}: sizes fitted {sorted(measured[c])}")
    everything = best(clusters)
    print(f"{generation}: fitted on {', '.join(clusters)}: nic_latency = {everything} us\n")
    if len(clusters) == 1:
        (c,) = clusters
        med, worst = errors(c, everything)
        print("| fitted on (no other sweep of this generation to hold out) | median error | worst |")
        print("|---|---|---|")
        print(f"| {c} | {med:+.1f}% | {worst:+.1f}% |\n")
        continue
    print("| held out | fitted on the others (us) | median error held out | worst |")
    print("|---|---|---|---|")
    for held in clusters:
        x = best([c for c in clusters if c != held])
        med, worst = errors(held, x)
        print(f"| {held} | {x} | {med:+.1f}% | {worst:+.1f}% |")
    print()
