#include "store/store.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "store/file_access.h"
#include "store/migrations.h"
#include "store/sqlite.h"
#include "store/store_impl.h"

namespace dede::internal {
namespace {

bool IsMemoryPath(const std::string& path) {
  return path.empty() || path == ":memory:" || path.starts_with("file::memory:");
}

std::string HexBlob(std::string_view blob) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text = "x'";
  for (const char c : blob) {
    const auto byte = static_cast<unsigned char>(c);
    text += kDigits[byte >> 4];
    text += kDigits[byte & 0xf];
  }
  text += '\'';
  return text;
}

// Reads `PRAGMA user_version`; this is also the first read of the file, so it is where a file
// that is not a database is noticed.
Status ReadUserVersion(Database& db, int* version) {
  auto statement = db.Prepare("PRAGMA user_version");
  if (!statement.ok()) return statement.status();
  bool has_row = false;
  Status status = statement->Step(&has_row);
  if (!status.ok()) return status;
  *version = has_row ? static_cast<int>(statement->ColumnInt64(0)) : 0;
  return Status::Ok();
}

Status NewerSchemaError(const std::string& path, int version) {
  return FailedPrecondition("database '" + path + "' has schema version " +
                            std::to_string(version) + ", newer than this binary's " +
                            std::to_string(Store::LatestSchemaVersion()) +
                            "; refusing to open it (it was not changed). Use a newer dede.");
}

}  // namespace

Store::Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Store::~Store() = default;

int Store::LatestSchemaVersion() { return static_cast<int>(Migrations().size()); }

int Store::schema_version() const { return impl_->schema_version; }

void Store::SetBusyTimeout(double seconds) {
  const double ms = std::clamp(seconds * 1000.0, 0.0, 2.0e9);
  sqlite3_busy_timeout(impl_->db->handle(), static_cast<int>(ms));
}

