#include "runtime/runner.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <limits>
#include <set>

#include "admm/measure.h"
#include "config/json_node.h"
#include "core/guard.h"
#include "dede/host_solvers.h"
#include "mpi/world.h"
#include "plugin/plugin_settings.h"
#include "runtime/clock.h"
#include "runtime/http_server.h"
#include "runtime/rank_share.h"
#include "runtime/solver_services.h"

namespace dede::internal {
namespace {

std::string Format(const char* fmt, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), fmt, value);
  return buffer;
}

}  // namespace

Runner::Runner(const DeploymentConfig& config,
               DomainPlugin* plugin,
               std::string plugin_version,
               Store* store,
               RunnerOptions options)
    : config_(config),
      plugin_(plugin),
      plugin_version_(std::move(plugin_version)),
      store_(store),
      options_(options),
      log_(options.log != nullptr ? Logger::ToStream(options.log) : Logger()) {}

Runner::~Runner() = default;

// Nothing a plugin throws may cross into the host: convert it to a Status naming the call.
Status Runner::GuardPlugin(const char* what, const std::function<Status()>& call) {
  Status returned;
  Status guarded = GuardCall("plugin '" + config_.plugin + "'", what, [&] { returned = call(); });
  if (!guarded.ok()) return guarded;  // it threw
  if (!returned.ok()) {
    return Status(returned.code(),
                  "plugin '" + config_.plugin + "' " + what + ": " + returned.message());
  }
  return returned;
}

// The round path of this deployment: the pipeline over the plugin and the solver (its sinks
// are added by Setup: the store's once the deployment is registered, then the CSV file).
Status Runner::BuildPipeline() {
  RoundPipeline::Parts parts;
  parts.config = &config_;
  parts.plugin = plugin_;
  parts.problem = problem_.get();
  parts.admm = admm_.get();
  Status status = GuardPlugin("RepairMakesFeasible", [&] {
    parts.repair_makes_feasible = plugin_->RepairMakesFeasible();
    parts.repair_is_pure = plugin_->RepairIsPure();
    return Status::Ok();
  });
  if (!status.ok()) return status;
  parts.guard = [this](const char* what, const std::function<Status()>& call) {
    return GuardPlugin(what, call);
  };
  parts.apply_events = [this](int round, std::vector<EventOutcome>* outcomes) {
    return ApplyPendingEvents(round, outcomes);
  };
  pipeline_ = std::make_unique<RoundPipeline>(std::move(parts));
  if (!options_.csv_path.empty()) {
    csv_sink_ = std::make_unique<CsvSink>(options_.csv_path);
    return csv_sink_->Open();  // added to the pipeline after the store's sink (Setup)
  }
  return Status::Ok();
}

// The plugin's recommended solver settings for its configured problem, where the deployment
// leaves them unset (an explicit key always wins); each applied one is logged.
Status Runner::ApplyRecommendedSettings() {
  std::vector<std::pair<std::string, std::string>> recommended;
  Status status = GuardPlugin("RecommendedSettings", [&] {
    recommended = plugin_->RecommendedSettings();
    return Status::Ok();
  });
  if (!status.ok()) return status;
  for (const auto& [key, value] : recommended) {
    bool applied = false;
    status =
        ApplyRecommendedSetting(key, value, "plugin '" + config_.plugin + "'", &config_, &applied);
    if (!status.ok()) return status;
    if (applied) {
      log_.Info("plugin " + config_.plugin + " recommends " + key + ": " + value +
                " (applied; set it in the deployment to choose otherwise)");
    }
  }
  return Status::Ok();
}

