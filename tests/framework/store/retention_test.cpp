// storage.retention in the store (framework/src/store/store_retention.cpp): which rows a round's
// transaction deletes, in what slices, what stays for a resume, and the file shrinking.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "store/sqlite.h"
#include "store/store.h"

namespace dede::internal {
namespace {

namespace fs = std::filesystem;

#define ASSERT_OK(expr)                              \
  do {                                               \
    const auto status_ = (expr);                     \
    ASSERT_TRUE(status_.ok()) << status_.ToString(); \
  } while (0)

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "dede_retention_test_XXXXXX").string();
    const char* made = mkdtemp(pattern.data());
    if (made == nullptr) std::abort();
    path_ = made;
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

std::string Scalar(Store& store, const std::string& sql) {
  auto result = store.Query(sql);
  if (!result.ok()) return "<error: " + result.status().ToString() + ">";
  if (result->rows.empty() || result->rows[0].empty()) return "<no rows>";
  return result->rows[0][0].value_or("NULL");
}

std::int64_t Count(Store& store, const std::string& sql) {
  const std::string text = Scalar(store, sql);
  try {
    return std::stoll(text);
  } catch (...) {
    ADD_FAILURE() << sql << " -> " << text;
    return -1;
  }
}

constexpr int kResources = 4;
constexpr int kDemands = 25;  // 100 entries

Problem MakeProblem() {
  Problem problem(kResources, kDemands);
  const int matrix = problem.AddAllocation("x", Domain::NonNegative());
  problem.AddDenseEntries(matrix);
  return problem;
}

// A round with a full record of every kind: every entry allocated, two metrics, every entity
// with a parameter, two domain records and a checkpoint. Round r started r hours after t0.
RoundRecord MakeRound(int round, int num_variables) {
  RoundRecord record;
  record.round = round;
  record.started_unix_seconds = 1.7e9 + 3600.0 * round;
  record.solver = "admm";
  record.summary.termination = Termination::kConverged;
  record.summary.message = "ok";
  record.summary.objective = round;
  record.summary.feasible = true;
  for (VarId v = 0; v < num_variables; ++v) record.allocation.push_back({v, 1.0 + v + round});
  record.report.metrics = {{"served", 0.5}, {"round_number", double(round)}};
  for (int r = 0; r < kResources; ++r) {
    record.report.entities.push_back(
        {Side::kResource, r, "r" + std::to_string(r), {{"capacity", 9.0}}});
  }
  for (int d = 0; d < kDemands; ++d) {
    record.report.entities.push_back(
        {Side::kDemand, d, "d" + std::to_string(d), {{"volume", 1.0}}});
  }
  DomainRecord job;
  job.kind = "job";
  job.key = "j" + std::to_string(round);
  job.values = {{"size", 2.0}};
  DomainRecord link;
  link.kind = "link";
  link.key = "0->1";
  link.values = {{"load", double(round)}};
  record.report.records = {job, link};
  record.has_state = true;
  record.state = "state of round " + std::to_string(round);
  return record;
}

struct Fixture {
  std::unique_ptr<Store> store;
  std::int64_t id = -1;
  int num_variables = 0;
};

void OpenDeployment(const std::string& path, Fixture* f) {
  auto store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  f->store = std::move(store.value());
  DeploymentRecord deployment;
  deployment.name = "keeper";
  deployment.plugin = "toy";
  deployment.plugin_version = "1";
  deployment.config_file = "k.yaml";
  deployment.config_yaml = "k: 1";
  auto id = f->store->UpsertDeployment(deployment);
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  f->id = id.value();
  const Problem problem = MakeProblem();
  f->num_variables = problem.num_variables();
  ASSERT_OK(f->store->WriteVariables(f->id, problem));
}

void WriteRounds(Fixture& f, int from, int to) {
  for (int r = from; r < to; ++r)
    ASSERT_OK(f.store->WriteRound(f.id, MakeRound(r, f.num_variables)));
}

// Rows of round r in the four tables retention empties.
std::int64_t FullRows(Store& store, int round) {
  std::int64_t rows = 0;
  for (const char* table : {"allocations", "entities", "entity_parameters", "domain_records"}) {
    rows += Count(
        store,
        std::string("SELECT count(*) FROM ") + table + " WHERE round = " + std::to_string(round));
  }
  return rows;
}

constexpr std::int64_t kFullRowsPerRound = 100 + 29 + 29 + 2;

TEST(StoreRetention, KeepRoundsDeletesExactlyTheRowsOutsideTheWindowAndKeepsSummaries) {
  Fixture f;
  OpenDeployment(":memory:", &f);
  RetentionPolicy policy;
  policy.keep_rounds = 10;
  f.store->SetRetention(policy);
  WriteRounds(f, 0, 30);
  for (int r = 0; r < 30; ++r) {
    EXPECT_EQ(FullRows(*f.store, r), r < 20 ? 0 : kFullRowsPerRound) << "round " << r;
    // Every round keeps its summary and its metrics.
    EXPECT_EQ(Count(*f.store, "SELECT count(*) FROM metrics WHERE round = " + std::to_string(r)),
              2);
  }
  EXPECT_EQ(Count(*f.store, "SELECT count(*) FROM round_summary"), 30);
  EXPECT_EQ(Scalar(*f.store, "SELECT objective FROM round_summary WHERE round = 3"), "3");
  EXPECT_EQ(Scalar(*f.store, "SELECT nonzero_entries FROM round_summary WHERE round = 3"), "0");
  EXPECT_EQ(Scalar(*f.store, "SELECT nonzero_entries FROM round_summary WHERE round = 29"), "100");
  // The latest checkpoint stays (only the latest is ever kept).
  EXPECT_EQ(Scalar(*f.store, "SELECT group_concat(round) FROM plugin_states"), "29");
  const RetentionStats& stats = f.store->retention_stats();
  EXPECT_EQ(stats.rounds_pruned, 20);
  EXPECT_EQ(stats.rows_deleted, 20 * kFullRowsPerRound);
  EXPECT_EQ(stats.last_pruned_round, 19);
  EXPECT_EQ(stats.oldest_full_round, 20);
  EXPECT_FALSE(stats.behind);
  // What a resume reads is intact: the latest round's allocation and checkpoint.
  auto last = f.store->LoadLastRound(f.id, f.num_variables);
  ASSERT_TRUE(last.ok()) << last.status().ToString();
  EXPECT_EQ(last->round, 29);
  EXPECT_EQ(last->values[7], 1.0 + 7 + 29);
  EXPECT_TRUE(last->has_state);
  EXPECT_EQ(last->state, "state of round 29");
}

TEST(StoreRetention, KeepDaysUsesTheRoundsStartTimesAndTheStricterLimitWins) {
  Fixture f;
  OpenDeployment(":memory:", &f);
  RetentionPolicy policy;
  policy.keep_days = 0.5;  // 12 hours; round r started r hours after the first
  f.store->SetRetention(policy);
  WriteRounds(f, 0, 30);
  // Latest: round 29 at 29 h; kept: started at or after 17 h.
  EXPECT_EQ(Count(*f.store, "SELECT min(round) FROM allocations"), 17);
  EXPECT_EQ(FullRows(*f.store, 16), 0);
  EXPECT_EQ(FullRows(*f.store, 17), kFullRowsPerRound);
  // Both limits: a round goes when either says so.
  policy.keep_rounds = 5;
  f.store->SetRetention(policy);
  WriteRounds(f, 30, 31);  // latest 30: by count rounds <= 25 go, by age rounds < 18 h
  EXPECT_EQ(Count(*f.store, "SELECT min(round) FROM allocations"), 26);
  EXPECT_EQ(Count(*f.store, "SELECT min(round) FROM entities"), 26);
  EXPECT_EQ(Count(*f.store, "SELECT min(round) FROM domain_records"), 26);
  EXPECT_EQ(Count(*f.store, "SELECT count(*) FROM rounds"), 31);
}

TEST(StoreRetention, DefaultKeepsEverything) {
  Fixture f;
  OpenDeployment(":memory:", &f);
  WriteRounds(f, 0, 12);
  for (int r = 0; r < 12; ++r) EXPECT_EQ(FullRows(*f.store, r), kFullRowsPerRound);
  EXPECT_EQ(f.store->retention_stats().writes, 0);
}

TEST(StoreRetention, ABacklogIsDeletedInBoundedSlicesOverSeveralRounds) {
  Fixture f;
  OpenDeployment(":memory:", &f);
  WriteRounds(f, 0, 40);  // no retention yet: 40 full rounds
  RetentionPolicy policy;
  policy.keep_rounds = 5;
  policy.max_rounds_per_write = 4;
  f.store->SetRetention(policy);
  // Round 40's window is rounds 36..40: 36 rounds to prune, four per round.
  WriteRounds(f, 40, 41);
  EXPECT_EQ(Count(*f.store, "SELECT min(round) FROM allocations"), 4);
  EXPECT_EQ(f.store->retention_stats().rounds_pruned, 4);
  EXPECT_TRUE(f.store->retention_stats().behind);
  EXPECT_EQ(f.store->retention_stats().oldest_full_round, 4);
  // Each later round prunes four more (one of which its own round pushed out): the backlog
  // shrinks by three per round until it is gone.
  int rounds = 41;
  while (f.store->retention_stats().behind && rounds < 100) {
    WriteRounds(f, rounds, rounds + 1);
    ++rounds;
  }
  EXPECT_LT(rounds, 100);
  EXPECT_EQ(rounds, 52);  // (36 - 4) / 3 rounds more, rounded up: 11
  EXPECT_EQ(Count(*f.store, "SELECT min(round) FROM allocations"), rounds - 5);
  // The row budget: max(min_rows_per_write, 2 x the rows the round wrote), checked before each
  // old round; whole rounds only. With min_rows_per_write = 1 a round of 163 rows may delete
  // 326: three old rounds of 160 (the third starts below the budget).
  WriteRounds(f, rounds, rounds + 10);  // no pruning beyond the window: caught up
  policy.keep_rounds = 2;
  policy.max_rounds_per_write = 64;
  policy.min_rows_per_write = 1;
  f.store->SetRetention(policy);
  const std::int64_t before = f.store->retention_stats().rounds_pruned;
  WriteRounds(f, rounds + 10, rounds + 11);
  EXPECT_EQ(f.store->retention_stats().rounds_pruned - before, 3);
  EXPECT_TRUE(f.store->retention_stats().behind);
}

TEST(StoreRetention, AFailedRoundDeletesNothing) {
  Fixture f;
  OpenDeployment(":memory:", &f);
  WriteRounds(f, 0, 10);
  RetentionPolicy policy;
  policy.keep_rounds = 2;
  f.store->SetRetention(policy);
  RoundRecord bad = MakeRound(10, f.num_variables);
  bad.allocation.push_back({0, 5.0});  // variable 0 twice: the round is refused
  EXPECT_FALSE(f.store->WriteRound(f.id, bad).ok());
  EXPECT_EQ(Count(*f.store, "SELECT min(round) FROM allocations"), 0);
  EXPECT_EQ(f.store->retention_stats().rounds_pruned, 0);
}

std::int64_t FileBytes(const std::string& path) {
  return static_cast<std::int64_t>(fs::file_size(path));
}

TEST(StoreRetention, NewDatabasesAreIncrementalAndTheFileShrinks) {
  TempDir dir;
  const std::string path = dir.File("shrink.db");
  Fixture f;
  OpenDeployment(path, &f);
  EXPECT_EQ(f.store->AutoVacuumMode().value(), "incremental");
  WriteRounds(f, 0, 300);
  ASSERT_OK(f.store->Query("PRAGMA wal_checkpoint(TRUNCATE)").status());
  const std::int64_t full = FileBytes(path);
  RetentionPolicy policy;
  policy.keep_rounds = 10;
  policy.slack_pages = 16;
  f.store->SetRetention(policy);
  int round = 300;
  do {
    WriteRounds(f, round, round + 1);
    ++round;
  } while (f.store->retention_stats().behind);
  WriteRounds(f, round, round + 5);
  EXPECT_GT(f.store->retention_stats().pages_vacuumed, 0);
  ASSERT_OK(f.store->Query("PRAGMA wal_checkpoint(TRUNCATE)").status());
  const std::int64_t pruned = FileBytes(path);
  // 300 full rounds down to 10 (plus every round's summary): far below half.
  EXPECT_LT(pruned, full / 3) << "before " << full << " bytes, after " << pruned;
  EXPECT_LE(Count(*f.store, "PRAGMA freelist_count"), 64);
  EXPECT_EQ(Scalar(*f.store, "PRAGMA integrity_check"), "ok");
}

TEST(StoreRetention, AnOlderDatabaseSwitchesToIncrementalWithOneVacuum) {
  TempDir dir;
  const std::string path = dir.File("old.db");
  {  // An empty file that is already in WAL mode: auto_vacuum can no longer be set.
    auto db = sqlite::Database::Open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    ASSERT_TRUE(db.ok());
    ASSERT_OK(db.value()->Exec("PRAGMA journal_mode = WAL", "fixture"));
  }
  Fixture f;
  OpenDeployment(path, &f);
  EXPECT_EQ(f.store->AutoVacuumMode().value(), "none");
  WriteRounds(f, 0, 20);
  ASSERT_OK(f.store->EnableIncrementalVacuum());
  EXPECT_EQ(f.store->AutoVacuumMode().value(), "incremental");
  EXPECT_EQ(Count(*f.store, "SELECT count(*) FROM rounds"), 20);
  RetentionPolicy policy;
  policy.keep_rounds = 3;
  f.store->SetRetention(policy);
  WriteRounds(f, 20, 21);
  EXPECT_EQ(Count(*f.store, "SELECT min(round) FROM allocations"), 18);
  // Read-only stores refuse.
  auto reader = Store::Open(path, /*read_only=*/true);
  ASSERT_TRUE(reader.ok());
  EXPECT_FALSE(reader.value()->EnableIncrementalVacuum().ok());
}

TEST(StoreRetention, AReopenedStoreContinuesWhereTheCommittedStateSays) {
  TempDir dir;
  const std::string path = dir.File("resume.db");
  RetentionPolicy policy;
  policy.keep_rounds = 4;
  policy.max_rounds_per_write = 2;
  {
    Fixture f;
    OpenDeployment(path, &f);
    WriteRounds(f, 0, 12);  // no retention: 12 full rounds
    f.store->SetRetention(policy);
    WriteRounds(f, 12, 13);  // prunes 0, 1
  }
  Fixture f;
  OpenDeployment(path, &f);
  f.store->SetRetention(policy);
  WriteRounds(f, 13, 14);  // continues with 2, 3
  EXPECT_EQ(Count(*f.store, "SELECT min(round) FROM allocations"), 4);
  EXPECT_EQ(f.store->retention_stats().rounds_pruned, 2);
}

}  // namespace
}  // namespace dede::internal
