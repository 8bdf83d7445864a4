#include "sim/coll/nccl_tests_options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <utility>

#include "sim/coll/sweep.hpp"
#include "sim/core/error.hpp"

namespace linksim::coll {

const std::vector<NcclTestsFlag>& nccl_tests_flags() {
  static const std::vector<NcclTestsFlag> flags{
      {'t', "nthreads", "threads per process"},
      {'g', "ngpus", "GPUs per thread"},
      {'b', "minbytes", "smallest size"},
      {'e', "maxbytes", "largest size"},
      {'i', "stepbytes", "size increment"},
      {'f', "stepfactor", "size factor"},
      {'n', "iters", "timed iterations"},
      {'m', "agg_iters", "operations aggregated per iteration"},
      {'w', "warmup_iters", "warm-up iterations"},
      {'N', "run_cycles", "cycles, each printed"},
      {'p', "parallel_init", "threads initialise NCCL concurrently"},
      {'c', "check", "check iterations"},
      {'o', "op", "reduction"},
      {'d', "datatype", "data type"},
      {'r', "root", "root rank"},
      {'z', "blocking", "blocking mode"},
      {'y', "stream_null", "use the default stream"},
      {'T', "timeout", "timeout in seconds"},
      {'G', "cudagraph", "CUDA graph launches"},
      {'C', "report_cputime", "report CPU time"},
      {'S', "report_timestamps", "report timestamps"},
      {'J', "output_file", "JSON output file"},
      {'a', "average", "time across ranks: 0 rank 0, 1 average, 2 min, 3 max"},
      {'R', "local_register", "buffer registration"},
      {'x', "cta_policy", "CTA policy"},
      {'D', "device_implementation", "device-API implementation"},
      {'V', "device_cta_count", "CTAs of the device implementation"},
      {'M', "memory", "memory usage report"},
      {'u', "unalign", "misalign buffers by this many elements"},
      {'I', "per_iter_timing", "per-iteration timing"},
      {'K', "per_iter_skip", "iterations the per-iteration summary skips"},
  };
  return flags;
}

namespace {

[[noreturn]] void fail(std::size_t index, const std::string& message) {
  throw InputError("", fmt::format("nccl-tests argument {}", index + 1), message);
}

// The flag a long name or an unambiguous prefix of one names (getopt_long: an exact match
// wins, else exactly one flag must start with it).
const NcclTestsFlag& long_flag(std::string_view name, std::size_t index) {
  std::vector<const NcclTestsFlag*> matches;
  for (const auto& f : nccl_tests_flags()) {
    if (f.long_name == name) return f;
    if (f.long_name.substr(0, name.size()) == name) matches.push_back(&f);
  }
  if (matches.size() == 1) return *matches.front();
  if (matches.empty()) fail(index, fmt::format("unknown nccl-tests option \"--{}\"", name));
  std::vector<std::string> names;
  for (const auto* f : matches)
    names.push_back(fmt::format("--{}", f->long_name));
  fail(index,
       fmt::format("option \"--{}\" is ambiguous; possibilities: {}", name, fmt::join(names, " ")));
}

const NcclTestsFlag& short_flag(char name, std::size_t index) {
  for (const auto& f : nccl_tests_flags()) {
    if (f.short_name == name) return f;
  }
  fail(index, fmt::format("unknown nccl-tests option \"-{}\"", name));
}

}  // namespace

NcclTestsArgs parse_nccl_tests_args(const std::vector<std::string>& args) {
  NcclTestsArgs out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--") {
      if (i + 1 < args.size()) fail(i + 1, fmt::format("unexpected argument \"{}\"", args[i + 1]));
      break;
    }
    if (word == "-h" || word == "--help" ||
        (word.size() > 2 && word.starts_with("--h") &&
         std::string_view("--help").starts_with(word))) {
      out.help = true;
      continue;
    }
    const NcclTestsFlag* flag = nullptr;
    std::optional<std::string> value;
    if (word.starts_with("--")) {
      const std::size_t eq = word.find('=');
      flag = &long_flag(std::string_view(word).substr(2, eq == std::string::npos ? eq : eq - 2), i);
      if (eq != std::string::npos) value = word.substr(eq + 1);
    } else if (word.size() >= 2 && word[0] == '-') {
      flag = &short_flag(word[1], i);
      if (word.size() > 2) value = word.substr(2);
    } else {
      fail(i, fmt::format("unexpected argument \"{}\"; nccl-tests takes only options", word));
    }
    if (!value) {
      if (i + 1 >= args.size()) {
        fail(i, fmt::format("option \"{}\" requires a value ({})", word, flag->meaning));
      }
      value = args[++i];
    }
    out.values[flag->short_name] = *value;
  }
  return out;
}

