// The option registry: the single list of deployment keys. It drives validation (allowed keys
// at every level, types, bounds), holds the defaults (read from default-constructed option
// structs, so they cannot drift from the code), and generates the option reference.
#include <arpa/inet.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <functional>
#include <set>
#include <utility>

#include "config/deployment.h"
#include "config/option_spec.h"
#include "config/spec_builders.h"

namespace dede::internal::spec_detail {

const char* TypeName(Type type) {
  switch (type) {
    case Type::kDouble:
      return "double";
    case Type::kInt:
      return "int";
    case Type::kUint64:
      return "uint64";
    case Type::kBool:
      return "bool";
    case Type::kString:
      return "string";
    case Type::kChoice:
      return "choice";
    case Type::kPathList:
      return "list";
    case Type::kMap:
      return "map";
  }
  return "?";
}

// YAML spelling of a double: shortest round-trip text, ".inf" / "-.inf" / ".nan".
std::string FormatDouble(double value) {
  if (std::isinf(value)) return value > 0 ? ".inf" : "-.inf";
  if (std::isnan(value)) return ".nan";
  std::array<char, 64> buffer{};
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  if (ec != std::errc()) return "?";
  return std::string(buffer.data(), end);
}

// Numbers in bounds text: plain, without YAML's leading dot for infinity.
static std::string FormatBound(double value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return FormatDouble(value);
}

std::string BoundsText(const Bounds& b) {
  const bool has_min = b.min > -kInf;
  const bool has_max = b.max < kInf;
  const bool finite = b.max == kInf && b.max_exclusive;
  std::string text;
  if (has_min && has_max) {
    text = std::string(b.min_exclusive ? "(" : "[") + FormatBound(b.min) + ", " +
           FormatBound(b.max) + (b.max_exclusive ? ")" : "]");
  } else if (has_min) {
    text = (b.min_exclusive ? "> " : ">= ") + FormatBound(b.min);
  } else if (has_max) {
    text = (b.max_exclusive ? "< " : "<= ") + FormatBound(b.max);
  }
  if (finite) text += text.empty() ? "finite" : ", finite";
  return text;
}

// The constraint `value` violates, as "path > 0", or "" if it is within bounds.
static std::string Violation(const std::string& path, double value, const Bounds& b) {
  if (std::isnan(value)) return path + " is a number (not NaN)";
  if (b.min_exclusive ? !(value > b.min) : !(value >= b.min)) {
    return path + (b.min_exclusive ? " > " : " >= ") + FormatBound(b.min);
  }
  if (b.max == kInf && b.max_exclusive && std::isinf(value)) return path + " < inf";
  if (b.max_exclusive ? !(value < b.max) : !(value <= b.max)) {
    return path + (b.max_exclusive ? " < " : " <= ") + FormatBound(b.max);
  }
  return "";
}

static std::string Located(const ConfigNode& node, const ConfigNode& parent) {
  return node.line() > 0 ? node.Where() : parent.Where();
}

Status CheckBounds(const ConfigNode& node, double value, const Bounds& bounds) {
  const std::string violated = Violation(node.path(), value, bounds);
  if (violated.empty()) return Status::Ok();
  return InvalidArgument(node.Where() + ": " + node.path() + " = " + node.scalar() +
                         ". Violated constraint: " + violated);
}

// An IPv4 or IPv6 literal, checked at load as the HTTP endpoint parses it when it starts (no
// name lookup there: `localhost` may be ::1 alone, so it is refused here too, with the fix).
Spec IpLiteral(Spec spec) {
  spec.info.bounds = "IPv4 or IPv6 literal";
  spec.read = [read = spec.read](const ConfigNode& parent,
                                 const std::string& leaf,
                                 const std::string& dir,
                                 DeploymentConfig* config) -> Status {
    if (Status status = read(parent, leaf, dir, config); !status.ok()) return status;
    std::string value;
    (void)parent.Read(leaf, &value);
    const std::string host = value.substr(0, value.find('%'));  // fe80::1%eth0: a scope id
    unsigned char bytes[16];
    if (inet_pton(AF_INET, value.c_str(), bytes) == 1 ||
        inet_pton(AF_INET6, host.c_str(), bytes) == 1) {
      return Status::Ok();
    }
    const ConfigNode& node = *parent.Find(leaf);
    return InvalidArgument(node.Where() + ": " + node.path() + " = '" + value +
                           "': not an IP address (give 127.0.0.1 or ::1 for loopback, 0.0.0.0 "
                           "for every interface; host names are not looked up)");
  };
  return spec;
}

Spec MakeSpec(std::string key, Type type, std::string description, bool per_solve) {
  Spec spec;
  spec.info.key = std::move(key);
  spec.info.type = TypeName(type);
  spec.info.description = std::move(description);
  spec.info.lifetime = per_solve ? "per solve" : "set-up";
  return spec;
}

void SetBounds(Spec* spec, const Bounds& bounds, bool checked_by_options) {
  spec->info.min = bounds.min;
  spec->info.max = bounds.max;
  spec->info.min_exclusive = bounds.min_exclusive;
  spec->info.max_exclusive = bounds.max_exclusive;
  spec->info.bounds = BoundsText(bounds);
  spec->info.checked_by_options = checked_by_options;
}

static void EmitNode(const ConfigNode& node, YAML::Emitter* out) {
  switch (node.kind()) {
    case ConfigNode::Kind::kNull:
      *out << YAML::Null;
      break;
    case ConfigNode::Kind::kScalar:
      *out << node.scalar();
      break;
    case ConfigNode::Kind::kList:
      *out << YAML::BeginSeq;
      for (const ConfigNode& item : node.items()) EmitNode(item, out);
      *out << YAML::EndSeq;
      break;
    case ConfigNode::Kind::kMap:
      *out << YAML::BeginMap;
      for (const auto& [key, value] : node.entries()) {
        *out << YAML::Key << key << YAML::Value;
        EmitNode(value, out);
      }
      *out << YAML::EndMap;
      break;
  }
}

static std::string FlowYaml(const ConfigNode& node) {
  YAML::Emitter out;
  out << YAML::Flow;
  EmitNode(node, &out);
  return out.c_str();
}

Spec PathList(std::string key, std::string description) {
  Spec spec = MakeSpec(std::move(key), Type::kPathList, std::move(description), false);
  spec.read = [](const ConfigNode& parent,
                 const std::string& leaf,
                 const std::string& dir,
                 DeploymentConfig* config) -> Status {
    const ConfigNode& node = *parent.Find(leaf);
    config->plugin_paths.clear();
    if (node.IsNull()) return Status::Ok();
    if (!node.IsList()) {
      return InvalidArgument(node.Where() + ": " + node.path() +
                             (node.IsScalar() ? " = '" + node.scalar() + "'" : std::string()) +
                             ": expected a list of paths, e.g. [../build/plugins]");
    }
    for (const ConfigNode& item : node.items()) {
      if (item.IsNull() || (item.IsScalar() && item.scalar().empty())) {
        return InvalidArgument(Located(item, node) + ": " + node.path() +
                               ": expected a non-empty path, got an empty item");
      }
      Result<std::string> text = item.AsString();
      if (!text.ok()) return text.status();
      const std::filesystem::path path(text.value());
      config->plugin_paths.push_back((path.is_absolute() ? path : std::filesystem::path(dir) / path)
                                         .lexically_normal()
                                         .string());
    }
    return Status::Ok();
  };
  spec.format = [](const DeploymentConfig& c) {
    return std::string("[") + Join(c.plugin_paths, ", ") + "]";
  };
  spec.emit = [](const DeploymentConfig& c, YAML::Emitter* out) {
    *out << YAML::Flow << YAML::BeginSeq;
    for (const std::string& path : c.plugin_paths) *out << path;
    *out << YAML::EndSeq;
  };
  return spec;
}

// http.allowed_hosts: names a Host header may give ("dede.example", "dede.example:8080").
Spec HostList(std::string key, std::string description) {
  Spec spec = MakeSpec(std::move(key), Type::kPathList, std::move(description), false);
  spec.info.bounds = "host[:port] names";
  spec.read = [](const ConfigNode& parent,
                 const std::string& leaf,
                 const std::string& /*dir*/,
                 DeploymentConfig* config) -> Status {
    const ConfigNode& node = *parent.Find(leaf);
    config->http_allowed_hosts.clear();
    if (node.IsNull()) return Status::Ok();
    if (!node.IsList()) {
      return InvalidArgument(node.Where() + ": " + node.path() +
                             (node.IsScalar() ? " = '" + node.scalar() + "'" : std::string()) +
                             ": expected a list of host names, e.g. [dede.example]");
    }
    for (const ConfigNode& item : node.items()) {
      Result<std::string> text =
          item.IsNull() ? Result<std::string>(std::string()) : item.AsString();
      if (!text.ok()) return text.status();
      const bool printable = std::all_of(
          text->begin(), text->end(), [](char c) { return c > ' ' && c < 127 && c != ','; });
      if (text->empty() || !printable) {
        return InvalidArgument(Located(item, node) + ": " + node.path() + ": '" + text.value() +
                               "': expected a host name (no spaces or commas), e.g. "
                               "dede.example or dede.example:8080");
      }
      config->http_allowed_hosts.push_back(text.value());
    }
    return Status::Ok();
  };
  spec.format = [](const DeploymentConfig& c) {
    return std::string("[") + Join(c.http_allowed_hosts, ", ") + "]";
  };
  spec.emit = [](const DeploymentConfig& c, YAML::Emitter* out) {
    *out << YAML::Flow << YAML::BeginSeq;
    for (const std::string& host : c.http_allowed_hosts) *out << host;
    *out << YAML::EndSeq;
  };
  return spec;
}

Spec SettingsMap(std::string key, std::string description) {
  Spec spec = MakeSpec(std::move(key), Type::kMap, std::move(description), false);
  spec.info.bounds = "plugin-defined";
  spec.read = [](const ConfigNode& parent,
                 const std::string& leaf,
                 const std::string& /*dir*/,
                 DeploymentConfig* config) -> Status {
    const ConfigNode& node = *parent.Find(leaf);
    if (node.IsNull()) return Status::Ok();  // keeps the located empty map made by the loader
    if (!node.IsMap()) {
      return InvalidArgument(node.Where() + ": " + node.path() +
                             (node.IsScalar() ? " = '" + node.scalar() + "'" : std::string()) +
                             ": expected a map of the plugin's settings");
    }
    config->plugin_settings = node;
    return Status::Ok();
  };
  spec.format = [](const DeploymentConfig& c) {
    return c.plugin_settings.IsMap() ? FlowYaml(c.plugin_settings) : std::string("{}");
  };
  spec.emit = [](const DeploymentConfig& c, YAML::Emitter* out) {
    if (c.plugin_settings.IsMap() && !c.plugin_settings.entries().empty()) {
      EmitNode(c.plugin_settings, out);
    } else {
      *out << YAML::Flow << YAML::BeginMap << YAML::EndMap;
    }
  };
  return spec;
}

void AddDeploymentSpecs(std::vector<Spec>* out) {
  std::vector<Spec>& s = *out;
  // clang-format off
  // deployment
  s.push_back(Basic(String("deployment.name", [](auto& c) -> auto& { return c.name; }, true, false,
      "Names the deployment; recorded with every round in the database.", false)));
  s.push_back(Uint64("deployment.seed", [](auto& c) -> auto& { return c.seed; },
      "Seed handed to the plugin (PluginContext::seed) for any data it generates.", false));
  // plugin
  s.push_back(Basic(String("plugin.name", [](auto& c) -> auto& { return c.plugin; }, true, false,
      "Plugin to load, as named in its DEDE_DECLARE_PLUGIN.", false)));
  s.push_back(Basic(PathList("plugin.paths",
      "Directories or plugin libraries (.so) to search, relative to the deployment file.")));
  s.push_back(Basic(SettingsMap("plugin.settings",
      "The plugin's own section, passed to its Configure, which validates it.")));
  // clang-format on
}

void AddRuntimeSpecs(std::vector<Spec>* out) {
  std::vector<Spec>& s = *out;
  // clang-format off
  // schedule
  // Below a millisecond the skip arithmetic divides by almost nothing; above 1e9 s (31 years)
  // the interval overflows the clock's nanoseconds.
  s.push_back(Basic(Double("schedule.interval_seconds",
      [](auto& c) -> auto& { return c.interval_seconds; }, Closed(1e-3, 1e9),
      "Time between the starts of consecutive rounds.", true)));
  s.push_back(Basic(Choice<OverrunPolicy>("schedule.overrun",
      [](auto& c) -> auto& { return c.overrun; },
      {{"skip", OverrunPolicy::kSkip}, {"back_to_back", OverrunPolicy::kBackToBack}},
      "A round that outlasts the interval: skip the missed starts, or start the next round at "
      "once (back_to_back).", true)));
  s.push_back(Bool("schedule.simulated_time", [](auto& c) -> auto& { return c.simulated_time; },
      "Run rounds back to back on a virtual clock (replays and tests).", false));
  // storage
  s.push_back(Basic(String("storage.database", [](auto& c) -> auto& { return c.database; }, true, true,
      "SQLite database file, relative to the deployment file; \":memory:\" keeps it in "
      "memory.", false)));
  s.push_back(Basic(Int("storage.keep_allocations",
      [](auto& c) -> auto& { return c.keep_allocations; }, AtLeast(0),
      "Allocation rows kept in the database: 0 keeps every round's; N keeps the latest round's "
      "and those of rounds divisible by N (the others are deleted when the next round is "
      "written). Round summaries, metrics and records are always kept.", true)));
  s.push_back(Basic(Int("storage.retention.keep_rounds",
      [](auto& c) -> auto& { return c.retention_keep_rounds; }, AtLeast(0),
      "Full records (allocation, entities and their parameters, domain records) are kept for "
      "the last N rounds; older rounds keep their round_summary row and metrics. 0: every "
      "round's. With keep_days, a round is pruned when either says so.", true)));
  s.push_back(Basic(Double("storage.retention.keep_days",
      [](auto& c) -> auto& { return c.retention_keep_days; }, AtLeastFinite(0),
      "Full records are kept for the rounds started within D days of the latest round "
      "(simulated time for simulated_time deployments); older rounds keep their round_summary "
      "row and metrics. 0: no age limit.", true)));
  // inbox
  s.push_back(Int("inbox.max_events_per_round",
      [](auto& c) -> auto& { return c.max_events_per_round; }, AtLeast(0),
      "Inbox events a round applies at most (the oldest due first); the rest wait for the next "
      "rounds, in order, and the backlog is logged and in /metrics. 0: no cap. At ~65 us an "
      "event, 10000 is under a second of a round.", true));
  // stop
  s.push_back(Basic(Int("stop.max_rounds", [](auto& c) -> auto& { return c.max_rounds; }, AtLeast(0),
      "Stop after this many rounds; 0: no limit.", true)));
  s.push_back(Basic(Double("stop.max_wall_seconds",
      [](auto& c) -> auto& { return c.max_wall_seconds; }, AtLeast(0),
      "Stop after this much wall-clock time; 0: no limit.", true)));
  // http
  s.push_back(Basic(Bool("http.enabled", [](auto& c) -> auto& { return c.http_enabled; },
      "Serve the deployment's state over HTTP while it runs, read-only: /healthz, "
      "/rounds?last=N, /allocation?demand=D, /metrics (Prometheus text) and a status page /.",
      false)));
  s.push_back(Basic(IpLiteral(String("http.address", [](auto& c) -> auto& { return c.http_address; },
      false, false, "Address the endpoint listens on, an IP literal as it binds it (no name "
      "lookup): loopback by default; 0.0.0.0 for every interface.", false))));
  s.push_back(Basic(Int("http.port", [](auto& c) -> auto& { return c.http_port; }, Closed(0, 65535),
      "TCP port of the endpoint; 0: any free port (the log names it).", false)));
  s.push_back(Int("http.threads", [](auto& c) -> auto& { return c.http_threads; },
      Closed(1, 16), "Threads serving requests, each with its own read-only connection; "
      "answers are built once per round, so one is enough but for slow clients of /allocation.",
      false));
  s.push_back(Double("http.rate_limit_per_second",
      [](auto& c) -> auto& { return c.http_rate_limit_per_second; }, AboveFinite(0),
      "Requests per second a client (remote address) may make, sustained; beyond, 429 with "
      "Retry-After.", false));
  s.push_back(Int("http.rate_limit_burst",
      [](auto& c) -> auto& { return c.http_rate_limit_burst; }, Closed(1, 1000000),
      "Requests a client may make at once before rate_limit_per_second applies.", false));
  s.push_back(Int("http.max_connections",
      [](auto& c) -> auto& { return c.http_max_connections; }, Closed(1, 10000),
      "Connections open at once; further clients wait in the listen backlog.", false));
  s.push_back(HostList("http.allowed_hosts",
      "Host header names served besides the address's own literal (and, on loopback, localhost, "
      "127.0.0.1 and [::1]): the names clients and proxies use. Other names get 421 (DNS "
      "rebinding)."));
  // clang-format on
}

namespace {

std::vector<Spec> BuildSpecs() {
  std::vector<Spec> s;
  AddDeploymentSpecs(&s);
  AddSolverSpecs(&s);
  AddRuntimeSpecs(&s);
  const DeploymentConfig defaults;
  for (Spec& spec : s) {
    if (!spec.info.required) spec.info.default_value = spec.format(defaults);
    // Only a solver's options are read again by each solve.
    if (spec.info.key.rfind("solver.", 0) != 0) spec.info.lifetime = "set-up";
    if (!spec.emit) {
      spec.emit = [format = spec.format](const DeploymentConfig& c, YAML::Emitter* out) {
        *out << format(c);
      };
    }
  }
  return s;
}

}  // namespace
}  // namespace dede::internal::spec_detail

