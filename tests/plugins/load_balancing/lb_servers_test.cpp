// load_balancing: servers down and up (setting down_servers, inbox events server_down and
// server_up) through the plugin class: the plugin's methods and the framework's generic solvers
// place nothing on a down server, the band follows the up count, rejections name the event and
// the reason, settings errors name the file and key, a resumed run refreshes as an
// uninterrupted one.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "config/json_node.h"
#include "dede/host_solvers.h"
#include "dede/solver.h"
#include "lb_model.h"
#include "lb_plugin.h"
#include "plugin/plugin_settings.h"
#include "runtime/solver_services.h"

namespace dede::lb {
namespace {

const std::string kData = std::string(DEDE_TEST_DATA_DIR) + "/lb";
constexpr double kTolerance = 1e-9;

ConfigNode Scalar(const std::string& key, const std::string& value) {
  return ConfigNode::Scalar(value, "lb_test.yaml", 3, 5, "plugin.settings." + key);
}

// The example's loads, 8 servers x 32 shards, memory 8, every server a candidate; `extra`
// adds or replaces keys; `down` (if not empty) is the down_servers list.
ConfigNode Settings(const std::map<std::string, std::string>& extra = {},
                    const std::vector<std::string>& down = {}) {
  std::map<std::string, std::string> keys = {{"loads", "shard_loads_256.csv"},
                                             {"servers", "8"},
                                             {"shards", "32"},
                                             {"memory_limit", "8"},
                                             {"rounds", "6"}};
  for (const auto& [k, v] : extra) keys[k] = v;
  ConfigNode node = ConfigNode::Map("lb_test.yaml", 1, 1, "plugin.settings");
  for (const auto& [k, v] : keys) node.Insert(k, Scalar(k, v));
  if (!down.empty()) {
    ConfigNode list = ConfigNode::List("lb_test.yaml", 7, 3, "plugin.settings.down_servers");
    for (const std::string& s : down) list.Append(Scalar("down_servers[]", s));
    node.Insert("down_servers", list);
  }
  return node;
}

PluginContext Context() {
  PluginContext context;
  context.config_file = kData + "/lb_test.yaml";
  context.config_dir = kData;
  return context;
}

Status Start(const ConfigNode& settings, LoadBalancingPlugin* plugin, Problem* problem) {
  // As the host does: the settings checked against the plugin's table, then Configure.
  Status status = internal::ConfigureWithSettings(plugin, settings, Context());
  if (!status.ok()) return status;
  return plugin->Describe(problem);
}

Event MakeEvent(std::int64_t id,
                const std::string& kind,
                const std::string& target,
                const std::string& payload_json = "{}",
                bool replay = false) {
  Event event;
  event.id = id;
  event.kind = kind;
  event.target = target;
  event.replay = replay;
  Result<ConfigNode> payload =
      internal::JsonToConfigNode(payload_json, "event " + std::to_string(id), "payload");
  EXPECT_TRUE(payload.ok()) << payload.status().message();
  event.payload = payload.value();
  return event;
}

// ApplyEvent; returns the rejection ("" when applied).
std::string Apply(LoadBalancingPlugin* plugin, int round, const Event& event) {
  std::string rejection = "not called";
  EXPECT_TRUE(plugin->ApplyEvent(round, event, &rejection).ok());
  return rejection;
}

SolverServices Services() {
  AdmmOptions admm;
  admm.num_threads = 1;
  ExactOptions exact;
  exact.time_limit_seconds = 20;
  return internal::MakeSolverServices(admm, exact);
}

double MetricOf(const RoundReport& report, const std::string& name) {
  for (const Metric& m : report.metrics)
    if (m.name == name) return m.value;
  ADD_FAILURE() << "no metric " << name;
  return -1;
}

double ServerParameter(const RoundReport& report, int server, const std::string& name) {
  for (const EntityRecord& e : report.entities)
    if (e.side == Side::kResource && e.index == server)
      for (const auto& [key, value] : e.parameters)
        if (key == name) return value;
  ADD_FAILURE() << "no parameter " << name << " of server " << server;
  return -1;
}

// Round `round` of the example's first 32 shards, summed here from the CSV's numbers.
double TotalLoad(int round) {
  std::vector<std::vector<double>> loads;
  EXPECT_TRUE(LoadShardLoads(kData + "/shard_loads_256.csv", &loads).ok());
  double total = 0;
  for (int k = 0; k < 32; ++k) total += loads[round][k];
  return total;
}

// x (load units) served by each server in the allocation.
std::vector<double> ServerLoads(const LbModel& model, const Allocation& a) {
  std::vector<double> load(model.options().servers, 0.0);
  for (int s = 0; s < model.options().servers; ++s)
    for (int k = 0; k < model.options().shards; ++k)
      if (const int x = model.x_entry(s, k); x >= 0) load[s] += a.values[x];
  return load;
}

// Pairs (s, k) with x > 0 or y > 0 on server s.
int PairsOn(const LbModel& model, const Allocation& a, int s) {
  int n = 0;
  for (int k = 0; k < model.options().shards; ++k) {
    const int x = model.x_entry(s, k), y = model.y_entry(s, k);
    if (x >= 0 && (a.values[x] > kTolerance || a.values[y] > kTolerance)) ++n;
  }
  return n;
}

struct Round {
  Allocation allocation;
  SolveSummary summary;
  RoundReport report;
  ServerSets before;  // the current placement the round started from (global ids)
};

// Refresh, the plugin's method, Repair, Report: one round as the runner drives it.
Round RunRound(LoadBalancingPlugin* plugin,
               Problem* problem,
               int round,
               const std::string& method) {
  Round r;
  bool finished = true;
  const Status refreshed = plugin->Refresh(round, problem, &finished);
  EXPECT_TRUE(refreshed.ok()) << refreshed.message();
  EXPECT_FALSE(finished);
  r.before = plugin->model().current();
  EXPECT_TRUE(
      plugin->SolveWith(method, round, *problem, Services(), &r.allocation, &r.summary).ok());
  if (static_cast<int>(r.allocation.values.size()) != problem->num_variables()) return r;
  EXPECT_TRUE(plugin->Repair(*problem, &r.allocation).ok());
  EXPECT_TRUE(plugin->Report(round, *problem, r.allocation, &r.report).ok());
  return r;
}

// New pairs of the allocation against `before`, counted here (y = 1 on a pair not in it).
int NewPairs(const LbModel& model, const Allocation& a, const ServerSets& before) {
  int n = 0;
  for (int k = 0; k < model.options().shards; ++k)
    for (int s = 0; s < model.options().servers; ++s) {
      const int y = model.y_entry(s, k);
      if (y >= 0 && a.values[y] > 0.5 && !std::binary_search(before[k].begin(), before[k].end(), s))
        ++n;
    }
  return n;
}

TEST(LoadBalancingServers, DrainMovesShardsOffAndTheBandFollowsTheUpServers) {
  for (const char* method : {"dede", "greedy", "exact"}) {
    SCOPED_TRACE(method);
    LoadBalancingPlugin plugin;
    Problem problem(0, 0);
    ASSERT_TRUE(Start(Settings(), &plugin, &problem).ok());
    const Round r0 = RunRound(&plugin, &problem, 0, method);
    ASSERT_EQ(MetricOf(r0.report, "feasible"), 1.0);
    ASSERT_GT(PairsOn(plugin.model(), r0.allocation, 3), 0);  // server 3 holds shards
    const ServerSets placed = plugin.model().ToPlacement(r0.allocation).Servers();
    int only_on_3 = 0, first_only_on_3 = -1;
    for (int k = 0; k < 32; ++k)
      if (placed[k] == std::vector<int>{3}) {
        ++only_on_3;
        if (first_only_on_3 < 0) first_only_on_3 = k;
      }

    EXPECT_EQ(Apply(&plugin, 1, MakeEvent(1, "server_down", "3")), "");
    const Round r1 = RunRound(&plugin, &problem, 1, method);
    ASSERT_EQ(r1.allocation.values.size(), static_cast<std::size_t>(problem.num_variables()));
    EXPECT_EQ(PairsOn(plugin.model(), r1.allocation, 3), 0);
    EXPECT_EQ(MetricOf(r1.report, "feasible"), 1.0) << r1.summary.message;
    EXPECT_LE(problem.MeasureViolation(r1.allocation.values).Max(), 1e-6);
    EXPECT_EQ(MetricOf(r1.report, "servers_up"), 7);
    EXPECT_EQ(ServerParameter(r1.report, 3, "up"), 0.0);
    EXPECT_EQ(ServerParameter(r1.report, 4, "up"), 1.0);
    const double avg1 = TotalLoad(1) / 7;
    EXPECT_NEAR(MetricOf(r1.report, "band_low"), 0.9 * avg1, 1e-9 * avg1);
    EXPECT_NEAR(MetricOf(r1.report, "band_high"), 1.1 * avg1, 1e-9 * avg1);
    const std::vector<double> load1 = ServerLoads(plugin.model(), r1.allocation);
    for (int s = 0; s < 8; ++s) {
      if (s == 3) continue;
      EXPECT_GE(load1[s], 0.9 * avg1 * (1 - 1e-6)) << "server " << s;
      EXPECT_LE(load1[s], 1.1 * avg1 * (1 + 1e-6)) << "server " << s;
    }
    // The round started from round 0's placement (server 3 included); every shard that was
    // only there needs a new pair, and the metric counts the new pairs.
    EXPECT_EQ(r1.before, placed);
    EXPECT_EQ(MetricOf(r1.report, "movements"), NewPairs(plugin.model(), r1.allocation, placed));
    EXPECT_GE(MetricOf(r1.report, "movements"), only_on_3);
    if (first_only_on_3 >= 0) {  // the report keeps the placement's server
      for (const EntityRecord& e : r1.report.entities)
        if (e.side == Side::kDemand && e.index == first_only_on_3) {
          EXPECT_EQ(e.parameters[1], (std::pair<std::string, double>("current_server", 3.0)));
        }
    }

    EXPECT_EQ(Apply(&plugin, 2, MakeEvent(2, "server_up", "3")), "");
    const Round r2 = RunRound(&plugin, &problem, 2, method);
    ASSERT_EQ(r2.allocation.values.size(), static_cast<std::size_t>(problem.num_variables()));
    EXPECT_EQ(MetricOf(r2.report, "feasible"), 1.0) << r2.summary.message;
    EXPECT_EQ(MetricOf(r2.report, "servers_up"), 8);
    EXPECT_EQ(ServerParameter(r2.report, 3, "up"), 1.0);
    const double avg2 = TotalLoad(2) / 8;
    EXPECT_NEAR(MetricOf(r2.report, "band_low"), 0.9 * avg2, 1e-9 * avg2);
    EXPECT_NEAR(MetricOf(r2.report, "band_high"), 1.1 * avg2, 1e-9 * avg2);
    // Back in the band, so used again: at least the band's lower edge on server 3.
    EXPECT_GE(ServerLoads(plugin.model(), r2.allocation)[3], 0.9 * avg2 * (1 - 1e-6));
  }
}

// POP-4 with 7 of 8 servers up: the round fails (no allocation, an ok Status, so the
// deployment goes on) and the next round, with the server back, is placed.
TEST(LoadBalancingServers, PopFailsTheRoundWhenTheUpServersDoNotSplitIntoGroups) {
  LoadBalancingPlugin plugin;
  Problem problem(0, 0);
  ASSERT_TRUE(Start(Settings(), &plugin, &problem).ok());
  ASSERT_EQ(MetricOf(RunRound(&plugin, &problem, 0, "pop-4").report, "feasible"), 1.0);
  EXPECT_EQ(Apply(&plugin, 1, MakeEvent(1, "server_down", "5")), "");
  const Round r1 = RunRound(&plugin, &problem, 1, "pop-4");
  EXPECT_TRUE(r1.allocation.values.empty());
  EXPECT_EQ(r1.summary.termination, Termination::kFailure);
  EXPECT_NE(r1.summary.message.find("pop-4 needs the up servers (7 of 8) to be a multiple of 4"),
            std::string::npos)
      << r1.summary.message;
  EXPECT_EQ(Apply(&plugin, 2, MakeEvent(2, "server_up", "5")), "");
  const Round r2 = RunRound(&plugin, &problem, 2, "pop-4");
  EXPECT_EQ(MetricOf(r2.report, "feasible"), 1.0) << r2.summary.message;
}

// solver.kind exact and admm solve the Problem itself: a down server's band and memory rows
// have right-hand side 0, so nothing is placed there. Server 2 is down from the start
// (down_servers), and shards start on up servers only.
TEST(LoadBalancingServers, GenericSolversRespectTheZeroRowsOfADownServer) {
  for (const char* candidates : {"0", "3"}) {
    SCOPED_TRACE(std::string("candidates ") + candidates);
    LoadBalancingPlugin plugin;
    Problem problem(0, 0);
    const Status started = Start(Settings({{"candidates", candidates}}, {"2"}), &plugin, &problem);
    ASSERT_TRUE(started.ok()) << started.message();
    bool finished = true;
    ASSERT_TRUE(plugin.Refresh(0, &problem, &finished).ok());
    for (const auto& servers : plugin.model().current()) EXPECT_NE(servers, std::vector<int>{2});
    for (ConstraintId c = 0; c < problem.num_constraints(); ++c) {
      const std::string& name = problem.constraint_name(c);
      if (name == "low[2]" || name == "high[2]" || name == "memory[2]") {
        EXPECT_EQ(problem.constraint(c).rhs, 0.0) << name;
      } else if (name == "memory[1]") {
        EXPECT_EQ(problem.constraint(c).rhs, 8.0);
      } else if (name == "high[1]") {
        EXPECT_NEAR(problem.constraint(c).rhs, 1.1 * TotalLoad(0) / 7, 1e-9);
      }
    }
    Allocation a;
    SolveSummary summary;
    if (std::string(candidates) == "0") {
      ExactOptions exact;
      exact.time_limit_seconds = 20;
      SolveExact(problem, exact, &a, &summary);
    } else {
      AdmmOptions admm;
      admm.num_threads = 1;
      admm.time_limit_seconds = 5;
      admm.integer_iterations = 50;
      admm.max_iterations = 1000;
      AdmmSolver solver(problem, admm);
      ASSERT_TRUE(solver.setup_error().empty()) << solver.setup_error();
      solver.Solve(&a, &summary);
    }
    ASSERT_EQ(a.values.size(), static_cast<std::size_t>(problem.num_variables()))
        << summary.message;
    ASSERT_TRUE(plugin.Repair(problem, &a).ok());
    EXPECT_EQ(PairsOn(plugin.model(), a, 2), 0);
    EXPECT_LE(problem.MeasureViolation(a.values).Max(), 1e-6);
    const Check c = plugin.model().Evaluate(a);
    EXPECT_TRUE(c.feasible) << c.why;
    RoundReport report;
    ASSERT_TRUE(plugin.Report(0, problem, a, &report).ok());
    EXPECT_EQ(ServerParameter(report, 2, "up"), 0.0);
    // The spare comes in: from round 1 it is in the band.
    EXPECT_EQ(Apply(&plugin, 1, MakeEvent(1, "server_up", "2")), "");
    ASSERT_TRUE(plugin.Refresh(1, &problem, &finished).ok());
    for (ConstraintId c = 0; c < problem.num_constraints(); ++c)
      if (problem.constraint_name(c) == "memory[2]") {
        EXPECT_EQ(problem.constraint(c).rhs, 8.0);
      }
  }
}

// Evaluate and Repair of an allocation that uses a down server.
TEST(LoadBalancingServers, EvaluateRejectsAndRepairMovesAShareOnADownServer) {
  LoadBalancingPlugin plugin;
  Problem problem(0, 0);
  ASSERT_TRUE(Start(Settings(), &plugin, &problem).ok());
  const Round r0 = RunRound(&plugin, &problem, 0, "greedy");
  ASSERT_GT(PairsOn(plugin.model(), r0.allocation, 6), 0);
  EXPECT_EQ(Apply(&plugin, 1, MakeEvent(1, "server_down", "6")), "");
  bool finished = true;
  ASSERT_TRUE(plugin.Refresh(1, &problem, &finished).ok());
  // Round 0's allocation, in round 1's loads: the shares stay, x rescaled.
  const Placement kept = plugin.model().ToPlacement(r0.allocation);
  Allocation a;
  ASSERT_TRUE(plugin.model().ToAllocation(kept, problem, &a).ok());
  Check c = plugin.model().Evaluate(a);
  EXPECT_FALSE(c.feasible);
  EXPECT_NE(c.why.find("placed on server 6, which is down"), std::string::npos) << c.why;
  ASSERT_TRUE(plugin.Repair(problem, &a).ok());
  c = plugin.model().Evaluate(a);
  EXPECT_TRUE(c.feasible) << c.why;
  EXPECT_EQ(PairsOn(plugin.model(), a, 6), 0);
  EXPECT_LE(problem.MeasureViolation(a.values).Max(), 1e-6);
}

TEST(LoadBalancingServers, RejectedEventsNameTheEventTheFieldAndTheReason) {
  LoadBalancingPlugin plugin;
  Problem problem(0, 0);
  // memory 5: 8 * 5 = 40 >= 32 shards; 7 * 5 = 35; 6 * 5 = 30 < 32.
  ASSERT_TRUE(Start(Settings({{"memory_limit", "5"}}), &plugin, &problem).ok());
  EXPECT_EQ(Apply(&plugin, 1, MakeEvent(1, "server_down", "8")),
            "event 1 (server_down): target '8' is not a server index 0..7");
  EXPECT_EQ(Apply(&plugin, 1, MakeEvent(2, "server_up", "x")),
            "event 2 (server_up): target 'x' is not a server index 0..7");
  EXPECT_EQ(Apply(&plugin, 1, MakeEvent(3, "server_up", "1")),
            "event 3 (server_up): target '1': server 1 is already up");
  EXPECT_EQ(Apply(&plugin, 1, MakeEvent(4, "server_down", "1", R"({"drain": true})")),
            "event 4 (server_down): payload.drain: unexpected field (the payload of server_down "
            "is empty: {})");
  EXPECT_EQ(Apply(&plugin, 1, MakeEvent(5, "server_down", "1")), "");
  EXPECT_EQ(Apply(&plugin, 2, MakeEvent(6, "server_down", "1")),
            "event 6 (server_down): target '1': server 1 is already down");
  EXPECT_EQ(Apply(&plugin, 2, MakeEvent(7, "server_down", "2")),
            "event 7 (server_down): target '2': with server 2 down, memory_limit * up servers = 5 "
            "* 6 = 30 < shards = 32");
  // The rejected events changed nothing: 7 servers up in round 2.
  const std::vector<char> up = plugin.model().UpAt(2);
  EXPECT_EQ(std::count(up.begin(), up.end(), 1), 7);
  EXPECT_EQ(up[1], 0);
  // Without a checkpoint Refresh replays rounds 0 and 1; memory is too tight for the replay's
  // repair in one of them, which then keeps its placement (a failed round), not an error.
  bool finished = true;
  const Status refreshed = plugin.Refresh(2, &problem, &finished);
  ASSERT_TRUE(refreshed.ok()) << refreshed.message();
  EXPECT_EQ(plugin.model().up_servers(), (std::vector<int>{0, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(plugin.model().server_changes().size(), 1u);

  // The last server.
  LoadBalancingPlugin two;
  ASSERT_TRUE(Start(Settings({{"servers", "2"}, {"memory_limit", "32"}}), &two, &problem).ok());
  EXPECT_EQ(Apply(&two, 0, MakeEvent(1, "server_down", "0")), "");
  EXPECT_EQ(Apply(&two, 0, MakeEvent(2, "server_down", "1")),
            "event 2 (server_down): target '1': server 1 is the last server up");

  // Candidates 2: shard k may use servers k mod 8 and k + 1 mod 8 only (the example's light
  // shards; heavy ones get more). With 5 and 6 down, the first shard without an up candidate.
  LoadBalancingPlugin sparse;
  ASSERT_TRUE(Start(Settings({{"candidates", "2"}}), &sparse, &problem).ok());
  int expected = -1;
  for (int k = 0; k < 32 && expected < 0; ++k) {
    bool any = false;
    for (int s = 0; s < 8; ++s)
      any = any || (s != 5 && s != 6 && sparse.model().x_entry(s, k) >= 0);
    if (!any) expected = k;
  }
  ASSERT_GE(expected, 0);
  EXPECT_EQ(Apply(&sparse, 1, MakeEvent(1, "server_down", "5")), "");
  const std::string rejection = Apply(&sparse, 1, MakeEvent(2, "server_down", "6"));
  EXPECT_EQ(rejection.rfind("event 2 (server_down): target '6': with server 6 down, shard " +
                                std::to_string(expected) + " has no up candidate server",
                            0),
            0u)
      << rejection;
}

TEST(LoadBalancingServers, DownServersSettingErrorsNameTheFileKeyAndValue) {
  const std::string key = "lb_test.yaml:7:3: plugin.settings.down_servers";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"8"}, key + " = [8]: server 8 is not a server index 0..7"},
      {{"-1"}, key + " = [-1]: server -1 is not a server index 0..7"},
      {{"1", "1"}, key + " = [1, 1]: server 1 is listed twice"},
      {{"0", "1", "2", "3", "4", "5", "6", "7"},
       key + " = [0, 1, 2, 3, 4, 5, 6, 7]: no server is up"},
      {{"7", "0", "3", "4", "5"},
       key + " = [0, 3, 4, 5, 7]: memory_limit * up servers = 8 * 3 = 24 < shards = 32"},
  };
  for (const auto& [down, expected] : cases) {
    LoadBalancingPlugin plugin;
    Problem problem(0, 0);
    const Status status = Start(Settings({}, down), &plugin, &problem);
    EXPECT_EQ(status.message(), expected);
  }
  {
    LoadBalancingPlugin plugin;  // 8 * 4 = 32 shards fit
    Problem problem(0, 0);
    const Status status = Start(Settings({}, {"7", "0", "3", "4"}), &plugin, &problem);
    EXPECT_TRUE(status.ok()) << status.message();
  }
  LoadBalancingPlugin tight;
  Problem problem(0, 0);
  Status status = Start(Settings({{"memory_limit", "4"}}, {"2"}), &tight, &problem);
  EXPECT_EQ(status.message(), key + " = [2]: memory_limit * up servers = 4 * 7 = 28 < shards = 32");
  LoadBalancingPlugin sparse;
  // candidates 1: at least 2 per shard (twice the need), light shard 4 on servers 4 and 5.
  status = Start(Settings({{"candidates", "1"}}, {"5", "4"}), &sparse, &problem);
  EXPECT_EQ(status.message(),
            key + " = [4, 5]: shard 4 has no up candidate server (its candidates: [4, 5])")
      << status.message();
  ConfigNode scalar = Settings();
  scalar.Insert("down_servers", Scalar("plugin.settings.down_servers", "3"));
  LoadBalancingPlugin not_a_list;
  status = internal::ConfigureWithSettings(&not_a_list, scalar, Context());
  EXPECT_NE(status.message().find("plugin.settings.down_servers = '3': expected a list"),
            std::string::npos)
      << status.message();
}

// Two parameter sets are equal: every right-hand side, coefficient and cost.
void ExpectSameParameters(const Problem& a, const Problem& b) {
  ASSERT_EQ(a.num_constraints(), b.num_constraints());
  ASSERT_EQ(a.num_variables(), b.num_variables());
  for (ConstraintId c = 0; c < a.num_constraints(); ++c) {
    ASSERT_EQ(a.constraint(c).rhs, b.constraint(c).rhs) << a.constraint_name(c);
    ASSERT_EQ(a.constraint(c).terms.size(), b.constraint(c).terms.size());
    for (std::size_t t = 0; t < a.constraint(c).terms.size(); ++t)
      ASSERT_EQ(a.constraint(c).terms[t].coef, b.constraint(c).terms[t].coef);
  }
  for (VarId v = 0; v < a.num_variables(); ++v)
    ASSERT_EQ(a.variable(v).linear_cost, b.variable(v).linear_cost) << v;
}

// The runner's resume: Describe, the applied events again (replay, in their rounds), then
// RestoreState of the last round's checkpoint. Round 3 then refreshes as in the uninterrupted
// run; without the replay it would not (server 3 up, shard 9's file load).
TEST(LoadBalancingServers, ResumedRunRefreshesAsTheUninterruptedOne) {
  const std::vector<std::pair<int, Event>> events = {
      {1, MakeEvent(1, "server_down", "3")},
      {1, MakeEvent(2, "shard_load", "9", R"({"load": 55.5})")},
      {2, MakeEvent(3, "server_up", "0")},  // rejected: already up (not replayed)
      {2, MakeEvent(4, "server_down", "6")}};
  LoadBalancingPlugin first;
  Problem problem(0, 0);
  ASSERT_TRUE(Start(Settings(), &first, &problem).ok());
  std::string state;
  for (int round = 0; round < 3; ++round) {
    for (const auto& [r, event] : events)
      if (r == round) Apply(&first, r, event);
    EXPECT_EQ(MetricOf(RunRound(&first, &problem, round, "dede").report, "feasible"), 1.0);
    ASSERT_TRUE(first.SaveState(round, &state).ok());
  }
  bool finished = true;
  ASSERT_TRUE(first.Refresh(3, &problem, &finished).ok());
  EXPECT_EQ(first.model().up_servers(), (std::vector<int>{0, 1, 2, 4, 5, 7}));

  const auto resume = [&](bool replay, LoadBalancingPlugin* plugin, Problem* resumed) {
    ASSERT_TRUE(Start(Settings(), plugin, resumed).ok());
    if (replay) {
      for (const auto& [r, event] : events) {
        if (event.id == 3) continue;
        Event again = event;
        again.replay = true;
        EXPECT_EQ(Apply(plugin, r, again), "");
      }
    }
    ASSERT_TRUE(plugin->RestoreState(2, state).ok());
    bool done = true;
    ASSERT_TRUE(plugin->Refresh(3, resumed, &done).ok());
  };
  LoadBalancingPlugin second;
  Problem resumed(0, 0);
  resume(true, &second, &resumed);
  ExpectSameParameters(problem, resumed);
  EXPECT_EQ(second.model().up_servers(), first.model().up_servers());
  EXPECT_EQ(second.model().current(), first.model().current());
  EXPECT_EQ(second.model().local_current(), first.model().local_current());
  EXPECT_EQ(second.model().round_loads(), first.model().round_loads());
  // The same round 3 from both.
  Allocation a, b;
  SolveSummary sa, sb;
  ASSERT_TRUE(first.SolveWith("greedy", 3, problem, Services(), &a, &sa).ok());
  ASSERT_TRUE(second.SolveWith("greedy", 3, resumed, Services(), &b, &sb).ok());
  EXPECT_EQ(a.values, b.values);

  LoadBalancingPlugin forgetful;
  Problem without(0, 0);
  resume(false, &forgetful, &without);
  EXPECT_EQ(forgetful.model().up_servers().size(), 8u);
  EXPECT_NE(forgetful.model().round_loads(), first.model().round_loads());
}

// The checkpoint may hold a placement on a server that is down by now.
TEST(LoadBalancingServers, RestoreStateAcceptsAPlacementOnADownServer) {
  LoadBalancingPlugin plugin;
  Problem problem(0, 0);
  ASSERT_TRUE(Start(Settings(), &plugin, &problem).ok());
  std::string state;
  for (int k = 0; k < 32; ++k) {
    if (k > 0) state += ';';
    state += std::to_string(k % 8);
  }
  EXPECT_EQ(Apply(&plugin, 1, MakeEvent(1, "server_down", "7", "{}", /*replay=*/true)), "");
  ASSERT_TRUE(plugin.RestoreState(0, state).ok());
  bool finished = true;
  ASSERT_TRUE(plugin.Refresh(1, &problem, &finished).ok());
  EXPECT_EQ(plugin.model().current()[7], std::vector<int>{7});
  EXPECT_TRUE(plugin.model().local_current()[7].empty());
  EXPECT_EQ(plugin.model().local_current()[6], std::vector<int>{6});
  std::string bad = state;
  bad[0] = '8';  // server 8 of 0..7
  EXPECT_EQ(plugin.RestoreState(0, bad).message(),
            "load_balancing checkpoint of round 0:1:1: field 1: expected server indices 0..7 "
            "separated by ',', got '8'");
}

TEST(LoadBalancingServers, EventKindsListTheServerEvents) {
  LoadBalancingPlugin plugin;
  std::vector<std::string> names;
  for (const EventKind& kind : plugin.EventKinds()) {
    names.push_back(kind.name);
    EXPECT_FALSE(kind.target.empty() || kind.payload.empty() || kind.description.empty());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"shard_load", "server_down", "server_up"}));
}

}  // namespace
}  // namespace dede::lb