Status Runner::Setup() {
  // Under mpirun the processes of a host share its cores (ADMM, the plugin's solves).
  if (mpi::Launched() && config_.admm.num_threads == 0)
    config_.admm.num_threads = mpi::ThreadsPerProcess();
  PluginContext context;
  context.config_file = config_.file;
  context.config_dir = config_.dir;
  context.seed = config_.seed;
  // The plugin's declared settings (if any) are checked and completed before Configure; the
  // defaults filled are logged and noted in the stored deployment text, as the recommended
  // settings are.
  std::vector<DefaultedSetting> defaulted;
  Status status = GuardPlugin("Configure", [&] {
    return ConfigureWithSettings(plugin_, config_.plugin_settings, context, &defaulted);
  });
  if (!status.ok()) return status;
  if (!defaulted.empty()) {
    log_.Info("plugin " + config_.plugin + " settings defaulted: " + DescribeDefaulted(defaulted));
    config_.text += "\n# Defaulted by plugin '" + config_.plugin +
                    "' (its settings table): " + DescribeDefaulted(defaulted) + "\n";
  }
  // Describe() sizes the problem itself: start from an empty one it may replace.
  problem_ = std::make_unique<Problem>(0, 0);
  status = GuardPlugin("Describe", [&] { return plugin_->Describe(problem_.get()); });
  if (!status.ok()) return status;
  // After Describe: a recommendation may follow the described instance (its scale).
  status = ApplyRecommendedSettings();
  if (!status.ok()) return status;
  std::string error;
  if (!problem_->Validate(&error)) {
    return InvalidArgument("plugin '" + config_.plugin +
                           "' described an invalid problem: " + error);
  }
  if (config_.solver == SolverKind::kPlugin) {
    std::vector<MethodInfo> methods;
    status = GuardPlugin("Methods", [&] {
      methods = plugin_->Methods();
      return Status::Ok();
    });
    if (!status.ok()) return status;
    std::string names;
    bool known = false;
    for (const MethodInfo& m : methods) {
      known = known || m.name == config_.method;
      names += (names.empty() ? "" : ", ") + m.name;
    }
    if (!known) {
      return InvalidArgument(
          config_.file + ": solver.method = '" + config_.method + "': plugin '" + config_.plugin +
          "' has no such method (" +
          (names.empty() ? std::string("it has none") : "its methods: " + names) + ")");
    }
  }
  if (config_.solver == SolverKind::kAdmm) {
    // Under mpirun every process builds the same engine, and the blocks are split over them
    // (mpi/world.h); else the executor is null: the local one.
    admm_ = std::make_unique<AdmmSolver>(*problem_, config_.admm, mpi::MakeBlockExecutor());
    if (!admm_->setup_error().empty()) {
      return InvalidArgument(config_.file + ": solver.admm: " + admm_->setup_error());
    }
  }
  status = BuildPipeline();
  if (!status.ok()) return status;
  // Rank 0 reads where to resume from the database; under mpirun every process resumes
  // from what it read (rank_share.h).
  ResumePoint resume;
  if (store_ != nullptr) resume.status = RegisterDeployment(&resume);
  if (options_.distributed) ShareResumePoint(&resume);
  if (!resume.status.ok()) return resume.status;
  if (resume.round >= 0) {
    status = Resume(resume);
    if (!status.ok()) return status;
  }
  if (csv_sink_) pipeline_->AddSink(csv_sink_.get());
  return Status::Ok();
}

// Registers the deployment and its variables in the database, adds the store's sink, and
// reads where a resumed deployment starts.
Status Runner::RegisterDeployment(ResumePoint* resume) {
  DeploymentRecord record;
  record.name = config_.name;
  record.plugin = config_.plugin;
  record.plugin_version = plugin_version_;
  record.config_file = config_.file;
  record.config_yaml = config_.text;
  store_->SetAllocationHistory(config_.keep_allocations);
  Status retention = retention_log_.Start(config_, store_, log_);
  if (!retention.ok()) return retention;
  Result<std::int64_t> id = store_->UpsertDeployment(record);
  if (!id.ok()) return id.status();
  deployment_id_ = id.value();
  if (options_.persist) {
    store_sink_ = std::make_unique<StoreSink>(store_, deployment_id_);
    pipeline_->AddSink(store_sink_.get());
  }
  Status status = store_->WriteVariables(deployment_id_, *problem_);
  if (!status.ok()) return status;
  Result<LastRound> last = store_->LoadLastRound(deployment_id_, problem_->num_variables());
  if (!last.ok()) return last.status();
  resume->round = last->round;
  if (last->round < 0) return Status::Ok();
  Result<std::vector<EventRow>> applied = store_->AppliedEvents(config_.name, last->round);
  if (!applied.ok()) return applied.status();
  resume->applied = std::move(applied.value());
  resume->has_state = last->has_state;
  resume->state = std::move(last->state);
  resume->values = std::move(last->values);
  return Status::Ok();
}

