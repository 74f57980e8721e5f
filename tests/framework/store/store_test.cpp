#include "store/store.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "query.h"
#include "store/migrations.h"
#include "store/sqlite.h"
#include "store/writer_lock.h"

namespace dede::internal {
namespace {

namespace fs = std::filesystem;

constexpr double kValueTolerance = 1e-12;

#define DEDE_TEST_CONCAT_(a, b) a##b
#define DEDE_TEST_CONCAT(a, b) DEDE_TEST_CONCAT_(a, b)
#define ASSERT_OK(expr)                              \
  do {                                               \
    const auto& status_ = (expr);                    \
    ASSERT_TRUE(status_.ok()) << status_.ToString(); \
  } while (0)
#define ASSERT_OK_AND_ASSIGN_IMPL(tmp, lhs, expr)   \
  auto tmp = (expr);                                \
  ASSERT_TRUE(tmp.ok()) << tmp.status().ToString(); \
  lhs = std::move(tmp.value())
#define ASSERT_OK_AND_ASSIGN(lhs, expr) \
  ASSERT_OK_AND_ASSIGN_IMPL(DEDE_TEST_CONCAT(result_, __LINE__), lhs, expr)

// A fresh directory under the system temp directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "dede_store_test_XXXXXX").string();
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

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string ReadText(const std::string& path) { return ReadBytes(path); }

// SQL run on a file without the store: for fixtures the store would refuse to create.
void RawExec(const std::string& path, const std::string& sql) {
  auto db = sqlite::Database::Open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  ASSERT_OK(db.value()->Exec(sql, "test fixture"));
}

// The first cell of a query, "NULL" for NULL, or the error.
std::string Scalar(Store& store, const std::string& sql) {
  auto result = store.Query(sql);
  if (!result.ok()) return "<error: " + result.status().ToString() + ">";
  if (result->rows.empty() || result->rows[0].empty()) return "<no rows>";
  return result->rows[0][0].value_or("NULL");
}

double ScalarDouble(Store& store, const std::string& sql) {
  const std::string text = Scalar(store, sql);
  try {
    return std::stod(text);
  } catch (...) {
    ADD_FAILURE() << sql << " -> " << text;
    return std::numeric_limits<double>::quiet_NaN();
  }
}

std::vector<std::string> Columns(Store& store, const std::string& table) {
  auto result = store.Query("SELECT name FROM pragma_table_info('" + table + "') ORDER BY cid");
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  std::vector<std::string> names;
  if (!result.ok()) return names;
  for (const auto& row : result->rows) names.push_back(row[0].value_or(""));
  return names;
}

// 2 resources x 2 demands, dense matrix "x": var (r, d) = 2r + d; plus a local of demand 1.
Problem MakeTwoByTwo() {
  Problem problem(2, 2);
  const int matrix = problem.AddAllocation("x", Domain::NonNegative());
  problem.AddDenseEntries(matrix);
  problem.AddLocal(BlockId::Demand(1), Domain::NonNegative(), "slack");
  return problem;
}

DeploymentRecord MakeDeployment(const std::string& name, const std::string& plugin = "toy") {
  DeploymentRecord deployment;
  deployment.name = name;
  deployment.plugin = plugin;
  deployment.plugin_version = "0.1.0";
  deployment.config_file = "configs/" + name + ".yaml";
  deployment.config_yaml = "deployment:\n  name: " + name + "\n";
  return deployment;
}

RoundRecord MakeRound(int round, std::vector<std::pair<VarId, double>> allocation) {
  RoundRecord record;
  record.round = round;
  record.started_unix_seconds = 1.7e9 + 60.0 * round;
  record.solver = "admm";
  SolveSummary& s = record.summary;
  s.termination = Termination::kConverged;
  s.message = "Primal residual 3.1e-06 <= 4.0e-06.";
  s.method = "admm";
  s.iterations = 120 + round;
  s.rho_updates = -1;  // not computed -> NULL
  s.repair_rounds = 3;
  s.num_threads = 2;
  s.rho = 1.5;
  s.primal_residual = 3.1e-6;
  s.dual_residual = 2.0e-6;
  s.objective = 7.0 + round;
  s.max_violation = 1e-8;
  s.feasible = true;
  s.setup_seconds = 0.01;
  s.solve_seconds = 0.2;
  s.repair_seconds = -1;  // not computed -> NULL
  s.total_seconds = 0.25;
  record.allocation = std::move(allocation);
  record.report.metrics = {{"served_fraction", 0.9}, {"cost", 12.5}};
  return record;
}

// The 2x2 example with names and capacities: resources r0 (capacity 4) and r1 (capacity 10),
// demands d0 and d1.
void AddTwoByTwoEntities(RoundRecord* record) {
  record->report.entities = {
      {Side::kResource, 0, "r0", {{"capacity", 4.0}}},
      {Side::kResource, 1, "r1", {{"capacity", 10.0}, {"cost", 2.0}}},
      {Side::kDemand, 0, "d0", {{"volume", 5.0}}},
      {Side::kDemand, 1, "d1", {}},
  };
}

struct OpenDeployment {
  std::unique_ptr<Store> store;
  std::int64_t id = -1;
};

int CountRows(Store& store, const std::string& table, int round) {
  return std::stoi(
      Scalar(store, "SELECT count(*) FROM " + table + " WHERE round = " + std::to_string(round)));
}

// ---- migrations ---------------------------------------------------------------------------

TEST(StoreMigrations, FreshDatabaseGetsLatestVersionAndExpectedColumns) {
  ASSERT_OK_AND_ASSIGN(auto store, Store::Open(":memory:"));
  EXPECT_GE(Store::LatestSchemaVersion(), 2);
  EXPECT_EQ(store->schema_version(), Store::LatestSchemaVersion());
  EXPECT_EQ(Scalar(*store, "PRAGMA user_version"), std::to_string(Store::LatestSchemaVersion()));
  EXPECT_EQ(Scalar(*store, "PRAGMA foreign_keys"), "1");

  using Names = std::vector<std::string>;
  EXPECT_EQ(
      Columns(*store, "deployments"),
      (Names{
          "id", "name", "plugin", "plugin_version", "config_file", "config_yaml", "created_at"}));
  EXPECT_EQ(Columns(*store, "variables"),
            (Names{"deployment_id",
                   "var_id",
                   "kind",
                   "matrix_name",
                   "resource",
                   "demand",
                   "owner_side",
                   "owner_index",
                   "name"}));
  EXPECT_EQ(Columns(*store, "rounds"),
            (Names{"deployment_id",
                   "round",
                   "started_at",
                   "solver",
                   "method",
                   "termination",
                   "message",
                   "iterations",
                   "rho",
                   "primal_residual",
                   "dual_residual",
                   "objective",
                   "max_violation",
                   "feasible",
                   "setup_seconds",
                   "solve_seconds",
                   "repair_seconds",
                   "total_seconds",
                   "num_threads",
                   "bound",
                   "rho_updates",
                   "repair_rounds",
                   "round_seconds",
                   "seed_seconds",
                   "fill_seconds",
                   "returned",
                   "seed_objective",
                   "gap"}));
  EXPECT_EQ(Columns(*store, "allocations"), (Names{"deployment_id", "round", "var_id", "value"}));
  EXPECT_EQ(Columns(*store, "metrics"), (Names{"deployment_id", "round", "name", "value"}));
  EXPECT_EQ(Columns(*store, "entities"), (Names{"deployment_id", "round", "side", "idx", "name"}));
  EXPECT_EQ(Columns(*store, "entity_parameters"),
            (Names{"deployment_id", "round", "side", "idx", "parameter", "value"}));
  EXPECT_EQ(Columns(*store, "round_summary").size(), 27u);
  EXPECT_EQ(
      Columns(*store, "demand_allocation"),
      (Names{"deployment_id", "round", "demand", "demand_name", "allocated", "nonzero_entries"}));
  EXPECT_EQ(Columns(*store, "resource_utilisation"),
            (Names{"deployment_id",
                   "round",
                   "resource",
                   "resource_name",
                   "allocated",
                   "capacity",
                   "utilisation",
                   "nonzero_entries"}));
  // The allocation table is keyed without a rowid.
  EXPECT_EQ(
      Scalar(*store, "SELECT count(*) FROM pragma_index_list('allocations') WHERE origin = 'pk'"),
      "1");
}

TEST(StoreMigrations, EmbeddedMigrationsAreNumberedAndReleasedOnesAreUnchanged) {
  const auto migrations = Migrations();
  ASSERT_EQ(static_cast<int>(migrations.size()), Store::LatestSchemaVersion());
  for (std::size_t i = 0; i < migrations.size(); ++i) {
    EXPECT_EQ(migrations[i].version, static_cast<int>(i) + 1);
    EXPECT_FALSE(std::string(migrations[i].sql).empty()) << migrations[i].name;
  }
  EXPECT_STREQ(migrations[0].name, "0001_initial.sql");
  // The fixture is 0001 as released, after a two-line header: editing a released migration
  // (instead of adding a new one) would leave existing databases on a different schema.
  std::string fixture = ReadText(DEDE_SQLITE_FIXTURE_DIR "/0001_schema.sql");
  for (int line = 0; line < 2; ++line) fixture.erase(0, fixture.find('\n') + 1);
  EXPECT_EQ(std::string(migrations[0].sql), fixture);
}

TEST(StoreMigrations, FileDatabaseUsesWalAndReopeningChangesNothing) {
  TempDir dir;
  const std::string path = dir.File("deploy.db");
  std::int64_t id = -1;
  std::string schema_before;
  {
    ASSERT_OK_AND_ASSIGN(auto store, Store::Open(path));
    EXPECT_EQ(Scalar(*store, "PRAGMA journal_mode"), "wal");
    ASSERT_OK_AND_ASSIGN(id, store->UpsertDeployment(MakeDeployment("alpha")));
    schema_before = Scalar(*store, "SELECT group_concat(sql, ';') FROM sqlite_schema");
  }
  for (int reopen = 0; reopen < 2; ++reopen) {
    ASSERT_OK_AND_ASSIGN(auto store, Store::Open(path));
    EXPECT_EQ(store->schema_version(), Store::LatestSchemaVersion());
    EXPECT_EQ(Scalar(*store, "SELECT group_concat(sql, ';') FROM sqlite_schema"), schema_before);
    EXPECT_EQ(Scalar(*store, "SELECT count(*) FROM deployments"), "1");
    ASSERT_OK_AND_ASSIGN(const std::int64_t again,
                         store->UpsertDeployment(MakeDeployment("alpha")));
    EXPECT_EQ(again, id);
  }
}

TEST(StoreMigrations, RefusesNewerDatabaseAndLeavesItByteIdentical) {
  TempDir dir;
  const std::string path = dir.File("future.db");
  const int future = Store::LatestSchemaVersion() + 1;
  RawExec(path,
          "CREATE TABLE from_the_future (x); INSERT INTO from_the_future VALUES (42);"
          "PRAGMA user_version = " +
              std::to_string(future));
  const std::string before = ReadBytes(path);
  ASSERT_FALSE(before.empty());

  for (const bool read_only : {false, true}) {
    auto store = Store::Open(path, read_only);
    ASSERT_FALSE(store.ok());
    EXPECT_EQ(store.status().code(), StatusCode::kFailedPrecondition);
    const std::string& message = store.status().message();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find("version " + std::to_string(future)), std::string::npos) << message;
    EXPECT_NE(message.find(std::to_string(Store::LatestSchemaVersion())), std::string::npos)
        << message;
  }
  EXPECT_EQ(ReadBytes(path), before);
  EXPECT_FALSE(fs::exists(path + "-wal"));
  EXPECT_FALSE(fs::exists(path + "-shm"));
}

TEST(StoreMigrations, MigratesVersionOneDatabaseForwardKeepingItsData) {
  TempDir dir;
  const std::string path = dir.File("old.db");
  const std::string fixture = ReadText(DEDE_SQLITE_FIXTURE_DIR "/0001_schema.sql");
  ASSERT_FALSE(fixture.empty());
  RawExec(path, fixture + R"sql(
    PRAGMA user_version = 1;
    INSERT INTO deployments (id, name, plugin, plugin_version, config_file, config_yaml)
      VALUES (1, 'legacy', 'toy', '0.0.1', 'old.yaml', 'x: 1');
    INSERT INTO variables (deployment_id, var_id, kind, matrix_name, resource, demand)
      VALUES (1, 0, 'entry', 'x', 0, 0);
    INSERT INTO rounds (deployment_id, round, started_at, solver, termination, message, feasible)
      VALUES (1, 0, 1.7e9, 'admm', 'converged', 'ok', 1);
    INSERT INTO allocations VALUES (1, 0, 0, 2.5);
  )sql");

  {  // Read-only: reports the old version and leaves it alone.
    ASSERT_OK_AND_ASSIGN(auto store, Store::Open(path, /*read_only=*/true));
    EXPECT_EQ(store->schema_version(), 1);
    EXPECT_EQ(Scalar(*store, "PRAGMA user_version"), "1");
    std::ostringstream out;
    const Status status = tools::RunQuery(path, "SELECT * FROM round_summary", "table", out);
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.message().find("no such table: round_summary"), std::string::npos)
        << status.message();
    EXPECT_NE(status.message().find("schema version 1"), std::string::npos) << status.message();
    EXPECT_TRUE(out.str().empty());
  }
  ASSERT_OK_AND_ASSIGN(auto store, Store::Open(path));
  EXPECT_EQ(store->schema_version(), Store::LatestSchemaVersion());
  EXPECT_EQ(Scalar(*store, "PRAGMA user_version"), std::to_string(Store::LatestSchemaVersion()));
  EXPECT_EQ(Scalar(*store, "SELECT allocated FROM demand_allocation WHERE demand = 0"), "2.5");
  EXPECT_EQ(Scalar(*store, "SELECT deployment FROM round_summary"), "legacy");
  // Version 3's tables arrive empty; the old round has no checkpoint.
  EXPECT_EQ(Scalar(*store, "SELECT count(*) FROM domain_records"), "0");
  EXPECT_EQ(Scalar(*store, "SELECT count(*) FROM plugin_states"), "0");
  ASSERT_OK_AND_ASSIGN(const LastRound last, store->LoadLastRound(1, 1));
  EXPECT_EQ(last.round, 0);
  EXPECT_FALSE(last.has_state);
}

