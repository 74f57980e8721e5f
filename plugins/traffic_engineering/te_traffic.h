// Traffic for the traffic_engineering plugin beyond the CSV matrices: seeded generators
// (gravity, uniform, bimodal, Poisson, as in NCFlow/POP's traffic models, with a scale factor
// and a heavy-tailed mode) and the round-to-round perturbations of the DeDe paper's robustness
// study (section 7.2): temporal fluctuation and spatial redistribution. Every function is a
// function of its arguments only (seed and round included), so a restarted deployment
// regenerates the same demands.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "dede/config_node.h"
#include "dede/status.h"
#include "te_data.h"

namespace dede::te {

enum class TrafficModel { kGravity, kUniform, kBimodal, kPoisson };

// plugin.settings.traffic
struct TrafficSpec {
  bool enabled = false;
  TrafficModel model = TrafficModel::kGravity;
  std::uint64_t seed = 1;
  int rounds = 1;  // rounds of generated traffic (the deployment's length)
  // Expected total demand of a round (data units) before `scale`; 0: a tenth of the sum of all
  // link capacities.
  double total_demand = 0.0;
  // Heavy-tailed mode: the top 10% of demands are rescaled to carry this share of the volume
  // (total unchanged); 0 = off. DeDe's production WAN: 0.884.
  double heavy_tail = 0.0;
  double decay = 0.9;          // Poisson: mean proportional to decay^(hop distance)
  double pair_fraction = 1.0;  // share of ordered pairs that get a demand (drawn once, seeded)
};

// plugin.settings.robustness: applied to every round's demands, matrices or generated.
struct RobustnessSpec {
  // Temporal fluctuation c (paper: 2, 5, 10, 20): each demand gets a N(0, c sigma_k^2) draw,
  // sigma_k^2 = variance of the demand's consecutive-round changes over the series; 0 = off.
  double temporal_fluctuation = 0.0;
  // Spatial redistribution: the top 10% of demands rescaled to hold this share of the volume
  // (paper: 0.8, 0.6, 0.4, 0.2); 0 = off.
  double spatial_redistribution = 0.0;
  std::uint64_t seed = 1;
};

// Reads the `traffic` map (keys model, seed, rounds, total_demand, heavy_tail, decay,
// pair_fraction); errors name file, key and value. `default_seed` is the deployment seed.
Status ParseTrafficSpec(const ConfigNode& node, std::uint64_t default_seed, TrafficSpec* spec);
Status ParseRobustnessSpec(const ConfigNode& node,
                           std::uint64_t default_seed,
                           RobustnessSpec* spec);

// The ordered pairs (src != dst, node indices, sorted) that get generated demands.
std::vector<std::pair<int, int>> GeneratedPairs(const Topology& topology, const TrafficSpec& spec);

// Demands of `round` for `pairs` (data units, before the deployment's `scale`).
std::vector<double> GenerateTraffic(const Topology& topology,
                                    const TrafficSpec& spec,
                                    const std::vector<std::pair<int, int>>& pairs,
                                    int round);

// Rescales the top `top_fraction` of the positive demands (by volume) to hold `share` of the
// total and the others to hold the rest; the total is unchanged.
void RedistributeTop(double top_fraction, double share, std::vector<double>* demands);

// Standard deviation of each demand's consecutive changes over `series` (rounds x pairs).
std::vector<double> ChangeSigma(const std::vector<std::vector<double>>& series);

// Adds N(0, c sigma_k^2) to every demand (clipped at 0), drawn from (seed, round).
void Fluctuate(double c,
               const std::vector<double>& sigma,
               std::uint64_t seed,
               int round,
               std::vector<double>* demands);

// A seed for the random stream (seed, round, purpose): independent streams per round and use.
std::uint64_t StreamSeed(std::uint64_t seed, int round, std::uint64_t purpose);

// The first `q` quantile of `values` with linear interpolation (numpy's default).
double Quantile(std::vector<double> values, double q);

}  // namespace dede::te