// Continues after the last committed round: the round counter, the events applied so far,
// the plugin's checkpoint, the solver's warm start.
Status Runner::Resume(const ResumePoint& resume) {
  next_round_ = resume.round + 1;
  // The events earlier rounds applied are part of the plugin's state: applied again, in
  // their order, with replay set, before the checkpoint is restored (an event may have
  // changed what the checkpoint describes, e.g. filled a job slot; a plugin whose
  // checkpoint carries an event's whole effect skips the replay).
  for (const EventRow& row : resume.applied) {
    EventOutcome outcome;
    Status status = ApplyEvent(row, /*replay=*/true, row.round, &outcome);
    if (!status.ok()) return status;
    if (!outcome.applied) {
      return FailedPrecondition(
          "deployment '" + config_.name + "': event " + std::to_string(row.id) + " (" + row.kind +
          " " + row.target + "), applied in round " + std::to_string(row.round) +
          ", is rejected on resume: " + outcome.reason +
          ". The resumed state would differ from the stored rounds'; if the event should "
          "not count, mark it in the database (UPDATE events SET status = 'rejected', "
          "reason = '...' WHERE id = " +
          std::to_string(row.id) + ")");
    }
  }
  if (resume.has_state) {
    Status status = GuardPlugin("RestoreState",
                                [&] { return plugin_->RestoreState(resume.round, resume.state); });
    if (!status.ok()) return status;
  }
  if (admm_) {
    admm_->WarmStart(resume.values);
    pipeline_->MarkStarted();
  }
  log_.Info("resuming deployment '" + config_.name + "' after round " +
            std::to_string(resume.round) + " (warm start from its allocation" +
            (resume.applied.empty()
                 ? std::string()
                 : ", " + std::to_string(resume.applied.size()) + " events re-applied") +
            ")");
  return Status::Ok();
}

Status Runner::RunRound(std::stop_token stop, RoundOutcome* outcome) {
  if (next_round_ >= std::numeric_limits<int>::max() - 1) {
    return FailedPrecondition("deployment '" + config_.name +
                              "': the round counter is exhausted (" + std::to_string(next_round_) +
                              ")");
  }
  Status status = pipeline_->Run(next_round_, stop, outcome);
  if (!status.ok() || outcome->finished || outcome->interrupted) return status;
  if (store_sink_) retention_log_.AfterRound(store_->retention_stats(), log_);
  ++next_round_;
  return Status::Ok();
}

Status Runner::ApplyEvent(const EventRow& row, bool replay, int round, EventOutcome* outcome) {
  outcome->id = row.id;
  outcome->applied = false;
  outcome->reason.clear();
  const std::string origin = "event " + std::to_string(row.id);
  std::set<std::string> kinds;
  std::string listed;
  for (const EventKind& kind : plugin_->EventKinds()) {
    kinds.insert(kind.name);
    listed += (listed.empty() ? "" : ", ") + kind.name;
  }
  if (kinds.count(row.kind) == 0) {
    outcome->reason = origin + ": kind '" + row.kind + "' is not one of plugin '" + config_.plugin +
                      "''s event kinds (" +
                      (listed.empty() ? std::string("it accepts none") : listed) + ")";
    return Status::Ok();
  }
  Result<ConfigNode> payload = JsonToConfigNode(row.payload, origin, "payload");
  if (!payload.ok()) {
    outcome->reason = payload.status().message();
    return Status::Ok();
  }
  Event event;
  event.id = row.id;
  event.kind = row.kind;
  event.target = row.target;
  event.payload = std::move(payload.value());
  event.apply_from_round = row.apply_from_round;
  event.writer = row.writer;
  event.replay = replay;
  std::string rejection;
  Status status =
      GuardPlugin("ApplyEvent", [&] { return plugin_->ApplyEvent(round, event, &rejection); });
  if (!status.ok()) return status;
  outcome->applied = rejection.empty();
  outcome->reason = rejection;
  return Status::Ok();
}

