#include "runtime/retention_log.h"

#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>

namespace dede::internal {
namespace {

std::string Megabytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f MB", bytes / 1e6);
  return text;
}

std::string Window(const DeploymentConfig& config) {
  std::string text;
  if (config.retention_keep_rounds > 0) {
    text = "the last " + std::to_string(config.retention_keep_rounds) + " rounds";
  }
  if (config.retention_keep_days > 0) {
    char days[48];
    std::snprintf(days, sizeof(days), "%g days", config.retention_keep_days);
    text += text.empty() ? std::string("the rounds of the last ") + days
                         : std::string(" within the last ") + days;
  }
  return text;
}

}  // namespace

Status RetentionLog::Start(const DeploymentConfig& config, Store* store, const Logger& log) {
  RetentionPolicy policy;
  policy.keep_rounds = config.retention_keep_rounds;
  policy.keep_days = config.retention_keep_days;
  store->SetRetention(policy);
  enabled_ = policy.enabled();
  last_line_ = std::chrono::steady_clock::now();
  if (!enabled_) return Status::Ok();
  Result<std::string> mode = store->AutoVacuumMode();
  if (!mode.ok()) return mode.status();
  const bool memory = config.database == ":memory:";
  std::error_code ec;
  const std::int64_t bytes =
      memory ? 0 : static_cast<std::int64_t>(std::filesystem::file_size(config.database, ec));
  if (!memory && !ec && mode.value() == "none") {
    if (bytes <= kAutoSwitchVacuumBytes) {
      log.Info("storage retention: switching " + config.database +
               " to incremental auto-vacuum (one VACUUM of " + Megabytes(double(bytes)) +
               ") so that pruned pages go back to the file system");
      const auto start = std::chrono::steady_clock::now();
      Status status = store->EnableIncrementalVacuum();
      if (!status.ok()) return status;
      char took[32];
      std::snprintf(
          took,
          sizeof(took),
          "%.1f s",
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      log.Info(std::string("storage retention: VACUUM done in ") + took);
      mode = std::string("incremental");
    } else {
      log.Warn("storage retention: " + config.database + " (" + Megabytes(double(bytes)) +
               ") was created without incremental auto-vacuum: pruned pages are reused by "
               "later rounds, so the file stops growing, but it will not shrink. To let it "
               "shrink, stop the deployment and run `dede storage " +
               config.database +
               " --vacuum` once (a full VACUUM: it rewrites the file and "
               "needs as much free disk again)");
    }
  }
  log.Info(
      "storage retention: full records (allocation, entities, parameters, domain "
      "records) of " +
      Window(config) + "; older rounds keep their summary and metrics (auto_vacuum " +
      mode.value() + ")");
  return Status::Ok();
}

void RetentionLog::AfterRound(const RetentionStats& stats, const Logger& log) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  const bool first = reported_.rounds_pruned == 0 && stats.rounds_pruned > 0;
  const bool caught_up = behind_ && !stats.behind;
  const bool due = std::chrono::duration<double>(now - last_line_).count() >= kReportSeconds &&
                   (stats.rounds_pruned > reported_.rounds_pruned ||
                    stats.pages_vacuumed > reported_.pages_vacuumed);
  behind_ = stats.behind;
  if (!first && !caught_up && !due) return;
  const std::int64_t rounds = stats.rounds_pruned - reported_.rounds_pruned;
  const std::int64_t rows = stats.rows_deleted - reported_.rows_deleted;
  const std::int64_t pages = stats.pages_vacuumed - reported_.pages_vacuumed;
  std::string line = "storage retention: " + std::to_string(rounds) +
                     (rounds == 1 ? " round" : " rounds") + " pruned (" + std::to_string(rows) +
                     " rows deleted, " + std::to_string(pages) +
                     " pages returned to the file system)";
  if (!first) {
    char minutes[32];
    std::snprintf(minutes,
                  sizeof(minutes),
                  "%.0f min",
                  std::chrono::duration<double>(now - last_line_).count() / 60);
    line += std::string(" in the last ") + minutes;
  }
  line += "; full records from round " + std::to_string(stats.oldest_full_round) + " on";
  if (stats.behind) line += "; catching up (a bounded slice per round)";
  if (caught_up) line += "; caught up";
  log.Info(line);
  reported_ = stats;
  last_line_ = now;
}

}  // namespace dede::internal
