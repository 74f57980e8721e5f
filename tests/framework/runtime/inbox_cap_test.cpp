// Issue 49: inbox.max_events_per_round. A round applies at most that many due events, the
// oldest first; the rest wait for the next rounds in order, the backlog is logged each round
// it is non-zero, and a resumed run re-applies exactly what was applied, in order.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "runtime/runner.h"

namespace dede::internal {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

// One resource, one demand, solved by the plugin's own "zeros" method; accepts "tick" events
// and records each one it is handed.
class TickPlugin : public DomainPlugin {
 public:
  Status Configure(const ConfigNode&, const PluginContext&) override { return Status::Ok(); }
  Status Describe(Problem* problem) override {
    *problem = Problem(1, 1);
    const int x = problem->AddAllocation("x", Domain::NonNegative());
    problem->AddEntry(x, 0, 0);
    return Status::Ok();
  }
  Status Refresh(int, Problem*, bool* finished) override {
    *finished = false;
    return Status::Ok();
  }
  Status Report(int, const Problem&, const Allocation&, RoundReport*) override {
    return Status::Ok();
  }
  std::vector<MethodInfo> Methods() const override { return {{"zeros", "all zero"}}; }
  Status SolveWith(const std::string&,
                   int,
                   const Problem& problem,
                   const SolverServices&,
                   Allocation* allocation,
                   SolveSummary* summary) override {
    allocation->values.assign(problem.num_variables(), 0.0);
    summary->termination = Termination::kConverged;
    return Status::Ok();
  }
  std::vector<EventKind> EventKinds() const override {
    return {{"tick", "anything", "{}", "counted"}};
  }
  Status ApplyEvent(int round, const Event& event, std::string*) override {
    applied.emplace_back(round, event.id);
    replayed += event.replay ? 1 : 0;
    return Status::Ok();
  }

  std::vector<std::pair<int, std::int64_t>> applied;  // (round, event id)
  int replayed = 0;
};

DeploymentConfig Config(int cap) {
  DeploymentConfig config;
  config.file = "inbox_cap_test.yaml";
  config.name = "inbox-cap";
  config.plugin = "tick";
  config.solver = SolverKind::kPlugin;
  config.method = "zeros";
  config.simulated_time = true;
  config.max_events_per_round = cap;
  return config;
}

std::string DbPath(const std::string& name) {
  const fs::path dir = fs::path(testing::TempDir()) / "dede_inbox_cap_test";
  fs::create_directories(dir);
  const fs::path path = dir / (name + ".db");
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path.string() + suffix);
  return path.string();
}

std::string Cell(Store& store, const std::string& sql) {
  Result<QueryResult> result = store.Query(sql);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  if (!result.ok() || result->rows.empty() || !result->rows[0][0]) return "<none>";
  return *result->rows[0][0];
}

void SubmitTicks(Store& store, int count) {
  std::vector<EventRow> events(static_cast<std::size_t>(count));
  for (EventRow& e : events) {
    e.deployment = "inbox-cap";
    e.kind = "tick";
  }
  ASSERT_TRUE(store.SubmitEvents(events).ok());
}

// The backlog as schemas/sqlite/README.md and /metrics count it: pending events of the
// deployment due by its last committed round.
std::string Backlog(Store& store) {
  return Cell(store,
              "SELECT count(*) FROM events e"
              " WHERE e.deployment = 'inbox-cap' AND e.status = 'pending'"
              " AND e.apply_from_round <= (SELECT coalesce(max(r.round), 0) FROM rounds r"
              "   JOIN deployments d ON d.id = r.deployment_id WHERE d.name = e.deployment)"
              " AND (e.apply_after IS NULL OR e.apply_after <= 1e12)");
}

TEST(InboxCap, EventsBeyondTheCapWaitForLaterRoundsInOrderAndResumeExactly) {
  const std::string db = DbPath("cap");
  std::vector<std::pair<int, std::int64_t>> first_run;
  {
    auto store = Store::Open(db);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    SubmitTicks(*store.value(), 5);
    TickPlugin plugin;
    std::ostringstream log;
    Runner runner(Config(2), &plugin, "1.0", store->get(), RunnerOptions{.log = &log});
    ASSERT_TRUE(runner.Setup().ok());
    std::vector<std::string> backlog;
    for (int round = 0; round < 4; ++round) {
      RoundOutcome outcome;
      const Status status = runner.RunRound({}, &outcome);
      ASSERT_TRUE(status.ok()) << status.ToString();
      backlog.push_back(Backlog(*store.value()));
    }
    EXPECT_EQ(backlog, (std::vector<std::string>{"3", "1", "0", "0"}));
    first_run = plugin.applied;
    EXPECT_EQ(first_run,
              (std::vector<std::pair<int, std::int64_t>>{{0, 1}, {0, 2}, {1, 3}, {1, 4}, {2, 5}}));
    EXPECT_EQ(Cell(*store.value(), "SELECT group_concat(round, ',') FROM events ORDER BY id"),
              "0,0,1,1,2");
    const std::string text = log.str();
    EXPECT_THAT(text,
                HasSubstr("inbox: round 0 applies the oldest 2 of 5 due events "
                          "(inbox.max_events_per_round); backlog 3 events wait for the next "
                          "rounds"));
    EXPECT_THAT(text, HasSubstr("inbox: round 1 applies the oldest 2 of 3 due events"));
    EXPECT_THAT(text, HasSubstr("backlog 1 events"));
    EXPECT_THAT(text, Not(HasSubstr("inbox: round 2")));  // 1 due, under the cap
  }
  // A resumed run re-applies the same events in the same order, and applies nothing new.
  auto store = Store::Open(db);
  ASSERT_TRUE(store.ok());
  TickPlugin fresh;
  std::ostringstream log;
  Runner runner(Config(2), &fresh, "1.0", store->get(), RunnerOptions{.log = &log});
  ASSERT_TRUE(runner.Setup().ok());
  EXPECT_EQ(fresh.applied, first_run);
  EXPECT_EQ(fresh.replayed, 5);
}

TEST(InboxCap, ZeroMeansNoCap) {
  const std::string db = DbPath("nocap");
  auto store = Store::Open(db);
  ASSERT_TRUE(store.ok());
  SubmitTicks(*store.value(), 30);
  TickPlugin plugin;
  std::ostringstream log;
  Runner runner(Config(0), &plugin, "1.0", store->get(), RunnerOptions{.log = &log});
  ASSERT_TRUE(runner.Setup().ok());
  RoundOutcome outcome;
  ASSERT_TRUE(runner.RunRound({}, &outcome).ok());
  EXPECT_EQ(plugin.applied.size(), 30u);
  EXPECT_EQ(Backlog(*store.value()), "0");
  EXPECT_THAT(log.str(), Not(HasSubstr("inbox:")));
}

}  // namespace
}  // namespace dede::internal