std::optional<long long> parse_nccl_tests_integer(std::string_view text) {
  const std::string s(text);
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 0);
  if (end == s.c_str() || errno == ERANGE) return std::nullopt;
  for (const char* p = end; *p; ++p) {
    if (*p != ' ' && *p != '\t') return std::nullopt;
  }
  return v;
}

namespace {

const std::vector<std::string>& all_types() {
  static const std::vector<std::string> names{"int8",   "uint8",    "int32",  "uint32",
                                              "int64",  "uint64",   "half",   "float",
                                              "double", "bfloat16", "f8e4m3", "f8e5m2"};
  return names;
}

const std::vector<std::string>& all_ops() {
  static const std::vector<std::string> names{"sum", "prod", "max", "min", "avg", "mulsum"};
  return names;
}

// 2^63: the first size a signed 64-bit byte count (nccl-tests' size_t printed as %ld) cannot
// hold.
constexpr double kSizeBeyond_bytes = 9223372036854775808.0;

// Reads one flag's value with `read`, failing with the flag's name and what was expected.
class SettingsReader {
 public:
  explicit SettingsReader(const NcclTestsArgs& args) : args_(args) {}

  const std::string* text(char flag) const {
    const auto it = args_.values.find(flag);
    return it == args_.values.end() ? nullptr : &it->second;
  }

  void integer(char flag, int& into, long long least, long long most = 1'000'000'000) const {
    const std::string* t = text(flag);
    if (!t) return;
    const auto v = parse_nccl_tests_integer(*t);
    if (!v || *v < least || *v > most) {
      // The default bound is only worth naming to a value beyond it.
      fail(flag,
           most == 1'000'000'000 && !(v && *v > most)
               ? fmt::format("expected an integer of at least {}, got \"{}\"", least, *t)
               : fmt::format("expected an integer from {} to {}, got \"{}\"", least, most, *t));
    }
    into = static_cast<int>(*v);
  }

  void size(char flag, double& into) const {
    const std::string* t = text(flag);
    if (!t) return;
    const auto v = parse_nccl_size(*t);
    if (!v) fail(flag, fmt::format("expected a size such as 8, 64K, 8G or 8GB, got \"{}\"", *t));
    // nccl-tests keeps sizes in 64-bit integers; a larger one wrapped to a negative maxBytes.
    if (*v >= kSizeBeyond_bytes) {
      fail(flag,
           fmt::format("expected a size of at most 9223372036854775807 bytes, got \"{}\"", *t));
    }
    into = *v;
  }

  void name(char flag, std::string& into, const std::vector<std::string>& names) const {
    const std::string* t = text(flag);
    if (!t) return;
    if (*t != "all" && std::find(names.begin(), names.end(), *t) == names.end()) {
      fail(flag,
           fmt::format("unknown name \"{}\"; expected one of {}, all", *t, fmt::join(names, ", ")));
    }
    into = *t;
  }

  [[noreturn]] static void fail(char flag, const std::string& message) {
    throw InputError("", fmt::format("nccl-tests -{}", flag), message);
  }

 private:
  const NcclTestsArgs& args_;
};

// The flags linksim reads but whose effect it does not model.
void note_unmodelled(const NcclTestsArgs& args, NcclTestsSettings& s) {
  static const std::vector<std::pair<char, std::string_view>> unmodelled{
      {'p', "parallel initialisation does not change the timed loop"},
      {'y', "the default stream times as a created one"},
      {'T', "nothing can time out"},
      {'S', "no timestamp column: the same input must print the same output"},
      {'a', "every rank takes the same simulated time, so rank 0, average, min and max agree"},
      {'R', "registered buffers are not modelled"},
      {'x', "the CTA policy is not modelled"},
      {'D', "the device-API kernels are not modelled"},
      {'V', "the device-API kernels are not modelled"},
      {'M', "no memory usage report: memory is not simulated"},
      {'u', "misalignment does not change the simulated time"},
  };
  for (const auto& [flag, why] : unmodelled) {
    if (args.values.count(flag)) s.notes.push_back(fmt::format("-{}: {}", flag, why));
  }
}

}  // namespace

