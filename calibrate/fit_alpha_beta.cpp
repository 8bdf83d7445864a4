#include "calibrate/fit_alpha_beta.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <boost/math/distributions/fisher_f.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace linksim::calibrate {
namespace {

struct Affine {
  double alpha = 0;
  double x = 0;    // 1 / beta
  double sse = 0;  // weighted: sum (r_i / t_i)^2
  Eigen::Matrix2d inv_xtwx = Eigen::Matrix2d::Zero();
  bool ok = false;
};

// Weighted least squares over samples [first, last).
Affine solve_affine(const std::vector<Sample>& s, std::size_t first, std::size_t last) {
  Affine a;
  Eigen::Matrix2d xtwx = Eigen::Matrix2d::Zero();
  Eigen::Vector2d xtwy = Eigen::Vector2d::Zero();
  for (std::size_t i = first; i < last; ++i) {
    const double w = 1.0 / (s[i].time_s * s[i].time_s);
    const Eigen::Vector2d row(1.0, s[i].size_bytes);
    xtwx += w * row * row.transpose();
    xtwy += w * row * s[i].time_s;
  }
  Eigen::FullPivLU<Eigen::Matrix2d> lu(xtwx);
  if (!lu.isInvertible()) return a;
  const Eigen::Vector2d beta = lu.solve(xtwy);
  a.alpha = beta(0);
  a.x = beta(1);
  a.inv_xtwx = lu.inverse();
  for (std::size_t i = first; i < last; ++i) {
    const double r = (s[i].time_s - a.alpha - a.x * s[i].size_bytes) / s[i].time_s;
    a.sse += r * r;
  }
  a.ok = true;
  return a;
}

void fill_residuals(AlphaBetaFit& fit, const std::vector<Sample>& s) {
  fit.residuals.clear();
  double sum_sq = 0;
  for (const auto& p : s) {
    Residual r;
    r.size_bytes = p.size_bytes;
    r.measured_s = p.time_s;
    r.predicted_s = predict_time_s(fit, p.size_bytes);
    r.relative_error = (r.predicted_s - r.measured_s) / r.measured_s;
    sum_sq += r.relative_error * r.relative_error;
    fit.residuals.push_back(r);
  }
  fit.relative_rms = std::sqrt(sum_sq / static_cast<double>(s.size()));
}

// The weighted least-squares sums of t = s*x through the origin: x = num / den.
struct ThroughOrigin {
  double num = 0;
  double den = 0;
};
ThroughOrigin through_origin(const std::vector<Sample>& samples) {
  ThroughOrigin o;
  for (const auto& s : samples) {
    const double w = 1.0 / (s.time_s * s.time_s);
    o.num += w * s.size_bytes * s.time_s;
    o.den += w * s.size_bytes * s.size_bytes;
  }
  return o;
}

// The Student-t interval of `a`'s latency and bandwidth at `dof` degrees of freedom.
void set_interval(AlphaBetaFit& fit, const Affine& a, int dof, double confidence) {
  const double sigma2 = a.sse / dof;
  boost::math::students_t dist(dof);
  const double q = boost::math::quantile(boost::math::complement(dist, (1 - confidence) / 2));
  const double ha = q * std::sqrt(sigma2 * a.inv_xtwx(0, 0));
  const double hx = q * std::sqrt(sigma2 * a.inv_xtwx(1, 1));
  fit.has_interval = true;
  fit.latency_lo_s = a.alpha - ha;
  fit.latency_hi_s = a.alpha + ha;
  fit.bandwidth_lo_Bps = 1.0 / (a.x + hx);
  fit.bandwidth_hi_Bps = a.x - hx > 0 ? 1.0 / (a.x - hx) : std::numeric_limits<double>::infinity();
}

// The split of the sorted samples into a small- and a large-message line (at least three
// samples each, between two distinct sizes, both physical) with the least total error; k == 0
// when there is none.
struct Split {
  std::size_t k = 0;  // first sample of the large regime
  double sse = std::numeric_limits<double>::infinity();
  Affine small;
  Affine large;
};
Split best_split(const std::vector<Sample>& samples) {
  Split best;
  for (std::size_t k = 3; k + 3 <= samples.size(); ++k) {
    if (samples[k - 1].size_bytes == samples[k].size_bytes) continue;
    Affine lo = solve_affine(samples, 0, k);
    Affine hi = solve_affine(samples, k, samples.size());
    if (!lo.ok || !hi.ok || !(lo.x > 0) || !(hi.x > 0) || lo.alpha < 0 || hi.alpha < 0) continue;
    if (lo.sse + hi.sse < best.sse) best = {k, lo.sse + hi.sse, lo, hi};
  }
  return best;
}

// Two regimes replace the one line when an F test at options.regime_test_level says the split
// explains significantly more than the line `one` does.
void try_regimes(AlphaBetaFit& fit, const std::vector<Sample>& samples, const Affine& one,
                 const FitOptions& options) {
  const int n = fit.sizes;
  const Split best = best_split(samples);
  if (best.k == 0) return;
  const double f = best.sse > 0 ? ((one.sse - best.sse) / 2) / (best.sse / (n - 4))
                                : std::numeric_limits<double>::infinity();
  boost::math::fisher_f fd(2, n - 4);
  const double f_crit = boost::math::quantile(fd, 1 - options.regime_test_level);
  if (!(f > f_crit)) return;
  fit.small = Regime{best.small.alpha, 1.0 / best.small.x};
  fit.break_size_bytes = samples[best.k].size_bytes;
  fit.latency_s = best.large.alpha;
  fit.bandwidth_Bps = 1.0 / best.large.x;
  fit.dof = n - 4;
  const int dof_large = static_cast<int>(samples.size() - best.k) - 2;
  fit.has_interval = dof_large > 0;
  if (fit.has_interval) set_interval(fit, best.large, dof_large, options.confidence);
  fill_residuals(fit, samples);
}

}  // namespace

