// load_balancing: DeDe's shard load-balancing example as a plugin. See README.md.
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "dede/plugin.h"
#include "lb_methods.h"
#include "lb_model.h"

namespace {

using dede::lb::ServerSets;

class LoadBalancingPlugin : public dede::DomainPlugin {
 public:
  dede::Status Configure(const dede::ConfigNode& settings,
                         const dede::PluginContext& context) override {
    if (!settings.IsNull()) {
      dede::Status status = settings.CheckKeys({"loads",
                                                "servers",
                                                "shards",
                                                "epsilon",
                                                "memory_limit",
                                                "candidates",
                                                "rounds",
                                                "keep_alive",
                                                "keep_reserve",
                                                "admm_iterations",
                                                "pop_solver",
                                                "random_nums"});
      status.Update(settings.Read("loads", &loads_path_));
      status.Update(settings.Read("random_nums", &random_nums_path_));
      status.Update(settings.Read("servers", &options_.servers, 1, 1 << 16));
      status.Update(settings.Read("shards", &options_.shards, 1, 1 << 20));
      status.Update(settings.Read("epsilon", &options_.epsilon, 0.0, 0.99));
      status.Update(settings.Read("memory_limit", &options_.memory_limit, 1, 1 << 20));
      status.Update(settings.Read("candidates", &options_.candidates, 0, 1 << 16));
      status.Update(settings.Read("rounds", &rounds_, 0, 1 << 30));
      status.Update(settings.Read("keep_alive", &methods_.dede.keep_alive));
      status.Update(settings.Read("keep_reserve", &methods_.dede.keep_reserve, 0, 1 << 20));
      status.Update(settings.Read("admm_iterations", &methods_.dede.max_iterations, 0, 1 << 24));
      status.Update(settings.Read("pop_solver", &methods_.pop_solver));
      if (!status.ok()) return status;
      if (methods_.pop_solver != "exact" && methods_.pop_solver != "dede")
        return dede::InvalidArgument(context.config_file + ": plugin.settings.pop_solver = '" +
                                     methods_.pop_solver + "': expected 'exact' or 'dede'");
    }
    if (!loads_path_.empty() && !random_nums_path_.empty())
      return dede::InvalidArgument(context.config_file +
                                   ": plugin.settings: give either loads or random_nums, not both");
    for (std::string* p : {&loads_path_, &random_nums_path_}) {
      std::filesystem::path path(*p);
      if (!p->empty() && path.is_relative())
        *p = (std::filesystem::path(context.config_dir) / path).string();
    }
    seed_ = context.seed;
    return dede::Status::Ok();
  }

  dede::Status Describe(dede::Problem* problem) override {
    // Loads from the CSV, else generated with the example's formula from its random numbers
    // (random_nums) or from the deployment seed (rounds draws, 100 if rounds is 0).
    std::vector<std::vector<double>> loads;
    dede::Status status;
    if (!loads_path_.empty()) {
      status = dede::lb::LoadShardLoads(loads_path_, &loads);
    } else {
      std::vector<double> u;
      if (!random_nums_path_.empty())
        status = dede::lb::LoadRandomNums(random_nums_path_, &u);
      else
        u = dede::lb::SeededRandomNums(rounds_ > 0 ? rounds_ : 100, seed_);
      loads = dede::lb::GenerateLoads(u, options_.shards);
    }
    if (!status.ok()) return status;
    return model_.Build(options_, std::move(loads), problem);
  }

  // The current placement of round r is the placement last reported (round r - 1, or an
  // earlier round if a solve failed and nothing was placed since), kept in memory and
  // checkpointed with SaveState. Without any (a resume from a database written without
  // state) the DeDe method is replayed from round 0 without its relaxation (below).
  dede::Status Refresh(int round, dede::Problem* problem, bool* finished) override {
    *finished = round >= model_.num_rounds() || (rounds_ > 0 && round >= rounds_);
    if (*finished) return dede::Status::Ok();
    ServerSets current = dede::lb::InitialPlacement(options_.servers, options_.shards);
    if (round > 0 && last_round_ >= 0 && last_round_ < round) {
      current = last_;
    } else if (round > 0) {
      // The host's solvers are lent only to SolveWith: the replay routes without the ADMM
      // relaxation (rounding and flow repair alone), deterministic but not the original run's
      // placements.
      dede::lb::DedeOptions replay = methods_.dede;
      replay.use_admm = false;
      for (int r = 0; r < round; ++r) {
        dede::Status status = model_.SetRound(r, current, problem);
        if (!status.ok()) return status;
        dede::lb::Placement placement;
        status = dede::lb::SolveDede(
            model_.instance(), current, model_.allowed(), replay, &placement, nullptr);
        if (!status.ok()) return status;
        current = placement.Servers();
      }
    }
    return model_.SetRound(round, current, problem);
  }

  std::vector<dede::MethodInfo> Methods() const override { return dede::lb::MethodList(); }

  // Inbox events: a shard's load from a round on. Not in the checkpoint (the placement is):
  // a resumed run gets them again (replay) and applies them the same way.
  std::vector<dede::EventKind> EventKinds() const override {
    return {{"shard_load",
             "a shard index 0..shards-1",
             "{load: number in [0, 1e15]}",
             "the shard's load from this round on (the loads table's later rounds)"}};
  }

