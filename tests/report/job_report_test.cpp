// What `run` and `compare` print (sim/report/job_report.*): the cost columns per unit of what a
// step produces, and machines a job does not fit carried as failures in JSON and CSV.
#include "sim/report/job_report.hpp"

#include <gtest/gtest.h>

namespace linksim::report {
namespace {

work::Scenario decode_scenario() {
  work::Scenario sc;
  sc.name = "s";
  sc.title = "t";
  sc.job.kind = work::JobKind::decode;
  sc.job.global_batch = 8;
  sc.job.sequence_length = 1024;
  sc.job.decode_tokens = 256;
  return sc;
}

work::JobResult priced_decode() {
  // $3600/hour = $1/s; a decode step of 0.5 s makes 8 tokens (batch 8): 16 tokens/s.
  work::JobResult r;
  r.machine = "m";
  r.gpus = 8;
  r.price_per_hour_usd = 3600;
  r.step_s = 0.5;
  r.request_s = 128;
  r.compute_s = 0.25;
  r.exposed_comm_s = 0.125;
  r.idle_s = 0.125;
  r.hidden_comm_s = 0.0625;
  r.comm_s = 0.1875;
  r.tokens_per_step = 8;
  r.tokens_per_s = 16;
  return r;
}

work::JobResult does_not_fit() {
  work::JobResult r;
  r.machine = "small";
  r.gpus = 4;
  r.failure = "m does not fit on small: needs 30 GB per GPU, 21.6 GB usable";
  return r;
}

TEST(JobReport, DecodeCostIsPerTokenAndAgreesWithPerMillionTokens) {
  // A step costs $1/s x 0.5 s = $0.5 for 8 tokens: $0.0625 per token. 16 tokens/s at $1/s is
  // $1 / 16 = $0.0625 per token too, so $/Mtoken = $62,500 = $0.0625 x 1e6.
  const std::string table = format_comparison({priced_decode()}, decode_scenario());
  EXPECT_NE(table.find("$/token"), std::string::npos) << table;
  EXPECT_NE(table.find("$0.0625 "), std::string::npos) << table;
  EXPECT_NE(table.find("$6.25e+04"), std::string::npos) << table;
}

TEST(JobReport, PrefillCostIsPerRequest) {
  // A prefill step serves the batch: 8 requests for $0.5, $0.0625 each.
  work::Scenario sc = decode_scenario();
  sc.job.kind = work::JobKind::prefill;
  const std::string table = format_comparison({priced_decode()}, sc);
  EXPECT_NE(table.find("$/request"), std::string::npos) << table;
  EXPECT_NE(table.find("$0.0625 "), std::string::npos) << table;
}

TEST(JobReport, CsvRowOfAMachineThatDoesNotFitCarriesTheReasonNotZeros) {
  const std::string csv = jobs_csv({priced_decode(), does_not_fit()}, decode_scenario());
  EXPECT_EQ(csv,
            "scenario,machine,gpus,status,step_s,request_s,compute_s,comm_s,exposed_comm_s,"
            "hidden_comm_s,idle_s,comm_share,tokens_per_s,price_per_hour_usd,failure\n"
            "s,m,8,ok,0.5,128,0.25,0.1875,0.125,0.0625,0.125,0,16,3600,\n"
            "s,small,4,does not fit,,,,,,,,,,,\"m does not fit on small: needs 30 GB per GPU, "
            "21.6 GB usable\"\n");
}

TEST(JobReport, JsonOfAMachineThatDoesNotFitHasTheFailureAndNoFigures) {
  const Json j = job_json(does_not_fit(), decode_scenario());
  EXPECT_EQ(j["status"], "does not fit");
  EXPECT_EQ(j["failure"], does_not_fit().failure);
  EXPECT_FALSE(j.contains("step_s"));
  EXPECT_FALSE(j.contains("compute_s"));
  const Json ok = job_json(priced_decode(), decode_scenario());
  EXPECT_EQ(ok["status"], "ok");
  EXPECT_EQ(ok["hidden_comm_s"].get<double>(), 0.0625);
  EXPECT_FALSE(ok.contains("failure"));
}

TEST(JobReport, RunPrintsTheSplitThatAddsUp) {
  // 0.25 compute + 0.125 exposed + 0.125 idle = 0.5 s; 62.5 ms hidden, 187.5 ms in all.
  const std::string text = format_job(priced_decode(), decode_scenario());
  EXPECT_NE(text.find("compute          250 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("communication    125 ms  exposed"), std::string::npos) << text;
  EXPECT_NE(text.find("idle / bubble    125 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("hidden comm      62.5 ms"), std::string::npos) << text;
}

TEST(JobReport, ARangeSaysWhatItVaries) {
  // The derived compute model: both rows at their stated bounds. A scenario that states its
  // compute efficiency keeps it at both ends, and the range says so; a fitted machine names its
  // network figures' 95% bounds.
  work::JobResult r = priced_decode();
  r.step_range_s = topo::Range{0.4, 0.6};
  work::Scenario sc = decode_scenario();
  const std::string derived = format_job(r, sc);
  EXPECT_NE(derived.find("(range 400 ms to 600 ms: compute and network constants at their "
                         "stated bounds)"),
            std::string::npos)
      << derived;
  sc.compute.efficiency = 0.45;
  const std::string stated = format_job(r, sc);
  EXPECT_NE(stated.find("(range 400 ms to 600 ms: compute at the scenario's compute.efficiency "
                        "0.45 throughout, network constants at their stated bounds)"),
            std::string::npos)
      << stated;
  r.network_range_fitted = true;
  const std::string fitted = format_job(r, sc);
  EXPECT_NE(fitted.find("compute.efficiency 0.45 throughout, fitted network figures at their 95% "
                        "bounds)"),
            std::string::npos)
      << fitted;
}

}  // namespace
}  // namespace linksim::report