// ---- opening ------------------------------------------------------------------------------

TEST(StoreOpen, FileThatIsNotADatabaseIsInvalidArgumentNamingIt) {
  TempDir dir;
  const std::string path = dir.File("notes.txt");
  {
    std::ofstream out(path);
    for (int i = 0; i < 100; ++i) out << "This is a text file, not a SQLite database.\n";
  }
  const std::string before = ReadBytes(path);
  for (const bool read_only : {false, true}) {
    auto store = Store::Open(path, read_only);
    ASSERT_FALSE(store.ok());
    EXPECT_EQ(store.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(store.status().message().find(path), std::string::npos) << store.status().message();
    EXPECT_NE(store.status().message().find("not a"), std::string::npos)
        << store.status().message();
  }
  EXPECT_EQ(ReadBytes(path), before);
}

TEST(StoreOpen, ReadOnlyOpenOfAMissingFileIsNotFoundAndCreatesNothing) {
  TempDir dir;
  const std::string path = dir.File("missing.db");
  auto store = Store::Open(path, /*read_only=*/true);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kNotFound);
  EXPECT_NE(store.status().message().find(path), std::string::npos);
  EXPECT_FALSE(fs::exists(path));
}

TEST(StoreOpen, RefusesToAddTablesToAForeignDatabase) {
  TempDir dir;
  const std::string path = dir.File("someone_elses.db");
  RawExec(path, "CREATE TABLE inventory (item TEXT)");
  const std::string before = ReadBytes(path);
  auto store = Store::Open(path);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(store.status().message().find("not created by dede"), std::string::npos);
  EXPECT_EQ(ReadBytes(path), before);
  // Read-only queries of any SQLite file are fine.
  std::ostringstream out;
  ASSERT_OK(tools::RunQuery(path, "SELECT count(*) AS n FROM inventory", "csv", out));
  EXPECT_EQ(out.str(), "n\r\n0\r\n");
}