namespace dede::internal {

const std::vector<Spec>& Specs() {
  static const std::vector<Spec> specs = spec_detail::BuildSpecs();
  return specs;
}

const std::vector<DeprecatedKey>& DeprecatedKeys() {
  // clang-format off
  static const std::vector<DeprecatedKey> keys = {
      {"solver.admm.feasibility_tolerance", "solver.feasibility_tolerance",
       "it judges every method, not ADMM alone"},
      {"solver.admm.fill_after_max_min", "solver.fill_after_max_min",
       "one key for the ADMM and the exact second stage"},
      {"solver.exact.fill_after_max_min", "solver.fill_after_max_min",
       "one key for the ADMM and the exact second stage"},
      {"solver.admm.fill_slack", "solver.fill_slack",
       "one key for the ADMM and the exact second stage"},
      {"solver.exact.fill_slack", "solver.fill_slack",
       "one key for the ADMM and the exact second stage"},
      {"solver.admm.verbose", "",
       "it has no effect; run with --log-level debug for the engine's residual trace"},
      {"solver.exact.verbose", "",
       "it has no effect; run with --log-level debug for the LP/MIP solver's log"},
      // Retired by measurement (docs/configuration.md, "Retired keys"): the engine uses the
      // default; AdmmOptions keeps the field for programs that drive the engine themselves.
      {"solver.admm.global_rho_balancing", "",
       "retired, always on: off took 2.7-16x the iterations on min max utilisation and 1.1-13x "
       "on max-min"},
      {"solver.admm.global_copy_balancing", "",
       "retired, always on: off took 1.4-13x the iterations on max-min and min max "
       "utilisation"},
      {"solver.admm.rho_update_tolerance", "",
       "retired, fixed at 5: 2-3 won on some instances and lost 1.2-1.3x on the contended "
       "cluster; 10 lost everywhere"},
      {"solver.admm.rho_min", "", "retired, fixed at 1e-6: the clamp never bound on 11 instances"},
      {"solver.admm.rho_max", "",
       "retired, fixed at 1e6 (a larger initial rho widens it): the clamp never bound on 11 "
       "instances"},
      {"solver.admm.anderson_interval", "",
       "retired, fixed at 10: its effect was large but erratic (350-1060 iterations on dev for "
       "intervals 1-20)"},
      {"solver.admm.anderson_type", "",
       "retired, fixed at type1: type2 failed to converge on the paper cluster"},
      {"solver.admm.entry_cost_side", "",
       "retired, fixed at resource: split and demand took 1.6-4.1x the iterations on transport "
       "and changed nothing elsewhere"},
      {"solver.admm.integer_rho_growth", "",
       "retired, fixed at 1.3: 1.0-2.0 gave identical results on three integer problems"},
  };
  // clang-format on
  return keys;
}

std::string Join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

}  // namespace dede::internal
