// A run's summary as JSON, CSV, a table and a Chrome trace (sim/report/formats.hpp,
// sim/report/chrome_trace.hpp).
#include "sim/report/formats.hpp"

#include <gtest/gtest.h>

#include "sim/core/json_view.hpp"
#include "sim/engine/summary.hpp"
#include "sim/report/chrome_trace.hpp"

namespace linksim::report {
namespace {

using Ids = std::vector<engine::TaskId>;
using engine::summarize;

// The seed on NVLink 3 (300 GB/s): 0.1 s compute, then 10 GB: 10e9 / 300e9 = 0.0333.. s.
struct Seed {
  engine::Simulation sim{{300e9}, 2};
  engine::Timeline tl;
  engine::Names names{{"backward", "gradient"}, {"gpu0", "gpu1"}, {"gpu0->gpu1"}};
  Seed() {
    const auto p = sim.add_path(std::vector<engine::ChannelId>{0}, 0);
    const auto c = sim.add_compute(0, 0.1, Ids{});
    sim.add_transfer(10e9, std::vector<engine::PathShare>{{p, 1.0}}, 0, 1, Ids{c});
    tl = sim.run();
  }
};

TEST(Formats, JsonIsExactAndParses) {
  Seed seed;
  const std::string text = to_json(summarize(seed.sim, seed.tl, seed.names));
  const Json j = parse_json_text(text, "report");
  EXPECT_EQ(j["makespan_s"].get<double>(), seed.tl.makespan_s);  // round-trips exactly
  EXPECT_EQ(j["tasks"][1]["id"], "gradient");
  EXPECT_DOUBLE_EQ(j["gpus"][0]["comm_fraction"].get<double>(), 0.25);
  EXPECT_NE(text.find("\"makespan_s\": 0.13333333333333333,"), std::string::npos) << text;
}

TEST(Formats, CsvIsLongFormat) {
  Seed seed;
  const std::string csv = to_csv(summarize(seed.sim, seed.tl, seed.names));
  EXPECT_EQ(csv.rfind("section,name,field,value\nrun,,makespan_s,0.13333333333333333\n", 0), 0u);
  EXPECT_NE(csv.find("task,gradient,start_s,0.1\n"), std::string::npos);
  EXPECT_NE(csv.find("gpu,gpu0,comm_fraction,0.2"), std::string::npos);  // 0.25 to rounding
  EXPECT_NE(csv.find("channel,gpu0->gpu1,bytes,1e+10\n"), std::string::npos) << csv;
}

TEST(Formats, TableShowsTheCommunicationShare) {
  Seed seed;
  const std::string table = to_table(summarize(seed.sim, seed.tl, seed.names));
  EXPECT_NE(table.find("makespan: 133 ms"), std::string::npos) << table;
  EXPECT_NE(table.find("25.0%"), std::string::npos) << table;
  EXPECT_NE(table.find("bottlenecks"), std::string::npos) << table;
}

TEST(ChromeTrace, OneTrackPerGpuAndPerBusyLink) {
  Seed seed;
  const Json j = parse_json_text(to_chrome_trace(seed.sim, seed.tl, seed.names), "trace");
  int slices = 0;
  int link_threads = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "X") ++slices;
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["args"]["name"] == "gpu0->gpu1") {
      ++link_threads;
    }
  }
  // compute on gpu0; the transfer on gpu0 and on gpu1; one busy interval on the link.
  EXPECT_EQ(slices, 4);
  EXPECT_EQ(link_threads, 1);
}

}  // namespace
}  // namespace linksim::report
