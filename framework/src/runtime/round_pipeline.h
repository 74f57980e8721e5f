// One round, the path every driver takes (`dede run`, `dede solve`, the benchmarks that go
// through a deployment):
//
//   events -> refresh -> solve -> repair -> measure -> report -> sinks
//
// events   the inbox events due this round, handed to the plugin (the runner's callback)
// refresh  the plugin sets this round's parameters; the problem is validated
// solve    ADMM (warm; the first round may start from the plugin's repair of nothing), a
//          plugin method, or the exact solver
// repair   the plugin's repair of the allocation
// measure  objective and violation of the allocation as it will be recorded, once: ADMM's own
//          measure is kept when the plugin's repair changed nothing (the same functions,
//          admm/measure.h); every method's allocation is judged against the deployment's
//          solver.admm.feasibility_tolerance
// report   the plugin's metrics, entity parameters and records
// sinks    every sink gets the finished round, in the order added (the SQLite store first,
//          then a CSV file: a failing CSV write never costs the stored round; last the log,
//          in `dede run`)
//
// A round whose solve was interrupted, or for which the plugin has no data, reaches no sink.
#pragma once

#include <cstdint>
#include <fstream>
#include <functional>
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
#include "store/store.h"

namespace dede::internal {

// A 64-bit fingerprint of the values' bits and positions (splitmix64 over each word, folded in
// order): two allocations that differ in any bit differ in it but for a 2^-64 chance.
std::uint64_t Fingerprint(const std::vector<double>& values);

struct RoundOutcome {
  int round = -1;
  std::vector<EventOutcome> events;  // the inbox events this round applied or rejected
  bool finished = false;             // the plugin has no data for this round
  bool interrupted = false;          // the stop token fired during the solve: nothing was written
  SolveSummary summary;
  RoundReport report;
  Allocation allocation;
  double seconds = 0;  // wall time of the whole round
};

// Where finished rounds go.
class RoundSink {
 public:
  virtual ~RoundSink() = default;
  // Whether the record must carry the plugin's checkpoint (DomainPlugin::SaveState).
  virtual bool NeedsState() const { return false; }
  virtual Status Write(const RoundRecord& record, const RoundOutcome& outcome) = 0;
};

// The deployment's database: the round, its allocation (non-zero values), report, checkpoint
// and events, in one transaction.
class StoreSink final : public RoundSink {
 public:
  StoreSink(Store* store, std::int64_t deployment_id)
      : store_(store), deployment_id_(deployment_id) {}
  bool NeedsState() const override { return true; }
  Status Write(const RoundRecord& record, const RoundOutcome& outcome) override;

 private:
  Store* store_;
  std::int64_t deployment_id_;
};

// One CSV line per round: the solve's figures, then the plugin's metrics, whose columns are
// those of the first round written (a metric a later round adds goes to the last column,
// `other_metrics`, as name=value pairs, so no figure is dropped).
class CsvSink final : public RoundSink {
 public:
  explicit CsvSink(std::string path) : path_(std::move(path)) {}
  // Creates (truncates) the file: an unwritable path is an error before any round runs.
  Status Open();
  Status Write(const RoundRecord& record, const RoundOutcome& outcome) override;

 private:
  std::string path_;
  std::ofstream out_;
  bool header_written_ = false;
  std::vector<std::string> metric_names_;
};

// The round in the log (runtime/log.h): its events (applied: info; rejected: a warning with the
// reason), one info line with the termination, iterations, objective, violation, round time and
// the plugin's metrics, a warning when the solution is not usable (with the solver's message,
// so `--quiet` still shows it), and with `verbose` the residual trace (info).
class LogSink final : public RoundSink {
 public:
  LogSink(Logger log, bool verbose) : log_(std::move(log)), verbose_(verbose) {}
  Status Write(const RoundRecord& record, const RoundOutcome& outcome) override;

 private:
  Logger log_;
  bool verbose_;
};

class RoundPipeline {
 public:
  struct Parts {
    const DeploymentConfig* config = nullptr;
    DomainPlugin* plugin = nullptr;
    Problem* problem = nullptr;
    AdmmSolver* admm = nullptr;  // when solver.kind is admm
    // DomainPlugin::RepairMakesFeasible, asked once (through the guard) by the runner.
    bool repair_makes_feasible = false;
    // DomainPlugin::RepairIsPure: only then are candidates repaired and compared.
    bool repair_is_pure = true;
    // Calls into the plugin, with what it throws turned into a Status naming the call.
    std::function<Status(const char* what, const std::function<Status()>& call)> guard;
    // The events stage: the due inbox events applied for `round` (may be empty).
    std::function<Status(int round, std::vector<EventOutcome>* outcomes)> apply_events;
  };

  explicit RoundPipeline(Parts parts) : parts_(std::move(parts)) {}
  void AddSink(RoundSink* sink) { sinks_.push_back(sink); }
  // The solver has run or been warm-started once: solver.cold_start is spent.
  void MarkStarted() { admm_started_ = true; }

  // Runs round `round` through every stage.
  Status Run(int round, std::stop_token stop, RoundOutcome* outcome);

 private:
  Status Refresh(int round, RoundOutcome* outcome);
  Status Solve(int round, std::stop_token stop, RoundOutcome* outcome);
  // The plugin's repair, the one measure, the plugin's report.
  Status Complete(int round, RoundOutcome* outcome);
  Status Emit(int round, double started_unix, RoundOutcome* outcome);

  // The round's fallback candidates (ADMM rounds): the plugin's repair of nothing (the first
  // round) and the previous round's allocation repaired to this round's state (later rounds,
  // problems of at most kMaxCandidateVariables). Complete returns the best feasible one of
  // them and the solver's repaired answer, so a round is never worse than its seed.
  struct Candidate {
    const char* name = "";
    std::vector<double> values;
  };
  // Prepares the candidates before the solve (their repairs count against the budget).
  Status PrepareCandidates(const Problem& problem, std::vector<double>* seed);
  // Replaces the solver's answer by a better candidate, if any; records which was returned.
  void ChooseReturned(const Problem& problem, RoundOutcome* outcome);
  static void SetGap(const Problem& problem, SolveSummary* s);
  static constexpr int kMaxCandidateVariables = 8'000'000;

  Parts parts_;
  std::vector<RoundSink*> sinks_;
  std::vector<Candidate> candidates_;
  std::vector<double> previous_;  // the last round's returned allocation (may be empty)
  bool admm_started_ = false;
  // Wall time of the plugin's repair and report in the last round (-1: none yet). The ADMM
  // budget (solver.admm.time_limit_seconds) is the whole round's: the next solve leaves this
  // much of it to them (at most half; a tenth before the first round).
  double last_plugin_seconds_ = -1;
};

}  // namespace dede::internal
