#include "sim/coll/nvbandwidth_testcases.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

namespace linksim::coll {
namespace {

// Copied from testcase.h (v0.8); the order is createTestcases()'s.
constexpr std::array<NvbTestcase, 35> kTestcases{{
    {"host_to_device_memcpy_ce", NvbPattern::host_to_device, CopyInitiator::ce,
     "\tHost to device CE memcpy using cuMemcpyAsync"},
    {"device_to_host_memcpy_ce", NvbPattern::device_to_host, CopyInitiator::ce,
     "\tDevice to host CE memcpy using cuMemcpyAsync"},
    {"host_to_device_bidirectional_memcpy_ce", NvbPattern::host_to_device_bidir, CopyInitiator::ce,
     "\tA host to device copy is measured while a device to host copy is run simultaneously.\n"
     "\tOnly the host to device copy bandwidth is reported."},
    {"device_to_host_bidirectional_memcpy_ce", NvbPattern::device_to_host_bidir, CopyInitiator::ce,
     "\tA device to host copy is measured while a host to device copy is run simultaneously.\n"
     "\tOnly the device to host copy bandwidth is reported."},
    {"device_to_device_memcpy_read_ce", NvbPattern::device_read, CopyInitiator::ce,
     "\tMeasures bandwidth of cuMemcpyAsync between each pair of accessible peers.\n"
     "\tRead tests launch a copy from the peer device to the target using the target's context."},
    {"device_to_device_memcpy_write_ce", NvbPattern::device_write, CopyInitiator::ce,
     "\tMeasures bandwidth of cuMemcpyAsync between each pair of accessible peers.\n"
     "\tWrite tests launch a copy from the target device to the peer using the target's context."},
    {"device_to_device_bidirectional_memcpy_read_ce", NvbPattern::device_bidir_read,
     CopyInitiator::ce,
     "\tMeasures bandwidth of cuMemcpyAsync between each pair of accessible peers.\n"
     "\tA copy in the opposite direction of the measured copy is run simultaneously but not "
     "measured.\n"
     "\tRead tests launch a copy from the peer device to the target using the target's context."},
    {"device_to_device_bidirectional_memcpy_write_ce", NvbPattern::device_bidir_write,
     CopyInitiator::ce,
     "\tMeasures bandwidth of cuMemcpyAsync between each pair of accessible peers.\n"
     "\tA copy in the opposite direction of the measured copy is run simultaneously but not "
     "measured.\n"
     "\tWrite tests launch a copy from the target device to the peer using the target's context."},
    {"all_to_host_memcpy_ce", NvbPattern::all_to_host, CopyInitiator::ce,
     "\tMeasures bandwidth of cuMemcpyAsync between a single device and the host while "
     "simultaneously\n"
     "\trunning copies from all other devices to the host."},
    {"all_to_host_bidirectional_memcpy_ce", NvbPattern::all_to_host_bidir, CopyInitiator::ce,
     "\tA device to host copy is measured while a host to device copy is run simultaneously.\n"
     "\tOnly the device to host copy bandwidth is reported.\n"
     "\tAll other devices generate simultaneous host to device and device to host interferring "
     "traffic."},
    {"host_to_all_memcpy_ce", NvbPattern::host_to_all, CopyInitiator::ce,
     "\tMeasures bandwidth of cuMemcpyAsync between the host to a single device while "
     "simultaneously\n"
     "\trunning copies from the host to all other devices."},
    {"host_to_all_bidirectional_memcpy_ce", NvbPattern::host_to_all_bidir, CopyInitiator::ce,
     "\tA host to device copy is measured while a device to host copy is run simultaneously.\n"
     "\tOnly the host to device copy bandwidth is reported.\n"
     "\tAll other devices generate simultaneous host to device and device to host interferring "
     "traffic."},
    {"all_to_one_write_ce", NvbPattern::all_to_one_write, CopyInitiator::ce,
     "\tMeasures the total bandwidth of copies from all accessible peers to a single device, for "
     "each\n"
     "\tdevice. Bandwidth is reported as the total inbound bandwidth for each device.\n"
     "\tWrite tests launch a copy from the target device to the peer using the target's context."},
    {"all_to_one_read_ce", NvbPattern::all_to_one_read, CopyInitiator::ce,
     "\tMeasures the total bandwidth of copies from all accessible peers to a single device, for "
     "each\n"
     "\tdevice. Bandwidth is reported as the total outbound bandwidth for each device.\n"
     "\tRead tests launch a copy from the peer device to the target using the target's context."},
    {"one_to_all_write_ce", NvbPattern::one_to_all_write, CopyInitiator::ce,
     "\tMeasures the total bandwidth of copies from a single device to all accessible peers, for "
     "each\n"
     "\tdevice. Bandwidth is reported as the total outbound bandwidth for each device.\n"
     "\tWrite tests launch a copy from the target device to the peer using the target's context."},
    {"one_to_all_read_ce", NvbPattern::one_to_all_read, CopyInitiator::ce,
     "\tMeasures the total bandwidth of copies from a single device to all accessible peers, for "
     "each\n"
     "\tdevice. Bandwidth is reported as the total inbound bandwidth for each device.\n"
     "\tRead tests launch a copy from the peer device to the target using the target's context."},
    {"host_to_device_memcpy_sm", NvbPattern::host_to_device, CopyInitiator::sm,
     "\tHost to device SM memcpy using a copy kernel"},
    {"device_to_host_memcpy_sm", NvbPattern::device_to_host, CopyInitiator::sm,
     "\tDevice to host SM memcpy using a copy kernel"},
    {"host_to_device_bidirectional_memcpy_sm", NvbPattern::host_to_device_bidir, CopyInitiator::sm,
     "\tA host to device copy is measured while a device to host copy is run simultaneously.\n"
     "\tOnly the host to device copy bandwidth is reported."},
    {"device_to_host_bidirectional_memcpy_sm", NvbPattern::device_to_host_bidir, CopyInitiator::sm,
     "\tA device to host copy is measured while a host to device copy is run simultaneously.\n"
     "\tOnly the device to host copy bandwidth is reported."},
    {"device_to_device_memcpy_read_sm", NvbPattern::device_read, CopyInitiator::sm,
     "\tMeasures bandwidth of a copy kernel between each pair of accessible peers.\n"
     "\tRead tests launch a copy from the peer device to the target using the target's context."},
    {"device_to_device_memcpy_write_sm", NvbPattern::device_write, CopyInitiator::sm,
     "\tMeasures bandwidth of a copy kernel between each pair of accessible peers.\n"
     "\tWrite tests launch a copy from the target device to the peer using the target's context."},
    {"device_to_device_bidirectional_memcpy_read_sm", NvbPattern::device_bidir_read,
     CopyInitiator::sm,
     "\tMeasures bandwidth of a copy kernel between each pair of accessible peers. Copies are run\n"
     "\tin both directions between each pair, and the sum is reported.\n"
     "\tRead tests launch a copy from the peer device to the target using the target's context."},
    {"device_to_device_bidirectional_memcpy_write_sm", NvbPattern::device_bidir_write,
     CopyInitiator::sm,
     "\tMeasures bandwidth of a copy kernel between each pair of accessible peers. Copies are run\n"
     "\tin both directions between each pair, and the sum is reported.\n"
     "\tWrite tests launch a copy from the target device to the peer using the target's context."},
    {"all_to_host_memcpy_sm", NvbPattern::all_to_host, CopyInitiator::sm,
     "\tMeasures bandwidth of a copy kernel between a single device and the host while "
     "simultaneously\n"
     "\trunning copies from all other devices to the host."},
    {"all_to_host_bidirectional_memcpy_sm", NvbPattern::all_to_host_bidir, CopyInitiator::sm,
     "\tA device to host bandwidth of a copy kernel is measured while a host to device copy is run "
     "simultaneously.\n"
     "\tOnly the device to host copy bandwidth is reported.\n"
     "\tAll other devices generate simultaneous host to device and device to host interferring "
     "traffic using copy kernels."},
    {"host_to_all_memcpy_sm", NvbPattern::host_to_all, CopyInitiator::sm,
     "\tMeasures bandwidth of a copy kernel between the host to a single device while "
     "simultaneously\n"
     "\trunning copies from the host to all other devices."},
    {"host_to_all_bidirectional_memcpy_sm", NvbPattern::host_to_all_bidir, CopyInitiator::sm,
     "\tA host to device bandwidth of a copy kernel is measured while a device to host copy is run "
     "simultaneously.\n"
     "\tOnly the host to device copy bandwidth is reported.\n"
     "\tAll other devices generate simultaneous host to device and device to host interferring "
     "traffic using copy kernels."},
    {"all_to_one_write_sm", NvbPattern::all_to_one_write, CopyInitiator::sm,
     "\tMeasures the total bandwidth of copies from all accessible peers to a single device, for "
     "each\n"
     "\tdevice. Bandwidth is reported as the total inbound bandwidth for each device.\n"
     "\tWrite tests launch a copy from the target device to the peer using the target's context."},
    {"all_to_one_read_sm", NvbPattern::all_to_one_read, CopyInitiator::sm,
     "\tMeasures the total bandwidth of copies from all accessible peers to a single device, for "
     "each\n"
     "\tdevice. Bandwidth is reported as the total outbound bandwidth for each device.\n"
     "\tRead tests launch a copy from the peer device to the target using the target's context."},
    {"one_to_all_write_sm", NvbPattern::one_to_all_write, CopyInitiator::sm,
     "\tMeasures the total bandwidth of copies from a single device to all accessible peers, for "
     "each\n"
     "\tdevice. Bandwidth is reported as the total outbound bandwidth for each device.\n"
     "\tWrite tests launch a copy from the target device to the peer using the target's context."},
    {"one_to_all_read_sm", NvbPattern::one_to_all_read, CopyInitiator::sm,
     "\tMeasures the total bandwidth of copies from a single device to all accessible peers, for "
     "each\n"
     "\tdevice. Bandwidth is reported as the total inbound bandwidth for each device.\n"
     "\tRead tests launch a copy from the peer device to the target using the target's context."},
    {"host_device_latency_sm", NvbPattern::host_device_latency, CopyInitiator::sm,
     "\tHost - device access latency using a pointer chase kernel\n"
     "\tA 2MB buffer is allocated on the host and is accessed by the GPU"},
    {"device_to_device_latency_sm", NvbPattern::device_latency, CopyInitiator::sm,
     "\tMeasures latency of a pointer derefernce operation between each pair of accessible peers.\n"
     "\tA 2MB buffer is allocated on a GPU and is accessed by the peer GPU to determine latency.\n"
     "\t--bufferSize flag is ignored"},
    {"device_local_copy", NvbPattern::device_local_copy, CopyInitiator::ce,
     "\tMeasures bandwidth of cuMemcpyAsync between device buffers local to the GPU.\n"},
}};

}  // namespace

std::span<const NvbTestcase> nvbandwidth_testcases() {
  return kTestcases;
}

NvbLookup find_nvbandwidth_testcase(std::string_view id) {
  std::string_view digits = id;
  while (!digits.empty() && std::isspace(static_cast<unsigned char>(digits.front())))
    digits.remove_prefix(1);
  bool negative = false;
  if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) {
    negative = digits.front() == '-';
    digits.remove_prefix(1);
  }
  long long index = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  const bool all_digits =
      !digits.empty() && end == digits.data() + digits.size() && digits.front() != '-';
  NvbLookup out;
  if (id.empty() || all_digits) {
    out.by_index = true;
    const bool in_bounds = ec == std::errc() && (!negative || index == 0) &&
                           index < static_cast<long long>(kTestcases.size());
    if (in_bounds) out.found = static_cast<std::size_t>(index);
    return out;
  }
  const auto it = std::find_if(kTestcases.begin(), kTestcases.end(),
                               [&](const NvbTestcase& t) { return t.key == id; });
  if (it != kTestcases.end()) out.found = static_cast<std::size_t>(it - kTestcases.begin());
  return out;
}

bool nvbandwidth_simulates(NvbPattern pattern) {
  return pattern != NvbPattern::host_device_latency && pattern != NvbPattern::device_latency;
}

}  // namespace linksim::coll
