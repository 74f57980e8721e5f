#include "storage_cmd.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include "store/store.h"
#include "store/writer_lock.h"

namespace dede::tools {
namespace {

using internal::QueryResult;
using internal::Store;

// The per-round tables whose rows storage.retention deletes outside its window, and those every
// round keeps (schemas/sqlite/README.md).
const std::set<std::string> kFullRecordTables = {
    "allocations", "entities", "entity_parameters", "domain_records"};
const std::set<std::string> kKeptTables = {"rounds", "metrics"};

struct Object {
  std::string name, kind, table;  // kind: table, index or schema; table: the index's table
  std::int64_t pages = 0, bytes = 0, rows = 0;
  std::int64_t rounds = -1;  // rounds holding rows of its table; -1: not a per-round table
};

struct Deployment {
  std::string name;
  std::int64_t rounds = 0, first = -1, last = -1, oldest_full = -1;
};

struct Report {
  std::string path;
  std::int64_t file_bytes = 0, wal_bytes = 0, page_size = 0, page_count = 0, free_pages = 0;
  std::string auto_vacuum;
  int schema_version = 0;
  std::vector<Object> objects;  // tables by size, each followed by its indexes
  std::vector<Deployment> deployments;
  std::int64_t rounds = 0, full_rounds = 0;
  std::int64_t kept_bytes = 0, full_bytes = 0;  // of kKeptTables, kFullRecordTables (+ indexes)
};

Result<QueryResult> Run(Store& store, const std::string& sql) {
  Result<QueryResult> result = store.Query(sql);
  if (!result.ok()) return Status(result.status().code(), result.status().message());
  return result;
}

std::int64_t Int(const std::optional<std::string>& cell) {
  if (!cell) return 0;
  try {
    return std::stoll(*cell);
  } catch (...) {
    return 0;
  }
}

Status ScalarInt(Store& store, const std::string& sql, std::int64_t* value) {
  Result<QueryResult> result = Run(store, sql);
  if (!result.ok()) return result.status();
  *value = result->rows.empty() || result->rows[0].empty() ? 0 : Int(result->rows[0][0]);
  return Status::Ok();
}

std::string Quoted(const std::string& name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// Page counts and file sizes.
Status ReadFile(Store& store, Report* report) {
  std::error_code ec;
  report->file_bytes = static_cast<std::int64_t>(std::filesystem::file_size(report->path, ec));
  if (ec) report->file_bytes = 0;
  report->wal_bytes =
      static_cast<std::int64_t>(std::filesystem::file_size(report->path + "-wal", ec));
  if (ec) report->wal_bytes = 0;
  Result<QueryResult> pragmas =
      Run(store,
          "SELECT p.page_size, c.page_count, f.freelist_count, a.auto_vacuum FROM "
          "pragma_page_size() p, pragma_page_count() c, pragma_freelist_count() f, "
          "pragma_auto_vacuum() a");
  if (!pragmas.ok()) return pragmas.status();
  const auto& row = pragmas->rows.at(0);
  report->page_size = Int(row[0]);
  report->page_count = Int(row[1]);
  report->free_pages = Int(row[2]);
  static const char* kModes[] = {"none", "full", "incremental"};
  const std::int64_t mode = Int(row[3]);
  report->auto_vacuum = mode >= 0 && mode <= 2 ? kModes[mode] : std::to_string(mode);
  report->schema_version = store.schema_version();
  return Status::Ok();
}

// Pages, bytes and rows of every b-tree (dbstat reads every page of the file once).
Status ReadObjects(Store& store, Report* report) {
  std::map<std::string, Object> objects;
  Result<QueryResult> schema =
      Run(store, "SELECT type, name, tbl_name FROM sqlite_schema WHERE type IN ('table', 'index')");
  if (!schema.ok()) return schema.status();
  for (const auto& row : schema->rows) {
    Object& o = objects[row[1].value_or("")];
    o.name = row[1].value_or("");
    o.kind = row[0].value_or("");
    o.table = row[2].value_or("");
  }
  // WITHOUT ROWID tables are index b-trees: their interior cells are rows too.
  std::set<std::string> index_trees;
  if (Result<QueryResult> wr =
          store.Query("SELECT name FROM pragma_table_list WHERE schema = 'main' AND wr = 1");
      wr.ok()) {
    for (const auto& row : wr->rows) index_trees.insert(row[0].value_or(""));
  }
  Result<QueryResult> stat = Run(
      store,
      "SELECT name, count(*), sum(pgsize), sum(CASE WHEN pagetype = 'leaf' THEN ncell ELSE 0 END),"
      " sum(CASE WHEN pagetype = 'internal' THEN ncell ELSE 0 END) FROM dbstat GROUP BY name");
  if (!stat.ok()) {
    return Status(
        stat.status().code(),
        stat.status().message() +
            " (the dbstat virtual table needs SQLite built with SQLITE_ENABLE_DBSTAT_VTAB,"
            " as Debian's libsqlite3 is)");
  }
  for (const auto& row : stat->rows) {
    const std::string name = row[0].value_or("");
    Object& o = objects[name];
    o.name = name;
    if (o.kind.empty()) {
      o.kind = "schema";
      o.table = name;
    }
    o.pages = Int(row[1]);
    o.bytes = Int(row[2]);
    const bool index_tree = o.kind == "index" || index_trees.count(name) > 0;
    o.rows = Int(row[3]) + (index_tree ? Int(row[4]) : 0);
  }
  // Tables by size, each followed by its indexes by size.
  std::vector<Object> tables;
  for (const auto& [name, o] : objects) {
    if (o.kind != "index") tables.push_back(o);
  }
  auto larger = [](const Object& a, const Object& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.name < b.name;
  };
  std::sort(tables.begin(), tables.end(), larger);
  for (const Object& t : tables) {
    report->objects.push_back(t);
    std::vector<Object> indexes;
    for (const auto& [name, o] : objects) {
      if (o.kind == "index" && o.table == t.name) indexes.push_back(o);
    }
    std::sort(indexes.begin(), indexes.end(), larger);
    report->objects.insert(report->objects.end(), indexes.begin(), indexes.end());
  }
  return Status::Ok();
}

// Rounds holding rows of each per-round table (one index probe per round and table), the
// deployments and their oldest round with full records.
Status ReadRounds(Store& store, Report* report) {
  std::set<std::string> tables;  // have (deployment_id, round)
  for (const Object& o : report->objects) {
    if (o.kind != "table" || o.name == "events") continue;
    Result<QueryResult> columns = Run(store,
                                      "SELECT count(*) FROM pragma_table_info(" + Quoted(o.name) +
                                          ") WHERE name IN ('deployment_id', 'round')");
    if (!columns.ok()) return columns.status();
    if (Int(columns->rows.at(0)[0]) == 2) tables.insert(o.name);
  }
  if (tables.count("rounds") == 0) return Status::Ok();  // not a dede database
  Status status = ScalarInt(store, "SELECT count(*) FROM rounds", &report->rounds);
  if (!status.ok()) return status;
  std::map<std::string, std::int64_t> rounds_of;
  std::string any_full;
  for (const std::string& t : tables) {
    std::int64_t n = report->rounds;
    const std::string exists = "EXISTS (SELECT 1 FROM " + Quoted(t) +
                               " x WHERE x.deployment_id = r.deployment_id AND x.round = r.round)";
    if (t != "rounds") {
      status = ScalarInt(store, "SELECT count(*) FROM rounds r WHERE " + exists, &n);
      if (!status.ok()) return status;
    }
    rounds_of[t] = n;
    if (kFullRecordTables.count(t) > 0) any_full += (any_full.empty() ? "" : " OR ") + exists;
  }
  if (!any_full.empty()) {
    status =
        ScalarInt(store, "SELECT count(*) FROM rounds r WHERE " + any_full, &report->full_rounds);
    if (!status.ok()) return status;
  }
  for (Object& o : report->objects) {
    const auto it = rounds_of.find(o.kind == "index" ? o.table : o.name);
    if (it != rounds_of.end()) o.rounds = it->second;
    const std::string& table = o.kind == "index" ? o.table : o.name;
    if (kKeptTables.count(table) > 0) report->kept_bytes += o.bytes;
    if (kFullRecordTables.count(table) > 0) report->full_bytes += o.bytes;
  }
  Result<QueryResult> deployments =
      Run(store,
          "SELECT d.id, d.name, count(r.round), min(r.round), max(r.round) FROM deployments d"
          " LEFT JOIN rounds r ON r.deployment_id = d.id GROUP BY d.id ORDER BY d.id");
  if (!deployments.ok()) return deployments.status();
  for (const auto& row : deployments->rows) {
    Deployment d;
    d.name = row[1].value_or("");
    d.rounds = Int(row[2]);
    d.first = row[3] ? Int(row[3]) : -1;
    d.last = row[4] ? Int(row[4]) : -1;
    // The oldest round with full records: one index probe per table.
    for (const std::string& t : tables) {
      if (kFullRecordTables.count(t) == 0) continue;
      Result<QueryResult> oldest = Run(
          store,
          "SELECT min(round) FROM " + Quoted(t) + " WHERE deployment_id = " + row[0].value_or("0"));
      if (!oldest.ok()) return oldest.status();
      const auto& cell = oldest->rows.at(0)[0];
      if (cell && (d.oldest_full < 0 || Int(cell) < d.oldest_full)) d.oldest_full = Int(cell);
    }
    report->deployments.push_back(d);
  }
  return Status::Ok();
}

std::string Bytes(double bytes) {
  char text[32];
  if (bytes >= 1e9) {
    std::snprintf(text, sizeof(text), "%.2f GB", bytes / 1e9);
  } else if (bytes >= 1e6) {
    std::snprintf(text, sizeof(text), "%.1f MB", bytes / 1e6);
  } else if (bytes >= 1e3) {
    std::snprintf(text, sizeof(text), "%.1f kB", bytes / 1e3);
  } else {
    std::snprintf(text, sizeof(text), "%.0f B", bytes);
  }
  return text;
}

double PerRound(std::int64_t bytes, std::int64_t rounds) {
  return rounds > 0 ? static_cast<double>(bytes) / static_cast<double>(rounds) : 0.0;
}

void PrintTable(const Report& r, std::ostream& out) {
  const double file = static_cast<double>(r.page_count * r.page_size);
  out << "database " << r.path << ": schema version " << r.schema_version << ", "
      << Bytes(double(r.file_bytes)) << " on disk + WAL " << Bytes(double(r.wal_bytes)) << "; "
      << r.page_count << " pages of " << r.page_size << " bytes, " << r.free_pages << " free ("
      << Bytes(double(r.free_pages * r.page_size)) << "); auto_vacuum " << r.auto_vacuum << "\n";
  for (const Deployment& d : r.deployments) {
    out << "deployment '" << d.name << "': " << d.rounds << " rounds";
    if (d.rounds > 0) out << " (" << d.first << ".." << d.last << ")";
    if (d.oldest_full >= 0) {
      out << ", full records from round " << d.oldest_full << " on";
    } else if (d.rounds > 0) {
      out << ", no full records";
    }
    out << "\n";
  }
  out << "\n";
  char line[256];
  std::snprintf(line,
                sizeof(line),
                "%-34s %-6s %9s %10s %6s %11s %8s %11s\n",
                "object",
                "kind",
                "pages",
                "bytes",
                "share",
                "rows",
                "rounds",
                "bytes/round");
  out << line;
  std::int64_t listed_pages = 0;
  for (const Object& o : r.objects) {
    listed_pages += o.pages;
    const std::string name = o.kind == "index" ? "  " + o.name : o.name;
    const std::string rounds = o.rounds >= 0 ? std::to_string(o.rounds) : "-";
    char per_round[32] = "-";
    if (o.rounds > 0)
      std::snprintf(per_round, sizeof(per_round), "%.0f", PerRound(o.bytes, o.rounds));
    std::snprintf(line,
                  sizeof(line),
                  "%-34s %-6s %9lld %10lld %5.1f%% %11lld %8s %11s\n",
                  name.c_str(),
                  o.kind.c_str(),
                  static_cast<long long>(o.pages),
                  static_cast<long long>(o.bytes),
                  file > 0 ? 100.0 * double(o.bytes) / file : 0.0,
                  static_cast<long long>(o.rows),
                  rounds.c_str(),
                  per_round);
    out << line;
  }
  const std::int64_t other = r.page_count - listed_pages - r.free_pages;
  std::snprintf(line,
                sizeof(line),
                "%-34s %-6s %9lld %10lld %5.1f%%\n%-34s %-6s %9lld %10lld %5.1f%%\n",
                "(free pages)",
                "",
                static_cast<long long>(r.free_pages),
                static_cast<long long>(r.free_pages * r.page_size),
                file > 0 ? 100.0 * double(r.free_pages * r.page_size) / file : 0.0,
                "(pointer map, lock page)",
                "",
                static_cast<long long>(other),
                static_cast<long long>(other * r.page_size),
                file > 0 ? 100.0 * double(other * r.page_size) / file : 0.0);
  out << line;
  if (r.rounds > 0) {
    out << "\nper round: " << Bytes(PerRound(r.kept_bytes, r.rounds))
        << " kept for every round (rounds, metrics, over " << r.rounds << " rounds); "
        << Bytes(PerRound(r.full_bytes, r.full_rounds))
        << " of full records (allocations, entities, entity_parameters, domain_records, over the "
        << r.full_rounds << " rounds holding them), deleted outside storage.retention's window\n";
  }
}

void PrintJson(const Report& r, std::ostream& out) {
  nlohmann::ordered_json j;
  j["database"] = r.path;
  j["schema_version"] = r.schema_version;
  j["file_bytes"] = r.file_bytes;
  j["wal_bytes"] = r.wal_bytes;
  j["page_size"] = r.page_size;
  j["page_count"] = r.page_count;
  j["free_pages"] = r.free_pages;
  j["auto_vacuum"] = r.auto_vacuum;
  j["rounds"] = r.rounds;
  j["full_rounds"] = r.full_rounds;
  j["kept_bytes_per_round"] = PerRound(r.kept_bytes, r.rounds);
  j["full_record_bytes_per_round"] = PerRound(r.full_bytes, r.full_rounds);
  j["deployments"] = nlohmann::ordered_json::array();
  for (const Deployment& d : r.deployments) {
    nlohmann::ordered_json e;
    e["name"] = d.name;
    e["rounds"] = d.rounds;
    e["first_round"] = d.first >= 0 ? nlohmann::ordered_json(d.first) : nullptr;
    e["last_round"] = d.last >= 0 ? nlohmann::ordered_json(d.last) : nullptr;
    e["oldest_full_round"] = d.oldest_full >= 0 ? nlohmann::ordered_json(d.oldest_full) : nullptr;
    j["deployments"].push_back(e);
  }
  j["objects"] = nlohmann::ordered_json::array();
  for (const Object& o : r.objects) {
    nlohmann::ordered_json e;
    e["name"] = o.name;
    e["kind"] = o.kind;
    e["table"] = o.table;
    e["pages"] = o.pages;
    e["bytes"] = o.bytes;
    e["rows"] = o.rows;
    e["rounds"] = o.rounds >= 0 ? nlohmann::ordered_json(o.rounds) : nullptr;
    e["bytes_per_round"] =
        o.rounds > 0 ? nlohmann::ordered_json(PerRound(o.bytes, o.rounds)) : nullptr;
    j["objects"].push_back(e);
  }
  out << j.dump(2) << "\n";
}

Status Vacuum(const StorageRequest& request, std::ostream& out) {
  // The deployment's writer lock: refused while `dede run` writes the database.
  auto lock = internal::WriterLock::Acquire(request.db_path);
  if (!lock.ok()) return lock.status();
  auto store = Store::Open(request.db_path);
  if (!store.ok()) return store.status();
  std::error_code ec;
  const auto before = std::filesystem::file_size(request.db_path, ec);
  Result<std::string> mode = store.value()->AutoVacuumMode();
  if (!mode.ok()) return mode.status();
  out << request.db_path << ": auto_vacuum " << mode.value() << ", " << Bytes(double(before))
      << "; rebuilding it with auto_vacuum incremental (VACUUM)\n";
  out.flush();
  Status status = store.value()->EnableIncrementalVacuum();
  if (!status.ok()) return status;
  const auto after = std::filesystem::file_size(request.db_path, ec);
  out << request.db_path << ": auto_vacuum incremental, " << Bytes(double(after)) << "\n";
  return Status::Ok();
}

}  // namespace

CLI::App* AddStorageCommand(CLI::App* app, StorageRequest* request) {
  CLI::App* storage = app->add_subcommand(
      "storage", "bytes per table, index and round of a deployment database (read-only)");
  storage->add_option("db", request->db_path, "SQLite database")
      ->required()
      ->check(CLI::ExistingFile);
  storage->add_option("--format", request->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  storage->add_flag("--vacuum",
                    request->vacuum,
                    "switch the database to incremental auto-vacuum with one full VACUUM (rewrites "
                    "the file; not while `dede run` writes it)");
  return storage;
}

Status Storage(const StorageRequest& request, std::ostream& out) {
  if (request.format != "table" && request.format != "json") {
    return InvalidArgument("dede storage: --format must be table or json, not '" + request.format +
                           "'");
  }
  if (request.vacuum) return Vacuum(request, out);
  auto store = Store::Open(request.db_path, /*read_only=*/true);
  if (!store.ok()) return store.status();
  Report report;
  report.path = request.db_path;
  Status status = ReadFile(*store.value(), &report);
  if (status.ok()) status = ReadObjects(*store.value(), &report);
  if (status.ok()) status = ReadRounds(*store.value(), &report);
  if (!status.ok()) {
    return Status(status.code(), "dede storage " + request.db_path + ": " + status.message());
  }
  if (request.format == "json") {
    PrintJson(report, out);
  } else {
    PrintTable(report, out);
  }
  return Status::Ok();
}

}  // namespace dede::tools
