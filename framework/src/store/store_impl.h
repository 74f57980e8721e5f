// The store's private state, shared by its source files (store.cpp: opening, deployments,
// catalogue, queries; store_rounds.cpp: writing a round; store_events.cpp: the event inbox).
// Not part of any public interface.
#pragma once

#include <charconv>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "store/sqlite.h"
#include "store/store.h"

namespace dede::internal {

using sqlite::Database;
using sqlite::Statement;
using sqlite::Transaction;

struct Store::Impl {
  std::unique_ptr<Database> db;
  std::string path;
  bool read_only = false;
  int schema_version = 0;
  // Size of each deployment's variable catalogue; it never changes once written.
  std::unordered_map<std::int64_t, int> catalogue_sizes;
  int keep_allocations_every = 0;  // SetAllocationHistory
  RetentionPolicy retention;       // SetRetention (store_retention.cpp)
  RetentionStats retention_stats;  // committed rounds only
  int auto_vacuum = 0;             // PRAGMA auto_vacuum: 0 none, 1 full, 2 incremental

  Status ApplyMigrations();
  // "deployment 'name'"; NotFound if the id does not exist.
  Status DeploymentName(std::int64_t deployment_id, std::string* name);
  Status CatalogueSize(std::int64_t deployment_id, int* size);
  Status CheckCatalogue(std::int64_t deployment_id,
                        const std::string& name,
                        const Problem& problem,
                        int stored);
  Status InsertCatalogue(std::int64_t deployment_id, const Problem& problem);
  Status InsertRound(std::int64_t deployment_id,
                     const std::string& name,
                     const RoundRecord& record);
  Status InsertAllocation(std::int64_t deployment_id,
                          const std::string& name,
                          const RoundRecord& record);
  Status InsertReport(std::int64_t deployment_id,
                      const std::string& name,
                      const RoundRecord& record);
  Status InsertRecords(std::int64_t deployment_id,
                       const std::string& name,
                       const RoundRecord& record);
  // Marks the round's events applied or rejected (store_events.cpp); fails if one of them is
  // no longer pending (another writer took it), which rolls the whole round back.
  Status MarkEvents(const std::string& name, const RoundRecord& record);
  // store_events.cpp: why an event cannot be stored ("" if it can); the event stored under an
  // event's idempotency key (found->existing), or an error naming both if they differ.
  std::string EventProblem(const EventRow& event, const std::string& where);
  Status FindKeyedEvent(const EventRow& event, const std::string& where, SubmittedEvent* found);
  // --- Retention (store_retention.cpp), inside WriteRound's transaction ---
  // Pages in use (page_count - freelist_count) before the round's rows go in.
  Status PagesInUse(std::int64_t* pages);
  // Deletes the full records of old rounds outside the window (one bounded slice), then
  // returns free pages to the file system; counts into *stats (kept only if the round commits).
  Status ApplyRetention(std::int64_t deployment_id,
                        const RoundRecord& record,
                        std::int64_t pages_before,
                        RetentionStats* stats);
  Status PragmaInt(const std::string& pragma, std::int64_t* value);
};

// Helpers of more than one of the store's files.
inline const char* SideName(Side side) { return side == Side::kResource ? "resource" : "demand"; }

inline void BindOptionalText(Statement& statement, int index, const std::string& value) {
  if (value.empty()) {
    statement.BindNull(index);
  } else {
    statement.Bind(index, value);
  }
}

// Shortest text that reads back as the same double ("0.1", "1e-05", "inf").
inline std::string FormatDouble(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

}  // namespace dede::internal