// ---- deployments and the variable catalogue -----------------------------------------------

TEST(StoreDeployments, UpsertReturnsTheExistingIdAndRejectsAnotherPlugin) {
  ASSERT_OK_AND_ASSIGN(auto store, Store::Open(":memory:"));
  ASSERT_OK_AND_ASSIGN(const std::int64_t alpha, store->UpsertDeployment(MakeDeployment("alpha")));
  ASSERT_OK_AND_ASSIGN(const std::int64_t beta, store->UpsertDeployment(MakeDeployment("beta")));
  EXPECT_NE(alpha, beta);
  ASSERT_OK_AND_ASSIGN(const std::int64_t again, store->UpsertDeployment(MakeDeployment("alpha")));
  EXPECT_EQ(again, alpha);
  EXPECT_EQ(Scalar(*store, "SELECT config_yaml FROM deployments WHERE name = 'alpha'"),
            "deployment:\n  name: alpha\n");
  const double created = ScalarDouble(*store, "SELECT created_at FROM deployments LIMIT 1");
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_NEAR(created, now, 60.0);

  auto other = store->UpsertDeployment(MakeDeployment("alpha", "traffic_engineering"));
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(other.status().message().find("'toy'"), std::string::npos);
  EXPECT_NE(other.status().message().find("'traffic_engineering'"), std::string::npos);
  EXPECT_EQ(Scalar(*store, "SELECT count(*) FROM deployments"), "2");
}

TEST(StoreVariables, CatalogueIsWrittenOnceAndCheckedOnResume) {
  ASSERT_OK_AND_ASSIGN(auto store, Store::Open(":memory:"));
  ASSERT_OK_AND_ASSIGN(const std::int64_t id, store->UpsertDeployment(MakeDeployment("alpha")));
  const Problem problem = MakeTwoByTwo();
  ASSERT_OK(store->WriteVariables(id, problem));
  EXPECT_EQ(Scalar(*store, "SELECT count(*) FROM variables"), "5");
  EXPECT_EQ(Scalar(*store,
                   "SELECT matrix_name || ':' || resource || ',' || demand"
                   " FROM variables WHERE var_id = 2"),
            "x:1,0");
  EXPECT_EQ(Scalar(*store,
                   "SELECT kind || ':' || owner_side || ':' || owner_index || ':' || name"
                   " FROM variables WHERE var_id = 4"),
            "local:demand:1:slack");
  ASSERT_OK(store->WriteVariables(id, problem));  // resume: same catalogue
  EXPECT_EQ(Scalar(*store, "SELECT count(*) FROM variables"), "5");

  Problem bigger = MakeTwoByTwo();
  bigger.AddLocal(BlockId::Resource(0), Domain::NonNegative());
  const Status count_mismatch = store->WriteVariables(id, bigger);
  EXPECT_EQ(count_mismatch.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(count_mismatch.message(),
            "deployment 'alpha' was created with 5 variables, the plugin now declares 6");

  Problem reshaped(2, 2);  // same count, the local now belongs to resource 1
  reshaped.AddDenseEntries(reshaped.AddAllocation("x", Domain::NonNegative()));
  reshaped.AddLocal(BlockId::Resource(1), Domain::NonNegative());
  const Status shape_mismatch = store->WriteVariables(id, reshaped);
  EXPECT_EQ(shape_mismatch.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(shape_mismatch.message().find("variable 4 was created as local of demand 1"),
            std::string::npos)
      << shape_mismatch.message();

  EXPECT_EQ(store->WriteVariables(12345, problem).code(), StatusCode::kNotFound);
}

// ---- rounds -------------------------------------------------------------------------------

class StoreRounds : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = Store::Open(":memory:");
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store.value());
    auto id = store_->UpsertDeployment(MakeDeployment("alpha"));
    ASSERT_TRUE(id.ok()) << id.status().ToString();
    id_ = id.value();
    ASSERT_OK(store_->WriteVariables(id_, problem_));
  }

  Problem problem_ = MakeTwoByTwo();
  std::unique_ptr<Store> store_;
  std::int64_t id_ = -1;
};

TEST_F(StoreRounds, LoadLastRoundWithoutRoundsIsMinusOne) {
  ASSERT_OK_AND_ASSIGN(const LastRound last, store_->LoadLastRound(id_, problem_.num_variables()));
  EXPECT_EQ(last.round, -1);
  EXPECT_TRUE(last.values.empty());
}

// A last round the counter cannot go on from (written by another hand) is an error naming the
// table and the value, not an overflow on resume.
TEST_F(StoreRounds, LastRoundAtTheEndOfTheCounterIsAnError) {
  RoundRecord record = MakeRound(0, {{0, 1.0}});
  record.round = std::numeric_limits<int>::max();
  ASSERT_OK(store_->WriteRound(id_, record));
  const Result<LastRound> last = store_->LoadLastRound(id_, problem_.num_variables());
  ASSERT_FALSE(last.ok());
  EXPECT_NE(last.status().message().find("table rounds: the deployment's last round is "
                                         "2147483647, outside [0, 2147483645]"),
            std::string::npos)
      << last.status().message();
}

