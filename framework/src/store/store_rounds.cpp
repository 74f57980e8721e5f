// Store: writing a round (the round row, the allocation as a delta or in full, the plugin's
// records and report), all in one transaction (see store.h), with the retention of older
// rounds' records (store_retention.cpp) in the same transaction.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "store/sqlite.h"
#include "store/store.h"
#include "store/store_impl.h"

namespace dede::internal {
namespace {

// JSON string literal (RFC 8259): quotes, backslash and control characters escaped; the bytes
// must be UTF-8 (SQLite's json_valid rejects the record otherwise, and the round is refused).
void AppendJsonString(std::string_view text, std::string* out) {
  out->push_back('"');
  for (const char c : text) {
    switch (c) {
      case '"':
        *out += "\\\"";
        break;
      case '\\':
        *out += "\\\\";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\r':
        *out += "\\r";
        break;
      case '\t':
        *out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof(buffer), "\\u%04x", static_cast<unsigned>(c));
          *out += buffer;
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

// {"field": value, ..., "label": "text", ...}; non-finite numbers become null, integers print
// without a fraction, other values with 17 significant digits (round-trip exact).
Status RecordJson(const DomainRecord& record, std::string* json) {
  json->clear();
  json->push_back('{');
  std::vector<std::string_view> names;
  bool first = true;
  auto key = [&](const std::string& name) -> Status {
    if (name.empty()) return InvalidArgument("a field has an empty name");
    for (std::string_view seen : names) {
      if (seen == name) return InvalidArgument("field '" + name + "' is given twice");
    }
    names.push_back(name);
    if (!first) json->push_back(',');
    first = false;
    AppendJsonString(name, json);
    json->push_back(':');
    return Status::Ok();
  };
  for (const auto& [name, value] : record.values) {
    if (Status status = key(name); !status.ok()) return status;
    if (!std::isfinite(value)) {
      *json += "null";
    } else if (value == std::floor(value) && std::abs(value) < 9e15) {
      char buffer[32];
      std::snprintf(buffer, sizeof(buffer), "%.0f", value);
      *json += buffer;
    } else {
      char buffer[32];
      std::snprintf(buffer, sizeof(buffer), "%.17g", value);
      *json += buffer;
    }
  }
  for (const auto& [name, text] : record.labels) {
    if (Status status = key(name); !status.ok()) return status;
    AppendJsonString(text, json);
  }
  json->push_back('}');
  return Status::Ok();
}

// Allocation values at or below this magnitude are not stored (store.h: RoundRecord).
constexpr double kZeroTolerance = 1e-12;
// Allocation rows per multi-row INSERT; 2 parameters each, far below SQLite's 32766.
constexpr int kRowsPerInsert = 128;

// INSERT INTO allocations ... VALUES (?1, ?2, ?3, ?4), (?1, ?2, ?5, ?6), ...
const std::string& BatchInsertSql() {
  static const std::string sql = [] {
    std::string text = "INSERT INTO allocations (deployment_id, round, var_id, value) VALUES ";
    for (int k = 0; k < kRowsPerInsert; ++k) {
      if (k > 0) text += ", ";
      text += "(?1, ?2, ?" + std::to_string(3 + 2 * k) + ", ?" + std::to_string(4 + 2 * k) + ")";
    }
    return text;
  }();
  return sql;
}

// The summary uses -1 for "not computed"; the database uses NULL, so AVG() and friends skip it.
void BindMeasured(Statement& statement, int index, double value) {
  if (value < 0) {
    statement.BindNull(index);
  } else {
    statement.Bind(index, value);
  }
}
void BindMeasured(Statement& statement, int index, int value) {
  if (value < 0) {
    statement.BindNull(index);
  } else {
    statement.Bind(index, value);
  }
}
bool IsConstraintError(int code) { return (code & 0xff) == SQLITE_CONSTRAINT; }

}  // namespace

Status Store::Impl::InsertRound(std::int64_t deployment_id,
                                const std::string& name,
                                const RoundRecord& record) {
  const SolveSummary& s = record.summary;
  // clang-format off
  auto insert = db->Prepare(
      "INSERT INTO rounds (deployment_id, round, started_at, solver, method, termination,"
      "                    message, iterations, rho, primal_residual, dual_residual, objective,"
      "                    max_violation, feasible, setup_seconds, solve_seconds, repair_seconds,"
      "                    total_seconds, num_threads, bound, rho_updates, repair_rounds,"
      "                    round_seconds, seed_seconds, fill_seconds, returned, seed_objective,"
      "                    gap)"
      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,"
      "         ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28)");
  if (!insert.ok()) return insert.status();
  insert->Bind(1,  deployment_id)
         .Bind(2,  record.round)
         .Bind(3,  record.started_unix_seconds)
         .Bind(4,  record.solver)
         .Bind(6,  std::string_view(TerminationName(s.termination)))
         .Bind(7,  s.message)
         .Bind(12, s.objective)                       // NaN -> NULL
         .Bind(14, s.feasible ? 1 : 0)
         .Bind(20, s.bound)                           // NaN -> NULL
         .Bind(23, record.round_seconds)              // NaN -> NULL
         .Bind(27, s.seed_objective)                  // NaN -> NULL
         .Bind(28, s.gap);                            // NaN -> NULL
  BindOptionalText(insert.value(), 26, s.returned);
  BindMeasured(insert.value(),     24, s.seed_seconds);
  BindMeasured(insert.value(),     25, s.fill_seconds);
  BindOptionalText(insert.value(), 5,  s.method);
  BindMeasured(insert.value(),     8,  s.iterations);
  BindMeasured(insert.value(),     9,  s.rho);
  BindMeasured(insert.value(),     10, s.primal_residual);
  BindMeasured(insert.value(),     11, s.dual_residual);
  BindMeasured(insert.value(),     13, s.max_violation);
  BindMeasured(insert.value(),     15, s.setup_seconds);
  BindMeasured(insert.value(),     16, s.solve_seconds);
  BindMeasured(insert.value(),     17, s.repair_seconds);
  BindMeasured(insert.value(),     18, s.total_seconds);
  BindMeasured(insert.value(),     19, s.num_threads);
  BindMeasured(insert.value(),     21, s.rho_updates);
  BindMeasured(insert.value(),     22, s.repair_rounds);
  // clang-format on
  Status status = insert->Run();
  if (!status.ok() && IsConstraintError(insert->last_error())) {
    return InvalidArgument("round " + std::to_string(record.round) + " of deployment '" + name +
                           "' was rejected by the schema: " + status.message());
  }
  return status;
}

Status Store::Impl::InsertAllocation(std::int64_t deployment_id,
                                     const std::string& name,
                                     const RoundRecord& record) {
  const auto& allocation = record.allocation;
  const std::string where =
      "round " + std::to_string(record.round) + " of deployment '" + name + "'";
  int catalogue = 0;
  Status status = CatalogueSize(deployment_id, &catalogue);
  if (!status.ok()) return status;
  if (!allocation.empty() && catalogue == 0) {
    return FailedPrecondition(where +
                              ": the deployment has no variable catalogue; call WriteVariables "
                              "before writing rounds");
  }
  // B-tree inserts in key order append to the rightmost leaf; random order touches pages all
  // over the table. Solvers produce VarId order, so the sort is usually skipped.
  std::vector<std::size_t> order;
  const bool sorted =
      std::is_sorted(allocation.begin(), allocation.end(), [](const auto& a, const auto& b) {
        return a.first < b.first;
      });
  if (!sorted) {
    order.resize(allocation.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return allocation[a].first < allocation[b].first;
    });
  }
  // Rows go in batches of kRowsPerInsert per INSERT statement: one statement execution per
  // batch instead of per row roughly halves the time of a 1M-entry round. The deployment and
  // round are bound once (?1, ?2); the remainder uses the single-row statement.
  auto batch = db->Prepare(BatchInsertSql());
  if (!batch.ok()) return batch.status();
  // clang-format off
  auto single = db->Prepare(
      "INSERT INTO allocations (deployment_id, round, var_id, value) VALUES (?1, ?2, ?3, ?4)");
  // clang-format on
  if (!single.ok()) return single.status();
  batch->Bind(1, deployment_id).Bind(2, record.round);
  single->Bind(1, deployment_id).Bind(2, record.round);
  std::array<std::pair<VarId, double>, kRowsPerInsert> pending;
  int in_batch = 0;
  VarId previous = -1;
  for (std::size_t i = 0; i < allocation.size(); ++i) {
    const auto& [v, value] = sorted ? allocation[i] : allocation[order[i]];
    if (std::abs(value) <= kZeroTolerance) continue;
    if (!std::isfinite(value)) {
      return InvalidArgument(where + ": variable " + std::to_string(v) + " has value " +
                             FormatDouble(value));
    }
    if (v < 0 || v >= catalogue) {
      return InvalidArgument(where + ": variable " + std::to_string(v) +
                             " is not in the deployment's catalogue of " +
                             std::to_string(catalogue) + " variables");
    }
    // In key order a repeated variable is adjacent to its first occurrence.
    if (v == previous) {
      return InvalidArgument(where + ": the allocation lists variable " + std::to_string(v) +
                             " more than once");
    }
    previous = v;
    pending[static_cast<std::size_t>(in_batch++)] = {v, value};
    if (in_batch < kRowsPerInsert) continue;
    for (int k = 0; k < kRowsPerInsert; ++k) {
      const auto& [pv, pvalue] = pending[static_cast<std::size_t>(k)];
      batch->Bind(3 + 2 * k, pv).Bind(4 + 2 * k, pvalue);
    }
    status = batch->Run();
    if (!status.ok()) return status;
    in_batch = 0;
  }
  for (int k = 0; k < in_batch; ++k) {  // the last, partial batch
    const auto& [pv, pvalue] = pending[static_cast<std::size_t>(k)];
    single->Bind(3, pv).Bind(4, pvalue);
    status = single->Run();
    if (!status.ok()) return status;
  }
  return Status::Ok();
}

Status Store::Impl::InsertRecords(std::int64_t deployment_id,
                                  const std::string& name,
                                  const RoundRecord& record) {
  if (record.report.records.empty()) return Status::Ok();
  const std::string where =
      "round " + std::to_string(record.round) + " of deployment '" + name + "'";
  // clang-format off
  auto insert = db->Prepare(
      "INSERT INTO domain_records (deployment_id, round, kind, key, data)"
      " VALUES (?1, ?2, ?3, ?4, ?5)");
  // clang-format on
  if (!insert.ok()) return insert.status();
  insert->Bind(1, deployment_id).Bind(2, record.round);
  std::string json;
  for (const DomainRecord& r : record.report.records) {
    if (r.kind.empty()) return InvalidArgument(where + ": a domain record has an empty kind");
    Status status = RecordJson(r, &json);
    if (!status.ok()) {
      return InvalidArgument(where + ": " + r.kind + " '" + r.key + "': " + status.message());
    }
    insert->Reset();
    insert->Bind(3, r.kind).Bind(4, r.key).Bind(5, std::string_view(json));
    status = insert->Run();
    if (!status.ok()) {
      if (IsConstraintError(insert->last_error())) {
        return InvalidArgument(where + ": " + r.kind + " '" + r.key + "' is reported twice");
      }
      return status;
    }
  }
  return Status::Ok();
}

Status Store::Impl::InsertReport(std::int64_t deployment_id,
                                 const std::string& name,
                                 const RoundRecord& record) {
  const std::string where =
      "round " + std::to_string(record.round) + " of deployment '" + name + "'";
  const RoundReport& report = record.report;
  {
    // clang-format off
    auto insert = db->Prepare(
        "INSERT INTO metrics (deployment_id, round, name, value) VALUES (?1, ?2, ?3, ?4)");
    // clang-format on
    if (!insert.ok()) return insert.status();
    insert->Bind(1, deployment_id).Bind(2, record.round);
    for (const Metric& metric : report.metrics) {
      if (metric.name.empty()) return InvalidArgument(where + ": a metric has an empty name");
      insert->Reset();
      insert->Bind(3, metric.name).Bind(4, metric.value);  // NaN -> NULL
      Status status = insert->Run();
      if (!status.ok()) {
        if (IsConstraintError(insert->last_error())) {
          return InvalidArgument(where + ": metric '" + metric.name + "' is reported twice");
        }
        return status;
      }
    }
  }
  // clang-format off
  auto entity = db->Prepare(
      "INSERT INTO entities (deployment_id, round, side, idx, name) VALUES (?1, ?2, ?3, ?4, ?5)");
  auto parameter = db->Prepare(
      "INSERT INTO entity_parameters (deployment_id, round, side, idx, parameter, value)"
      " VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
  // clang-format on
  if (!entity.ok()) return entity.status();
  if (!parameter.ok()) return parameter.status();
  entity->Bind(1, deployment_id).Bind(2, record.round);
  parameter->Bind(1, deployment_id).Bind(2, record.round);
  for (const EntityRecord& e : report.entities) {
    const std::string label = std::string(SideName(e.side)) + " " + std::to_string(e.index);
    if (e.index < 0) return InvalidArgument(where + ": " + label + " has a negative index");
    entity->Reset();
    entity->Bind(3, std::string_view(SideName(e.side))).Bind(4, e.index);
    BindOptionalText(entity.value(), 5, e.name);
    Status status = entity->Run();
    if (!status.ok()) {
      if (IsConstraintError(entity->last_error())) {
        return InvalidArgument(where + ": " + label + " is reported twice");
      }
      return status;
    }
    parameter->Bind(3, std::string_view(SideName(e.side))).Bind(4, e.index);
    for (const auto& [key, value] : e.parameters) {
      if (key.empty()) return InvalidArgument(where + ": a parameter of " + label + " has no name");
      parameter->Reset();
      parameter->Bind(5, key).Bind(6, value);  // NaN -> NULL
      status = parameter->Run();
      if (!status.ok()) {
        if (IsConstraintError(parameter->last_error())) {
          return InvalidArgument(where + ": parameter '" + key + "' of " + label +
                                 " is reported twice");
        }
        return status;
      }
    }
  }
  return Status::Ok();
}

Status Store::WriteRound(std::int64_t deployment_id, const RoundRecord& record) {
  if (record.round < 0) {
    return InvalidArgument("WriteRound: round = " + std::to_string(record.round) + " < 0");
  }
  Impl& impl = *impl_;
  // IMMEDIATE takes the write lock up front, so the round cannot fail half-way for lack of it;
  // any failure below returns early and the destructor rolls everything back.
  Transaction tx(*impl.db, Transaction::kImmediate);
  if (!tx.status().ok()) return tx.status();
  std::string name;
  Status status = impl.DeploymentName(deployment_id, &name);
  if (!status.ok()) return status;
  {
    auto exists = impl.db->Prepare("SELECT 1 FROM rounds WHERE deployment_id = ?1 AND round = ?2");
    if (!exists.ok()) return exists.status();
    exists->Bind(1, deployment_id).Bind(2, record.round);
    bool has_row = false;
    status = exists->Step(&has_row);
    if (!status.ok()) return status;
    if (has_row) {
      return AlreadyExists("round " + std::to_string(record.round) + " of deployment '" + name +
                           "' is already stored in '" + impl.path + "'");
    }
  }
  std::int64_t pages_before = 0;  // for the incremental vacuum's slack
  status = impl.PagesInUse(&pages_before);
  if (!status.ok()) return status;
  status = impl.InsertRound(deployment_id, name, record);
  if (!status.ok()) return status;
  status = impl.InsertAllocation(deployment_id, name, record);
  if (!status.ok()) return status;
  status = impl.InsertReport(deployment_id, name, record);
  if (!status.ok()) return status;
  status = impl.InsertRecords(deployment_id, name, record);
  if (!status.ok()) return status;
  status = impl.MarkEvents(name, record);
  if (!status.ok()) return status;
  if (record.has_state) {
    auto insert = impl.db->Prepare(
        "INSERT INTO plugin_states (deployment_id, round, state) VALUES (?1, ?2, ?3)");
    if (!insert.ok()) return insert.status();
    insert->Bind(1, deployment_id).Bind(2, record.round).BindBlob(3, record.state);
    status = insert->Run();
    if (!status.ok()) return status;
    // Resume needs only the latest checkpoint; older ones are dead weight (a simulator's state
    // can be megabytes per round).
    auto prune =
        impl.db->Prepare("DELETE FROM plugin_states WHERE deployment_id = ?1 AND round < ?2");
    if (!prune.ok()) return prune.status();
    prune->Bind(1, deployment_id).Bind(2, record.round);
    status = prune->Run();
    if (!status.ok()) return status;
  }
  if (impl.keep_allocations_every > 0) {
    // The previous round's allocation is no longer the latest: drop it unless its round is
    // one of the kept ones. Doing this round by round keeps each delete to one round's rows.
    auto previous =
        impl.db->Prepare("SELECT max(round) FROM rounds WHERE deployment_id = ?1 AND round < ?2");
    if (!previous.ok()) return previous.status();
    previous->Bind(1, deployment_id).Bind(2, record.round);
    bool has_row = false;
    status = previous->Step(&has_row);
    if (!status.ok()) return status;
    if (has_row && !previous->IsNull(0)) {
      const std::int64_t prev = previous->ColumnInt64(0);
      if (prev % impl.keep_allocations_every != 0) {
        auto drop =
            impl.db->Prepare("DELETE FROM allocations WHERE deployment_id = ?1 AND round = ?2");
        if (!drop.ok()) return drop.status();
        drop->Bind(1, deployment_id).Bind(2, prev);
        status = drop->Run();
        if (!status.ok()) return status;
      }
    }
  }
  // storage.retention: one bounded slice of old rounds' records, then the incremental vacuum.
  RetentionStats retained = impl.retention_stats;
  status = impl.ApplyRetention(deployment_id, record, pages_before, &retained);
  if (!status.ok()) return status;
  status = tx.Commit();
  if (status.ok()) impl.retention_stats = retained;
  return status;
}

void Store::SetAllocationHistory(int keep_every) {
  impl_->keep_allocations_every = std::max(keep_every, 0);
}

}  // namespace dede::internal
