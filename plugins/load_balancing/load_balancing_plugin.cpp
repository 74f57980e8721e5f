// load_balancing: DeDe's shard load-balancing example as a plugin. See README.md.
#include <filesystem>
#include <string>
#include <vector>

#include "dede/plugin.h"
#include "lb_model.h"

namespace {

class LoadBalancingPlugin : public dede::DomainPlugin {
 public:
  dede::Status Configure(const dede::ConfigNode& settings,
                         const dede::PluginContext& context) override {
    if (!settings.IsNull()) {
      dede::Status status = settings.CheckKeys(
          {"loads", "servers", "shards", "epsilon", "memory_limit", "candidates", "rounds"});
      status.Update(settings.Read("loads", &loads_path_));
      status.Update(settings.Read("servers", &options_.servers, 1, 1 << 16));
      status.Update(settings.Read("shards", &options_.shards, 1, 1 << 20));
      status.Update(settings.Read("epsilon", &options_.epsilon, 0.0, 0.99));
      status.Update(settings.Read("memory_limit", &options_.memory_limit, 1, 1 << 20));
      status.Update(settings.Read("candidates", &options_.candidates, 1, 1 << 16));
      status.Update(settings.Read("rounds", &rounds_, 0, 1 << 30));
      if (!status.ok()) return status;
    }
    if (loads_path_.empty())
      return dede::InvalidArgument(context.config_file + ": plugin.settings.loads is required");
    std::filesystem::path path(loads_path_);
    if (path.is_relative()) path = std::filesystem::path(context.config_dir) / path;
    loads_path_ = path.string();
    return dede::Status::Ok();
  }

  dede::Status Describe(dede::Problem* problem) override {
    std::vector<std::vector<double>> loads;
    dede::Status status = dede::lb::LoadShardLoads(loads_path_, &loads);
    if (!status.ok()) return status;
    return model_.Build(options_, std::move(loads), problem);
  }

  dede::Status Refresh(int round, dede::Problem* problem, bool* finished) override {
    *finished = round >= model_.num_rounds() || (rounds_ > 0 && round >= rounds_);
    if (*finished) return dede::Status::Ok();
    return model_.SetRound(round, problem);
  }

  dede::Status Repair(const dede::Problem& problem, dede::Allocation* allocation) override {
    model_.Repair(problem, allocation);  // infeasibility is reported by the `feasible` metric
    return dede::Status::Ok();
  }

  dede::Status Report(int round, const dede::Problem& problem,
                      const dede::Allocation& allocation, dede::RoundReport* report) override {
    (void)round;
    const dede::lb::LbModel::RoundMetrics m = model_.Evaluate(problem, allocation);
    report->metrics = {{"movements", m.movements},       {"max_load", m.max_load},
                       {"min_load", m.min_load},         {"band_low", m.low},
                       {"band_high", m.high},            {"max_shards_per_server", m.max_shards},
                       {"feasible", m.feasible ? 1.0 : 0.0}};
    const int S = options_.servers, K = options_.shards;
    for (int s = 0; s < S; ++s) {
      report->entities.push_back({dede::Side::kResource, s, "server" + std::to_string(s),
                                  {{"memory_limit", double(options_.memory_limit)}}});
    }
    const std::vector<double>& load = model_.round_loads();
    for (int k = 0; k < K; ++k) {
      int home = -1;
      for (int s = 0; s < S && home < 0; ++s)
        if (model_.current()[s][k]) home = s;
      report->entities.push_back({dede::Side::kDemand, k, "shard" + std::to_string(k),
                                  {{"load", load[k]}, {"current_server", double(home)}}});
    }
    return dede::Status::Ok();
  }

 private:
  dede::lb::LbOptions options_;
  std::string loads_path_;
  int rounds_ = 0;
  dede::lb::LbModel model_;
};

}  // namespace

DEDE_DECLARE_PLUGIN(LoadBalancingPlugin, "load_balancing", "0.1.0")
