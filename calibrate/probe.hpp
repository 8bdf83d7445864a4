#pragma once
// Measuring a node behind an interface, so that everything but the measuring itself runs and is
// tested without a GPU. The CUDA implementation (calibrate/cuda/) times real copies, kernels and
// collectives; RecordedProbe replays records (from a measurements JSON or a test).

#include <memory>
#include <string>
#include <vector>

#include "calibrate/record.hpp"

namespace linksim::calibrate {

// What one device looks like from the CUDA runtime and sysfs.
struct DeviceInfo {
  int index = 0;
  std::string name;        // "NVIDIA H200"
  std::string pci_bus_id;  // "0000:19:00.0"
  double memory_bytes = 0;
  int sm_count = 0;
  int compute_major = 0;
  int compute_minor = 0;
  int numa_node = -1;        // -1: unknown
  double pcie_gt_per_s = 0;  // current_link_speed, 0 unknown
  int pcie_width = 0;        // current_link_width, 0 unknown
};

struct ProbePlan {
  std::vector<double> sizes_bytes;  // copy sizes, ascending
  int warmup = 2;                   // untimed runs per size
  int repeats = 5;                  // timed runs per size; time is their median
  bool peers = true;                // peer copies between every pair, P2P on and off
  bool concurrent = true;           // all GPUs' H2D at once
  bool latency = true;              // kernel launch and 1-byte copy latency
  bool gemm = true;                 // cuBLAS GEMM FLOP rate
  bool collectives = true;          // NCCL all_reduce / all_gather sweep (>= 2 GPUs)
};

// 4 KiB .. 1 GiB by x4 (quick: 64 KiB .. 64 MiB by x16), so both latency and bandwidth show.
ProbePlan default_plan(bool quick);

struct ProbeResult {
  std::vector<DeviceInfo> devices;
  std::vector<Record> records;
  std::vector<std::string> notes;  // e.g. "1 GPU: no peer links to measure"
};

class Probe {
 public:
  virtual ~Probe() = default;
  virtual std::vector<DeviceInfo> discover() = 0;
  virtual ProbeResult run(const ProbePlan& plan) = 0;
};

// Replays fixed devices and records. run() returns the records whose size is in the plan (or
// that have no size), so tests can check that a plan selects what it should.
class RecordedProbe : public Probe {
 public:
  RecordedProbe(std::vector<DeviceInfo> devices, std::vector<Record> records);
  std::vector<DeviceInfo> discover() override { return devices_; }
  ProbeResult run(const ProbePlan& plan) override;

 private:
  std::vector<DeviceInfo> devices_;
  std::vector<Record> records_;
};

}  // namespace linksim::calibrate
