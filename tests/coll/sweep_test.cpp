// Sweep specs are checked before anything runs (issue 13, item 13): the messages name the
// field, never a command-line flag.
#include "sim/coll/sweep.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "sim/core/error.hpp"

namespace linksim::coll {
namespace {

std::string error_of(const SweepSpec& spec) {
  try {
    validate_sweep_spec(spec);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

SweepSpec factor_sweep(double factor) {
  SweepSpec s;
  s.min_bytes = 8;
  s.max_bytes = 1024 * 1024;
  s.step_factor = factor;
  return s;
}

TEST(SweepSpecTest, CountsRowsLikeNcclTests) {
  // 8, 32, ..., 8 x 4^8 = 524288 (the next, 2097152, is past 1 MiB): 9 rows.
  EXPECT_EQ(sweep_row_count(factor_sweep(4)), 9u);
  // -i 1M from 1 MiB to 4 MiB: 1, 2, 3, 4 MiB.
  SweepSpec step;
  step.min_bytes = 1024 * 1024;
  step.max_bytes = 4 * 1024 * 1024;
  step.step_bytes = 1024 * 1024;
  EXPECT_EQ(sweep_row_count(step), 4u);
  EXPECT_EQ(error_of(step), "(no error)");
  EXPECT_EQ(error_of(factor_sweep(2)), "(no error)");
}

TEST(SweepSpecTest, StepFactorMustBeAnIntegerOfAtLeastTwo) {
  EXPECT_EQ(error_of(factor_sweep(1.000001)),
            "<input>: at step factor: expected an integer from 2 to 1000000, got 1.000001");
  EXPECT_EQ(error_of(factor_sweep(2.5)),
            "<input>: at step factor: expected an integer from 2 to 1000000, got 2.5");
  EXPECT_EQ(error_of(factor_sweep(std::numeric_limits<double>::quiet_NaN())),
            "<input>: at step factor: expected an integer from 2 to 1000000, got nan");
  EXPECT_EQ(error_of(factor_sweep(std::numeric_limits<double>::infinity())),
            "<input>: at step factor: expected an integer from 2 to 1000000, got inf");
}

TEST(SweepSpecTest, RowCountAndSizesAreBounded) {
  // -i 1 from 0 to 1 MiB: 1048577 rows, above the 10,000 allowed.
  SweepSpec tiny_step;
  tiny_step.min_bytes = 0;
  tiny_step.max_bytes = 1024 * 1024;
  tiny_step.step_bytes = 1;
  EXPECT_EQ(error_of(tiny_step),
            "<input>: at step size: the sweep from 0 to 1048576 bytes would print more than "
            "10000 rows; use a larger step");
  // 10,000 rows exactly is fine: 0 .. 9999 bytes by 1.
  tiny_step.max_bytes = 9999;
  EXPECT_EQ(sweep_row_count(tiny_step), 10000u);
  EXPECT_EQ(error_of(tiny_step), "(no error)");
  tiny_step.step_bytes = 0;
  EXPECT_EQ(error_of(tiny_step), "<input>: at step size: expected a step above 0 bytes, got 0");
  // 128 GiB = 137438953472 bytes is above the 64 GiB = 68719476736 bytes cap: refused, not cut.
  SweepSpec big = factor_sweep(2);
  big.max_bytes = 128.0 * 1024 * 1024 * 1024;
  EXPECT_EQ(error_of(big),
            "<input>: at maximum size: 137438953472 bytes is above the 64 GiB (68719476736 "
            "bytes) a sweep may reach");
  SweepSpec inverted = factor_sweep(2);
  inverted.min_bytes = 2048;
  inverted.max_bytes = 1024;
  EXPECT_EQ(error_of(inverted),
            "<input>: at minimum size: 2048 bytes exceeds the maximum size, 1024 bytes");
  SweepSpec bad_type = factor_sweep(2);
  bad_type.dtype = "quad";
  EXPECT_EQ(error_of(bad_type), "<input>: at data type: unknown data type \"quad\"");
}

}  // namespace
}  // namespace linksim::coll