NcclTestsSettings read_nccl_tests_settings(const NcclTestsArgs& args) {
  const SettingsReader r(args);
  NcclTestsSettings s;
  r.integer('t', s.threads, 1);
  r.integer('g', s.gpus_per_thread, 1);
  r.size('b', s.min_bytes);
  r.size('e', s.max_bytes);
  r.size('i', s.step_bytes);
  int factor = 1;
  r.integer('f', factor, 0);
  s.step_factor = factor;
  r.integer('n', s.iters, 1);
  r.integer('m', s.agg_iters, 1);
  r.integer('w', s.warmup_iters, 0);
  r.integer('N', s.run_cycles, 1);
  r.integer('p', s.parallel_init, 0, 1);
  r.integer('c', s.check, 0);
  r.name('o', s.op, all_ops());
  r.name('d', s.datatype, all_types());
  r.integer('r', s.root, -1);
  r.integer('z', s.blocking, 0, 3);
  r.integer('y', s.stream_null, 0, 1);
  r.integer('T', s.timeout_s, 0);
  r.integer('G', s.graph_launches, 0);
  r.integer('C', s.report_cputime, 0, 1);
  r.integer('S', s.report_timestamps, 0, 1);
  if (const auto* j = r.text('J')) {
    s.output_file = *j;
    s.output_file_given = true;
  }
  r.integer('a', s.average, 0, 3);
  r.integer('R', s.local_register, 0, 2);
  r.integer('x', s.cta_policy, 0, 2);
  r.integer('D', s.device_implementation, 0);
  r.integer('V', s.device_cta_count, 1, 128);
  r.integer('M', s.memory_report, 0, 1);
  r.integer('u', s.unalign, 0);
  r.integer('I', s.per_iter_timing, 0, 1);
  r.integer('K', s.per_iter_skip, 0);
  if (s.min_bytes > s.max_bytes) {
    SettingsReader::fail('b', fmt::format("invalid sizes for 'minbytes' and 'maxbytes': {:.0f} > "
                                          "{:.0f}",
                                          s.min_bytes, s.max_bytes));
  }
  if (s.device_implementation > 0 && s.local_register != 2) {
    SettingsReader::fail('D',
                         "device implementation (-D > 0) requires enabling symmetric memory "
                         "registration (-R 2)");
  }
  // common.cu's own corrections, which it reports on stderr.
  if (s.per_iter_timing && s.graph_launches >= 1) {
    s.notes.push_back(
        "per-iteration timing (-I) is incompatible with CUDA graph mode (-G). Disabling.");
    s.per_iter_timing = 0;
  }
  if (s.blocking == 3 && s.graph_launches >= 1) {
    s.notes.push_back("blocking mode (-z 3) is incompatible with CUDA graph mode (-G). Disabling.");
    s.blocking = 0;
  }
  if (s.per_iter_skip >= s.iters) {
    s.notes.push_back(
        fmt::format("per-iteration skip (-K) must be between 0 and {}. Disabling.", s.iters - 1));
    s.per_iter_skip = 0;
  }
  if (s.per_iter_skip && !s.per_iter_timing) {
    s.notes.push_back("per-iteration skip (-K) requires per-iteration timing (-I 1). Disabling.");
    s.per_iter_skip = 0;
  }
  note_unmodelled(args, s);
  return s;
}

std::vector<std::string> nccl_tests_types(const std::string& datatype, bool fp8_supported) {
  if (datatype != "all") return {datatype};
  std::vector<std::string> out;
  for (const auto& t : all_types()) {
    if (fp8_supported || t.rfind("f8", 0) != 0) out.push_back(t);
  }
  return out;
}

std::vector<std::string> nccl_tests_ops(const std::string& op) {
  return op == "all" ? all_ops() : std::vector<std::string>{op};
}

}  // namespace linksim::coll
