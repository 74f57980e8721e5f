// The load_balancing domain as a DomainPlugin: settings, the model's rounds, the methods, the
// inbox events (shard loads, servers down and up) and the placement checkpoint. Lives in
// lb_core so that the tests drive it without loading the shared object; the module only
// declares it (load_balancing_plugin.cpp). See README.md in this directory.
#pragma once

#include <string>
#include <vector>

#include "dede/plugin.h"
#include "lb_core.h"
#include "lb_methods.h"
#include "lb_model.h"

namespace dede::lb {

class LoadBalancingPlugin : public DomainPlugin {
 public:
  // The keys of plugin.settings (checked and completed by the host before Configure).
  const SettingsTable* Settings() const override;
  Status Configure(const ConfigNode& settings, const PluginContext& context) override;
  Status Describe(Problem* problem) override;
  // The current placement of round r is the placement last reported (round r - 1, or an
  // earlier round if a solve failed and nothing was placed since), kept in memory and
  // checkpointed with SaveState. Without any (a resume from a database written without
  // state) the DeDe method is replayed from round 0 without its relaxation.
  Status Refresh(int round, Problem* problem, bool* finished) override;
  std::vector<MethodInfo> Methods() const override { return MethodList(); }
  // Inbox events: shard_load (a shard's load from a round on), server_down and server_up (a
  // server drained / back from a round on). Not in the checkpoint (the placement is): a
  // resumed run gets them again (replay) and applies them the same way.
  std::vector<EventKind> EventKinds() const override;
  Status ApplyEvent(int round, const Event& event, std::string* rejection) override;
  Status SolveWith(const std::string& method,
                   int round,
                   const Problem& problem,
                   const SolverServices& services,
                   Allocation* allocation,
                   SolveSummary* summary) override;
  Status Repair(const Problem& problem, Allocation* allocation) override;
  Status Report(int round,
                const Problem& problem,
                const Allocation& allocation,
                RoundReport* report) override;
  // State: the placement in force after `round` (its own, or the last one placed if the
  // round's solve failed), shards separated by ';', servers by ','. It may use servers that
  // are down by now (a placement from before a drain): any index < servers is restored.
  Status SaveState(int round, std::string* state) override;
  Status RestoreState(int last_round, const std::string& state) override;

  // For tests.
  const LbModel& model() const { return model_; }

 private:
  Status ApplyServerEvent(int round,
                          const Event& event,
                          const std::string& where,
                          std::string* rejection);

  LbOptions options_;
  std::string loads_path_, random_nums_path_;
  std::string config_file_;  // the deployment file, for messages
  unsigned long long seed_ = 0;
  int rounds_ = 0;
  LbModel model_;
  MethodOptions methods_;
  DomainRecord record_;
  ServerSets last_;
  int last_round_ = -1;
};

}  // namespace dede::lb