Result<std::unique_ptr<Store>> Store::Open(const std::string& path,
                                           bool read_only,
                                           bool immutable) {
  // The header we compiled against and the library we run with must agree on the major version.
  if (sqlite3_libversion_number() / 1000000 != SQLITE_VERSION_NUMBER / 1000000) {
    return FailedPrecondition(std::string("SQLite library ") + sqlite3_libversion() +
                              " does not match the header this binary was built with (" +
                              SQLITE_VERSION + ")");
  }
  if (!read_only) {
    // SQLite would open a file it cannot write read-only and fail later, without saying why.
    Status writable = CheckWritable(path);
    if (!writable.ok()) return writable;
  }
  read_only = read_only || immutable;
  const int flags = read_only ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  auto opened = immutable ? Database::Open(path, flags | SQLITE_OPEN_URI, ImmutableUri(path))
                          : Database::Open(path, flags);
  if (!opened.ok()) {
    if (opened.status().code() == StatusCode::kNotFound && read_only) {
      return NotFound("database '" + path +
                      "' does not exist or cannot be read (opened read-only)");
    }
    return opened.status();
  }
  auto impl = std::make_unique<Impl>();
  impl->db = std::move(opened.value());
  impl->path = path;
  impl->read_only = read_only;
  Database& db = *impl->db;

  // Until the version check passes, closing must not checkpoint a WAL into the file: a
  // refused database is left exactly as it was.
  sqlite3_db_config(db.handle(), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
  sqlite3_busy_timeout(db.handle(), 5000);
  Status status = db.Exec("PRAGMA foreign_keys = ON", "enabling foreign keys");
  if (!status.ok()) return status;

  int version = 0;
  status = ReadUserVersion(db, &version);
  if (!status.ok()) {
    const int code = sqlite3_errcode(db.handle());
    if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT) {
      return InvalidArgument("'" + path + "' is not a dede database: " + sqlite3_errstr(code) +
                             " (not a SQLite file, or corrupt)");
    }
    return status;
  }
  if (version > LatestSchemaVersion()) return NewerSchemaError(path, version);
  if (version < 0) {
    return FailedPrecondition("database '" + path + "' has schema version " +
                              std::to_string(version) + ", which dede never writes");
  }
  impl->schema_version = version;

  if (read_only) {
    // Belt and braces on top of SQLITE_OPEN_READONLY: refuses temp tables and ATTACHed writes;
    // no other file is attached (Query also refuses statements that would write, such as
    // VACUUM INTO, before they run).
    status = db.Exec("PRAGMA query_only = ON", "making the connection query-only");
    if (!status.ok()) return status;
    db.RestrictQueries();
    return std::unique_ptr<Store>(new Store(std::move(impl)));
  }

  if (version == 0) {
    // A database dede never migrated must be empty: do not add tables to someone else's file.
    auto objects = db.Prepare("SELECT count(*) FROM sqlite_schema");
    if (!objects.ok()) return objects.status();
    bool has_row = false;
    status = objects->Step(&has_row);
    if (!status.ok()) return status;
    if (has_row && objects->ColumnInt64(0) > 0) {
      return FailedPrecondition("database '" + path +
                                "' has schema version 0 but already contains tables: it was "
                                "not created by dede; refusing to change it");
    }
  }

  sqlite3_db_config(db.handle(), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0, nullptr);
  status = db.Exec("PRAGMA cache_size = -65536", "setting the page cache size");
  if (!status.ok()) return status;
  if (version == 0) {
    // Before the first table and before WAL (which writes the header): a new database can give
    // the pages retention frees back to the file system (store_retention.cpp). An older one
    // switches only with a VACUUM (Store::EnableIncrementalVacuum, `dede storage --vacuum`).
    status = db.Exec("PRAGMA auto_vacuum = INCREMENTAL", "setting auto_vacuum");
    if (!status.ok()) return status;
  }
  if (!IsMemoryPath(path)) {
    // WAL: readers (dede query, the sqlite3 shell) never block the writer and vice versa.
    auto journal = db.Prepare("PRAGMA journal_mode = WAL");
    if (!journal.ok()) return journal.status();
    bool has_row = false;
    status = journal->Step(&has_row);
    if (!status.ok()) return status;
    const std::string mode = has_row ? journal->ColumnText(0) : "";
    if (mode != "wal") {
      return FailedPrecondition("database '" + path +
                                "': cannot switch to WAL journal mode (got '" + mode +
                                "'); is it on a network file system?");
    }
    // A large transaction (a catch-up, a VACUUM) grows the WAL; after the next checkpoint it
    // is cut back to this size instead of keeping its largest size on disk.
    status = db.Exec("PRAGMA journal_size_limit = 67108864", "setting journal_size_limit");
    if (!status.ok()) return status;
  }
  status = impl->ApplyMigrations();
  if (!status.ok()) return status;
  std::int64_t auto_vacuum = 0;
  status = impl->PragmaInt("auto_vacuum", &auto_vacuum);
  if (!status.ok()) return status;
  impl->auto_vacuum = static_cast<int>(auto_vacuum);
  return std::unique_ptr<Store>(new Store(std::move(impl)));
}

Status Store::Impl::ApplyMigrations() {
  for (const Migration& migration : Migrations()) {
    if (migration.version <= schema_version) continue;
    Transaction tx(*db, Transaction::kImmediate);
    if (!tx.status().ok()) return tx.status();
    // Another process may have migrated between our check and this transaction.
    int current = 0;
    Status status = ReadUserVersion(*db, &current);
    if (!status.ok()) return status;
    if (current > LatestSchemaVersion()) return NewerSchemaError(path, current);
    if (current >= migration.version) {
      schema_version = current;
      continue;
    }
    status = db->Exec(migration.sql, std::string("applying migration ") + migration.name);
    if (!status.ok()) return status;
    status = db->Exec("PRAGMA user_version = " + std::to_string(migration.version),
                      "setting user_version");
    if (!status.ok()) return status;
    status = tx.Commit();
    if (!status.ok()) return status;
    schema_version = migration.version;
  }
  return Status::Ok();
}

Status Store::Impl::DeploymentName(std::int64_t deployment_id, std::string* name) {
  auto statement = db->Prepare("SELECT name FROM deployments WHERE id = ?1");
  if (!statement.ok()) return statement.status();
  statement->Bind(1, deployment_id);
  bool has_row = false;
  Status status = statement->Step(&has_row);
  if (!status.ok()) return status;
  if (!has_row) {
    return NotFound("no deployment with id " + std::to_string(deployment_id) + " in '" + path +
                    "'");
  }
  *name = statement->ColumnText(0);
  return Status::Ok();
}