Status Runner::ApplyPendingEvents(int round, std::vector<EventOutcome>* outcomes) {
  outcomes->clear();
  if (store_ == nullptr && !options_.distributed) return Status::Ok();
  Status read;
  std::vector<EventRow> pending;
  if (store_ != nullptr) {
    const double now = UnixSeconds();
    const int cap = config_.max_events_per_round;  // inbox.max_events_per_round; 0: none
    Result<std::vector<EventRow>> rows = store_->PendingEvents(config_.name, round, now, cap);
    if (rows.ok()) {
      pending = std::move(rows.value());
    } else {
      read = rows.status();
    }
    if (read.ok() && cap > 0 && static_cast<int>(pending.size()) == cap) {
      // The backlog: due events this round leaves pending (the oldest `cap` are applied).
      Result<std::int64_t> due = store_->CountPendingEvents(config_.name, round, now);
      if (!due.ok()) read = due.status();
      if (due.ok() && due.value() > cap) {
        log_.Warn("inbox: round " + std::to_string(round) + " applies the oldest " +
                  std::to_string(cap) + " of " + std::to_string(due.value()) +
                  " due events (inbox.max_events_per_round); backlog " +
                  std::to_string(due.value() - cap) + " events wait for the next rounds");
      }
    }
  }
  if (options_.distributed) ShareEvents(&read, &pending);
  if (!read.ok()) return read;
  for (const EventRow& row : pending) {
    EventOutcome outcome;
    Status status = ApplyEvent(row, /*replay=*/false, round, &outcome);
    if (!status.ok()) return status;
    outcomes->push_back(std::move(outcome));
  }
  return Status::Ok();
}

Result<RunSummary> Runner::Follow() {
  RunSummary summary;
  summary.first_round = next_round_;
  summary.last_round = next_round_ - 1;
  for (;;) {
    const std::int64_t round = ShareNextRound(kStopRounds, config_.interval_seconds);
    if (round == kStopRounds) break;
    next_round_ = static_cast<int>(round);
    RoundOutcome outcome;
    Status status = RunRound({}, &outcome);
    if (!status.ok()) return status;
    if (outcome.finished || outcome.interrupted) continue;
    ++summary.rounds_run;
    summary.last_round = outcome.round;
  }
  summary.stop_reason = "rank 0 stopped";
  return summary;
}