TEST_F(StoreRounds, WriteRoundThenLoadLastRoundRoundTrips) {
  ASSERT_OK(store_->WriteRound(id_, MakeRound(0, {{0, 1.0}, {3, 4.0}})));
  // Unsorted input, an exact zero and a value under the zero tolerance (not stored).
  ASSERT_OK(
      store_->WriteRound(id_, MakeRound(1, {{4, 0.125}, {1, 1.0 / 3.0}, {0, 0.0}, {2, 1e-13}})));
  ASSERT_OK_AND_ASSIGN(const LastRound last, store_->LoadLastRound(id_, problem_.num_variables()));
  EXPECT_EQ(last.round, 1);
  ASSERT_EQ(last.values.size(), 5u);
  EXPECT_EQ(last.values[0], 0.0);
  EXPECT_EQ(last.values[1], 1.0 / 3.0);  // exact: REAL is a double
  EXPECT_EQ(last.values[2], 0.0);
  EXPECT_EQ(last.values[3], 0.0);
  EXPECT_EQ(last.values[4], 0.125);
  EXPECT_EQ(CountRows(*store_, "allocations", 1), 2);

  // The summary row: text termination, NULL for "not computed", the reals exactly.
  auto row = store_->Query(
      "SELECT termination, method, iterations, rho_updates, repair_seconds, objective, feasible,"
      " primal_residual, message FROM rounds WHERE round = 1");
  ASSERT_TRUE(row.ok()) << row.status().ToString();
  ASSERT_EQ(row->rows.size(), 1u);
  const auto& cells = row->rows[0];
  EXPECT_EQ(cells[0], "converged");
  EXPECT_EQ(cells[1], "admm");
  EXPECT_EQ(cells[2], "121");
  EXPECT_EQ(cells[3], std::nullopt);
  EXPECT_EQ(cells[4], std::nullopt);
  EXPECT_EQ(cells[5], "8");
  EXPECT_EQ(cells[6], "1");
  EXPECT_EQ(cells[7], "3.1e-06");
  EXPECT_EQ(cells[8], "Primal residual 3.1e-06 <= 4.0e-06.");
  EXPECT_EQ(Scalar(*store_, "SELECT value FROM metrics WHERE round = 1 AND name = 'cost'"), "12.5");

  // A NaN objective (not computed) is NULL, and so is a NaN metric.
  RoundRecord nan_round = MakeRound(2, {});
  nan_round.summary.objective = std::numeric_limits<double>::quiet_NaN();
  nan_round.summary.termination = Termination::kFailure;
  nan_round.report.metrics = {{"undefined", std::numeric_limits<double>::quiet_NaN()}};
  ASSERT_OK(store_->WriteRound(id_, nan_round));
  EXPECT_EQ(Scalar(*store_, "SELECT objective IS NULL FROM rounds WHERE round = 2"), "1");
  EXPECT_EQ(Scalar(*store_, "SELECT termination FROM rounds WHERE round = 2"), "failure");
  EXPECT_EQ(Scalar(*store_, "SELECT value IS NULL FROM metrics WHERE round = 2"), "1");
  ASSERT_OK_AND_ASSIGN(const LastRound empty_round,
                       store_->LoadLastRound(id_, problem_.num_variables()));
  EXPECT_EQ(empty_round.round, 2);
  EXPECT_EQ(empty_round.values, std::vector<double>(5, 0.0));
}

TEST_F(StoreRounds, AllocationHistoryKeepsEveryNthRoundAndTheLatest) {
  store_->SetAllocationHistory(3);
  for (int round = 0; round < 8; ++round) {
    RoundRecord record = MakeRound(round, {{0, 1.0 + round}, {4, 0.5}});
    record.has_state = true;
    record.state = "state of round " + std::to_string(round);
    ASSERT_OK(store_->WriteRound(id_, record));
  }
  // Rounds 0, 3, 6 (divisible by 3) and 7 (the latest) keep their two rows each.
  for (int round = 0; round < 8; ++round) {
    const bool kept = round % 3 == 0 || round == 7;
    EXPECT_EQ(CountRows(*store_, "allocations", round), kept ? 2 : 0) << "round " << round;
    EXPECT_EQ(CountRows(*store_, "metrics", round), 2) << "round " << round;
  }
  EXPECT_EQ(Scalar(*store_, "SELECT count(*) FROM rounds"), "8");
  // Only the latest checkpoint is kept, and resume gets it with the latest allocation.
  EXPECT_EQ(Scalar(*store_, "SELECT group_concat(round) FROM plugin_states"), "7");
  ASSERT_OK_AND_ASSIGN(const LastRound last, store_->LoadLastRound(id_, problem_.num_variables()));
  EXPECT_EQ(last.round, 7);
  EXPECT_EQ(last.values[0], 8.0);
  EXPECT_EQ(last.state, "state of round 7");

  // Back to keeping everything: nothing more is deleted.
  store_->SetAllocationHistory(0);
  ASSERT_OK(store_->WriteRound(id_, MakeRound(8, {{0, 9.0}})));
  ASSERT_OK(store_->WriteRound(id_, MakeRound(9, {{0, 10.0}})));
  EXPECT_EQ(CountRows(*store_, "allocations", 7), 2);
  EXPECT_EQ(CountRows(*store_, "allocations", 8), 1);
}