Result<std::int64_t> Store::UpsertDeployment(const DeploymentRecord& deployment) {
  if (deployment.name.empty()) return InvalidArgument("a deployment needs a non-empty name");
  if (deployment.plugin.empty()) {
    return InvalidArgument("deployment '" + deployment.name + "' names no plugin");
  }
  Database& db = *impl_->db;
  Transaction tx(db, Transaction::kImmediate);
  if (!tx.status().ok()) return tx.status();
  {
    auto existing = db.Prepare("SELECT id, plugin FROM deployments WHERE name = ?1");
    if (!existing.ok()) return existing.status();
    existing->Bind(1, deployment.name);
    bool has_row = false;
    Status status = existing->Step(&has_row);
    if (!status.ok()) return status;
    if (has_row) {
      const std::int64_t id = existing->ColumnInt64(0);
      const std::string plugin = existing->ColumnText(1);
      if (plugin != deployment.plugin) {
        return FailedPrecondition("deployment '" + deployment.name + "' in '" + impl_->path +
                                  "' was created with plugin '" + plugin +
                                  "', the configuration now names plugin '" + deployment.plugin +
                                  "'");
      }
      return id;  // nothing written; the transaction rolls back
    }
  }
  // clang-format off
  auto insert = db.Prepare(
      "INSERT INTO deployments (name, plugin, plugin_version, config_file, config_yaml)"
      " VALUES (?1, ?2, ?3, ?4, ?5)");
  // clang-format on
  if (!insert.ok()) return insert.status();
  insert->Bind(1, deployment.name)
      .Bind(2, deployment.plugin)
      .Bind(3, deployment.plugin_version)
      .Bind(4, deployment.config_file)
      .Bind(5, deployment.config_yaml);
  Status status = insert->Run();
  if (!status.ok()) return status;
  const std::int64_t id = sqlite3_last_insert_rowid(db.handle());
  status = tx.Commit();
  if (!status.ok()) return status;
  return id;
}

Status Store::Impl::CatalogueSize(std::int64_t deployment_id, int* size) {
  if (const auto it = catalogue_sizes.find(deployment_id); it != catalogue_sizes.end()) {
    *size = it->second;
    return Status::Ok();
  }
  // Var ids are written as 0..n-1, so max + 1 is the count; max is one index probe.
  auto statement =
      db->Prepare("SELECT max(var_id), count(*) > 0 FROM variables WHERE deployment_id = ?1");
  if (!statement.ok()) return statement.status();
  statement->Bind(1, deployment_id);
  bool has_row = false;
  Status status = statement->Step(&has_row);
  if (!status.ok()) return status;
  *size = has_row && !statement->IsNull(0) ? static_cast<int>(statement->ColumnInt64(0)) + 1 : 0;
  // Only a written catalogue is final; an empty one may still be written.
  if (*size > 0) catalogue_sizes[deployment_id] = *size;
  return Status::Ok();
}

namespace {

// One catalogue row as the problem describes it, for writing and for comparing on resume.
struct CatalogueRow {
  bool entry = false;
  std::string matrix_name;
  int resource = -1, demand = -1;
  std::string owner_side;
  int owner_index = -1;

  std::string Describe() const {
    if (entry) {
      return "entry (" + std::to_string(resource) + ", " + std::to_string(demand) + ") of '" +
             matrix_name + "'";
    }
    return "local of " + owner_side + " " + std::to_string(owner_index);
  }
  friend bool operator==(const CatalogueRow&, const CatalogueRow&) = default;
};

CatalogueRow RowOf(const Problem& problem, VarId v) {
  const Variable& variable = problem.variable(v);
  CatalogueRow row;
  row.entry = variable.IsEntry();
  if (row.entry) {
    row.matrix_name = problem.matrix_name(variable.matrix);
    row.resource = variable.resource;
    row.demand = variable.demand;
  } else {
    row.owner_side = SideName(variable.owner.side);
    row.owner_index = variable.owner.index;
  }
  return row;
}

}  // namespace

