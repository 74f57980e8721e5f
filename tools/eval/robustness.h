// dede_eval robustness: the traffic-engineering robustness study of the DeDe paper (section 7.2)
// for max total flow. Every method (DeDe, exact, POP-4/16/64, demand pinning) solves the same
// perturbed instances; quality = total flow / the exact optimum of the same instance and round.
//
// Studies and their levels (the perturbations are this directory's own code,
// robustness_perturb.cpp; the instances go to the traffic_engineering plugin as traffic-matrix
// CSV files and link events, through te_core's public API):
//   granularity  paths per pair k = 4, 2, 1 and the share of the pairs that keep a demand
//                (0.5, 0.25; total volume unchanged). Each level records the mean edge
//                betweenness (average share of the demands with a path through a link), the
//                paper's measure of how interchangeable the resources are.
//   temporal     c = 0, 2, 5, 10, 20: each demand of each round gets a N(0, c sigma_k^2) draw
//                (clipped at 0), sigma_k^2 = variance of demand k's round-to-round changes over
//                the base series.
//   spatial      q = base, 0.8, 0.6, 0.4, 0.2: the top 10% of the demands rescaled to carry a
//                share q of the round's volume, the others the rest (total unchanged).
//   failures     0 and three counts of failed links (capacity 0 from round 0; nested sets: the
//                first n links of one seeded permutation): 50/100/200 on Kdl and ASN2k, 2/4/8
//                on B4 (size small, 38 links).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "dede/status.h"
#include "eval.h"

namespace dede::eval {

inline const std::vector<std::string>& RobustnessStudies() {
  static const std::vector<std::string> studies = {
      "granularity", "temporal", "spatial", "failures"};
  return studies;
}

struct RobustnessOptions {
  std::vector<std::string> studies;  // empty: all four
  // Share of the ordered pairs with a demand in the base traffic (medium/paper; 0: the size's
  // default); DeDe's time budget per round (0: the size's default; small converges unlimited);
  // DeDe's initial rho (0: the size's default).
  double pair_fraction = 0;
  double dede_seconds = 0;
  double dede_rho = 0;
  // Reference solve: "framework" (Clp on the whole DeDe model, as `dede_eval run`) or "plugin"
  // (the plugin's own `exact` method, when it has one).
  std::string exact_solver = "framework";
  // POP's client splitting (the plugin's pop_split_fraction): 0 as in POP's papers; Teal's
  // README runs POP with 0.25.
  double pop_split_fraction = 0;
  std::string work_dir;  // perturbed matrices and the path cache are written here
  bool Wants(const std::string& study) const {
    if (studies.empty()) return true;
    for (const std::string& s : studies) {
      if (s == study) return true;
    }
    return false;
  }
};

// One measured row and where it sits in the study.
struct RobustnessRow {
  EvalRow row;
  std::string study;    // "granularity", "temporal", "spatial", "failures"
  std::string level;    // "k=2", "c=5", "q=0.4", "links=100"
  int level_index = 0;  // order of the level within the study (0 = unperturbed)
  // The level as a number for the plots: mean edge betweenness, c, q, failed links.
  double x = std::numeric_limits<double>::quiet_NaN();
  double total_demand = std::numeric_limits<double>::quiet_NaN();  // this round, data units
};

using RobustnessSink = std::function<void(const RobustnessRow&)>;

// Runs the chosen studies at options.size; emits each row as measured. Returns an error naming
// what is missing (data files) or what failed; rows measured before it were emitted.
Status RunTrafficEngineeringRobustness(const EvalOptions& options,
                                       const RobustnessOptions& robustness,
                                       const RobustnessSink& sink);

// Summary (markdown: per study, mean quality per method and level) and plots (quality against
// the level, one line per method; gnuplot PNG + SVG when `run_gnuplot`). Returns the files
// written besides the summary.
class RobustnessReport {
 public:
  void Add(const RobustnessRow& row);
  std::string Markdown() const;
  std::vector<std::string> WritePlots(const std::string& dir, bool run_gnuplot) const;

 private:
  struct Cell {
    int rows = 0;
    int with_quality = 0;
    double quality_sum = 0;
    double quality_min = std::numeric_limits<double>::infinity();
    int with_satisfied = 0;
    double satisfied_sum = 0;  // value / total demand
    double seconds_sum = 0;
  };
  struct Level {
    std::string label;
    double x = std::numeric_limits<double>::quiet_NaN();
  };
  struct Study {
    std::string name;
    std::vector<Level> levels;             // by level_index
    std::vector<std::string> methods;      // "dede (2t)", in order of appearance
    std::vector<std::vector<Cell>> cells;  // [method][level]
  };
  Study& StudyFor(const std::string& name);
  std::vector<Study> studies_;
};

// Perturbations (robustness_perturb.cpp): pure functions of their arguments.
namespace robustness {

// Per demand: the variance of its consecutive changes over `series` (rounds x demands);
// 0 with fewer than 2 rounds.
std::vector<double> ChangeVariance(const std::vector<std::vector<double>>& series);

// demands[k] += N(0, c * variance[k]), clipped at 0; the draws come from (seed, round).
void AddTemporalNoise(double c,
                      const std::vector<double>& variance,
                      std::uint64_t seed,
                      int round,
                      std::vector<double>* demands);

// Share of the total held by the ceil(top_fraction * n) largest positive demands (n = number of
// positive demands); 0 if the total is 0.
double TopShare(const std::vector<double>& demands, double top_fraction);

// Rescales the ceil(top_fraction * n) largest positive demands to hold `share` of the total and
// the other positive demands the rest. Total unchanged; no-op when either group is empty or
// has no volume.
void Redistribute(double top_fraction, double share, std::vector<double>* demands);

// `count` distinct indices of 0..n-1, the first `count` of a permutation drawn from `seed`, so
// a smaller count's set is a subset of a larger one's.
std::vector<int> NestedSample(int n, int count, std::uint64_t seed);

}  // namespace robustness

}  // namespace dede::eval