TEST_F(StoreRounds, LoadLastRoundRejectsAStoredVariableBeyondTheProblem) {
  ASSERT_OK(store_->WriteRound(id_, MakeRound(0, {{4, 1.0}})));
  auto last = store_->LoadLastRound(id_, 4);
  ASSERT_FALSE(last.ok());
  EXPECT_EQ(last.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(last.status().message().find("variable 4"), std::string::npos);
}

TEST_F(StoreRounds, DuplicateRoundIsRejectedAndTheFirstIsUnchanged) {
  RoundRecord first = MakeRound(0, {{0, 1.0}, {1, 2.0}});
  AddTwoByTwoEntities(&first);
  ASSERT_OK(store_->WriteRound(id_, first));
  const std::string dump_sql =
      "SELECT (SELECT group_concat(var_id || '=' || value) FROM allocations)"
      " || '|' || (SELECT group_concat(name || '=' || value) FROM metrics)"
      " || '|' || (SELECT count(*) FROM entity_parameters)"
      " || '|' || (SELECT objective FROM rounds)";
  const std::string before = Scalar(*store_, dump_sql);

  RoundRecord second = MakeRound(0, {{2, 5.0}, {3, 6.0}});
  second.summary.objective = -1;
  second.report.metrics = {{"other", 1.0}};
  const Status status = store_->WriteRound(id_, second);
  EXPECT_EQ(status.code(), StatusCode::kAlreadyExists);
  EXPECT_NE(status.message().find("round 0 of deployment 'alpha'"), std::string::npos)
      << status.message();
  EXPECT_EQ(Scalar(*store_, dump_sql), before);
}

TEST_F(StoreRounds, AFailureHalfWayThroughARoundLeavesNoRows) {
  ASSERT_OK(store_->WriteRound(id_, MakeRound(0, {{0, 1.0}})));
  auto expect_nothing_of_round_1 = [&](const Status& status) {
    EXPECT_FALSE(status.ok());
    for (const char* table :
         {"rounds", "allocations", "metrics", "entities", "entity_parameters"}) {
      EXPECT_EQ(CountRows(*store_, table, 1), 0) << table << " after " << status.ToString();
    }
  };
  {  // The last metric repeats a name: rounds, allocations and the first metric were written.
    RoundRecord record = MakeRound(1, {{0, 1.0}, {1, 2.0}});
    record.report.metrics.push_back({"cost", 3.0});
    const Status status = store_->WriteRound(id_, record);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(status.message().find("metric 'cost' is reported twice"), std::string::npos)
        << status.message();
    expect_nothing_of_round_1(status);
  }
  {  // The last entity repeats (side, index).
    RoundRecord record = MakeRound(1, {{0, 1.0}});
    AddTwoByTwoEntities(&record);
    record.report.entities.push_back({Side::kDemand, 1, "d1 again", {}});
    const Status status = store_->WriteRound(id_, record);
    EXPECT_NE(status.message().find("demand 1 is reported twice"), std::string::npos)
        << status.message();
    expect_nothing_of_round_1(status);
  }
  {  // The allocation lists a variable twice (a primary-key violation inside the insert loop).
    const Status status = store_->WriteRound(id_, MakeRound(1, {{0, 1.0}, {1, 2.0}, {1, 3.0}}));
    EXPECT_NE(status.message().find("variable 1 more than once"), std::string::npos)
        << status.message();
    expect_nothing_of_round_1(status);
  }
  {  // A value that is not finite, and a variable outside the catalogue.
    expect_nothing_of_round_1(store_->WriteRound(
        id_, MakeRound(1, {{0, 1.0}, {1, std::numeric_limits<double>::infinity()}})));
    const Status status = store_->WriteRound(id_, MakeRound(1, {{0, 1.0}, {5, 1.0}}));
    EXPECT_NE(status.message().find("variable 5 is not in the deployment's catalogue of 5"),
              std::string::npos)
        << status.message();
    expect_nothing_of_round_1(status);
  }
  {  // A deployment that does not exist.
    const Status status = store_->WriteRound(id_ + 100, MakeRound(1, {{0, 1.0}}));
    EXPECT_EQ(status.code(), StatusCode::kNotFound);
    expect_nothing_of_round_1(status);
  }
  // Nothing stuck: the connection is usable and round 1 can be written now.
  ASSERT_OK(store_->WriteRound(id_, MakeRound(1, {{0, 1.0}})));
  EXPECT_EQ(CountRows(*store_, "rounds", 1), 1);
  EXPECT_EQ(CountRows(*store_, "allocations", 0), 1);
}

TEST_F(StoreRounds, DeletingADeploymentCascadesToEverything) {
  RoundRecord record = MakeRound(0, {{0, 1.0}, {4, 2.0}});
  AddTwoByTwoEntities(&record);
  ASSERT_OK(store_->WriteRound(id_, record));
  ASSERT_OK_AND_ASSIGN(auto result, store_->Query("DELETE FROM deployments"));
  for (const char* table :
       {"variables", "rounds", "allocations", "metrics", "entities", "entity_parameters"}) {
    EXPECT_EQ(Scalar(*store_, std::string("SELECT count(*) FROM ") + table), "0") << table;
  }
}

// ---- views --------------------------------------------------------------------------------

// Round 0:             d0   d1  | capacity  utilisation
//   r0 (var 0, 1)      1    2   |   4       3/4
//   r1 (var 2, 3)      3    0   |  10       3/10
//   demand totals      4    2        local of d1 = 5 is not an entry
// Round 1: x = [[0, 0], [0, 6]], capacities 4 and 10 again: r0 0/4, r1 6/10, d0 0, d1 6.
TEST_F(StoreRounds, ViewsGiveTheHandComputedNumbersOnATwoByTwoExample) {
  RoundRecord round0 = MakeRound(0, {{0, 1.0}, {1, 2.0}, {2, 3.0}, {4, 5.0}});
  AddTwoByTwoEntities(&round0);
  ASSERT_OK(store_->WriteRound(id_, round0));
  RoundRecord round1 = MakeRound(1, {{3, 6.0}});
  AddTwoByTwoEntities(&round1);
  ASSERT_OK(store_->WriteRound(id_, round1));

  auto demand = store_->Query(
      "SELECT round, demand, demand_name, allocated, nonzero_entries FROM demand_allocation"
      " ORDER BY round, demand");
  ASSERT_TRUE(demand.ok()) << demand.status().ToString();
  using Row = std::vector<std::optional<std::string>>;
  ASSERT_EQ(demand->rows.size(), 4u);
  EXPECT_EQ(demand->rows[0], (Row{"0", "0", "d0", "4", "2"}));
  EXPECT_EQ(demand->rows[1], (Row{"0", "1", "d1", "2", "1"}));
  EXPECT_EQ(demand->rows[2], (Row{"1", "0", "d0", "0", "0"}));
  EXPECT_EQ(demand->rows[3], (Row{"1", "1", "d1", "6", "1"}));

  auto resource = store_->Query(
      "SELECT round, resource, resource_name, allocated, capacity, utilisation"
      " FROM resource_utilisation ORDER BY round, resource");
  ASSERT_TRUE(resource.ok()) << resource.status().ToString();
  ASSERT_EQ(resource->rows.size(), 4u);
  EXPECT_EQ(resource->rows[0], (Row{"0", "0", "r0", "3", "4", "0.75"}));
  EXPECT_EQ(resource->rows[1], (Row{"0", "1", "r1", "3", "10", "0.3"}));
  EXPECT_EQ(resource->rows[2], (Row{"1", "0", "r0", "0", "4", "0"}));
  EXPECT_EQ(resource->rows[3], (Row{"1", "1", "r1", "6", "10", "0.6"}));

  auto summary = store_->Query(
      "SELECT deployment, round, started_utc, termination, objective, nonzero_entries"
      " FROM round_summary ORDER BY round");
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  ASSERT_EQ(summary->rows.size(), 2u);
  // 1.7e9 s after the epoch is 2023-11-14T22:13:20Z.
  EXPECT_EQ(summary->rows[0],
            (Row{"alpha", "0", "2023-11-14T22:13:20.000Z", "converged", "7", "4"}));
  EXPECT_EQ(summary->rows[1],
            (Row{"alpha", "1", "2023-11-14T22:14:20.000Z", "converged", "8", "1"}));

  // Without entity reports: names and capacity are NULL, utilisation too.
  ASSERT_OK(store_->WriteRound(id_, MakeRound(2, {{0, 1.0}})));
  EXPECT_EQ(Scalar(*store_,
                   "SELECT coalesce(resource_name, 'NULL') || coalesce(capacity, 'NULL')"
                   " || coalesce(utilisation, 'NULL') || allocated"
                   " FROM resource_utilisation WHERE round = 2 AND resource = 0"),
            "NULLNULLNULL1.0");
}

// ---- queries ------------------------------------------------------------------------------

TEST(StoreQuery, ReturnsColumnsTypesAndNulls) {
  ASSERT_OK_AND_ASSIGN(auto store, Store::Open(":memory:"));
  ASSERT_OK_AND_ASSIGN(
      const QueryResult result,
      store->Query("SELECT 1 AS i, 0.1 AS r, 'a,b' AS t, NULL AS n, x'00ff' AS b, 1e400 AS inf"));
  EXPECT_EQ(result.columns, (std::vector<std::string>{"i", "r", "t", "n", "b", "inf"}));
  ASSERT_EQ(result.rows.size(), 1u);
  using Row = std::vector<std::optional<std::string>>;
  EXPECT_EQ(result.rows[0], (Row{"1", "0.1", "a,b", std::nullopt, "x'00ff'", "inf"}));
  EXPECT_EQ(result.numeric[0], (std::vector<bool>{true, true, false, false, false, true}));

  // Several statements: the last one with columns is the result.
  ASSERT_OK_AND_ASSIGN(const QueryResult last,
                       store->Query("CREATE TEMP TABLE t (x); INSERT INTO t VALUES (7);"
                                    " SELECT x FROM t; -- trailing comment"));
  ASSERT_EQ(last.rows.size(), 1u);
  EXPECT_EQ(last.rows[0][0], "7");

  auto error = store->Query("SELECT * FROM no_such_table");
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(error.status().message().find("no such table: no_such_table"), std::string::npos);
  EXPECT_EQ(store->Query("  -- nothing\n").status().code(), StatusCode::kInvalidArgument);
}

TEST(StoreQuery, ReadOnlyStoreRefusesWrites) {
  TempDir dir;
  const std::string path = dir.File("deploy.db");
  {
    ASSERT_OK_AND_ASSIGN(auto store, Store::Open(path));
    ASSERT_OK_AND_ASSIGN(const std::int64_t id, store->UpsertDeployment(MakeDeployment("alpha")));
    ASSERT_OK(store->WriteVariables(id, MakeTwoByTwo()));
    ASSERT_OK(store->WriteRound(id, MakeRound(0, {{0, 1.0}})));
  }
  ASSERT_OK_AND_ASSIGN(auto store, Store::Open(path, /*read_only=*/true));
  EXPECT_EQ(store->schema_version(), Store::LatestSchemaVersion());
  for (const char* sql : {"DELETE FROM rounds",
                          "INSERT INTO deployments (name) VALUES ('x')",
                          "DROP VIEW round_summary",
                          "CREATE TEMP TABLE t (x)",
                          "PRAGMA user_version = 99"}) {
    auto result = store->Query(sql);
    EXPECT_FALSE(result.ok()) << sql;
  }
  RoundRecord record = MakeRound(1, {{0, 1.0}});
  EXPECT_FALSE(store->WriteRound(1, record).ok());
  EXPECT_EQ(Scalar(*store, "SELECT count(*) FROM rounds"), "1");
  EXPECT_EQ(Scalar(*store, "PRAGMA user_version"), std::to_string(Store::LatestSchemaVersion()));
  std::ostringstream out;
  const Status status = tools::RunQuery(path, "DELETE FROM allocations", "table", out);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("read-only"), std::string::npos) << status.message();
  // Nothing that creates another file: VACUUM INTO is refused before it runs (it used to leave
  // an empty file behind), ATTACH by the authorizer.
  const std::string copy = path + ".copy";
  auto vacuum = store->Query("VACUUM INTO '" + copy + "'");
  ASSERT_FALSE(vacuum.ok());
  EXPECT_NE(vacuum.status().message().find("would write"), std::string::npos)
      << vacuum.status().message();
  EXPECT_FALSE(std::filesystem::exists(copy));
  auto attach = store->Query("ATTACH DATABASE '" + copy + "' AS other");
  ASSERT_FALSE(attach.ok());
  EXPECT_NE(attach.status().message().find("not authorized"), std::string::npos)
      << attach.status().message();
  EXPECT_FALSE(std::filesystem::exists(copy));
}