  dede::Status ApplyEvent(int round, const dede::Event& event, std::string* rejection) override {
    rejection->clear();
    const std::string where = "event " + std::to_string(event.id) + " (" + event.kind + ")";
    if (event.kind != "shard_load") {
      *rejection = where + ": unknown kind";
      return dede::Status::Ok();
    }
    char* end = nullptr;
    const long shard = std::strtol(event.target.c_str(), &end, 10);
    if (event.target.empty() || *end != '\0' || shard < 0 || shard >= options_.shards) {
      *rejection = where + ": target '" + event.target + "' is not a shard index 0.." +
                   std::to_string(options_.shards - 1);
      return dede::Status::Ok();
    }
    double load = 0;
    dede::Status status = event.payload.Require("load");
    status.Update(event.payload.Read("load", &load, 0.0, 1e15));
    if (!status.ok()) {
      *rejection = status.message();
      return dede::Status::Ok();
    }
    model_.SetLoadFrom(round, static_cast<int>(shard), load);
    return dede::Status::Ok();
  }

  dede::Status SolveWith(const std::string& method,
                         int round,
                         const dede::Problem& problem,
                         const dede::SolverServices& services,
                         dede::Allocation* allocation,
                         dede::SolveSummary* summary) override {
    (void)round;
    return dede::lb::SolveMethod(
        method, model_, problem, services, &methods_, allocation, summary, &record_);
  }

  dede::Status Repair(const dede::Problem& problem, dede::Allocation* allocation) override {
    model_.Repair(problem, allocation);  // infeasibility is reported by the `feasible` metric
    return dede::Status::Ok();
  }

  dede::Status Report(int round,
                      const dede::Problem& problem,
                      const dede::Allocation& allocation,
                      dede::RoundReport* report) override {
    (void)problem;
    const dede::lb::Check m = model_.Evaluate(allocation);
    report->metrics = {{"movements", m.movements},
                       {"max_load", m.max_load},
                       {"min_load", m.min_load},
                       {"band_low", m.low},
                       {"band_high", m.high},
                       {"max_shards_per_server", double(m.max_shards)},
                       {"feasible", m.feasible ? 1.0 : 0.0}};
    const int S = options_.servers, K = options_.shards;
    for (int s = 0; s < S; ++s) {
      report->entities.push_back({dede::Side::kResource,
                                  s,
                                  "server" + std::to_string(s),
                                  {{"memory_limit", double(options_.memory_limit)}}});
    }
    const std::vector<double>& load = model_.round_loads();
    for (int k = 0; k < K; ++k) {
      const auto& cur = model_.current()[k];
      report->entities.push_back({dede::Side::kDemand,
                                  k,
                                  "shard" + std::to_string(k),
                                  {{"load", load[k]},
                                   {"current_server", cur.empty() ? -1.0 : double(cur[0])},
                                   {"current_copies", double(cur.size())}}});
    }
    if (!record_.kind.empty()) {
      report->records.push_back(record_);
      record_ = dede::DomainRecord();
    }
    last_ = model_.ToPlacement(allocation).Servers();
    last_round_ = round;
    return dede::Status::Ok();
  }

  // State: the placement in force after `round` (its own, or the last one placed if the
  // round's solve failed), shards separated by ';', servers by ','.
  dede::Status SaveState(int round, std::string* state) override {
    (void)round;
    state->clear();
    if (last_round_ < 0) return dede::Status::Ok();
    std::ostringstream out;
    for (std::size_t k = 0; k < last_.size(); ++k) {
      if (k) out << ';';
      for (std::size_t j = 0; j < last_[k].size(); ++j) out << (j ? "," : "") << last_[k][j];
    }
    *state = out.str();
    return dede::Status::Ok();
  }

  dede::Status RestoreState(int last_round, const std::string& state) override {
    ServerSets placement;
    std::stringstream in(state);
    std::string shard;
    while (std::getline(in, shard, ';')) {
      placement.emplace_back();
      std::stringstream servers(shard);
      std::string s;
      while (std::getline(servers, s, ',')) {
        char* end = nullptr;
        const long v = std::strtol(s.c_str(), &end, 10);
        if (s.empty() || *end != '\0' || v < 0 || v >= options_.servers)
          return dede::InvalidArgument("load_balancing: bad checkpoint state for round " +
                                       std::to_string(last_round) + ": server '" + s + "'");
        placement.back().push_back(static_cast<int>(v));
      }
    }
    if (static_cast<int>(placement.size()) != options_.shards)
      return dede::InvalidArgument("load_balancing: checkpoint state of round " +
                                   std::to_string(last_round) + " has " +
                                   std::to_string(placement.size()) + " shards, expected " +
                                   std::to_string(options_.shards));
    last_ = std::move(placement);
    last_round_ = last_round;
    return dede::Status::Ok();
  }

 private:
  dede::lb::LbOptions options_;
  std::string loads_path_, random_nums_path_;
  unsigned long long seed_ = 0;
  int rounds_ = 0;
  dede::lb::LbModel model_;
  dede::lb::MethodOptions methods_;
  dede::DomainRecord record_;
  ServerSets last_;
  int last_round_ = -1;
};

}  // namespace

DEDE_DECLARE_PLUGIN(LoadBalancingPlugin, "load_balancing", "0.2.0")
