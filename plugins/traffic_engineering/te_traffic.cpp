// Traffic generators and robustness perturbations; see te_traffic.h.
#include "te_traffic.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <queue>
#include <random>

namespace dede::te {
namespace {

// SplitMix64: decorrelates the seeds of the streams (seed, round, purpose).
std::uint64_t Mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t MixSeed(std::uint64_t seed, int round, std::uint64_t purpose) {
  return Mix(Mix(seed) ^ Mix(static_cast<std::uint64_t>(round) + 1) ^ Mix(purpose * 0x51ed2701ULL));
}

std::mt19937_64 Stream(std::uint64_t seed, int round, std::uint64_t purpose) {
  return std::mt19937_64(MixSeed(seed, round, purpose));
}

// Hop distances from every node (BFS over the directed links); -1 if unreachable.
std::vector<std::vector<int>> HopDistances(const Topology& topology) {
  const int n = topology.num_nodes();
  std::vector<std::vector<int>> out(n);
  for (const Link& l : topology.links) out[l.src].push_back(l.dst);
  std::vector<std::vector<int>> dist(n, std::vector<int>(n, -1));
  for (int s = 0; s < n; ++s) {
    std::queue<int> queue;
    dist[s][s] = 0;
    queue.push(s);
    while (!queue.empty()) {
      const int v = queue.front();
      queue.pop();
      for (int w : out[v]) {
        if (dist[s][w] < 0) {
          dist[s][w] = dist[s][v] + 1;
          queue.push(w);
        }
      }
    }
  }
  return dist;
}

}  // namespace

std::uint64_t StreamSeed(std::uint64_t seed, int round, std::uint64_t purpose) {
  return MixSeed(seed, round, purpose);
}

Status ParseTrafficSpec(const ConfigNode& node, std::uint64_t default_seed, TrafficSpec* spec) {
  if (!node.IsMap()) {
    return InvalidArgument(node.Where() + ": " + node.path() +
                           " must be a map (model, seed, rounds, total_demand, heavy_tail, "
                           "decay, pair_fraction)");
  }
  Status status = node.CheckKeys(
      {"model", "seed", "rounds", "total_demand", "heavy_tail", "decay", "pair_fraction"});
  if (!status.ok()) return status;
  spec->enabled = true;
  std::string model = "gravity";
  status.Update(node.ReadChoice("model", {"gravity", "uniform", "bimodal", "poisson"}, &model));
  spec->model = model == "gravity"   ? TrafficModel::kGravity
                : model == "uniform" ? TrafficModel::kUniform
                : model == "bimodal" ? TrafficModel::kBimodal
                                     : TrafficModel::kPoisson;
  double seed = static_cast<double>(default_seed);
  status.Update(node.Read("seed", &seed, 0.0, 9e15));
  spec->seed = static_cast<std::uint64_t>(seed);
  status.Update(node.Read("rounds", &spec->rounds, 1, 1000000));
  status.Update(node.Read("total_demand", &spec->total_demand, 0.0, 1e18));
  status.Update(node.Read("heavy_tail", &spec->heavy_tail, 0.0, 0.999999));
  status.Update(node.Read("decay", &spec->decay, 1e-9, 1.0));
  status.Update(node.Read("pair_fraction", &spec->pair_fraction, 1e-9, 1.0));
  if (status.ok() && spec->heavy_tail > 0 && spec->heavy_tail < 0.1) {
    const ConfigNode* v = node.Find("heavy_tail");
    return InvalidArgument(v->Where() + ": " + v->path() + " = " + v->scalar() +
                           ". Violated constraint: heavy_tail = 0 (off) or >= 0.1 (the top 10% "
                           "of demands carry at least their own share)");
  }
  return status;
}

Status ParseRobustnessSpec(const ConfigNode& node,
                           std::uint64_t default_seed,
                           RobustnessSpec* spec) {
  if (!node.IsMap()) {
    return InvalidArgument(node.Where() + ": " + node.path() +
                           " must be a map (temporal_fluctuation, spatial_redistribution, seed)");
  }
  Status status = node.CheckKeys({"temporal_fluctuation", "spatial_redistribution", "seed"});
  if (!status.ok()) return status;
  status.Update(node.Read("temporal_fluctuation", &spec->temporal_fluctuation, 0.0, 1e6));
  status.Update(node.Read("spatial_redistribution", &spec->spatial_redistribution, 0.0, 0.999999));
  double seed = static_cast<double>(default_seed);
  status.Update(node.Read("seed", &seed, 0.0, 9e15));
  spec->seed = static_cast<std::uint64_t>(seed);
  return status;
}

std::vector<std::pair<int, int>> GeneratedPairs(const Topology& topology, const TrafficSpec& spec) {
  std::mt19937_64 rng = Stream(spec.seed, -1, 1);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<std::pair<int, int>> pairs;
  const int n = topology.num_nodes();
  for (int s = 0; s < n; ++s) {
    for (int d = 0; d < n; ++d) {
      if (s == d) continue;
      if (spec.pair_fraction < 1.0 && u(rng) >= spec.pair_fraction) continue;
      pairs.emplace_back(s, d);
    }
  }
  return pairs;
}

std::vector<double> GenerateTraffic(const Topology& topology,
                                    const TrafficSpec& spec,
                                    const std::vector<std::pair<int, int>>& pairs,
                                    int round) {
  std::vector<double> demand(pairs.size(), 0.0);
  if (pairs.empty()) return demand;
  double total = spec.total_demand;
  if (total <= 0) {
    for (const Link& l : topology.links) total += l.capacity;
    total /= 10.0;
  }
  const double mean = total / static_cast<double>(pairs.size());
  std::mt19937_64 rng = Stream(spec.seed, round, 2);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  switch (spec.model) {
    case TrafficModel::kGravity: {
      // NCFlow's random gravity model: frac(u, v) = out_cap(u) / sum out_cap *
      // in_cap(v) / (sum in_cap - in_cap(u)), entry ~ max(0, N(frac, frac / 4)).
      const int n = topology.num_nodes();
      std::vector<double> out_cap(n, 0.0), in_cap(n, 0.0);
      for (const Link& l : topology.links) {
        out_cap[l.src] += l.capacity;
        in_cap[l.dst] += l.capacity;
      }
      const double sum_out = std::accumulate(out_cap.begin(), out_cap.end(), 0.0);
      const double sum_in = std::accumulate(in_cap.begin(), in_cap.end(), 0.0);
      double sum_frac = 0.0;
      std::vector<double> frac(pairs.size(), 0.0);
      for (std::size_t k = 0; k < pairs.size(); ++k) {
        const auto [s, d] = pairs[k];
        const double rest = sum_in - in_cap[s];
        frac[k] = sum_out > 0 && rest > 0 ? out_cap[s] / sum_out * in_cap[d] / rest : 0.0;
        sum_frac += frac[k];
      }
      // Normalised so that the expected total (before clipping at 0) is `total`.
      for (std::size_t k = 0; k < pairs.size(); ++k) {
        const double m = sum_frac > 0 ? frac[k] / sum_frac * total : mean;
        std::normal_distribution<double> normal(m, m / 4);
        demand[k] = std::max(0.0, normal(rng));
      }
      break;
    }
    case TrafficModel::kUniform: {
      std::uniform_real_distribution<double> u(0.0, 2 * mean);
      for (double& d : demand) d = u(rng);
      break;
    }
    case TrafficModel::kBimodal: {
      // NCFlow's shape: 20% "high" pairs U(2a, 4a), the others U(0, a); mean a.
      std::uniform_real_distribution<double> low(0.0, mean), high(2 * mean, 4 * mean);
      for (double& d : demand) d = u01(rng) < 0.2 ? high(rng) : low(rng);
      break;
    }
    case TrafficModel::kPoisson: {
      // Poisson(L decay^hops) counts, L = 100 for resolution, scaled to the expected total.
      const std::vector<std::vector<int>> hops = HopDistances(topology);
      constexpr double kLambda = 100.0;
      std::vector<double> lambda(pairs.size(), 0.0);
      double sum = 0.0;
      for (std::size_t k = 0; k < pairs.size(); ++k) {
        const int h = hops[pairs[k].first][pairs[k].second];
        lambda[k] = h < 0 ? 0.0 : kLambda * std::pow(spec.decay, h);
        sum += lambda[k];
      }
      const double unit = sum > 0 ? total / sum : 0.0;
      for (std::size_t k = 0; k < pairs.size(); ++k) {
        if (lambda[k] <= 0) continue;
        std::poisson_distribution<long long> poisson(lambda[k]);
        demand[k] = static_cast<double>(poisson(rng)) * unit;
      }
      break;
    }
  }
  if (spec.heavy_tail > 0) RedistributeTop(0.1, spec.heavy_tail, &demand);
  return demand;
}

double Quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const double pos = q * static_cast<double>(values.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (pos - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

void RedistributeTop(double top_fraction, double share, std::vector<double>* demands) {
  std::vector<std::size_t> order;
  for (std::size_t k = 0; k < demands->size(); ++k) {
    if ((*demands)[k] > 0) order.push_back(k);
  }
  if (order.size() < 2) return;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return (*demands)[a] > (*demands)[b];
  });
  const std::size_t top = std::max<std::size_t>(
      1,
      std::min(order.size() - 1,
               static_cast<std::size_t>(std::llround(top_fraction * order.size()))));
  double top_sum = 0.0, rest_sum = 0.0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    (i < top ? top_sum : rest_sum) += (*demands)[order[i]];
  }
  const double total = top_sum + rest_sum;
  if (top_sum <= 0 || rest_sum <= 0) return;
  const double top_factor = share * total / top_sum;
  const double rest_factor = (1 - share) * total / rest_sum;
  for (std::size_t i = 0; i < order.size(); ++i) {
    (*demands)[order[i]] *= i < top ? top_factor : rest_factor;
  }
}

