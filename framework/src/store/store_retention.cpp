// Store: retention of full round records (storage.retention) and incremental vacuum.
//
// Each round's transaction (WriteRound) deletes the per-round bulk of old rounds outside the
// window: allocations, entities, entity parameters and domain records. The `rounds` row (and so
// round_summary), the metrics, the variable catalogue, the events and the latest plugin
// checkpoint stay: they are what a resumed run reads (LoadLastRound: the latest round's
// allocation and checkpoint; AppliedEvents) and what the history of a deployment is made of.
//
// One transaction deletes one bounded slice, oldest round first: whole rounds, at most
// max_rounds_per_write of them, and no further round once its row budget is spent; a backlog
// (retention switched on over a long history) is worked off over the following rounds. Where
// the next slice starts is read from the data (the oldest round that still has rows in a bulk
// table: one index probe per table), so a resumed or crashed run continues exactly where the
// committed state says, with nothing to remember between runs.
//
// Pages freed by the deletes are reused by later rounds; on a database with auto_vacuum =
// INCREMENTAL the free pages beyond a slack (about two rounds' worth) also go back to the file
// system, at most vacuum_pages_per_write per round, so the file shrinks after a catch-up.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "store/sqlite.h"
#include "store/store.h"
#include "store/store_impl.h"

