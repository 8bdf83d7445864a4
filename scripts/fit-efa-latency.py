#!/usr/bin/env python3
"""Fits the one EFA constant that cannot be derived, nic_latency (what one message pays at each
NIC on top of NCCL's network step latency), on the reference multi-node EFA sweeps, and checks
it leave-one-machine-out. Prints the Markdown table docs/ACCURACY.md quotes.

Usage: scripts/fit-efa-latency.py [LINKSIM] [MEASUREMENTS_JSON]
Only sizes up to 64 KiB enter the fit: there the time is latency, not bandwidth."""
import json, math, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINKSIM = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "linksim")
MEAS = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "..", "shared", "reference",
                                                          "measurements.json")
CLUSTERS = {  # cluster file -> measurements.json "machine" prefix
    "aws-p3dn-x2": "AWS p3dn.24xlarge x2",
    "aws-p3dn-x4": "AWS p3dn.24xlarge x4",
    "aws-p3dn-x8": "AWS p3dn.24xlarge x8",
    "aws-p4de-x2": "AWS p4de.24xlarge x2",
}
MAX_BYTES = 65536
GRID_US = [x * 0.5 for x in range(0, 161)]  # 0 .. 80 us

records = json.load(open(MEAS))
measured = {c: {int(r["size_bytes"]): float(r["time_us"]) for r in records
                if r.get("machine", "").startswith(p) and r.get("op") == "all_reduce_perf"
                and r.get("time_us") and r["size_bytes"] <= MAX_BYTES}
            for c, p in CLUSTERS.items()}

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

everything = best(CLUSTERS)
print(f"fitted on all four: nic_latency = {everything} us\n")
print("| held out | fitted on the others (us) | median error held out | worst |")
print("|---|---|---|---|")
for held in CLUSTERS:
    others = [c for c in CLUSTERS if c != held]
    x = best(others)
    p = predict(held, x)
    errs = sorted((p[s] / t - 1) * 100 for s, t in measured[held].items())
    med = errs[len(errs) // 2] if len(errs) % 2 else (errs[len(errs)//2-1] + errs[len(errs)//2]) / 2
    worst = max(errs, key=abs)
    print(f"| {held} | {x} | {med:+.1f}% | {worst:+.1f}% |")
