#include "sim/work/serving.hpp"

#include <gtest/gtest.h>

#include "sim/topo/loader.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim::work {
namespace {

using linksim::testing::TempDir;

TEST(ServingStats, NearestRankPercentiles) {
  // Ten values 1..10 (given out of order): mean 5.5; p50 rank ceil(5) = 5th = 5; p90 the 9th =
  // 9; p99 rank ceil(9.9) = 10th = 10.
  const LatencyStats s = latency_stats({10, 2, 3, 4, 5, 6, 7, 8, 9, 1});
  EXPECT_EQ(s.mean_s, 5.5);
  EXPECT_EQ(s.p50_s, 5);
  EXPECT_EQ(s.p90_s, 9);
  EXPECT_EQ(s.p99_s, 10);
  EXPECT_EQ(latency_stats({}).p99_s, 0);
}

// Llama 2 7B on one A100 of a DGX, with the given job fields.
Scenario serving(const TempDir& dir, const std::string& job_fields) {
  return load_scenario(dir.write("s.json", R"({"title": "t", "topologies": ["dgx-a100"],
    "model": "llama2-7b", "job": {"kind": "serving", )" +
                                               job_fields + R"(}, "plan": {}})"));
}

ServingResult run(const Scenario& sc) {
  return simulate_serving(topo::load_topology("dgx-a100"), load_model(sc.model), sc);
}

TEST(Serving, OneRequestIsOnePrefillThenDecodeSteps) {
  TempDir dir;
  const Scenario sc = serving(dir, R"("request_rate": 1, "requests": 1, "input_tokens": 1024,
                                      "output_tokens": 9)");
  const ServingResult r = run(sc);
  // TTFT is a 1024-token prefill (a power of two: a simulated point, not interpolated); each
  // of the 8 later tokens is one decode step at batch 1, at the table's context 1024 + 9/2.
  Scenario prefill = sc;
  prefill.job.kind = JobKind::prefill;
  prefill.job.global_batch = 1;
  prefill.job.sequence_length = 1024;
  const ModelSpec m = load_model(sc.model);
  const topo::Topology a100 = topo::load_topology("dgx-a100");
  const double ttft = simulate_job(a100, m, prefill).step_s;
  Scenario decode = sc;
  decode.job.kind = JobKind::decode;
  decode.job.global_batch = 1;
  decode.job.sequence_length = 1024;
  decode.job.decode_tokens = 9;
  const double tpot = simulate_job(a100, m, decode).step_s;
  EXPECT_DOUBLE_EQ(r.ttft.p50_s, ttft);
  EXPECT_NEAR(r.tpot.p50_s, tpot, 1e-12);
  EXPECT_NEAR(r.e2e.p50_s, ttft + 8 * tpot, 1e-12);
  // 9 output tokens over the run (arrival + E2E).
  EXPECT_NEAR(r.output_tokens_per_s, 9 / r.duration_s, 1e-12);
  EXPECT_EQ(r.output_tokens_per_s_per_gpu, r.output_tokens_per_s);  // 1 GPU
}

TEST(Serving, KvCapacityBoundsConcurrentSequences) {
  TempDir dir;
  // 7B bf16 on an A100: weights 13.5 GB; KV per token 32 layers × 2 × 32 heads × 128 × 2 B =
  // 524,288 B. Usable 0.9 × 80 GiB = 77.3 GB, less the weights and a prefill's working
  // activations, leaves about 63 GB; a request of 16,000 + 16,000 tokens reserves 16.8 GB, so
  // 3 fit (3.8): at most 3 decode at once however many wait.
  const ServingResult r = run(serving(dir, R"("request_rate": 1000, "requests": 12,
      "input_tokens": 16000, "output_tokens": 16000, "max_batch": 256)"));
  const int fit = static_cast<int>(r.kv_capacity_tokens / 32000);
  EXPECT_EQ(fit, 3);
  EXPECT_EQ(r.max_batch_seen, fit);
}

TEST(Serving, SameSeedSameResult) {
  TempDir dir;
  const Scenario sc = serving(dir, R"("request_rate": 20, "requests": 60,
      "input_tokens": {"min": 100, "max": 900}, "output_tokens": {"min": 10, "max": 90})");
  const ServingResult a = run(sc);
  const ServingResult b = run(sc);
  EXPECT_EQ(a.e2e.p99_s, b.e2e.p99_s);
  EXPECT_EQ(a.ttft.mean_s, b.ttft.mean_s);
  EXPECT_EQ(a.duration_s, b.duration_s);
}

TEST(Serving, ARequestLargerThanTheKvCacheDoesNotFit) {
  TempDir dir;
  EXPECT_THROW(run(serving(dir, R"("request_rate": 1, "requests": 1, "input_tokens": 200000,
                                   "output_tokens": 1)")),
               DoesNotFit);
}

}  // namespace
}  // namespace linksim::work
