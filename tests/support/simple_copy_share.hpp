#pragma once
// Simple's copy share of a link's payload rate (sim/coll/protocol.cpp, wire_efficiency), worked
// by hand for the tests' expected values: NVIDIA's 370 GB/s H100 Ring busbw on 450 GB/s x 0.958
// of payload is 370 / 431.1 = 0.8583 of it all in; each of the H100's 24 channels then moves a
// 1 MiB slice in 1048576 / (370e9 / 24) = 68.02 us, of which 3.5 us is the slice's
// synchronisation (simulated apart), so the copy itself runs at
// 0.8583 x 68.02 / (68.02 - 3.5) = 0.9048.

namespace linksim::testing {

// Simple's per-slice synchronisation (sim/coll/pipeline_constants.cpp, fitted once on the
// reference sweeps; docs/ACCURACY.md's leave-one-out): 3.5 us.
inline constexpr double kSimpleSliceSyncS = 3.5e-6;
// NVLS's scatter/gather copy rate (the same table): 300 GB/s.
inline constexpr double kNvlsCopyBps = 300e9;

inline constexpr double kAllInShare = 370.0 / (450.0 * 0.958);
inline constexpr double kH100SliceS = 1048576.0 * 24 / 370e9;
inline constexpr double kSimpleCopyShare =
    kAllInShare * kH100SliceS / (kH100SliceS - kSimpleSliceSyncS);

// NVLink 3's payload share of its line rate (sim/topo/link_payload.hpp): a DGX A100 pair's
// typical copy over its 12 links, 242 GiB/s = 259.8 GB/s of 300: 0.866. NVLink 1, 2, 4 and 5:
// 0.958.
inline constexpr double kNvlink3Payload = 242 * 1.073741824 / 300;

}  // namespace linksim::testing
