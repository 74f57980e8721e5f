// The robustness study's perturbations (see robustness.h). The normal draws use Box-Muller on
// std::mt19937_64, whose output is fixed by the standard, so a seed gives the same instances
// with any standard library (std::normal_distribution is implementation-defined).
#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <random>

#include "robustness.h"

namespace dede::eval::robustness {
namespace {

std::uint64_t SplitMix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Uniform in (0, 1]: never 0, so log() below is finite.
double OpenUniform(std::mt19937_64& rng) {
  return (static_cast<double>(rng() >> 11) + 1.0) * 0x1.0p-53;
}

double StandardNormal(std::mt19937_64& rng) {
  const double u1 = OpenUniform(rng);
  const double u2 = OpenUniform(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

// Indices of the positive demands, largest first (ties by index, so the order is total).
std::vector<int> PositiveByVolume(const std::vector<double>& demands) {
  std::vector<int> order;
  for (int k = 0; k < static_cast<int>(demands.size()); ++k) {
    if (demands[k] > 0) order.push_back(k);
  }
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    return demands[a] != demands[b] ? demands[a] > demands[b] : a < b;
  });
  return order;
}

int TopCount(int positive, double top_fraction) {
  return std::min(positive, static_cast<int>(std::ceil(top_fraction * positive - 1e-9)));
}

}  // namespace

std::vector<double> ChangeVariance(const std::vector<std::vector<double>>& series) {
  if (series.empty()) return {};
  const std::size_t n = series.front().size();
  std::vector<double> variance(n, 0.0);
  const std::size_t changes = series.size() - 1;
  if (changes < 1) return variance;
  for (std::size_t k = 0; k < n; ++k) {
    double sum = 0.0;
    for (std::size_t r = 1; r < series.size(); ++r) sum += series[r][k] - series[r - 1][k];
    const double mean = sum / static_cast<double>(changes);
    double squares = 0.0;
    for (std::size_t r = 1; r < series.size(); ++r) {
      const double d = series[r][k] - series[r - 1][k] - mean;
      squares += d * d;
    }
    // Population variance (numpy's default), so a 2-round series has a defined value.
    variance[k] = squares / static_cast<double>(changes);
  }
  return variance;
}

void AddTemporalNoise(double c,
                      const std::vector<double>& variance,
                      std::uint64_t seed,
                      int round,
                      std::vector<double>* demands) {
  if (c <= 0) return;
  std::mt19937_64 rng(SplitMix(SplitMix(seed) ^ SplitMix(0x7e3a0000ULL + round)));
  for (std::size_t k = 0; k < demands->size(); ++k) {
    const double z = StandardNormal(rng);  // drawn for every k: the stream is per position
    const double sd = std::sqrt(c * (k < variance.size() ? variance[k] : 0.0));
    (*demands)[k] = std::max(0.0, (*demands)[k] + sd * z);
  }
}

double TopShare(const std::vector<double>& demands, double top_fraction) {
  const std::vector<int> order = PositiveByVolume(demands);
  const int top = TopCount(static_cast<int>(order.size()), top_fraction);
  double top_sum = 0.0, total = 0.0;
  for (int i = 0; i < static_cast<int>(order.size()); ++i) {
    total += demands[order[i]];
    if (i < top) top_sum += demands[order[i]];
  }
  return total > 0 ? top_sum / total : 0.0;
}

void Redistribute(double top_fraction, double share, std::vector<double>* demands) {
  const std::vector<int> order = PositiveByVolume(*demands);
  const int top = TopCount(static_cast<int>(order.size()), top_fraction);
  double top_sum = 0.0, rest_sum = 0.0;
  for (int i = 0; i < static_cast<int>(order.size()); ++i) {
    (i < top ? top_sum : rest_sum) += (*demands)[order[i]];
  }
  if (top_sum <= 0 || rest_sum <= 0) return;
  const double total = top_sum + rest_sum;
  const double top_factor = share * total / top_sum;
  const double rest_factor = (1.0 - share) * total / rest_sum;
  for (int i = 0; i < static_cast<int>(order.size()); ++i) {
    (*demands)[order[i]] *= i < top ? top_factor : rest_factor;
  }
}

std::vector<int> NestedSample(int n, int count, std::uint64_t seed) {
  std::vector<int> all(n);
  std::iota(all.begin(), all.end(), 0);
  std::mt19937_64 rng(SplitMix(seed ^ 0xfa11ed11ULL));
  // Fisher-Yates with our own index draw (std::shuffle's use of the engine is unspecified).
  for (int i = n - 1; i > 0; --i) {
    const int j = static_cast<int>(rng() % static_cast<std::uint64_t>(i + 1));
    std::swap(all[i], all[j]);
  }
  all.resize(std::clamp(count, 0, n));
  return all;
}

}  // namespace dede::eval::robustness