// A query that would run forever stops at its time limit, or when its cancel flag is set
// (Ctrl-C in `dede query`), with kCancelled naming the statement; the store stays usable.
TEST(StoreQuery, TimeLimitAndCancelStopALongQuery) {
  ASSERT_OK_AND_ASSIGN(auto store, Store::Open(":memory:"));
  const std::string forever =
      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c";
  Store::QueryLimits limits;
  limits.seconds = 0.2;
  const auto start = std::chrono::steady_clock::now();
  auto timed = store->Query(forever, limits);
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(timed.ok());
  EXPECT_EQ(timed.status().code(), StatusCode::kCancelled);
  EXPECT_NE(timed.status().message().find("stopped after the time limit of 0.2 s"),
            std::string::npos)
      << timed.status().message();
  EXPECT_LT(took, 5.0);
  std::atomic<bool> cancel{true};
  Store::QueryLimits cancelled;
  cancelled.cancel = &cancel;
  auto stopped = store->Query(forever, cancelled);
  ASSERT_FALSE(stopped.ok());
  EXPECT_NE(stopped.status().message().find("query interrupted"), std::string::npos)
      << stopped.status().message();
  EXPECT_EQ(Scalar(*store, "SELECT 40 + 2"), "42");
}

// ---- dede query output --------------------------------------------------------------------

class RunQueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.File("deploy.db");
    RawExec(path_,
            "CREATE TABLE t (name TEXT, amount REAL, n INTEGER);"
            "INSERT INTO t VALUES ('plain', 1.5, 10), ('with, comma', -0.25, NULL),"
            " ('say \"hi\"', 1e-7, 3), ('two\nlines', NULL, 12345);");
  }
  std::string Run(const std::string& sql, const std::string& format) {
    std::ostringstream out;
    const Status status = tools::RunQuery(path_, sql, format, out);
    EXPECT_TRUE(status.ok()) << status.ToString();
    return out.str();
  }
  TempDir dir_;
  std::string path_;
};

TEST_F(RunQueryTest, TableAlignsColumnsAndRightAlignsNumbers) {
  EXPECT_EQ(Run("SELECT name, amount, n FROM t", "table"),
            "name         amount      n\n"
            "-----------  ------  -----\n"
            "plain           1.5     10\n"
            "with, comma   -0.25   NULL\n"
            "say \"hi\"      1e-07      3\n"
            "two\\nlines     NULL  12345\n"
            "(4 rows)\n");
  EXPECT_EQ(Run("SELECT 1 AS one", "table"), "one\n---\n  1\n(1 row)\n");
  EXPECT_EQ(Run("SELECT * FROM t WHERE 0", "table"),
            "name  amount  n\n----  ------  -\n(0 rows)\n");
}

TEST_F(RunQueryTest, CsvQuotesAsRfc4180) {
  EXPECT_EQ(Run("SELECT name, amount, n FROM t", "csv"),
            "name,amount,n\r\n"
            "plain,1.5,10\r\n"
            "\"with, comma\",-0.25,\r\n"
            "\"say \"\"hi\"\"\",1e-07,3\r\n"
            "\"two\nlines\",,12345\r\n");
}