std::vector<double> ChangeSigma(const std::vector<std::vector<double>>& series) {
  if (series.empty()) return {};
  const std::size_t n = series.front().size();
  std::vector<double> sigma(n, 0.0);
  if (series.size() < 3) {
    // One change or none: its magnitude (or 0).
    if (series.size() == 2) {
      for (std::size_t k = 0; k < n; ++k) sigma[k] = std::abs(series[1][k] - series[0][k]);
    }
    return sigma;
  }
  const double m = static_cast<double>(series.size() - 1);
  for (std::size_t k = 0; k < n; ++k) {
    double sum = 0.0, sum_sq = 0.0;
    for (std::size_t t = 1; t < series.size(); ++t) {
      const double c = series[t][k] - series[t - 1][k];
      sum += c;
      sum_sq += c * c;
    }
    const double mean = sum / m;
    sigma[k] = std::sqrt(std::max(0.0, sum_sq / m - mean * mean));
  }
  return sigma;
}

void Fluctuate(double c,
               const std::vector<double>& sigma,
               std::uint64_t seed,
               int round,
               std::vector<double>* demands) {
  std::mt19937_64 rng = Stream(seed, round, 3);
  std::normal_distribution<double> normal(0.0, 1.0);
  const double factor = std::sqrt(c);
  for (std::size_t k = 0; k < demands->size(); ++k) {
    const double draw = normal(rng);
    if (k < sigma.size() && (*demands)[k] > 0) {
      (*demands)[k] = std::max(0.0, (*demands)[k] + factor * sigma[k] * draw);
    }
  }
}

}  // namespace dede::te
