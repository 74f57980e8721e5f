// SQLite persistence of deployments and their rounds. The only code that includes sqlite3.h.
//
// Schema: numbered SQL files in schemas/sqlite/NNNN_name.sql, embedded at build time and
// applied as forward-only migrations, each in its own transaction ending in
// `PRAGMA user_version = N`. A database whose user_version is newer than the binary is
// refused and never altered. WAL mode, foreign keys on, a busy timeout.
// Every round is written in ONE transaction (summary + allocation + metrics + parameters), so a
// crash never leaves a half-written round.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dede/plugin.h"
#include "dede/problem.h"
#include "dede/solver.h"
#include "dede/status.h"

namespace dede::internal {

struct DeploymentRecord {
  std::string name;    // unique; a re-run of the same deployment resumes it
  std::string plugin;  // plugin name
  std::string plugin_version;
  std::string config_file;  // path as given
  std::string config_yaml;  // full text of the deployment file
};

// An event of the inbox (schemas/sqlite/0004_events.sql).
struct EventRow {
  std::int64_t id = 0;
  std::string deployment, kind, target;
  std::string payload = "{}";  // a JSON object
  int apply_from_round = 0;
  double apply_after = std::numeric_limits<double>::quiet_NaN();  // Unix seconds; NaN: none
  std::string writer;
  double submitted_at = 0;
  std::string status;  // "pending", "applied", "rejected"
  int round = -1;      // the round that applied or rejected it
  std::string reason;
};

// What a round did with one pending event.
struct EventOutcome {
  std::int64_t id = 0;
  bool applied = false;
  std::string reason;  // when rejected
};

struct RoundRecord {
  int round = 0;
  double started_unix_seconds = 0;
  std::string solver;    // "admm", "exact"
  SolveSummary summary;  // termination, message, iterations, residuals, objective, ...
  // The whole round's wall time (events to report), the figure of the log line (NaN: unknown).
  double round_seconds = std::numeric_limits<double>::quiet_NaN();
  // Non-zero values (|v| > 1e-12) by VarId, entries and locals.
  std::vector<std::pair<VarId, double>> allocation;
  RoundReport report;      // domain metrics, entity parameters and domain records
  bool has_state = false;  // store `state` (DomainPlugin::SaveState) with the round
  std::string state;
  std::vector<EventOutcome> events;  // marked in the round's transaction
};

struct LastRound {
  int round = -1;
  // Full assignment by VarId (zeros where not stored); empty if round = -1.
  std::vector<double> values;
  // The plugin's checkpoint stored with that round, if any.
  bool has_state = false;
  std::string state;
};

struct QueryResult {
  std::vector<std::string> columns;
  // Each cell as text; NULL is std::nullopt. Numbers keep their SQLite type in `numeric`.
  std::vector<std::vector<std::optional<std::string>>> rows;
  std::vector<std::vector<bool>> numeric;
};

// One connection. Not thread-safe: use a Store from one thread at a time (other processes and
// other Store objects on the same file are fine: WAL, busy timeout).
class Store {
 public:
  // Opens (creating and migrating if needed, unless read_only) the database at `path`
  // (":memory:" allowed). Errors name the path: a newer schema, a corrupt file, a locked one.
  static Result<std::unique_ptr<Store>> Open(const std::string& path, bool read_only = false);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  static int LatestSchemaVersion();
  // The database's schema version: LatestSchemaVersion() after a read-write open; a read-only
  // open reports an older database's own version (it is not migrated).
  int schema_version() const;
  // How long a write waits for another connection's write lock before failing with
  // kUnavailable ("database is locked"). Default 5 s.
  void SetBusyTimeout(double seconds);

  // Inserts the deployment or, if the name exists, checks the plugin matches and returns its id.
  Result<std::int64_t> UpsertDeployment(const DeploymentRecord& deployment);
  // Variable catalogue (what each VarId is: matrix, resource, demand, local owner); written
  // once per deployment, verified (same count) on resume.
  Status WriteVariables(std::int64_t deployment_id, const Problem& problem);
  // The last committed round and its allocation, for resume and warm start; round = -1 if none.
  Result<LastRound> LoadLastRound(std::int64_t deployment_id, int num_variables);
  // One transaction. Fails (and writes nothing) if the round already exists.
  Status WriteRound(std::int64_t deployment_id, const RoundRecord& record);
  // --- The event inbox (store_events.cpp) ---
  // Inserts pending events in one transaction (all or none); returns their ids. Each payload
  // must be a JSON object; errors name the event's position.
  Result<std::vector<std::int64_t>> SubmitEvents(const std::vector<EventRow>& events);
  Result<std::int64_t> SubmitEvent(const EventRow& event);
  // Names of the deployments stored in the database.
  Result<std::vector<std::string>> DeploymentNames();
  // The deployment's pending events due at `round` started at `now` (Unix seconds), by id.
  Result<std::vector<EventRow>> PendingEvents(const std::string& deployment, int round, double now);
  // The deployment's applied events of rounds <= last_round, in the order they were applied
  // (round, then id): what a resumed run re-applies.
  Result<std::vector<EventRow>> AppliedEvents(const std::string& deployment, int last_round);
  // Allocation history kept by WriteRound: 0 keeps every round's allocation; N > 0 keeps the
  // latest round's and those of rounds divisible by N, deleting the previous round's rows when
  // the next round is written (storage.keep_allocations). Only the latest plugin checkpoint is
  // ever kept.
  void SetAllocationHistory(int keep_every);
  // Bounds of a Query call: a wall-clock limit for all its statements, and a flag another
  // thread or a signal handler sets to stop it (Ctrl-C in `dede query`).
  struct QueryLimits {
    double seconds = std::numeric_limits<double>::infinity();
    const std::atomic<bool>* cancel = nullptr;
  };
  // Read-only query (the connection is opened read-only by `dede query`).
  Result<QueryResult> Query(const std::string& sql, const QueryLimits& limits);
  Result<QueryResult> Query(const std::string& sql) { return Query(sql, QueryLimits{}); }

 private:
  struct Impl;
  explicit Store(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dede::internal