namespace dede::internal {
namespace {

// The per-round tables whose rows retention deletes, children before parents (each row of
// entity_parameters belongs to an entities row).
constexpr const char* kBulkTables[] = {
    "entity_parameters", "entities", "domain_records", "allocations"};

// Rows the round itself wrote (an estimate of its write cost, for the delete budget).
std::int64_t RowsWritten(const RoundRecord& record) {
  std::int64_t rows = 1 + static_cast<std::int64_t>(record.allocation.size()) +
                      static_cast<std::int64_t>(record.report.metrics.size()) +
                      static_cast<std::int64_t>(record.report.records.size());
  for (const EntityRecord& e : record.report.entities) {
    rows += 1 + static_cast<std::int64_t>(e.parameters.size());
  }
  return rows;
}

}  // namespace

Status Store::Impl::PragmaInt(const std::string& pragma, std::int64_t* value) {
  auto statement = db->Prepare("PRAGMA " + pragma);
  if (!statement.ok()) return statement.status();
  bool has_row = false;
  Status status = statement->Step(&has_row);
  if (!status.ok()) return status;
  *value = has_row ? statement->ColumnInt64(0) : 0;
  return Status::Ok();
}

Status Store::Impl::PagesInUse(std::int64_t* pages) {
  *pages = 0;
  if (auto_vacuum != 2) return Status::Ok();  // only the vacuum step uses it
  std::int64_t count = 0, free_pages = 0;
  Status status = PragmaInt("page_count", &count);
  if (!status.ok()) return status;
  status = PragmaInt("freelist_count", &free_pages);
  if (!status.ok()) return status;
  *pages = count - free_pages;
  return Status::Ok();
}

Status Store::Impl::ApplyRetention(std::int64_t deployment_id,
                                   const RoundRecord& record,
                                   std::int64_t pages_before,
                                   RetentionStats* stats) {
  const RetentionPolicy& policy = retention;
  // The pages the round's own rows took (before any are freed below): the vacuum's slack.
  std::int64_t round_pages = 0;
  if (auto_vacuum == 2) {
    Status status = PagesInUse(&round_pages);
    if (!status.ok()) return status;
    round_pages = std::max<std::int64_t>(0, round_pages - pages_before);
  }
  if (policy.enabled()) {
    ++stats->writes;
    stats->behind = false;
    // The oldest round that still holds full records: one index probe per bulk table (every
    // one's key starts with (deployment_id, round)).
    std::int64_t oldest = std::numeric_limits<std::int64_t>::max();
    for (const char* table : kBulkTables) {
      auto probe =
          db->Prepare(std::string("SELECT min(round) FROM ") + table + " WHERE deployment_id = ?1");
      if (!probe.ok()) return probe.status();
      probe->Bind(1, deployment_id);
      bool has_row = false;
      Status status = probe->Step(&has_row);
      if (!status.ok()) return status;
      if (has_row && !probe->IsNull(0)) oldest = std::min(oldest, probe->ColumnInt64(0));
    }
    // The candidates: the rounds from the oldest full one up to (not including) this round.
    struct Candidate {
      std::int64_t round;
      double started_at;
    };
    std::vector<Candidate> candidates;
    if (oldest < record.round) {
      auto rounds = db->Prepare(
          "SELECT round, started_at FROM rounds WHERE deployment_id = ?1 AND round >= ?2"
          " AND round < ?3 ORDER BY round LIMIT ?4");
      if (!rounds.ok()) return rounds.status();
      rounds->Bind(1, deployment_id)
          .Bind(2, oldest)
          .Bind(3, record.round)
          .Bind(4, policy.max_rounds_per_write + 1);
      for (;;) {
        bool has_row = false;
        Status status = rounds->Step(&has_row);
        if (!status.ok()) return status;
        if (!has_row) break;
        candidates.push_back({rounds->ColumnInt64(0), rounds->ColumnDouble(1)});
      }
    }
    // A round is outside the window when either limit says so (the stricter one wins): its
    // number is at most latest - keep_rounds, or it started more than keep_days before the
    // latest round. Rounds go oldest first and the first one inside the window ends the slice
    // (a clock that stepped back keeps more, never less).
    const std::int64_t last_by_count = policy.keep_rounds > 0
                                           ? std::int64_t{record.round} - policy.keep_rounds
                                           : std::numeric_limits<std::int64_t>::min();
    const double horizon = policy.keep_days > 0
                               ? record.started_unix_seconds - policy.keep_days * 86400.0
                               : -std::numeric_limits<double>::infinity();
    const std::int64_t budget =
        std::max<std::int64_t>(policy.min_rows_per_write, 2 * RowsWritten(record));
    std::int64_t deleted = 0;
    int pruned = 0;
    stats->oldest_full_round = record.round;
    for (const Candidate& c : candidates) {
      const bool outside = c.round <= last_by_count || c.started_at < horizon;
      if (!outside) {
        stats->oldest_full_round = static_cast<int>(c.round);
        break;
      }
      if (pruned >= policy.max_rounds_per_write || deleted >= budget) {
        stats->oldest_full_round = static_cast<int>(c.round);
        stats->behind = true;
        break;
      }
      for (const char* table : kBulkTables) {
        auto drop = db->Prepare(std::string("DELETE FROM ") + table +
                                " WHERE deployment_id = ?1 AND round = ?2");
        if (!drop.ok()) return drop.status();
        drop->Bind(1, deployment_id).Bind(2, c.round);
        Status status = drop->Run();
        if (!status.ok()) return status;
        deleted += db->Changes();
      }
      ++pruned;
      stats->last_pruned_round = static_cast<int>(c.round);
    }
    stats->rounds_pruned += pruned;
    stats->rows_deleted += deleted;
  }
  if (auto_vacuum != 2) return Status::Ok();
  // Incremental vacuum: keep about two rounds' pages free for the next rounds to reuse, give
  // the rest back (bounded per round).
  std::int64_t free_pages = 0;
  Status status = PragmaInt("freelist_count", &free_pages);
  if (!status.ok()) return status;
  const std::int64_t slack = std::max<std::int64_t>(retention.slack_pages, 2 * round_pages);
  if (free_pages <= slack) return Status::Ok();
  const std::int64_t step =
      std::min<std::int64_t>(free_pages - slack, retention.vacuum_pages_per_write);
  status = db->Exec("PRAGMA incremental_vacuum(" + std::to_string(step) + ")",
                    "returning free pages to the file system");
  if (!status.ok()) return status;
  std::int64_t after = 0;
  status = PragmaInt("freelist_count", &after);
  if (!status.ok()) return status;
  stats->pages_vacuumed += free_pages - after;
  return Status::Ok();
}

void Store::SetRetention(const RetentionPolicy& policy) {
  RetentionPolicy& p = impl_->retention;
  p = policy;
  p.keep_rounds = std::max(p.keep_rounds, 0);
  p.keep_days = std::isfinite(p.keep_days) ? std::max(p.keep_days, 0.0) : 0.0;
  p.max_rounds_per_write = std::max(p.max_rounds_per_write, 1);
  p.min_rows_per_write = std::max(p.min_rows_per_write, 1);
  p.slack_pages = std::max(p.slack_pages, 0);
  p.vacuum_pages_per_write = std::max(p.vacuum_pages_per_write, 1);
}

const RetentionStats& Store::retention_stats() const { return impl_->retention_stats; }

Result<std::string> Store::AutoVacuumMode() {
  std::int64_t mode = 0;
  Status status = impl_->PragmaInt("auto_vacuum", &mode);
  if (!status.ok()) return status;
  switch (mode) {
    case 0:
      return std::string("none");
    case 1:
      return std::string("full");
    case 2:
      return std::string("incremental");
    default:
      return std::string("unknown (") + std::to_string(mode) + ")";
  }
}

Status Store::EnableIncrementalVacuum() {
  Impl& impl = *impl_;
  if (impl.read_only) {
    return FailedPrecondition("database '" + impl.path + "' is open read-only");
  }
  Status status = impl.db->Exec("PRAGMA auto_vacuum = INCREMENTAL", "setting auto_vacuum");
  if (!status.ok()) return status;
  // The mode of an existing file changes only by rebuilding it.
  status = impl.db->Exec("VACUUM", "rebuilding the database (VACUUM)");
  if (!status.ok()) return status;
  // The rebuild went through the WAL, which is now as large as the file: empty it.
  status = impl.db->Exec("PRAGMA wal_checkpoint(TRUNCATE)", "checkpointing the WAL");
  if (!status.ok()) return status;
  std::int64_t mode = 0;
  status = impl.PragmaInt("auto_vacuum", &mode);
  if (!status.ok()) return status;
  impl.auto_vacuum = static_cast<int>(mode);
  if (mode != 2) {
    return Internal("database '" + impl.path + "': auto_vacuum is " + std::to_string(mode) +
                    " after VACUUM, expected 2 (incremental)");
  }
  return Status::Ok();
}

}  // namespace dede::internal