double predict_time_s(const AlphaBetaFit& fit, double size_bytes) {
  if (fit.small && size_bytes < fit.break_size_bytes) {
    return fit.small->latency_s + size_bytes / fit.small->bandwidth_Bps;
  }
  return fit.latency_s + size_bytes / fit.bandwidth_Bps;
}

AlphaBetaFit fit_alpha_beta(std::vector<Sample> samples, const FitOptions& options) {
  if (samples.empty()) throw std::invalid_argument("fit_alpha_beta: no samples");
  for (const auto& s : samples) {
    if (!(s.size_bytes > 0) || !(s.time_s > 0)) {
      throw std::invalid_argument("fit_alpha_beta: sizes and times must be positive");
    }
  }
  std::stable_sort(samples.begin(), samples.end(),
                   [](const Sample& a, const Sample& b) { return a.size_bytes < b.size_bytes; });
  AlphaBetaFit fit;
  fit.confidence = options.confidence;
  fit.sizes = static_cast<int>(samples.size());
  if (samples.front().size_bytes == samples.back().size_bytes) {
    // alpha is not identifiable: take it as 0 and beta from the (relative-)weighted mean of
    // s/t, which for equal sizes is n*s / sum(t) ... computed as the LS solution of t = s*x.
    const ThroughOrigin o = through_origin(samples);
    fit.bandwidth_Bps = o.den / o.num;
    fit.latency_s = 0;
    fit.dof = fit.sizes - 1;
    fit.note = "one message size: latency not identifiable, taken as 0";
    fill_residuals(fit, samples);
    return fit;
  }

  Affine a = solve_affine(samples, 0, samples.size());
  if (!a.ok || !(a.x > 0)) {
    throw std::invalid_argument(
        "fit_alpha_beta: time does not grow with size; no bandwidth can be fitted");
  }
  fit.latency_identified = true;
  if (a.alpha < 0) {
    // A negative latency is unphysical: refit through the origin (t = s*x).
    const ThroughOrigin o = through_origin(samples);
    a.alpha = 0;
    a.x = o.num / o.den;
    fit.note = "fitted latency was negative; clamped to 0 and bandwidth refitted";
  }
  fit.latency_s = a.alpha;
  fit.bandwidth_Bps = 1.0 / a.x;
  fit.dof = fit.sizes - 2;
  if (fit.dof > 0 && fit.note.empty()) set_interval(fit, a, fit.dof, options.confidence);
  fill_residuals(fit, samples);
  if (options.allow_regimes && fit.sizes >= options.min_sizes_for_regimes &&
      fit.relative_rms > options.regime_trigger_relative_rms && fit.note.empty()) {
    try_regimes(fit, samples, a, options);
  }
  return fit;
}

}  // namespace linksim::calibrate
