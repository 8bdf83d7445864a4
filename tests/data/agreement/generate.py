#!/usr/bin/env python3
"""Writes the schema/loader agreement corpus beside this script: each case is a base document
with one change, in <kind>/<verdict>/<name>.json, and locations.tsv says where the error of each
refused case points and what it says was expected (predicted from the loaders' code, not copied
from their output). Run it after changing a case: python3 tests/data/agreement/generate.py"""
import copy, json, os, shutil

root = os.path.dirname(os.path.abspath(__file__))
for kind in ("topology", "scenario", "model", "task_graph"):
    shutil.rmtree(os.path.join(root, kind), ignore_errors=True)

SAYS = {
 "topology/title-empty": "non-empty string", "topology/title-missing": 'missing required field "title"',
 "topology/title-number": "expected a string", "topology/unknown-field": 'unknown field "colour"',
 "topology/pcie-generation-7": "PCIe generation 7 is not known", "topology/pcie-generation-0": "PCIe generation 0 is not known",
 "topology/pcie-generation-missing": 'missing required field "generation"', "topology/pcie-width-3": "PCIe width x3 is not valid",
 "topology/link-kind-bogus": 'unknown link kind "warp"', "topology/link-unknown-field": 'unknown field "speed"',
 "topology/lanes-65": "expected lanes from 1 to 64", "topology/bandwidth-word": "expected a bandwidth",
 "topology/bandwidth-number": "bandwidth string", "topology/latency-no-unit": "expected a time",
 "topology/node-kind-bogus": 'unknown node kind "router"', "topology/gpu-model-pcie-generation-7": "at most 6",
 "topology/node-count-huge": "expected a count from 1 to 1000000", "topology/nodes-not-array": "expected an array",
 "topology/notes-empty-string": "non-empty string", "topology/link-to-missing-node": 'missing node "cpu7"',
 "topology/gpus-not-connected": "cannot reach each other", "topology/bandwidth-absurd": "at most 1 PB/s",
 "topology/latency-absurd": "at most 1 ms per hop", "topology/unknown-gpu-model": 'unknown GPU model "GTX-9999"',
 "topology/duplicate-node": 'duplicate node id "plx0"', "topology/for-product-too-large": "combinations",
 "topology/pci-bus-id-bad": "expected a PCI bus id", "topology/pci-class-without-0x": 'expected "0x" and 1 to 16 hex digits',
 "topology/cpuid-on-switch": 'field "cpuid" applies to cpu nodes only', "topology/pci-with-count": "describes one device",
 "scenario/algorithm-bogus": 'unknown algorithm "Bogus"', "scenario/algorithm-lower-case": "spelled exactly so",
 "scenario/algorithm-alias": "spelled exactly so", "scenario/protocol-bogus": 'unknown protocol "Fast"',
 "scenario/protocol-lower-case": "spelled exactly so", "scenario/bucket-size-abc": "expected a size",
 "scenario/bucket-size-number": "size string", "scenario/bucket-size-no-unit": "expected a size",
 "scenario/title-empty": "non-empty string", "scenario/title-missing": 'missing required field "title"',
 "scenario/topologies-empty": "at least one machine", "scenario/topologies-string": "expected an array",
 "scenario/unknown-field": 'unknown field "extra"', "scenario/job-kind-bogus": 'unknown job kind "inference"',
 "scenario/job-unknown-field": 'unknown field "batch"', "scenario/global-batch-zero": "positive integer",
 "scenario/global-batch-fraction": "expected an integer", "scenario/sequence-length-huge": "positive integer",
 "scenario/plan-data-zero": "positive integer", "scenario/plan-tensor-string": "expected an integer",
 "scenario/zero-stage-4": "ZeRO stage from 0 to 3", "scenario/sequence-parallel-yes": "true or false",
 "scenario/plan-unknown-field": 'unknown field "zero"', "scenario/plan-missing": 'missing required field "plan"',
 "scenario/model-missing": 'missing required field "model"', "scenario/model-empty": 'unknown model ""',
 "scenario/efficiency-zero": "fraction of peak", "scenario/efficiency-above-one": "fraction of peak",
 "scenario/comm-sm-share-one": "fraction in [0, 1)", "scenario/notes-number": "expected a string",
 "scenario/compute-time-word": "expected a time", "scenario/compute-time-negative": "expected a time >= 0",
 "scenario/gradient-size-no-unit": "expected a size", "scenario/gradient-size-missing": 'missing required field "gradient_size"',
 "scenario/gradient-sync-with-plan": 'takes no "plan"', "scenario/gradient-sync-with-model": 'takes no "model"',
 "scenario/gradient-sync-with-batch": 'unknown field "global_batch"', "scenario/unknown-machine": 'unknown machine "no-such-machine"',
 "scenario/unknown-model": 'unknown model "no-such-model"', "scenario/gradient-size-zero": "expected a size > 0",
 "scenario/gradient-size-1e308": "at most 1 EB", "scenario/compute-time-1e9": "at most 1e7 s",
 "scenario/bucket-size-zero": "expected a size > 0",
 "model/title-empty": "non-empty string", "model/title-missing": 'missing required field "title"',
 "model/layers-zero": "expected a positive integer, got 0", "model/layers-above-int": "is too large",
 "model/hidden-fraction": "expected an integer", "model/heads-missing": 'missing required field "heads"',
 "model/dtype-int4": 'unknown dtype "int4"', "model/unknown-field": 'unknown field "width"',
 "model/experts-alone": "go together", "model/gated-ffn-string": "true or false",
 "model/plain-with-heads": 'takes no "heads"', "model/parameters-zero": "expected a positive number",
 "model/parameters-string": "expected a number", "model/parameters-1e19": "parameters is above the",
 "model/sources-empty-string": "non-empty string", "model/heads-do-not-divide-hidden": "must divide hidden",
 "model/kv-heads-do-not-divide-heads": "must divide heads", "model/top-k-above-experts": "must not exceed experts",
 "task_graph/kind-sleep": 'unknown kind "sleep"', "task_graph/duration-no-unit": "expected a time",
 "task_graph/duration-two-points": "expected a time", "task_graph/duration-negative": "must not be negative",
 "task_graph/bytes-zero": "bytes must be positive", "task_graph/bytes-fraction": "must be an integer",
 "task_graph/bytes-word": "expected a size", "task_graph/bytes-above-1e18": "above the 1e18",
 "task_graph/id-missing": 'missing required field "id"', "task_graph/id-empty": "must not be empty",
 "task_graph/compute-with-bytes": 'unknown field "bytes"', "task_graph/transfer-without-dst": 'missing required field "dst"',
 "task_graph/tasks-missing": 'missing required field "tasks"', "task_graph/deps-string": "expected an array",
 "task_graph/unknown-field": 'unknown field "title"', "task_graph/duplicate-id": 'duplicate task id "a"',
 "task_graph/unknown-dependency": 'dependency "z" is not a task id', "task_graph/cycle": "dependency cycle",
 "task_graph/unknown-endpoint": 'unknown endpoint "gpu9"', "task_graph/compute-on-a-cpu": "is not a GPU",
 "task_graph/src-is-dst": "src and dst are the same node", "task_graph/duration-1e9-s": "at most 1e7 s",
 "task_graph/bytes-1e30-gb": "at most 1 EB",
}