TEST_F(RunQueryTest, JsonIsAnArrayOfObjectsWithNumbersAsNumbers) {
  EXPECT_EQ(Run("SELECT name, amount, n FROM t", "json"),
            "[\n"
            "  {\"name\":\"plain\",\"amount\":1.5,\"n\":10},\n"
            "  {\"name\":\"with, comma\",\"amount\":-0.25,\"n\":null},\n"
            "  {\"name\":\"say \\\"hi\\\"\",\"amount\":1e-07,\"n\":3},\n"
            "  {\"name\":\"two\\nlines\",\"amount\":null,\"n\":12345}\n"
            "]\n");
  EXPECT_EQ(Run("SELECT n, n, 9223372036854775807 AS big, 1e400 AS inf FROM t LIMIT 1", "json"),
            "[\n  {\"n\":10,\"n_2\":10,\"big\":9223372036854775807,\"inf\":\"inf\"}\n]\n");
  EXPECT_EQ(Run("SELECT * FROM t WHERE 0", "json"), "[]\n");
}

TEST_F(RunQueryTest, ErrorsNameTheProblemAndPrintNothing) {
  std::ostringstream out;
  Status status = tools::RunQuery(path_, "SELECT 1", "xml", out);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("'xml'"), std::string::npos);
  status = tools::RunQuery(path_, "SELEC 1", "table", out);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("syntax error"), std::string::npos) << status.message();
  status = tools::RunQuery(dir_.File("nope.db"), "SELECT 1", "table", out);
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_TRUE(out.str().empty());
}

// ---- interoperability, crashes and throughput ---------------------------------------------

// The sqlite3 shell reads a database the store is writing (WAL), views included.
TEST(StoreFiles, Sqlite3ShellReadsTheDatabase) {
  if (std::system("command -v sqlite3 > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "the sqlite3 shell is not installed";
  }
  TempDir dir;
  const std::string path = dir.File("deploy.db");
  ASSERT_OK_AND_ASSIGN(auto store, Store::Open(path));
  ASSERT_OK_AND_ASSIGN(const std::int64_t id, store->UpsertDeployment(MakeDeployment("alpha")));
  ASSERT_OK(store->WriteVariables(id, MakeTwoByTwo()));
  RoundRecord record = MakeRound(0, {{0, 1.0}, {1, 2.0}, {2, 3.0}});
  AddTwoByTwoEntities(&record);
  ASSERT_OK(store->WriteRound(id, record));
  // The store keeps its connection open: the shell reads alongside it.
  const std::string command =
      "sqlite3 -readonly '" + path +
      "' \"SELECT resource || ':' || utilisation FROM resource_utilisation ORDER BY resource\"";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[256];
  while (std::fgets(buffer, sizeof(buffer), pipe) != nullptr) output += buffer;
  EXPECT_EQ(pclose(pipe), 0);
  EXPECT_EQ(output, "0:0.75\n1:0.3\n");
}

// Another connection holding the write lock: the write fails after the busy timeout with
// kUnavailable naming the file, readers are not blocked, and the write succeeds afterwards.
TEST(StoreFiles, WriteWhileAnotherConnectionWritesIsUnavailableAndReadersAreNotBlocked) {
  TempDir dir;
  const std::string path = dir.File("locked.db");
  ASSERT_OK_AND_ASSIGN(auto store, Store::Open(path));
  ASSERT_OK_AND_ASSIGN(const std::int64_t id, store->UpsertDeployment(MakeDeployment("alpha")));
  ASSERT_OK(store->WriteVariables(id, MakeTwoByTwo()));
  ASSERT_OK(store->WriteRound(id, MakeRound(0, {{0, 1.0}})));

  auto other = sqlite::Database::Open(path, SQLITE_OPEN_READWRITE);
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  ASSERT_OK(other.value()->Exec("BEGIN IMMEDIATE; DELETE FROM metrics", "holding the lock"));
  store->SetBusyTimeout(0.05);
  const Status status = store->WriteRound(id, MakeRound(1, {{0, 2.0}}));
  EXPECT_EQ(status.code(), StatusCode::kUnavailable);
  EXPECT_NE(status.message().find(path), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("locked"), std::string::npos) << status.message();
  {
    ASSERT_OK_AND_ASSIGN(auto reader, Store::Open(path, /*read_only=*/true));
    EXPECT_EQ(Scalar(*reader, "SELECT count(*) FROM metrics"), "2");  // the last commit
  }
  ASSERT_OK(other.value()->Exec("ROLLBACK", "releasing the lock"));
  ASSERT_OK(store->WriteRound(id, MakeRound(1, {{0, 2.0}})));
  EXPECT_EQ(Scalar(*store, "SELECT max(round) FROM rounds"), "1");
}

// A process killed in the middle of WriteRound leaves either the whole round or none of it.
TEST(StoreFiles, ProcessKilledDuringWriteRoundLeavesAWholeRoundOrNone) {
  TempDir dir;
  const std::string path = dir.File("crash.db");
  constexpr int kEntries = 300000;
  std::int64_t id = -1;
  {
    ASSERT_OK_AND_ASSIGN(auto store, Store::Open(path));
    ASSERT_OK_AND_ASSIGN(id, store->UpsertDeployment(MakeDeployment("crash")));
    Problem problem(1, kEntries);
    const int matrix = problem.AddAllocation("x", Domain::NonNegative());
    for (int d = 0; d < kEntries; ++d) problem.AddEntry(matrix, 0, d);
    ASSERT_OK(store->WriteVariables(id, problem));
    ASSERT_OK(store->WriteRound(id, MakeRound(0, {{0, 1.0}})));
  }
  std::vector<std::pair<VarId, double>> allocation;
  allocation.reserve(kEntries);
  for (int v = 0; v < kEntries; ++v) allocation.emplace_back(v, 1.0 + v);
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto store = Store::Open(path);
    if (!store.ok()) _exit(3);
    const char byte = 'x';
    if (write(ready[1], &byte, 1) != 1) _exit(4);
    const Status status = store.value()->WriteRound(id, MakeRound(1, allocation));
    _exit(status.ok() ? 0 : 5);
  }
  close(ready[1]);
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  close(ready[0]);
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  kill(child, SIGKILL);
  int wait_status = 0;
  ASSERT_EQ(waitpid(child, &wait_status, 0), child);

  ASSERT_OK_AND_ASSIGN(auto store, Store::Open(path));
  const int rounds = CountRows(*store, "rounds", 1);
  const int entries = CountRows(*store, "allocations", 1);
  const int metrics = CountRows(*store, "metrics", 1);
  std::printf("[          ] child %s; round 1 has %d rounds rows, %d allocation rows\n",
              WIFSIGNALED(wait_status) ? "killed mid-write" : "finished before the kill",
              rounds,
              entries);
  if (rounds == 0) {
    EXPECT_EQ(entries, 0);
    EXPECT_EQ(metrics, 0);
  } else {
    EXPECT_EQ(entries, kEntries);
    EXPECT_EQ(metrics, 2);
  }
  EXPECT_EQ(CountRows(*store, "rounds", 0), 1);
  EXPECT_EQ(Scalar(*store, "PRAGMA integrity_check"), "ok");
  ASSERT_OK_AND_ASSIGN(const LastRound last, store->LoadLastRound(id, kEntries));
  EXPECT_EQ(last.round, rounds == 0 ? 0 : 1);
}

