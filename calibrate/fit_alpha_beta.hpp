#pragma once
// Fitting t = alpha + s / beta (latency alpha in seconds, bandwidth beta in bytes per second) to
// (size, time) samples by weighted least squares, with confidence intervals and per-size
// residuals.
//
// Model and weights. With x = 1/beta the model is linear, t = alpha + s*x, and we minimise
// sum_i w_i (t_i - alpha - s_i x)^2 with w_i = 1/t_i^2: each residual counts relative to its own
// time, so a 10 us message and a 100 ms message weigh alike (plain least squares would let the
// largest sizes decide everything and ignore latency).
//
// Confidence intervals. Cov = sigma^2 (X^T W X)^-1 with sigma^2 = sum w_i r_i^2 / (n - 2), the
// residual variance in relative terms. The half-width is q * sqrt(Cov_jj) with q the two-sided
// Student t quantile for n - 2 degrees of freedom (not the normal approximation, since sweeps are
// short). The bandwidth interval is the latency-free image of the 1/beta interval,
// [1/(x+h), 1/(x-h)], so it is asymmetric; its upper end is +inf when x - h <= 0. With two
// sizes the fit is exact and has no interval; with one size alpha cannot be identified and is
// taken as 0 (beta = s/t).
//
// Size-dependent efficiency, only where the data demand it. When there are at least 6 sizes and
// the affine model misses by more than 5% RMS (relative), a two-regime model is tried: sizes
// below a break follow their own alpha_s + s/beta_s (NCCL's LL/LL128 protocols, a copy engine's
// small-copy path), sizes from the break up follow alpha + s/beta. The break is the size that
// minimises the weighted residual sum of squares, with at least 3 sizes on each side. It is
// kept only if an F test rejects the affine model at the 1% level:
// F = ((SSE1 - SSE2)/2) / (SSE2/(n - 4)) > F_0.99(2, n - 4). The efficiency of size s is then
// eta(s) = (s/beta) / (t(s) - alpha_s) below the break, reported as the small-size regime.

#include <optional>
#include <string>
#include <vector>

namespace linksim::calibrate {

struct Sample {
  double size_bytes = 0;
  double time_s = 0;
};

struct Residual {
  double size_bytes = 0;
  double measured_s = 0;
  double predicted_s = 0;
  double relative_error = 0;  // (predicted - measured) / measured
};

struct Regime {
  double latency_s = 0;
  double bandwidth_Bps = 0;
};

struct AlphaBetaFit {
  double latency_s = 0;             // alpha
  double bandwidth_Bps = 0;         // beta
  int sizes = 0;                    // samples used
  int dof = 0;                      // sizes - parameters
  bool latency_identified = false;  // false with one size: alpha assumed 0
  bool has_interval = false;
  double confidence = 0.95;
  double latency_lo_s = 0, latency_hi_s = 0;
  double bandwidth_lo_Bps = 0, bandwidth_hi_Bps = 0;  // hi may be +inf
  double relative_rms = 0;  // sqrt(mean relative error^2) of the chosen model
  // Set when the two-regime model was kept: sizes below `break_size_bytes` follow `small`.
  std::optional<Regime> small;
  double break_size_bytes = 0;
  std::vector<Residual> residuals;  // sorted by size
  std::string note;                 // why a parameter was clamped or not identified
};

struct FitOptions {
  double confidence = 0.95;
  // Thresholds of the two-regime rule (see above).
  int min_sizes_for_regimes = 6;
  double regime_trigger_relative_rms = 0.05;
  double regime_test_level = 0.01;
  bool allow_regimes = true;
};

// Throws std::invalid_argument when samples is empty or holds a non-positive size or time.
AlphaBetaFit fit_alpha_beta(std::vector<Sample> samples, const FitOptions& options = {});

// Time the fit predicts for `size_bytes`.
double predict_time_s(const AlphaBetaFit& fit, double size_bytes);

}  // namespace linksim::calibrate
