// The event inbox of the store: external writers insert events, the runner reads the pending
// ones at the start of a round and marks them in that round's transaction.
#include <cmath>
#include <string>
#include <vector>

#include "store/sqlite.h"
#include "store/store.h"
#include "store/store_impl.h"

namespace dede::internal {
namespace {

constexpr const char* kEventColumns =
    "id, deployment, kind, target, payload, apply_from_round, apply_after, writer, "
    "submitted_at, status, round, reason, idempotency_key";

EventRow ReadEvent(const Statement& row) {
  EventRow e;
  e.id = row.ColumnInt64(0);
  e.deployment = row.ColumnText(1);
  e.kind = row.ColumnText(2);
  e.target = row.ColumnText(3);
  e.payload = row.ColumnText(4);
  e.apply_from_round = static_cast<int>(row.ColumnInt64(5));
  e.apply_after = row.IsNull(6) ? std::nan("") : row.ColumnDouble(6);
  e.writer = row.ColumnText(7);
  e.submitted_at = row.ColumnDouble(8);
  e.status = row.ColumnText(9);
  e.round = row.IsNull(10) ? -1 : static_cast<int>(row.ColumnInt64(10));
  e.reason = row.ColumnText(11);
  e.idempotency_key = row.ColumnText(12);
  return e;
}

Result<std::vector<EventRow>> ReadEvents(Statement* statement) {
  std::vector<EventRow> events;
  for (;;) {
    bool has_row = false;
    Status status = statement->Step(&has_row);
    if (!status.ok()) return status;
    if (!has_row) break;
    events.push_back(ReadEvent(*statement));
  }
  return events;
}

}  // namespace

// Why `event` cannot be stored ("" if it can); `where` prefixes the message.
std::string Store::Impl::EventProblem(const EventRow& event, const std::string& where) {
  if (event.deployment.empty()) return where + "the deployment name is empty";
  if (event.kind.empty()) return where + "the kind is empty";
  if (event.apply_from_round < 0) {
    return where + "apply_from_round = " + std::to_string(event.apply_from_round) +
           ". Violated constraint: apply_from_round >= 0";
  }
  if (!std::isnan(event.apply_after) && !std::isfinite(event.apply_after)) {
    return where + "apply_after is not a finite time";
  }
  auto check = db->Prepare("SELECT json_valid(?1) AND json_type(?1) = 'object'");
  if (!check.ok()) return check.status().message();
  check->Bind(1, event.payload);
  bool has_row = false;
  Status status = check->Step(&has_row);
  if (!status.ok()) return status.message();
  if (!has_row || check->ColumnInt64(0) != 1) {
    return where + "payload '" + event.payload + "' is not a JSON object";
  }
  return "";
}

namespace {

std::string Describe(const EventRow& e) {
  std::string text = "kind '" + e.kind + "', target '" + e.target + "', payload " + e.payload +
                     ", apply_from_round " + std::to_string(e.apply_from_round);
  if (!std::isnan(e.apply_after)) text += ", apply_after " + FormatDouble(e.apply_after);
  return text;
}

}  // namespace

// The event stored under `event`'s idempotency key: *found false if there is none; an error
// naming both if it differs from `event`.
Status Store::Impl::FindKeyedEvent(const EventRow& event,
                                   const std::string& where,
                                   SubmittedEvent* found) {
  // clang-format off
  auto select = db->Prepare(
      "SELECT id, status, round, kind, target, payload, apply_from_round, apply_after,"
      "       kind = ?3 AND target = ?4 AND payload = json(?5) AND apply_from_round = ?6"
      "       AND apply_after IS ?7"
      " FROM events WHERE deployment = ?1 AND idempotency_key = ?2");
  // clang-format on
  if (!select.ok()) return select.status();
  select->Bind(1, event.deployment).Bind(2, event.idempotency_key).Bind(3, event.kind);
  select->Bind(4, event.target).Bind(5, event.payload).Bind(6, event.apply_from_round);
  select->Bind(7, event.apply_after);  // NaN binds NULL
  bool has_row = false;
  Status status = select->Step(&has_row);
  if (!status.ok() || !has_row) return status;
  found->id = select->ColumnInt64(0);
  found->existing = true;
  found->status = select->ColumnText(1);
  found->round = select->IsNull(2) ? -1 : static_cast<int>(select->ColumnInt64(2));
  if (select->ColumnInt64(8) == 1) return Status::Ok();
  EventRow stored;
  stored.kind = select->ColumnText(3);
  stored.target = select->ColumnText(4);
  stored.payload = select->ColumnText(5);
  stored.apply_from_round = static_cast<int>(select->ColumnInt64(6));
  stored.apply_after = select->IsNull(7) ? std::nan("") : select->ColumnDouble(7);
  return AlreadyExists(where + "idempotency key '" + event.idempotency_key + "' of deployment '" +
                       event.deployment + "' is event " + std::to_string(found->id) + " (" +
                       Describe(stored) + "); this submit has " + Describe(event) +
                       ". A key names one event: use a new key for a different event (nothing "
                       "was written)");
}

Result<std::vector<SubmittedEvent>> Store::SubmitEventsOnce(const std::vector<EventRow>& events) {
  Impl& impl = *impl_;
  if (impl.read_only) return FailedPrecondition("'" + impl.path + "' is open read-only");
  Transaction tx(*impl.db, Transaction::kImmediate);
  if (!tx.status().ok()) return tx.status();
  std::vector<SubmittedEvent> submitted;
  for (std::size_t k = 0; k < events.size(); ++k) {
    const EventRow& event = events[k];
    const std::string where = events.size() > 1 ? "event " + std::to_string(k) + ": " : "event: ";
    if (std::string problem = impl.EventProblem(event, where); !problem.empty()) {
      return InvalidArgument(problem);
    }
    SubmittedEvent& result = submitted.emplace_back();
    if (!event.idempotency_key.empty()) {
      Status status = impl.FindKeyedEvent(event, where, &result);
      if (!status.ok()) return status;
      if (result.existing) continue;
    }
    // clang-format off
    auto insert = impl.db->Prepare(
        "INSERT INTO events (deployment, kind, target, payload, apply_from_round, apply_after,"
        "                    writer, idempotency_key)"
        " VALUES (?1, ?2, ?3, json(?4), ?5, ?6, ?7, ?8)");
    // clang-format on
    if (!insert.ok()) return insert.status();
    insert->Bind(1, event.deployment).Bind(2, event.kind).Bind(3, event.target);
    insert->Bind(4, event.payload).Bind(5, event.apply_from_round);
    insert->Bind(6, event.apply_after).Bind(7, event.writer);  // NaN binds NULL
    BindOptionalText(insert.value(), 8, event.idempotency_key);
    Status status = insert->Run();
    if (!status.ok()) return status;
    result.id = impl.db->LastInsertRowId();
    result.status = "pending";
  }
  Status status = tx.Commit();
  if (!status.ok()) return status;
  return submitted;
}

Result<std::vector<std::int64_t>> Store::SubmitEvents(const std::vector<EventRow>& events) {
  Result<std::vector<SubmittedEvent>> submitted = SubmitEventsOnce(events);
  if (!submitted.ok()) return submitted.status();
  std::vector<std::int64_t> ids;
  for (const SubmittedEvent& event : submitted.value()) ids.push_back(event.id);
  return ids;
}

Result<std::int64_t> Store::SubmitEvent(const EventRow& event) {
  Result<std::vector<std::int64_t>> ids = SubmitEvents({event});
  if (!ids.ok()) return ids.status();
  return ids->front();
}

Result<std::vector<std::string>> Store::DeploymentNames() {
  auto select = impl_->db->Prepare("SELECT name FROM deployments ORDER BY name");
  if (!select.ok()) return select.status();
  std::vector<std::string> names;
  for (;;) {
    bool has_row = false;
    Status status = select->Step(&has_row);
    if (!status.ok()) return status;
    if (!has_row) break;
    names.push_back(select->ColumnText(0));
  }
  return names;
}

// The inbox's due events: the same condition for reading them and for counting the backlog
// (README's events section gives it for /metrics).
constexpr const char* kDueEvents =
    " FROM events WHERE deployment = ?1 AND status = 'pending' AND apply_from_round <= ?2 "
    "AND (apply_after IS NULL OR apply_after <= ?3)";

Result<std::vector<EventRow>> Store::PendingEvents(const std::string& deployment,
                                                   int round,
                                                   double now,
                                                   int limit) {
  // LIMIT -1: all of them. The oldest first, so a capped round leaves the newest for later.
  auto select = impl_->db->Prepare(std::string("SELECT ") + kEventColumns + kDueEvents +
                                   " ORDER BY id LIMIT ?4");
  if (!select.ok()) return select.status();
  select->Bind(1, deployment).Bind(2, round).Bind(3, now).Bind(4, limit > 0 ? limit : -1);
  return ReadEvents(&select.value());
}

Result<std::int64_t> Store::CountPendingEvents(const std::string& deployment,
                                               int round,
                                               double now) {
  auto count = impl_->db->Prepare(std::string("SELECT count(*)") + kDueEvents);
  if (!count.ok()) return count.status();
  count->Bind(1, deployment).Bind(2, round).Bind(3, now);
  bool has_row = false;
  Status status = count->Step(&has_row);
  if (!status.ok()) return status;
  return has_row ? count->ColumnInt64(0) : 0;
}

Result<std::vector<EventRow>> Store::AppliedEvents(const std::string& deployment, int last_round) {
  auto select = impl_->db->Prepare(
      std::string("SELECT ") + kEventColumns +
      " FROM events WHERE deployment = ?1 AND status = 'applied' AND round <= ?2 "
      "ORDER BY round, id");
  if (!select.ok()) return select.status();
  select->Bind(1, deployment).Bind(2, last_round);
  return ReadEvents(&select.value());
}

Status Store::Impl::MarkEvents(const std::string& name, const RoundRecord& record) {
  if (record.events.empty()) return Status::Ok();
  auto update = db->Prepare(
      "UPDATE events SET status = ?1, round = ?2, reason = ?3 "
      "WHERE id = ?4 AND deployment = ?5 AND status = 'pending'");
  if (!update.ok()) return update.status();
  for (const EventOutcome& outcome : record.events) {
    update->Bind(1, std::string(outcome.applied ? "applied" : "rejected"));
    update->Bind(2, record.round);
    if (outcome.applied) {
      update->BindNull(3);
    } else {
      update->Bind(3, outcome.reason.empty() ? std::string("rejected") : outcome.reason);
    }
    update->Bind(4, outcome.id).Bind(5, name);
    Status status = update->Run();
    if (!status.ok()) return status;
    if (db->Changes() != 1) {
      return FailedPrecondition("event " + std::to_string(outcome.id) + " of deployment '" + name +
                                "' is no longer pending in '" + path +
                                "' (another runner took it?); round " +
                                std::to_string(record.round) + " was not written");
    }
  }
  return Status::Ok();
}

}  // namespace dede::internal
