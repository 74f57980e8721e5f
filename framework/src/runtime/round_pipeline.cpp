#include "runtime/round_pipeline.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>

#include "admm/measure.h"
#include "dede/host_solvers.h"
#include "runtime/clock.h"
#include "runtime/solver_services.h"

namespace dede::internal {
namespace {

// Shortest text that reads back as the same double; empty for "not measured" (NaN).
std::string CsvNumber(double value) { return std::isnan(value) ? "" : FormatNumber(value); }

// A CSV field: quoted when it holds a separator, a quote or a line break.
std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

// One number at the log's fixed precision.
std::string Printf(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

// The round time's split for the log line: " (seed a, solve b, fill c, repair d)", the parts
// measured; then the engine's build when this round reports it (the deployment's set-up, done
// once before the first round and not part of its time).
std::string TimeSplit(const SolveSummary& s) {
  std::string out;
  const auto part = [&](const char* name, double seconds) {
    if (!(seconds > 0)) return;
    out += (out.empty() ? " (" : ", ") + std::string(name) + " " + Printf("%.3f", seconds);
  };
  // ADMM's set-up is the engine's build, done once per deployment before the first round; the
  // other methods build their model inside the round.
  const bool once = s.method == "admm";
  if (!once) part("set-up", s.setup_seconds);
  part("seed", s.seed_seconds);
  part("solve", s.solve_seconds);
  part("fill", s.fill_seconds);
  part("repair", s.repair_seconds);
  if (!out.empty()) out += ")";
  if (once && s.setup_seconds > 0)
    out += "  set-up " + Printf("%.3f", s.setup_seconds) + " s (once, before the round)";
  return out;
}

}  // namespace

std::uint64_t Fingerprint(const std::vector<double>& values) {
  std::uint64_t h = 0x9e3779b97f4a7c15ull ^ values.size();
  for (const double v : values) {
    std::uint64_t z = std::bit_cast<std::uint64_t>(v) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    h ^= z ^ (z >> 31);
  }
  return h;
}

Status StoreSink::Write(const RoundRecord& record, const RoundOutcome&) {
  return store_->WriteRound(deployment_id_, record);
}

Status CsvSink::Open() {
  out_.open(path_, std::ios::out | std::ios::trunc);
  if (!out_) return InvalidArgument(path_ + ": cannot open for writing (CSV of the rounds)");
  return Status::Ok();
}

Status CsvSink::Write(const RoundRecord& record, const RoundOutcome& outcome) {
  const SolveSummary& s = record.summary;
  if (!out_.is_open()) {
    Status opened = Open();
    if (!opened.ok()) return opened;
  }
  if (!header_written_) {
    header_written_ = true;
    for (const Metric& m : record.report.metrics) metric_names_.push_back(m.name);
    out_ << "round,solver,method,termination,iterations,setup_seconds,solve_seconds,"
            "repair_seconds,round_seconds,objective,max_violation,feasible,seed_seconds,"
            "fill_seconds,returned,bound,gap";
    for (const std::string& name : metric_names_) out_ << ',' << CsvField(name);
    out_ << ",other_metrics\n";
  }
  std::map<std::string, double> metrics;
  for (const Metric& m : record.report.metrics) metrics[m.name] = m.value;
  out_ << record.round << ',' << CsvField(record.solver) << ',' << CsvField(s.method) << ','
       << TerminationName(s.termination) << ',' << s.iterations << ',' << CsvNumber(s.setup_seconds)
       << ',' << CsvNumber(s.solve_seconds) << ',' << CsvNumber(s.repair_seconds) << ','
       << CsvNumber(outcome.seconds) << ',' << CsvNumber(s.objective) << ','
       << CsvNumber(s.max_violation) << ',' << (s.feasible ? 1 : 0) << ','
       << (s.seed_seconds >= 0 ? CsvNumber(s.seed_seconds) : "") << ','
       << (s.fill_seconds >= 0 ? CsvNumber(s.fill_seconds) : "") << ',' << CsvField(s.returned)
       << ',' << (std::isfinite(s.bound) ? CsvNumber(s.bound) : "") << ','
       << (std::isfinite(s.gap) ? CsvNumber(s.gap) : "");
  for (const std::string& name : metric_names_) {
    const auto it = metrics.find(name);
    out_ << ',' << (it != metrics.end() ? CsvNumber(it->second) : std::string());
    if (it != metrics.end()) metrics.erase(it);
  }
  std::string other;
  for (const auto& [name, value] : metrics)
    other += (other.empty() ? "" : " ") + name + "=" + CsvNumber(value);
  out_ << ',' << CsvField(other) << '\n';
  out_.flush();
  if (!out_) return InvalidArgument(path_ + ": write failed (CSV of the rounds)");
  return Status::Ok();
}

Status LogSink::Write(const RoundRecord&, const RoundOutcome& o) {
  const std::string round = "round " + std::to_string(o.round);
  for (const EventOutcome& e : o.events) {
    if (e.applied) {
      log_.Info(round + ": event " + std::to_string(e.id) + " applied");
    } else {
      log_.Warn(round + ": event " + std::to_string(e.id) + " rejected: " + e.reason);
    }
  }
  const SolveSummary& s = o.summary;
  if (log_.Enabled(LogLevel::kInfo)) {
    std::string line = round + "  " + TerminationName(s.termination) + "  iterations " +
                       std::to_string(s.iterations) + "  objective " +
                       Printf("%.10g", s.objective) +
                       (std::isfinite(s.gap) ? "  gap " + Printf("%.2e", s.gap) : "") +
                       "  violation " + Printf("%.2e", s.max_violation) + "  time " +
                       Printf("%.3f", o.seconds) + " s" + TimeSplit(s);
    for (const Metric& m : o.report.metrics) line += "  " + m.name + " " + Printf("%.6g", m.value);
    log_.Info(line);
  }
  if (s.feasible &&
      (s.termination == Termination::kTimeLimit || s.termination == Termination::kMaxIterations)) {
    // A budget that ran out with a feasible allocation in hand is the normal anytime answer.
    std::string line = round + ": " +
                       (s.termination == Termination::kTimeLimit ? "time limit reached"
                                                                 : "iteration limit reached") +
                       ": returned " + (s.returned.empty() ? "solver" : s.returned);
    if (std::isfinite(s.seed_objective)) {
      line += " (objective " + Printf("%.10g", s.objective) + ", seed " +
              Printf("%.10g", s.seed_objective) + ")";
    }
    log_.Info(line);
  } else if (!s.IsSolutionUsable()) {
    log_.Warn(round + ": no usable solution (" + TerminationName(s.termination) +
              (s.feasible ? "" : ", infeasible") + "): " + s.message);
  }
  if (verbose_) log_.Info(s.FullReport());
  return Status::Ok();
}

Status RoundPipeline::Run(int round, std::stop_token stop, RoundOutcome* outcome) {
  const Clock::time_point start = Clock::now();
  const double started_unix = UnixSeconds();
  *outcome = RoundOutcome();
  outcome->round = round;
  Status status = parts_.apply_events(round, &outcome->events);
  if (!status.ok()) return status;
  status = Refresh(round, outcome);
  if (!status.ok() || outcome->finished) return status;
  status = Solve(round, stop, outcome);
  if (!status.ok()) return status;
  if (outcome->summary.termination == Termination::kCancelled) {
    outcome->interrupted = true;
    return Status::Ok();
  }
  status = Complete(round, outcome);
  if (!status.ok()) return status;
  outcome->seconds = Seconds(Clock::now() - start);
  return Emit(round, started_unix, outcome);
}

Status RoundPipeline::Refresh(int round, RoundOutcome* outcome) {
  const DeploymentConfig& config = *parts_.config;
  bool finished = false;
  Status status = parts_.guard(
      "Refresh", [&] { return parts_.plugin->Refresh(round, parts_.problem, &finished); });
  if (!status.ok()) return status;
  if (finished) {
    outcome->finished = true;
    return Status::Ok();
  }
  std::string error;
  if (!parts_.problem->Validate(&error)) {
    return InvalidArgument("plugin '" + config.plugin + "' set invalid parameters for round " +
                           std::to_string(round) + ": " + error);
  }
  return Status::Ok();
}

Status RoundPipeline::Solve(int round, std::stop_token stop, RoundOutcome* outcome) {
  const DeploymentConfig& config = *parts_.config;
  const Problem& problem = *parts_.problem;
  Status status;
  if (parts_.admm != nullptr) {
    // The candidates the answer is compared with; the plugin's repair of nothing is also its
    // heuristic allocation, where ADMM's cold round starts with solver.cold_start: repair.
    const Clock::time_point seed_start = Clock::now();
    std::vector<double> seed;
    status = PrepareCandidates(problem, &seed);
    if (!status.ok()) return status;
    if (!admm_started_ && config.cold_start == ColdStart::kRepair && !seed.empty()) {
      parts_.admm->WarmStart(seed);
    }
    const double seed_seconds = Seconds(Clock::now() - seed_start);
    // The budget is the round's: leave the plugin's repair and report the time they took in
    // the last round (at most half the budget; a tenth before the first).
    AdmmOptions options = config.admm;
    const double budget = options.time_limit_seconds;
    if (std::isfinite(budget)) {
      const double reserve =
          last_plugin_seconds_ >= 0 ? std::min(last_plugin_seconds_, 0.5 * budget) : 0.1 * budget;
      options.time_limit_seconds = std::max(0.05 * budget, budget - reserve - seed_seconds);
    }
    // A plugin whose repair makes any allocation feasible does the repair alone.
    if (options.repair && parts_.repair_makes_feasible) options.repair = false;
    if (Status set = parts_.admm->SetOptions(options); !set.ok()) return set;
    // gap_tolerance's trials repair as the round will: with the plugin's repair, where it is
    // pure (otherwise the engine's).
    if (options.gap_tolerance > 0 && parts_.repair_is_pure) {
      parts_.admm->SetRepairer([this](std::vector<double>* values) {
        Allocation trial;
        trial.values = std::move(*values);
        const Status repaired =
            parts_.guard("Repair", [&] { return parts_.plugin->Repair(*parts_.problem, &trial); });
        *values = std::move(trial.values);
        return repaired.ok();
      });
    } else {
      parts_.admm->SetRepairer({});
    }
    parts_.admm->Solve(stop, &outcome->allocation, &outcome->summary);
    admm_started_ = true;
    // The seed and the candidates: the round's own figure, beside the solver's set-up.
    outcome->summary.seed_seconds = seed_seconds;
    return Status::Ok();
  }
  if (config.solver == SolverKind::kPlugin) {
    const SolverServices services = MakeSolverServices(config.admm, config.exact, stop);
    const Clock::time_point solve_start = Clock::now();
    status = parts_.guard("SolveWith", [&] {
      return parts_.plugin->SolveWith(
          config.method, round, problem, services, &outcome->allocation, &outcome->summary);
    });
    if (!status.ok()) return status;
    if (outcome->summary.method.empty()) outcome->summary.method = config.method;
    if (outcome->summary.total_seconds < 0) {
      outcome->summary.total_seconds = Seconds(Clock::now() - solve_start);
    }
    if (outcome->summary.termination != Termination::kCancelled &&
        !outcome->allocation.values.empty() &&
        static_cast<int>(outcome->allocation.values.size()) != problem.num_variables()) {
      return Internal("plugin '" + config.plugin + "' method '" + config.method + "' returned " +
                      std::to_string(outcome->allocation.values.size()) +
                      " values for a problem with " + std::to_string(problem.num_variables()) +
                      " variables");
    }
    return Status::Ok();
  }
  SolveExact(problem, config.exact, &outcome->allocation, &outcome->summary);
  return Status::Ok();
}

Status RoundPipeline::PrepareCandidates(const Problem& problem, std::vector<double>* seed) {
  candidates_.clear();
  seed->clear();
  const int n = problem.num_variables();
  // The plugin's repair of `values`, its size checked.
  const auto repair = [&](std::vector<double> values, std::vector<double>* out) -> Status {
    Allocation a;
    a.values = std::move(values);
    Status status = parts_.guard("Repair", [&] { return parts_.plugin->Repair(problem, &a); });
    if (!status.ok()) return status;
    if (static_cast<int>(a.values.size()) != n) {
      return Internal("plugin '" + parts_.config->plugin + "' repair returned " +
                      std::to_string(a.values.size()) + " values for a problem with " +
                      std::to_string(n) + " variables");
    }
    *out = std::move(a.values);
    return Status::Ok();
  };
  if (!parts_.repair_is_pure) {
    // The repair acts once a round: the seed (with cold_start: repair) is its only other call,
    // as before the candidates existed.
    if (admm_started_ || parts_.config->cold_start != ColdStart::kRepair) return Status::Ok();
    return repair(std::vector<double>(n, 0.0), seed);
  }
  const auto repaired = [&](std::vector<double> values, const char* name) -> Status {
    Candidate c{name, {}};
    Status status = repair(std::move(values), &c.values);
    if (status.ok()) candidates_.push_back(std::move(c));
    return status;
  };
  if (!admm_started_) {
    Status status = repaired(std::vector<double>(n, 0.0), "seed");
    if (!status.ok()) return status;
    *seed = candidates_.back().values;
  } else if (static_cast<int>(previous_.size()) == n && n <= kMaxCandidateVariables) {
    return repaired(previous_, "previous");
  }
  return Status::Ok();
}

void RoundPipeline::ChooseReturned(const Problem& problem, RoundOutcome* outcome) {
  SolveSummary& s = outcome->summary;
  const double tolerance = parts_.config->admm.feasibility_tolerance;
  const bool maximize = problem.objective_sense() == ObjectiveSense::kMaximize;
  const auto better = [&](double a, double b) {  // a strictly better than b, beyond rounding
    const double margin = 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
    return maximize ? a > b + margin : a < b - margin;
  };
  s.returned = "solver";
  for (Candidate& c : candidates_) {
    const double objective = MeasureObjective(problem, c.values);
    const double violation = MeasureViolation(problem, c.values).Max();
    if (std::string(c.name) == "seed") s.seed_objective = objective;
    if (!(violation <= tolerance) || !std::isfinite(objective)) continue;
    // Only a better objective replaces the answer: a solver's answer that misses the tolerance
    // but is far better than the seed (an all-zero allocation, for a plugin without a repair)
    // stays, as it did before the candidates existed.
    if (std::isfinite(s.objective) && !better(objective, s.objective)) continue;
    outcome->allocation.values = std::move(c.values);
    s.objective = objective;
    s.max_violation = violation;
    s.feasible = true;
    s.returned = c.name;
  }
  candidates_.clear();
  if (!s.returned.empty() && s.returned != "solver") {
    s.message += std::string(" Returned the ") +
                 (s.returned == "seed" ? "plugin's seed allocation"
                                       : "previous round's allocation, repaired") +
                 ": better than the solver's repaired answer.";
  }
  if (static_cast<int>(outcome->allocation.values.size()) <= kMaxCandidateVariables) {
    previous_ = outcome->allocation.values;
  } else {
    previous_.clear();
  }
}

// The gap of the allocation the round returns (after the plugin's repair and the candidates):
// the solver's bound holds for every allocation, its gap is recomputed for this one.
void RoundPipeline::SetGap(const Problem& problem, SolveSummary* s) {
  s->gap = s->feasible ? CertifiedGap(problem.objective_sense(), s->objective, s->bound)
                       : std::numeric_limits<double>::quiet_NaN();
}

Status RoundPipeline::Complete(int round, RoundOutcome* outcome) {
  const Problem& problem = *parts_.problem;
  const Clock::time_point start = Clock::now();
  SolveSummary& s = outcome->summary;
  if (static_cast<int>(outcome->allocation.values.size()) != problem.num_variables()) {
    // A failed solve: a feasible candidate (already repaired) is returned in its place;
    // otherwise the round is recorded without an allocation.
    if (parts_.admm == nullptr || candidates_.empty()) return Status::Ok();
    s.feasible = false;
    s.objective = std::numeric_limits<double>::quiet_NaN();
    ChooseReturned(problem, outcome);
    SetGap(problem, &s);
    if (static_cast<int>(outcome->allocation.values.size()) != problem.num_variables())
      return Status::Ok();
    Status status = parts_.guard("Report", [&] {
      return parts_.plugin->Report(round, problem, outcome->allocation, &outcome->report);
    });
    last_plugin_seconds_ = Seconds(Clock::now() - start);
    return status;
  }
  // ADMM measured this very allocation with the same functions; if the plugin's repair leaves
  // it as it is, that measure stands (a fingerprint of the values is far cheaper than a second
  // measure, 1.5M constraints on Kdl, and than a copy to compare, 260 MB on the full ASN2k).
  const bool solver_measured = parts_.admm != nullptr && s.max_violation >= 0;
  const std::uint64_t solved = solver_measured ? Fingerprint(outcome->allocation.values) : 0;
  Status status =
      parts_.guard("Repair", [&] { return parts_.plugin->Repair(problem, &outcome->allocation); });
  if (!status.ok()) return status;
  const bool was_feasible = s.feasible;
  if (!solver_measured || Fingerprint(outcome->allocation.values) != solved) {
    s.objective = MeasureObjective(problem, outcome->allocation.values);
    s.max_violation = MeasureViolation(problem, outcome->allocation.values).Max();
  }
  s.feasible = s.max_violation <= parts_.config->admm.feasibility_tolerance;
  // The solver's message may say its allocation was not feasible: say what the repair did.
  if (solver_measured && !was_feasible && s.feasible) {
    char text[120];
    std::snprintf(text,
                  sizeof(text),
                  " The plugin's repair made it feasible (max violation %.3g).",
                  s.max_violation);
    s.message += text;
  }
  if (parts_.admm != nullptr) ChooseReturned(problem, outcome);
  SetGap(problem, &s);
  status = parts_.guard("Report", [&] {
    return parts_.plugin->Report(round, problem, outcome->allocation, &outcome->report);
  });
  last_plugin_seconds_ = Seconds(Clock::now() - start);
  return status;
}

Status RoundPipeline::Emit(int round, double started_unix, RoundOutcome* outcome) {
  if (sinks_.empty()) return Status::Ok();
  const DeploymentConfig& config = *parts_.config;
  RoundRecord record;
  record.round = round;
  record.started_unix_seconds = started_unix;
  record.solver = parts_.admm != nullptr                 ? "admm"
                  : config.solver == SolverKind::kPlugin ? "plugin"
                                                         : "exact";
  record.summary = outcome->summary;
  record.round_seconds = outcome->seconds;
  record.report = outcome->report;
  record.events = outcome->events;
  bool needs_state = false;
  for (const RoundSink* sink : sinks_) needs_state = needs_state || sink->NeedsState();
  if (needs_state) {
    Status status =
        parts_.guard("SaveState", [&] { return parts_.plugin->SaveState(round, &record.state); });
    if (!status.ok()) return status;
    record.has_state = !record.state.empty();
  }
  const std::vector<double>& values = outcome->allocation.values;
  if (static_cast<int>(values.size()) == parts_.problem->num_variables()) {
    for (VarId v = 0; v < parts_.problem->num_variables(); ++v) {
      if (std::abs(values[v]) > 1e-12) record.allocation.emplace_back(v, values[v]);
    }
  }
  // A failed solve is recorded (termination and message) without an allocation: the last good
  // allocation stays the latest one in the database.
  for (RoundSink* sink : sinks_) {
    Status status = sink->Write(record, *outcome);
    if (!status.ok()) return status;
  }
  return Status::Ok();
}

}  // namespace dede::internal
