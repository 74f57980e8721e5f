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

namespace dede::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

enum class Type { kDouble, kInt, kUint64, kBool, kString, kChoice, kPathList, kMap };

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
std::string FormatBound(double value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return FormatDouble(value);
}

struct Bounds {
  double min = -kInf, max = kInf;
  bool min_exclusive = false, max_exclusive = false;
};
Bounds AtLeast(double min) { return {min, kInf, false, false}; }
Bounds Above(double min) { return {min, kInf, true, false}; }
// (min, inf): positive and finite.
Bounds AboveFinite(double min) { return {min, kInf, true, true}; }
Bounds AtLeastFinite(double min) { return {min, kInf, false, true}; }
Bounds Open(double min, double max) { return {min, max, true, true}; }
Bounds Closed(double min, double max) { return {min, max, false, false}; }

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
std::string Violation(const std::string& path, double value, const Bounds& b) {
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

std::string Located(const ConfigNode& node, const ConfigNode& parent) {
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

Spec MakeSpec(std::string key, Type type, std::string description, bool reloadable) {
  Spec spec;
  spec.info.key = std::move(key);
  spec.info.type = TypeName(type);
  spec.info.description = std::move(description);
  spec.info.reloadable = reloadable;
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

// `Get` is a generic lambda `[](auto& c) -> auto& { return c.field; }`, so one accessor serves
// both reading (const) and writing.
template <typename Get>
Spec Double(std::string key,
            Get get,
            Bounds bounds,
            std::string description,
            bool reloadable,
            bool checked_by_options = false) {
  Spec spec = MakeSpec(std::move(key), Type::kDouble, std::move(description), reloadable);
  SetBounds(&spec, bounds, checked_by_options);
  spec.read = [get, bounds, checked_by_options](const ConfigNode& parent,
                                                const std::string& leaf,
                                                const std::string& /*dir*/,
                                                DeploymentConfig* config) -> Status {
    const ConfigNode& node = *parent.Find(leaf);
    if (node.IsNull()) return parent.Read(leaf, &get(*config));  // reports the empty value
    Result<double> value = node.AsDouble();
    if (!value.ok()) return value.status();
    if (!checked_by_options) {
      if (Status status = CheckBounds(node, value.value(), bounds); !status.ok()) return status;
    }
    get(*config) = value.value();
    return Status::Ok();
  };
  spec.format = [get](const DeploymentConfig& c) { return FormatDouble(get(c)); };
  return spec;
}

template <typename Get>
Spec Int(std::string key,
         Get get,
         Bounds bounds,
         std::string description,
         bool reloadable,
         bool checked_by_options = false) {
  Spec spec = MakeSpec(std::move(key), Type::kInt, std::move(description), reloadable);
  SetBounds(&spec, bounds, checked_by_options);
  spec.read = [get, bounds, checked_by_options](const ConfigNode& parent,
                                                const std::string& leaf,
                                                const std::string& /*dir*/,
                                                DeploymentConfig* config) -> Status {
    int value = get(*config);
    if (Status status = parent.Read(leaf, &value); !status.ok()) return status;
    if (!checked_by_options) {
      if (Status status = CheckBounds(*parent.Find(leaf), value, bounds); !status.ok()) {
        return status;
      }
    }
    get(*config) = value;
    return Status::Ok();
  };
  spec.format = [get](const DeploymentConfig& c) { return std::to_string(get(c)); };
  return spec;
}

template <typename Get>
Spec Uint64(std::string key, Get get, std::string description, bool reloadable) {
  Spec spec = MakeSpec(std::move(key), Type::kUint64, std::move(description), reloadable);
  SetBounds(&spec, AtLeast(0), false);
  spec.info.bounds = "[0, 2^64)";
  spec.read = [get](const ConfigNode& parent,
                    const std::string& leaf,
                    const std::string& /*dir*/,
                    DeploymentConfig* config) -> Status {
    const ConfigNode& node = *parent.Find(leaf);
    if (node.IsNull()) {
      return InvalidArgument(parent.Where() + ": " + parent.path() + "." + leaf +
                             " has no value: expected an integer");
    }
    if (!node.IsScalar()) return node.AsInt().status();
    const std::string& text = node.scalar();
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
      return InvalidArgument(node.Where() + ": " + node.path() + " = '" + text +
                             "': expected an integer in [0, 2^64)");
    }
    get(*config) = value;
    return Status::Ok();
  };
  spec.format = [get](const DeploymentConfig& c) { return std::to_string(get(c)); };
  return spec;
}

template <typename Get>
Spec Bool(std::string key, Get get, std::string description, bool reloadable) {
  Spec spec = MakeSpec(std::move(key), Type::kBool, std::move(description), reloadable);
  spec.info.bounds = "true|false";
  spec.read = [get](const ConfigNode& parent,
                    const std::string& leaf,
                    const std::string& /*dir*/,
                    DeploymentConfig* config) -> Status {
    return parent.Read(leaf, &get(*config));
  };
  spec.format = [get](const DeploymentConfig& c) -> std::string {
    return get(c) ? "true" : "false";
  };
  return spec;
}

// A non-empty string. `resolve`: a path, made absolute against the file's directory.
template <typename Get>
Spec String(std::string key,
            Get get,
            bool required,
            bool resolve,
            std::string description,
            bool reloadable) {
  Spec spec = MakeSpec(std::move(key), Type::kString, std::move(description), reloadable);
  spec.info.required = required;
  spec.info.bounds = "non-empty";
  spec.read = [get, resolve](const ConfigNode& parent,
                             const std::string& leaf,
                             const std::string& dir,
                             DeploymentConfig* config) -> Status {
    std::string value;
    if (Status status = parent.Read(leaf, &value); !status.ok()) return status;
    const ConfigNode& node = *parent.Find(leaf);
    if (value.empty()) {
      return InvalidArgument(node.Where() + ": " + node.path() +
                             " = '': expected a non-empty string");
    }
    // SQLite's in-memory database is a name, not a path.
    if (resolve && value != ":memory:") {
      const std::filesystem::path path(value);
      value = (path.is_absolute() ? path : std::filesystem::path(dir) / path)
                  .lexically_normal()
                  .string();
    }
    get(*config) = std::move(value);
    return Status::Ok();
  };
  spec.format = [get](const DeploymentConfig& c) { return get(c); };
  return spec;
}

template <typename Enum, typename Get>
Spec Choice(std::string key,
            Get get,
            std::vector<std::pair<std::string, Enum>> names,
            std::string description,
            bool reloadable) {
  Spec spec = MakeSpec(std::move(key), Type::kChoice, std::move(description), reloadable);
  for (const auto& [name, value] : names) spec.info.choices.push_back(name);
  spec.info.bounds = Join(spec.info.choices, "|");
  spec.read = [get, names, choices = spec.info.choices](const ConfigNode& parent,
                                                        const std::string& leaf,
                                                        const std::string& /*dir*/,
                                                        DeploymentConfig* config) -> Status {
    std::string value;
    if (Status status = parent.ReadChoice(leaf, choices, &value); !status.ok()) return status;
    for (const auto& [name, e] : names) {
      if (name == value) get(*config) = e;
    }
    return Status::Ok();
  };
  spec.format = [get, names](const DeploymentConfig& c) -> std::string {
    for (const auto& [name, e] : names) {
      if (get(c) == e) return name;
    }
    return "?";
  };
  return spec;
}

void EmitNode(const ConfigNode& node, YAML::Emitter* out) {
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

std::string FlowYaml(const ConfigNode& node) {
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

std::vector<Spec> BuildSpecs() {
  std::vector<Spec> s;
  // clang-format off
  // deployment
  s.push_back(String("deployment.name", [](auto& c) -> auto& { return c.name; }, true, false,
      "Names the deployment; recorded with every round in the database.", false));
  s.push_back(Uint64("deployment.seed", [](auto& c) -> auto& { return c.seed; },
      "Seed handed to the plugin (PluginContext::seed) for any data it generates.", false));
  // plugin
  s.push_back(String("plugin.name", [](auto& c) -> auto& { return c.plugin; }, true, false,
      "Plugin to load, as named in its DEDE_DECLARE_PLUGIN.", false));
  s.push_back(PathList("plugin.paths",
      "Directories or plugin libraries (.so) to search, relative to the deployment file."));
  s.push_back(SettingsMap("plugin.settings",
      "The plugin's own section, passed to its Configure, which validates it."));
  // solver
  s.push_back(Choice<SolverKind>("solver.kind", [](auto& c) -> auto& { return c.solver; },
      {{"admm", SolverKind::kAdmm}, {"exact", SolverKind::kExact}, {"plugin", SolverKind::kPlugin}},
      "admm: the DeDe ADMM solver (solver.admm); exact: one monolithic LP/MILP (solver.exact); "
      "plugin: a method of the plugin itself (solver.method), e.g. a POP or greedy baseline.",
      false));
  s.push_back(String("solver.method", [](auto& c) -> auto& { return c.method; }, false, false,
      "With solver.kind: plugin, the plugin's method to run (`dede plugins` lists each "
      "plugin's methods); `none` otherwise.", false));
  s.push_back(Choice<ColdStart>("solver.cold_start",
      [](auto& c) -> auto& { return c.cold_start; },
      {{"zero", ColdStart::kZero}, {"repair", ColdStart::kRepair}},
      "With solver.kind: admm, where the first solve of a run starts: zero, or the plugin's "
      "repair of an all-zero allocation (a domain heuristic: greedy routing for traffic "
      "engineering). A resumed run starts from its last stored allocation either way.",
      false));
  // solver.admm: AdmmOptions, in declaration order. Bounds are AdmmOptions::IsValid's.
  s.push_back(Int("solver.admm.max_iterations",
      [](auto& c) -> auto& { return c.admm.max_iterations; }, AtLeast(1),
      "Iteration budget of the continuous phase.", true, true));
  s.push_back(Double("solver.admm.rho", [](auto& c) -> auto& { return c.admm.rho; },
      AboveFinite(0),
      "Initial penalty, used when the solver starts cold; residual balancing corrects a poor "
      "choice.", false, true));
  s.push_back(Double("solver.admm.relaxation",
      [](auto& c) -> auto& { return c.admm.relaxation; }, Open(0, 2),
      "Over-relaxation alpha: 1 is plain ADMM; 1.5-1.8 usually converges faster.", true, true));
  s.push_back(Double("solver.admm.eps_abs", [](auto& c) -> auto& { return c.admm.eps_abs; },
      AtLeastFinite(0),
      "Absolute tolerance of the primal and dual residuals (scaled by sqrt(n)); eps_abs or "
      "eps_rel must be > 0.", true, true));
  s.push_back(Double("solver.admm.eps_rel", [](auto& c) -> auto& { return c.admm.eps_rel; },
      AtLeastFinite(0), "Relative tolerance of the primal and dual residuals.", true, true));
  s.push_back(Int("solver.admm.check_termination_every",
      [](auto& c) -> auto& { return c.admm.check_termination_every; }, AtLeast(1),
      "Iterations between residual checks (each check is a parallel reduction).", true, true));
  s.push_back(Choice<RhoUpdate>("solver.admm.rho_update",
      [](auto& c) -> auto& { return c.admm.rho_update; },
      {{"fixed", RhoUpdate::kFixed}, {"residual_balancing", RhoUpdate::kResidualBalancing}},
      "fixed keeps rho; residual_balancing rescales it to balance the primal and dual "
      "residuals.", true));
  s.push_back(Int("solver.admm.rho_update_every",
      [](auto& c) -> auto& { return c.admm.rho_update_every; }, AtLeast(1),
      "Iterations between rho updates, each taken at the first residual check at or after "
      "its time.", true, true));
  s.push_back(Double("solver.admm.rho_update_tolerance",
      [](auto& c) -> auto& { return c.admm.rho_update_tolerance; }, AtLeast(1),
      "Adopt a new rho only if it differs from the current one by more than this factor.",
      true, true));
  s.push_back(Bool("solver.admm.global_rho_balancing",
      [](auto& c) -> auto& { return c.admm.global_rho_balancing; },
      "With residual_balancing, balance the penalty of a max-min / min-max term's copies on "
      "their own residuals (their scale and duals are the objective's, not the entries').",
      true));
  s.push_back(Bool("solver.admm.global_copy_balancing",
      [](auto& c) -> auto& { return c.admm.global_copy_balancing; },
      "With global_rho_balancing, each copy of a max-min / min-max term's scalar also gets a "
      "factor from its share of the objective's dual (copies whose row does not bind stop "
      "holding the scalar back).", true));
  s.push_back(Choice<BlockBalancing>("solver.admm.block_rho_balancing",
      [](auto& c) -> auto& { return c.admm.block_rho_balancing; },
      {{"off", BlockBalancing::kOff}, {"resource", BlockBalancing::kResource},
       {"demand", BlockBalancing::kDemand}},
      "With residual_balancing, give the entries of each block of this side a penalty factor "
      "of their own, balanced on the block's residuals (where residuals concentrate in a few "
      "blocks, e.g. saturated links); used when the solver is built.", false));
  s.push_back(Bool("solver.admm.equilibrate",
      [](auto& c) -> auto& { return c.admm.equilibrate; },
      "Scale each entry's penalty by the square of its largest constraint coefficient (over "
      "their geometric mean): Ruiz-style column scaling of the coupling; used when the solver "
      "is built.", false));
  s.push_back(Bool("solver.admm.fill_after_max_min",
      [](auto& c) -> auto& { return c.admm.fill_after_max_min; },
      "Work-conserving max-min: after the max-min solve, maximise the total of the max-min "
      "expressions with each kept at or above the minimum found (continuous problems).", true));
  s.push_back(Double("solver.admm.fill_slack",
      [](auto& c) -> auto& { return c.admm.fill_slack; }, Bounds{0, 1, false, true},
      "Relative amount the second stage may lower the minimum found by the first (>= 0, < 1).",
      true, true));
  s.push_back(Double("solver.admm.rho_min", [](auto& c) -> auto& { return c.admm.rho_min; },
      AboveFinite(0),
      "Lower clamp of rho updates (an initial rho below it lowers it); at most rho_max.", true,
      true));
  s.back().info.bounds = "> 0, <= rho_max";
  s.push_back(Double("solver.admm.rho_max", [](auto& c) -> auto& { return c.admm.rho_max; },
      Above(0),
      "Upper clamp of rho updates (an initial rho above it raises it); at least rho_min.", true,
      true));
  s.back().info.bounds = ">= rho_min";
  s.push_back(Int("solver.admm.anderson_memory",
      [](auto& c) -> auto& { return c.admm.anderson_memory; }, Closed(0, 50),
      "Safeguarded Anderson acceleration: extrapolate the iteration's state from this many "
      "past ones every anderson_interval iterations; 0: off. Costs 2 memory + 7 doubles per "
      "shared entry.", true, true));
  s.push_back(Int("solver.admm.anderson_interval",
      [](auto& c) -> auto& { return c.admm.anderson_interval; }, AtLeast(1),
      "ADMM iterations between two Anderson steps.", true, true));
  s.push_back(Choice<AndersonType>("solver.admm.anderson_type",
      [](auto& c) -> auto& { return c.admm.anderson_type; },
      {{"type1", AndersonType::kTypeI}, {"type2", AndersonType::kTypeII}},
      "type1 (S'Y gamma = S'g) or type2 (least squares on the residual differences).", true));
  s.push_back(Double("solver.admm.time_limit_seconds",
      [](auto& c) -> auto& { return c.admm.time_limit_seconds; }, Above(0),
      "Wall-clock budget of the whole round (seed, refresh, iterations, the plugin's repair "
      "and report; the engine's build, once per deployment, is outside it); .inf: none.",
      true, true));
  s.push_back(Int("solver.admm.num_threads", [](auto& c) -> auto& { return c.admm.num_threads; },
      Closed(0, AdmmOptions::kMaxThreads), "Worker threads; 0: all hardware threads.", true,
      true));
  s.push_back(Bool("solver.admm.repair", [](auto& c) -> auto& { return c.admm.repair; },
      "Repair feasibility after the iterations by alternating projections.", true));
  s.push_back(Int("solver.admm.repair_max_rounds",
      [](auto& c) -> auto& { return c.admm.repair_max_rounds; }, AtLeast(0),
      "Projection rounds the repair may use.", true, true));
  s.push_back(Choice<FinalIterate>("solver.admm.final_iterate",
      [](auto& c) -> auto& { return c.admm.final_iterate; },
      {{"demand", FinalIterate::kDemandSide}, {"resource", FinalIterate::kResourceSide}},
      "Copy of the shared entries the allocation is read from before the repair: demand (z, "
      "demand constraints hold) or resource (x, resource constraints hold). For capacity-bound "
      "problems whose plugin repair trims demands to fit, resource usually loses less.", true));
  s.push_back(Choice<EntryCostSide>("solver.admm.entry_cost_side",
      [](auto& c) -> auto& { return c.admm.entry_cost_side; },
      {{"split", EntryCostSide::kSplit}, {"resource", EntryCostSide::kResource},
       {"demand", EntryCostSide::kDemand}},
      "Copy of each entry that carries its linear cost: half on each (split), or the whole on "
      "the resource copy or on the demand copy (same optimum, different iterates; the other "
      "side then holds no costs); used when the solver is built.", false));
  s.push_back(Double("solver.admm.feasibility_tolerance",
      [](auto& c) -> auto& { return c.admm.feasibility_tolerance; }, AboveFinite(0),
      "Constraint violation accepted as feasible (the repair's target).", true, true));
  s.push_back(Int("solver.admm.integer_iterations",
      [](auto& c) -> auto& { return c.admm.integer_iterations; }, AtLeast(0),
      "Iterations of the integer phase, in which each block solves its own mixed-integer "
      "problem.", true, true));
  s.push_back(Double("solver.admm.integer_rho_growth",
      [](auto& c) -> auto& { return c.admm.integer_rho_growth; }, AtLeast(1),
      "Factor applied to rho at each termination check of the integer phase (1: fixed).",
      true, true));
  s.push_back(Int("solver.admm.block_node_limit",
      [](auto& c) -> auto& { return c.admm.block_node_limit; }, AtLeast(1),
      "Branch-and-bound nodes per block solve; used when the block solvers are built.", false,
      true));
  s.push_back(Double("solver.admm.gap_tolerance",
      [](auto& c) -> auto& { return c.admm.gap_tolerance; }, Bounds{0, 1, false, true},
      "Stop once the allocation's certified gap (its distance from the optimum, proven by the "
      "checks' Lagrangian bound, relative) is at most this (0: off; continuous problems).",
      true, true));
  s.push_back(Bool("solver.admm.verbose", [](auto& c) -> auto& { return c.admm.verbose; },
      "Print the residual trace to stderr.", true));
  // solver.exact: ExactOptions, in declaration order. Bounds are the exact solver's.
  s.push_back(Double("solver.exact.time_limit_seconds",
      [](auto& c) -> auto& { return c.exact.time_limit_seconds; }, Above(0),
      "Wall-clock budget of the exact solve; .inf: none.", true));
  s.push_back(Double("solver.exact.cut_tolerance",
      [](auto& c) -> auto& { return c.exact.cut_tolerance; }, AtLeastFinite(0),
      "Relative gap at which outer approximation of log and quadratic terms stops.", true));
  s.push_back(Int("solver.exact.max_cut_rounds",
      [](auto& c) -> auto& { return c.exact.max_cut_rounds; }, AtLeast(1),
      "Rounds of tangent cuts of the outer approximation.", true));
  s.push_back(Double("solver.exact.mip_gap", [](auto& c) -> auto& { return c.exact.mip_gap; },
      AtLeastFinite(0), "Relative MIP gap at which branch and cut stops.", true));
  s.push_back(Bool("solver.exact.use_clp_qp", [](auto& c) -> auto& { return c.exact.use_clp_qp; },
      "Continuous QPs with Clp's QP primal (faster, but unreliable) instead of tangent cuts.",
      true));
  s.push_back(Choice<LpMethod>("solver.exact.lp_method",
      [](auto& c) -> auto& { return c.exact.lp_method; },
      {{"auto", LpMethod::kAuto}, {"dual", LpMethod::kDual}, {"primal", LpMethod::kPrimal},
       {"barrier", LpMethod::kBarrier}},
      "First solve of a continuous LP: auto (Clp's choice, usually dual simplex), dual, primal "
      "(interrupted iterates stay feasible) or barrier (interior point + crossover; far faster "
      "on large path LPs).", true));
  s.push_back(Bool("solver.exact.fill_after_max_min",
      [](auto& c) -> auto& { return c.exact.fill_after_max_min; },
      "Work-conserving max-min for the exact LP: after the optimum, maximise the total of the "
      "max-min expressions with each kept at the minimum found (plain LPs).", true));
  s.push_back(Double("solver.exact.fill_slack",
      [](auto& c) -> auto& { return c.exact.fill_slack; }, Bounds{0, 1, false, true},
      "Relative amount the exact second stage may lower the minimum (>= 0, < 1).", true));
  s.push_back(Bool("solver.exact.verbose", [](auto& c) -> auto& { return c.exact.verbose; },
      "Print the LP/MIP solver's log.", true));
  // schedule
  // Below a millisecond the skip arithmetic divides by almost nothing; above 1e9 s (31 years)
  // the interval overflows the clock's nanoseconds.
  s.push_back(Double("schedule.interval_seconds",
      [](auto& c) -> auto& { return c.interval_seconds; }, Closed(1e-3, 1e9),
      "Time between the starts of consecutive rounds.", true));
  s.push_back(Choice<OverrunPolicy>("schedule.overrun",
      [](auto& c) -> auto& { return c.overrun; },
      {{"skip", OverrunPolicy::kSkip}, {"back_to_back", OverrunPolicy::kBackToBack}},
      "A round that outlasts the interval: skip the missed starts, or start the next round at "
      "once (back_to_back).", true));
  s.push_back(Bool("schedule.simulated_time", [](auto& c) -> auto& { return c.simulated_time; },
      "Run rounds back to back on a virtual clock (replays and tests).", false));
  // storage
  s.push_back(String("storage.database", [](auto& c) -> auto& { return c.database; }, true, true,
      "SQLite database file, relative to the deployment file; \":memory:\" keeps it in "
      "memory.", false));
  s.push_back(Int("storage.keep_allocations",
      [](auto& c) -> auto& { return c.keep_allocations; }, AtLeast(0),
      "Allocation rows kept in the database: 0 keeps every round's; N keeps the latest round's "
      "and those of rounds divisible by N (the others are deleted when the next round is "
      "written). Round summaries, metrics and records are always kept.", true));
  s.push_back(Int("storage.retention.keep_rounds",
      [](auto& c) -> auto& { return c.retention_keep_rounds; }, AtLeast(0),
      "Full records (allocation, entities and their parameters, domain records) are kept for "
      "the last N rounds; older rounds keep their round_summary row and metrics. 0: every "
      "round's. With keep_days, a round is pruned when either says so.", true));
  s.push_back(Double("storage.retention.keep_days",
      [](auto& c) -> auto& { return c.retention_keep_days; }, AtLeastFinite(0),
      "Full records are kept for the rounds started within D days of the latest round "
      "(simulated time for simulated_time deployments); older rounds keep their round_summary "
      "row and metrics. 0: no age limit.", true));
  // inbox
  s.push_back(Int("inbox.max_events_per_round",
      [](auto& c) -> auto& { return c.max_events_per_round; }, AtLeast(0),
      "Inbox events a round applies at most (the oldest due first); the rest wait for the next "
      "rounds, in order, and the backlog is logged and in /metrics. 0: no cap. At ~65 us an "
      "event, 10000 is under a second of a round.", true));
  // stop
  s.push_back(Int("stop.max_rounds", [](auto& c) -> auto& { return c.max_rounds; }, AtLeast(0),
      "Stop after this many rounds; 0: no limit.", true));
  s.push_back(Double("stop.max_wall_seconds",
      [](auto& c) -> auto& { return c.max_wall_seconds; }, AtLeast(0),
      "Stop after this much wall-clock time; 0: no limit.", true));
  // http
  s.push_back(Bool("http.enabled", [](auto& c) -> auto& { return c.http_enabled; },
      "Serve the deployment's state over HTTP while it runs, read-only: /healthz, "
      "/rounds?last=N, /allocation?demand=D, /metrics (Prometheus text) and a status page /.",
      false));
  s.push_back(IpLiteral(String("http.address", [](auto& c) -> auto& { return c.http_address; },
      false, false, "Address the endpoint listens on, an IP literal as it binds it (no name "
      "lookup): loopback by default; 0.0.0.0 for every interface.", false)));
  s.push_back(Int("http.port", [](auto& c) -> auto& { return c.http_port; }, Closed(0, 65535),
      "TCP port of the endpoint; 0: any free port (the log names it).", false));
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

  const DeploymentConfig defaults;
  for (Spec& spec : s) {
    if (!spec.info.required) spec.info.default_value = spec.format(defaults);
    if (!spec.emit) {
      spec.emit = [format = spec.format](const DeploymentConfig& c, YAML::Emitter* out) {
        *out << format(c);
      };
    }
  }
  return s;
}

}  // namespace

const std::vector<Spec>& Specs() {
  static const std::vector<Spec> specs = BuildSpecs();
  return specs;
}

std::string Join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

}  // namespace dede::internal
