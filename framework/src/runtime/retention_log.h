// The runner's side of storage.retention (store/store_retention.cpp does the work): the policy
// and the database's auto_vacuum mode at start, and what retention did while the deployment
// runs, as log lines.
#pragma once

#include <chrono>

#include "config/deployment.h"
#include "runtime/log.h"
#include "store/store.h"

namespace dede::internal {

// A database larger than this is not switched to incremental auto-vacuum at start (a full
// VACUUM rewrites the file); the log says how to do it (`dede storage DB --vacuum`).
inline constexpr std::int64_t kAutoSwitchVacuumBytes = 64ll << 20;

class RetentionLog {
 public:
  // Hands the deployment's storage.retention to the store and logs it. With retention on, a
  // database created before incremental auto-vacuum (auto_vacuum none) is switched with one
  // VACUUM when it is at most kAutoSwitchVacuumBytes (logged with its size and time); a larger
  // one is left as it is, with a warning naming the command that switches it: its freed pages
  // are still reused by later rounds, so it stops growing, but it does not shrink.
  Status Start(const DeploymentConfig& config, Store* store, const Logger& log);
  // After a committed round: the first rounds pruned, then at most one line per
  // kReportSeconds with what was pruned since the last line, and a line when a backlog is
  // worked off.
  void AfterRound(const RetentionStats& stats, const Logger& log);

  static constexpr double kReportSeconds = 600;

 private:
  RetentionStats reported_;
  std::chrono::steady_clock::time_point last_line_{};
  bool enabled_ = false;
  bool behind_ = false;
};

}  // namespace dede::internal