Status Store::Impl::CheckCatalogue(std::int64_t deployment_id,
                                   const std::string& name,
                                   const Problem& problem,
                                   int stored) {
  if (stored != problem.num_variables()) {
    return FailedPrecondition("deployment '" + name + "' was created with " +
                              std::to_string(stored) + " variables, the plugin now declares " +
                              std::to_string(problem.num_variables()));
  }
  // Same count is not enough for a warm start to make sense: the same VarId must mean the same
  // variable. One pass over the catalogue, at startup only.
  // clang-format off
  auto statement = db->Prepare(
      "SELECT var_id, kind, matrix_name, resource, demand, owner_side, owner_index"
      " FROM variables WHERE deployment_id = ?1 ORDER BY var_id");
  // clang-format on
  if (!statement.ok()) return statement.status();
  statement->Bind(1, deployment_id);
  for (;;) {
    bool has_row = false;
    Status status = statement->Step(&has_row);
    if (!status.ok()) return status;
    if (!has_row) break;
    const auto v = static_cast<VarId>(statement->ColumnInt64(0));
    CatalogueRow row;
    row.entry = statement->ColumnText(1) == "entry";
    if (row.entry) {
      row.matrix_name = statement->ColumnText(2);
      row.resource = static_cast<int>(statement->ColumnInt64(3));
      row.demand = static_cast<int>(statement->ColumnInt64(4));
    } else {
      row.owner_side = statement->ColumnText(5);
      row.owner_index = static_cast<int>(statement->ColumnInt64(6));
    }
    if (v < 0 || v >= problem.num_variables()) {
      return FailedPrecondition("deployment '" + name + "': the stored catalogue has variable " +
                                std::to_string(v) + ", the plugin declares " +
                                std::to_string(problem.num_variables()) + " variables");
    }
    const CatalogueRow now = RowOf(problem, v);
    if (!(row == now)) {
      return FailedPrecondition("deployment '" + name + "': variable " + std::to_string(v) +
                                " was created as " + row.Describe() + ", the plugin now declares " +
                                now.Describe());
    }
  }
  return Status::Ok();
}

