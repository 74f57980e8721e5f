// load_balancing: DeDe's shard load-balancing example as a plugin. See lb_plugin.h, README.md.
#include "lb_plugin.h"

#include <climits>
#include <filesystem>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "dede/csv.h"

namespace dede::lb {
namespace {

// A non-negative decimal index below `limit`, else -1.
int ParseIndex(std::string_view text, int limit) {
  int v = -1;
  if (!ParseInteger(text, &v) || v < 0 || v >= limit) return -1;
  return v;
}

// plugin.settings.down_servers: a list of integers (Build checks them against the servers).
Status ReadDownServers(const ConfigNode& settings, LbOptions* options) {
  options->down_servers.clear();
  const ConfigNode* down = settings.Find("down_servers");
  if (down == nullptr || down->IsNull()) return Status::Ok();
  options->down_servers_key = down->Where() + ": plugin.settings.down_servers";
  if (!down->IsList())
    return InvalidArgument(options->down_servers_key +
                           (down->IsScalar() ? " = '" + down->scalar() + "'" : std::string()) +
                           ": expected a list of server indices, e.g. [3, 7]");
  for (const ConfigNode& item : down->items()) {
    Result<std::int64_t> v = item.AsInt();
    if (!v.ok()) return v.status();
    if (v.value() < INT_MIN || v.value() > INT_MAX)
      return InvalidArgument(options->down_servers_key + ": server " + item.scalar() +
                             " is not a server index 0.." + std::to_string(options->servers - 1));
    options->down_servers.push_back(static_cast<int>(v.value()));
  }
  return Status::Ok();
}

}  // namespace

const SettingsTable* LoadBalancingPlugin::Settings() const {
  static const SettingsTable table = {
      Setting::String("loads", "CSV round,shard,load (relative to the deployment file)"),
      Setting::String("random_nums",
                      "instead of loads: CSV round,random_num, loads generated with the example's "
                      "formula (neither: generated from the deployment seed, rounds draws, 100 "
                      "if rounds is 0)"),
      Setting::Int("servers", "S").Default(32).Range(1, 1 << 16),
      Setting::Int("shards", "K (the first K shards of a loads file; fewer is an error)")
          .Default(256)
          .Range(1, 1 << 20),
      Setting::Double("epsilon",
                      "band (1-eps) avg <= server load <= (1+eps) avg, avg = total load / servers "
                      "up")
          .Default(0.1)
          .Range(0.0, 0.99),
      Setting::Int("memory_limit", "placements (shards) per server").Default(16).Range(1, 1 << 20),
      Setting::Int("candidates",
                   "0: every server may hold every shard (the full MILP); n > 0: servers "
                   "(k + j) mod S")
          .Default(0)
          .Range(0, 1 << 16),
      Setting::List("down_servers",
                    "server indices offline from round 0 (spares a server_up event brings in)"),
      Setting::Int("rounds", "stop after this many rounds (0: all rounds of the data)")
          .Default(0)
          .Range(0, 1 << 30),
      Setting::Bool("keep_alive", "dede: keep current placements alive with a small share")
          .Default(true),
      Setting::Int("keep_reserve",
                   "dede: keep-alive only on servers with fewer than memory_limit - keep_reserve "
                   "placements")
          .Default(2)
          .Range(0, 1 << 20),
      Setting::Int("admm_iterations", "dede: ADMM iteration cap per round")
          .Default(300)
          .Range(0, 1 << 24),
      Setting::Choice("pop_solver",
                      {"exact", "dede"},
                      "POP sub-problems: exact (the host's Cbc, solver.exact.time_limit_seconds) "
                      "or dede")
          .Default("exact"),
  };
  return &table;
}

Status LoadBalancingPlugin::Configure(const ConfigNode& settings, const PluginContext& context) {
  Status status = settings.Read("loads", &loads_path_);
  status.Update(settings.Read("random_nums", &random_nums_path_));
  status.Update(settings.Read("servers", &options_.servers));
  status.Update(settings.Read("shards", &options_.shards));
  status.Update(settings.Read("epsilon", &options_.epsilon));
  status.Update(settings.Read("memory_limit", &options_.memory_limit));
  status.Update(settings.Read("candidates", &options_.candidates));
  status.Update(settings.Read("rounds", &rounds_));
  status.Update(settings.Read("keep_alive", &methods_.dede.keep_alive));
  status.Update(settings.Read("keep_reserve", &methods_.dede.keep_reserve));
  status.Update(settings.Read("admm_iterations", &methods_.dede.max_iterations));
  status.Update(settings.Read("pop_solver", &methods_.pop_solver));
  if (!status.ok()) return status;
  status = ReadDownServers(settings, &options_);
  if (!status.ok()) return status;
  if (!loads_path_.empty() && !random_nums_path_.empty())
    return InvalidArgument(context.config_file +
                           ": plugin.settings: give either loads or random_nums, not both");
  for (std::string* p : {&loads_path_, &random_nums_path_}) {
    std::filesystem::path path(*p);
    if (!p->empty() && path.is_relative())
      *p = (std::filesystem::path(context.config_dir) / path).string();
  }
  seed_ = context.seed;
  config_file_ = context.config_file;
  return Status::Ok();
}

Status LoadBalancingPlugin::Describe(Problem* problem) {
  // Loads from the CSV, else generated with the example's formula from its random numbers
  // (random_nums) or from the deployment seed (rounds draws, 100 if rounds is 0).
  std::vector<std::vector<double>> loads;
  Status status;
  if (!loads_path_.empty()) {
    status = LoadShardLoads(loads_path_, &loads);
    // The model takes the first `shards` columns; fewer is the deployment's mistake or the file's.
    if (status.ok() && static_cast<int>(loads[0].size()) < options_.shards) {
      return InvalidArgument(loads_path_ + ": loads for " + std::to_string(loads[0].size()) +
                             " shards (0.." + std::to_string(loads[0].size() - 1) +
                             "), fewer than plugin.settings.shards = " +
                             std::to_string(options_.shards) + " in " + config_file_);
    }
  } else {
    std::vector<double> u;
    if (!random_nums_path_.empty())
      status = LoadRandomNums(random_nums_path_, &u);
    else
      u = SeededRandomNums(rounds_ > 0 ? rounds_ : 100, seed_);
    loads = GenerateLoads(u, options_.shards);
  }
  if (!status.ok()) return status;
  return model_.Build(options_, std::move(loads), problem);
}

Status LoadBalancingPlugin::Refresh(int round, Problem* problem, bool* finished) {
  *finished = round >= model_.num_rounds() || (rounds_ > 0 && round >= rounds_);
  if (*finished) return Status::Ok();
  ServerSets current = model_.InitialPlacement();
  if (round > 0 && last_round_ >= 0 && last_round_ < round) {
    current = last_;
  } else if (round > 0) {
    // The host's solvers are lent only to SolveWith: the replay routes without the ADMM
    // relaxation (rounding and flow repair alone), deterministic but not the original run's
    // placements. A replayed round without a placement (a drain under a tight memory limit)
    // keeps the one before, as a failed round of the run does.
    DedeOptions replay = methods_.dede;
    replay.use_admm = false;
    for (int r = 0; r < round; ++r) {
      Status status = model_.SetRound(r, current, problem);
      if (!status.ok()) return status;
      Placement placement;
      status = SolveDede(model_.instance(),
                         model_.local_current(),
                         model_.local_allowed(),
                         replay,
                         &placement,
                         nullptr);
      if (status.ok()) current = model_.ToGlobal(placement).Servers();
    }
  }
  return model_.SetRound(round, current, problem);
}

std::vector<EventKind> LoadBalancingPlugin::EventKinds() const {
  return {{"shard_load",
           "a shard index 0..shards-1",
           "{load: number in [0, 1e15]}",
           "the shard's load from this round on (the loads table's later rounds)"},
          {"server_down",
           "a server index 0..servers-1 (up)",
           "{} (none)",
           "drain the server from this round on: its shards move, the band is over the up servers"},
          {"server_up",
           "a server index 0..servers-1 (down, or in down_servers)",
           "{} (none)",
           "the server takes shards again from this round on (the band counts it)"}};
}

Status LoadBalancingPlugin::ApplyEvent(int round, const Event& event, std::string* rejection) {
  rejection->clear();
  const std::string where = "event " + std::to_string(event.id) + " (" + event.kind + ")";
  if (event.kind == "server_down" || event.kind == "server_up")
    return ApplyServerEvent(round, event, where, rejection);
  if (event.kind != "shard_load") {
    *rejection = where + ": unknown kind";
    return Status::Ok();
  }
  const int shard = ParseIndex(event.target, options_.shards);
  if (shard < 0) {
    *rejection = where + ": target '" + event.target + "' is not a shard index 0.." +
                 std::to_string(options_.shards - 1);
    return Status::Ok();
  }
  double load = 0;
  Status status = event.payload.Require("load");
  status.Update(event.payload.Read("load", &load, 0.0, 1e15));
  if (!status.ok()) {
    *rejection = status.message();
    return Status::Ok();
  }
  model_.SetLoadFrom(round, shard, load);
  return Status::Ok();
}

Status LoadBalancingPlugin::ApplyServerEvent(int round,
                                             const Event& event,
                                             const std::string& where,
                                             std::string* rejection) {
  const int server = ParseIndex(event.target, options_.servers);
  if (server < 0) {
    *rejection = where + ": target '" + event.target + "' is not a server index 0.." +
                 std::to_string(options_.servers - 1);
    return Status::Ok();
  }
  const ConfigNode& payload = event.payload;
  if (payload.IsMap() && !payload.entries().empty()) {
    *rejection = where + ": payload." + payload.entries()[0].first +
                 ": unexpected field (the payload of " + event.kind + " is empty: {})";
    return Status::Ok();
  }
  if (!payload.IsNull() && !payload.IsMap()) {
    *rejection = where + ": payload: expected an empty object {}";
    return Status::Ok();
  }
  const std::string why =
      model_.ChangeServer(round, static_cast<int>(server), event.kind == "server_up");
  if (!why.empty()) *rejection = where + ": target '" + event.target + "': " + why;
  return Status::Ok();
}

Status LoadBalancingPlugin::SolveWith(const std::string& method,
                                      int round,
                                      const Problem& problem,
                                      const SolverServices& services,
                                      Allocation* allocation,
                                      SolveSummary* summary) {
  (void)round;
  return SolveMethod(method, model_, problem, services, &methods_, allocation, summary, &record_);
}

Status LoadBalancingPlugin::Repair(const Problem& problem, Allocation* allocation) {
  model_.Repair(problem, allocation);  // infeasibility is reported by the `feasible` metric
  return Status::Ok();
}

Status LoadBalancingPlugin::Report(int round,
                                   const Problem& problem,
                                   const Allocation& allocation,
                                   RoundReport* report) {
  (void)problem;
  const Check m = model_.Evaluate(allocation);
  report->metrics = {{"movements", m.movements},
                     {"max_load", m.max_load},
                     {"min_load", m.min_load},
                     {"band_low", m.low},
                     {"band_high", m.high},
                     {"max_shards_per_server", double(m.max_shards)},
                     {"feasible", m.feasible ? 1.0 : 0.0},
                     {"servers_up", double(model_.up_servers().size())}};
  const int S = options_.servers, K = options_.shards;
  for (int s = 0; s < S; ++s) {
    report->entities.push_back(
        {Side::kResource,
         s,
         "server" + std::to_string(s),
         {{"memory_limit", double(options_.memory_limit)}, {"up", model_.is_up(s) ? 1.0 : 0.0}}});
  }
  const std::vector<double>& load = model_.round_loads();
  for (int k = 0; k < K; ++k) {
    // The placement's server, also when it is down by now (the shard moves this round).
    const auto& cur = model_.current()[k];
    report->entities.push_back({Side::kDemand,
                                k,
                                "shard" + std::to_string(k),
                                {{"load", load[k]},
                                 {"current_server", cur.empty() ? -1.0 : double(cur[0])},
                                 {"current_copies", double(cur.size())}}});
  }
  if (!record_.kind.empty()) {
    report->records.push_back(record_);
    record_ = DomainRecord();
  }
  last_ = model_.ToPlacement(allocation).Servers();
  last_round_ = round;
  return Status::Ok();
}

Status LoadBalancingPlugin::SaveState(int round, std::string* state) {
  (void)round;
  state->clear();
  if (last_round_ < 0) return Status::Ok();
  std::ostringstream out;
  for (std::size_t k = 0; k < last_.size(); ++k) {
    if (k) out << ';';
    for (std::size_t j = 0; j < last_[k].size(); ++j) out << (j ? "," : "") << last_[k][j];
  }
  *state = out.str();
  return Status::Ok();
}

Status LoadBalancingPlugin::RestoreState(int last_round, const std::string& state) {
  // One record: a field per shard, each its servers separated by ','.
  Result<CsvReader> opened =
      CsvReader::FromString(state,
                            "load_balancing checkpoint of round " + std::to_string(last_round),
                            {.delimiter = ';', .header = false});
  if (!opened.ok()) return opened.status();
  CsvReader& in = opened.value();
  ServerSets placement;
  Status status;
  if (in.Next(&status)) {
    for (int k = 0; k < in.size(); ++k) {
      placement.emplace_back();
      for (std::string_view s : in.Items(k, ',')) {
        const int v = ParseIndex(s, options_.servers);
        if (v < 0) {
          return in.Expected(
              k, "server indices 0.." + std::to_string(options_.servers - 1) + " separated by ','");
        }
        placement.back().push_back(v);
      }
    }
    if (in.Next(&status)) return in.RecordError("a second line (the state is one line)");
  }
  if (!status.ok()) return status;
  if (static_cast<int>(placement.size()) != options_.shards)
    return InvalidArgument(
        "load_balancing: checkpoint state of round " + std::to_string(last_round) + " has " +
        std::to_string(placement.size()) +
        " shards, expected plugin.settings.shards = " + std::to_string(options_.shards) + " (" +
        config_file_ + "; changed since the database was written?)");
  last_ = std::move(placement);
  last_round_ = last_round;
  return Status::Ok();
}

}  // namespace dede::lb
