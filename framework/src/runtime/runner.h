// The deployment loop (runner.cpp): one of the two places that use Boost.Asio, with the HTTP
// endpoint (http_server.cpp), which serves on threads of its own.
//
// Rounds run on a steady timer at the configured interval, each through the RoundPipeline
// (round_pipeline.h: events -> refresh -> solve -> repair -> measure -> report -> sinks, the
// last of which is the log: runtime/log.h).
// Rounds never overlap (the next one is scheduled when the current one has finished). A round
// that outlasts the interval either skips the ticks it missed or starts the next round at
// once (schedule.overrun). SIGINT / SIGTERM stop cleanly: a round whose solve was interrupted
// is not written; a round being written commits whole (one transaction). After any stop,
// including kill -9, the next run resumes from the database: the round counter continues after
// the last committed round and the solver warm-starts from its allocation.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "config/deployment.h"
#include "dede/host_solvers.h"
#include "dede/plugin.h"
#include "dede/solver.h"
#include "dede/status.h"
#include "runtime/log.h"
#include "runtime/rank_share.h"
#include "runtime/retention_log.h"
#include "runtime/round_pipeline.h"
#include "store/store.h"

namespace dede::internal {

struct RunnerOptions {
  bool verbose = false;       // log each round's residual trace
  bool persist = true;        // false: `dede solve` (nothing is written)
  int max_rounds = -1;        // this run's rounds, when >= 0 (stop.max_rounds is kept as well)
  std::string csv_path = {};  // also write each round's figures here (CsvSink), if set
  // The log's lines (rounds, resume, recommended settings, the HTTP endpoint, signals,
  // overruns) go here, in the log's format at info level, instead of to the process log
  // (runtime/log.h) when set. Must outlive the runner.
  std::ostream* log = nullptr;
  // `dede run` under mpirun (mpi/world.h): rank 0 reads the database and runs the round loop;
  // every other process (no store) takes the resume point, the events and the rounds to run
  // from it (rank_share.h), and Run follows rank 0's rounds.
  bool distributed = false;
};

struct RunSummary {
  int first_round = -1;  // first round run by this invocation
  int last_round = -1;   // last committed round
  int rounds_run = 0;
  int rounds_skipped = 0;  // ticks skipped because a round outlasted the interval
  bool interrupted = false;
  std::string stop_reason;
};

class Runner {
 public:
  Runner(const DeploymentConfig& config,
         DomainPlugin* plugin,
         std::string plugin_version,
         Store* store,
         RunnerOptions options);
  ~Runner();

  // Configure + Describe the plugin, build the solver, register the deployment and its
  // variables, and restore the last committed round (round counter and warm start).
  Status Setup();
  int next_round() const { return next_round_; }
  // `dede solve --round N`: solve another round than the next one (nothing is persisted).
  void set_next_round(int round) { next_round_ = round; }
  const Problem& problem() const { return *problem_; }

  // One round through the RoundPipeline, synchronously. Persists it unless options.persist is
  // false.
  Status RunRound(std::stop_token stop, RoundOutcome* outcome);

  // The timer-driven loop until the stopping rule, the plugin's end of data, or a signal.
  Result<RunSummary> Run();

 private:
  Status GuardPlugin(const char* what, const std::function<Status()>& call);
  Status RegisterDeployment(ResumePoint* resume);
  Status Resume(const ResumePoint& resume);
  // A process other than rank 0 under mpirun: the rounds rank 0 runs, until it stops.
  Result<RunSummary> Follow();
  Status BuildPipeline();
  Status ApplyRecommendedSettings();
  // Hands one inbox event to the plugin; *outcome says applied or rejected (and why).
  Status ApplyEvent(const EventRow& row, bool replay, int round, EventOutcome* outcome);
  // Before Refresh(round): the deployment's pending events that are due, in inbox order.
  Status ApplyPendingEvents(int round, std::vector<EventOutcome>* outcomes);

  DeploymentConfig config_;  // a copy: the plugin's recommended settings are applied to it
  DomainPlugin* plugin_;
  std::string plugin_version_;
  Store* store_;
  RunnerOptions options_;
  std::unique_ptr<Problem> problem_;
  std::unique_ptr<AdmmSolver> admm_;
  std::unique_ptr<StoreSink> store_sink_;
  std::unique_ptr<CsvSink> csv_sink_;
  std::unique_ptr<LogSink> log_sink_;  // added by Run (`dede solve` logs no round line)
  std::unique_ptr<RoundPipeline> pipeline_;
  std::int64_t deployment_id_ = -1;
  int next_round_ = 0;
  Logger log_;
  RetentionLog retention_log_;  // storage.retention's log lines
};

}  // namespace dede::internal