Result<RunSummary> Runner::Run() {
  namespace asio = boost::asio;
  if (options_.distributed && !mpi::IsRoot()) return Follow();
  // Under mpirun the other processes follow this loop's rounds until it tells them to stop,
  // on every way out of it.
  struct StopFollowers {
    bool distributed;
    double interval_seconds;
    ~StopFollowers() {
      if (distributed) ShareNextRound(kStopRounds, interval_seconds);
    }
  } stop_followers{options_.distributed, config_.interval_seconds};
  RunSummary summary;
  summary.first_round = next_round_;
  summary.last_round = next_round_ - 1;
  // Two limits, both kept: stop.max_rounds counts the deployment's rounds (so a restart
  // completes the same total), RunnerOptions::max_rounds (`dede run --rounds`) this
  // invocation's. The reason names the one reached.
  auto limit_reached = [&]() -> std::string {
    if (config_.max_rounds > 0 && next_round_ >= config_.max_rounds)
      return "stop.max_rounds = " + std::to_string(config_.max_rounds) + " reached";
    if (options_.max_rounds >= 0 && summary.rounds_run >= options_.max_rounds)
      return "--rounds " + std::to_string(options_.max_rounds) + " reached";
    return "";
  };
  if (!limit_reached().empty()) {
    summary.stop_reason = "deployment already has " + std::to_string(next_round_) + " rounds";
    if (options_.max_rounds == 0) summary.stop_reason = "--rounds 0: nothing to run";
    return summary;
  }

  // The log is the last sink: a round is logged once the database holds it.
  if (!log_sink_) {
    log_sink_ = std::make_unique<LogSink>(log_, options_.verbose);
    pipeline_->AddSink(log_sink_.get());
  }
  asio::io_context io;
  asio::thread_pool worker(1);  // solves run off the loop thread so signals are handled at once
  asio::signal_set signals(io, SIGINT, SIGTERM);
  asio::steady_timer timer(io);
  // Keeps io.run() alive while a round runs on the worker (no handler is pending then).
  auto work = asio::make_work_guard(io);
  std::stop_source stop_source;
  const Clock::time_point run_start = Clock::now();
  const auto interval = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(config_.interval_seconds));
  Status failure;
  bool stopping = false;
  bool round_in_flight = false;
  RoundOutcome outcome;

  // The read-only status endpoint, on threads of its own (off this loop and the worker); told
  // of each committed round, when its cached answers go stale.
  std::unique_ptr<HttpServer> http;
  if (config_.http_enabled) {
    HttpServerOptions http_options;
    http_options.address = config_.http_address;
    http_options.port = config_.http_port;
    http_options.threads = config_.http_threads;
    http_options.rate_limit_per_second = config_.http_rate_limit_per_second;
    http_options.rate_limit_burst = config_.http_rate_limit_burst;
    http_options.max_connections = config_.http_max_connections;
    http_options.allowed_hosts = config_.http_allowed_hosts;
    Result<std::unique_ptr<HttpServer>> server =
        HttpServer::Start(http_options, config_.database, config_.name, log_);
    if (!server.ok())
      return Status(server.status().code(), config_.file + ": " + server.status().message());
    http = std::move(server.value());
    log_.Info("http: serving deployment '" + config_.name + "' on http://" + config_.http_address +
              ":" + std::to_string(http->port()) + "/ (read-only)");
  }

  std::function<void(Clock::time_point)> schedule;
  auto finish = [&](std::string reason) {
    if (stopping) return;
    stopping = true;
    summary.stop_reason = std::move(reason);
    timer.cancel();
    signals.cancel();
    if (http) http->Stop();
    if (!round_in_flight) work.reset();
  };

  signals.async_wait([&](const boost::system::error_code& ec, int signal_number) {
    if (ec) return;
    log_.Info(std::string("received ") + (signal_number == SIGINT ? "SIGINT" : "SIGTERM") +
              (round_in_flight ? ": interrupting round " + std::to_string(next_round_) : ""));
    summary.interrupted = true;
    stop_source.request_stop();
    finish("signal");
  });

  auto on_round_done = [&](Status status, Clock::time_point round_start) {
    round_in_flight = false;
    if (stopping) work.reset();
    if (!status.ok()) {
      failure = status;
      finish("error");
      return;
    }
    if (outcome.interrupted) {
      log_.Info("round " + std::to_string(outcome.round) + " interrupted; nothing written");
      finish(summary.stop_reason.empty() ? "signal" : summary.stop_reason);
      return;
    }
    if (outcome.finished) {
      finish("plugin has no data for round " + std::to_string(outcome.round));
      return;
    }
    ++summary.rounds_run;
    summary.last_round = outcome.round;
    if (http) http->RoundCommitted();
    if (stopping) return;
    if (const std::string reason = limit_reached(); !reason.empty()) {
      finish(reason);
      return;
    }
    if (config_.max_wall_seconds > 0 &&
        Seconds(Clock::now() - run_start) >= config_.max_wall_seconds) {
      finish("stop.max_wall_seconds reached");
      return;
    }
    const Clock::time_point now = Clock::now();
    if (config_.simulated_time) {
      schedule(now);
      return;
    }
    Clock::time_point next = round_start + interval;
    if (now > next) {
      const double over = Seconds(now - round_start);
      if (config_.overrun == OverrunPolicy::kBackToBack) {
        // Chosen by the deployment: information, where a skipped tick is a warning.
        log_.Info("round " + std::to_string(outcome.round) + " took " + Format("%.3f", over) +
                  " s, longer than the interval: next round starts now (overrun: back_to_back)");
        next = now;
      } else {
        const auto missed = static_cast<int>((now - round_start) / interval);
        next = round_start + interval * (missed + 1);
        summary.rounds_skipped += missed;
        log_.Warn("round " + std::to_string(outcome.round) + " took " + Format("%.3f", over) +
                  " s: skipping " + std::to_string(missed) + " tick(s) (overrun: skip)");
      }
    }
    schedule(next);
  };

  schedule = [&](Clock::time_point when) {
    timer.expires_at(when);
    timer.async_wait([&](const boost::system::error_code& ec) {
      if (ec || stopping) return;
      round_in_flight = true;
      const Clock::time_point round_start = Clock::now();
      asio::post(worker, [&, round_start] {
        if (options_.distributed) ShareNextRound(next_round_, config_.interval_seconds);
        Status status = RunRound(stop_source.get_token(), &outcome);
        asio::post(io, [&, status, round_start] { on_round_done(status, round_start); });
      });
    });
  };

  schedule(Clock::now());
  io.run();
  worker.join();
  if (!failure.ok()) return failure;
  return summary;
}

}  // namespace dede::internal