Status Store::Impl::InsertCatalogue(std::int64_t deployment_id, const Problem& problem) {
  // clang-format off
  auto insert = db->Prepare(
      "INSERT INTO variables (deployment_id, var_id, kind, matrix_name, resource, demand,"
      "                       owner_side, owner_index, name)"
      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  // clang-format on
  if (!insert.ok()) return insert.status();
  insert->Bind(1, deployment_id);
  for (VarId v = 0; v < problem.num_variables(); ++v) {
    const CatalogueRow row = RowOf(problem, v);
    insert->Reset();
    insert->Bind(2, v).Bind(3, std::string_view(row.entry ? "entry" : "local"));
    if (row.entry) {
      insert->Bind(4, row.matrix_name).Bind(5, row.resource).Bind(6, row.demand);
      insert->BindNull(7).BindNull(8);
    } else {
      insert->BindNull(4).BindNull(5).BindNull(6);
      insert->Bind(7, row.owner_side).Bind(8, row.owner_index);
    }
    BindOptionalText(insert.value(), 9, problem.variable_name(v));
    Status status = insert->Run();
    if (!status.ok()) return status;
  }
  return Status::Ok();
}

Status Store::WriteVariables(std::int64_t deployment_id, const Problem& problem) {
  Impl& impl = *impl_;
  Transaction tx(*impl.db, Transaction::kImmediate);
  if (!tx.status().ok()) return tx.status();
  std::string name;
  Status status = impl.DeploymentName(deployment_id, &name);
  if (!status.ok()) return status;
  int stored = 0;
  status = impl.CatalogueSize(deployment_id, &stored);
  if (!status.ok()) return status;
  if (stored > 0) return impl.CheckCatalogue(deployment_id, name, problem, stored);
  status = impl.InsertCatalogue(deployment_id, problem);
  if (!status.ok()) return status;
  status = tx.Commit();
  if (!status.ok()) return status;
  if (problem.num_variables() > 0) impl.catalogue_sizes[deployment_id] = problem.num_variables();
  return Status::Ok();
}

Result<LastRound> Store::LoadLastRound(std::int64_t deployment_id, int num_variables) {
  if (num_variables < 0) {
    return InvalidArgument("LoadLastRound: num_variables = " + std::to_string(num_variables) +
                           " < 0");
  }
  Impl& impl = *impl_;
  // One read transaction: the round number and its allocation come from the same snapshot.
  Transaction tx(*impl.db, Transaction::kDeferred);
  if (!tx.status().ok()) return tx.status();
  std::string name;
  Status status = impl.DeploymentName(deployment_id, &name);
  if (!status.ok()) return status;
  LastRound last;
  {
    auto round = impl.db->Prepare("SELECT max(round) FROM rounds WHERE deployment_id = ?1");
    if (!round.ok()) return round.status();
    round->Bind(1, deployment_id);
    bool has_row = false;
    status = round->Step(&has_row);
    if (!status.ok()) return status;
    if (!has_row || round->IsNull(0)) return last;  // no round yet: round = -1, no values
    const std::int64_t stored = round->ColumnInt64(0);
    // Rounds are ints counted up from 0; anything else was written by another hand, and
    // resuming after it would overflow the counter.
    if (stored < 0 || stored >= std::numeric_limits<int>::max() - 1) {
      return FailedPrecondition(impl.path + ": table rounds: the deployment's last round is " +
                                std::to_string(stored) + ", outside [0, " +
                                std::to_string(std::numeric_limits<int>::max() - 2) +
                                "]; was the database edited by hand?");
    }
    last.round = static_cast<int>(stored);
  }
  last.values.assign(static_cast<std::size_t>(num_variables), 0.0);
  // clang-format off
  auto rows = impl.db->Prepare(
      "SELECT var_id, value FROM allocations WHERE deployment_id = ?1 AND round = ?2");
  // clang-format on
  if (!rows.ok()) return rows.status();
  rows->Bind(1, deployment_id).Bind(2, last.round);
  for (;;) {
    bool has_row = false;
    status = rows->Step(&has_row);
    if (!status.ok()) return status;
    if (!has_row) break;
    const std::int64_t v = rows->ColumnInt64(0);
    if (v < 0 || v >= num_variables) {
      return FailedPrecondition("round " + std::to_string(last.round) + " of deployment '" + name +
                                "' stores variable " + std::to_string(v) +
                                ", but the problem has " + std::to_string(num_variables) +
                                " variables");
    }
    last.values[static_cast<std::size_t>(v)] = rows->ColumnDouble(1);
  }
  {
    auto state =
        impl.db->Prepare("SELECT state FROM plugin_states WHERE deployment_id = ?1 AND round = ?2");
    if (!state.ok()) return state.status();
    state->Bind(1, deployment_id).Bind(2, last.round);
    bool has_row = false;
    status = state->Step(&has_row);
    if (!status.ok()) return status;
    if (has_row) {
      last.has_state = true;
      last.state = std::string(state->ColumnBlob(0));
    }
  }
  return last;
}

namespace {

// The row the statement is on, appended to *result; returns the bytes it holds (roughly).
std::int64_t AppendRow(const Statement& statement, QueryResult* result) {
  const int columns = statement.ColumnCount();
  auto& row = result->rows.emplace_back();
  auto& numeric = result->numeric.emplace_back();
  row.reserve(static_cast<std::size_t>(columns));
  numeric.reserve(static_cast<std::size_t>(columns));
  std::int64_t bytes = 0;
  for (int c = 0; c < columns; ++c) {
    switch (statement.ColumnType(c)) {
      case SQLITE_NULL:
        row.emplace_back(std::nullopt);
        numeric.push_back(false);
        break;
      case SQLITE_INTEGER:
        row.emplace_back(std::to_string(statement.ColumnInt64(c)));
        numeric.push_back(true);
        break;
      case SQLITE_FLOAT:
        row.emplace_back(FormatDouble(statement.ColumnDouble(c)));
        numeric.push_back(true);
        break;
      case SQLITE_BLOB:
        row.emplace_back(HexBlob(statement.ColumnBlob(c)));
        numeric.push_back(false);
        break;
      default:
        row.emplace_back(statement.ColumnText(c));
        numeric.push_back(false);
        break;
    }
    bytes += static_cast<std::int64_t>(sizeof(std::optional<std::string>)) +
             static_cast<std::int64_t>(row.back() ? row.back()->size() : 0);
  }
  return bytes;
}

std::string MemoryText(std::int64_t bytes) {
  if (bytes % (1 << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

Status OutOfMemory(const Store::QueryLimits& limits, const char* sql) {
  std::string what = std::string(sql == nullptr ? "" : sql);
  if (what.size() > 200) what = what.substr(0, 200) + "...";
  if (limits.max_memory_bytes <= 0) return Internal("out of memory running `" + what + "`");
  return FailedPrecondition("query stopped: it needs more than the memory limit of " +
                            MemoryText(limits.max_memory_bytes) +
                            " (--max-memory-mib; SQLite's heap): `" + what + "`");
}

}  // namespace

Result<QueryResult> Store::Query(const std::string& sql, const QueryLimits& limits) {
  Database& db = *impl_->db;
  QueryResult result;
  // A statement that runs too long, or is cancelled, ends with SQLITE_INTERRUPT; `stopped`
  // says why, for the message.
  const auto start = std::chrono::steady_clock::now();
  std::string stopped;
  if (std::isfinite(limits.seconds) || limits.cancel != nullptr) {
    db.SetProgressCheck([&] {
      if (limits.cancel != nullptr && limits.cancel->load(std::memory_order_relaxed)) {
        stopped = "interrupted";
      } else if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >
                 limits.seconds) {
        char text[64];
        std::snprintf(text, sizeof(text), "stopped after the time limit of %g s", limits.seconds);
        stopped = text;
      }
      return !stopped.empty();
    });
  }
  struct ClearCheck {
    Database& db;
    ~ClearCheck() { db.SetProgressCheck({}); }
  } clear{db};
  // SQLite's allocations fail (SQLITE_NOMEM) past the limit instead of growing the process.
  struct HeapLimit {
    sqlite3_int64 previous = -1;
    ~HeapLimit() {
      if (previous >= 0) sqlite3_hard_heap_limit64(previous);
    }
  } heap_limit;
  if (limits.max_memory_bytes > 0) {
    heap_limit.previous = sqlite3_hard_heap_limit64(limits.max_memory_bytes);
  }
  std::int64_t result_bytes = 0;
  const char* next = sql.c_str();
  bool any_statement = false;
  // Every statement runs; the result is that of the last one that returns columns, as in the
  // sqlite3 shell's last output.
  while (next != nullptr && *next != '\0') {
    auto prepared = db.PrepareNext(&next);
    if (!prepared.ok() && (sqlite3_errcode(db.handle()) & 0xff) == SQLITE_NOMEM) {
      return OutOfMemory(limits, next);
    }
    if (!prepared.ok()) {
      return Status(prepared.status().code(), "SQL error: " + prepared.status().message());
    }
    Statement& statement = prepared.value();
    if (statement.empty()) break;  // only whitespace or comments were left
    if (impl_->read_only && !statement.ReadOnly()) {
      return FailedPrecondition(
          "SQL error: `" + std::string(statement.sql()) +
          "` would write; queries are read-only (this statement was not run)");
    }
    any_statement = true;
    const int columns = statement.ColumnCount();
    QueryResult current;
    for (int c = 0; c < columns; ++c) {
      const char* column_name = statement.ColumnName(c);
      current.columns.emplace_back(column_name != nullptr ? column_name : "");
    }
    for (;;) {
      bool has_row = false;
      Status status = statement.Step(&has_row);
      if (!status.ok() && !stopped.empty()) {
        return Status(StatusCode::kCancelled,
                      "query " + stopped + ": `" + std::string(statement.sql()) + "`");
      }
      if (!status.ok() && (statement.last_error() & 0xff) == SQLITE_NOMEM) {
        return OutOfMemory(limits, statement.sql());
      }
      if (!status.ok()) return Status(status.code(), "SQL error: " + status.message());
      if (!has_row) break;
      result_bytes += AppendRow(statement, &current);
      if (limits.max_memory_bytes > 0 && result_bytes > limits.max_memory_bytes) {
        return FailedPrecondition("query stopped: its result is larger than the memory limit of " +
                                  MemoryText(limits.max_memory_bytes) + " (--max-memory-mib): `" +
                                  std::string(statement.sql()) + "`");
      }
    }
    if (columns > 0 || result.columns.empty()) result = std::move(current);
  }
  if (!any_statement) return InvalidArgument("the query is empty");
  return result;
}

}  // namespace dede::internal