// Writes a 1M-entry allocation (1000 x 1000 dense, every entry non-zero) in one transaction to
// a file and prints the rate. Asserts only that it completes and round-trips.
TEST(StoreThroughput, WritesAMillionEntryAllocation) {
  TempDir dir;
  const std::string path = dir.File("throughput.db");
  constexpr int kSide = 1000;
  Problem problem(kSide, kSide);
  problem.AddDenseEntries(problem.AddAllocation("x", Domain::NonNegative()));
  const int n = problem.num_variables();
  ASSERT_OK_AND_ASSIGN(auto store, Store::Open(path));
  ASSERT_OK_AND_ASSIGN(const std::int64_t id, store->UpsertDeployment(MakeDeployment("big")));

  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  ASSERT_OK(store->WriteVariables(id, problem));
  const double catalogue_seconds = std::chrono::duration<double>(Clock::now() - start).count();

  std::vector<std::pair<VarId, double>> allocation;
  allocation.reserve(static_cast<std::size_t>(n));
  for (VarId v = 0; v < n; ++v) allocation.emplace_back(v, 0.5 + v % 97);
  RoundRecord record = MakeRound(0, std::move(allocation));
  start = Clock::now();
  ASSERT_OK(store->WriteRound(id, record));
  const double round_seconds = std::chrono::duration<double>(Clock::now() - start).count();

  start = Clock::now();
  ASSERT_OK_AND_ASSIGN(const LastRound last, store->LoadLastRound(id, n));
  const double load_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  ASSERT_EQ(last.values.size(), static_cast<std::size_t>(n));
  EXPECT_NEAR(last.values[12345], 0.5 + 12345 % 97, kValueTolerance);

  std::printf(
      "[          ] 1M-entry allocation: WriteRound %.2f s = %.0f rows/s;"
      " catalogue %.2f s = %.0f rows/s; LoadLastRound %.2f s = %.0f rows/s\n",
      round_seconds,
      n / round_seconds,
      catalogue_seconds,
      n / catalogue_seconds,
      load_seconds,
      n / load_seconds);
  RecordProperty("allocation_rows_per_second", static_cast<int>(n / round_seconds));
}

// One writer per database: a second lock on the same database fails naming this process; the
// lock is released with its holder; an in-memory database needs none.
TEST(WriterLock, SecondWriterIsRefusedUntilTheFirstReleases) {
  const std::string db = (std::filesystem::path(testing::TempDir()) / "writer_lock.db").string();
  {
    Result<WriterLock> first = WriterLock::Acquire(db);
    ASSERT_TRUE(first.ok()) << first.status().ToString();
    Result<WriterLock> second = WriterLock::Acquire(db);
    ASSERT_FALSE(second.ok());
    EXPECT_EQ(second.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(second.status().message().find("being written by another dede run (pid " +
                                             std::to_string(::getpid()) + ")"),
              std::string::npos)
        << second.status().message();
  }
  EXPECT_TRUE(WriterLock::Acquire(db).ok());
  Result<WriterLock> memory = WriterLock::Acquire(":memory:");
  ASSERT_TRUE(memory.ok());
  EXPECT_TRUE(memory->path().empty());
}

}  // namespace
}  // namespace dede::internal

namespace dede::internal {
namespace {

// ---- the event inbox ------------------------------------------------------------------------

EventRow MakeEvent(const std::string& deployment, const std::string& kind, int from_round = 0) {
  EventRow e;
  e.deployment = deployment;
  e.kind = kind;
  e.target = "3->7";
  e.payload = R"({"capacity": 5})";
  e.apply_from_round = from_round;
  return e;
}

TEST_F(StoreRounds, EventsArePendingUntilTheirRoundAndTimeThenMarkedWithTheRound) {
  ASSERT_OK_AND_ASSIGN(const std::int64_t now, store_->SubmitEvent(MakeEvent("alpha", "fail")));
  ASSERT_OK_AND_ASSIGN(const std::int64_t later,
                       store_->SubmitEvent(MakeEvent("alpha", "fail", 2)));
  EventRow timed = MakeEvent("alpha", "recover");
  timed.apply_after = 2e9;  // 2033
  ASSERT_OK_AND_ASSIGN(const std::int64_t at_time, store_->SubmitEvent(timed));
  const Result<std::int64_t> other = store_->SubmitEvent(MakeEvent("beta", "fail"));
  ASSERT_TRUE(other.ok());  // another deployment's
  ASSERT_OK_AND_ASSIGN(auto due0, store_->PendingEvents("alpha", 0, 1.8e9));
  ASSERT_EQ(due0.size(), 1u);
  EXPECT_EQ(due0[0].id, now);
  EXPECT_EQ(due0[0].payload, R"({"capacity":5})");
  ASSERT_OK_AND_ASSIGN(auto due2, store_->PendingEvents("alpha", 2, 2.1e9));
  ASSERT_EQ(due2.size(), 3u);
  EXPECT_EQ(due2[1].id, later);
  EXPECT_EQ(due2[2].id, at_time);

  RoundRecord round0 = MakeRound(0, {{0, 1.0}});
  round0.events = {{now, true, ""}, {at_time, false, "no such link"}};
  ASSERT_OK(store_->WriteRound(id_, round0));
  EXPECT_EQ(Scalar(*store_,
                   "SELECT group_concat(id || ':' || status || ':' || ifnull(round, '-') "
                   "|| ':' || ifnull(reason, '-'), ' ') FROM events"),
            std::to_string(now) + ":applied:0:- " + std::to_string(later) + ":pending:-:- " +
                std::to_string(at_time) + ":rejected:0:no such link 4:pending:-:-");
  ASSERT_OK_AND_ASSIGN(auto applied, store_->AppliedEvents("alpha", 0));
  ASSERT_EQ(applied.size(), 1u);
  EXPECT_EQ(applied[0].round, 0);
  // A round whose event another runner already took is not written at all.
  RoundRecord round1 = MakeRound(1, {{0, 2.0}});
  round1.events = {{later, true, ""}, {now, true, ""}};
  const Status taken = store_->WriteRound(id_, round1);
  ASSERT_FALSE(taken.ok());
  EXPECT_NE(taken.message().find("event " + std::to_string(now) +
                                 " of deployment 'alpha' is no "
                                 "longer pending"),
            std::string::npos)
      << taken.message();
  EXPECT_EQ(CountRows(*store_, "rounds", 1), 0);
  EXPECT_EQ(Scalar(*store_, "SELECT status FROM events WHERE id = " + std::to_string(later)),
            "pending");
}

TEST_F(StoreRounds, BadSubmissionsWriteNothing) {
  EventRow array = MakeEvent("alpha", "fail");
  array.payload = "[1, 2]";
  EventRow fine = MakeEvent("alpha", "fail");
  const auto ids = store_->SubmitEvents({fine, array});
  ASSERT_FALSE(ids.ok());
  EXPECT_NE(ids.status().message().find("event 1: payload '[1, 2]' is not a JSON object"),
            std::string::npos)
      << ids.status().message();
  EventRow negative = MakeEvent("alpha", "fail", -1);
  EXPECT_FALSE(store_->SubmitEvent(negative).ok());
  EXPECT_FALSE(store_->SubmitEvent(MakeEvent("", "fail")).ok());
  EXPECT_EQ(Scalar(*store_, "SELECT count(*) FROM events"), "0");
  ASSERT_OK_AND_ASSIGN(auto names, store_->DeploymentNames());
  EXPECT_EQ(names, std::vector<std::string>{"alpha"});
}

}  // namespace
}  // namespace dede::internal
