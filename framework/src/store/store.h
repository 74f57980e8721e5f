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
  // The submitter's idempotency key (schema 7), unique per deployment; empty: none.
  std::string idempotency_key;
  double submitted_at = 0;
  std::string status;  // "pending", "applied", "rejected"
  int round = -1;      // the round that applied or rejected it
  std::string reason;
};

// What SubmitEventsOnce did with one event: inserted (`existing` false) or found already
// stored under its idempotency key with the same content (`existing` true: nothing written;
// `status` and `round` are the stored event's).
struct SubmittedEvent {
  std::int64_t id = 0;
  bool existing = false;
  std::string status;  // "pending", "applied", "rejected"
  int round = -1;
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

// storage.retention: which rounds keep their full records. A round outside the window keeps its
// `rounds` row (round_summary) and its metrics; its allocation, entities, entity parameters and
// domain records are deleted by a later round's transaction, oldest first, in bounded slices.
// The latest round, the latest plugin checkpoint and the events are never deleted.
struct RetentionPolicy {
  int keep_rounds = 0;   // > 0: rounds numbered above (latest - keep_rounds) stay full
  double keep_days = 0;  // > 0: rounds started within this many days of the latest stay full
  // The slice one round's transaction may delete: whole old rounds, oldest first, at most
  // max_rounds_per_write of them, and no further round once max(min_rows_per_write, 2 x the
  // rows the round itself wrote) rows are deleted. Catching up takes several rounds.
  int max_rounds_per_write = 64;
  int min_rows_per_write = 20000;
  // Incremental vacuum (auto_vacuum = INCREMENTAL databases): free pages beyond
  // max(slack_pages, 2 x the pages the round used) go back to the file system, at most
  // vacuum_pages_per_write per round.
  int slack_pages = 1024;
  int vacuum_pages_per_write = 4096;
  bool enabled() const { return keep_rounds > 0 || keep_days > 0; }
};

// What retention did, counted since the store was opened (committed rounds only).
struct RetentionStats {
  std::int64_t writes = 0;          // rounds written with retention on
  std::int64_t rounds_pruned = 0;   // old rounds whose full records were deleted
  std::int64_t rows_deleted = 0;    // rows deleted from the per-round tables
  std::int64_t pages_vacuumed = 0;  // pages returned to the file system (incremental vacuum)
  int last_pruned_round = -1;       // the newest round pruned so far (-1: none)
  int oldest_full_round = -1;       // the oldest round still holding full records, if known
  bool behind = false;              // the last write stopped at its slice with more rounds to prune
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
  // `immutable` (read-only opens only): SQLite's immutable=1, for files on read-only media: no
  // locks, no -shm, and the -wal file is ignored (see store/file_access.h for when it is right).
  static Result<std::unique_ptr<Store>> Open(const std::string& path,
                                             bool read_only = false,
                                             bool immutable = false);
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
  // As SubmitEvents, exactly once: an event whose idempotency key the deployment already has
  // is not inserted again when its content (kind, target, payload, apply_from_round,
  // apply_after) is the same (the stored one is returned, `existing`), and is an error naming
  // both events (kAlreadyExists, nothing written) when it differs.
  Result<std::vector<SubmittedEvent>> SubmitEventsOnce(const std::vector<EventRow>& events);
  // Names of the deployments stored in the database.
  Result<std::vector<std::string>> DeploymentNames();
  // The deployment's pending events due at `round` started at `now` (Unix seconds), by id;
  // the first `limit` of them if limit > 0 (inbox.max_events_per_round).
  Result<std::vector<EventRow>> PendingEvents(const std::string& deployment,
                                              int round,
                                              double now,
                                              int limit = 0);
  // How many pending events are due at `round` started at `now` (the inbox's backlog before a
  // round takes its share).
  Result<std::int64_t> CountPendingEvents(const std::string& deployment, int round, double now);
  // The deployment's applied events of rounds <= last_round, in the order they were applied
  // (round, then id): what a resumed run re-applies.
  Result<std::vector<EventRow>> AppliedEvents(const std::string& deployment, int last_round);
  // Allocation history kept by WriteRound: 0 keeps every round's allocation; N > 0 keeps the
  // latest round's and those of rounds divisible by N, deleting the previous round's rows when
  // the next round is written (storage.keep_allocations). Only the latest plugin checkpoint is
  // ever kept.
  void SetAllocationHistory(int keep_every);
  // Retention of full round records (storage.retention), applied by every WriteRound from now
  // on inside its transaction (store_retention.cpp). The default keeps everything.
  void SetRetention(const RetentionPolicy& policy);
  const RetentionStats& retention_stats() const;
  // PRAGMA auto_vacuum: "none", "full" or "incremental". New databases are created
  // incremental, so the pages retention frees can be returned to the file system.
  Result<std::string> AutoVacuumMode();
  // Turns an older database (auto_vacuum none) incremental: a full VACUUM, which rewrites the
  // whole file (as much free disk again, minutes per GB) and needs no other writer.
  Status EnableIncrementalVacuum();
  // Bounds of a Query call: a wall-clock limit for all its statements, and a flag another
  // thread or a signal handler sets to stop it (Ctrl-C in `dede query`).
  struct QueryLimits {
    double seconds = std::numeric_limits<double>::infinity();
    const std::atomic<bool>* cancel = nullptr;
    // SQLite's heap (sqlite3_hard_heap_limit64, process-wide, restored afterwards) and the
    // result's size are each held below this; 0: no limit. For a process that runs one query
    // at a time (`dede query --max-memory-mib`).
    std::int64_t max_memory_bytes = 0;
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