def write(kind, verdict, name, doc):
    d = os.path.join(root, kind, verdict)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name + ".json"), "w") as f:
        f.write(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")

manifest = []

def case(kind, base, verdict, name, change, at=None):
    doc = copy.deepcopy(base)
    change(doc)
    write(kind, verdict, name, doc)
    if verdict != "accept":
        manifest.append(f"{kind}/{verdict}/{name}.json\t{at if at is not None else change.where}"
                        f"\t{SAYS[kind + '/' + name]}")

def pointer(path):
    return "/" + "/".join(str(p) for p in path)

def setp(path, value):
    def f(doc):
        node = doc
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value
    f.where = pointer(path)
    return f

def delp(path):
    def f(doc):
        node = doc
        for k in path[:-1]:
            node = node[k]
        del node[path[-1]]
    f.where = pointer(path[:-1]) if len(path) > 1 else "/"
    return f

def both(*fs):
    def f(doc):
        for g in fs:
            g(doc)
    f.where = fs[0].where
    return f

# ---- topologies
topo = {"title": "2 GPUs behind one PCIe switch",
        "nodes": [{"id": "gpu", "kind": "gpu", "count": 2, "model": "RTX-2080-Ti"},
                  {"id": "plx0", "kind": "pcie_switch"},
                  {"id": "cpu0", "kind": "cpu", "vendor": "intel"}],
        "links": [{"for": {"g": "0..1"}, "a": "gpu{g}", "b": "plx0", "kind": "pcie",
                   "generation": 3, "width": 16},
                  {"a": "plx0", "b": "cpu0", "kind": "pcie", "generation": 3, "width": 16}]}
T = "topology"
write(T, "accept", "base", topo)
case(T, topo, "accept", "bandwidth-override", setp(["links", 1, "bandwidth"], "12 GB/s"))
case(T, topo, "accept", "notes-and-sources", both(setp(["notes"], ["a note"]), setp(["sources"], ["a source"])))
case(T, topo, "accept", "device-identity",
     both(setp(["nodes", 1, "pci"], {"bus_id": "0000:01:00.0", "class": "0x060400"}),
          setp(["nodes", 2, "cpuid"], {"arch": "x86_64", "vendor": "GenuineIntel", "family": 6, "model": 143})))
case(T, topo, "reject", "title-empty", setp(["title"], ""))
case(T, topo, "reject", "title-missing", delp(["title"]))
case(T, topo, "reject", "title-number", setp(["title"], 7))
case(T, topo, "reject", "unknown-field", setp(["colour"], "blue"))
case(T, topo, "reject", "pcie-generation-7", setp(["links", 1, "generation"], 7), at="/links/1")
case(T, topo, "reject", "pcie-generation-0", setp(["links", 1, "generation"], 0), at="/links/1")
case(T, topo, "reject", "pcie-generation-missing", delp(["links", 1, "generation"]))
case(T, topo, "reject", "pcie-width-3", setp(["links", 1, "width"], 3), at="/links/1")
case(T, topo, "reject", "link-kind-bogus", setp(["links", 1, "kind"], "warp"))
case(T, topo, "reject", "link-unknown-field", setp(["links", 1, "speed"], 3))
case(T, topo, "reject", "lanes-65", setp(["links", 1, "lanes"], 65))
case(T, topo, "reject", "bandwidth-word", setp(["links", 1, "bandwidth"], "fast"))
case(T, topo, "reject", "bandwidth-number", setp(["links", 1, "bandwidth"], 12))
case(T, topo, "reject", "latency-no-unit", setp(["links", 1, "latency"], "5"))
case(T, topo, "reject", "node-kind-bogus", setp(["nodes", 1, "kind"], "router"))
case(T, topo, "reject", "gpu-model-pcie-generation-7",
     both(setp(["gpu_models"], {"X1": {"memory": "16 GiB", "hbm_bandwidth": "900 GB/s",
                                      "peak_tflops": {"fp16": 100}, "pcie_generation": 7}}),
          setp(["nodes", 0, "model"], "X1")), at="/gpu_models/X1/pcie_generation")
case(T, topo, "reject", "node-count-huge", setp(["nodes", 0, "count"], 2000000))
case(T, topo, "reject", "nodes-not-array", setp(["nodes"], {"gpu": 2}))
case(T, topo, "reject", "notes-empty-string", setp(["notes"], [""]), at="/notes/0")
case(T, topo, "reject", "pci-bus-id-bad", setp(["nodes", 1, "pci"], {"bus_id": "slot 3"}), at="/nodes/1/pci/bus_id")
case(T, topo, "reject", "pci-class-without-0x", setp(["nodes", 1, "pci"], {"class": "060400"}), at="/nodes/1/pci/class")
case(T, topo, "reject", "cpuid-on-switch", setp(["nodes", 1, "cpuid"], {"model": 143}))
case(T, topo, "reject", "pci-with-count", setp(["nodes", 0, "pci"], {"bus_id": "0000:02:00.0"}))
case(T, topo, "loader-only", "link-to-missing-node", setp(["links", 1, "b"], "cpu7"))
case(T, topo, "loader-only", "gpus-not-connected", lambda d: d["links"].pop(0), at="/links")
case(T, topo, "loader-only", "bandwidth-absurd", setp(["links", 1, "bandwidth"], "1e20 GB/s"))
case(T, topo, "loader-only", "latency-absurd", setp(["links", 1, "latency"], "1 s"))
case(T, topo, "loader-only", "unknown-gpu-model", setp(["nodes", 0, "model"], "GTX-9999"))
case(T, topo, "loader-only", "duplicate-node",
     lambda d: d["nodes"].append({"id": "plx0", "kind": "pcie_switch"}), at="/nodes/3/id")

case(T, topo, "loader-only", "for-product-too-large",
     setp(["links", 0, "for"], {"g": "0..1", "h": "0..999999"}), at="/links/0/for")

# ---- scenarios
scen = {"title": "Llama 2 7B, 2-way data parallel",
        "topologies": ["rtx2080ti-2x"], "model": "llama2-7b",
        "job": {"kind": "training", "global_batch": 4, "sequence_length": 512},
        "plan": {"data": 2, "zero_stage": 1, "micro_batches": 2, "bucket_size": "25 MB"},
        "compute": {"efficiency": 0.5},
        "overrides": {"algorithm": "Ring", "protocol": "Simple"}}
grad = {"title": "The seed's gradient sync", "topologies": ["rtx2080ti-2x"],
        "job": {"kind": "gradient_sync", "compute_time": "0.1 s", "gradient_size": "10 GB"}}
S = "scenario"
write(S, "accept", "training", scen)
write(S, "accept", "gradient-sync", grad)
case(S, scen, "accept", "decode", setp(["job"], {"kind": "decode", "decode_tokens": 16}))
case(S, scen, "accept", "every-algorithm-name", setp(["overrides", "algorithm"], "P2P"))
case(S, scen, "reject", "algorithm-bogus", setp(["overrides", "algorithm"], "Bogus"))
case(S, scen, "reject", "algorithm-lower-case", setp(["overrides", "algorithm"], "ring"))
case(S, scen, "reject", "algorithm-alias", setp(["overrides", "algorithm"], "pairwise"))
case(S, scen, "reject", "protocol-bogus", setp(["overrides", "protocol"], "Fast"))
case(S, scen, "reject", "protocol-lower-case", setp(["overrides", "protocol"], "simple"))
case(S, scen, "reject", "bucket-size-abc", setp(["plan", "bucket_size"], "abc"))
case(S, scen, "reject", "bucket-size-number", setp(["plan", "bucket_size"], 25))
case(S, scen, "reject", "bucket-size-no-unit", setp(["plan", "bucket_size"], "25"))
case(S, scen, "reject", "title-empty", setp(["title"], ""))
case(S, scen, "reject", "title-missing", delp(["title"]))
case(S, scen, "reject", "topologies-empty", setp(["topologies"], []))
case(S, scen, "reject", "topologies-string", setp(["topologies"], "rtx2080ti-2x"))
case(S, scen, "reject", "unknown-field", setp(["extra"], 1))
case(S, scen, "reject", "job-kind-bogus", setp(["job", "kind"], "inference"))
case(S, scen, "reject", "job-unknown-field", setp(["job", "batch"], 4))
case(S, scen, "reject", "global-batch-zero", setp(["job", "global_batch"], 0))
case(S, scen, "reject", "global-batch-fraction", setp(["job", "global_batch"], 1.5))
case(S, scen, "reject", "sequence-length-huge", setp(["job", "sequence_length"], 200000000))
case(S, scen, "reject", "plan-data-zero", setp(["plan", "data"], 0))
case(S, scen, "reject", "plan-tensor-string", setp(["plan", "tensor"], "2"))
case(S, scen, "reject", "zero-stage-4", setp(["plan", "zero_stage"], 4))
case(S, scen, "reject", "sequence-parallel-yes", setp(["plan", "sequence_parallel"], "yes"))
case(S, scen, "reject", "plan-unknown-field", setp(["plan", "zero"], 1))
case(S, scen, "reject", "plan-missing", delp(["plan"]))
case(S, scen, "reject", "model-missing", delp(["model"]))
case(S, scen, "reject", "model-empty", setp(["model"], ""))
case(S, scen, "reject", "efficiency-zero", setp(["compute", "efficiency"], 0))
case(S, scen, "reject", "efficiency-above-one", setp(["compute", "efficiency"], 1.5))
case(S, scen, "reject", "comm-sm-share-one", setp(["compute", "comm_sm_share"], 1))
case(S, scen, "reject", "notes-number", setp(["notes"], [3]), at="/notes/0")
case(S, grad, "reject", "compute-time-word", setp(["job", "compute_time"], "soon"))
case(S, grad, "reject", "compute-time-negative", setp(["job", "compute_time"], "-1 s"))
case(S, grad, "reject", "gradient-size-no-unit", setp(["job", "gradient_size"], "10"))
case(S, grad, "reject", "gradient-size-missing", delp(["job", "gradient_size"]))
case(S, grad, "reject", "gradient-sync-with-plan", setp(["plan"], {"data": 2}))
case(S, grad, "reject", "gradient-sync-with-model", setp(["model"], "llama2-7b"))
case(S, grad, "reject", "gradient-sync-with-batch", setp(["job", "global_batch"], 2))
case(S, scen, "loader-only", "unknown-machine", setp(["topologies"], ["no-such-machine"]), at="/topologies/0")
case(S, scen, "loader-only", "unknown-model", setp(["model"], "no-such-model"))
case(S, grad, "loader-only", "gradient-size-zero", setp(["job", "gradient_size"], "0 GB"))
case(S, grad, "loader-only", "gradient-size-1e308", setp(["job", "gradient_size"], "1e308 GB"))
case(S, grad, "loader-only", "compute-time-1e9", setp(["job", "compute_time"], "1e9 s"))
case(S, scen, "loader-only", "bucket-size-zero", setp(["plan", "bucket_size"], "0 MB"))

# ---- models
arch = {"title": "A small dense model", "layers": 4, "hidden": 512, "heads": 8, "kv_heads": 4,
        "ffn_hidden": 2048, "vocab": 32000, "dtype": "bf16"}
plain = {"title": "A plain 5e9 model", "parameters": 5e9, "layers": 10}
M = "model"
write(M, "accept", "architecture", arch)
write(M, "accept", "plain", plain)
case(M, arch, "accept", "moe", both(setp(["experts"], 8), setp(["experts_per_token"], 2)))
case(M, arch, "reject", "title-empty", setp(["title"], ""))
case(M, arch, "reject", "title-missing", delp(["title"]))
case(M, arch, "reject", "layers-zero", setp(["layers"], 0))
case(M, arch, "reject", "layers-above-int", setp(["layers"], 3000000000))
case(M, arch, "reject", "hidden-fraction", setp(["hidden"], 512.5))
case(M, arch, "reject", "heads-missing", delp(["heads"]))
case(M, arch, "reject", "dtype-int4", setp(["dtype"], "int4"))
case(M, arch, "reject", "unknown-field", setp(["width"], 512))
case(M, arch, "reject", "experts-alone", setp(["experts"], 8), at="/")
case(M, arch, "reject", "gated-ffn-string", setp(["gated_ffn"], "true"))
case(M, plain, "reject", "plain-with-heads", setp(["heads"], 8))
case(M, plain, "reject", "parameters-zero", setp(["parameters"], 0))
case(M, plain, "reject", "parameters-string", setp(["parameters"], "7B"))
case(M, plain, "reject", "parameters-1e19", setp(["parameters"], 1e19))
case(M, plain, "reject", "sources-empty-string", setp(["sources"], [""]), at="/sources/0")
case(M, arch, "loader-only", "heads-do-not-divide-hidden", setp(["heads"], 7))
case(M, arch, "loader-only", "kv-heads-do-not-divide-heads", setp(["kv_heads"], 3))
case(M, arch, "loader-only", "top-k-above-experts",
     both(setp(["experts"], 2), setp(["experts_per_token"], 4)), at="/experts_per_token")

# ---- task graphs (on rtx2080ti-2x: gpu0, gpu1, plx0, cpu0, cpu1)
graph = {"description": "compute, send, wait",
         "tasks": [{"id": "a", "kind": "compute", "gpu": "gpu0", "duration": "1 ms"},
                   {"id": "b", "kind": "transfer", "src": "gpu0", "dst": "gpu1", "bytes": "1 GB",
                    "deps": ["a"]},
                   {"id": "c", "kind": "delay", "duration": "2 us", "deps": ["b"]},
                   {"id": "d", "kind": "barrier", "deps": ["a", "c"]}]}
G = "task_graph"
write(G, "accept", "chain", graph)
case(G, graph, "accept", "integer-bytes", setp(["tasks", 1, "bytes"], 4096))
case(G, graph, "reject", "kind-sleep", setp(["tasks", 2, "kind"], "sleep"))
case(G, graph, "reject", "duration-no-unit", setp(["tasks", 0, "duration"], "5"))
case(G, graph, "reject", "duration-two-points", setp(["tasks", 0, "duration"], "1.2.3 s"))
case(G, graph, "reject", "duration-negative", setp(["tasks", 0, "duration"], "-1 ms"))
case(G, graph, "reject", "bytes-zero", setp(["tasks", 1, "bytes"], 0))
case(G, graph, "reject", "bytes-fraction", setp(["tasks", 1, "bytes"], 1.5))
case(G, graph, "reject", "bytes-word", setp(["tasks", 1, "bytes"], "lots"))
case(G, graph, "reject", "bytes-above-1e18", setp(["tasks", 1, "bytes"], 2000000000000000000))
case(G, graph, "reject", "id-missing", delp(["tasks", 2, "id"]))
case(G, graph, "reject", "id-empty", setp(["tasks", 2, "id"], ""))
case(G, graph, "reject", "compute-with-bytes", setp(["tasks", 0, "bytes"], "1 GB"))
case(G, graph, "reject", "transfer-without-dst", delp(["tasks", 1, "dst"]))
case(G, graph, "reject", "tasks-missing", delp(["tasks"]))
case(G, graph, "reject", "deps-string", setp(["tasks", 1, "deps"], "a"))
case(G, graph, "reject", "unknown-field", setp(["title"], "x"))
case(G, graph, "loader-only", "duplicate-id", setp(["tasks", 2, "id"], "a"))
case(G, graph, "loader-only", "unknown-dependency", setp(["tasks", 1, "deps"], ["z"]), at="/tasks/1/deps/0")
case(G, graph, "loader-only", "cycle", setp(["tasks", 0, "deps"], ["d"]))
case(G, graph, "loader-only", "unknown-endpoint", setp(["tasks", 1, "dst"], "gpu9"))
case(G, graph, "loader-only", "compute-on-a-cpu", setp(["tasks", 0, "gpu"], "cpu0"))
case(G, graph, "loader-only", "src-is-dst", setp(["tasks", 1, "dst"], "gpu0"))
case(G, graph, "loader-only", "duration-1e9-s", setp(["tasks", 2, "duration"], "1e9 s"))
case(G, graph, "loader-only", "bytes-1e30-gb", setp(["tasks", 1, "bytes"], "1e30 GB"))

with open(os.path.join(root, "locations.tsv"), "w") as f:
    f.write("# case<TAB>where the error points (JSON pointer)<TAB>part of what it says was expected; "
            "read by tests/cli/bad_input_json_test.cpp\n")
    f.write("\n".join(manifest) + "\n")
