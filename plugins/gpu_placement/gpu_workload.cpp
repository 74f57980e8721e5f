// Synthetic GPU workloads (GenerateWorkload): the model mix and GPU demands of the Dally
// paper's batch trace, arrivals at once or Poisson. Design note section 3.4.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "gpu_sim.h"

namespace dede::gpu {

std::vector<JobSpec> GenerateWorkload(int num_jobs,
                                      bool poisson,
                                      double jobs_per_day,
                                      uint64_t seed) {
  // Model x demand counts of the paper's 500-job batch trace (design note 3.4); sampled
  // proportionally.
  struct Row {
    const char* model;
    int counts[9];
  };
  static const int kDemand[9] = {1, 2, 4, 8, 16, 32, 40, 48, 56};
  static const Row kRows[] = {{"MobileNetV3", {17, 2, 15, 52, 26, 10, 1, 1, 1}},
                              {"BERT", {94, 4, 7, 15, 5, 0, 0, 0, 0}},
                              {"ResNet50", {67, 7, 16, 27, 7, 1, 0, 0, 0}},
                              {"AlexNet", {27, 0, 9, 13, 4, 0, 0, 0, 0}},
                              {"ResNet18", {35, 0, 3, 0, 0, 0, 0, 0, 0}},
                              {"VGG", {30, 0, 2, 2, 0, 0, 0, 0, 0}}};
  std::vector<std::pair<const char*, int>> cells;
  std::vector<double> weights;
  for (const auto& r : kRows)
    for (int k = 0; k < 9; ++k)
      if (r.counts[k] > 0) cells.emplace_back(r.model, kDemand[k]), weights.push_back(r.counts[k]);
  std::mt19937_64 rng(seed);
  std::discrete_distribution<int> pick(weights.begin(), weights.end());
  std::lognormal_distribution<double> dur(std::log(56000.0), 1.3);
  std::exponential_distribution<double> gap(jobs_per_day / 86400.0);
  const auto table = TableIOverheads();
  std::vector<JobSpec> jobs;
  double t = 0;
  for (int i = 0; i < num_jobs; ++i) {
    JobSpec s;
    s.id = i;
    const auto& c = cells[pick(rng)];
    s.model = c.first;
    s.gpus = c.second;
    const double d = std::clamp(dur(rng), 600.0, 1.17e6);
    s.time_per_iteration_s = 0.5;
    s.iterations = std::round(d / s.time_per_iteration_s);
    s.overhead = table.at(s.model);
    if (poisson && i > 0) t += gap(rng);
    s.arrival_s = poisson ? t : 0.0;
    jobs.push_back(s);
  }
  return jobs;
}

}  // namespace dede::gpu
