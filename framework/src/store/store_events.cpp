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
    "submitted_at, status, round, reason";

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

Result<std::vector<std::int64_t>> Store::SubmitEvents(const std::vector<EventRow>& events) {
  Impl& impl = *impl_;
  if (impl.read_only) return FailedPrecondition("'" + impl.path + "' is open read-only");
  Transaction tx(*impl.db, Transaction::kImmediate);
  if (!tx.status().ok()) return tx.status();
  std::vector<std::int64_t> ids;
  for (std::size_t k = 0; k < events.size(); ++k) {
    const EventRow& event = events[k];
    const std::string where = events.size() > 1 ? "event " + std::to_string(k) + ": " : "event: ";
    if (event.deployment.empty()) return InvalidArgument(where + "the deployment name is empty");
    if (event.kind.empty()) return InvalidArgument(where + "the kind is empty");
    if (event.apply_from_round < 0) {
      return InvalidArgument(where +
                             "apply_from_round = " + std::to_string(event.apply_from_round) +
                             ". Violated constraint: apply_from_round >= 0");
    }
    if (!std::isnan(event.apply_after) && !std::isfinite(event.apply_after)) {
      return InvalidArgument(where + "apply_after is not a finite time");
    }
    auto check = impl.db->Prepare("SELECT json_valid(?1) AND json_type(?1) = 'object'");
    if (!check.ok()) return check.status();
    check->Bind(1, event.payload);
    bool has_row = false;
    Status status = check->Step(&has_row);
    if (!status.ok()) return status;
    if (!has_row || check->ColumnInt64(0) != 1) {
      return InvalidArgument(where + "payload '" + event.payload + "' is not a JSON object");
    }
    auto insert = impl.db->Prepare(
        "INSERT INTO events (deployment, kind, target, payload, apply_from_round, apply_after, "
        "writer) VALUES (?1, ?2, ?3, json(?4), ?5, ?6, ?7)");
    if (!insert.ok()) return insert.status();
    insert->Bind(1, event.deployment).Bind(2, event.kind).Bind(3, event.target);
    insert->Bind(4, event.payload).Bind(5, event.apply_from_round);
    if (std::isnan(event.apply_after)) {
      insert->BindNull(6);
    } else {
      insert->Bind(6, event.apply_after);
    }
    insert->Bind(7, event.writer);
    status = insert->Run();
    if (!status.ok()) return status;
    ids.push_back(impl.db->LastInsertRowId());
  }
  Status status = tx.Commit();
  if (!status.ok()) return status;
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

Result<std::vector<EventRow>> Store::PendingEvents(const std::string& deployment,
                                                   int round,
                                                   double now) {
  auto select = impl_->db->Prepare(
      std::string("SELECT ") + kEventColumns +
      " FROM events WHERE deployment = ?1 AND status = 'pending' AND apply_from_round <= ?2 "
      "AND (apply_after IS NULL OR apply_after <= ?3) ORDER BY id");
  if (!select.ok()) return select.status();
  select->Bind(1, deployment).Bind(2, round).Bind(3, now);
  return ReadEvents(&select.value());
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
